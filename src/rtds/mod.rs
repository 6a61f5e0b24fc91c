//! The real-time data socket (RTDS): crypto prices (Binance and Chainlink), equity prices,
//! comments and matched-order activity ([Polymarket RTDS]).
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
