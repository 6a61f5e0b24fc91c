//! Polymarket's relayer and deposit-wallet `WALLET` batches (docs.polymarket.com,
//! "Deposit wallet migration" and the Relayer API reference).
//!
//! A deposit wallet (POLY_1271) is a smart account: it holds pUSD and positions, and it moves
//! them only in a batch of calls its owner signs. The owner signs the EIP-712 `Batch` of the
//! wallet (domain `DepositWallet`, version `1`, the wallet as verifying contract;
//! `Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)` with
//! `Call(address target,uint256 value,bytes data)`), and the relayer submits it through the
//! deposit-wallet factory, paying the gas: `POST /submit` with `type` `WALLET`.
//!
//! The calls are the [`Settler`](crate::onchain::Settler)'s values (approvals, split, merge,
//! redeem, neg-risk conversion; feature `onchain`), so the same code serves an EOA, a Safe or
//! a deposit wallet. [`WalletBatch`] signs and writes the exact body Polymarket's unified Python
//! SDK sends (known answers: `scripts/make_wallet_batch_vectors.py`);
//! [`Client::submit_wallet_batch`] posts it and [`Client::execute_wallet_batch`] does all of
//! it with the client's key. [`Client::deploy_deposit_wallet`] deploys the owner's deposit
//! wallet (`WALLET-CREATE`) and [`Client::relayer_deployed`] asks whether a wallet exists.
//!
//! The relayer's rules, as the client follows them:
//!
//! * **Auth.** Every relayer request carries either a builder key's `POLY_BUILDER_*` headers
//!   (HMAC over timestamp, method, path and body) or a Relayer API key's static
//!   `RELAYER_API_KEY` and `RELAYER_API_KEY_ADDRESS` headers (the docs' Relayer API
//!   reference); methods take either as [`RelayerAuth`] (a `&Credentials` or a
//!   `&`[`RelayerApiKey`] converts). Secrets go out as sensitive headers and are never
//!   printed.
//! * **Nonce.** Each owner has one `WALLET` nonce at the relayer
//!   (`GET /v1/account/transactions/params?address=<owner>&type=WALLET`,
//!   [`Client::relayer_wallet_nonce`]); a batch carries it and spends it when it executes.
//!   A batch with another nonce is refused with "batch nonce N does not match on-chain nonce
//!   M" ([`RelayerRefusal::NonceMismatch`]).
//! * **Idempotency.** A signed batch executes at most once: its nonce makes it so. Its
//!   post also carries an `Idempotency-Key` derived from the signed body
//!   ([`SignedWalletBatch::idempotency_key`]), the header the relayer's session-signer
//!   routes take (the official SDK retries those with the same key): a relayer that honours
//!   it (the simulator's does) answers a repeat with the first answer, the same transaction.
//!   One that does not refuses the repeat by nonce: a `NonceMismatch` whose submitted nonce
//!   is below the relayer's means that nonce is spent (by this batch or another): look the
//!   transaction up, never re-sign blindly. To retry after a lost answer, post the *same*
//!   [`SignedWalletBatch`] again. [`Client::execute_wallet_batch`]
//!   re-signs only when its own freshly read nonce was taken before its one post, as the SDK does.
//! * **Deadline.** A batch is void after its deadline (the SDK signs now + 600 s).
//! * **Busy.** "wallet busy … active action" / "wallet has in-flight action" is transient
//!   ([`RelayerRefusal::WalletBusy`]): post the same batch again later.

use std::fmt;

use alloy_primitives::{Address, B256, U256};
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use serde::Deserialize;
use serde_json::Value;

use super::auth::Credentials;
use super::transport::Client;
use crate::http::Error;
use crate::sign::hmac::HmacKey;
use crate::sign::keccak::keccak256;
use crate::types::Chain;

/// Polymarket's relayer, which submits deposit-wallet batches.
pub const DEFAULT_RELAYER_HOST: &str = "https://relayer-v2.polymarket.com";
/// Relayer `GET`: the owner's next deposit-wallet nonce (`?address=<owner>&type=WALLET`).
pub const EXECUTE_PARAMS_PATH: &str = "/v1/account/transactions/params";
/// Relayer `POST`: submit a relayer transaction (here, a `WALLET` batch).
pub const SUBMIT_PATH: &str = "/submit";
/// Relayer `GET {TRANSACTION_PATH}{id}`: one relayer transaction's state.
pub const TRANSACTION_PATH: &str = "/v1/account/transactions/";
pub use crate::sign::wallet::DEPOSIT_WALLET_FACTORY;
/// The longest `metadata` the relayer takes, in characters.
pub const MAX_METADATA_LEN: usize = 500;
/// How long a batch the client signs stays valid, seconds (as the official client).
pub(crate) const BATCH_LIFETIME: u64 = 600;

fn word_address(a: &Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

/// The EIP-712 digest of a deposit wallet's `Batch` of `calls` (target, value, calldata).
pub(crate) fn batch_digest<'a>(
    chain: Chain,
    wallet: Address,
    nonce: U256,
    deadline: u64,
    calls: impl Iterator<Item = (Address, U256, &'a [u8])>,
) -> B256 {
    let domain_type = keccak256(
        b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
    );
    let mut d = Vec::with_capacity(160);
    d.extend_from_slice(domain_type.as_slice());
    d.extend_from_slice(keccak256(b"DepositWallet").as_slice());
    d.extend_from_slice(keccak256(b"1").as_slice());
    d.extend_from_slice(&U256::from(chain.id()).to_be_bytes::<32>());
    d.extend_from_slice(&word_address(&wallet));
    let domain = keccak256(&d);

    const CALL: &[u8] = b"Call(address target,uint256 value,bytes data)";
    let call_type = keccak256(CALL);
    // An array hashes as keccak of its elements' struct hashes, concatenated.
    let mut elements = Vec::new();
    for (target, value, data) in calls {
        let mut c = Vec::with_capacity(128);
        c.extend_from_slice(call_type.as_slice());
        c.extend_from_slice(&word_address(&target));
        c.extend_from_slice(&value.to_be_bytes::<32>());
        c.extend_from_slice(keccak256(data).as_slice());
        elements.extend_from_slice(keccak256(&c).as_slice());
    }
    let calls = keccak256(&elements);

    let mut batch_type =
        b"Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)".to_vec();
    batch_type.extend_from_slice(CALL);
    let mut s = Vec::with_capacity(160);
    s.extend_from_slice(keccak256(&batch_type).as_slice());
    s.extend_from_slice(&word_address(&wallet));
    s.extend_from_slice(&nonce.to_be_bytes::<32>());
    s.extend_from_slice(&U256::from(deadline).to_be_bytes::<32>());
    s.extend_from_slice(calls.as_slice());
    let st = keccak256(&s);

    let mut m = Vec::with_capacity(66);
    m.extend_from_slice(b"\x19\x01");
    m.extend_from_slice(domain.as_slice());
    m.extend_from_slice(st.as_slice());
    keccak256(&m)
}

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
/// `transactionHash`, the lookup `transaction_id` / `transaction_hash`.
///
/// # Errors
///
/// ([`Error::is_decode`]) no id or no state, or a hash that is not 32 bytes of hex.
pub fn decode_relayer_transaction(body: &[u8]) -> Result<RelayerTransaction, Error> {
    let v: Value = crate::http::decode(body, SUBMIT_PATH)?;
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

#[derive(Deserialize)]
struct ExecuteParams {
    nonce: String,
}

fn header_value(v: &str) -> Result<HeaderValue, Error> {
    HeaderValue::from_str(v).map_err(|_| Error::argument("a header value is not visible ASCII"))
}

fn sensitive(v: &str) -> Result<HeaderValue, Error> {
    let mut h = header_value(v)?;
    h.set_sensitive(true);
    Ok(h)
}

/// A Relayer API key (polymarket.com → Settings → API Keys → Relayer API Keys): the key and
/// the address that owns it, sent as `RELAYER_API_KEY` and `RELAYER_API_KEY_ADDRESS`. The key
/// is zeroized on drop and never printed.
///
/// ```
/// use polyclob::clob::relayer::RelayerApiKey;
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

/// Relayer `GET`: whether a wallet is deployed (`?address=<wallet>&type=WALLET|SAFE`).
pub const DEPLOYED_PATH: &str = "/deployed";

impl Client {
    /// One request to the relayer at `host` with `auth`'s headers (a builder key's HMAC over
    /// timestamp, method, path and body, or a Relayer API key's; none for public routes); a
    /// body is JSON, with an `Idempotency-Key` when one is given.
    pub(crate) async fn relayer(
        &self,
        host: &str,
        auth: Option<RelayerAuth<'_>>,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<(&[u8], Option<&str>)>,
    ) -> Result<bytes::Bytes, Error> {
        let mut url = format!("{}{path}", host.trim_end_matches('/'));
        for (i, (k, v)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            crate::http::encode_into(&mut url, k);
            url.push('=');
            crate::http::encode_into(&mut url, v);
        }
        let mut rb = match auth {
            None => self.inner.http.request_url(method, &url),
            Some(RelayerAuth::Builder(builder)) => {
                let key = HmacKey::from_base64url(builder.secret()).map_err(Error::sign)?;
                let ts = self.timestamp();
                let sig = key.sign(ts, method.as_str(), path, body.map_or(&[][..], |b| b.0));
                self.inner
                    .http
                    .request_url(method, &url)
                    .header("POLY_BUILDER_API_KEY", header_value(builder.api_key())?)
                    .header("POLY_BUILDER_SIGNATURE", sensitive(sig.as_str())?)
                    .header("POLY_BUILDER_TIMESTAMP", ts.to_string())
                    .header("POLY_BUILDER_PASSPHRASE", sensitive(builder.passphrase())?)
            }
            Some(RelayerAuth::ApiKey(k)) => self
                .inner
                .http
                .request_url(method, &url)
                .header("RELAYER_API_KEY", sensitive(k.key())?)
                .header(
                    "RELAYER_API_KEY_ADDRESS",
                    header_value(&k.address().to_checksum(None))?,
                ),
        };
        if let Some((bytes, idempotency_key)) = body {
            rb = rb
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(bytes.to_vec());
            if let Some(k) = idempotency_key {
                rb = rb.header("Idempotency-Key", header_value(k)?);
            }
        }
        self.inner.http.execute(rb, path, |_, _| {}).await
    }

    /// The owner's next deposit-wallet nonce from the relayer at `host`
    /// (`GET /v1/account/transactions/params?address=<owner>&type=WALLET`).
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer without a decimal `nonce`.
    pub async fn relayer_wallet_nonce<'a>(
        &self,
        host: &str,
        auth: impl Into<RelayerAuth<'a>>,
        owner: Address,
    ) -> Result<U256, Error> {
        let q = [
            ("address", owner.to_checksum(None)),
            ("type", "WALLET".to_owned()),
        ];
        let body = self
            .relayer(
                host,
                Some(auth.into()),
                reqwest::Method::GET,
                EXECUTE_PARAMS_PATH,
                &q,
                None,
            )
            .await?;
        let p: ExecuteParams = crate::http::decode(&body, EXECUTE_PARAMS_PATH)?;
        p.nonce
            .parse::<U256>()
            .map_err(|_| Error::decode("the relayer's nonce is not a decimal integer"))
    }

    /// One relayer transaction by id (`GET /v1/account/transactions/{id}` on the relayer at
    /// `host`).
    ///
    /// # Errors
    ///
    /// An empty id ([`Error::is_argument`]); transport, status, decode.
    pub async fn relayer_transaction<'a>(
        &self,
        host: &str,
        auth: impl Into<RelayerAuth<'a>>,
        transaction_id: &str,
    ) -> Result<RelayerTransaction, Error> {
        let id = transaction_id.trim();
        if id.is_empty() || id.contains(['/', '?', '#']) {
            return Err(Error::argument(
                "a relayer transaction id is a non-empty path segment",
            ));
        }
        let path = format!("{TRANSACTION_PATH}{id}");
        let body = self
            .relayer(
                host,
                Some(auth.into()),
                reqwest::Method::GET,
                &path,
                &[],
                None,
            )
            .await?;
        decode_relayer_transaction(&body)
    }

    /// Whether the deposit wallet `wallet` is deployed, by the relayer at `host`
    /// (`GET /deployed?address=<wallet>&type=WALLET`, a public route).
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer without a boolean `deployed`.
    pub async fn relayer_deployed(&self, host: &str, wallet: Address) -> Result<bool, Error> {
        #[derive(Deserialize)]
        struct Deployed {
            deployed: bool,
        }
        let q = [
            ("address", wallet.to_checksum(None)),
            ("type", "WALLET".to_owned()),
        ];
        let body = self
            .relayer(host, None, reqwest::Method::GET, DEPLOYED_PATH, &q, None)
            .await?;
        let d: Deployed = crate::http::decode(&body, DEPLOYED_PATH)?;
        Ok(d.deployed)
    }

    /// Deploys the deposit wallet of this client's key through the relayer at `host`
    /// (`POST /submit` with type `WALLET-CREATE`, from the key to the deposit-wallet factory,
    /// as the official SDK sends it; the relayer pays the gas). The factory deploys the key's
    /// current (beacon) deposit wallet, the second of
    /// [`derive_deposit_wallets`](crate::sign::wallet::derive_deposit_wallets). Poll
    /// [`relayer_transaction`](Self::relayer_transaction) until it is terminal.
    ///
    /// # Errors
    ///
    /// No private key ([`Error::is_auth`]); metadata over [`MAX_METADATA_LEN`] characters
    /// ([`Error::is_argument`]); transport, status, decode.
    pub async fn deploy_deposit_wallet<'a>(
        &self,
        host: &str,
        auth: impl Into<RelayerAuth<'a>>,
        metadata: &str,
    ) -> Result<RelayerTransaction, Error> {
        let owner = self.inner.auth.signer().ok_or_else(|| {
            Error::auth("a deposit wallet is deployed for the client's key: none was given")
        })?;
        let body = wallet_create_body(owner.address(), metadata)?;
        self.relayer_submit(host, auth.into(), &body, None).await
    }

    /// `POST /submit` of a relayer body (with its `Idempotency-Key`, if any), decoded.
    async fn relayer_submit(
        &self,
        host: &str,
        auth: RelayerAuth<'_>,
        body: &[u8],
        idempotency_key: Option<&str>,
    ) -> Result<RelayerTransaction, Error> {
        let answer = self
            .relayer(
                host,
                Some(auth),
                reqwest::Method::POST,
                SUBMIT_PATH,
                &[],
                Some((body, idempotency_key)),
            )
            .await?;
        decode_relayer_transaction(&answer)
    }
}

/// The `WALLET-CREATE` body for `owner`: compact JSON, keys in the official client's order
/// (`type`, `from`, `to`, `metadata`).
///
/// # Errors
///
/// ([`Error::is_argument`]) metadata over [`MAX_METADATA_LEN`] characters.
pub fn wallet_create_body(owner: Address, metadata: &str) -> Result<Vec<u8>, Error> {
    if metadata.chars().count() > MAX_METADATA_LEN {
        return Err(Error::argument(format!(
            "relayer metadata is longer than {MAX_METADATA_LEN} characters"
        )));
    }
    let mut o = String::with_capacity(160 + metadata.len());
    o.push_str(r#"{"type":"WALLET-CREATE","from":""#);
    o.push_str(&owner.to_checksum(None));
    o.push_str(r#"","to":""#);
    o.push_str(&DEPOSIT_WALLET_FACTORY.to_checksum(None));
    o.push_str(r#"","metadata":"#);
    crate::json::escape::push_string(&mut o, metadata);
    o.push('}');
    Ok(o.into_bytes())
}

#[cfg(feature = "onchain")]
pub use self::batch::{SignedWalletBatch, WalletBatch};

#[cfg(feature = "onchain")]
mod batch {
    use alloy_primitives::{Address, B256, U256};

    use super::{
        BATCH_LIFETIME, DEPOSIT_WALLET_FACTORY, MAX_METADATA_LEN, RelayerAuth, RelayerRefusal,
        RelayerTransaction, batch_digest,
    };
    use crate::clob::transport::Client;
    use crate::http::Error;
    use crate::onchain::Call;
    use crate::sign::{Signature, Signer};
    use crate::types::Chain;

    /// An owner-signed batch of calls of one deposit wallet, as the relayer executes it.
    ///
    /// ```
    /// use polyclob::U256;
    /// use polyclob::clob::relayer::WalletBatch;
    /// use polyclob::onchain::erc20;
    /// use polyclob::sign::Signer;
    /// use polyclob::types::{Chain, ExchangeVersion, contracts};
    ///
    /// let owner = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
    /// let wallet = "0xdf8b9E8f9AB23f261F6e1B171B7454ae6E46Ba76".parse()?; // the owner's deposit wallet
    /// let c = contracts(Chain::Polygon, ExchangeVersion::V2);
    /// let approve = erc20::approve(c.collateral, c.exchange, U256::MAX)?;
    /// let batch = WalletBatch::new(wallet, vec![approve], U256::ZERO, 1_800_000_000);
    /// let signed = batch.sign(&owner, Chain::Polygon)?;
    /// assert!(String::from_utf8(signed.body)?.starts_with(r#"{"type":"WALLET","#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Clone, Debug, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct WalletBatch {
        /// The deposit wallet that makes the calls.
        pub wallet: Address,
        /// The calls, in order; all or none execute.
        pub calls: Vec<Call>,
        /// The owner's `WALLET` nonce at the relayer.
        pub nonce: U256,
        /// Unix seconds after which the batch is void.
        pub deadline: u64,
        /// A note the relayer keeps with the transaction (≤ [`MAX_METADATA_LEN`] characters).
        /// Default is empty.
        pub metadata: String,
    }

    /// A signed [`WalletBatch`]: the exact `POST /submit` body and what it was signed with.
    #[derive(Clone, Debug, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct SignedWalletBatch {
        /// The owner that signed (the body's `from`).
        pub owner: Address,
        /// The batch's nonce.
        pub nonce: U256,
        /// The JSON body, compact, keys in the official client's order.
        pub body: Vec<u8>,
        /// The owner's signature over [`WalletBatch::digest`].
        pub signature: Signature,
    }

    impl SignedWalletBatch {
        /// The `Idempotency-Key` its post carries: `wallet-batch-` and the hex keccak-256 of
        /// the body, so the same signed batch always sends the same key and another batch
        /// never does.
        #[must_use]
        pub fn idempotency_key(&self) -> String {
            format!(
                "wallet-batch-{}",
                alloy_primitives::hex::encode(crate::sign::keccak::keccak256(&self.body))
            )
        }
    }

    impl WalletBatch {
        /// A batch of `calls` by `wallet` with the relayer's `nonce` and a `deadline` in Unix
        /// seconds, without metadata.
        #[must_use]
        pub fn new(wallet: Address, calls: Vec<Call>, nonce: U256, deadline: u64) -> Self {
            Self {
                wallet,
                calls,
                nonce,
                deadline,
                metadata: String::new(),
            }
        }

        /// The same batch with `metadata`. Default is empty.
        #[must_use]
        pub fn metadata(mut self, metadata: impl Into<String>) -> Self {
            self.metadata = metadata.into();
            self
        }

        /// The EIP-712 digest the owner signs on `chain`.
        #[must_use]
        pub fn digest(&self, chain: Chain) -> B256 {
            batch_digest(
                chain,
                self.wallet,
                self.nonce,
                self.deadline,
                self.calls.iter().map(|c| (c.to(), c.value(), c.data())),
            )
        }

        fn check(&self) -> Result<(), Error> {
            if self.wallet == Address::ZERO {
                return Err(Error::argument(
                    "the deposit wallet must not be the zero address",
                ));
            }
            if self.calls.is_empty() {
                return Err(Error::argument("a wallet batch needs at least one call"));
            }
            if let Some(i) = self.calls.iter().position(|c| c.to() == Address::ZERO) {
                return Err(Error::argument(format!(
                    "wallet batch call {i} targets the zero address"
                )));
            }
            if self.metadata.chars().count() > MAX_METADATA_LEN {
                return Err(Error::argument(format!(
                    "wallet batch metadata is longer than {MAX_METADATA_LEN} characters"
                )));
            }
            if self.deadline == 0 {
                return Err(Error::argument("the wallet batch deadline must be set"));
            }
            Ok(())
        }

        /// The relayer body for `signature` by `owner`: compact JSON with the keys in the
        /// official client's order (`type`, `from`, `to`, `nonce`, `signature`, `metadata`,
        /// `depositWalletParams` {`depositWallet`, `deadline`, `calls` [{`target`, `value`,
        /// `data`}]}), addresses EIP-55, numbers as decimal strings, calldata lower-case hex.
        #[must_use]
        pub fn body(&self, owner: Address, signature: &Signature) -> Vec<u8> {
            let mut o = String::with_capacity(512 + self.calls.len() * 400);
            o.push_str(r#"{"type":"WALLET","from":""#);
            o.push_str(&owner.to_checksum(None));
            o.push_str(r#"","to":""#);
            o.push_str(&DEPOSIT_WALLET_FACTORY.to_checksum(None));
            o.push_str(r#"","nonce":""#);
            o.push_str(&self.nonce.to_string());
            o.push_str(r#"","signature":""#);
            o.push_str(&signature.to_hex_string());
            o.push_str(r#"","metadata":"#);
            crate::json::escape::push_string(&mut o, &self.metadata);
            o.push_str(r#","depositWalletParams":{"depositWallet":""#);
            o.push_str(&self.wallet.to_checksum(None));
            o.push_str(r#"","deadline":""#);
            o.push_str(&self.deadline.to_string());
            o.push_str(r#"","calls":["#);
            for (i, c) in self.calls.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                o.push_str(r#"{"target":""#);
                o.push_str(&c.to().to_checksum(None));
                o.push_str(r#"","value":""#);
                o.push_str(&c.value().to_string());
                o.push_str(r#"","data":""#);
                o.push_str(&alloy_primitives::hex::encode_prefixed(c.data()));
                o.push_str(r#""}"#);
            }
            o.push_str("]}}");
            o.into_bytes()
        }

        /// Signs the batch with the wallet owner's key on `chain`.
        ///
        /// # Errors
        ///
        /// ([`Error::is_argument`]) a zero wallet, no calls, a call to the zero address,
        /// metadata over [`MAX_METADATA_LEN`] characters, a zero deadline; a signing failure.
        pub fn sign(&self, owner: &Signer, chain: Chain) -> Result<SignedWalletBatch, Error> {
            self.check()?;
            let signature = owner
                .sign_prehash(&self.digest(chain).0)
                .map_err(|_| Error::argument("the wallet batch could not be signed"))?;
            Ok(SignedWalletBatch {
                owner: owner.address(),
                nonce: self.nonce,
                body: self.body(owner.address(), &signature),
                signature,
            })
        }
    }

    impl Client {
        /// Posts a signed `WALLET` batch to the relayer at `host`
        /// ([`DEFAULT_RELAYER_HOST`](crate::clob::session_signers::DEFAULT_RELAYER_HOST) in
        /// production) with `auth`'s headers and the batch's
        /// [`idempotency_key`](SignedWalletBatch::idempotency_key). Not retried here: posting
        /// the same signed batch again is safe (its nonce executes once).
        ///
        /// # Errors
        ///
        /// Transport, status (a refusal: see [`RelayerRefusal::of`]), decode.
        pub async fn submit_wallet_batch<'a>(
            &self,
            host: &str,
            auth: impl Into<RelayerAuth<'a>>,
            signed: &SignedWalletBatch,
        ) -> Result<RelayerTransaction, Error> {
            let key = signed.idempotency_key();
            self.relayer_submit(host, auth.into(), &signed.body, Some(&key))
                .await
        }

        /// Runs `calls` from deposit `wallet` through the relayer at `host`: reads the owner's
        /// nonce, signs the batch with this client's key (the wallet's owner) valid for 600 s,
        /// and posts it. When the nonce it just read was taken before its post (a
        /// [`RelayerRefusal::NonceMismatch`] above it), it signs once more with the relayer's
        /// nonce, as the official client does.
        ///
        /// # Errors
        ///
        /// No private key ([`Error::is_auth`]); a refused batch ([`Error::is_argument`]);
        /// transport, status, decode.
        pub async fn execute_wallet_batch<'a>(
            &self,
            host: &str,
            auth: impl Into<RelayerAuth<'a>>,
            wallet: Address,
            calls: Vec<Call>,
            metadata: &str,
        ) -> Result<RelayerTransaction, Error> {
            let owner = self
                .inner
                .auth
                .signer()
                .ok_or_else(|| {
                    Error::auth("a wallet batch is signed with the owner's key: none was given")
                })?
                .clone();
            let auth = auth.into();
            let nonce = self
                .relayer_wallet_nonce(host, auth, owner.address())
                .await?;
            let mut batch =
                WalletBatch::new(wallet, calls, nonce, self.timestamp() + BATCH_LIFETIME)
                    .metadata(metadata);
            let signed = batch.sign(&owner, self.chain())?;
            match self.submit_wallet_batch(host, auth, &signed).await {
                Err(e) => match RelayerRefusal::of(&e) {
                    Some(RelayerRefusal::NonceMismatch {
                        submitted,
                        on_chain,
                    }) if submitted < on_chain => {
                        batch.nonce = on_chain;
                        let again = batch.sign(&owner, self.chain())?;
                        self.submit_wallet_batch(host, auth, &again).await
                    }
                    _ => Err(e),
                },
                ok => ok,
            }
        }
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
            decode_relayer_transaction(br#"{"transactionID":"a","state":"STATE_NEW"}"#).unwrap();
        assert_eq!(
            (t.transaction_id.as_str(), t.state),
            ("a", RelayerState::New)
        );
        assert_eq!(t.transaction_hash, None);
        let h = format!("0x{}", "ab".repeat(32));
        let body = format!(
            r#"{{"transaction_id":"b","state":"STATE_FAILED","transaction_hash":"{h}","error_msg":"reverted"}}"#
        );
        let t = decode_relayer_transaction(body.as_bytes()).unwrap();
        assert_eq!(t.transaction_hash, Some(h.parse().unwrap()));
        assert_eq!(t.error.as_deref(), Some("reverted"));
        for bad in [
            &br#"{"state":"STATE_NEW"}"#[..],
            br#"{"transactionID":"a"}"#,
            br#"{"transactionID":"a","state":"STATE_NEW","transactionHash":"0x12"}"#,
            b"[]",
            b"{",
        ] {
            assert!(decode_relayer_transaction(bad).unwrap_err().is_decode());
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
