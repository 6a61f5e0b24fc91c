//! The account layer: one trading account over the CLOB client, the user channel, the Data API,
//! the relayer and the chain. It sits above [`clob`](crate::clob), [`ws`](crate::ws) and
//! [`data`](crate::data) and holds what is the account's state rather than an endpoint's answer.
//!
//! | module | what it holds |
//! |---|---|
//! | [`Account`] | the one trading surface: orders signed by its own signer (with the version-mismatch retry), its open orders, cancels, trades, balances, heartbeats, positions, and settlement through the chain or the relayer |
//! | [`tracker`] | [`Tracker`]: what a bot believes about its orders and fills, from the post to settlement, reconciled with the Data API's positions |
//! | [`user_events`] | [`UserStream`](user_events::UserStream): the user channel's feed — flat orders and trades, each trade's status once and in order |
//! | [`reconcile`] | [`Reconcile`](reconcile::Reconcile): after a break, the user channel's missed orders and trades over REST, marked `recovered` |
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().seed(5).start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use polyclob::account::Account;
//! use polyclob::clob::{ClientBuilder, OrderFilter};
//! use polyclob::order::LimitOrder;
//! use polyclob::sign::Signer;
//! use polyclob::types::Side;
//!
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! # sim.fund(signer.address(), 1_000_000_000);
//! let account = Account::builder(signer)
//!     .client(ClientBuilder::new().host(sim.http_url()))
//!     .connect()
//!     .await?;
//! let bid = LimitOrder::new(Side::Buy, "0.10".parse()?, "10".parse()?).post_only(true);
//! let placed = account.place_limit_order(&token, &bid).await?;
//! let (open, _skipped) = account.all_orders(&OrderFilter::default()).await?;
//! assert!(open.iter().any(|o| o.id == placed.order_id));
//! account.cancel_all().await?;
//! # Ok(()) }
//! ```

mod preflight;
pub mod reconcile;
pub mod tracker;
mod trading;
pub mod user_events;

pub use tracker::Tracker;
pub use trading::{Account, AccountBuilder};
