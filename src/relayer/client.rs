//! The relayer [`Client`]: one request per relayer route on the crate's HTTP transport, each
//! signed with the caller's relayer auth, and the owner-signed flows built on them (deploy a
//! deposit wallet, run a `WALLET` batch, authorize or revoke a session signer).

use alloy_primitives::{Address, U256};
use reqwest::header::HeaderValue;
use serde::Deserialize;

use super::session_signers::SignedSessionSignerBatch;
use super::session_signers::{SessionSignerAction, SessionSignerBatch, SessionSignerReceipt};
use super::types::{RelayerAuth, RelayerTransaction, decode_relayer_transaction};
use super::wallet_batch::{BATCH_LIFETIME, wallet_create_body};
use crate::clob::{Credentials, SessionScope};
use crate::http::{self, Error, Req};
use crate::sign::Signer;
use crate::sign::hmac::HmacKey;
use crate::types::Chain;

/// Polymarket's relayer, which submits deposit-wallet batches.
pub const DEFAULT_HOST: &str = "https://relayer-v2.polymarket.com";
/// `GET`: the owner's next deposit-wallet nonce (`?address=<owner>&type=WALLET`).
const EXECUTE_PARAMS_PATH: &str = "/v1/account/transactions/params";
/// `POST`: submit a relayer transaction (a `WALLET` batch, a `WALLET-CREATE`).
const SUBMIT_PATH: &str = "/submit";
/// `GET {TRANSACTION_PATH}{id}`: one relayer transaction's state.
const TRANSACTION_PATH: &str = "/v1/account/transactions/";
/// `GET`: whether a wallet is deployed (`?address=<wallet>&type=WALLET|SAFE`).
const DEPLOYED_PATH: &str = "/deployed";

/// Builds a relayer [`Client`]. Setters are infallible and state their default.
#[derive(Debug)]
#[must_use]
pub struct ClientBuilder {
    http: http::Settings,
    chain: Chain,
    signer: Option<Signer>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientBuilder {
    /// A builder with every default.
    pub fn new() -> Self {
        Self {
            http: http::Settings::new(DEFAULT_HOST),
            chain: Chain::Polygon,
            signer: None,
        }
    }

    crate::http::host_builder::host_setters!("relayer", "https://relayer-v2.polymarket.com");

    /// The chain batches are signed for. Default is [`Chain::Polygon`].
    pub fn chain(mut self, chain: Chain) -> Self {
        self.chain = chain;
        self
    }

    /// The deposit wallet owner's key, which signs batches and deploys its wallet. Default is
    /// none: the relayer's reads, and posts of batches signed elsewhere.
    pub fn signer(mut self, signer: Signer) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    /// When the TLS configuration cannot be set up (no usable root store) or the HTTP client
    /// cannot be built.
    pub fn build(self) -> Result<Client, Error> {
        let route = self.http.proxy.resolve();
        Ok(Client {
            http: self.http.build(&route)?,
            chain: self.chain,
            signer: self.signer,
        })
    }
}

/// Polymarket's relayer (deposit wallets and session signers), on the crate's HTTP transport:
/// reads are retried by the [retry policy](ClientBuilder::retry), posts never are. Cheap to
/// clone.
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::http::Error> {
/// use polyclob::relayer::{self, RelayerApiKey};
///
/// let relayer = relayer::Client::builder().build()?; // https://relayer-v2.polymarket.com
/// let wallet = "0xdf8b9E8f9AB23f261F6e1B171B7454ae6E46Ba76".parse().unwrap();
/// println!("deployed: {}", relayer.deployed(wallet).await?);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    http: http::Client,
    chain: Chain,
    signer: Option<Signer>,
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

fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Client {
    /// A builder with every default (production relayer, Polygon, no key).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// The base URL requests go to.
    #[must_use]
    pub fn host(&self) -> &str {
        self.http.host()
    }

    /// What this client (and its clones) has done since it was built: requests, retries,
    /// errors by kind ([`ClientCounters`](http::ClientCounters)).
    #[must_use]
    pub fn counters(&self) -> http::ClientCounters {
        self.http.counters()
    }

    fn owner(&self, why: &'static str) -> Result<&Signer, Error> {
        self.signer.as_ref().ok_or_else(|| Error::auth(why))
    }

    /// `req` with `auth`'s headers (a builder key's HMAC over timestamp, method, path and
    /// body, signed per attempt, or a Relayer API key's; none for public routes) and an
    /// `Idempotency-Key` when one is given.
    async fn send(
        &self,
        req: &Req<'_>,
        auth: Option<RelayerAuth<'_>>,
        idempotency_key: Option<&str>,
    ) -> Result<bytes::Bytes, Error> {
        self.http
            .retrying(req, || async move {
                let mut rb = self.http.request(req);
                match auth {
                    None => {}
                    Some(RelayerAuth::Builder(builder)) => {
                        let key = HmacKey::from_base64url(builder.secret()).map_err(Error::sign)?;
                        let ts = unix_secs();
                        let body = req.body.as_deref().unwrap_or_default();
                        let sig = key.sign(ts, req.method.as_str(), req.path, body);
                        rb = rb
                            .header("POLY_BUILDER_API_KEY", header_value(builder.api_key())?)
                            .header("POLY_BUILDER_SIGNATURE", sensitive(sig.as_str())?)
                            .header("POLY_BUILDER_TIMESTAMP", ts.to_string())
                            .header("POLY_BUILDER_PASSPHRASE", sensitive(builder.passphrase())?);
                    }
                    Some(RelayerAuth::ApiKey(k)) => {
                        rb = rb.header("RELAYER_API_KEY", sensitive(k.key())?).header(
                            "RELAYER_API_KEY_ADDRESS",
                            header_value(&k.address().to_checksum(None))?,
                        );
                    }
                }
                if let Some(k) = idempotency_key {
                    rb = rb.header("Idempotency-Key", header_value(k)?);
                }
                Ok(self.http.execute(rb, req.path, |_, _| {}).await)
            })
            .await
    }

    /// The owner's next deposit-wallet nonce
    /// (`GET /v1/account/transactions/params?address=<owner>&type=WALLET`).
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer without a decimal `nonce`.
    pub async fn wallet_nonce<'a>(
        &self,
        auth: impl Into<RelayerAuth<'a>>,
        owner: Address,
    ) -> Result<U256, Error> {
        let req = Req::get(EXECUTE_PARAMS_PATH)
            .query("address", &owner.to_checksum(None))
            .query("type", "WALLET");
        let body = self.send(&req, Some(auth.into()), None).await?;
        let p: ExecuteParams = http::decode(&body, EXECUTE_PARAMS_PATH)?;
        p.nonce
            .parse::<U256>()
            .map_err(|_| Error::decode("the relayer's nonce is not a decimal integer"))
    }

    /// One relayer transaction by id (`GET /v1/account/transactions/{id}`).
    ///
    /// # Errors
    ///
    /// An empty id ([`Error::is_argument`]); transport, status, decode.
    pub async fn transaction<'a>(
        &self,
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
        let body = self.send(&Req::get(&path), Some(auth.into()), None).await?;
        decode_relayer_transaction(&body, &path)
    }

    /// Whether the deposit wallet `wallet` is deployed
    /// (`GET /deployed?address=<wallet>&type=WALLET`, a public route).
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer without a boolean `deployed`.
    pub async fn deployed(&self, wallet: Address) -> Result<bool, Error> {
        #[derive(Deserialize)]
        struct Deployed {
            deployed: bool,
        }
        let req = Req::get(DEPLOYED_PATH)
            .query("address", &wallet.to_checksum(None))
            .query("type", "WALLET");
        let body = self.send(&req, None, None).await?;
        let d: Deployed = http::decode(&body, DEPLOYED_PATH)?;
        Ok(d.deployed)
    }

    /// Deploys the deposit wallet of this client's key (`POST /submit` with type
    /// `WALLET-CREATE`, from the key to the deposit-wallet factory, as the official SDK sends
    /// it; the relayer pays the gas). The factory deploys the key's current (beacon) deposit
    /// wallet, the second of
    /// [`derive_deposit_wallets`](crate::sign::wallet::derive_deposit_wallets). Poll
    /// [`transaction`](Self::transaction) until it is terminal.
    ///
    /// # Errors
    ///
    /// No private key ([`Error::is_auth`]); metadata over
    /// [`MAX_METADATA_LEN`](super::MAX_METADATA_LEN) characters ([`Error::is_argument`]);
    /// transport, status, decode.
    pub async fn deploy_deposit_wallet<'a>(
        &self,
        auth: impl Into<RelayerAuth<'a>>,
        metadata: &str,
    ) -> Result<RelayerTransaction, Error> {
        let owner =
            self.owner("a deposit wallet is deployed for the client's key: none was given")?;
        let body = wallet_create_body(owner.address(), metadata)?;
        self.submit(auth.into(), body, None).await
    }

    /// `POST /submit` of a relayer body (with its `Idempotency-Key`, if any), decoded.
    async fn submit(
        &self,
        auth: RelayerAuth<'_>,
        body: Vec<u8>,
        idempotency_key: Option<&str>,
    ) -> Result<RelayerTransaction, Error> {
        let answer = self
            .send(&Req::post(SUBMIT_PATH, body), Some(auth), idempotency_key)
            .await?;
        decode_relayer_transaction(&answer, SUBMIT_PATH)
    }

    /// Posts a signed session-signer batch with `idempotency_key` (reuse it to retry the same
    /// batch safely). Not retried here.
    ///
    /// # Errors
    ///
    /// Transport, status, or an answer that is not a receipt.
    pub async fn relay_session_signer_batch(
        &self,
        builder: &Credentials,
        signed: &SignedSessionSignerBatch,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        if idempotency_key.trim().is_empty() {
            return Err(Error::argument("the idempotency key must not be empty"));
        }
        let req = Req::post(signed.path, signed.body.clone());
        let body = self
            .send(&req, Some(builder.into()), Some(idempotency_key.trim()))
            .await?;
        http::decode(&body, signed.path)
    }

    async fn session_signer_action(
        &self,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        action: SessionSignerAction,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let owner =
            self.owner("session signers are managed with the owner's key: none was given")?;
        let nonce = self.wallet_nonce(builder, owner.address()).await?;
        let batch = SessionSignerBatch::new(
            wallet,
            session_signer,
            action,
            nonce,
            unix_secs() + BATCH_LIFETIME,
        );
        let signed = batch.sign(owner, self.chain)?;
        self.relay_session_signer_batch(builder, &signed, idempotency_key)
            .await
    }

    /// Authorizes `session_signer` to trade for deposit `wallet` on `scopes` until
    /// `valid_until` (Unix seconds; `None`: now + 180 days): fetches the owner's nonce, signs
    /// the batch with this client's key (the wallet's owner) and posts it with the builder
    /// key's headers. Authorizing requires a builder API key.
    ///
    /// The docs (docs.polymarket.com/trading/session-keys): "`validUntil` is required. Always
    /// set it to the current whole Unix timestamp in seconds plus 180 days. Other values are
    /// rejected." Their own example computes now + 4,315 hours (five hours less), so a
    /// shorter expiry is sent as given; one more than 180 days ahead is refused here.
    ///
    /// # Errors
    ///
    /// No private key ([`Error::is_auth`]); a refused batch or an expiry more than 180 days
    /// ahead ([`Error::is_argument`]); transport, status or decode.
    pub async fn authorize_session_signer(
        &self,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        scopes: Vec<SessionScope>,
        valid_until: Option<u64>,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let now = unix_secs();
        let longest = now + SessionSignerBatch::LIFETIME;
        let valid_until = valid_until.unwrap_or(longest);
        if valid_until > longest {
            return Err(Error::argument(format!(
                "session signer expiry {valid_until} is more than 180 days ahead (now + 180 days \
                 is {longest}); the venue rejects it"
            )));
        }
        let action = SessionSignerAction::Authorize {
            scopes,
            valid_until,
        };
        self.session_signer_action(builder, wallet, session_signer, action, idempotency_key)
            .await
    }

    /// Revokes `session_signer` of deposit `wallet`, as
    /// [`authorize_session_signer`](Self::authorize_session_signer).
    ///
    /// # Errors
    ///
    /// As [`authorize_session_signer`](Self::authorize_session_signer).
    pub async fn revoke_session_signer(
        &self,
        builder: &Credentials,
        wallet: Address,
        session_signer: Address,
        idempotency_key: &str,
    ) -> Result<SessionSignerReceipt, Error> {
        let action = SessionSignerAction::Revoke;
        self.session_signer_action(builder, wallet, session_signer, action, idempotency_key)
            .await
    }
}

#[cfg(feature = "onchain")]
mod batches {
    use alloy_primitives::Address;

    use super::super::types::{RelayerAuth, RelayerRefusal, RelayerTransaction};
    use super::super::wallet_batch::{BATCH_LIFETIME, SignedWalletBatch, WalletBatch};
    use super::{Client, unix_secs};
    use crate::http::Error;
    use crate::onchain::Call;

    impl Client {
        /// Posts a signed `WALLET` batch with `auth`'s headers and the batch's
        /// [`idempotency_key`](SignedWalletBatch::idempotency_key). Not retried here: posting
        /// the same signed batch again is safe (its nonce executes once).
        ///
        /// # Errors
        ///
        /// Transport, status (a refusal: see [`RelayerRefusal::of`]), decode.
        pub async fn submit_wallet_batch<'a>(
            &self,
            auth: impl Into<RelayerAuth<'a>>,
            signed: &SignedWalletBatch,
        ) -> Result<RelayerTransaction, Error> {
            let key = signed.idempotency_key();
            self.submit(auth.into(), signed.body.clone(), Some(&key))
                .await
        }

        /// Runs `calls` from deposit `wallet`: reads the owner's nonce, signs the batch with
        /// this client's key (the wallet's owner) valid for 600 s, and posts it. When the
        /// nonce it just read was taken before its post (a
        /// [`RelayerRefusal::NonceMismatch`] above it), it signs once more with the relayer's
        /// nonce, as the official client does.
        ///
        /// # Errors
        ///
        /// No private key ([`Error::is_auth`]); a refused batch ([`Error::is_argument`]);
        /// transport, status, decode.
        pub async fn execute_wallet_batch<'a>(
            &self,
            auth: impl Into<RelayerAuth<'a>>,
            wallet: Address,
            calls: Vec<Call>,
            metadata: &str,
        ) -> Result<RelayerTransaction, Error> {
            let owner =
                self.owner("a wallet batch is signed with the owner's key: none was given")?;
            let auth = auth.into();
            let nonce = self.wallet_nonce(auth, owner.address()).await?;
            let mut batch = WalletBatch::new(wallet, calls, nonce, unix_secs() + BATCH_LIFETIME)
                .metadata(metadata);
            let signed = batch.sign(owner, self.chain)?;
            match self.submit_wallet_batch(auth, &signed).await {
                Err(e) => match RelayerRefusal::of(&e) {
                    Some(RelayerRefusal::NonceMismatch {
                        submitted,
                        on_chain,
                    }) if submitted < on_chain => {
                        batch.nonce = on_chain;
                        let again = batch.sign(owner, self.chain)?;
                        self.submit_wallet_batch(auth, &again).await
                    }
                    _ => Err(e),
                },
                ok => ok,
            }
        }
    }
}
