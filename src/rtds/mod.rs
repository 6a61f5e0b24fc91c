//! The real-time data socket (RTDS): crypto prices (Binance and Chainlink), equity prices,
//! comments and matched-order activity ([Polymarket RTDS]).
//!
//! **The price topics are deprecated.** Since 2026-09-23 Polymarket serves reference prices on
//! PolyBolt ([`crate::polybolt`]) and has announced the removal of the RTDS price topics
//! (`crypto_prices`, `crypto_prices_chainlink`, `crypto_prices_twap_*`, `equity_prices`) about a
//! month later ([migration guide]). Mapping: `crypto_prices` and `crypto_prices_chainlink` →
//! `price.crypto` (`btcusd`, now Pyth by default); `crypto_prices_twap_sixty` →
//! `price.crypto.twap` (`window_seconds: 60`); `equity_prices` → `price.equity` (lower-case
//! symbols). The 30 s TWAP and the `comments` topic have no successor. The `activity` topic
//! stays on RTDS.
//!
//! Granularity: `activity`/`orders_matched` sends **one message per maker order** of a match,
//! while the Data API's trades report one row per transaction; a copy-trader following both
//! must group RTDS rows by `transactionHash` before comparing, or it copies a fill twice.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder()
//! #     .rtds_interval(std::time::Duration::from_millis(20))
//! #     .start()
//! #     .await?;
//! use futures_util::StreamExt;
//! use polyclob::rtds::{RtdsStream, Subscription, decode::Payload};
//! use polyclob::ws::feed::FeedEvent;
//! use std::time::Duration;
//!
//! let mut rtds = RtdsStream::builder()
//!     .url(sim.rtds_url()) // default: Polymarket's RTDS
//!     .subscribe(Subscription::crypto_prices(["btcusdt"]))
//!     .build()?;
//! loop {
//!     let event = tokio::time::timeout(Duration::from_secs(5), rtds.next()).await?.ok_or("closed")?;
//!     if let FeedEvent::Message(m) = event {
//!         if let Payload::Price(p) = m.message()?.payload {
//!             println!("{} {} at {:?} ms", p.symbol, p.price, p.timestamp_ms); // exact to 10⁻¹⁸
//!             break;
//!         }
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`decode`] | borrowed, allocation-free views of RTDS messages |
//! | [`subscription`] | [`Subscription`]s and the messages that carry them |
//! | [`ref_price`] | [`RefPrice`]: reference prices exact to 10⁻¹⁸ |
//! | [`stream`] | [`RtdsStream`]: the RTDS feed (its policy, subscriptions, trust per symbol) on [`ws::feed`](crate::ws::feed) |
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds
//! [migration guide]: https://docs.polymarket.com/migrate/rtds-to-polybolt

pub mod decode;
pub mod ref_price;
pub mod stream;
pub mod subscription;

pub use ref_price::{Bps, RefPrice};
pub use stream::{OwnedMessage, RtdsFeed, RtdsStream};
pub use subscription::{ActivityFilter, Subscription, TwapWindow};
