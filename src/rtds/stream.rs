//! [`RtdsStream`]: the RTDS connection as a feed ([`ws::feed`](crate::ws::feed)).
//!
//! One connection carries every subscription: it sends the text `PING` every 5 s as the docs
//! ask ([Polymarket RTDS]), replaces a silent or broken connection with backoff, re-sends
//! every subscription after a reconnect, and reports a consumer that falls behind. Any message
//! from the server answers a `PING` (the RTDS server is not documented to reply `PONG`).
//!
//! Trust is per (topic, symbol): after a break a symbol is untrusted until its next price
//! (the socket has no sequence numbers and no snapshot; a filtered subscription's history dump
//! also restores it). Activity has no key: what was missed during an outage is not replayed.
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

use std::collections::BTreeSet;
use std::time::Duration;

use crate::decode::DecodeError;
use crate::ws::Closed;
use crate::ws::backoff::Jitter;
use crate::ws::connection::Policy;
use crate::ws::continuity::StreamKind;
use crate::ws::event::{OwnedFrame, Status};
use crate::ws::feed::{
    BuildError, Control, Cx, Decoder, Feed, FeedBuilder, Handler, Owned, Reread, Sealed, Wire,
};
use crate::ws::shards::Shards;
use crate::ws::subscribe::Op;
use crate::ws::trust::{Keys, Trust, with_key};

use super::decode::{Message, Payload, decode, decode_bytes};
use super::subscription::Subscription;

/// Polymarket's production RTDS endpoint.
pub(crate) const RTDS_URL: &str = "wss://ws-live-data.polymarket.com";

/// The keepalive interval the RTDS docs ask for.
pub(crate) const RTDS_PING_INTERVAL: Duration = Duration::from_secs(5);

/// RTDS's policy: text `PING` every 5 s ([Polymarket RTDS]), any inbound frame answers it,
/// dead after 15 s without one (three pings); backoff 1 s → 30 s with full jitter, reset after
/// 30 s up (our choice: the docs give none); no close codes are documented.
///
/// [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds
const POLICY: Policy = Policy {
    kind: StreamKind::Rtds,
    url: RTDS_URL,
    keepalive: Some("PING"),
    any_frame_answers: true,
    ping_interval: RTDS_PING_INTERVAL,
    pong_timeout: Duration::from_secs(15),
    silence_timeout: Duration::from_secs(15),
    backoff: (Duration::from_secs(1), Duration::from_secs(30)),
    jitter: Jitter::Full,
    healthy_after: Duration::from_secs(30),
    closes: &[],
};

/// `{"action":"subscribe"|"unsubscribe","subscriptions":[…]}` from subscription objects
/// already rendered by [`Subscription::to_json`].
#[derive(Debug)]
struct RtdsWire;

impl Wire for RtdsWire {
    fn initial(&self, out: &mut String, ids: &BTreeSet<String>) -> bool {
        let ids: Vec<String> = ids.iter().cloned().collect();
        self.operation(out, &ids, Op::Subscribe);
        true
    }
    fn operation(&self, out: &mut String, subs: &[String], op: Op) {
        request(out, op, subs);
    }
    fn control(&self, text: &str) -> Control {
        if text.eq_ignore_ascii_case("pong") {
            Control::Pong
        } else {
            Control::Data
        }
    }
    fn connects_empty(&self) -> bool {
        false
    }
}

/// `{"action":…,"subscriptions":[…]}` into `out`.
pub(crate) fn request(out: &mut String, op: Op, subs: &[String]) {
    out.clear();
    out.push_str("{\"action\":\"");
    out.push_str(op.as_str());
    out.push_str("\",\"subscriptions\":[");
    out.push_str(&subs.join(","));
    out.push_str("]}");
}

/// The live RTDS connection.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::rtds::{RtdsStream, Subscription};
/// use polyclob::rtds::decode::Payload;
/// use polyclob::ws::feed::FeedEvent;
///
/// let mut stream = RtdsStream::builder()
///     .subscribe(Subscription::crypto_prices(["btcusdt"]))
///     .build()?;
/// while let Some(ev) = stream.next().await {
///     if let FeedEvent::Message(m) = ev {
///         if let Payload::Price(p) = m.message()?.payload {
///             let trusted = stream.trust(("crypto_prices", p.symbol)).is_trusted();
///             println!("{} {} (trusted: {trusted})", p.symbol, p.price);
///         }
///     }
/// }
/// # Ok(()) }
/// ```
pub type RtdsStream = Feed<RtdsFeed>;

/// RTDS's decoder; its state is the trust of each (topic, symbol).
#[derive(Debug, Default)]
pub struct RtdsFeed {
    keys: Keys,
}

/// An RTDS message that owns its frame.
pub type OwnedMessage = Owned<RtdsFeed>;

impl Feed<RtdsFeed> {
    /// A builder with RTDS's policy (a `PING` every 5 s, as the RTDS docs ask, to
    /// `wss://ws-live-data.polymarket.com`).
    #[must_use]
    pub fn builder() -> FeedBuilder<RtdsFeed> {
        FeedBuilder::new(RtdsFeed::default(), &POLICY)
    }
}

impl FeedBuilder<RtdsFeed> {
    /// Adds a subscription sent on connect (and re-sent after every reconnect). Default is
    /// none: the connection opens with the first subscription.
    #[must_use]
    pub fn subscribe(mut self, sub: Subscription) -> Self {
        self.opts.ids.push(sub.to_json());
        self
    }
}

/// The (topic, symbol) a price message re-establishes.
fn price_key<'a>(msg: &Message<'a>) -> Option<(&'a str, &'a str)> {
    match msg.payload {
        Payload::Price(p) => Some((msg.topic, p.symbol)),
        Payload::PriceHistory(h) => Some((msg.topic, h.symbol)),
        _ => None,
    }
}

impl Sealed for RtdsFeed {
    type Sub = Subscription;
    type Refused = Closed;
    type Remote = ();

    fn render(sub: Subscription) -> String {
        sub.to_json()
    }
    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        Ok(Box::new(RtdsWire))
    }
    fn remote(&mut self) {}
    fn state(&self) -> &Keys {
        &self.keys
    }
    fn trust(keys: &Keys, (topic, symbol): (&str, &str)) -> Trust {
        with_key(format_args!("{topic}|{symbol}"), |k| keys.trust(k))
    }
    fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, _: &Shards, h: &mut H, _: bool) {
        // A text frame was validated as UTF-8 by the transport: not again.
        let msg = match f
            .as_str()
            .map_or_else(|| decode_bytes(f.as_bytes()), decode)
        {
            Ok(msg) => msg,
            Err(e) => return h.on_invalid(&e, &Cx::new(Some(f), &self.keys)),
        };
        if let Some((topic, symbol)) = price_key(&msg) {
            with_key(format_args!("{topic}|{symbol}"), |k| {
                self.keys.establish(k, f.shard(), None);
            });
        }
        h.on_message(&msg, &Cx::new(Some(f), &self.keys));
    }
    fn status(&mut self, status: &Status, _: &Shards) {
        self.keys.break_shard(status.shard());
    }
    fn to_owned(_: &Message<'_>, cx: &Cx<'_, Self>) -> OwnedMessage {
        Owned::new(cx)
    }
    fn conflation_key(msg: &Message<'_>, key: &mut String) -> bool {
        price_key(msg)
            .map(|(topic, symbol)| {
                key.push_str(topic);
                key.push('|');
                key.push_str(symbol);
            })
            .is_some()
    }
}

impl Reread for RtdsFeed {
    fn reread(frame: &[u8]) -> Result<Message<'_>, DecodeError> {
        decode_bytes(frame)
    }
}

impl Decoder for RtdsFeed {
    type Message<'a> = Message<'a>;
    type Owned = OwnedMessage;
    type Key<'a> = (&'a str, &'a str);
    type State = Keys;
}
