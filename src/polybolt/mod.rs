//! PolyBolt: Polymarket's reference prices (crypto, crypto TWAP, equity, equity TWAP), exact,
//! with a continuity contract ([PolyBolt WebSocket], [migration guide]).
//!
//! PolyBolt replaced the RTDS price topics on 2026-09-23 ([`crate::rtds`] keeps the
//! `activity` topic). Every price channel needs CLOB API credentials.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use polyclob::polybolt::{PolyBoltHandler, PolyBoltStream, BoltSubscription};
//! use polyclob::polybolt::decode::{BoltMessage, BoltPayload};
//! use polyclob::rtds::RefPrice;
//! use polyclob::ws::continuity::Break;
//! use polyclob::ws::event::Frame;
//! use polyclob::clob::Credentials;
//!
//! struct Twap { open: Option<RefPrice> }
//! impl PolyBoltHandler for Twap {
//!     fn on_message(&mut self, msg: &BoltMessage<'_>, _: &Frame<'_>) {
//!         if let BoltMessage::Data(env) = msg {
//!             if let BoltPayload::Price(p) = env.payload {
//!                 let open = *self.open.get_or_insert(p.price);
//!                 println!("{} {} ({} bp)", p.symbol, p.price, p.price.bps_from(open).unwrap_or_default());
//!             }
//!         }
//!     }
//!     fn on_break(&mut self, b: &Break) {
//!         println!("{b}"); // history has a hole until the next snapshot
//!     }
//! }
//!
//! let mut stream = PolyBoltStream::builder()
//!     .credentials(Credentials::new("key", "secret", "passphrase"))
//!     .subscribe(BoltSubscription::crypto_twap("btcusd"))
//!     .build()?;
//! stream.run(&mut Twap { open: None }).await;
//! # Ok(()) }
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | [`decode`] | borrowed, allocation-free views of frames: envelopes, prices, snapshots, acknowledgements |
//! | [`subscription`] | [`BoltSubscription`]s, the documented limits and [`LimitError`] |
//! | [`stream`] | [`PolyBoltStream`]: auth, subscribe, keepalive, close-code policy, continuity; zero-copy [`PolyBoltHandler`] and owned [`PolyBoltEvent`] tiers |
//!
//! Prices are [`RefPrice`](crate::rtds::RefPrice)s (the crate's one exact reference-price
//! type), parsed from `full_accuracy_value`, with [`bps_from`](crate::rtds::RefPrice::bps_from),
//! [`abs_diff`](crate::rtds::RefPrice::abs_diff) and checked arithmetic.
//!
//! [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview
//! [migration guide]: https://docs.polymarket.com/migrate/rtds-to-polybolt

pub mod decode;
pub mod stream;
pub mod subscription;

pub use decode::Channel;
pub use stream::{
    OwnedBoltMessage, POLYBOLT_URL, PolyBoltEvent, PolyBoltHandle, PolyBoltHandler, PolyBoltStream,
    PolyBoltStreamBuilder,
};
pub use subscription::{BoltSubscription, LimitError, Provider};
