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
//! | [`user_events`] | [`UserEvents`](user_events::UserEvents): the user channel as flat orders and trades, status repeats removed |
//! | [`follow`] | [`FollowNewMarkets`](follow::FollowNewMarkets): subscribe the tokens of `new_market` events that pass a filter |
//! | [`event`] | frames (borrowed and owned), status changes, the zero-copy [`Handler`](event::Handler) |
//! | [`connection`] | one shard's lifecycle: keepalive, watchdog, reconnect, epochs, lag |
//! | [`StreamCounters`] | a stream's counters (connects, breaks, frames, bytes, decode errors, hash mismatches) |
//! | [`continuity`] | the continuity contract of every stream: one [`Break`](continuity::Break) per break, the table of breaks and recoveries |
//! | [`backoff`] | exponential backoff with jitter |
//! | [`subscribe`] | subscription message formats, user credentials |
//!
//! Frames are decoded by the top-level [`decode`](crate::decode) module (bytes in, borrowed
//! events out) and applied to books by [`book`](crate::book); this module holds the connections and the
//! streams that join the three.
//!
//! [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

pub mod backoff;
pub mod books;
pub mod connection;
pub mod continuity;
mod counters;
/// Moved to [`polyclob::decode`](crate::decode); this path re-exports it for the 0.2 series
/// and will be removed after it.
#[deprecated(since = "0.2.0", note = "moved to `polyclob::decode`")]
pub mod decode {
    #[doc(no_inline)]
    pub use crate::decode::*;
}
pub mod decoded;
pub mod event;
pub mod follow;
pub mod market;
pub(crate) mod options;
pub(crate) mod shards;
pub mod subscribe;
mod transport;
pub mod user;
pub mod user_events;

pub use counters::StreamCounters;
pub use options::BuildError;
pub use shards::Closed;
