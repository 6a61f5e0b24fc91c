//! Session signers (docs.polymarket.com/trading/session-keys): EOAs a deposit wallet's owner
//! authorizes to trade for the wallet, scoped to venues and with an expiry.
//!
//! * Listing is a CLOB call: `GET /v1/user/session-signers` (L2, the owner's API key) →
//!   [`Client::session_signers`].
//! * Authorizing and revoking are deposit-wallet transactions relayed by Polymarket's relayer
//!   (`POST /v1/session-signers/authorizations` and `/revocations` on
//!   `https://relayer-v2.polymarket.com`). The owner signs an EIP-712 `Batch` of the
//!   wallet (domain `DepositWallet`, version `1`, the wallet as verifying contract) holding
//!   one self-call, `authorizeSessionSigner(address,uint256)` or
//!   `revokeSessionSigner(address)`. [`SessionSignerBatch`] builds and signs that batch and
//!   the exact relayer body, checked against the official Python client
//!   (`scripts/make_session_signer_vectors.py`). The relayer's nonce comes from
//!   `GET /v1/account/transactions/params?address=<owner>&type=WALLET`; the request carries
//!   the builder key's `POLY_BUILDER_*` HMAC headers and an `Idempotency-Key`.
//!   [`Client::authorize_session_signer`] and [`Client::revoke_session_signer`] do all of it
//!   against a relayer host; [`Client::relay_session_signer_batch`] posts a batch signed
//!   elsewhere. They return once the relayer accepts the batch; the signer shows in (or
//!   leaves) [`Client::session_signers`] when the transaction confirms.

use std::fmt;

use alloy_primitives::{Address, B256, U256};
use serde::Deserialize;

use super::auth::{Credentials, Level};
use super::pagination::SkippedRow;
use super::transport::{Client, Req};
use crate::http::Error;
use crate::sign::keccak::keccak256;
use crate::sign::{Signature, Signer};
use crate::types::Chain;

/// `GET`: the owner's session signers on the CLOB host (L2).
pub const SESSION_SIGNERS_PATH: &str = "/v1/user/session-signers";
/// Relayer `POST`: authorize a session signer.
pub const AUTHORIZATIONS_PATH: &str = "/v1/session-signers/authorizations";
/// Relayer `POST`: revoke a session signer.
pub const REVOCATIONS_PATH: &str = "/v1/session-signers/revocations";
pub use super::relayer::{DEFAULT_RELAYER_HOST, EXECUTE_PARAMS_PATH};

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
    /// Rows that did not (an odd row never fails the list).
    pub skipped: Vec<SkippedRow>,
}

#[derive(Deserialize)]
struct RawList {
    #[serde(default)]
    wallet: serde_json::Value,
    #[serde(default)]
    signers: serde_json::Value,
}

fn row(v: &serde_json::Value) -> Result<SessionSigner, String> {
    let address = v
        .get("address")
        .and_then(serde_json::Value::as_str)
        .and_then(|s| s.parse::<Address>().ok())
        .ok_or("`address` is not an address")?;
    let scopes: Vec<SessionScope> = v
        .get("scopes")
        .and_then(serde_json::Value::as_array)
        .ok_or("`scopes` is not an array")?
        .iter()
        .filter_map(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
        .map(SessionScope::parse)
        .collect();
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
pub fn decode_session_signers(body: &[u8]) -> Result<SessionSigners, Error> {
    let raw: RawList = crate::http::decode(body, SESSION_SIGNERS_PATH)?;
    let rows = raw
        .signers
        .as_array()
        .ok_or_else(|| Error::decode("session signers: `signers` is not an array"))?;
    let mut out = SessionSigners {
        wallet: raw.wallet.as_str().and_then(|s| s.parse().ok()),
        ..SessionSigners::default()
    };
    for (index, v) in rows.iter().enumerate() {
        match row(v) {
            Ok(s) => out.signers.push(s),
            Err(error) => out.skipped.push(SkippedRow { index, error }),
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
        let body = self
            .send(&Req::get(SESSION_SIGNERS_PATH).auth(Level::L2))
            .await?;
        decode_session_signers(&body)
    }
}

/// The relayer's answer to an authorization or revocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionSignerReceipt {
    /// `SUBMITTED`, `REGISTRY_PENDING`, `REGISTERED` (authorizations); `PENDING`, `FENCED`,
    /// `SWEPT`, `CHAIN_SUBMITTED`, `CONFIRMED` (revocations); `FAILED`, `SUPERSEDED`,
    /// `REPAIR_REQUIRED` are terminal failures.
    #[serde(default)]
    pub status: String,
    /// The relayer transaction (`GET /v1/account/transactions/{id}` on the relayer).
    #[serde(default)]
    pub transaction_id: String,
    /// The chain transaction, once known.
    #[serde(default)]
    pub transaction_hash: Option<String>,
    /// Revocations: whether the signer is already fenced off from trading.
    #[serde(default)]
    pub fenced: Option<bool>,
}

impl SessionSignerReceipt {
    /// Whether the relayer reported a terminal failure.
    #[must_use]
    pub fn failed(&self) -> bool {
        matches!(
            self.status.as_str(),
            "FAILED" | "SUPERSEDED" | "REPAIR_REQUIRED"
        )
    }
}

impl Client {
    /// Posts a signed batch to the relayer at `host` with `idempotency_key` (reuse it to retry
    /// the same batch safely). Not retried here.
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer that is not a receipt.
    pub async fn relay_session_signer_batch(
        &self,
        host: &str,
        builder: &Credentials,
        signed: &SignedSessionSignerBatch,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        if idempotency_key.trim().is_empty() {
            return Err(Error::argument("the idempotency key must not be empty"));
        }
        let body = self
            .relayer(
                host,
                Some(builder.into()),
                reqwest::Method::POST,
                signed.path,
                &[],
                Some((&signed.body, Some(idempotency_key.trim()))),
            )
            .await?;
        crate::http::decode(&body, signed.path)
    }

    async fn session_signer_action(
        &self,
        host: &str,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        action: SessionSignerAction,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let owner = self
            .inner
            .auth
            .signer()
            .ok_or_else(|| {
                Error::auth("session signers are managed with the owner's key: none was given")
            })?
            .clone();
        let nonce = self
            .relayer_wallet_nonce(host, builder, owner.address())
            .await?;
        let batch = SessionSignerBatch::new(
            wallet,
            session_signer,
            action,
            nonce,
            self.timestamp() + super::relayer::BATCH_LIFETIME,
        );
        let signed = batch.sign(&owner, self.chain())?;
        self.relay_session_signer_batch(host, builder, &signed, idempotency_key)
            .await
    }

    /// Authorizes `session_signer` to trade for deposit `wallet` on `scopes` until
    /// `valid_until` (Unix seconds): fetches the owner's nonce from the relayer at `host`
    /// ([`DEFAULT_RELAYER_HOST`] in production), signs the batch with this client's key (the
    /// wallet's owner) and posts it with the builder key's headers. Authorizing requires a
    /// builder API key (docs.polymarket.com/trading/session-keys).
    ///
    /// # Errors
    ///
    /// No private key ([`Error::is_auth`]); a refused batch ([`Error::is_argument`]);
    /// transport, status or decode.
    #[allow(clippy::too_many_arguments)]
    pub async fn authorize_session_signer(
        &self,
        host: &str,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        scopes: Vec<SessionScope>,
        valid_until: u64,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let action = SessionSignerAction::Authorize {
            scopes,
            valid_until,
        };
        self.session_signer_action(
            host,
            builder,
            wallet,
            session_signer,
            action,
            idempotency_key,
        )
        .await
    }

    /// Revokes `session_signer` of deposit `wallet` through the relayer at `host`, as
    /// [`authorize_session_signer`](Self::authorize_session_signer).
    ///
    /// # Errors
    ///
    /// As [`authorize_session_signer`](Self::authorize_session_signer).
    pub async fn revoke_session_signer(
        &self,
        host: &str,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let action = SessionSignerAction::Revoke;
        self.session_signer_action(
            host,
            builder,
            wallet,
            session_signer,
            action,
            idempotency_key,
        )
        .await
    }
}

/// What a [`SessionSignerBatch`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionSignerAction {
    /// Authorize the signer for `scopes` until `valid_until` (Unix seconds).
    Authorize {
        /// Venues; [`SessionScope::All`] must stand alone.
        scopes: Vec<SessionScope>,
        /// Expiry, Unix seconds.
        valid_until: u64,
    },
    /// Revoke the signer.
    Revoke,
}

/// The owner-signed deposit-wallet batch that authorizes or revokes one session signer, and
/// the relayer body that carries it.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::clob::session_signers::{SessionScope, SessionSignerAction, SessionSignerBatch};
/// use polyclob::sign::Signer;
/// use polyclob::types::Chain;
///
/// let owner = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let batch = SessionSignerBatch::new(
///     Address::repeat_byte(0x11),
///     Address::repeat_byte(0x22),
///     SessionSignerAction::Authorize { scopes: vec![SessionScope::Clob], valid_until: 1_900_000_000 },
///     U256::from(7u8),
///     1_800_000_600,
/// );
/// let signed = batch.sign(&owner, Chain::Polygon)?;
/// assert_eq!(signed.path, "/v1/session-signers/authorizations");
/// assert!(String::from_utf8(signed.body)?.contains(r#""scopes":["CLOB"]"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSignerBatch {
    /// The deposit wallet.
    pub wallet: Address,
    /// The session signer's address.
    pub session_signer: Address,
    /// Authorize or revoke.
    pub action: SessionSignerAction,
    /// The wallet nonce from the relayer's `/v1/account/transactions/params`.
    pub nonce: U256,
    /// Unix seconds after which the batch is void (the official client uses now + 600).
    pub deadline: u64,
}

/// A signed [`SessionSignerBatch`]: the relayer path and the exact body to post there.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignedSessionSignerBatch {
    /// [`AUTHORIZATIONS_PATH`] or [`REVOCATIONS_PATH`].
    pub path: &'static str,
    /// The JSON body, compact, keys in the official client's order.
    pub body: Vec<u8>,
    /// The owner's signature over [`SessionSignerBatch::digest`].
    pub signature: Signature,
}

fn word_address(a: &Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn word_u256(v: U256) -> [u8; 32] {
    v.to_be_bytes::<32>()
}

impl SessionSignerBatch {
    /// A batch for `wallet` that applies `action` to `session_signer`, with the relayer's
    /// `nonce` and a `deadline` in Unix seconds.
    #[must_use]
    pub fn new(
        wallet: Address,
        session_signer: Address,
        action: SessionSignerAction,
        nonce: U256,
        deadline: u64,
    ) -> Self {
        Self {
            wallet,
            session_signer,
            action,
            nonce,
            deadline,
        }
    }

    fn check(&self) -> Result<(), Error> {
        if self.wallet == Address::ZERO {
            return Err(Error::argument(
                "the deposit wallet must not be the zero address",
            ));
        }
        if self.session_signer == Address::ZERO {
            return Err(Error::argument(
                "session signer must not be the zero address",
            ));
        }
        if self.session_signer == self.wallet {
            return Err(Error::argument(
                "session signer must differ from the deposit wallet",
            ));
        }
        if let SessionSignerAction::Authorize {
            scopes,
            valid_until,
        } = &self.action
        {
            if scopes.is_empty() || scopes.iter().any(|s| s.as_str().is_empty()) {
                return Err(Error::argument("session signer scopes must name a scope"));
            }
            if scopes.len() > 1 && scopes.contains(&SessionScope::All) {
                return Err(Error::argument(
                    "session signer scope ALL cannot be combined with another",
                ));
            }
            if *valid_until == 0 {
                return Err(Error::argument("session signer expiry must be set"));
            }
            // The batch may run until its deadline: an expiry before then (one in the past,
            // with the client's deadline of now + the batch lifetime) would authorize a
            // signer that is, or soon is, no longer valid.
            if *valid_until <= self.deadline {
                return Err(Error::argument(format!(
                    "session signer expiry {valid_until} is not after the batch deadline {} \
                     (an expiry in the past, or before the batch can run)",
                    self.deadline
                )));
            }
        }
        Ok(())
    }

    /// The wallet self-call the batch carries.
    #[must_use]
    pub fn call_data(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(68);
        match &self.action {
            SessionSignerAction::Authorize { valid_until, .. } => {
                out.extend_from_slice(&keccak256(b"authorizeSessionSigner(address,uint256)")[..4]);
                out.extend_from_slice(&word_address(&self.session_signer));
                out.extend_from_slice(&word_u256(U256::from(*valid_until)));
            }
            SessionSignerAction::Revoke => {
                out.extend_from_slice(&keccak256(b"revokeSessionSigner(address)")[..4]);
                out.extend_from_slice(&word_address(&self.session_signer));
            }
        }
        out
    }

    /// The EIP-712 digest the owner signs on `chain`: a deposit-wallet `Batch` of the one
    /// self-call.
    #[must_use]
    pub fn digest(&self, chain: Chain) -> B256 {
        let data = self.call_data();
        super::relayer::batch_digest(
            chain,
            self.wallet,
            self.nonce,
            self.deadline,
            std::iter::once((self.wallet, U256::ZERO, data.as_slice())),
        )
    }

    /// The relayer body for `signature`.
    #[must_use]
    pub fn body(&self, signature: &Signature) -> Vec<u8> {
        let mut o = serde_json::Map::new();
        let cs = |a: &Address| a.to_checksum(None);
        o.insert("deadline".into(), self.deadline.to_string().into());
        o.insert("nonce".into(), self.nonce.to_string().into());
        if let SessionSignerAction::Authorize { scopes, .. } = &self.action {
            let names: Vec<serde_json::Value> = scopes.iter().map(|s| s.as_str().into()).collect();
            o.insert("scopes".into(), names.into());
        }
        o.insert(
            "sessionSignerAddress".into(),
            cs(&self.session_signer).into(),
        );
        o.insert("signature".into(), signature.to_hex_string().into());
        if let SessionSignerAction::Authorize { valid_until, .. } = &self.action {
            o.insert("validUntil".into(), valid_until.to_string().into());
        }
        o.insert("walletAddress".into(), cs(&self.wallet).into());
        // Strings and arrays of strings only: serialization cannot fail.
        serde_json::to_vec(&serde_json::Value::Object(o)).unwrap_or_default()
    }

    /// Signs the batch with the wallet owner's key on `chain`.
    ///
    /// # Errors
    ///
    /// ([`Error::is_argument`]) a zero wallet or signer, a signer equal to the wallet, no
    /// scopes, `ALL` with another scope, a zero expiry or one not after the batch's
    /// `deadline` (in the past); a signing failure.
    pub fn sign(&self, owner: &Signer, chain: Chain) -> Result<SignedSessionSignerBatch, Error> {
        self.check()?;
        let digest = self.digest(chain);
        let signature = owner
            .sign_prehash(&digest.0)
            .map_err(|_| Error::argument("the session signer batch could not be signed"))?;
        Ok(SignedSessionSignerBatch {
            path: match self.action {
                SessionSignerAction::Authorize { .. } => AUTHORIZATIONS_PATH,
                SessionSignerAction::Revoke => REVOCATIONS_PATH,
            },
            body: self.body(&signature),
            signature,
        })
    }
}
