//! What the relayer answers and how a request authenticates: a transaction and its state,
//! the refusals a caller acts on, and the two kinds of relayer auth.

use std::fmt;

use alloy_primitives::{Address, B256, U256};
use serde_json::Value;

use crate::clob::Credentials;
use crate::http::Error;

/// A relayer transaction's state (`STATE_*`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelayerState {
    /// `STATE_NEW`: accepted, not yet broadcast.
    New,
    /// `STATE_EXECUTED`: broadcast.
    Executed,
    /// `STATE_MINED`: in a block.
    Mined,
    /// `STATE_CONFIRMED`: final (success).
    Confirmed,
    /// `STATE_INVALID`: refused after acceptance (terminal failure).
    Invalid,
    /// `STATE_FAILED`: reverted or dropped (terminal failure).
    Failed,
    /// A state this version does not know.
    Unknown(String),
}

impl RelayerState {
    /// Parses a wire name (unknown names become [`Unknown`](Self::Unknown)).
    #[must_use]
    pub fn parse(s: &str) -> Self {
        match s {
            "STATE_NEW" => Self::New,
            "STATE_EXECUTED" => Self::Executed,
            "STATE_MINED" => Self::Mined,
            "STATE_CONFIRMED" => Self::Confirmed,
            "STATE_INVALID" => Self::Invalid,
            "STATE_FAILED" => Self::Failed,
            other => Self::Unknown(other.to_owned()),
        }
    }

    /// The wire name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::New => "STATE_NEW",
            Self::Executed => "STATE_EXECUTED",
            Self::Mined => "STATE_MINED",
            Self::Confirmed => "STATE_CONFIRMED",
            Self::Invalid => "STATE_INVALID",
            Self::Failed => "STATE_FAILED",
            Self::Unknown(s) => s,
        }
    }

    /// Whether the transaction will not change state again (confirmed, invalid or failed).
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Confirmed | Self::Invalid | Self::Failed)
    }

    /// Whether it ended without executing (invalid or failed).
    #[must_use]
    pub fn is_failed(&self) -> bool {
        matches!(self, Self::Invalid | Self::Failed)
    }
}

impl fmt::Display for RelayerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One relayer transaction: the answer to `POST /submit` and to
/// `GET /v1/account/transactions/{id}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RelayerTransaction {
    /// The relayer's id for it.
    pub transaction_id: String,
    /// Where it is.
    pub state: RelayerState,
    /// The chain transaction, once broadcast.
    pub transaction_hash: Option<B256>,
    /// The relayer's reason for a failure, when it gives one.
    pub error: Option<String>,
}

/// Decodes a relayer transaction; the submit answer spells its fields `transactionID` /
/// `transactionHash`, the lookup `transaction_id` / `transaction_hash`; `path` names the route
/// in an error.
///
/// # Errors
///
/// ([`Error::is_decode`]) no id or no state, or a hash that is not 32 bytes of hex.
pub(crate) fn decode_relayer_transaction(
    body: &[u8],
    path: &str,
) -> Result<RelayerTransaction, Error> {
    let v: Value = crate::http::decode(body, path)?;
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
    };
    let transaction_id = text(&["transactionID", "transactionId", "transaction_id"])
        .ok_or_else(|| Error::decode("relayer transaction: no transaction id"))?
        .to_owned();
    let state = RelayerState::parse(
        text(&["state"]).ok_or_else(|| Error::decode("relayer transaction: no state"))?,
    );
    let transaction_hash = match text(&["transactionHash", "transaction_hash"]) {
        None => None,
        Some(h) => Some(
            h.parse::<B256>()
                .map_err(|_| Error::decode("relayer transaction: the hash is not 32 bytes"))?,
        ),
    };
    let error = text(&["error_msg", "errorMsg"]).map(str::to_owned);
    Ok(RelayerTransaction {
        transaction_id,
        state,
        transaction_hash,
        error,
    })
}

/// A refusal of the relayer that a caller acts on, read from its error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RelayerRefusal {
    /// "batch nonce N does not match on-chain nonce M": the batch carries another nonce than
    /// the wallet's next. `submitted < on_chain`: that nonce is spent (this batch or another
    /// executed); `submitted > on_chain`: a batch before it has not executed yet.
    NonceMismatch {
        /// The batch's nonce.
        submitted: U256,
        /// The relayer's (on-chain) next nonce.
        on_chain: U256,
    },
    /// The wallet has an action in flight; post the same batch again later.
    WalletBusy,
}

impl RelayerRefusal {
    /// The refusal `error` reports, if it is a relayer `400` this type knows.
    #[must_use]
    pub fn of(error: &Error) -> Option<Self> {
        if error.status() != Some(400) {
            return None;
        }
        let msg = error.message()?.to_ascii_lowercase();
        if (msg.contains("wallet busy") && msg.contains("active action"))
            || msg.contains("wallet has in-flight action")
        {
            return Some(Self::WalletBusy);
        }
        let rest = &msg[msg.find("batch nonce")? + "batch nonce".len()..];
        let (submitted, rest) = leading_number(rest)?;
        let rest = rest
            .trim_start()
            .strip_prefix("does not match on-chain nonce")?;
        let (on_chain, _) = leading_number(rest)?;
        Some(Self::NonceMismatch {
            submitted,
            on_chain,
        })
    }
}

/// The decimal number at the start of `s` (after spaces) and what follows it.
fn leading_number(s: &str) -> Option<(U256, &str)> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse::<U256>().ok()?;
    Some((n, &s[end..]))
}

/// A Relayer API key (polymarket.com → Settings → API Keys → Relayer API Keys): the key and
/// the address that owns it, sent as `RELAYER_API_KEY` and `RELAYER_API_KEY_ADDRESS`. The key
/// is zeroized on drop and never printed.
///
/// ```
/// use polyclob::relayer::RelayerApiKey;
///
/// let key = RelayerApiKey::new("01967c03-b8c8-7000-8f68-8b8eaec6fd3d", "0x6e0c80c90ea6c15917308F820Eac91Ce2724B5b5".parse()?);
/// assert!(!format!("{key:?}").contains("01967c03"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RelayerApiKey {
    key: zeroize::Zeroizing<String>,
    address: Address,
}

impl RelayerApiKey {
    /// The key `key` owned by `address`.
    #[must_use]
    pub fn new(key: impl Into<String>, address: Address) -> Self {
        Self {
            key: zeroize::Zeroizing::new(key.into()),
            address,
        }
    }

    /// The key (a secret: keep it out of logs).
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The address that owns the key.
    #[must_use]
    pub const fn address(&self) -> Address {
        self.address
    }
}

impl fmt::Debug for RelayerApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelayerApiKey")
            .field("key", &"<redacted>")
            .field("address", &self.address)
            .finish()
    }
}

/// How a relayer request authenticates: a builder key's HMAC headers or a Relayer API key.
/// Built from `&Credentials` (the builder key) or `&RelayerApiKey`, so relayer methods take
/// either.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum RelayerAuth<'a> {
    /// `POLY_BUILDER_API_KEY`, `_SIGNATURE`, `_TIMESTAMP`, `_PASSPHRASE`.
    Builder(&'a Credentials),
    /// `RELAYER_API_KEY`, `RELAYER_API_KEY_ADDRESS`.
    ApiKey(&'a RelayerApiKey),
}

impl<'a> From<&'a Credentials> for RelayerAuth<'a> {
    fn from(c: &'a Credentials) -> Self {
        Self::Builder(c)
    }
}

impl<'a> From<&'a RelayerApiKey> for RelayerAuth<'a> {
    fn from(k: &'a RelayerApiKey) -> Self {
        Self::ApiKey(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        for s in [
            "STATE_NEW",
            "STATE_EXECUTED",
            "STATE_MINED",
            "STATE_CONFIRMED",
            "STATE_INVALID",
            "STATE_FAILED",
            "STATE_LATER",
        ] {
            assert_eq!(RelayerState::parse(s).as_str(), s);
        }
        assert!(RelayerState::Confirmed.is_terminal() && !RelayerState::Confirmed.is_failed());
        assert!(RelayerState::Failed.is_failed() && !RelayerState::Mined.is_terminal());
    }

    #[test]
    fn transactions_decode_in_both_spellings() {
        let t =
            decode_relayer_transaction(br#"{"transactionID":"a","state":"STATE_NEW"}"#, "/submit")
                .unwrap();
        assert_eq!(
            (t.transaction_id.as_str(), t.state),
            ("a", RelayerState::New)
        );
        assert_eq!(t.transaction_hash, None);
        let h = format!("0x{}", "ab".repeat(32));
        let body = format!(
            r#"{{"transaction_id":"b","state":"STATE_FAILED","transaction_hash":"{h}","error_msg":"reverted"}}"#
        );
        let t = decode_relayer_transaction(body.as_bytes(), "/submit").unwrap();
        assert_eq!(t.transaction_hash, Some(h.parse().unwrap()));
        assert_eq!(t.error.as_deref(), Some("reverted"));
        for bad in [
            &br#"{"state":"STATE_NEW"}"#[..],
            br#"{"transactionID":"a"}"#,
            br#"{"transactionID":"a","state":"STATE_NEW","transactionHash":"0x12"}"#,
            b"[]",
            b"{",
        ] {
            assert!(
                decode_relayer_transaction(bad, "/submit")
                    .unwrap_err()
                    .is_decode()
            );
        }
    }

    #[test]
    fn refusals_are_read_from_the_message() {
        let e = |status, msg: &str| {
            Error::from_status(status, format!(r#"{{"error":"{msg}"}}"#).as_bytes(), None)
        };
        assert_eq!(
            RelayerRefusal::of(&e(400, "Batch nonce 3 does not match on-chain nonce 5")),
            Some(RelayerRefusal::NonceMismatch {
                submitted: U256::from(3u8),
                on_chain: U256::from(5u8)
            })
        );
        assert_eq!(
            RelayerRefusal::of(&e(400, "wallet busy: active action pending")),
            Some(RelayerRefusal::WalletBusy)
        );
        assert_eq!(
            RelayerRefusal::of(&e(400, "Wallet has in-flight action")),
            Some(RelayerRefusal::WalletBusy)
        );
        for (status, msg) in [
            (500, "batch nonce 3 does not match on-chain nonce 5"),
            (400, "batch nonce x does not match on-chain nonce 5"),
            (400, "batch nonce 3 does not match"),
            (400, "invalid signature"),
        ] {
            assert_eq!(RelayerRefusal::of(&e(status, msg)), None, "{msg}");
        }
    }
}
