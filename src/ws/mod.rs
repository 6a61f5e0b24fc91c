//! Polymarket WebSocket channels ([Polymarket WSS overview]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use futures_util::StreamExt;
//! use polyclob::ws::books::{BookEvent, BookStream};
//! use polyclob::ws::event::Status;
//! use polyclob::ws::market::MarketStream;
//! use std::time::Duration;
//!
//! // Connects lazily, subscribes, pings, reconnects with backoff, resubscribes.
//! let stream = MarketStream::builder()
//!     .url(sim.market_ws_url()) // default: Polymarket's market channel
//!     .assets([token.clone()])
//!     .build()?;
//! let mut books = BookStream::new(stream); // keeps a BookManager current
//! while books.books().book(&token).is_none() {
//!     match tokio::time::timeout(Duration::from_secs(5), books.next()).await?.ok_or("closed")? {
//!         BookEvent::Status(Status::Connected { .. }) => println!("connected"),
//!         BookEvent::Invalid { error, .. } => println!("skipped a bad element: {error}"),
//!         _ => {}
//!     }
//! }
//! let book = books.books().book(&token).ok_or("no book")?;
//! println!("bid {:?} ask {:?} mid {:?}", book.best_bid(), book.best_ask(), book.mid());
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`books`] | streams feeding a [`BookManager`](crate::book::BookManager): zero-copy [`BookFeed`](books::BookFeed), owned [`BookStream`](books::BookStream) |
//! | [`decoded`] | [`DecodedStream`](decoded::DecodedStream): any stream's frames as owned decoded events |
//! | [`market`] | [`MarketStream`](market::MarketStream): sharded market-channel connections |
//! | [`user`] | [`UserStream`](user::UserStream): the authenticated user channel |
//! | [`follow`] | [`FollowNewMarkets`](follow::FollowNewMarkets): subscribe the tokens of `new_market` events that pass a filter |
//! | [`event`] | frames (borrowed and owned), status changes, the zero-copy [`Handler`](event::Handler) |
//! | [`connection`] | one shard's lifecycle: keepalive, watchdog, reconnect, epochs, lag |
//! | [`StreamCounters`] | a stream's counters (connects, breaks, frames, bytes, decode errors, hash mismatches) |
//! | [`continuity`] | the continuity contract of every stream: one [`Break`](continuity::Break) per break, the table of breaks and recoveries |
//! | [`backoff`] | exponential backoff with jitter |
//! | [`subscribe`] | subscription message formats, user credentials |
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
//! | user channel `trade` (`account::user_events::UserEvent::Trade`) | one trade of the user's (its id), the maker orders it filled listed inside; sent again on each settlement status (`account::user_events::UserEvents` removes the repeats) |
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
pub mod books;
pub mod connection;
pub mod continuity;
mod counters;
pub mod decoded;
pub mod event;
pub mod follow;
pub mod market;
pub(crate) mod options;
pub(crate) mod shards;
pub mod subscribe;
mod transport;
pub mod user;

pub use counters::StreamCounters;
pub use options::BuildError;
pub use shards::Closed;
