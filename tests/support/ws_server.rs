//! A loopback WebSocket server for the stream tests: replays fixture frames and misbehaves
//! on command (abrupt close, silence with the socket open, garbage, close codes, refused
//! connections, floods), and records everything each connection receives.
//!
//! Include with `#[path = "support/ws_server.rs"] mod ws_server;`. Binds 127.0.0.1:0.
#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};

/// Something the server does on one connection.
#[derive(Debug, Clone)]
pub enum Action {
    /// Send a text frame.
    Text(String),
    /// Send a binary frame.
    Binary(Vec<u8>),
    /// Send a text frame whose payload is not UTF-8 (a protocol violation).
    InvalidUtf8,
    /// Send `count` text frames as fast as possible; `{n}` in the template is replaced by
    /// the sequence number (0-based).
    Flood { template: String, count: usize },
    /// Drop the TCP connection without a Close frame.
    CloseAbrupt,
    /// Stop answering `PING` and stop sending anything, keeping the socket open.
    GoSilent,
    /// Send a Close frame with this code, then end.
    Close(u16),
    /// Send a WebSocket (protocol) Ping; the client's Pong is counted in [`Conn::pongs`].
    Ping,
}

/// What one accepted WebSocket connection saw.
#[derive(Debug, Clone)]
pub struct Conn {
    /// Text messages received from the client, in order (subscribes, `PING`s …).
    pub received: Vec<String>,
    /// When the handshake completed.
    pub opened_at: Instant,
    /// When `PING`s were received.
    pub pings_at: Vec<Instant>,
    /// Whether the connection has ended.
    pub closed: bool,
    /// WebSocket Pong frames received.
    pub pongs: usize,
    /// The code of the Close frame the client sent, if it sent one.
    pub close_received: Option<u16>,
    ctl: mpsc::UnboundedSender<Action>,
}

impl Conn {
    /// Messages other than `PING`.
    pub fn messages(&self) -> Vec<&str> {
        self.received
            .iter()
            .map(String::as_str)
            .filter(|m| *m != "PING")
            .collect()
    }

    /// Number of `PING`s received.
    pub fn pings(&self) -> usize {
        self.pings_at.len()
    }
}

#[derive(Debug, Default)]
pub struct State {
    pub conns: Vec<Conn>,
    /// TCP connections accepted and dropped before the handshake.
    pub dropped_before_handshake: usize,
    refuse_next: usize,
    /// `(status, Retry-After seconds)`: the next upgrades answered with these HTTP errors.
    http_refusals: std::collections::VecDeque<(u16, Option<u64>)>,
    /// When each upgrade was refused with an HTTP error.
    pub http_refused_at: Vec<Instant>,
    on_subscribe: Vec<String>,
    /// `(needle, frames)`: a received text containing `needle` is answered with `frames`.
    replies: Vec<(String, Vec<String>)>,
    silent_from_start: bool,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
}

/// The server. Dropping it stops accepting (open connections end with their tasks).
#[derive(Debug)]
pub struct WsServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl WsServer {
    /// Bind 127.0.0.1:0 and start accepting.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
        });
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Self {
            addr,
            shared,
            accept: Mutex::new(Some(accept)),
        }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws/market", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Frames sent after every initial subscribe message (one containing `"type":`).
    pub fn on_subscribe(&self, frames: Vec<String>) {
        self.state().on_subscribe = frames;
    }

    /// Answer every received text containing `needle` with `frames` (after the
    /// `on_subscribe` replay, in the order the rules were added).
    pub fn reply_to(&self, needle: &str, frames: Vec<String>) {
        self.state().replies.push((needle.to_owned(), frames));
    }

    /// Forget every [`reply_to`](Self::reply_to) rule.
    pub fn clear_replies(&self) {
        self.state().replies.clear();
    }

    /// Accept and immediately drop the next `n` TCP connections (handshake fails).
    pub fn refuse_next(&self, n: usize) {
        self.state().refuse_next = n;
    }

    /// Answer the next upgrade request with HTTP `status` (and `Retry-After: secs`).
    pub fn refuse_http(&self, status: u16, retry_after_secs: Option<u64>) {
        self.state()
            .http_refusals
            .push_back((status, retry_after_secs));
    }

    /// New connections start silent (no replay, no PONG).
    pub fn silent_from_start(&self, on: bool) {
        self.state().silent_from_start = on;
    }

    /// Close the listening socket: connection attempts are refused (RST) until
    /// [`resume_listening`](Self::resume_listening).
    pub fn stop_listening(&self) {
        if let Some(task) = self.accept.lock().expect("accept lock").take() {
            task.abort();
        }
    }

    /// Listen again on the same port.
    pub async fn resume_listening(&self) {
        // The aborted task drops its listener asynchronously; retry the bind briefly.
        let deadline = Instant::now() + Duration::from_secs(2);
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(l) => break l,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Err(e) => panic!("rebind {}: {e}", self.addr),
            }
        };
        let task = tokio::spawn(accept_loop(listener, Arc::clone(&self.shared)));
        *self.accept.lock().expect("accept lock") = Some(task);
    }

    /// Make connection `k` (0-based, in accept order) do `action`.
    pub fn act(&self, k: usize, action: Action) {
        let st = self.state();
        let conn = st
            .conns
            .get(k)
            .unwrap_or_else(|| panic!("no connection {k}"));
        let _ = conn.ctl.send(action);
    }

    /// Make the most recent connection do `action`.
    pub fn act_last(&self, action: Action) {
        let k = self
            .state()
            .conns
            .len()
            .checked_sub(1)
            .expect("no connection yet");
        self.act(k, action);
    }

    /// Number of WebSocket connections accepted so far.
    pub fn connections(&self) -> usize {
        self.state().conns.len()
    }

    /// A snapshot of connection `k`.
    pub fn conn(&self, k: usize) -> Conn {
        self.state().conns[k].clone()
    }

    /// Wait until `pred` holds, polling; `false` if `timeout` passes first.
    pub async fn wait_for(&self, timeout: Duration, pred: impl Fn(&State) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if pred(&self.state()) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

impl Drop for WsServer {
    fn drop(&mut self) {
        self.stop_listening();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        {
            let mut st = shared.state.lock().expect("state");
            if st.refuse_next > 0 {
                st.refuse_next -= 1;
                st.dropped_before_handshake += 1;
                drop(tcp);
                continue;
            }
        }
        tokio::spawn(serve(tcp, Arc::clone(&shared)));
    }
}

async fn serve(tcp: TcpStream, shared: Arc<Shared>) {
    use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
    let _ = tcp.set_nodelay(true);
    // The handshake callback's signature is tungstenite's: its error is the HTTP answer.
    #[allow(clippy::result_large_err)]
    let refuse = |_: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        let mut st = shared.state.lock().expect("state");
        let Some((status, retry_after)) = st.http_refusals.pop_front() else {
            return Ok(resp);
        };
        st.http_refused_at.push(Instant::now());
        let mut e = ErrorResponse::new(Some("refused".to_owned()));
        *e.status_mut() = status.try_into().expect("an HTTP status");
        if let Some(secs) = retry_after {
            e.headers_mut().insert(
                "retry-after",
                secs.to_string().parse().expect("a header value"),
            );
        }
        Err(e)
    };
    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, refuse).await else {
        return;
    };
    let (ctl, mut ctl_rx) = mpsc::unbounded_channel();
    let (k, mut silent) = {
        let mut st = shared.state.lock().expect("state");
        let silent = st.silent_from_start;
        st.conns.push(Conn {
            received: Vec::new(),
            opened_at: Instant::now(),
            pings_at: Vec::new(),
            closed: false,
            pongs: 0,
            close_received: None,
            ctl,
        });
        (st.conns.len() - 1, silent)
    };
    let mark_closed = |shared: &Shared| {
        shared.state.lock().expect("state").conns[k].closed = true;
    };
    loop {
        tokio::select! {
            msg = ws.next() => {
                let Some(Ok(msg)) = msg else { break };
                if let Message::Pong(_) = msg {
                    shared.state.lock().expect("state").conns[k].pongs += 1;
                    continue;
                }
                if let Message::Close(frame) = &msg {
                    let code = frame.as_ref().map_or(1005, |f| u16::from(f.code));
                    shared.state.lock().expect("state").conns[k].close_received = Some(code);
                    continue;
                }
                let Message::Text(text) = msg else { continue };
                let text = text.as_str().to_owned();
                let replay = {
                    let mut st = shared.state.lock().expect("state");
                    let conn = &mut st.conns[k];
                    if text == "PING" {
                        conn.pings_at.push(Instant::now());
                    }
                    conn.received.push(text.clone());
                    let mut replay =
                        if text.contains("\"type\":") { st.on_subscribe.clone() } else { Vec::new() };
                    for (needle, frames) in &st.replies {
                        if text.contains(needle.as_str()) {
                            replay.extend(frames.iter().cloned());
                        }
                    }
                    replay
                };
                if silent {
                    continue;
                }
                if text == "PING" {
                    if ws.send(Message::text("PONG")).await.is_err() { break }
                    continue;
                }
                for frame in replay {
                    if ws.feed(Message::text(frame)).await.is_err() { break }
                }
                if ws.flush().await.is_err() { break }
            }
            action = ctl_rx.recv() => {
                let Some(action) = action else { break };
                let ok = match action {
                    Action::Text(t) => ws.send(Message::text(t)).await.is_ok(),
                    Action::Binary(b) => ws.send(Message::binary(b)).await.is_ok(),
                    Action::InvalidUtf8 => {
                        let frame = Frame::message(vec![0xff, 0xfe, b'{'], OpCode::Data(Data::Text), true);
                        ws.send(Message::Frame(frame)).await.is_ok()
                    }
                    Action::Flood { template, count } => {
                        let mut ok = true;
                        for n in 0..count {
                            let t = template.replace("{n}", &n.to_string());
                            if ws.feed(Message::text(t)).await.is_err() { ok = false; break }
                        }
                        ok && ws.flush().await.is_ok()
                    }
                    Action::CloseAbrupt => {
                        drop(ws);
                        mark_closed(&shared);
                        return;
                    }
                    Action::Ping => ws.send(Message::Ping(Vec::new().into())).await.is_ok(),
                    Action::GoSilent => {
                        silent = true;
                        true
                    }
                    Action::Close(code) => {
                        let frame = CloseFrame { code: CloseCode::from(code), reason: "policy".into() };
                        let _ = ws.close(Some(frame)).await;
                        // Let the close handshake finish (or the client drop) before ending.
                        let _ = tokio::time::timeout(Duration::from_millis(200), async {
                            while let Some(Ok(_)) = ws.next().await {}
                        }).await;
                        false
                    }
                };
                if !ok { break }
            }
        }
    }
    mark_closed(&shared);
}

/// Client-side helpers shared by the stream tests.
pub mod client {
    use std::time::Duration;

    use futures_util::{Stream, StreamExt};
    use polyclob::ws::event::{OwnedFrame, Status};
    use polyclob::ws::feed::FeedEvent;
    use tokio::time::Instant;

    /// An item of a raw frame feed.
    pub type Event = FeedEvent<OwnedFrame>;

    /// The replay fixture, one frame per line.
    pub fn fixture_frames() -> Vec<String> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/ws_market_replay.jsonl"
        );
        std::fs::read_to_string(path)
            .expect("read fixture")
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// Items of any stream until `pred` matches one (returned last), failing the test after
    /// `timeout` or if the stream ends first.
    pub async fn until<S, T>(
        s: &mut S,
        timeout: Duration,
        mut pred: impl FnMut(&T) -> bool,
    ) -> Vec<T>
    where
        S: Stream<Item = T> + Unpin,
        T: std::fmt::Debug,
    {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, s.next()).await {
                Ok(Some(ev)) => {
                    let done = pred(&ev);
                    seen.push(ev);
                    if done {
                        return seen;
                    }
                }
                Ok(None) => panic!("stream ended; saw {seen:#?}"),
                Err(_) => panic!("no matching event within {timeout:?}; saw {seen:#?}"),
            }
        }
    }

    /// Every item of any stream arriving within `window`.
    pub async fn drain_for<S, T>(s: &mut S, window: Duration) -> Vec<T>
    where
        S: Stream<Item = T> + Unpin,
    {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, s.next()).await {
            seen.push(ev);
        }
        seen
    }

    pub fn is_connected<M>(ev: &FeedEvent<M>, reconnect: bool) -> bool {
        matches!(ev, FeedEvent::Status(Status::Connected { reconnect: r, .. }) if *r == reconnect)
    }

    pub fn frames(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Message(f) => Some(String::from_utf8_lossy(f.as_bytes()).into_owned()),
                _ => None,
            })
            .collect()
    }

    pub fn statuses<M>(events: &[FeedEvent<M>]) -> Vec<Status> {
        events
            .iter()
            .filter_map(|e| match e {
                FeedEvent::Status(s) => Some(s.clone()),
                _ => None,
            })
            .collect()
    }
}
