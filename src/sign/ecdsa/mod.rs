//! ECDSA backends: RFC 6979 deterministic, low-s, recoverable secp256k1 signatures.
//!
//! Two implementations produce byte-identical signatures (a test proves it):
//! `Libsecp256k1` (Bitcoin Core's C library through the `secp256k1` crate, feature
//! `libsecp256k1`, on by default because it is the faster one on the development machine — see
//! BENCHMARKS.md) and `K256` (pure Rust, feature `k256`). [`DefaultBackend`] names the one
//! [`Signer`](super::Signer) uses: libsecp256k1 when enabled, else k256.

#[cfg(not(any(feature = "libsecp256k1", feature = "k256")))]
compile_error!(
    "polyclob needs an ECDSA backend: enable feature `libsecp256k1` (default) or `k256`"
);

#[cfg(feature = "k256")]
mod k256;
#[cfg(feature = "libsecp256k1")]
mod secp256k1;

#[cfg(feature = "k256")]
pub use self::k256::K256;
#[cfg(feature = "libsecp256k1")]
pub use self::secp256k1::Libsecp256k1;

/// The backend [`Signer`](super::Signer) uses: [`Libsecp256k1`] with the `libsecp256k1`
/// feature (default), else [`K256`].
#[cfg(feature = "libsecp256k1")]
pub type DefaultBackend = Libsecp256k1;
/// The backend [`Signer`](super::Signer) uses: [`Libsecp256k1`] with the `libsecp256k1`
/// feature (default), else [`K256`].
#[cfg(all(feature = "k256", not(feature = "libsecp256k1")))]
pub type DefaultBackend = K256;

use alloy_primitives::{Address, keccak256};

/// Public-key recovery through the default backend.
pub(crate) fn recover(
    digest: &[u8; 32],
    sig: &crate::sign::Signature,
) -> Result<Address, crate::sign::SignError> {
    #[cfg(feature = "libsecp256k1")]
    {
        self::secp256k1::recover(digest, sig)
    }
    #[cfg(all(feature = "k256", not(feature = "libsecp256k1")))]
    {
        self::k256::recover(digest, sig)
    }
}

/// The Ethereum address of an uncompressed SEC1 public key (`0x04 ‖ x ‖ y`).
pub(crate) fn address_of_uncompressed(point: &[u8; 65]) -> Address {
    Address::from_slice(&keccak256(&point[1..])[12..])
}

#[cfg(all(test, feature = "libsecp256k1", feature = "k256"))]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    /// Both backends give byte-identical signatures (RFC 6979, low-s, same parity) for many
    /// keys and digests, and agree on the address.
    #[test]
    fn backends_are_identical() {
        for i in 0u32..300 {
            let secret = keccak256(i.to_be_bytes()).0;
            let digest = keccak256(secret).0;
            let a = K256::from_bytes(&secret).unwrap();
            let b = Libsecp256k1::from_bytes(&secret).unwrap();
            assert_eq!(a.address(), b.address());
            let sa = a.sign_prehash(&digest).unwrap();
            let sb = b.sign_prehash(&digest).unwrap();
            assert_eq!(sa, sb, "key #{i}");
            assert_eq!(self::k256::recover(&digest, &sa).unwrap(), a.address());
            assert_eq!(self::secp256k1::recover(&digest, &sa).unwrap(), a.address());
        }
    }

    #[test]
    fn backends_reject_the_same_keys() {
        let n_minus_1: [u8; 32] = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c,
            0xd0, 0x36, 0x41, 0x40,
        ];
        let mut n = n_minus_1;
        n[31] = 0x41;
        assert!(K256::from_bytes(&n_minus_1).is_ok());
        assert!(Libsecp256k1::from_bytes(&n_minus_1).is_ok());
        for bad in [[0u8; 32], n, [0xff; 32]] {
            assert!(K256::from_bytes(&bad).is_err());
            assert!(Libsecp256k1::from_bytes(&bad).is_err());
        }
    }
}
