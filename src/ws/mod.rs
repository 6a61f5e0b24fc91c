//! Polymarket WebSocket channels ([Polymarket WSS overview]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob::sim::Simulator::builder().start().await?;
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
//! | [`decode`] | borrowed, allocation-free views of market- and user-channel frames |
//! | [`books`] | streams feeding a [`BookManager`](crate::book::BookManager): zero-copy [`BookFeed`](books::BookFeed), owned [`BookStream`](books::BookStream) |
//! | [`decoded`] | [`DecodedStream`](decoded::DecodedStream): any stream's frames as owned decoded events |
//! | [`market`] | [`MarketStream`](market::MarketStream): sharded market-channel connections |
//! | [`user`] | [`UserStream`](user::UserStream): the authenticated user channel |
//! | [`follow`] | [`FollowNewMarkets`](follow::FollowNewMarkets): subscribe the tokens of `new_market` events that pass a filter |
//! | [`event`] | frames (borrowed and owned), status changes, the zero-copy [`Handler`](event::Handler) |
//! | [`connection`] | one shard's lifecycle: keepalive, watchdog, reconnect, epochs, lag |
//! | [`backoff`] | exponential backoff with jitter |
//! | [`subscribe`] | subscription message formats, user credentials |
//!
//! [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

// `pub(crate)`: the book-hash check (`book::integrity`) scans with the same helpers.
pub(crate) mod json;

pub mod backoff;
pub mod books;
pub mod connection;
pub mod decode;
pub mod decoded;
pub mod event;
pub mod follow;
pub mod market;
pub(crate) mod options;
pub(crate) mod shards;
pub mod subscribe;
mod transport;
pub mod user;
// The decoder's SSE2 string-end scan, compiled by rustc >= 1.89 only (`polyclob_simd`, see
// build.rs). The `unsafe` of `ws` is here (the SSE2 intrinsic calls and 16-byte loads) and in
// `json::chunk` (a fixed-size read after its bounds check).
#[cfg(polyclob_simd)]
#[allow(unsafe_code)]
#[clippy::msrv = "1.89"]
mod x86;

pub use options::BuildError;
pub use shards::Closed;
