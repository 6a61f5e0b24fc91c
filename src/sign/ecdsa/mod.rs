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
#[cfg(feature = "libsecp256k1")]
pub(crate) use self::secp256k1::context as secp256k1_context;

/// The backend [`Signer`](super::Signer) uses: `Libsecp256k1` with the `libsecp256k1`
/// feature (default), else `K256`.
#[cfg(feature = "libsecp256k1")]
pub type DefaultBackend = Libsecp256k1;
/// The backend [`Signer`](super::Signer) uses: `Libsecp256k1` with the `libsecp256k1`
/// feature (default), else `K256`.
#[cfg(all(feature = "k256", not(feature = "libsecp256k1")))]
pub type DefaultBackend = K256;

mod common;

pub(crate) use self::common::{address_of_uncompressed, recover};
