//! The sports socket: live `sport_result` messages (scores, periods, status) for every active
//! game ([Sports WebSocket]). Public: no credentials, no subscribe message.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt;
//! use polyclob::sports::{SportsEvent, SportsStream};
//!
//! let mut sports = SportsStream::builder().build()?; // answers the server's pings itself
//! while let Some(ev) = sports.next().await {
//!     match ev {
//!         SportsEvent::Result(r) => {
//!             let r = r.result()?;
//!             println!("{} {:?} {:?}", r.key, r.score, r.period);
//!         }
//!         SportsEvent::Break(b) => println!("{b}"),
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`decode`] | the borrowed, allocation-free [`SportResult`](decode::SportResult) |
//! | [`stream`] | [`SportsStream`]: connect, answer `ping`, watchdog, reconnect; zero-copy [`SportsHandler`] and owned [`SportsEvent`] tiers |
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

pub mod decode;
pub mod stream;

pub use stream::{
    OwnedSportResult, SPORTS_URL, SportsEvent, SportsHandler, SportsStream, SportsStreamBuilder,
};
