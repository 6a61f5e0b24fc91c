//! The libsecp256k1 backend (Bitcoin Core's C library through the `secp256k1` crate).

use core::fmt;
use std::sync::OnceLock;

use alloy_primitives::Address;
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{All, Message, PublicKey, Secp256k1, SecretKey};

use super::address_of_uncompressed;
use crate::sign::{SignError, Signature};

/// One signing context for the process: building one allocates and precomputes tables, so it
/// is done once and shared (the context is immutable and `Sync`).
fn context() -> &'static Secp256k1<All> {
    static CTX: OnceLock<Secp256k1<All>> = OnceLock::new();
    CTX.get_or_init(|| {
        let mut ctx = Secp256k1::new();
        // Blinding against side channels; signatures stay deterministic (RFC 6979).
        let mut seed = [0u8; 32];
        if getrandom::fill(&mut seed).is_ok() {
            ctx.seeded_randomize(&seed);
        }
        ctx
    })
}

/// A secp256k1 private key held by libsecp256k1.
///
/// Erased on drop (`non_secure_erase`, the crate's best-effort wipe) and redacted in `Debug`.
///
/// ```
/// use polyclob::sign::ecdsa::Libsecp256k1;
///
/// let key = Libsecp256k1::from_bytes(&[1u8; 32])?;
/// let sig = key.sign_prehash(&[9u8; 32])?;
/// assert_eq!(polyclob::sign::eip712::recover_address(&[9u8; 32], &sig)?, key.address());
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone)]
pub struct Libsecp256k1 {
    key: SecretKey,
    address: Address,
}

impl Libsecp256k1 {
    /// Parses a 32-byte big-endian secret.
    ///
    /// # Errors
    /// [`SignError::InvalidPrivateKey`] when the scalar is zero or not below the curve order.
    pub fn from_bytes(secret: &[u8; 32]) -> Result<Self, SignError> {
        let key = SecretKey::from_byte_array(*secret)
            .map_err(|_| SignError::InvalidPrivateKey("not a valid secp256k1 scalar"))?;
        let public = PublicKey::from_secret_key(context(), &key);
        let address = address_of_uncompressed(&public.serialize_uncompressed());
        Ok(Self { key, address })
    }

    /// A copy of the secret for the precomputed-nonce signer, zeroized when dropped.
    #[cfg(feature = "presign")]
    pub(crate) fn secret_bytes(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(self.key.secret_bytes())
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
        let msg = Message::from_digest(*digest);
        let sig = context().sign_ecdsa_recoverable(msg, &self.key);
        let (recid, rs) = sig.serialize_compact();
        match i32::from(recid) {
            0 => Ok(Signature::from_parts(&rs, false)),
            1 => Ok(Signature::from_parts(&rs, true)),
            _ => Err(SignError::Backend("x-reduced recovery id")),
        }
    }
}

impl Drop for Libsecp256k1 {
    fn drop(&mut self) {
        self.key.non_secure_erase();
    }
}

impl fmt::Debug for Libsecp256k1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Libsecp256k1")
            .field("address", &self.address)
            .field("key", &"<redacted>")
            .finish()
    }
}

/// Public-key recovery with libsecp256k1.
pub(crate) fn recover(digest: &[u8; 32], sig: &Signature) -> Result<Address, SignError> {
    let recid = RecoveryId::try_from(i32::from(sig.y_odd()))
        .map_err(|_| SignError::InvalidSignature("bad recovery id"))?;
    let rsig = RecoverableSignature::from_compact(&sig.as_bytes()[..64], recid)
        .map_err(|_| SignError::InvalidSignature("r or s out of range"))?;
    let key = context()
        .recover_ecdsa(Message::from_digest(*digest), &rsig)
        .map_err(|_| SignError::RecoveryFailed)?;
    Ok(address_of_uncompressed(&key.serialize_uncompressed()))
}
