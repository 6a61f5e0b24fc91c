//! The pure-Rust backend (RustCrypto `k256`).

use core::fmt;

use alloy_primitives::Address;
use k256::ecdsa::SigningKey;

use super::address_of_uncompressed;
use crate::sign::{SignError, Signature};

/// A secp256k1 private key held by the `k256` crate.
///
/// The key is zeroized on drop (`k256`'s `SigningKey` is `ZeroizeOnDrop`) and `Debug` shows only
/// the address.
///
/// ```
/// use polyclob::sign::ecdsa::K256;
///
/// let key = K256::from_bytes(&[1u8; 32])?;
/// let sig = key.sign_prehash(&[0u8; 32])?;
/// assert_eq!(polyclob::sign::eip712::recover_address(&[0u8; 32], &sig)?, key.address());
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone)]
pub struct K256 {
    key: SigningKey,
    address: Address,
}

impl K256 {
    /// Parses a 32-byte big-endian secret.
    ///
    /// # Errors
    /// [`SignError::InvalidPrivateKey`] when the scalar is zero or not below the curve order.
    pub fn from_bytes(secret: &[u8; 32]) -> Result<Self, SignError> {
        let key = SigningKey::from_slice(secret)
            .map_err(|_| SignError::InvalidPrivateKey("not a valid secp256k1 scalar"))?;
        let point = key.verifying_key().to_sec1_point(false);
        let bytes: &[u8; 65] = point
            .as_bytes()
            .try_into()
            .map_err(|_| SignError::Backend("unexpected public key encoding"))?;
        let address = address_of_uncompressed(bytes);
        Ok(Self { key, address })
    }

    /// A copy of the secret for the precomputed-nonce signer, zeroized when dropped.
    #[cfg(feature = "presign")]
    #[cfg_attr(feature = "libsecp256k1", allow(dead_code))]
    pub(crate) fn secret_bytes(&self) -> zeroize::Zeroizing<[u8; 32]> {
        let mut out = zeroize::Zeroizing::new([0u8; 32]);
        out.copy_from_slice(&self.key.to_bytes());
        out
    }

    /// The key's Ethereum address.
    #[must_use]
    pub const fn address(&self) -> Address {
        self.address
    }

    /// Signs a 32-byte digest: RFC 6979 nonce, low-s, `v` = 27/28.
    ///
    /// # Errors
    /// Never in practice; the `Result` keeps the backends interchangeable.
    pub fn sign_prehash(&self, digest: &[u8; 32]) -> Result<Signature, SignError> {
        let (sig, recid) = self.key.sign_prehash_recoverable(digest);
        let bytes = sig.to_bytes();
        let rs: &[u8; 64] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| SignError::Backend("unexpected signature length"))?;
        // k256 normalises s to the low half and flips the recovery id accordingly; an
        // x-reduced r (probability ~2⁻¹²⁸) cannot be expressed with v = 27/28.
        if recid.is_x_reduced() {
            return Err(SignError::Backend("x-reduced recovery id"));
        }
        Ok(Signature::from_parts(rs, recid.is_y_odd()))
    }
}

impl fmt::Debug for K256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("K256")
            .field("address", &self.address)
            .field("key", &"<redacted>")
            .finish()
    }
}

/// Public-key recovery with `k256` (used when it is the default backend, and by the tests).
#[cfg_attr(feature = "libsecp256k1", allow(dead_code))]
pub(crate) fn recover(digest: &[u8; 32], sig: &Signature) -> Result<Address, SignError> {
    use k256::ecdsa::{RecoveryId, Signature as KSig, VerifyingKey};
    let ksig = KSig::from_slice(&sig.as_bytes()[..64])
        .map_err(|_| SignError::InvalidSignature("r or s out of range"))?;
    let recid = RecoveryId::new(sig.y_odd(), false);
    let key = VerifyingKey::recover_from_prehash(digest, &ksig, recid)
        .map_err(|_| SignError::RecoveryFailed)?;
    let point = key.to_sec1_point(false);
    let bytes: &[u8; 65] = point
        .as_bytes()
        .try_into()
        .map_err(|_| SignError::RecoveryFailed)?;
    Ok(address_of_uncompressed(bytes))
}
