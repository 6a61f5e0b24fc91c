//! The session signers of a deposit wallet (docs.polymarket.com/trading/session-keys): EOAs
//! its owner authorized to trade for it, scoped to venues and with an expiry, as the CLOB lists
//! them (`GET /v1/user/session-signers`, L2 with the owner's API key). Authorizing and revoking
//! are relayer transactions (`polyclob::relayer`).

use std::fmt;

use alloy_primitives::Address;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::auth::Level;
use super::client::Client;
use super::request::Req;
use crate::http::{Error, Rows, SkippedRow};

/// `GET`: the owner's session signers on the CLOB host (L2).
const SESSION_SIGNERS_PATH: &str = "/v1/user/session-signers";

/// A venue a session signer may trade on. Scopes the exchange adds later arrive as
/// [`Other`](Self::Other) rather than failing the row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionScope {
    /// Every venue, present and future; only valid alone.
    All,
    /// The central limit order book.
    Clob,
    /// Combos RFQ.
    ComboRfq,
    /// A scope this version does not know.
    Other(String),
}

impl SessionScope {
    /// The wire name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::All => "ALL",
            Self::Clob => "CLOB",
            Self::ComboRfq => "COMBOSRFQ",
            Self::Other(s) => s,
        }
    }

    /// Parses a wire name (unknown names become [`Other`](Self::Other)).
    #[must_use]
    pub fn parse(s: &str) -> Self {
        match s {
            "ALL" => Self::All,
            "CLOB" => Self::Clob,
            "COMBOSRFQ" => Self::ComboRfq,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for SessionScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One authorized session signer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSigner {
    /// The signer's address.
    pub address: Address,
    /// Venues it may trade on.
    pub scopes: Vec<SessionScope>,
    /// Expiry, Unix seconds.
    pub valid_until: u64,
}

/// `GET /v1/user/session-signers`: the deposit wallet and its active session signers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSigners {
    /// The deposit wallet the signers act for (`None` when the field was missing or odd).
    pub wallet: Option<Address>,
    /// Signers that decoded.
    pub signers: Vec<SessionSigner>,
    /// Rows that did not (an odd row never fails the list): index, reason, raw text.
    pub skipped: Vec<SkippedRow>,
}

impl Rows for SessionSigners {
    fn skipped(&self) -> &[SkippedRow] {
        &self.skipped
    }
}

#[derive(Deserialize)]
struct RawList<'a> {
    #[serde(default)]
    wallet: serde_json::Value,
    #[serde(borrow, default)]
    signers: Option<Vec<&'a RawValue>>,
}

fn row(v: &serde_json::Value) -> Result<SessionSigner, String> {
    let address = v
        .get("address")
        .and_then(serde_json::Value::as_str)
        .and_then(|s| s.parse::<Address>().ok())
        .ok_or("`address` is not an address")?;
    // A scope that is not a name fails the row: dropping it would grant less than listed.
    let scopes: Vec<SessionScope> = v
        .get("scopes")
        .and_then(serde_json::Value::as_array)
        .ok_or("`scopes` is not an array")?
        .iter()
        .map(|s| {
            s.as_str()
                .filter(|s| !s.is_empty())
                .map(SessionScope::parse)
                .ok_or("`scopes` holds a value that is not a scope name")
        })
        .collect::<Result<_, _>>()?;
    if scopes.is_empty() {
        return Err("`scopes` names no scope".to_owned());
    }
    let valid_until = match v.get("valid_until") {
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        Some(serde_json::Value::String(s)) => s.parse().ok(),
        _ => None,
    }
    .ok_or("`valid_until` is not Unix seconds")?;
    Ok(SessionSigner {
        address,
        scopes,
        valid_until,
    })
}

/// Decodes a `GET /v1/user/session-signers` body; odd rows are reported, not fatal.
///
/// # Errors
///
/// ([`Error::is_decode`]) a body that is not an object with a `signers` array.
pub(crate) fn decode_session_signers(body: &[u8]) -> Result<SessionSigners, Error> {
    let raw: RawList<'_> = crate::http::decode(body, SESSION_SIGNERS_PATH)?;
    let rows = raw
        .signers
        .ok_or_else(|| Error::decode("session signers: `signers` is not an array"))?;
    let mut out = SessionSigners {
        wallet: raw.wallet.as_str().and_then(|s| s.parse().ok()),
        ..SessionSigners::default()
    };
    for (index, text) in rows.into_iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(text.get()).unwrap_or_default();
        match row(&v) {
            Ok(s) => out.signers.push(s),
            Err(reason) => out
                .skipped
                .push(SkippedRow::new("signers", index, reason, text.get())),
        }
    }
    Ok(out)
}

impl Client {
    /// `GET /v1/user/session-signers` (L2 with the deposit wallet owner's API key): the
    /// wallet's active session signers.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body without a `signers` array.
    pub async fn session_signers(&self) -> Result<SessionSigners, Error> {
        self.rows(
            &Req::get(SESSION_SIGNERS_PATH).auth(Level::L2),
            decode_session_signers,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_decodes_leniently() {
        let body = br#"{"wallet":"0x1111111111111111111111111111111111111111","signers":[
            {"address":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8","scopes":["CLOB","NEWER"],"valid_until":1900000000},
            {"address":"nope","scopes":["CLOB"],"valid_until":1},
            {"address":"0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc","scopes":[],"valid_until":1},
            {"address":"0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc","scopes":["ALL"],"valid_until":"1800000000"},
            {"address":"0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc","scopes":["ALL"],"valid_until":-5},
            7
        ]}"#;
        let l = decode_session_signers(body).unwrap();
        assert_eq!(l.wallet, Some(Address::repeat_byte(0x11)));
        assert_eq!(l.signers.len(), 2);
        assert_eq!(
            l.signers[0].scopes,
            vec![SessionScope::Clob, SessionScope::Other("NEWER".into())]
        );
        assert_eq!(l.signers[0].valid_until, 1_900_000_000);
        assert_eq!(l.signers[1].scopes, vec![SessionScope::All]);
        assert_eq!(l.signers[1].valid_until, 1_800_000_000);
        let skipped: Vec<usize> = l.skipped.iter().map(|r| r.index).collect();
        assert_eq!(skipped, vec![1, 2, 4, 5]);
        assert_eq!(l.skipped[3].raw, "7");
        assert!(l.skipped[0].raw.contains("\"nope\""));
        // A scope that is not a name fails its row rather than vanish from the list.
        let body = br#"{"signers":[{"address":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8","scopes":["CLOB",7],"valid_until":1}]}"#;
        let l = decode_session_signers(body).unwrap();
        assert!(l.signers.is_empty());
        assert!(l.skipped[0].reason.contains("scope"), "{:?}", l.skipped);
        for bad in [&b"[]"[..], b"{\"signers\":{}}", b"null", b"{"] {
            assert!(decode_session_signers(bad).unwrap_err().is_decode());
        }
    }
}
