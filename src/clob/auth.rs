//! L1 (ClobAuth EIP-712) and L2 (HMAC) request headers.
//!
//! The cryptography lives in [`crate::sign`]; this file only decides which headers a request
//! carries and feeds the signer the exact bytes that go on the wire.

use core::fmt;
use std::sync::{Arc, RwLock};

use alloy_primitives::U256;
use reqwest::header::HeaderValue;
use zeroize::Zeroizing;

use crate::http::Error;
use crate::sign::clob_auth::L1Headers;
use crate::sign::hmac::HmacKey;
use crate::sign::{SignError, Signer};

fn value(s: &str) -> Result<HeaderValue, Error> {
    HeaderValue::from_str(s).map_err(|_| {
        Error::argument("a credential contains characters not allowed in an HTTP header")
    })
}

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

/// The nonce an API key is created or derived for (the ClobAuth message's `nonce`): each
/// nonce is another key of the same address. Every Polymarket client uses
/// [`ZERO`](Self::ZERO) unless told otherwise.
///
/// ```
/// use polyclob::clob::ApiKeyNonce;
///
/// assert_eq!(ApiKeyNonce::default(), ApiKeyNonce::ZERO);
/// assert_eq!(ApiKeyNonce::new(7).get(), 7);
/// assert_eq!(ApiKeyNonce::from(7u64).to_string(), "7");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use]
pub struct ApiKeyNonce(u64);

impl ApiKeyNonce {
    /// Nonce 0: the key every Polymarket client creates or derives by default.
    pub const ZERO: Self = Self(0);

    /// The nonce `n`.
    pub const fn new(n: u64) -> Self {
        Self(n)
    }

    /// The nonce as a number.
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl From<u64> for ApiKeyNonce {
    fn from(n: u64) -> Self {
        Self(n)
    }
}

impl From<ApiKeyNonce> for U256 {
    fn from(n: ApiKeyNonce) -> Self {
        Self::from(n.0)
    }
}

impl fmt::Display for ApiKeyNonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
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
    pub fn new(
        api_key: impl Into<String>,
        secret: impl Into<String>,
        passphrase: impl Into<String>,
    ) -> Self {
        Self {
            api_key: api_key.into(),
            secret: Zeroizing::new(secret.into()),
            passphrase: Zeroizing::new(passphrase.into()),
        }
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
    pub(crate) signer: Option<Signer>,
    pub(crate) creds: Option<Credentials>,
}

/// Credentials with the HMAC state keyed once (the secret is decoded when set, not per call).
pub(crate) struct Keyed {
    pub(crate) creds: Credentials,
    key: Result<HmacKey, SignError>,
}

/// Auth material of a built client. Credentials can be swapped at run time.
pub(crate) struct Auth {
    signer: Option<Signer>,
    creds: RwLock<Option<Arc<Keyed>>>,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("signer", &self.signer)
            .field("api_key", &self.creds().map(|k| k.creds.api_key.clone()))
            .finish()
    }
}

pub(crate) type Headers = Vec<(&'static str, HeaderValue)>;

impl Auth {
    pub(crate) fn new(config: AuthConfig) -> Self {
        let auth = Self {
            signer: config.signer,
            creds: RwLock::new(None),
        };
        auth.set_creds(config.creds);
        auth
    }

    pub(crate) fn signer(&self) -> Option<&Signer> {
        self.signer.as_ref()
    }

    pub(crate) fn creds(&self) -> Option<Arc<Keyed>> {
        self.creds
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set_creds(&self, creds: Option<Credentials>) {
        let keyed = creds.map(|creds| {
            let key = HmacKey::from_base64url(creds.secret());
            Arc::new(Keyed { creds, key })
        });
        *self
            .creds
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = keyed;
    }

    /// As [`headers`](Self::headers), written as `name: value\r\n` lines into `out` (the
    /// order lane's request buffer): for L2 with no allocation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_headers(
        &self,
        level: Level,
        chain_id: u64,
        ts: u64,
        method: &str,
        path: &str,
        body: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        fn line(out: &mut Vec<u8>, name: &str, value: &[u8]) -> Result<(), Error> {
            // What `HeaderValue::from_str` accepts: no control characters (no CR/LF smuggling).
            if value.iter().any(|&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
                return Err(Error::argument(
                    "a credential contains characters not allowed in an HTTP header",
                ));
            }
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
            Ok(())
        }
        if level != Level::L2 {
            for (name, value) in self.headers(level, chain_id, ts, method, path, body)? {
                line(out, name, value.as_bytes())?;
            }
            return Ok(());
        }
        let signer = self
            .signer
            .as_ref()
            .ok_or_else(|| Error::auth("this call needs a private key (L2): none was given"))?;
        let keyed = self
            .creds()
            .ok_or_else(|| Error::auth("this call needs API credentials (L2): none were given"))?;
        let key = keyed.key.as_ref().map_err(|e| Error::sign(*e))?;
        let sig = key.sign(ts, method, path, body);
        let address = signer.address().to_checksum_buffer(None);
        let mut digits = [0u8; 20];
        line(out, "poly_address", address.as_str().as_bytes())?;
        line(out, "poly_signature", sig.as_str().as_bytes())?;
        line(
            out,
            "poly_timestamp",
            crate::sign::eip712::write_u64_decimal(ts, &mut digits),
        )?;
        line(out, "poly_api_key", keyed.creds.api_key().as_bytes())?;
        line(out, "poly_passphrase", keyed.creds.passphrase().as_bytes())
    }

    /// The headers for one attempt of a request, signed over exactly `body`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn headers(
        &self,
        level: Level,
        chain_id: u64,
        ts: u64,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> Result<Headers, Error> {
        match level {
            Level::None => Ok(Vec::new()),
            Level::L1(nonce) => {
                let signer = self.signer.as_ref().ok_or_else(|| {
                    Error::auth("this call needs a private key (L1): none was given")
                })?;
                let h = L1Headers::new(signer, chain_id, ts, nonce).map_err(Error::sign)?;
                Ok(vec![
                    ("poly_address", value(h.address())?),
                    ("poly_signature", value(h.signature())?),
                    ("poly_timestamp", value(h.timestamp())?),
                    ("poly_nonce", value(h.nonce())?),
                ])
            }
            Level::L2 => {
                let signer = self.signer.as_ref().ok_or_else(|| {
                    Error::auth("this call needs a private key (L2): none was given")
                })?;
                let keyed = self.creds().ok_or_else(|| {
                    Error::auth("this call needs API credentials (L2): none were given")
                })?;
                let key = keyed.key.as_ref().map_err(|e| Error::sign(*e))?;
                let sig = key.sign(ts, method, path, body);
                let address = signer.address().to_checksum_buffer(None);
                let ts_text = ts.to_string();
                Ok(vec![
                    ("poly_address", value(address.as_str())?),
                    ("poly_signature", value(sig.as_str())?),
                    ("poly_timestamp", value(&ts_text)?),
                    ("poly_api_key", value(keyed.creds.api_key())?),
                    ("poly_passphrase", {
                        let mut v = value(keyed.creds.passphrase())?;
                        v.set_sensitive(true);
                        v
                    }),
                ])
            }
        }
    }
}
