//! PolyBolt subscriptions (`{"channel","filter"}` with `filter` a JSON object) and the limits
//! the server enforces, checked locally first.

use core::fmt;

use super::decode::Channel;
use crate::json::escape::push_string;

/// Active `(channel, filter)` pairs per connection (beyond: `sub_limit`, close 4008).
pub const MAX_SUBSCRIPTIONS: usize = 64;
/// Subscribe or unsubscribe frames per second (a batch counts once; beyond: close 4008).
pub const MAX_SUBSCRIBE_FRAMES_PER_SEC: usize = 20;
/// Largest frame the server accepts (beyond: close 4008).
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// Auth frames per connection (beyond: close 4008). The stream sends exactly one per
/// connection, so it never reaches this.
pub const MAX_AUTH_FRAMES: usize = 8;
/// Longest JSON one subscription may render to: 64 of them plus the frame's envelope stay
/// under [`MAX_FRAME_BYTES`], so no subscribe frame (a full resubscription included) can
/// exceed it.
pub const MAX_SUBSCRIPTION_BYTES: usize = 1000;

/// A price provider to pin on the equity channels (the server may fall back; the
/// `subscribed` acknowledgement names the provider served).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Provider {
    /// Chainlink (the default wherever it serves the symbol).
    Chainlink,
    /// Pyth.
    Pyth,
}

impl Provider {
    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Chainlink => "chainlink",
            Self::Pyth => "pyth",
        }
    }
}

/// One PolyBolt subscription.
///
/// ```
/// use polyclob::polybolt::{Provider, BoltSubscription};
/// assert_eq!(
///     BoltSubscription::crypto_twap("BTCUSD").to_json(),
///     r#"{"channel":"price.crypto.twap","filter":{"symbol":"btcusd","window_seconds":60}}"#
/// );
/// assert_eq!(
///     BoltSubscription::equity("xauusd").provider(Provider::Pyth).to_json(),
///     r#"{"channel":"price.equity","filter":{"symbol":"xauusd","provider":"pyth"}}"#
/// );
/// assert_eq!(
///     BoltSubscription::polymarket("2174").to_json(),
///     r#"{"channel":"price.polymarket","filter":{"asset_id":"2174"}}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoltSubscription {
    channel: Channel,
    /// The symbol, or the asset id on `price.polymarket`.
    symbol: String,
    provider: Option<Provider>,
}

/// The only TWAP window PolyBolt serves.
const TWAP_WINDOW: u32 = 60;

impl BoltSubscription {
    /// A subscription to `channel` for `symbol` (lower-cased, as the server wants; TWAP
    /// channels get `window_seconds: 60`, the only window served). On
    /// [`Channel::Polymarket`] `symbol` is the token id, sent as given.
    #[must_use]
    pub fn new(channel: Channel, symbol: &str) -> Self {
        Self {
            channel,
            symbol: if channel == Channel::Polymarket {
                symbol.to_owned()
            } else {
                symbol.to_ascii_lowercase()
            },
            provider: None,
        }
    }

    /// `price.polymarket` for the token `asset_id` (its decimal token id): best bid, best ask
    /// and book hash. Public: needs no credentials.
    #[must_use]
    pub fn polymarket(asset_id: &str) -> Self {
        Self::new(Channel::Polymarket, asset_id)
    }

    /// `price.crypto` for `symbol` (`btcusd`: lower-case, `usd`-quoted).
    #[must_use]
    pub fn crypto(symbol: &str) -> Self {
        Self::new(Channel::Crypto, symbol)
    }

    /// `price.crypto.twap` (60 s) for `symbol` (`btcusd`).
    #[must_use]
    pub fn crypto_twap(symbol: &str) -> Self {
        Self::new(Channel::CryptoTwap, symbol)
    }

    /// `price.equity` for `symbol` (`aapl`, `eurusd`, `xauusd`, `cll` …).
    #[must_use]
    pub fn equity(symbol: &str) -> Self {
        Self::new(Channel::Equity, symbol)
    }

    /// `price.equity.twap` (60 s) for `symbol` (`eurusd`, `usdjpy`).
    #[must_use]
    pub fn equity_twap(symbol: &str) -> Self {
        Self::new(Channel::EquityTwap, symbol)
    }

    /// Pins a provider (`filter.provider`). Default: none (the symbol's default provider).
    #[must_use]
    pub fn provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The channel.
    #[must_use]
    pub fn channel(&self) -> Channel {
        self.channel
    }

    /// The symbol (lower case), or the token id on `price.polymarket`: what the filter
    /// names.
    #[must_use]
    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    /// The subscription object as sent.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(64 + self.symbol.len());
        out.push_str("{\"channel\":\"");
        out.push_str(self.channel.as_str());
        out.push_str(if self.channel == Channel::Polymarket {
            "\",\"filter\":{\"asset_id\":"
        } else {
            "\",\"filter\":{\"symbol\":"
        });
        push_string(&mut out, &self.symbol);
        if self.channel.is_twap() {
            out.push_str(",\"window_seconds\":");
            out.push_str(&TWAP_WINDOW.to_string());
        }
        if let Some(p) = self.provider {
            out.push_str(",\"provider\":\"");
            out.push_str(p.as_str());
            out.push('"');
        }
        out.push_str("}}");
        out
    }
}

/// A request the server would refuse (and answer with close 4008), refused locally instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimitError {
    /// More than [`MAX_SUBSCRIPTIONS`] active subscriptions.
    Subscriptions {
        /// Active now.
        active: usize,
        /// New ones asked for.
        adding: usize,
    },
    /// More than [`MAX_SUBSCRIBE_FRAMES_PER_SEC`] subscribe/unsubscribe calls within one
    /// second.
    Rate,
    /// One subscription renders to more than [`MAX_SUBSCRIPTION_BYTES`] (so a frame could
    /// exceed [`MAX_FRAME_BYTES`]).
    FrameTooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The stream has shut down.
    Closed,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Subscriptions { active, adding } => write!(
                f,
                "PolyBolt allows {MAX_SUBSCRIPTIONS} subscriptions per connection: {active} active, {adding} more asked"
            ),
            Self::Rate => write!(
                f,
                "PolyBolt allows {MAX_SUBSCRIBE_FRAMES_PER_SEC} subscribe/unsubscribe frames per second"
            ),
            Self::FrameTooLarge { bytes } => write!(
                f,
                "a PolyBolt subscription of {bytes} bytes exceeds {MAX_SUBSCRIPTION_BYTES} (frames are limited to {MAX_FRAME_BYTES} bytes)"
            ),
            Self::Closed => f.write_str("the PolyBolt stream has shut down"),
        }
    }
}

impl std::error::Error for LimitError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_limits_fit() {
        assert_eq!(
            BoltSubscription::crypto("btcusd").to_json(),
            r#"{"channel":"price.crypto","filter":{"symbol":"btcusd"}}"#
        );
        assert_eq!(
            BoltSubscription::crypto("a\"b").to_json(),
            r#"{"channel":"price.crypto","filter":{"symbol":"a\"b"}}"#
        );
        // 64 subscriptions of the largest allowed size plus the envelope fit a frame.
        let envelope = r#"{"op":"subscribe","subscriptions":[]}"#.len();
        assert!(MAX_SUBSCRIPTIONS * (MAX_SUBSCRIPTION_BYTES + 1) + envelope <= MAX_FRAME_BYTES);
    }
}
