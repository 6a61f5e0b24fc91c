//! PolyBolt (`/polybolt`) and the sports socket (`/sports`).
//!
//! PolyBolt follows Polymarket's PolyBolt page: `{"op":"auth","rid"?,"auth":{apiKey,secret,
//! passphrase}}` is checked against this simulator's API keys (`authed`, or the error
//! acknowledgement `auth_invalid`; a 9th auth frame is `auth_attempts` and close 4008); a
//! subscribe before that is `auth_required`; `{"op":"subscribe","subscriptions":[{channel,
//! filter}]}` (or one `channel`/`filter`) on `price.crypto`, `price.crypto.twap`,
//! `price.equity`, `price.equity.twap` answers `subscribed` and one snapshot (the last three
//! points) per new subscription, then an update per subscription every
//! [`SimBuilder::rtds_interval`](crate::SimBuilder::rtds_interval), in the envelope
//! `{"v":1,"channel","seq","ts","snapshot"?,"payload"}` with `seq` consecutive per channel on
//! the connection; `full_accuracy_value` is a decimal string. An unknown channel or symbol
//! is `bad_filter`; a 65th subscription is `sub_limit` and close 4008; `{"op":"ping"}` is
//! answered `pong`. [`SimHandle::polybolt_close`](crate::SimHandle::polybolt_close) closes
//! every PolyBolt connection with a chosen code (4001, 4002, 4003, 4008 …).
//!
//! The sports socket sends the text `ping` every `rtds_interval` and a `sport_result` for the
//! scripted games every tick; it drops a connection that has not answered `pong` within two
//! intervals of a ping (the live socket: ping every 5 s, pong within 10 s).

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::rtds::series_value;
use super::server::Shared;
use super::state::now_ms;
use super::ws::{Conn, End, Timed, finish};

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

const CHANNELS: [&str; 4] = [
    "price.crypto",
    "price.crypto.twap",
    "price.equity",
    "price.equity.twap",
];

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

/// Parses one `{channel, filter}`; `Err(code)` for a filter the server refuses.
fn parse_sub(v: &Value) -> Result<Sub, &'static str> {
    let channel = v.get("channel").and_then(Value::as_str).unwrap_or("");
    let Some(channel) = CHANNELS.into_iter().find(|c| *c == channel) else {
        return Err("bad_filter");
    };
    let filter = v
        .get("filter")
        .and_then(Value::as_object)
        .ok_or("bad_filter")?;
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

/// Per-connection state.
#[derive(Debug, Default)]
struct Session {
    authed: bool,
    auth_frames: usize,
    subs: Vec<Sub>,
    /// Next `seq` per channel.
    seq: BTreeMap<&'static str, u64>,
}

impl Session {
    fn envelope(&mut self, channel: &'static str, snapshot: bool, payload: Value) -> String {
        let seq = self.seq.entry(channel).or_insert(1);
        let mut v =
            json!({"v": 1, "channel": channel, "seq": *seq, "ts": now_ms(), "payload": payload});
        if snapshot {
            v["snapshot"] = Value::Bool(true);
        }
        *seq += 1;
        v.to_string()
    }

    /// A point of `sub`'s series at tick `k`; `driven` is the asset's driven reference price
    /// (`SimHandle::drive_reference`), which replaces the synthetic series.
    fn point(sub: &Sub, seed: u64, k: u64, interval_ms: u64, driven: Option<u64>) -> Value {
        let v = driven.unwrap_or_else(|| series_value(seed, &sub.symbol, sub.base, k));
        json!({"timestamp": k * interval_ms, "value": number(v), "full_accuracy_value": exact(v)})
    }

    fn update(
        &mut self,
        i: usize,
        seed: u64,
        k: u64,
        interval_ms: u64,
        driven: Option<u64>,
    ) -> String {
        let sub = self.subs[i].clone();
        let mut p = Self::point(&sub, seed, k, interval_ms, driven);
        p["symbol"] = Value::String(sub.symbol.clone());
        p["source"] = Value::String(source(sub.channel).to_owned());
        if sub.channel.ends_with(".twap") {
            p["window_seconds"] = json!(60);
        }
        self.envelope(sub.channel, false, p)
    }

    fn snapshot(
        &mut self,
        sub: &Sub,
        seed: u64,
        k: u64,
        interval_ms: u64,
        driven: Option<u64>,
    ) -> String {
        let data: Vec<Value> = (k.saturating_sub(HISTORY - 1)..=k)
            .map(|i| Self::point(sub, seed, i, interval_ms, driven))
            .collect();
        let mut p = json!({"symbol": sub.symbol, "source": source(sub.channel), "data": data});
        if sub.channel.ends_with(".twap") {
            p["window_seconds"] = json!(60);
        }
        self.envelope(sub.channel, true, p)
    }
}

fn close(code: u16) -> End {
    End::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: "policy".into(),
    }))
}

async fn on_text<S>(
    conn: &mut Conn<S>,
    st: &mut Session,
    text: &str,
    seed: u64,
    interval_ms: u64,
) -> Result<(), End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return conn
            .send(ack("error", None, json!({"code": "bad_request"})))
            .await;
    };
    let rid = v.get("rid");
    match v.get("op").and_then(Value::as_str).unwrap_or("") {
        "ping" => conn.send(ack("pong", rid, json!({}))).await,
        "auth" => {
            st.auth_frames += 1;
            if st.auth_frames > MAX_AUTH_FRAMES {
                conn.send(ack("error", rid, json!({"code": "auth_attempts"})))
                    .await?;
                return Err(close(4008));
            }
            let field = |k: &str| {
                v.get("auth")
                    .and_then(|a| a.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            };
            let ok = conn.shared.ex().api_key(field("apiKey")).is_some_and(|k| {
                k.secret == field("secret") && k.passphrase == field("passphrase")
            });
            st.authed |= ok;
            let text = if ok {
                ack("authed", rid, json!({}))
            } else {
                ack("error", rid, json!({"code": "auth_invalid"}))
            };
            conn.send(text).await
        }
        op @ ("subscribe" | "unsubscribe") => {
            let list: Vec<&Value> = match v.get("subscriptions").and_then(Value::as_array) {
                Some(a) => a.iter().collect(),
                None => vec![&v],
            };
            let k = now_ms() / interval_ms;
            for item in list {
                let channel = item.get("channel").cloned().unwrap_or(Value::Null);
                if !st.authed {
                    conn.send(ack(
                        "error",
                        rid,
                        json!({"code": "auth_required", "channel": channel}),
                    ))
                    .await?;
                    continue;
                }
                let sub = match parse_sub(item) {
                    Ok(s) => s,
                    Err(code) => {
                        conn.send(ack("error", rid, json!({"code": code, "channel": channel})))
                            .await?;
                        continue;
                    }
                };
                if op == "unsubscribe" {
                    st.subs.retain(|s| *s != sub);
                    conn.send(ack("unsubscribed", rid, json!({"channel": sub.channel})))
                        .await?;
                    continue;
                }
                let fresh = !st.subs.contains(&sub);
                if fresh && st.subs.len() >= MAX_SUBSCRIPTIONS {
                    conn.send(ack(
                        "error",
                        rid,
                        json!({"code": "sub_limit", "channel": sub.channel}),
                    ))
                    .await?;
                    return Err(close(4008));
                }
                conn.send(ack(
                    "subscribed",
                    rid,
                    json!({"channel": sub.channel, "provider": source(sub.channel)}),
                ))
                .await?;
                if fresh {
                    let driven = conn.shared.ex().paths.reference(&sub.symbol);
                    let snap = st.snapshot(&sub, seed, k, interval_ms, driven);
                    st.subs.push(sub);
                    conn.send(snap).await?;
                    if conn.shared.drift.has(super::Drift::PolyBoltCloseCode) {
                        return Err(close(super::drift::UNKNOWN_CLOSE));
                    }
                }
            }
            Ok(())
        }
        _ => {
            conn.send(ack("error", rid, json!({"code": "bad_request"})))
                .await
        }
    }
}

pub(super) async fn run<T>(ws: WebSocketStream<T>, shared: Arc<Shared>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let Timed {
        mut conn,
        mut rx,
        mut ticker,
        interval_ms,
        mut kick,
        mut shutdown,
        ..
    } = Timed::new(ws, &shared);
    let seed = shared.ex().cfg.seed;
    let mut closer = shared.polybolt_close.subscribe();
    let mut st = Session::default();
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) => on_text(&mut conn, &mut st, t.as_str(), seed, interval_ms).await,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Err(End::Close(None)),
                Some(Ok(_)) => Ok(()),
            },
            _ = ticker.tick() => {
                let k = now_ms() / interval_ms;
                let mut r = Ok(());
                for i in 0..st.subs.len() {
                    let driven = conn.shared.ex().paths.reference(&st.subs[i].symbol);
                    let text = st.update(i, seed, k, interval_ms, driven);
                    r = conn.send(text).await;
                    if r.is_err() { break }
                }
                r
            },
            _ = closer.changed() => Err(close(*closer.borrow())),
            _ = kick.changed() => Err(End::Drop),
            _ = shutdown.changed() => Err(End::going_away()),
        };
        if let Err(e) = step {
            break e;
        }
    };
    finish(conn, end).await;
}

/// The scripted games of the sports socket: `(gameId, league, home, away)`.
const GAMES: [(u64, &str, &str, &str); 2] = [
    (19439, "nfl", "LAC", "BUF"),
    (1317359, "cs2", "ARCRED", "The glecs"),
];

fn sport_result(k: u64, game: (u64, &str, &str, &str)) -> String {
    let (id, league, home, away) = game;
    let ended = k % 40 >= 36;
    let mut v = json!({
        "gameId": id,
        "leagueAbbreviation": league,
        "slug": format!("{league}-{}-{}-2026-11-27", home.to_ascii_lowercase(), away.to_ascii_lowercase().replace(' ', "-")),
        "homeTeam": home,
        "awayTeam": away,
        "status": if ended { "Final" } else { "InProgress" },
        "score": format!("{}-{}", (k / 3) % 40, (k / 5) % 40),
        "period": format!("Q{}", (k / 10) % 4 + 1),
        "elapsed": format!("{}:{:02}", 14 - (k % 15), (k * 7) % 60),
        "live": !ended,
        "ended": ended,
    });
    if ended {
        v["finished_timestamp"] = Value::String("2026-11-27T23:00:00.000Z".to_owned());
    }
    v.to_string()
}

pub(super) async fn run_sports<T>(ws: WebSocketStream<T>, shared: Arc<Shared>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let Timed {
        mut conn,
        mut rx,
        mut ticker,
        interval,
        interval_ms,
        mut kick,
        mut shutdown,
    } = Timed::new(ws, &shared);
    // The oldest unanswered ping.
    let mut ping_at: Option<Instant> = None;
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) if t.as_str() == "pong" => {
                    ping_at = None;
                    Ok(())
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Err(End::Close(None)),
                Some(Ok(_)) => Ok(()),
            },
            _ = ticker.tick() => {
                if ping_at.is_some_and(|t| t.elapsed() > interval * 2) {
                    Err(End::Drop)
                } else {
                    ping_at.get_or_insert_with(Instant::now);
                    let k = now_ms() / interval_ms;
                    let mut r = conn.send("ping".to_owned()).await;
                    for g in GAMES {
                        if r.is_ok() {
                            r = conn.send(sport_result(k, g)).await;
                        }
                    }
                    r
                }
            },
            _ = kick.changed() => Err(End::Drop),
            _ = shutdown.changed() => Err(End::going_away()),
        };
        if let Err(e) = step {
            break e;
        }
    };
    finish(conn, end).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_exact_values() {
        let ok = parse_sub(
            &json!({"channel":"price.crypto.twap","filter":{"symbol":"btcusd","window_seconds":60}}),
        );
        assert_eq!(ok.map(|s| s.symbol), Ok("btcusd".to_owned()));
        for bad in [
            json!({"channel":"price.crypto.twap","filter":{"symbol":"btcusd","window_seconds":30}}),
            json!({"channel":"price.crypto","filter":{"symbol":"btcusdt"}}),
            json!({"channel":"news","filter":{"symbol":"btcusd"}}),
            json!({"channel":"price.equity","filter":{"symbol":"aapl","provider":"x"}}),
            json!({"channel":"price.equity","filter":"aapl"}),
        ] {
            assert_eq!(parse_sub(&bad), Err("bad_filter"), "{bad}");
        }
        assert_eq!(exact(usd(64_126, 5)), "64126.00005000");
        let mut s = Session::default();
        let sub =
            parse_sub(&json!({"channel":"price.crypto","filter":{"symbol":"btcusd"}})).unwrap();
        let snap: Value = serde_json::from_str(&s.snapshot(&sub, 1, 10, 1000, None)).unwrap();
        assert_eq!(
            (snap["seq"].as_u64(), snap["snapshot"].as_bool()),
            (Some(1), Some(true))
        );
        s.subs.push(sub);
        let upd: Value = serde_json::from_str(&s.update(0, 1, 11, 1000, None)).unwrap();
        assert_eq!(upd["seq"].as_u64(), Some(2));
        assert!(upd["payload"]["full_accuracy_value"].is_string());
    }
}
