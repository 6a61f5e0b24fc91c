//! Signing: ECDSA keys, EIP-712 hashing, L1 (ClobAuth) and L2 (HMAC) authentication, wallets.
//!
//! | item | what |
//! |---|---|
//! | [`Signer`] | the private key (parsed once, zeroized, redacted) and the per-signer order clock |
//! | [`Signature`] | 65-byte `r ‖ s ‖ v`, hex into a stack buffer |
//! | [`eip712`] | type hashes, precomputed domains, hand-encoded struct hashing, recovery |
//! | [`ecdsa`] | the `k256` and libsecp256k1 backends |
//! | [`clob_auth`] | L1 ClobAuth signature and headers |
//! | [`hmac`] | L2 HMAC from a pre-keyed state |
//! | [`keccak`] | Keccak-256 (alloy, `asm-keccak`) and the EIP-712 signing hash |
//! | `presign` | precomputed-nonce ECDSA pool (feature `presign`): microsecond signatures |
//! | [`wallet`] | proxy/Safe CREATE2 derivation, POLY_1271 (ERC-7739) signatures |

pub mod clob_auth;
pub mod ecdsa;
pub mod eip712;
mod error;
pub mod hmac;
pub mod keccak;
// Wipe-on-fork memory and fork detection for the nonce pool: mmap/madvise/pthread_atfork.
#[cfg(feature = "presign")]
#[allow(unsafe_code)]
mod fork;
#[cfg(feature = "presign")]
pub mod presign;
mod signature;
mod signer;
pub mod wallet;
// Only compiled by rustc >= 1.89 (`polyclob_simd`), so the crate's MSRV does not apply there.
#[cfg(polyclob_simd)]
#[allow(unsafe_code)]
#[clippy::msrv = "1.89"]
mod x86;

pub use self::error::SignError;
pub use self::signature::Signature;
pub use self::signer::Signer;

pub(crate) use self::signature::write_hex_into as signature_hex_into;
