//! L1 (ClobAuth EIP-712) and L2 (HMAC) request headers.
//!
//! The cryptography lives in [`crate::sign`]; this file only decides which headers a request
//! carries and feeds the signer the exact bytes that go on the wire.

use core::fmt;
use std::sync::{Arc, RwLock};

use alloy_primitives::U256;
use reqwest::header::HeaderValue;
use zeroize::Zeroizing;

use super::error::Error;

/// Which auth headers a request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// Public endpoint.
    None,
    /// Wallet signature over ClobAuth with this nonce.
    L1(U256),
    /// HMAC with the API credentials.
    L2,
}

/// L2 API credentials as returned by `POST /auth/api-key`.
///
/// The secret and passphrase are zeroized on drop and never printed.
///
/// ```
/// use polyclob::clob::Credentials;
///
/// let c = Credentials::new("k", "AAAA", "p");
/// assert_eq!(c.api_key(), "k");
/// assert!(!format!("{c:?}").contains("AAAA"));
/// ```
#[derive(Clone)]
pub struct Credentials {
    api_key: String,
    secret: Zeroizing<String>,
    passphrase: Zeroizing<String>,
}

impl Credentials {
    /// Credentials from their three parts (`secret` is URL-safe base64, as the server sends it).
    pub fn new(api_key: impl Into<String>, secret: impl Into<String>, passphrase: impl Into<String>) -> Self {
        Self { api_key: api_key.into(), secret: Zeroizing::new(secret.into()), passphrase: Zeroizing::new(passphrase.into()) }
    }

    /// The API key (a UUID); also the `owner` of posted orders.
    #[must_use]
    pub fn api_key(&self) -> &str {
        &self.api_key
    }

    /// The base64 secret. Handle with care.
    #[must_use]
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// The passphrase. Handle with care.
    #[must_use]
    pub fn passphrase(&self) -> &str {
        &self.passphrase
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("api_key", &self.api_key)
            .field("secret", &"<redacted>")
            .field("passphrase", &"<redacted>")
            .finish()
    }
}

/// What the builder collected.
#[derive(Debug, Default)]
pub(crate) struct AuthConfig {
    pub(crate) creds: Option<Credentials>,
}

/// Auth material of a built client. Credentials can be swapped at run time.
pub(crate) struct Auth {
    creds: RwLock<Option<Arc<Credentials>>>,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth").field("has_creds", &self.creds().is_some()).finish()
    }
}

pub(crate) type Headers = Vec<(&'static str, HeaderValue)>;

impl Auth {
    pub(crate) fn new(config: AuthConfig) -> Self {
        Self { creds: RwLock::new(config.creds.map(Arc::new)) }
    }

    pub(crate) fn creds(&self) -> Option<Arc<Credentials>> {
        self.creds.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    pub(crate) fn set_creds(&self, creds: Option<Credentials>) {
        *self.creds.write().unwrap_or_else(std::sync::PoisonError::into_inner) = creds.map(Arc::new);
    }

    /// The headers for one attempt of a request.
    pub(crate) fn headers(&self, level: Level, _ts: u64, _method: &str, _path: &str, _body: &[u8]) -> Result<Headers, Error> {
        match level {
            Level::None => Ok(Vec::new()),
            // Filled in once the signing module lands (issue-sign4).
            Level::L1(_) | Level::L2 => Err(Error::auth("signing backend not available in this build")),
        }
    }
}
