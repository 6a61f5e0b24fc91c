//! The sports socket: live `sport_result` messages (scores, periods, status) for every active
//! game ([Sports WebSocket]). Public: no credentials, no subscribe message.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt;
//! use polyclob::sports::SportsStream;
//! use polyclob::ws::feed::FeedEvent;
//!
//! let mut sports = SportsStream::builder().build()?; // the transport answers the server's pings
//! while let Some(ev) = sports.next().await {
//!     match ev {
//!         FeedEvent::Message(r) => {
//!             let r = r.message()?;
//!             println!("{} {:?} {:?}", r.key, r.score, r.period);
//!         }
//!         FeedEvent::Break(b) => println!("{b}"),
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`decode`] | the borrowed, allocation-free [`SportResult`](decode::SportResult) |
//! | [`stream`] | [`SportsStream`]: the sports feed (liveness in missed server pings, trust per game) on [`ws::feed`](crate::ws::feed) |
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

pub mod decode;
pub mod stream;

pub use stream::{OwnedSportResult, SportsFeed, SportsStream};
