//! The signing domain error.

use core::fmt;

/// Why a key, secret, signature or signing request was rejected.
///
/// Messages name the cause and never include secret material (a malformed private key is
/// reported by its length or the offset of the bad character, never by its bytes).
///
/// ```
/// use polyclob::sign::{SignError, Signer};
///
/// let err = Signer::from_hex("0x1234").unwrap_err();
/// assert!(matches!(err, SignError::InvalidPrivateKey(_)));
/// assert_eq!(err.to_string(), "invalid private key: expected 64 hex digits");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignError {
    /// The private key text or bytes are not a valid secp256k1 secret (the reason is static).
    InvalidPrivateKey(&'static str),
    /// The API secret is not valid base64 (standard or URL-safe alphabet).
    InvalidSecret {
        /// What was wrong.
        reason: &'static str,
        /// Byte offset into the secret text where decoding failed.
        offset: usize,
    },
    /// A signature's bytes are malformed (wrong length, bad hex, `v` not 27/28 or 0/1).
    InvalidSignature(&'static str),
    /// Public-key recovery failed: the signature does not correspond to any key for the digest.
    RecoveryFailed,
    /// The ECDSA backend refused to sign (not expected with a valid key).
    Backend(&'static str),
}

impl fmt::Display for SignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidPrivateKey(why) => write!(f, "invalid private key: {why}"),
            Self::InvalidSecret { reason, offset } => {
                write!(f, "invalid API secret: {reason} at byte {offset}")
            }
            Self::InvalidSignature(why) => write!(f, "invalid signature: {why}"),
            Self::RecoveryFailed => f.write_str("signature recovery failed"),
            Self::Backend(why) => write!(f, "ECDSA backend error: {why}"),
        }
    }
}

impl std::error::Error for SignError {}
