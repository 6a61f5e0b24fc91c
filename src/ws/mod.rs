//! Polymarket WebSocket channels ([Polymarket WSS overview]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use futures_util::StreamExt;
//! use polyclob::ws::event::Status;
//! use polyclob::ws::feed::FeedEvent;
//! use polyclob::ws::market::MarketStream;
//! use std::time::Duration;
//!
//! // Connects lazily, subscribes, pings, reconnects with backoff, resubscribes; keeps the books.
//! let mut books = MarketStream::builder()
//!     .url(sim.market_ws_url()) // default: Polymarket's market channel
//!     .assets([token.clone()])
//!     .build()?;
//! while books.state().book(&token).is_none() {
//!     match tokio::time::timeout(Duration::from_secs(5), books.next()).await?.ok_or("closed")? {
//!         FeedEvent::Status(Status::Connected { .. }) => println!("connected"),
//!         FeedEvent::Invalid { error, .. } => println!("skipped a bad element: {error}"),
//!         _ => {}
//!     }
//! }
//! let book = books.state().book(&token).ok_or("no book")?; // live books only
//! println!("bid {:?} ask {:?} mid {:?}", book.best_bid(), book.best_ask(), book.mid());
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`feed`] | the one feed machine: [`Feed`](feed::Feed), its builder and handle, the [`Handler`](feed::Handler) trait, owned [`FeedEvent`](feed::FeedEvent)s, conflation and [`Lag`](feed::Lag), raw [`Frames`](feed::Frames) |
//! | [`market`] | [`MarketStream`](market::MarketStream): sharded market-channel connections keeping a [`BookManager`](crate::book::BookManager) |
//! | `user` (private) | the user channel's policy and wire; its feed is [`account::user_events`](crate::account::user_events) |
//! | [`follow`] | [`FollowNewMarkets`](follow::FollowNewMarkets): subscribe the tokens of `new_market` events that pass a filter |
//! | [`trust`] | [`Trust`](trust::Trust) per key, and the table behind it |
//! | [`continuity`] | the continuity contract of every feed: one [`Break`](continuity::Break) per break, the table of breaks and recoveries |
//! | [`event`] | frames (borrowed and owned), connection status changes and why a connection failed or ended ([`ConnectError`](event::ConnectError), [`Disconnect`](event::Disconnect)) |
//! | [`connection`] | one connection's lifecycle: keepalive, watchdog, reconnect, epochs, lag, close frames |
//! | [`backoff`] | backoff in steps, with jitter |
//! | [`StreamCounters`] | a feed's counters (connects, breaks, frames, bytes, decode errors, hash mismatches, conflated) |
//! | [`subscribe`] | the CLOB channels' subscription messages |
//!
//! ## What one message stands for
//!
//! Feeds that report the same trade count it differently; a bot joining two of them must know
//! the unit of each, or it counts a fill twice.
//!
//! | feed | one message (or row) is |
//! |---|---|
//! | market channel `book` | one asset's whole book (a snapshot) |
//! | market channel `price_change` | one market's level changes; each entry names its asset, price and side |
//! | market channel `last_trade_price` | one trade print of one asset |
//! | user channel `trade` (`account::user_events::UserEvent::Trade`) | one trade of the user's (its id), the maker orders it filled listed inside; sent again on each settlement status (the user feed delivers each status once, in order, `first` on the first) |
//! | user channel `order` | one change of one of the user's orders (placement, match, cancellation) |
//! | CLOB `GET /data/trades` | one trade, as the user channel's `trade` (the reconciliation's source) |
//! | RTDS `activity` / `orders_matched` ([`rtds`](crate::rtds)) | one **maker order** of a match: a trade against three makers is three messages (group by `transactionHash`) |
//! | Data API trades ([`data`](crate::data)) | one transaction |
//! | PolyBolt ([`polybolt`](crate::polybolt)) | one price of one subscription (channel + symbol); a snapshot holds a short history |
//! | sports socket ([`sports`](crate::sports)) | one game's current state |
//!
//! Frames are decoded by the top-level [`decode`](crate::decode) module (bytes in, borrowed
//! events out) and applied to books by [`book`](crate::book); this module holds the connections and the
//! streams that join the three. The user channel's events as account state (flat orders and
//! trades, the recovery after a break) are the account layer's (`polyclob::account`).
//!
//! [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

pub mod backoff;
pub mod connection;
pub mod continuity;
mod counters;
pub mod event;
pub mod feed;
pub mod follow;
mod handler;
pub mod market;
pub(crate) mod shards;
pub mod subscribe;
mod transport;
pub mod trust;
pub(crate) mod user;

pub use counters::StreamCounters;
pub use feed::BuildError;
pub use shards::Closed;
