//! [`PolyBoltStream`]: the PolyBolt connection as a feed ([`ws::feed`](crate::ws::feed)).
//!
//! One connection carries every subscription. With credentials it first sends one `auth`
//! frame (zeroized after sending, redacted in `Debug`), then — once the server answered
//! `authed` — every subscription in one `subscribe` frame. It sends `{"op":"ping"}` every 5 s;
//! any inbound message answers it and the server's WebSocket pings are answered by the
//! transport, so a stalled connection is replaced within 10 s.
//!
//! What the server says is acted on as the docs say ([PolyBolt WebSocket]): close 4001
//! (authentication), 4008 (policy) and the error acknowledgement `auth_invalid` stop the
//! stream ([`Status::Stopped`], a break whose recovery is
//! `Stop`); `auth_unavailable` and `auth_expired` (temporary) reconnect after the next backoff
//! step and authenticate again; 4003 (draining) reconnects once after a uniform 0–10 s; 4002
//! (slow consumer, two missed pongs), a dropped connection and a refused handshake take the
//! next full-jitter step of 1 s → 30 s (a handshake's `Retry-After` is the minimum).
//!
//! Continuity: `seq` is checked per channel within each connection and `dropped` is read;
//! a loss is a break, and only a new subscription brings a new snapshot, so the connection is
//! replaced — at once after a healthy period, else after its backoff step (sustained loss makes
//! at most one reconnect per step). Trust is per key (channel + symbol): a key is trusted from
//! **its own** snapshot until the next break, and stale after its channel's bound without an
//! update ([`FeedBuilder::stale_after`]).
//!
//! [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clob::Credentials;
use crate::decode::DecodeError;
use crate::json::escape::push_string;
use crate::ws::Closed;
use crate::ws::backoff::Jitter;
use crate::ws::connection::{OnClose, Policy};
use crate::ws::continuity::{Break, Cause, Lost, Recovery, StreamKind};
use crate::ws::event::{OwnedFrame, Status};
use crate::ws::feed::{
    BuildError, Control, Cx, Decoder, Feed, FeedBuilder, Handler, Owned, Reread, Sealed, Wire,
};
use crate::ws::shards::Shards;
use crate::ws::subscribe::Op;
use crate::ws::trust::{Keys, Trust, with_key};

use super::decode::{
    Ack, AckCode, AckOp, BoltMessage, BoltPayload, Channel, Envelope, decode, decode_bytes,
};
use super::subscription::{
    BoltSubscription, LimitError, MAX_SUBSCRIBE_FRAMES_PER_SEC, MAX_SUBSCRIPTION_BYTES,
    MAX_SUBSCRIPTIONS,
};

/// Polymarket's production PolyBolt endpoint.
pub(crate) const POLYBOLT_URL: &str = "wss://ws-live-v2.polymarket.com/ws";

/// PolyBolt's policy ([PolyBolt WebSocket]): `{"op":"ping"}` every 5 s, dead when nothing
/// answers within 5 s (the server pings every 25 s and closes 4002 after two missed pongs);
/// full-jitter backoff 1 s → 30 s, reset after 30 s up; 4001 and 4008 stop, 4003 drains.
///
/// [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview
const POLICY: Policy = Policy {
    kind: StreamKind::PolyBolt,
    url: POLYBOLT_URL,
    keepalive: Some("{\"op\":\"ping\"}"),
    any_frame_answers: true,
    ping_interval: Duration::from_secs(5),
    pong_timeout: Duration::from_secs(5),
    silence_timeout: Duration::from_secs(30),
    backoff: (Duration::from_secs(1), Duration::from_secs(30)),
    jitter: Jitter::Full,
    healthy_after: Duration::from_secs(30),
    closes: &[
        (4001, OnClose::Stop),
        (4003, OnClose::Drain(Duration::from_secs(10))),
        (4008, OnClose::Stop),
    ],
};

/// Channels tracked (one slot each).
const CHANNELS: usize = Channel::ALL.len();

/// How long a key may go without an update before it is [`Trust::Stale`], per channel (our
/// defaults: the docs give no cadence; reference prices tick several times a second, while a
/// `price.polymarket` top changes only when the book's top does: never stale).
const STALE_AFTER: [Option<Duration>; CHANNELS] = {
    let mut s = [Some(Duration::from_secs(60)); CHANNELS];
    s[Channel::Crypto.index()] = Some(Duration::from_secs(5));
    s[Channel::CryptoTwap.index()] = Some(Duration::from_secs(10));
    s[Channel::Polymarket.index()] = None;
    s
};

/// PolyBolt's frames: `auth`, then `{"op":"subscribe"|"unsubscribe","subscriptions":[…]}`.
#[derive(Debug)]
struct BoltWire(Option<Credentials>);

impl Wire for BoltWire {
    fn initial(&self, out: &mut String, ids: &BTreeSet<String>) -> bool {
        let Some(auth) = &self.0 else {
            let ids: Vec<String> = ids.iter().cloned().collect();
            self.operation(out, &ids, Op::Subscribe);
            return !ids.is_empty();
        };
        out.clear();
        out.push_str("{\"op\":\"auth\",\"rid\":\"auth\",\"auth\":{\"apiKey\":");
        push_string(out, auth.api_key());
        out.push_str(",\"secret\":");
        push_string(out, auth.secret());
        out.push_str(",\"passphrase\":");
        push_string(out, auth.passphrase());
        out.push_str("}}");
        true
    }
    fn operation(&self, out: &mut String, subs: &[String], op: Op) {
        out.clear();
        out.push_str("{\"op\":\"");
        out.push_str(op.as_str());
        out.push_str("\",\"subscriptions\":[");
        out.push_str(&subs.join(","));
        out.push_str("]}");
    }
    fn control(&self, text: &str) -> Control {
        // Only acknowledgements carry `op`; data envelopes are not read twice.
        if !text.contains("\"op\"") {
            return Control::Data;
        }
        let Ok(BoltMessage::Ack(ack)) = decode(text) else {
            return Control::Data;
        };
        let code = ack.code.and_then(AckCode::as_str).unwrap_or("");
        match (ack.op, ack.code) {
            (AckOp::Authed, _) => Control::Authed,
            // The docs: fix the credentials.
            (AckOp::Error, Some(AckCode::AuthInvalid)) => Control::Refused { code, stop: true },
            // The docs: temporary; wait, then authenticate again.
            (AckOp::Error, Some(AckCode::AuthUnavailable | AckCode::AuthExpired)) => {
                Control::Refused { code, stop: false }
            }
            _ => Control::Data,
        }
    }
    fn awaits_auth(&self) -> bool {
        self.0.is_some()
    }
    fn secret(&self) -> bool {
        self.0.is_some()
    }
}

/// The live PolyBolt connection.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::clob::Credentials;
/// use polyclob::polybolt::{BoltSubscription, Channel, PolyBoltStream};
/// use polyclob::polybolt::decode::{BoltMessage, BoltPayload};
/// use polyclob::ws::feed::FeedEvent;
///
/// let mut stream = PolyBoltStream::builder()
///     .credentials(Credentials::new("key", "secret", "passphrase"))
///     .subscribe(BoltSubscription::crypto("btcusd"))
///     .build()?;
/// while let Some(ev) = stream.next().await {
///     match ev {
///         FeedEvent::Message(m) => {
///             if let BoltMessage::Data(env) = m.message()? {
///                 if let BoltPayload::Price(p) = env.payload {
///                     let trusted = stream.trust((Channel::Crypto, p.symbol)).is_trusted();
///                     println!("{} {} (trusted: {trusted})", p.symbol, p.price); // exact
///                 }
///             }
///         }
///         FeedEvent::Break(b) => println!("{b}"),
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
pub type PolyBoltStream = Feed<BoltFeed>;

/// PolyBolt's decoder; its state is the trust of each (channel, symbol or token id).
#[derive(Debug, Default)]
pub struct BoltFeed {
    auth: Option<Credentials>,
    /// A subscription needs credentials.
    gated: bool,
    keys: Keys,
    stale_after: [Option<Duration>; CHANNELS],
    /// The connection whose sequence numbers `last` holds.
    epoch: Option<(usize, u64)>,
    last: [Option<u64>; CHANNELS],
    /// The connection this feed asked to replace for new snapshots.
    replacing: Option<(usize, u64)>,
    /// `price.polymarket` tokens of the connection awaiting their snapshot, in the order they
    /// were subscribed (sorted at connect, appended after), each with whether its `subscribed`
    /// came; and the subscription changes counted then.
    awaiting: VecDeque<(String, bool)>,
    awaiting_on: Option<(usize, u64)>,
    changes: u64,
}

/// A PolyBolt frame that owns its buffer.
pub type OwnedBoltMessage = Owned<BoltFeed>;

impl Feed<BoltFeed> {
    /// A builder with PolyBolt's policy (`wss://ws-live-v2.polymarket.com/ws`; credentials needed by every channel
    /// but the public `price.polymarket`).
    #[must_use]
    pub fn builder() -> FeedBuilder<BoltFeed> {
        let feed = BoltFeed {
            stale_after: STALE_AFTER,
            ..BoltFeed::default()
        };
        FeedBuilder::new(feed, &POLICY)
    }
}

impl FeedBuilder<BoltFeed> {
    /// The CLOB API credentials sent in the `auth` frame. Default is none: only the public
    /// `price.polymarket` can be subscribed (`build` refuses a gated subscription without
    /// them).
    #[must_use]
    pub fn credentials(mut self, auth: Credentials) -> Self {
        self.decoder_mut().auth = Some(auth);
        self
    }

    /// Adds a subscription sent once authenticated (and after every reconnect). Default is
    /// none.
    #[must_use]
    pub fn subscribe(mut self, sub: BoltSubscription) -> Self {
        self.decoder_mut().gated |= sub.channel().needs_auth();
        self.opts.ids.push(sub.to_json());
        self
    }

    /// A key of `channel` without an update for `bound` is [`Trust::Stale`] (`None`: never).
    /// Default is 5 s for `price.crypto`, 10 s for its TWAP, 60 s for the equity channels and
    /// never for `price.polymarket`.
    #[must_use]
    pub fn stale_after(mut self, channel: Channel, bound: Option<Duration>) -> Self {
        self.decoder_mut().stale_after[channel.index()] = bound;
        self
    }
}

/// The limits the server enforces, checked before sending, and the frames sent in the last
/// second.
pub(crate) type Sent = Arc<Mutex<VecDeque<Instant>>>;

impl BoltFeed {
    /// The break a data envelope reveals, if any. A loss within the connection (a server
    /// `dropped` count, a `seq` gap) untrusts its keys and asks for one reconnect, which brings
    /// a new snapshot of every subscription.
    fn sequence(&mut self, env: &super::decode::Envelope<'_>, conn: (usize, u64)) -> Option<Break> {
        if self.epoch != Some(conn) {
            // Sequence numbers start over on every connection.
            self.epoch = Some(conn);
            self.last = [None; CHANNELS];
        }
        let ch = env.channel?;
        let i = ch.index();
        let expected = self.last[i].map(|s| s.wrapping_add(1));
        self.last[i] = Some(env.seq);
        let (cause, lost) = match expected {
            _ if env.dropped > 0 => (
                Cause::ServerDropped {
                    channel: ch.as_str(),
                },
                Lost::Count(env.dropped),
            ),
            Some(e) if e != env.seq => (
                Cause::SequenceGap {
                    channel: ch.as_str(),
                    expected: e,
                    got: env.seq,
                },
                env.seq.checked_sub(e).map_or(Lost::Unknown, Lost::Count),
            ),
            _ => return None,
        };
        Some(Break {
            stream: StreamKind::PolyBolt,
            shard: conn.0,
            cause,
            lost,
            recovery: Recovery::Resnapshot,
        })
    }
}

/// The token a `price.polymarket` subscription (as rendered by [`BoltSubscription::to_json`])
/// names.
fn polymarket_token(sub: &str) -> Option<&str> {
    let rest = sub.strip_prefix(r#"{"channel":"price.polymarket","filter":{"asset_id":""#)?;
    rest.split('"').next()
}

impl BoltFeed {
    /// The `price.polymarket` tokens of connection `conn` awaiting their snapshot: every one at
    /// a new connection (in the order the subscribe frame lists them), then those subscribed
    /// since.
    fn sync_awaiting(&mut self, conn: (usize, u64), shards: &Shards) {
        let fresh = self.awaiting_on != Some(conn);
        if !fresh && self.changes == shards.changes() {
            return;
        }
        self.awaiting_on = Some(conn);
        self.changes = shards.changes();
        if fresh {
            self.awaiting.clear();
        }
        for sub in shards.ids_of(conn.0) {
            let Some(token) = polymarket_token(&sub) else {
                continue;
            };
            let k = format!("{}|{token}", Channel::Polymarket.as_str());
            if (fresh || self.keys.trust(&k) == Trust::Unknown)
                && !self.awaiting.iter().any(|a| a.0 == k)
            {
                self.awaiting.push_back((k, false));
            }
        }
    }

    /// Trust from a data envelope: a key's own snapshot re-establishes it (on the connection
    /// that did not lose frames), an update keeps it fresh. A `price.polymarket` snapshot `[]`
    /// names no token: it answers the oldest acknowledged subscription still awaiting its
    /// snapshot. (The docs are silent on it; the server answers a frame's subscriptions in
    /// order, each with its acknowledgement, then its snapshot.)
    fn track(&mut self, env: &Envelope<'_>, conn: (usize, u64), shards: &Shards) {
        let Some(ch) = env.channel else { return };
        if ch == Channel::Polymarket && env.snapshot {
            self.sync_awaiting(conn, shards);
        }
        let key = match env.payload {
            BoltPayload::Price(p) => Some(p.symbol),
            BoltPayload::Snapshot(s) => Some(s.symbol),
            BoltPayload::Top(t) => Some(t.asset_id),
            BoltPayload::Empty | BoltPayload::Other(_) => None,
        };
        let (shard, stale) = (conn.0, self.stale_after[ch.index()]);
        let restores = env.snapshot && self.replacing != Some(conn);
        match key {
            Some(symbol) => with_key(format_args!("{}|{symbol}", ch.as_str()), |k| {
                self.awaiting.retain(|a| a.0 != k);
                if restores {
                    self.keys.establish(k, shard, stale);
                } else {
                    self.keys.touch(k, shard);
                }
            }),
            None if restores && matches!(env.payload, BoltPayload::Empty) => {
                let i = self.awaiting.iter().position(|a| a.1).unwrap_or(0);
                if let Some((k, _)) = self.awaiting.remove(i) {
                    self.keys.establish(&k, shard, stale);
                }
            }
            None => {}
        }
    }

    /// A `price.polymarket` acknowledgement answers the oldest subscription not yet answered:
    /// `subscribed` marks it; an error (`bad_filter` …) marks its key refused (it gets no
    /// snapshot, so a later `[]` is not taken for it).
    fn acked(&mut self, ack: &Ack<'_>, conn: (usize, u64), shards: &Shards) {
        let error = match ack.op {
            AckOp::Subscribed => false,
            AckOp::Error => true,
            _ => return,
        };
        if ack.channel != Some(Channel::Polymarket.as_str()) {
            return;
        }
        self.sync_awaiting(conn, shards);
        let Some(i) = self.awaiting.iter().position(|a| !a.1) else {
            return;
        };
        if !error {
            self.awaiting[i].1 = true;
        } else if let Some((k, _)) = self.awaiting.remove(i) {
            let code = ack.code.and_then(AckCode::as_str).unwrap_or("error");
            self.keys.reject(&k, conn.0, code);
        }
    }
}

impl Sealed for BoltFeed {
    type Sub = BoltSubscription;
    type Refused = LimitError;
    type Remote = Sent;

    fn render(sub: BoltSubscription) -> String {
        sub.to_json()
    }
    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        if self.gated && self.auth.is_none() {
            return Err(BuildError::Invalid(
                "credentials: PolyBolt's price channels but price.polymarket need CLOB API credentials",
            ));
        }
        Ok(Box::new(BoltWire(self.auth.take())))
    }
    fn remote(&mut self) -> Sent {
        Sent::default()
    }
    fn check(sent: &Sent, active: &[String], fresh: &[String]) -> Result<(), LimitError> {
        if let Some(big) = fresh.iter().find(|s| s.len() > MAX_SUBSCRIPTION_BYTES) {
            return Err(LimitError::FrameTooLarge { bytes: big.len() });
        }
        if active.len() + fresh.len() > MAX_SUBSCRIPTIONS {
            return Err(LimitError::Subscriptions {
                active: active.len(),
                adding: fresh.len(),
            });
        }
        let mut sent = sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        while sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(1))
        {
            sent.pop_front();
        }
        if sent.len() >= MAX_SUBSCRIBE_FRAMES_PER_SEC {
            return Err(LimitError::Rate);
        }
        sent.push_back(now);
        Ok(())
    }
    fn state(&self) -> &Keys {
        &self.keys
    }
    fn trust(keys: &Keys, (channel, symbol): (Channel, &str)) -> Trust {
        with_key(format_args!("{}|{symbol}", channel.as_str()), |k| {
            keys.trust(k)
        })
    }
    fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, s: &Shards, h: &mut H, _: bool) {
        let msg = match f
            .as_str()
            .map_or_else(|| decode_bytes(f.as_bytes()), decode)
        {
            Ok(msg) => msg,
            Err(e) => return h.on_invalid(&e, &Cx::new(Some(f), &self.keys)),
        };
        let conn = (f.shard(), f.epoch());
        match &msg {
            BoltMessage::Data(env) => {
                if let Some(b) = self.sequence(env, conn) {
                    self.keys.break_shard(conn.0);
                    if self.replacing != Some(conn) {
                        self.replacing = Some(conn);
                        s.resnapshot(conn.0);
                    }
                    h.on_break(&b, &Cx::new(None, &self.keys));
                }
                self.track(env, conn, s);
            }
            BoltMessage::Ack(ack) => self.acked(ack, conn, s),
        }
        h.on_message(&msg, &Cx::new(Some(f), &self.keys));
    }
    fn status(&mut self, status: &Status, _: &Shards) {
        self.keys.break_shard(status.shard());
    }
    fn to_owned(_: &BoltMessage<'_>, cx: &Cx<'_, Self>) -> OwnedBoltMessage {
        Owned::new(cx)
    }
    fn conflation_key(msg: &BoltMessage<'_>, key: &mut String) -> bool {
        let BoltMessage::Data(env) = msg else {
            return false;
        };
        let BoltPayload::Price(p) = env.payload else {
            return false;
        };
        key.push_str(env.channel_name);
        key.push('|');
        key.push_str(p.symbol);
        true
    }
}

impl Reread for BoltFeed {
    fn reread(frame: &[u8]) -> Result<BoltMessage<'_>, DecodeError> {
        decode_bytes(frame)
    }
}

impl From<Closed> for LimitError {
    fn from(_: Closed) -> Self {
        LimitError::Closed
    }
}

impl Decoder for BoltFeed {
    type Message<'a> = BoltMessage<'a>;
    type Owned = OwnedBoltMessage;
    type Key<'a> = (Channel, &'a str);
    type State = Keys;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn env(ch: &str, seq: u64, dropped: u64) -> String {
        format!(
            r#"{{"v":1,"channel":"{ch}","seq":{seq},"dropped":{dropped},"payload":{{"symbol":"btcusd","full_accuracy_value":"1"}}}}"#
        )
    }

    fn feed(t: &mut BoltFeed, epoch: u64, f: &str) -> Option<Break> {
        let BoltMessage::Data(e) = decode(f).unwrap() else {
            panic!()
        };
        t.sequence(&e, (0, epoch))
    }

    #[test]
    fn each_loss_is_one_break_and_sequences_restart_per_connection() {
        let mut t = BoltFeed::default();
        assert_eq!(feed(&mut t, 1, &env("price.crypto", 1, 0)), None);
        assert_eq!(feed(&mut t, 1, &env("price.crypto", 2, 0)), None);
        // Another channel has its own sequence.
        assert_eq!(feed(&mut t, 1, &env("price.equity", 1, 0)), None);
        let b = feed(&mut t, 1, &env("price.crypto", 5, 0)).unwrap();
        assert_eq!(b.lost, Lost::Count(2));
        assert!(matches!(
            b.cause,
            Cause::SequenceGap {
                expected: 3,
                got: 5,
                ..
            }
        ));
        assert_eq!(b.recovery, Recovery::Resnapshot);
        // The server's count wins over the seq arithmetic: one break, not two.
        let b = feed(&mut t, 1, &env("price.crypto", 9, 3)).unwrap();
        assert_eq!(b.lost, Lost::Count(3));
        assert!(matches!(b.cause, Cause::ServerDropped { .. }));
        // A new connection restarts the sequence without a break of its own.
        assert_eq!(feed(&mut t, 2, &env("price.crypto", 1, 0)), None);
        assert_eq!(
            feed(&mut t, 2, &env("price.crypto", 3, 0)).map(|b| b.lost),
            Some(Lost::Count(1))
        );
    }

    #[test]
    fn acks_the_docs_name_are_acted_on() {
        let w = BoltWire(Some(Credentials::new("k", "s\"", "p")));
        let mut s = String::new();
        assert!(w.initial(&mut s, &BTreeSet::new()));
        assert_eq!(
            s,
            r#"{"op":"auth","rid":"auth","auth":{"apiKey":"k","secret":"s\"","passphrase":"p"}}"#
        );
        w.operation(
            &mut s,
            &[r#"{"channel":"price.crypto","filter":{"symbol":"btcusd"}}"#.to_owned()],
            Op::Subscribe,
        );
        assert_eq!(
            s,
            r#"{"op":"subscribe","subscriptions":[{"channel":"price.crypto","filter":{"symbol":"btcusd"}}]}"#
        );
        for (frame, want) in [
            (r#"{"rid":"auth","op":"authed"}"#, Control::Authed),
            (r#"{"op":"error","code":"authed"}"#, Control::Data),
            ("authed", Control::Data),
            (
                r#"{"op":"error","code":"auth_invalid","rid":"auth"}"#,
                Control::Refused {
                    code: "auth_invalid",
                    stop: true,
                },
            ),
            (
                r#"{"op":"error","code":"auth_unavailable"}"#,
                Control::Refused {
                    code: "auth_unavailable",
                    stop: false,
                },
            ),
            (r#"{"op":"error","code":"bad_filter"}"#, Control::Data),
        ] {
            assert_eq!(w.control(frame), want, "{frame}");
        }
    }
}
