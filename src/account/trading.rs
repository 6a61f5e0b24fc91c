//! [`Account`]: the key, the wallet, the chain and the API credentials of one trading account in
//! one object, built once and authenticated by construction; the one way to place an order.
//!
//! # Why a separate type (and not a type-state parameter on [`Client`])
//!
//! [`Client`] is also the transport of the drop-in compat layer, whose `ClobClient` installs
//! credentials at run time (`set_api_creds`); a type parameter on `Client` would change a type
//! the compat surface and every existing user names. So the guarantee lives in a second type:
//! an [`Account`] exists only once its credentials were created, derived or given, and its
//! order signer was checked against the client's key and chain (the pre-flight checks). Code
//! that takes `&Account` cannot reach an L2 endpoint without credentials; code that takes
//! `&Client` can, and gets [`Error::is_auth`] at run time.
//!
//! `Account` holds a [`Client`] and does not deref to it: its methods are the trading surface
//! (orders signed by its own [`OrderSigner`], its open orders, cancels, trades, balances,
//! heartbeats, positions and settlement), each with the same signature and meaning as the
//! client's call of the same name where there is one. Market data and every other endpoint
//! are [`Account::client`]'s.
//!
//! The hot paths are the client's and the order signer's own: [`Account::order_signer`] is the
//! [`OrderSigner`] (prepared orders, a presigning [`Signer`] keep working), and the order
//! lane is a [`ClientBuilder`] setting.

use std::time::Duration;

use super::preflight;
use super::tracker::Tracker;
use crate::clob::types::{
    AssetKind, BalanceAllowance, CancelResponse, HeartbeatResponse, OpenOrder, PostOrderResponse,
    Trade,
};
use crate::clob::{
    ApiKeyNonce, Client, ClientBuilder, Credentials, HeartbeatHandle, OrderFilter, TradeFilter,
};
use crate::data;
use crate::http::{Error, SkippedRow};
use crate::order::{LimitOrder, MarketContext, MarketOrder, OrderError, OrderSigner, SignedOrder};
use crate::relayer;
use crate::sign::Signer;
use crate::sign::wallet::Wallet;
use crate::types::{Address, SignatureType};

/// One trading account: a [`Client`] that holds the key and API credentials, and the
/// [`OrderSigner`] for the account's wallet, sharing one signer and one chain.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = polyclob_sim::Simulator::builder().seed(5).start().await?;
/// # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
/// use polyclob::account::Account;
/// use polyclob::clob::ClientBuilder;
/// use polyclob::order::LimitOrder;
/// use polyclob::sign::{Signer, wallet::Wallet};
/// use polyclob::types::Side;
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// # sim.fund(signer.address(), 1_000_000_000); // the simulator's accounts start empty
/// let account = Account::builder(signer)
///     .wallet(Wallet::Eoa)
///     .client(ClientBuilder::new().host(sim.http_url()))
///     .connect() // creates or derives the API key
///     .await?;
/// let bid = LimitOrder::new(Side::Buy, "0.10".parse()?, "10".parse()?).post_only(true);
/// let placed = account.place_limit_order(&token, &bid).await?;
/// account.cancel(&placed.order_id).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Account {
    client: Client,
    order_signer: OrderSigner,
}

/// Builds an [`Account`]; only [`connect`](Self::connect) (or [`build`](Self::build), with
/// credentials given) can fail.
#[derive(Debug)]
#[must_use]
pub struct AccountBuilder {
    signer: Signer,
    wallet: Wallet,
    client: ClientBuilder,
    credentials: Option<Credentials>,
    nonce: ApiKeyNonce,
}

impl Account {
    /// A builder for the account of `signer` (the EOA key; with a presigning nonce pool
    /// attached, every order signature uses it).
    pub fn builder(signer: Signer) -> AccountBuilder {
        AccountBuilder {
            signer,
            wallet: Wallet::Eoa,
            client: ClientBuilder::new(),
            credentials: None,
            nonce: ApiKeyNonce::ZERO,
        }
    }

    /// The client: market data and every endpoint, one call each.
    #[must_use]
    pub const fn client(&self) -> &Client {
        &self.client
    }

    /// The order signer of the account's wallet, for prepared orders
    /// ([`OrderSigner::limit_order`] with a [`MarketContext`] the caller keeps) and
    /// [`post_order`](Self::post_order).
    #[must_use]
    pub const fn order_signer(&self) -> &OrderSigner {
        &self.order_signer
    }

    /// The address that makes the orders and holds the funds: the signer's for an EOA, else
    /// the proxy, Safe or deposit wallet's.
    #[must_use]
    pub fn maker(&self) -> Address {
        self.order_signer.maker()
    }

    /// The API credentials the account was built with (or created/derived).
    #[must_use]
    pub fn credentials(&self) -> Credentials {
        // Set at construction and never cleared by `Account` (`set_credentials` on the
        // client swaps, it never removes).
        self.client
            .credentials()
            .expect("an Account is built with credentials")
    }

    /// An empty [`Tracker`] for this account's orders: fills made from its maker address
    /// count as its own even for orders placed before tracking began. Feed it the posts, the
    /// user channel and REST answers (see [`tracker`](super::tracker)).
    #[must_use]
    pub fn tracker(&self) -> Tracker {
        Tracker::new().maker(self.order_signer.maker())
    }

    /// The market context for `token_id` ([`Client::market_context`]).
    ///
    /// # Errors
    ///
    /// As [`Client::market_context`].
    pub async fn market_context(&self, token_id: &str) -> Result<MarketContext, Error> {
        self.client.market_context(token_id).await
    }

    /// Builds, signs and posts a limit order for `token_id`, using cached market parameters
    /// (fetched when missing; concurrent misses share one request). On
    /// `order_version_mismatch` it re-reads `/version`, rebuilds, re-signs and posts once more.
    ///
    /// # Errors
    ///
    /// Validation ([`Error::is_argument`]), lookups, or the post (including the client-side
    /// rails: [`Error::is_throttled`], [`Error::is_heartbeat_guard`],
    /// [`Error::is_post_only_mode`]). The exchange's "please use the deposit wallet flow" comes
    /// back as [`Error::is_preflight`] with
    /// [`PreflightMismatch::DepositWalletRequired`](crate::http::PreflightMismatch), naming the
    /// key's deposit wallets.
    pub async fn place_limit_order(
        &self,
        token_id: &str,
        req: &LimitOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.place(token_id, |s, ctx| s.limit_order(ctx, req)).await
    }

    /// As [`place_limit_order`](Self::place_limit_order) for a market (FOK/FAK) order (a BUY
    /// in pUSD or [shares](crate::order::MarketAmount::Shares), a SELL in shares).
    ///
    /// # Errors
    ///
    /// Validation ([`Error::is_argument`]), lookups, or the post (nothing to match:
    /// [`Error::is_no_match`]).
    pub async fn place_market_order(
        &self,
        token_id: &str,
        req: &MarketOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.place(token_id, |s, ctx| s.market_order(ctx, req))
            .await
    }

    /// Signs with the cached market context and posts; on `order_version_mismatch` re-reads
    /// the version, re-signs and posts once more.
    async fn place(
        &self,
        token_id: &str,
        sign: impl Fn(&OrderSigner, &MarketContext) -> Result<SignedOrder, OrderError>,
    ) -> Result<PostOrderResponse, Error> {
        let s = &self.order_signer;
        let ctx = self.client.market_context(token_id).await?;
        let signed = sign(s, &ctx).map_err(Error::order)?;
        match self.post_checked(&signed).await {
            Err(e) if e.is_order_version_mismatch() => {
                let ctx = self.client.refreshed_context(&ctx).await?;
                let signed = sign(s, &ctx).map_err(Error::order)?;
                self.post_checked(&signed).await
            }
            r => r,
        }
        .map_err(|e| preflight::explain(s, e))
    }

    /// Posts and turns a 200 with `success: false` and a version-mismatch message into an
    /// error, so both ways the server reports it are handled alike.
    async fn post_checked(&self, order: &SignedOrder) -> Result<PostOrderResponse, Error> {
        let r = self.client.post_order(order).await?;
        if !r.success && r.error_msg.contains("order_version_mismatch") {
            return Err(Error::version_mismatch(r.error_msg));
        }
        Ok(r)
    }

    /// Signs a limit order for `token_id` with the cached market parameters (no I/O when
    /// cached), to post later with [`post_order`](Self::post_order).
    ///
    /// # Errors
    ///
    /// The lookups, validation ([`Error::is_argument`]).
    pub async fn sign_limit_order(
        &self,
        token_id: &str,
        req: &LimitOrder,
    ) -> Result<SignedOrder, Error> {
        let ctx = self.client.market_context(token_id).await?;
        self.order_signer
            .limit_order(&ctx, req)
            .map_err(Error::order)
    }

    /// Signs a market order for `token_id`, as [`sign_limit_order`](Self::sign_limit_order).
    ///
    /// # Errors
    ///
    /// The lookups, validation ([`Error::is_argument`]).
    pub async fn sign_market_order(
        &self,
        token_id: &str,
        req: &MarketOrder,
    ) -> Result<SignedOrder, Error> {
        let ctx = self.client.market_context(token_id).await?;
        self.order_signer
            .market_order(&ctx, req)
            .map_err(Error::order)
    }

    /// Posts an order signed by [`order_signer`](Self::order_signer) ([`Client::post_order`]).
    ///
    /// # Errors
    ///
    /// As [`Client::post_order`].
    pub async fn post_order(&self, order: &SignedOrder) -> Result<PostOrderResponse, Error> {
        self.client.post_order(order).await
    }

    /// Posts up to 15 signed orders in one request ([`Client::post_orders`]).
    ///
    /// # Errors
    ///
    /// As [`Client::post_orders`].
    pub async fn post_orders(
        &self,
        orders: &[SignedOrder],
    ) -> Result<Vec<PostOrderResponse>, Error> {
        self.client.post_orders(orders).await
    }

    /// One order by id ([`Client::order`]).
    ///
    /// # Errors
    ///
    /// As [`Client::order`].
    pub async fn order(&self, order_id: &str) -> Result<OpenOrder, Error> {
        self.client.order(order_id).await
    }

    /// Every open order that passes `filter`, every page ([`Client::all_orders`]).
    ///
    /// # Errors
    ///
    /// As [`Client::all_orders`].
    pub async fn all_orders(
        &self,
        filter: &OrderFilter,
    ) -> Result<(Vec<OpenOrder>, Vec<SkippedRow>), Error> {
        self.client.all_orders(filter).await
    }

    /// Every trade of the account that passes `filter`, every page ([`Client::all_trades`]).
    ///
    /// # Errors
    ///
    /// As [`Client::all_trades`].
    pub async fn all_trades(
        &self,
        filter: &TradeFilter,
    ) -> Result<(Vec<Trade>, Vec<SkippedRow>), Error> {
        self.client.all_trades(filter).await
    }

    /// Cancels one order ([`Client::cancel`]).
    ///
    /// # Errors
    ///
    /// As [`Client::cancel`].
    pub async fn cancel(&self, order_id: &str) -> Result<CancelResponse, Error> {
        self.client.cancel(order_id).await
    }

    /// Cancels orders by id ([`Client::cancel_orders`]).
    ///
    /// # Errors
    ///
    /// As [`Client::cancel_orders`].
    pub async fn cancel_orders(&self, order_ids: &[&str]) -> Result<CancelResponse, Error> {
        self.client.cancel_orders(order_ids).await
    }

    /// Cancels every open order ([`Client::cancel_all`]).
    ///
    /// # Errors
    ///
    /// As [`Client::cancel_all`].
    pub async fn cancel_all(&self) -> Result<CancelResponse, Error> {
        self.client.cancel_all().await
    }

    /// Cancels the open orders of a market or a token ([`Client::cancel_market_orders`]).
    ///
    /// # Errors
    ///
    /// As [`Client::cancel_market_orders`].
    pub async fn cancel_market_orders(
        &self,
        market: Option<&str>,
        asset_id: Option<&str>,
    ) -> Result<CancelResponse, Error> {
        self.client.cancel_market_orders(market, asset_id).await
    }

    /// The account's balance and allowances of `asset` (for its wallet's signature type;
    /// [`Client::balance_allowance`]).
    ///
    /// # Errors
    ///
    /// As [`Client::balance_allowance`].
    pub async fn balance_allowance(
        &self,
        asset: AssetKind,
        token_id: Option<&str>,
    ) -> Result<BalanceAllowance, Error> {
        self.client
            .balance_allowance(asset, token_id, self.signature_type())
            .await
    }

    /// Asks the CLOB to re-read the account's balance of `asset` from the chain
    /// ([`Client::update_balance_allowance`]).
    ///
    /// # Errors
    ///
    /// As [`Client::update_balance_allowance`].
    pub async fn update_balance_allowance(
        &self,
        asset: AssetKind,
        token_id: Option<&str>,
    ) -> Result<(), Error> {
        self.client
            .update_balance_allowance(asset, token_id, self.signature_type())
            .await
    }

    fn signature_type(&self) -> SignatureType {
        self.order_signer.wallet().signature_type()
    }

    /// One heartbeat ([`Client::heartbeat`]).
    ///
    /// # Errors
    ///
    /// As [`Client::heartbeat`].
    pub async fn heartbeat(&self, id: Option<&str>) -> Result<HeartbeatResponse, Error> {
        self.client.heartbeat(id).await
    }

    /// Heartbeats every `interval` on a task of their own ([`Client::start_heartbeats`]).
    pub fn start_heartbeats(&self, interval: Duration) -> HeartbeatHandle {
        self.client.start_heartbeats(interval)
    }

    /// The account's open positions by the Data API (`GET /positions` of its
    /// [maker](Self::maker), every page), and the rows that did not decode.
    ///
    /// # Errors
    ///
    /// As [`data::Client::collect`].
    pub async fn positions(
        &self,
        data: &data::Client,
    ) -> Result<(Vec<data::Position>, Vec<SkippedRow>), Error> {
        let maker = self.maker().to_checksum(None);
        data.collect(data::Query::positions(&maker).status("OPEN"))
            .await
    }

    /// The pre-flight checks' local part ran when the account was built; this also asks the
    /// exchange (`GET /auth/api-keys`) whether the API key is one of the
    /// signer's.
    ///
    /// # Errors
    ///
    /// [`Error::is_preflight`] when the exchange does not list the key for the signer (or
    /// refuses the credentials with 401); transport errors.
    pub async fn preflight_remote(&self) -> Result<(), Error> {
        preflight::remote(&self.client, &self.order_signer).await
    }

    /// A relayer client builder with the account's key and chain: deposit-wallet batches,
    /// deployment and session signers go through Polymarket's relayer.
    pub fn relayer(&self) -> relayer::ClientBuilder {
        relayer::Client::builder()
            .chain(self.client.chain())
            .signer(self.order_signer.signer().clone())
    }

    /// A settler builder for the node at `rpc_url` with the account's key, chain and wallet
    /// (approvals, split, merge, redeem; deposit wallets settle through
    /// [`relayer`](Self::relayer) instead).
    #[cfg(feature = "onchain")]
    pub fn settler(&self, rpc_url: impl Into<String>) -> crate::onchain::SettlerBuilder {
        crate::onchain::Settler::builder(rpc_url, self.order_signer.signer().clone())
            .chain(self.client.chain())
            .wallet(self.order_signer.wallet())
    }
}

impl AccountBuilder {
    /// The wallet that holds the funds and makes the orders: [`Wallet::Eoa`], a proxy, a
    /// Safe or a deposit wallet (POLY_1271). Default is [`Wallet::Eoa`].
    pub const fn wallet(mut self, wallet: Wallet) -> Self {
        self.wallet = wallet;
        self
    }

    /// The client's settings (host, chain, transport, rails, the order lane); its signer and
    /// credentials are the account's. Default is [`ClientBuilder::new`]: Polymarket on
    /// Polygon.
    pub fn client(mut self, client: ClientBuilder) -> Self {
        self.client = client;
        self
    }

    /// API credentials to use instead of creating or deriving them. Default is none:
    /// [`connect`](Self::connect) creates (or derives) the key for the
    /// [nonce](Self::api_key_nonce).
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The ClobAuth nonce of the API key to create or derive. Default is
    /// [`ApiKeyNonce::ZERO`] (the key every
    /// Polymarket client derives).
    pub const fn api_key_nonce(mut self, nonce: ApiKeyNonce) -> Self {
        self.nonce = nonce;
        self
    }

    fn parts(self) -> Result<(Client, OrderSigner, Option<Credentials>, ApiKeyNonce), Error> {
        let client = self.client.signer(self.signer.clone());
        let chain = client.chain;
        let orders = OrderSigner::new(self.signer, chain, self.wallet).map_err(Error::order)?;
        let client = client.build()?;
        preflight::check(&orders)?;
        Ok((client, orders, self.credentials, self.nonce))
    }

    /// Builds the account with the [given credentials](Self::credentials), without I/O.
    ///
    /// # Errors
    ///
    /// [`Error::is_auth`] when no credentials were given; a wallet the order signer refuses
    /// (a zero or self funder: [`Error::is_argument`]) or that is not the key's
    /// ([`Error::is_preflight`]: a proxy or Safe other than the key's, a deposit wallet it does
    /// not own); the client's build errors.
    pub fn build(self) -> Result<Account, Error> {
        let (client, order_signer, creds, _) = self.parts()?;
        let creds = creds.ok_or_else(|| {
            Error::auth("AccountBuilder::build needs credentials: give them, or use connect()")
        })?;
        client.set_credentials(creds);
        Ok(Account {
            client,
            order_signer,
        })
    }

    /// Builds the account, creating the API key for the nonce or deriving the existing one
    /// (one L1 request or two) unless credentials were given.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build) for the wallet and the client; the L1 requests' errors.
    pub async fn connect(self) -> Result<Account, Error> {
        let (client, order_signer, creds, nonce) = self.parts()?;
        let creds = match creds {
            Some(c) => c,
            None => client.create_or_derive_api_key(nonce).await?,
        };
        client.set_credentials(creds);
        Ok(Account {
            client,
            order_signer,
        })
    }
}
