//! The real-time data socket (RTDS): crypto prices (Binance and Chainlink), equity prices,
//! comments and matched-order activity ([Polymarket RTDS]).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder()
//! #     .rtds_interval(std::time::Duration::from_millis(20))
//! #     .start()
//! #     .await?;
//! use futures_util::StreamExt;
//! use polyclob::rtds::{RtdsEvent, RtdsStream, Subscription, decode::Payload};
//! use std::time::Duration;
//!
//! let mut rtds = RtdsStream::builder()
//!     .url(sim.rtds_url()) // default: Polymarket's RTDS
//!     .subscribe(Subscription::crypto_prices(["btcusdt"]))
//!     .build()?;
//! loop {
//!     let event = tokio::time::timeout(Duration::from_secs(5), rtds.next()).await?.ok_or("closed")?;
//!     if let RtdsEvent::Message(m) = event {
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
//! | [`stream`] | [`RtdsStream`]: the connection (keepalive, watchdog, reconnect, resubscribe, lag), zero-copy [`RtdsHandler`] and owned [`RtdsEvent`] tiers |
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

pub mod decode;
pub mod ref_price;
pub mod stream;
pub mod subscription;

pub use ref_price::RefPrice;
pub use stream::{
    OwnedMessage, RTDS_PING_INTERVAL, RTDS_URL, RtdsEvent, RtdsHandle, RtdsHandler, RtdsStream,
    RtdsStreamBuilder,
};
pub use subscription::{ActivityFilter, Subscription, TwapWindow};
