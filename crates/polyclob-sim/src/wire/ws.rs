//! The WS channels (protocol.md §5): `/ws/market` (books and deltas per asset) and `/ws/user`
//! (the authenticated user's orders and trades, filtered by condition id). Text `PING` gets
//! text `PONG`; subscriptions can change at any time; fault rules ([`WsRule`](crate::WsRule))
//! can drop, silence, stall or close a connection, for one account, market or endpoint, and
//! on the user channel replay an account's trade history or a stale status as it subscribes
//! ([`WsFault::ReplayHistory`](crate::WsFault::ReplayHistory),
//! [`WsFault::StaleStatus`](crate::WsFault::StaleStatus)) or send a trade malformed
//! ([`WsFault::MalformedTrade`](crate::WsFault::MalformedTrade)).
//!
//! Subscription rules of the exchange (NT PR #3717, NT `websocket/client.rs`; see
//! exchange-2026.md §d.7): the initial message (the one with `"type"`) is accepted once per
//! connection, a second one is answered with the text `INVALID OPERATION` and ignored (later
//! changes use `"operation":"subscribe"|"unsubscribe"`); a `PING` before any subscription
//! message is answered with `INVALID OPERATION` instead of `PONG`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use super::http::error_response;
use super::shared::Shared;
use super::socket::{AbortOnDrop, Conn, End};
use crate::exchange::events;
use crate::exchange::state::{Outbound, now_ms};
use crate::scenario::faults::{About, WsChannel, WsFrame};

/// Whether the request asks for a WebSocket upgrade.
pub(crate) fn is_upgrade(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(hyper::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    Market,
    User,
}

/// Which socket an upgrade asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Clob(Channel),
    Rtds,
    PolyBolt,
    Sports,
}

/// Answers the upgrade with `101` and runs the channel on the upgraded connection.
pub(crate) fn upgrade(req: Request<Incoming>, shared: Arc<Shared>) -> Response<Full<Bytes>> {
    let channel = match req.uri().path() {
        "/ws/market" => Route::Clob(Channel::Market),
        "/ws/user" => Route::Clob(Channel::User),
        "/rtds" => Route::Rtds,
        "/polybolt" => Route::PolyBolt,
        "/sports" => Route::Sports,
        _ => return error_response(StatusCode::NOT_FOUND, "Not Found"),
    };
    let Some(key) = req
        .headers()
        .get("sec-websocket-key")
        .map(|k| derive_accept_key(k.as_bytes()))
    else {
        return error_response(StatusCode::BAD_REQUEST, "missing Sec-WebSocket-Key");
    };
    tokio::spawn(async move {
        if let Ok(upgraded) = hyper::upgrade::on(req).await {
            let ws =
                WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
            match channel {
                Route::Clob(channel) => run(ws, channel, shared).await,
                Route::Rtds => super::rtds::run(ws, shared).await,
                Route::PolyBolt => super::polybolt::run(ws, shared).await,
                Route::Sports => super::sports::run(ws, shared).await,
            }
        }
    });
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("Upgrade"),
    );
    h.insert(
        hyper::header::UPGRADE,
        hyper::header::HeaderValue::from_static("websocket"),
    );
    if let Ok(v) = hyper::header::HeaderValue::from_str(&key) {
        h.insert(hyper::header::SEC_WEBSOCKET_ACCEPT, v);
    }
    r
}

/// What one connection is subscribed to.
#[derive(Debug, Default)]
struct Subs {
    /// Market channel: asset id → sequence number of the snapshot sent (later frames only).
    assets: HashMap<String, u64>,
    /// Market channel: `custom_feature_enabled` (adds `best_bid_ask`).
    custom: bool,
    /// User channel: the authenticated user (lowercase address).
    user: Option<String>,
    /// User channel: condition ids.
    markets: HashSet<String>,
    /// User channel: subscribed without a market list, i.e. to every market.
    all_markets: bool,
    /// The initial (`"type"`) message was received on this connection.
    initial: bool,
    /// Some subscription object (initial or not) was received: `PING` is answered.
    spoke: bool,
}

impl Subs {
    fn wants(&self, m: &Outbound) -> bool {
        match m {
            Outbound::Market { custom: true, .. } if !self.custom => false,
            Outbound::Market { seq, assets, .. } => assets
                .iter()
                .any(|a| self.assets.get(a).is_some_and(|snap| *seq > *snap)),
            Outbound::User { user, market, .. } => {
                self.user.as_deref() == Some(user.as_str())
                    && (self.all_markets || self.markets.contains(market))
            }
        }
    }
}

/// At most this many queued events are handled per wake-up before the frames are flushed
/// (and the other branches of the connection loop get a turn).
const BATCH: usize = 256;

/// Queues one fan-out event if this connection wants it; `Ok(true)`: a frame was queued.
async fn offer<S>(conn: &mut Conn<S>, subs: &Subs, m: &Outbound) -> Result<bool, End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    if !subs.wants(m) {
        return Ok(false);
    }
    match m {
        Outbound::Market { text, assets, .. } => {
            conn.feed(text.clone(), About::Assets(assets)).await?;
        }
        Outbound::User { text, market, .. } => {
            let trade = trade_of(text);
            let about = match &trade {
                Some((id, status)) => About::Trade {
                    market,
                    id,
                    status,
                    text,
                },
                None => About::Market(market),
            };
            conn.feed(text.clone(), about).await?;
        }
    }
    Ok(true)
}

/// A user-channel message's `(id, status)`, when it is a trade (for the fault rules that
/// replay, or corrupt, trade messages).
fn trade_of(text: &str) -> Option<(String, String)> {
    if !text.contains(r#""event_type":"trade""#) {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some((field("id")?, field("status")?))
}

/// Handles a fan-out event and whatever else is already queued (up to [`BATCH`]), then
/// flushes once: at high rates a connection wakes and writes once per burst, not once per
/// frame.
async fn on_events<S>(
    conn: &mut Conn<S>,
    subs: &Subs,
    first: Arc<Outbound>,
    events: &mut tokio::sync::broadcast::Receiver<Arc<Outbound>>,
) -> Result<(), End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let mut queued = offer(conn, subs, &first).await?;
    for _ in 1..BATCH {
        match events.try_recv() {
            Ok(m) => queued |= offer(conn, subs, &m).await?,
            Err(TryRecvError::Empty) => break,
            // A consumer this far behind has lost frames: drop it so it re-snapshots.
            Err(TryRecvError::Lagged(_)) => return Err(End::Drop),
            Err(TryRecvError::Closed) => return Err(End::Close(None)),
        }
    }
    if queued { conn.flush().await } else { Ok(()) }
}

/// Forwards the client's text frames to the connection loop until the client closes, the
/// socket fails, or the loop is gone. Protocol pings are answered by tungstenite; binary
/// frames are ignored.
async fn read_texts<T>(
    mut rx: futures_util::stream::SplitStream<WebSocketStream<T>>,
    texts: tokio::sync::mpsc::Sender<Utf8Bytes>,
) where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    while let Some(Ok(msg)) = rx.next().await {
        let more = match msg {
            Message::Text(t) => texts.send(t).await.is_ok(),
            Message::Close(_) => false,
            _ => true,
        };
        if !more {
            return;
        }
    }
}

async fn run<T>(ws: WebSocketStream<T>, channel: Channel, shared: Arc<Shared>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = ws.split();
    // The socket's read half has a task of its own: polling it in the loop below would
    // attempt a read (and clear tungstenite's read buffer) after every fan-out event, the
    // feed's largest cost at thousands of frames a second. Dropping `reader` stops it.
    let (texts, mut inbox) = tokio::sync::mpsc::channel(64);
    let reader = AbortOnDrop(tokio::spawn(read_texts(rx, texts)));
    let mut events = shared.ex().subscribe();
    let mut kick = shared.kick.subscribe();
    let mut shutdown = shared.shutdown.clone();
    let mut subs = Subs::default();
    let mut conn = Conn::new(
        tx,
        &shared,
        match channel {
            Channel::Market => WsChannel::Market,
            Channel::User => WsChannel::User,
        },
    );
    let end = loop {
        let step: Result<(), End> = tokio::select! {
            msg = inbox.recv() => match msg {
                Some(t) => on_text(&mut conn, &mut subs, channel, t.as_str()).await,
                None => Err(End::Close(None)),
            },
            ev = events.recv() => match ev {
                Ok(m) => on_events(&mut conn, &subs, m, &mut events).await,
                // A consumer this far behind has lost frames: drop it so it re-snapshots.
                Err(RecvError::Lagged(_)) => Err(End::Drop),
                Err(RecvError::Closed) => Err(End::Close(None)),
            },
            _ = kick.changed() => Err(End::Drop),
            _ = shutdown.changed() => Err(End::going_away()),
        };
        if let Err(e) = step {
            break e;
        }
    };
    drop(reader);
    if let End::Close(frame) = end {
        let _ = conn.tx.send(Message::Close(frame)).await;
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The exchange's answer to a second initial subscribe or an early `PING`.
const INVALID_OPERATION: &str = "INVALID OPERATION";

async fn on_text<S>(
    conn: &mut Conn<S>,
    subs: &mut Subs,
    channel: Channel,
    text: &str,
) -> Result<(), End>
where
    S: futures_util::Sink<Message> + Unpin,
{
    if text.trim() == "PING" {
        let reply = if subs.spoke {
            "PONG"
        } else {
            INVALID_OPERATION
        };
        return conn.send(reply).await;
    }
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        // Unparseable control text is ignored, like the exchange's feed does.
        return Ok(());
    };
    subs.spoke |= v.is_object();
    if v.get("type").is_some() {
        if subs.initial {
            return conn.send(INVALID_OPERATION).await;
        }
        subs.initial = true;
    }
    let op = v
        .get("operation")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    let unsubscribe = op.as_deref() == Some("unsubscribe");
    match channel {
        Channel::Market => {
            let assets = strings(v.get("assets_ids"));
            if unsubscribe {
                for a in &assets {
                    subs.assets.remove(a);
                }
                return Ok(());
            }
            let dump = v
                .get("initial_dump")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            if let Some(c) = v.get("custom_feature_enabled").and_then(Value::as_bool) {
                subs.custom = c;
            }
            let (frame, named) = {
                let ex = conn.shared.ex();
                let seq = ex.msg_seq();
                let ts = now_ms();
                let mut books = Vec::new();
                let mut named = Vec::new();
                for a in assets {
                    if let Some((mi, ti)) = ex.token(&a) {
                        books.push(events::ws_book(&ex, mi, ti, ts));
                        named.push(a.clone());
                        subs.assets.insert(a, seq);
                    }
                }
                let frame = (dump && !books.is_empty()).then(|| format!("[{}]", books.join(",")));
                (frame, named)
            };
            match frame {
                Some(f) => {
                    conn.feed(f.into(), About::Assets(&named)).await?;
                    conn.flush().await
                }
                None => Ok(()),
            }
        }
        Channel::User => {
            let markets = strings(v.get("markets"));
            // Trade messages a fault rule sends again as the connection subscribes.
            let mut replay = Vec::new();
            if let Some(auth) = v.get("auth") {
                let field = |k: &str| auth.get(k).and_then(Value::as_str).unwrap_or("");
                let user = {
                    let ex = conn.shared.ex();
                    ex.keys
                        .get(field("apiKey"))
                        .filter(|k| {
                            k.secret == field("secret") && k.passphrase == field("passphrase")
                        })
                        .map(|k| k.address.clone())
                };
                match user {
                    Some(u) => {
                        conn.account = Some((u.clone(), field("apiKey").to_owned()));
                        subs.user = Some(u);
                        // An initial subscription without markets follows every market.
                        subs.all_markets = markets.is_empty();
                        let frame = WsFrame {
                            channel: WsChannel::User,
                            account: conn.account.as_ref().map(|(a, k)| (a.as_str(), k.as_str())),
                            about: About::Nothing,
                        };
                        replay = conn.shared.faults().on_user_subscribe(&frame);
                    }
                    None => {
                        return Err(End::Close(Some(CloseFrame {
                            code: CloseCode::Policy,
                            reason: "invalid auth".into(),
                        })));
                    }
                }
            }
            if unsubscribe {
                for m in &markets {
                    subs.markets.remove(m);
                }
            } else {
                subs.markets.extend(markets);
            }
            if replay.is_empty() {
                return Ok(());
            }
            for (market, text) in replay {
                if subs.all_markets || subs.markets.contains(&market) {
                    conn.feed(text, About::Market(&market)).await?;
                }
            }
            conn.flush().await
        }
    }
}
