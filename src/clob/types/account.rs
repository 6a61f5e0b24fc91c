//! API keys, balances, notifications, heartbeats.

use std::collections::HashMap;

use serde::Deserialize;

use crate::http::lenient;

/// `GET /balance-allowance`: raw 6-decimal amounts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct BalanceAllowance {
    /// Balance in 10⁻⁶ units.
    #[serde(default, deserialize_with = "lenient::u128_lenient")]
    pub balance: u128,
    /// Allowance per spender in 10⁻⁶ units (the raw strings as sent).
    #[serde(default)]
    pub allowances: HashMap<String, String>,
}

/// The asset a balance query is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AssetKind {
    /// pUSD / USDC.e.
    Collateral,
    /// Outcome tokens (token-ID markets).
    Conditional,
    /// Outcome positions of position-ID (protocol V2) markets.
    ConditionalV2,
}

impl AssetKind {
    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Collateral => "COLLATERAL",
            Self::Conditional => "CONDITIONAL",
            Self::ConditionalV2 => "CONDITIONAL-V2",
        }
    }
}

/// One user notification.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Notification {
    /// Notification id (used to drop it).
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: String,
    /// Kind (`type`), a small integer or a name.
    #[serde(default, rename = "type", deserialize_with = "lenient::string")]
    pub kind: String,
    /// Owner API key.
    #[serde(default, deserialize_with = "lenient::string")]
    pub owner: String,
    /// Free-form payload.
    #[serde(default)]
    pub payload: serde_json::Value,
}

/// `POST /v1/heartbeats` response.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct HeartbeatResponse {
    /// Id to send with the next heartbeat.
    #[serde(default, deserialize_with = "lenient::string")]
    pub heartbeat_id: String,
    /// Error text, if the server reported one.
    #[serde(default)]
    pub error: Option<String>,
}

/// `POST /auth/api-key` / `GET /auth/derive-api-key` response.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ApiKeyRaw {
    pub(crate) api_key: String,
    pub(crate) secret: String,
    pub(crate) passphrase: String,
}
