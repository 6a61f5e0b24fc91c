//! PolyBolt (`/polybolt`).
//!
//! PolyBolt follows Polymarket's PolyBolt page: `{"op":"auth","rid"?,"auth":{apiKey,secret,
//! passphrase}}` is checked against this simulator's API keys (`authed`, or the error
//! acknowledgement `auth_invalid`; a 9th auth frame is `auth_attempts` and close 4008); a
//! subscribe before that is `auth_required`; `{"op":"subscribe","subscriptions":[{channel,
//! filter}]}` (or one `channel`/`filter`) on `price.crypto`, `price.crypto.twap`,
//! `price.equity`, `price.equity.twap` answers `subscribed` and one snapshot (the last three
//! points) per new subscription, then an update per subscription every
//! [`SimBuilder::rtds_interval`](crate::SimBuilder::rtds_interval), in the envelope
//! `{"v":1,"channel","seq","ts","snapshot"?,"dropped"?,"payload"}` with `seq` consecutive per
//! channel on the connection; `full_accuracy_value` is a decimal string. An unknown channel or
//! symbol is `bad_filter`; a 65th subscription is `sub_limit` and close 4008; `{"op":"ping"}`
//! is answered `pong`.
//!
//! `price.polymarket` is public (no `auth` needed): filter `{"asset_id"}` (a token of this
//! simulator, else `bad_filter`); its snapshot is the token's top of book from the matching
//! engine, `{market, asset_id, best_bid, best_ask, hash, timestamp}` (prices as decimal
//! strings, an empty side `""`; `hash` the one `price_change` entries carry, which changes
//! whenever a level does), or an empty array `[]` for a token whose book is empty (a cold
//! token); after it, an update on each tick where the top or the hash changed.
//!
//! Slow consumers: each connection has a send queue of at most [`SEND_QUEUE`] updates (its
//! socket is written by a task of its own). An update that finds the queue full — the client
//! has not read what was sent — is discarded and counted, and the channel's next envelope
//! says how many in `dropped` (`seq` stays consecutive over what is sent). A
//! [`WsFault::Stall`](crate::WsFault::Stall) rule holds the writes up to produce this on
//! loopback; [`WsFault::Close`](crate::WsFault::Close) rules (channel
//! [`WsChannel::PolyBolt`](crate::WsChannel::PolyBolt)) close with 4001, 4002, 4003, 4008 or
//! any other code on a chosen frame, and [`WsFault::ErrorAck`](crate::WsFault::ErrorAck)
//! rules answer chosen `auth`, `subscribe` or `unsubscribe` ops with an error
//! acknowledgement (`auth_unavailable`, `auth_expired`, `bad_filter` …). Handshakes are
//! refused with an [`HttpRule`](crate::HttpRule) on path `/polybolt`
//! ([`HttpFault::RateLimited`](crate::HttpFault::RateLimited) or
//! [`HttpFault::Overloaded`](crate::HttpFault::Overloaded), both with `Retry-After`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::shared::Shared;
use super::socket::{AbortOnDrop, CLOSE_WAIT, End, Timed, TimedConn, finish};
use crate::exchange::events;
use crate::exchange::state::now_ms;
use crate::scenario::drift::{Drift, UNKNOWN_CLOSE};
use crate::scenario::faults::{About, WsChannel, WsFrame};
use crate::scenario::paths::series_value;

/// `whole` dollars and `frac` hundred-thousandths, in 10⁻⁵ USD.
const fn usd(whole: u64, frac: u64) -> u64 {
    whole * 100_000 + frac
}

const CRYPTO: [(&str, u64); 5] = [
    ("btcusd", usd(100_000, 0)),
    ("ethusd", usd(3_500, 0)),
    ("solusd", usd(180, 0)),
    ("xrpusd", usd(2, 50_000)),
    ("dogeusd", usd(0, 20_000)),
];
const EQUITY: [(&str, u64); 6] = [
    ("aapl", usd(200, 0)),
    ("nvda", usd(140, 0)),
    ("tsla", usd(250, 0)),
    ("msft", usd(420, 0)),
    ("eurusd", usd(1, 8_000)),
    ("usdjpy", usd(150, 0)),
];
const FX: [(&str, u64); 2] = [("eurusd", usd(1, 8_000)), ("usdjpy", usd(150, 0))];

const CHANNELS: [&str; 5] = [
    "price.crypto",
    "price.crypto.twap",
    "price.equity",
    "price.equity.twap",
    POLYMARKET,
];

/// The public channel of a token's top of book.
const POLYMARKET: &str = "price.polymarket";

/// Documented limits.
const MAX_SUBSCRIPTIONS: usize = 64;
const MAX_AUTH_FRAMES: usize = 8;
/// Points in a snapshot.
const HISTORY: u64 = 3;

fn table(channel: &str) -> &'static [(&'static str, u64)] {
    match channel {
        "price.crypto" | "price.crypto.twap" => &CRYPTO,
        "price.equity" => &EQUITY,
        _ => &FX,
    }
}

fn source(channel: &str) -> &'static str {
    match channel {
        "price.crypto" => "pyth",
        "price.equity" => "massive",
        _ => "chainlink",
    }
}

/// 10⁻⁵ units as `int.frac` with eight decimals, as the live feed writes them.
fn exact(v: u64) -> String {
    format!("{}.{:05}000", v / 100_000, v % 100_000)
}

fn number(v: u64) -> Value {
    serde_json::from_str(&format!("{}.{:05}", v / 100_000, v % 100_000)).unwrap_or(Value::Null)
}

/// One accepted subscription: `(channel, symbol)` and its base value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Sub {
    channel: &'static str,
    symbol: String,
    base: u64,
}

/// Parses one `{channel, filter}`; `Err(code)` for a filter the server refuses. `token`
/// says whether a `price.polymarket` asset id is a token of this simulator.
fn parse_sub(v: &Value, token: impl Fn(&str) -> bool) -> Result<Sub, &'static str> {
    let channel = v.get("channel").and_then(Value::as_str).unwrap_or("");
    let Some(channel) = CHANNELS.into_iter().find(|c| *c == channel) else {
        return Err("bad_filter");
    };
    let filter = v
        .get("filter")
        .and_then(Value::as_object)
        .ok_or("bad_filter")?;
    if channel == POLYMARKET {
        let asset = filter
            .get("asset_id")
            .and_then(Value::as_str)
            .filter(|a| token(a))
            .ok_or("bad_filter")?;
        return Ok(Sub {
            channel,
            symbol: asset.to_owned(),
            base: 0,
        });
    }
    let symbol = filter
        .get("symbol")
        .and_then(Value::as_str)
        .ok_or("bad_filter")?;
    if channel.ends_with(".twap")
        && filter.get("window_seconds").and_then(Value::as_u64) != Some(60)
    {
        return Err("bad_filter");
    }
    if let Some(p) = filter.get("provider") {
        if !matches!(p.as_str(), Some("chainlink" | "pyth")) {
            return Err("bad_filter");
        }
    }
    let base = table(channel)
        .iter()
        .find(|(s, _)| *s == symbol)
        .map(|(_, b)| *b)
        .ok_or("bad_filter")?;
    Ok(Sub {
        channel,
        symbol: symbol.to_owned(),
        base,
    })
}

fn ack(op: &str, rid: Option<&Value>, extra: Value) -> String {
    let mut v = json!({ "op": op });
    if let Some(rid) = rid {
        v["rid"] = rid.clone();
    }
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v.to_string()
}

/// Per-connection state of the reading side.
#[derive(Debug, Default)]
struct Session {
    authed: bool,
    /// The authenticated `(lowercase address, API key)`, for the fault rules.
    account: Option<(String, String)>,
    auth_frames: usize,
    subs: Vec<Sub>,
    /// `price.polymarket`: the top last sent per asset.
    tops: BTreeMap<String, Top>,
}

/// A point of `sub`'s series at tick `k`; `driven` is the asset's driven reference price
/// (`SimHandle::drive_reference`), which replaces the synthetic series.
fn point(sub: &Sub, seed: u64, k: u64, interval_ms: u64, driven: Option<u64>) -> Value {
    let v = driven.unwrap_or_else(|| series_value(seed, &sub.symbol, sub.base, k));
    json!({"timestamp": k * interval_ms, "value": number(v), "full_accuracy_value": exact(v)})
}

/// The payload of `sub`'s update at tick `k`.
fn update(sub: &Sub, seed: u64, k: u64, interval_ms: u64, driven: Option<u64>) -> Value {
    let mut p = point(sub, seed, k, interval_ms, driven);
    p["symbol"] = Value::String(sub.symbol.clone());
    p["source"] = Value::String(source(sub.channel).to_owned());
    if sub.channel.ends_with(".twap") {
        p["window_seconds"] = json!(60);
    }
    p
}

/// The payload of `sub`'s snapshot at tick `k`: the last [`HISTORY`] points.
fn snapshot(sub: &Sub, seed: u64, k: u64, interval_ms: u64, driven: Option<u64>) -> Value {
    let data: Vec<Value> = (k.saturating_sub(HISTORY - 1)..=k)
        .map(|i| point(sub, seed, i, interval_ms, driven))
        .collect();
    let mut p = json!({"symbol": sub.symbol, "source": source(sub.channel), "data": data});
    if sub.channel.ends_with(".twap") {
        p["window_seconds"] = json!(60);
    }
    p
}

/// A token's top of book as `price.polymarket` reports it: `(market, best bid, best ask,
/// hash)`; `None` for a token this simulator does not list.
type Top = (String, Option<u32>, Option<u32>, String);

fn top(shared: &Shared, asset: &str) -> Option<Top> {
    let ex = shared.ex();
    let (mi, ti) = ex.token(asset)?;
    let m = &ex.markets[mi];
    let b = m.book.view(ti);
    Some((
        m.spec.condition_id.clone(),
        b.best_bid(),
        b.best_ask(),
        events::book_hash(&ex, mi, ti),
    ))
}

/// The `price.polymarket` payload of `asset` at `top`: `[]` for the snapshot of an empty
/// book.
fn top_payload(asset: &str, top: &Top, snapshot: bool) -> Value {
    let (market, bid, ask, hash) = top;
    if snapshot && bid.is_none() && ask.is_none() {
        return json!([]);
    }
    let side = |p: &Option<u32>| p.map(events::price).unwrap_or_default();
    json!({
        "market": market,
        "asset_id": asset,
        "best_bid": side(bid),
        "best_ask": side(ask),
        "hash": hash,
        "timestamp": now_ms(),
    })
}

/// A data envelope; `dropped` (updates of the channel discarded just before this one) is
/// written when not zero.
fn envelope(channel: &str, seq: u64, snapshot: bool, dropped: u64, payload: Value) -> String {
    let mut v = json!({"v": 1, "channel": channel, "seq": seq, "ts": now_ms(), "payload": payload});
    if snapshot {
        v["snapshot"] = Value::Bool(true);
    }
    if dropped > 0 {
        v["dropped"] = json!(dropped);
    }
    v.to_string()
}

fn close(code: u16) -> End {
    End::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: "policy".into(),
    }))
}

/// Updates waiting to be written to one connection, at most; the ones that do not fit are
/// discarded and counted in the channel's next `dropped` (two ticks of 64 subscriptions fit).
const SEND_QUEUE: usize = 128;

/// A frame on its way to the connection's writer.
enum Out {
    /// The connection authenticated as `(lowercase address, API key)` (for the fault rules).
    Account(String, String),
    /// An acknowledgement: never discarded.
    Text(String),
    /// A data envelope, numbered (`seq`) when written.
    Data {
        channel: &'static str,
        snapshot: bool,
        dropped: u64,
        payload: Value,
    },
    /// Ends the connection after what is queued.
    End(End),
}

/// The reading side's end of a connection's send queue. Acknowledgements and snapshots
/// always queue; an update finds the queue full when the writer is [`SEND_QUEUE`] updates
/// behind (the client reads too slowly) and is then discarded and counted.
struct Outbox {
    tx: mpsc::UnboundedSender<Out>,
    /// Updates queued and not yet written (decremented by the writer).
    waiting: Arc<AtomicUsize>,
    /// Per channel: updates discarded since the channel's last queued envelope.
    dropped: BTreeMap<&'static str, u64>,
}

impl Outbox {
    fn put(&self, out: Out) -> Result<(), End> {
        // The writer is gone: the connection is ending already.
        self.tx.send(out).map_err(|_| End::Drop)
    }

    fn text(&self, text: String) -> Result<(), End> {
        self.put(Out::Text(text))
    }

    fn data(&mut self, channel: &'static str, snapshot: bool, payload: Value) -> Result<(), End> {
        if !snapshot {
            if self.waiting.load(Ordering::Acquire) >= SEND_QUEUE {
                *self.dropped.entry(channel).or_default() += 1;
                return Ok(());
            }
            self.waiting.fetch_add(1, Ordering::AcqRel);
        }
        let dropped = self.dropped.remove(channel).unwrap_or_default();
        self.put(Out::Data {
            channel,
            snapshot,
            dropped,
            payload,
        })
    }
}

/// Writes the queue to the socket through the fault filter, numbering envelopes per
/// channel, until the queue says to end or the socket (or a fault) ends the connection.
async fn write<T>(
    mut conn: TimedConn<T>,
    mut queue: mpsc::UnboundedReceiver<Out>,
    waiting: Arc<AtomicUsize>,
) where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut seq: BTreeMap<&'static str, u64> = BTreeMap::new();
    let end = loop {
        let Some(out) = queue.recv().await else {
            break End::Close(None);
        };
        let text = match out {
            Out::Account(address, key) => {
                conn.account = Some((address, key));
                continue;
            }
            Out::Text(t) => t,
            Out::Data {
                channel,
                snapshot,
                dropped,
                payload,
            } => {
                if !snapshot {
                    waiting.fetch_sub(1, Ordering::AcqRel);
                }
                let next = seq.entry(channel).or_insert(1);
                let n = *next;
                *next += 1;
                envelope(channel, n, snapshot, dropped, payload)
            }
            Out::End(end) => break end,
        };
        if let Err(end) = conn.send(text).await {
            break end;
        }
    };
    finish(conn, end).await;
}

/// The error code a fault rule ([`WsFault::ErrorAck`](crate::WsFault::ErrorAck)) answers `op`
/// with on a connection of `account` (lowercase address, API key), if one fires.
fn injected(shared: &Shared, account: Option<&(String, String)>, op: &str) -> Option<&'static str> {
    let frame = WsFrame {
        channel: WsChannel::PolyBolt,
        account: account.map(|(a, k)| (a.as_str(), k.as_str())),
        about: About::Nothing,
    };
    shared.faults().on_ws_op(&frame, op)
}

/// Answers with the error acknowledgement `code` (naming `channel`, for a subscription); the
/// codes the docs say are followed by close 4008 close the connection.
fn refuse(
    out: &Outbox,
    rid: Option<&Value>,
    code: &str,
    channel: Option<&Value>,
) -> Result<(), End> {
    let body = match channel {
        Some(c) => json!({"code": code, "channel": c}),
        None => json!({"code": code}),
    };
    out.text(ack("error", rid, body))?;
    if matches!(code, "sub_limit" | "rate_limited" | "auth_attempts") {
        return Err(close(4008));
    }
    Ok(())
}

fn on_text(
    out: &mut Outbox,
    st: &mut Session,
    shared: &Shared,
    text: &str,
    seed: u64,
    interval_ms: u64,
) -> Result<(), End> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return out.text(ack("error", None, json!({"code": "bad_request"})));
    };
    let rid = v.get("rid");
    match v.get("op").and_then(Value::as_str).unwrap_or("") {
        "ping" => out.text(ack("pong", rid, json!({}))),
        "auth" => {
            st.auth_frames += 1;
            if st.auth_frames > MAX_AUTH_FRAMES {
                out.text(ack("error", rid, json!({"code": "auth_attempts"})))?;
                return Err(close(4008));
            }
            let field = |k: &str| {
                v.get("auth")
                    .and_then(|a| a.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            };
            let key = field("apiKey");
            let account = shared
                .ex()
                .keys
                .get(key)
                .filter(|k| k.secret == field("secret") && k.passphrase == field("passphrase"))
                .map(|k| k.address.to_ascii_lowercase());
            let who = (account.clone().unwrap_or_default(), key.to_owned());
            if let Some(code) = injected(shared, Some(&who), "auth") {
                return refuse(out, rid, code, None);
            }
            match account {
                Some(address) => {
                    st.authed = true;
                    st.account = Some((address.clone(), key.to_owned()));
                    out.put(Out::Account(address, key.to_owned()))?;
                    out.text(ack("authed", rid, json!({})))
                }
                None => out.text(ack("error", rid, json!({"code": "auth_invalid"}))),
            }
        }
        op @ ("subscribe" | "unsubscribe") => {
            let list: Vec<&Value> = match v.get("subscriptions").and_then(Value::as_array) {
                Some(a) => a.iter().collect(),
                None => vec![&v],
            };
            let k = now_ms() / interval_ms;
            for item in list {
                let channel = item.get("channel").cloned().unwrap_or(Value::Null);
                if !st.authed && channel.as_str() != Some(POLYMARKET) {
                    out.text(ack(
                        "error",
                        rid,
                        json!({"code": "auth_required", "channel": channel}),
                    ))?;
                    continue;
                }
                if let Some(code) = injected(shared, st.account.as_ref(), op) {
                    refuse(out, rid, code, Some(&channel))?;
                    continue;
                }
                let sub = match parse_sub(item, |a| shared.ex().token(a).is_some()) {
                    Ok(s) => s,
                    Err(code) => {
                        out.text(ack("error", rid, json!({"code": code, "channel": channel})))?;
                        continue;
                    }
                };
                if op == "unsubscribe" {
                    st.subs.retain(|s| *s != sub);
                    if sub.channel == POLYMARKET {
                        st.tops.remove(&sub.symbol);
                    }
                    out.text(ack("unsubscribed", rid, json!({"channel": sub.channel})))?;
                    continue;
                }
                let fresh = !st.subs.contains(&sub);
                if fresh && st.subs.len() >= MAX_SUBSCRIPTIONS {
                    out.text(ack(
                        "error",
                        rid,
                        json!({"code": "sub_limit", "channel": sub.channel}),
                    ))?;
                    return Err(close(4008));
                }
                if sub.channel == POLYMARKET {
                    out.text(ack("subscribed", rid, json!({"channel": sub.channel})))?;
                } else {
                    out.text(ack(
                        "subscribed",
                        rid,
                        json!({"channel": sub.channel, "provider": source(sub.channel)}),
                    ))?;
                }
                if fresh {
                    let payload = if sub.channel == POLYMARKET {
                        let t = top(shared, &sub.symbol).ok_or(End::Drop)?;
                        let p = top_payload(&sub.symbol, &t, true);
                        st.tops.insert(sub.symbol.clone(), t);
                        p
                    } else {
                        let driven = shared.activity().paths.reference(&sub.symbol);
                        snapshot(&sub, seed, k, interval_ms, driven)
                    };
                    out.data(sub.channel, true, payload)?;
                    st.subs.push(sub);
                    if shared.drift.has(Drift::PolyBoltCloseCode) {
                        return Err(close(UNKNOWN_CLOSE));
                    }
                }
            }
            Ok(())
        }
        _ => out.text(ack("error", rid, json!({"code": "bad_request"}))),
    }
}

pub(crate) async fn run<T>(ws: WebSocketStream<T>, shared: Arc<Shared>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let Timed {
        conn,
        mut rx,
        mut ticker,
        interval_ms,
        mut kick,
        mut shutdown,
        ..
    } = Timed::new(ws, &shared, WsChannel::PolyBolt);
    let seed = shared.ex().cfg.seed;
    // The socket is written by a task of its own, so that updates keep coming (and are
    // discarded and counted when they do not fit) while a slow client holds the writes up.
    let (tx, queue) = mpsc::unbounded_channel();
    let waiting = Arc::new(AtomicUsize::new(0));
    let mut writer = AbortOnDrop(tokio::spawn(write(conn, queue, Arc::clone(&waiting))));
    let mut out = Outbox {
        tx,
        waiting,
        dropped: BTreeMap::new(),
    };
    let mut st = Session::default();
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) => on_text(&mut out, &mut st, &shared, t.as_str(), seed, interval_ms),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Err(End::Close(None)),
                Some(Ok(_)) => Ok(()),
            },
            _ = ticker.tick() => {
                let k = now_ms() / interval_ms;
                let Session { subs, tops, .. } = &mut st;
                subs.iter().try_for_each(|sub| {
                    if sub.channel != POLYMARKET {
                        let driven = shared.activity().paths.reference(&sub.symbol);
                        return out.data(sub.channel, false, update(sub, seed, k, interval_ms, driven));
                    }
                    // An update only when the top or the hash moved.
                    let now = top(&shared, &sub.symbol);
                    match (now, tops.get(&sub.symbol)) {
                        (Some(t), Some(last)) if t == *last => Ok(()),
                        (Some(t), _) => {
                            let p = top_payload(&sub.symbol, &t, false);
                            tops.insert(sub.symbol.clone(), t);
                            out.data(sub.channel, false, p)
                        }
                        (None, _) => Ok(()),
                    }
                })
            },
            // The writer ended the connection (a fault, a failed write).
            _ = &mut writer.0 => break None,
            _ = kick.changed() => Err(End::Drop),
            _ = shutdown.changed() => Err(End::going_away()),
        };
        if let Err(e) = step {
            break Some(e);
        }
    };
    match end {
        // Dropping the writer aborts it: the socket goes without a close frame.
        None | Some(End::Drop) => {}
        Some(end) => {
            if out.put(Out::End(end)).is_ok() {
                let _ = tokio::time::timeout(CLOSE_WAIT, &mut writer.0).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_exact_values() {
        let ok = parse_sub(
            &json!({"channel":"price.crypto.twap","filter":{"symbol":"btcusd","window_seconds":60}}),
            |_| false,
        );
        assert_eq!(ok.map(|s| s.symbol), Ok("btcusd".to_owned()));
        for bad in [
            json!({"channel":"price.crypto.twap","filter":{"symbol":"btcusd","window_seconds":30}}),
            json!({"channel":"price.crypto","filter":{"symbol":"btcusdt"}}),
            json!({"channel":"news","filter":{"symbol":"btcusd"}}),
            json!({"channel":"price.equity","filter":{"symbol":"aapl","provider":"x"}}),
            json!({"channel":"price.equity","filter":"aapl"}),
        ] {
            assert_eq!(parse_sub(&bad, |_| true), Err("bad_filter"), "{bad}");
        }
        assert_eq!(exact(usd(64_126, 5)), "64126.00005000");
        let sub = parse_sub(
            &json!({"channel":"price.crypto","filter":{"symbol":"btcusd"}}),
            |_| false,
        )
        .unwrap();
        let snap: Value = serde_json::from_str(&envelope(
            sub.channel,
            1,
            true,
            0,
            snapshot(&sub, 1, 10, 1000, None),
        ))
        .unwrap();
        assert_eq!(
            (snap["seq"].as_u64(), snap["snapshot"].as_bool()),
            (Some(1), Some(true))
        );
        assert_eq!(snap["payload"]["data"].as_array().map(Vec::len), Some(3));
        assert!(snap.get("dropped").is_none());
        let upd: Value = serde_json::from_str(&envelope(
            sub.channel,
            2,
            false,
            7,
            update(&sub, 1, 11, 1000, None),
        ))
        .unwrap();
        assert_eq!(
            (upd["seq"].as_u64(), upd["dropped"].as_u64()),
            (Some(2), Some(7))
        );
        assert!(upd["payload"]["full_accuracy_value"].is_string());
    }

    #[test]
    fn polymarket_filters_and_tops() {
        let token = |a: &str| a == "7";
        let sub = parse_sub(
            &json!({"channel":"price.polymarket","filter":{"asset_id":"7"}}),
            token,
        )
        .unwrap();
        assert_eq!((sub.channel, sub.symbol.as_str()), (POLYMARKET, "7"));
        for bad in [
            json!({"channel":"price.polymarket","filter":{"asset_id":"8"}}),
            json!({"channel":"price.polymarket","filter":{"symbol":"7"}}),
            json!({"channel":"price.polymarket","filter":{"asset_id":7}}),
        ] {
            assert_eq!(parse_sub(&bad, token), Err("bad_filter"), "{bad}");
        }
        // A cold token's snapshot is `[]`; its updates are objects, an empty side `""`.
        let cold: Top = ("0xc".to_owned(), None, None, "h0".to_owned());
        assert_eq!(top_payload("7", &cold, true), json!([]));
        let p = top_payload("7", &cold, false);
        assert_eq!(
            (p["best_bid"].as_str(), p["best_ask"].as_str()),
            (Some(""), Some(""))
        );
        let warm: Top = ("0xc".to_owned(), Some(510_000), None, "h1".to_owned());
        let p = top_payload("7", &warm, true);
        assert_eq!(
            (
                p["market"].as_str(),
                p["asset_id"].as_str(),
                p["best_bid"].as_str(),
                p["hash"].as_str()
            ),
            (Some("0xc"), Some("7"), Some("0.51"), Some("h1"))
        );
        assert!(p["timestamp"].is_u64());
    }

    #[test]
    fn a_full_queue_discards_updates_and_counts_them_per_channel() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut out = Outbox {
            tx,
            waiting: Arc::new(AtomicUsize::new(0)),
            dropped: BTreeMap::new(),
        };
        for _ in 0..SEND_QUEUE + 3 {
            out.data("price.crypto", false, Value::Null).unwrap();
        }
        // Snapshots and acknowledgements still queue.
        out.data("price.equity", true, Value::Null).unwrap();
        out.text("ack".to_owned()).unwrap();
        assert_eq!(rx.len(), SEND_QUEUE + 2);
        // The writer takes one: the next update fits and carries the count.
        drop(rx.try_recv());
        out.waiting.fetch_sub(1, Ordering::AcqRel);
        out.data("price.crypto", false, Value::Null).unwrap();
        let last = std::iter::from_fn(|| rx.try_recv().ok()).last();
        assert!(matches!(last, Some(Out::Data { dropped: 3, .. })));
        assert!(out.dropped.is_empty());
    }
}
