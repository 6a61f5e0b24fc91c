//! RTDS subscriptions and the `subscribe`/`unsubscribe` messages that carry them.
//!
//! Format ([Polymarket RTDS]): `{"action":"subscribe"|"unsubscribe","subscriptions":[{"topic",
//! "type","filters"?,"gamma_auth"?:{"address"}}]}`. `filters` is a string: a comma-separated
//! symbol list for `crypto_prices` (`"solusdt,btcusdt"`), a JSON object sent as an escaped
//! string for the other topics (`"{\"symbol\":\"btc/usd\"}"`). Subscriptions can be added and
//! removed on an open connection; the stream re-sends all of them after a reconnect.
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

use crate::json::escape::push_string;
use std::fmt;

/// One RTDS subscription: a topic, a message type (`*` for all) and an optional filter.
///
/// ```
/// use polyclob::rtds::Subscription;
///
/// let s = Subscription::crypto_prices(["btcusdt", "ethusdt"]);
/// assert_eq!(s.to_json(), r#"{"topic":"crypto_prices","type":"update","filters":"btcusdt,ethusdt"}"#);
/// let s = Subscription::chainlink_prices(Some("btc/usd"));
/// assert_eq!(s.to_json(), r#"{"topic":"crypto_prices_chainlink","type":"*","filters":"{\"symbol\":\"btc/usd\"}"}"#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subscription {
    topic: String,
    kind: String,
    filters: Option<String>,
    gamma_address: Option<String>,
}

/// The averaging window of a Chainlink TWAP topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TwapWindow {
    /// `crypto_prices_twap_thirty`.
    Thirty,
    /// `crypto_prices_twap_sixty`.
    Sixty,
}

/// What an `activity` subscription is narrowed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActivityFilter<'a> {
    /// Every market.
    All,
    /// One event, by slug (`{"event_slug":…}`).
    Event(&'a str),
    /// One market, by slug (`{"market_slug":…}`).
    Market(&'a str),
}

impl Subscription {
    /// A subscription to `topic` and message type `kind` (`"*"` for every type), without a
    /// filter.
    ///
    /// ```
    /// use polyclob::rtds::Subscription;
    /// let s = Subscription::new("comments", "*").filters(r#"{"parentEntityID":100,"parentEntityType":"Event"}"#);
    /// assert_eq!(s.topic(), "comments");
    /// ```
    #[must_use]
    pub fn new(topic: impl Into<String>, kind: impl Into<String>) -> Self {
        Self {
            topic: topic.into(),
            kind: kind.into(),
            filters: None,
            gamma_address: None,
        }
    }

    /// Sets the filter string (sent as a JSON string, escaped). Default is none.
    #[must_use]
    pub fn filters(mut self, filters: impl Into<String>) -> Self {
        self.filters = Some(filters.into());
        self
    }

    /// Sets `gamma_auth.address` (a wallet address; some user-specific streams need it).
    /// Default is none.
    #[must_use]
    pub fn gamma_auth(mut self, address: impl Into<String>) -> Self {
        self.gamma_address = Some(address.into());
        self
    }

    /// Binance prices (`crypto_prices`, type `update`) for the given lowercase symbols
    /// (`btcusdt`); an empty list means every symbol.
    ///
    /// **Deprecated topic** (removal announced): use PolyBolt's `price.crypto` (`btcusd`) ([`crate::polybolt`]).
    #[must_use]
    pub fn crypto_prices<I, S>(symbols: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let list: Vec<String> = symbols.into_iter().map(|s| s.as_ref().to_owned()).collect();
        let s = Self::new("crypto_prices", "update");
        if list.is_empty() {
            s
        } else {
            s.filters(list.join(","))
        }
    }

    /// Chainlink prices (`crypto_prices_chainlink`, type `*`) for one symbol (`btc/usd`), or
    /// every symbol with `None`.
    ///
    /// **Deprecated topic** (removal announced): use PolyBolt's `price.crypto` (`btcusd`) ([`crate::polybolt`]).
    #[must_use]
    pub fn chainlink_prices(symbol: Option<&str>) -> Self {
        Self::symbol_filter(Self::new("crypto_prices_chainlink", "*"), symbol)
    }

    /// Chainlink time-weighted averages over `window` for one symbol (`btc/usd`) or all.
    ///
    /// **Deprecated topic** (removal announced): use PolyBolt's `price.crypto.twap` (60 s only; the 30 s window has no successor) ([`crate::polybolt`]).
    #[must_use]
    pub fn chainlink_twap(symbol: Option<&str>, window: TwapWindow) -> Self {
        let topic = match window {
            TwapWindow::Thirty => "crypto_prices_twap_thirty",
            TwapWindow::Sixty => "crypto_prices_twap_sixty",
        };
        Self::symbol_filter(Self::new(topic, "*"), symbol)
    }

    /// Equity prices (`equity_prices`, type `update`) for one symbol (`AAPL`) or all.
    ///
    /// **Deprecated topic** (removal announced): use PolyBolt's `price.equity` (`aapl`) ([`crate::polybolt`]).
    #[must_use]
    pub fn equity_prices(symbol: Option<&str>) -> Self {
        Self::symbol_filter(Self::new("equity_prices", "update"), symbol)
    }

    /// Comments (`comments`) of type `kind` (`comment_created`, `reaction_created` …; `"*"`
    /// for all). Narrow it with [`filters`](Self::filters)
    /// (`{"parentEntityID":…,"parentEntityType":"Event"}`).
    ///
    /// **Retired without a successor** (Polymarket's migration guide).
    #[must_use]
    pub fn comments(kind: &str) -> Self {
        Self::new("comments", kind)
    }

    /// Matched orders (`activity`, type `orders_matched`). The `trades` type of the same
    /// topic is switched off on the live feed (real-time-data-client issue #42).
    ///
    /// ```
    /// use polyclob::rtds::{ActivityFilter, Subscription};
    /// let s = Subscription::orders_matched(ActivityFilter::Market("will-it-rain"));
    /// assert_eq!(s.to_json(), r#"{"topic":"activity","type":"orders_matched","filters":"{\"market_slug\":\"will-it-rain\"}"}"#);
    /// ```
    #[must_use]
    pub fn orders_matched(filter: ActivityFilter<'_>) -> Self {
        let s = Self::new("activity", "orders_matched");
        let (key, slug) = match filter {
            ActivityFilter::All => return s,
            ActivityFilter::Event(slug) => ("event_slug", slug),
            ActivityFilter::Market(slug) => ("market_slug", slug),
        };
        let mut f = String::from("{");
        push_string(&mut f, key);
        f.push(':');
        push_string(&mut f, slug);
        f.push('}');
        s.filters(f)
    }

    fn symbol_filter(s: Self, symbol: Option<&str>) -> Self {
        match symbol {
            None => s,
            Some(sym) => {
                let mut f = String::from("{\"symbol\":");
                push_string(&mut f, sym);
                f.push('}');
                s.filters(f)
            }
        }
    }

    /// The topic.
    #[must_use]
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The message type.
    #[must_use]
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The filter string, if any.
    #[must_use]
    pub fn filter(&self) -> Option<&str> {
        self.filters.as_deref()
    }

    /// The subscription object as sent inside `subscriptions`.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends [`to_json`](Self::to_json) to `out`, reusing its buffer.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"topic\":");
        push_string(out, &self.topic);
        out.push_str(",\"type\":");
        push_string(out, &self.kind);
        if let Some(f) = &self.filters {
            out.push_str(",\"filters\":");
            push_string(out, f);
        }
        if let Some(a) = &self.gamma_address {
            out.push_str(",\"gamma_auth\":{\"address\":");
            push_string(out, a);
            out.push('}');
        }
        out.push('}');
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("topic", &self.topic)
            .field("type", &self.kind)
            .field("filters", &self.filters)
            .field("gamma_address", &self.gamma_address)
            .finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::stream::request as write_request;
    use super::*;
    use crate::ws::subscribe::Op;

    #[test]
    fn messages_match_the_documented_shapes() {
        let subs = [
            Subscription::crypto_prices(Vec::<&str>::new()),
            Subscription::equity_prices(Some("AAPL")),
            Subscription::chainlink_twap(None, TwapWindow::Thirty),
            Subscription::comments("*").gamma_auth("0xab"),
        ];
        let json: Vec<String> = subs.iter().map(Subscription::to_json).collect();
        let mut out = String::new();
        write_request(&mut out, Op::Subscribe, &json);
        assert_eq!(
            out,
            concat!(
                r#"{"action":"subscribe","subscriptions":["#,
                r#"{"topic":"crypto_prices","type":"update"},"#,
                r#"{"topic":"equity_prices","type":"update","filters":"{\"symbol\":\"AAPL\"}"},"#,
                r#"{"topic":"crypto_prices_twap_thirty","type":"*"},"#,
                r#"{"topic":"comments","type":"*","gamma_auth":{"address":"0xab"}}]}"#
            )
        );
        write_request(&mut out, Op::Unsubscribe, &json[..1]);
        assert_eq!(
            out,
            r#"{"action":"unsubscribe","subscriptions":[{"topic":"crypto_prices","type":"update"}]}"#
        );
        // Every message is valid JSON whatever the user put in a filter.
        let odd = Subscription::new("t\"\\", "\n").filters("\u{1}\"{}");
        let v: serde_json::Value = serde_json::from_str(&odd.to_json()).unwrap();
        assert_eq!(v["filters"], "\u{1}\"{}");
        assert_eq!(v["topic"], "t\"\\");
    }
}
