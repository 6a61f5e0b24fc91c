//! The real-time data socket (`/rtds`): synthetic crypto and equity prices, and
//! `orders_matched` activity for the simulator's own fills.
//!
//! Messages follow the RTDS page: `{"topic","type","timestamp","payload"}`; a subscribe is
//! `{"action":"subscribe","subscriptions":[{"topic","type","filters"}]}` with `filters` a
//! string (a comma-separated list, or a JSON object such as `{"symbol":"btc/usd"}`).
//!
//! - Prices: every `rtds_interval` each subscribed symbol gets an `update` whose value is a
//!   deterministic function of the seed, the symbol and the tick number (tick =
//!   `now_ms / interval`), so every connection sees the same series; a driven asset
//!   (`SimHandle::drive_reference`) reports its driven price instead. A filtered subscribe is
//!   answered with a `subscribe` message holding the last three points, as the live feed does.
//!   Binance (`crypto_prices`) sends `full_accuracy_value` as a decimal string, Chainlink
//!   (`crypto_prices_chainlink`, `crypto_prices_twap_*`) as the E18 integer.
//! - Activity: every fill (one maker order against the taker) after the connection opened is
//!   sent as `orders_matched`, filtered by `event_slug`/`market_slug` when asked.
//! - Text `PING` is answered with `PONG`. WS fault rules ([`WsRule`](crate::WsRule)) apply
//!   per frame as on the CLOB channels.

use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use polyclob::types::Side;

use super::shared::Shared;
use super::socket::{Conn, End, Timed, finish};
use crate::exchange::events;
use crate::exchange::state::{Exchange, now_ms};
use crate::scenario::drift::Drift;
use crate::scenario::faults::WsChannel;

/// `whole` dollars and `frac` hundred-thousandths, in 10⁻⁵ USD.
const fn usd(whole: u64, frac: u64) -> u64 {
    whole * 100_000 + frac
}

/// Symbols and base values (in 10⁻⁵ USD) per feed.
const BINANCE: [(&str, u64); 5] = [
    ("btcusdt", usd(100_000, 0)),
    ("ethusdt", usd(3_500, 0)),
    ("solusdt", usd(180, 0)),
    ("xrpusdt", usd(2, 50_000)),
    ("dogeusdt", usd(0, 20_000)),
];
const CHAINLINK: [(&str, u64); 5] = [
    ("btc/usd", usd(100_000, 0)),
    ("eth/usd", usd(3_500, 0)),
    ("sol/usd", usd(180, 0)),
    ("xrp/usd", usd(2, 50_000)),
    ("doge/usd", usd(0, 20_000)),
];
const EQUITY: [(&str, u64); 4] = [
    ("aapl", usd(200, 0)),
    ("nvda", usd(140, 0)),
    ("tsla", usd(250, 0)),
    ("msft", usd(420, 0)),
];

/// Points in the history dump after a filtered subscribe.
const HISTORY: u64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feed {
    Binance,
    Chainlink,
    Twap(u32),
    Equity,
}

impl Feed {
    fn of(topic: &str) -> Option<Self> {
        Some(match topic {
            "crypto_prices" => Self::Binance,
            "crypto_prices_chainlink" => Self::Chainlink,
            "crypto_prices_twap_thirty" => Self::Twap(30),
            "crypto_prices_twap_sixty" => Self::Twap(60),
            "equity_prices" => Self::Equity,
            _ => return None,
        })
    }

    fn table(self) -> &'static [(&'static str, u64)] {
        match self {
            Self::Binance => &BINANCE,
            Self::Chainlink | Self::Twap(_) => &CHAINLINK,
            Self::Equity => &EQUITY,
        }
    }
}

/// One active subscription of a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sub {
    topic: String,
    kind: String,
    /// The filter string as received (subscriptions are removed by equal filters).
    filters: String,
}

impl Sub {
    fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            topic: v.get("topic")?.as_str()?.to_owned(),
            kind: v
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("*")
                .to_owned(),
            filters: match v.get("filters") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                // Some clients send the filter as JSON rather than a string: accept it.
                Some(other) => other.to_string(),
            },
        })
    }

    fn wants_type(&self, kind: &str) -> bool {
        self.kind == "*" || self.kind == kind
    }

    /// The lowercase symbols a price filter names (empty: every symbol).
    fn symbols(&self) -> Vec<String> {
        let f = self.filters.trim();
        if f.is_empty() {
            return Vec::new();
        }
        match serde_json::from_str::<Value>(f) {
            Ok(Value::Object(o)) => o
                .get("symbol")
                .and_then(Value::as_str)
                .map(|s| vec![s.to_ascii_lowercase()])
                .unwrap_or_default(),
            Ok(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .collect(),
            _ => f
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }

    /// The market or event slug an activity filter names.
    fn slug(&self) -> Option<String> {
        let v: Value = serde_json::from_str(&self.filters).ok()?;
        v.get("market_slug")
            .or_else(|| v.get("event_slug"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// `(symbol, base)` pairs this price subscription covers.
    fn priced(&self, feed: Feed) -> Vec<(&'static str, u64)> {
        let wanted = self.symbols();
        feed.table()
            .iter()
            .filter(|(s, _)| wanted.is_empty() || wanted.iter().any(|w| w == s))
            .copied()
            .collect()
    }
}

/// 10⁻⁵ units as the shortest decimal text.
fn decimal5(v: u64) -> String {
    let frac = format!("{:05}", v % 100_000);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        (v / 100_000).to_string()
    } else {
        format!("{}.{frac}", v / 100_000)
    }
}

fn price_payload(feed: Feed, symbol: &str, value: u64, tick_ms: u64) -> Value {
    let number = |v: u64| -> Value { serde_json::from_str(&decimal5(v)).unwrap_or(Value::Null) };
    let mut p = json!({"symbol": symbol, "timestamp": tick_ms, "value": number(value)});
    let exact = match feed {
        Feed::Binance => format!("{}.{:08}", value / 100_000, (value % 100_000) * 1000),
        Feed::Chainlink | Feed::Twap(_) => (u128::from(value) * 10u128.pow(13)).to_string(),
        Feed::Equity => decimal5(value),
    };
    p["full_accuracy_value"] = Value::String(exact);
    if let Feed::Twap(w) = feed {
        p["window_s"] = json!(w);
    }
    if feed == Feed::Equity {
        p["received_at"] = json!(tick_ms + 5);
    }
    p
}

fn message(topic: &str, kind: &str, payload: Value) -> String {
    json!({"topic": topic, "type": kind, "timestamp": now_ms(), "payload": payload}).to_string()
}

/// The `orders_matched` messages for the fills of trades `from..`, as `(market slug, text)`;
/// `renamed` names the token `asset_id` ([`Drift::RenamedActivityField`](crate::Drift)).
fn activity(ex: &Exchange, from: usize, renamed: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in ex.trades.since(from) {
        let m = &ex.markets[t.market];
        let token = &m.spec.tokens[t.token];
        let taker = ex.order_by_seq(t.taker_seq).map_or("", |o| o.user.as_str());
        for f in &t.fills {
            let mut payload = json!({
                "asset": token.token_id(),
                "conditionId": m.spec.condition_id,
                "eventSlug": m.spec.slug,
                "slug": m.spec.slug,
                "title": m.spec.question,
                "outcome": token.outcome(),
                "outcomeIndex": t.token,
                "price": serde_json::from_str::<Value>(&events::price(ex.taker_view_price(t, f))).unwrap_or(Value::Null),
                "size": serde_json::from_str::<Value>(&events::size(f.size)).unwrap_or(Value::Null),
                "side": match t.side { Side::Buy => "BUY", Side::Sell => "SELL" },
                "timestamp": t.match_time,
                "transactionHash": t.tx_hash,
                "proxyWallet": taker,
                "name": "",
                "pseudonym": "",
            });
            if renamed {
                if let Some(p) = payload.as_object_mut() {
                    let asset = p.remove("asset").unwrap_or(Value::Null);
                    p.insert("asset_id".to_owned(), asset);
                }
            }
            out.push((
                m.spec.slug.clone(),
                message("activity", "orders_matched", payload),
            ));
        }
    }
    out
}

pub(crate) async fn run<T>(ws: WebSocketStream<T>, shared: Arc<Shared>)
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
    } = Timed::new(ws, &shared, WsChannel::Rtds);
    let (mut events, mut seen) = {
        let ex = shared.ex();
        (ex.subscribe(), ex.trades.end())
    };
    let seed = shared.ex().cfg.seed;
    let mut subs: Vec<Sub> = Vec::new();
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = rx.next() => match msg {
                Some(Ok(Message::Text(t))) => on_text(&mut conn, &mut subs, t.as_str(), seed, interval_ms).await,
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => Err(End::Close(None)),
                Some(Ok(_)) => Ok(()),
            },
            _ = ticker.tick() => {
                let k = now_ms() / interval_ms;
                let mut out = Vec::new();
                for s in subs.iter().filter(|s| s.wants_type("update")) {
                    let Some(feed) = Feed::of(&s.topic) else { continue };
                    for (sym, base) in s.priced(feed) {
                        let v = shared.activity().paths.reference_at(seed, sym, base, k);
                        out.push(message(&s.topic, "update", price_payload(feed, sym, v, k * interval_ms)));
                    }
                }
                send_all(&mut conn, out).await
            },
            ev = events.recv() => match ev {
                // Whatever the event (and even after a lag), new trades are read from the
                // exchange by index, so no fill is skipped.
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    let out = {
                        let ex = shared.ex();
                        let out = if ex.trades.end() > seen { activity(&ex, seen, shared.drift.has(Drift::RenamedActivityField)) } else { Vec::new() };
                        seen = ex.trades.end();
                        out
                    };
                    let wanted: Vec<String> = out
                        .into_iter()
                        .filter(|(slug, _)| {
                            subs.iter().any(|s| {
                                s.topic == "activity"
                                    && s.wants_type("orders_matched")
                                    && s.slug().is_none_or(|w| &w == slug)
                            })
                        })
                        .map(|(_, text)| text)
                        .collect();
                    send_all(&mut conn, wanted).await
                }
                Err(RecvError::Closed) => Err(End::Close(None)),
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

async fn send_all<S>(conn: &mut Conn<S>, texts: Vec<String>) -> Result<(), End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    for t in texts {
        conn.send(t).await?;
    }
    Ok(())
}

async fn on_text<S>(
    conn: &mut Conn<S>,
    subs: &mut Vec<Sub>,
    text: &str,
    seed: u64,
    interval_ms: u64,
) -> Result<(), End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    if text.trim().eq_ignore_ascii_case("ping") {
        return conn.send("PONG".to_owned()).await;
    }
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Ok(());
    };
    let unsubscribe = v.get("action").and_then(Value::as_str) == Some("unsubscribe");
    let list: Vec<Sub> = v
        .get("subscriptions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Sub::from_json).collect())
        .unwrap_or_default();
    if unsubscribe {
        subs.retain(|s| !list.contains(s));
        return Ok(());
    }
    let k = now_ms() / interval_ms;
    let mut dumps = Vec::new();
    for s in list {
        if subs.contains(&s) {
            continue;
        }
        if let Some(feed) = Feed::of(&s.topic) {
            if !s.filters.is_empty() {
                for (sym, base) in s.priced(feed) {
                    let data: Vec<Value> = (k.saturating_sub(HISTORY - 1)..=k)
                        .map(|i| {
                            let p = price_payload(
                                feed,
                                sym,
                                conn.shared.activity().paths.reference_at(seed, sym, base, i),
                                i * interval_ms,
                            );
                            json!({"timestamp": p["timestamp"], "value": p["value"], "full_accuracy_value": p["full_accuracy_value"]})
                        })
                        .collect();
                    dumps.push(message(
                        &s.topic,
                        "subscribe",
                        json!({"symbol": sym, "data": data}),
                    ));
                }
            }
        }
        subs.push(s);
    }
    send_all(conn, dumps).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_render_exactly() {
        assert_eq!(decimal5(usd(100_012, 34_000)), "100012.34");
        assert_eq!(decimal5(20_000), "0.2");
        assert_eq!(decimal5(usd(5, 0)), "5");
        let p = price_payload(Feed::Chainlink, "btc/usd", usd(100_012, 34_000), 9);
        assert_eq!(p["full_accuracy_value"], "100012340000000000000000");
        let p = price_payload(Feed::Binance, "btcusdt", usd(100_012, 34_567), 9);
        assert_eq!(p["full_accuracy_value"], "100012.34567000");
    }

    #[test]
    fn filters_in_every_documented_shape() {
        let sub = |f: &str| Sub {
            topic: "crypto_prices".into(),
            kind: "update".into(),
            filters: f.into(),
        };
        assert_eq!(sub("solusdt,BTCUSDT").symbols(), ["solusdt", "btcusdt"]);
        assert_eq!(sub(r#"{"symbol":"btc/usd"}"#).symbols(), ["btc/usd"]);
        assert_eq!(sub(r#"["ethusdt"]"#).symbols(), ["ethusdt"]);
        assert!(sub("").symbols().is_empty());
        let a = Sub {
            topic: "activity".into(),
            kind: "orders_matched".into(),
            filters: r#"{"market_slug":"m"}"#.into(),
        };
        assert_eq!(a.slug().as_deref(), Some("m"));
    }
}
