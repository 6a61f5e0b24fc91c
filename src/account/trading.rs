//! [`Account`]: the key, the wallet, the chain and the API credentials of one trading account in
//! one object, built once and authenticated by construction.
//!
//! # Why a separate type (and not a type-state parameter on [`Client`])
//!
//! [`Client`] is also the transport of the drop-in compat layer, whose `ClobClient` installs
//! credentials at run time (`set_api_creds`); a type parameter on `Client` would change a type
//! the compat surface and every existing user names. So the guarantee lives in a second type:
//! an [`Account`] exists only once its credentials were created, derived or given, and its
//! order signer was checked against the client's key and chain ([`Client::preflight`]). Code
//! that takes `&Account` cannot reach an L2 endpoint without credentials; code that takes
//! `&Client` can, and gets [`Error::is_auth`] at run time as before. `Account` derefs to its
//! [`Client`] (public and L2 calls alike, no re-listing of the endpoints) and adds the
//! trading calls that no longer need the signer passed in.
//!
//! The hot paths are the client's and the order signer's own: [`Account::orders`] is the
//! [`OrderSigner`] (prepared orders, a presigning [`Signer`] keep working), and the order
//! lane is a [`ClientBuilder`] setting.

use core::ops::Deref;

use super::builder::ClientBuilder;
use super::tracker::Tracker;
use super::transport::Client;
use super::types::PostOrderResponse;
use super::{ApiKeyNonce, Credentials, Error};
use crate::order::{LimitOrder, MarketOrder, OrderSigner, SignedOrder};
use crate::sign::Signer;
use crate::sign::wallet::Wallet;

/// One trading account: a [`Client`] that holds the key and API credentials, and the
/// [`OrderSigner`] for the account's wallet, sharing one signer and one chain.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = polyclob_sim::Simulator::builder().seed(5).start().await?;
/// # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
/// use polyclob::clob::{Account, ClientBuilder};
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
/// account.cancel(&placed.order_id).await?; // an L2 call of the client
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Account {
    client: Client,
    orders: OrderSigner,
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

    /// The client: every public and L2 endpoint (also reached through `Deref`).
    #[must_use]
    pub const fn client(&self) -> &Client {
        &self.client
    }

    /// The order signer of the account's wallet, for prepared orders
    /// ([`OrderSigner::limit_order`] with a [`MarketContext`](crate::order::MarketContext)
    /// the caller keeps) and [`post_order`](Client::post_order).
    #[must_use]
    pub const fn orders(&self) -> &OrderSigner {
        &self.orders
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
        Tracker::new().maker(self.orders.maker())
    }

    /// [`Client::place_limit_order`] with the account's order signer.
    ///
    /// # Errors
    ///
    /// As [`Client::place_limit_order`].
    pub async fn place_limit_order(
        &self,
        token_id: &str,
        req: &LimitOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.client
            .place_limit_order(&self.orders, token_id, req)
            .await
    }

    /// [`Client::place_market_order`] with the account's order signer.
    ///
    /// # Errors
    ///
    /// As [`Client::place_market_order`].
    pub async fn place_market_order(
        &self,
        token_id: &str,
        req: &MarketOrder,
    ) -> Result<PostOrderResponse, Error> {
        self.client
            .place_market_order(&self.orders, token_id, req)
            .await
    }

    /// Signs a limit order for `token_id` with the cached market parameters (no I/O when
    /// cached), to post later with [`post_order`](Client::post_order).
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
        self.orders.limit_order(&ctx, req).map_err(Error::order)
    }
}

impl Deref for Account {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
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
        client.preflight(&orders)?;
        Ok((client, orders, self.credentials, self.nonce))
    }

    /// Builds the account with the [given credentials](Self::credentials), without I/O.
    ///
    /// # Errors
    ///
    /// [`Error::is_auth`] when no credentials were given; a wallet the order signer refuses
    /// (a zero or self funder: [`Error::is_argument`]); the client's build errors.
    pub fn build(self) -> Result<Account, Error> {
        let (client, orders, creds, _) = self.parts()?;
        let creds = creds.ok_or_else(|| {
            Error::auth("AccountBuilder::build needs credentials: give them, or use connect()")
        })?;
        client.set_credentials(creds);
        Ok(Account { client, orders })
    }

    /// Builds the account, creating the API key for the nonce or deriving the existing one
    /// (one L1 request or two) unless credentials were given.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build) for the wallet and the client; the L1 requests' errors.
    pub async fn connect(self) -> Result<Account, Error> {
        let (client, orders, creds, nonce) = self.parts()?;
        let creds = match creds {
            Some(c) => c,
            None => client.create_or_derive_api_key(nonce).await?,
        };
        client.set_credentials(creds);
        Ok(Account { client, orders })
    }
}
