//! PolyBolt: Polymarket's reference prices (crypto, crypto TWAP, equity, equity TWAP), exact,
//! with a continuity contract ([PolyBolt WebSocket], [migration guide]).
//!
//! PolyBolt replaced the RTDS price topics on 2026-09-23 ([`crate::rtds`] keeps the
//! `activity` topic). Every price channel needs CLOB API credentials.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use polyclob::clob::Credentials;
//! use polyclob::polybolt::decode::{BoltMessage, BoltPayload};
//! use polyclob::polybolt::{BoltFeed, BoltSubscription, Channel, PolyBoltStream};
//! use polyclob::rtds::RefPrice;
//! use polyclob::ws::continuity::Break;
//! use polyclob::ws::feed::{Cx, Handler};
//!
//! struct Twap { open: Option<RefPrice> }
//! impl Handler<BoltFeed> for Twap {
//!     fn on_message(&mut self, msg: &BoltMessage<'_>, cx: &Cx<'_, BoltFeed>) {
//!         if let BoltMessage::Data(env) = msg {
//!             if let BoltPayload::Price(p) = env.payload {
//!                 let open = *self.open.get_or_insert(p.price);
//!                 let trusted = cx.trust((Channel::CryptoTwap, p.symbol)).is_trusted();
//!                 println!("{} {} ({} bp, trusted: {trusted})", p.symbol, p.price, p.price.bps_from(open).unwrap_or_default());
//!             }
//!         }
//!     }
//!     fn on_break(&mut self, b: &Break, _: &Cx<'_, BoltFeed>) {
//!         println!("{b}"); // each key is untrusted until its own next snapshot
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
//! | [`stream`] | [`PolyBoltStream`]: the PolyBolt feed (auth, subscriptions, its close-code and error-ack policy, sequence checks, trust per key) on [`ws::feed`](crate::ws::feed) |
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
pub use stream::{BoltFeed, OwnedBoltMessage, PolyBoltStream};
pub use subscription::{BoltSubscription, LimitError, Provider};
