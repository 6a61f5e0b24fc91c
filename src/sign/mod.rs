//! Signing: ECDSA keys, EIP-712 hashing, L1 (ClobAuth) and L2 (HMAC) authentication, wallets.
//!
//! ```
//! use polyclob::U256;
//! use polyclob::sign::{Signer, clob_auth::sign_clob_auth, hmac::HmacKey};
//!
//! // Hardhat account #0: a public test key. The key is zeroized on drop and never printed.
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! assert_eq!(signer.address().to_checksum(None), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
//! assert!(!format!("{signer:?}").contains("ac0974"));
//!
//! // L1: the ClobAuth signature that creates API credentials (Polymarket's vector, on Amoy).
//! let l1 = sign_clob_auth(&signer, 80002, 10_000_000, U256::from(23))?;
//! assert!(l1.to_string().starts_with("0xf62319a987514da40e57e2f4d7529f7bac38f0355bd88bb5adbb3768d80de6c1"));
//!
//! // L2: the POLY_SIGNATURE header of one request, from the credentials' secret.
//! let secret = HmacKey::from_base64url("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")?;
//! let l2 = secret.sign(1_700_000_000, "GET", "/data/orders", b"");
//! assert_eq!(l2.as_str().len(), 44); // base64url of an HMAC-SHA256
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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

pub use self::error::SignError;
pub use self::signature::Signature;
pub use self::signer::Signer;

pub(crate) use self::signature::write_hex_into as signature_hex_into;
