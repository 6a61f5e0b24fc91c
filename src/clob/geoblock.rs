//! The geoblock check (`GET https://polymarket.com/api/geoblock`, outside the CLOB host):
//! whether Polymarket refuses orders from the caller's IP address.

use serde::Deserialize;

use super::client::Client;
use crate::http::{Error, decode};

/// Polymarket's web host, which answers the geoblock check.
pub const DEFAULT_GEOBLOCK_HOST: &str = "https://polymarket.com";

const GEOBLOCK_PATH: &str = "/api/geoblock";

/// `GET /api/geoblock`: whether orders from the caller's IP address are refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Geoblock {
    /// Whether orders from this address are refused.
    #[serde(default)]
    pub blocked: bool,
    /// The address the check saw.
    #[serde(default)]
    pub ip: String,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default)]
    pub country: String,
    /// Region or state code.
    #[serde(default)]
    pub region: String,
}

impl Client {
    /// `GET {host}/api/geoblock` (public; `host` is [`DEFAULT_GEOBLOCK_HOST`] in production):
    /// whether Polymarket refuses orders from this client's IP address, and where it places
    /// it. Missing fields read as empty (and `blocked` as false).
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not an object.
    pub async fn check_geoblock(&self, host: &str) -> Result<Geoblock, Error> {
        let url = format!("{}{GEOBLOCK_PATH}", host.trim_end_matches('/'));
        let rb = self.inner.http.request_url(reqwest::Method::GET, &url);
        let body = self
            .inner
            .http
            .execute(rb, GEOBLOCK_PATH, |_, _| {})
            .await?;
        decode(&body, GEOBLOCK_PATH)
    }
}
