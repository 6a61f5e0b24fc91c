//! One shard: a connection that subscribes, keeps itself alive, and comes back.
//!
//! Each shard runs as its own task and owns its socket. The loop is
//! connect → subscribe → read/ping/watch → (end) → bump epoch → back off → connect …
//!
//! - **Keepalive** ([Polymarket WSS overview]): the text frame `PING` every `ping_interval`,
//!   only once something has been subscribed; the server answers the text `PONG`, which is
//!   consumed here and never delivered.
//! - **Watchdog**: no inbound byte for `silence_timeout`, or no `PONG` within `pong_timeout`
//!   of a `PING`, ends the connection. A half-open TCP connection (peer gone without FIN)
//!   is detected this way; no read waits forever. Writes are bounded by the same timeout.
//! - **Epochs**: the shard increments its epoch (shared with the consumer) the moment a
//!   connection ends, so frames of that connection still queued are discarded rather than
//!   mixed with the next connection's snapshots.
//! - **Lag**: frames go to a bounded queue with `try_send`; when it is full and the consumer
//!   frees no slot within 50 ms, the shard reports [`Status::Lagged`] and reconnects (a fresh
//!   connection brings fresh snapshots), so a slow consumer never loses data silently. A
//!   burst (one socket read can hold thousands of frames) is not a lag: the shard yields once
//!   64 frames (or half the queue) are waiting, so on a single-threaded runtime the consumer
//!   runs between batches instead of after the whole burst.
//!
//! [Polymarket WSS overview]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};
use tokio_tungstenite::tungstenite::{self, Message, protocol::WebSocketConfig};

use super::backoff::Backoff;
use super::counters::Counters;
use super::event::{Payload, Status};
use super::subscribe::{self, Op};
use super::transport::{self, Endpoint, Ws};
use crate::clob::Credentials;

/// How long a full queue may stay full before the consumer counts as lagging.
pub(crate) const LAG_GRACE: Duration = Duration::from_millis(50);

/// Queued frames at which a shard lets the consumer run before reading more.
pub(crate) const YIELD_AT: usize = 64;

/// What one read result asks of the session loop.
enum Step {
    /// Keep reading.
    Next,
    /// Send this text (the sports socket's `pong`), then keep reading.
    Reply(&'static str),
    /// The queue is full: wait for room (up to [`LAG_GRACE`]) to hand this over.
    Full(Inbound),
    /// The session ends.
    End(End),
}

/// Why a connection attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL is not a `ws://` or `wss://` URL with a host.
    InvalidUrl,
    /// The TLS configuration could not be built.
    Tls,
    /// TCP or TLS failed (refused, reset, unreachable, certificate rejected …).
    Io(std::io::ErrorKind),
    /// The server answered the upgrade request with this HTTP status. A `Retry-After` in
    /// that answer (a 429 or 503) is honoured: the next attempt waits at least that long
    /// ([`Status::Disconnected`]'s `retry_in` says how long).
    Rejected(u16),
    /// The WebSocket handshake failed for another reason.
    Handshake,
    /// Connect + TLS + handshake did not finish within `connect_timeout`.
    Timeout,
    /// The proxy did not open a tunnel to the endpoint (the step that failed; never the
    /// proxy's credentials).
    Proxy(crate::http::ProxyFailure),
}

impl ConnectError {
    pub(crate) fn from_handshake(e: &tungstenite::Error) -> Self {
        match e {
            tungstenite::Error::Http(resp) => ConnectError::Rejected(resp.status().as_u16()),
            tungstenite::Error::Io(io) => ConnectError::Io(io.kind()),
            _ => ConnectError::Handshake,
        }
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::InvalidUrl => {
                f.write_str("invalid WebSocket URL (need ws:// or wss:// and a host)")
            }
            ConnectError::Tls => f.write_str("could not build the TLS configuration"),
            ConnectError::Io(kind) => write!(f, "connection failed: {kind}"),
            ConnectError::Rejected(status) => {
                write!(f, "server rejected the upgrade with HTTP {status}")
            }
            ConnectError::Handshake => f.write_str("WebSocket handshake failed"),
            ConnectError::Timeout => f.write_str("connect timed out"),
            ConnectError::Proxy(p) => fmt::Display::fmt(p, f),
        }
    }
}

impl std::error::Error for ConnectError {}

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Disconnect {
    /// The connection attempt itself failed.
    Connect(ConnectError),
    /// The server sent a Close frame with this code (e.g. 1008, policy violation).
    Closed {
        /// The close code, if the frame carried one.
        code: Option<u16>,
    },
    /// The TCP stream ended without a Close frame.
    Eof,
    /// A read or write failed.
    Io(std::io::ErrorKind),
    /// The server broke the WebSocket protocol (bad framing, invalid UTF-8 text …).
    Protocol,
    /// A message exceeded `max_message_size`.
    TooLarge,
    /// Nothing was received for `silence_timeout` (or a write stalled that long):
    /// the connection is presumed half-open.
    Silence,
    /// No `PONG` arrived within `pong_timeout` of a `PING`.
    PongTimeout,
    /// The consumer fell behind; reconnecting for fresh snapshots (see [`Status::Lagged`]).
    Lagged,
    /// A reconnect was requested through the API.
    Requested,
}

impl Disconnect {
    fn from_ws(e: &tungstenite::Error) -> Self {
        match e {
            tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
                Disconnect::Eof
            }
            tungstenite::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                Disconnect::Eof
            }
            tungstenite::Error::Protocol(
                tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
            ) => Disconnect::Eof,
            tungstenite::Error::Io(io) => Disconnect::Io(io.kind()),
            tungstenite::Error::Capacity(_) => Disconnect::TooLarge,
            _ => Disconnect::Protocol,
        }
    }
}

impl fmt::Display for Disconnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disconnect::Connect(e) => write!(f, "{e}"),
            Disconnect::Closed { code: Some(c) } => {
                write!(f, "server closed the connection (code {c})")
            }
            Disconnect::Closed { code: None } => f.write_str("server closed the connection"),
            Disconnect::Eof => f.write_str("connection ended without a close frame"),
            Disconnect::Io(kind) => write!(f, "I/O error: {kind}"),
            Disconnect::Protocol => f.write_str("WebSocket protocol error"),
            Disconnect::TooLarge => f.write_str("message too large"),
            Disconnect::Silence => {
                f.write_str("no data within the silence timeout (half-open connection)")
            }
            Disconnect::PongTimeout => f.write_str("no PONG within the pong timeout"),
            Disconnect::Lagged => f.write_str("consumer lagged; reconnecting for fresh snapshots"),
            Disconnect::Requested => f.write_str("reconnect requested"),
        }
    }
}

/// Passed to the reconnect hook after a shard has reconnected and resubscribed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Reconnected {
    /// Connection index.
    pub shard: usize,
    /// Epoch of the new connection.
    pub epoch: u64,
    /// What the shard is subscribed to (asset ids; condition ids on the user channel; on
    /// RTDS, each subscription object as sent, see [`crate::rtds::Subscription::to_json`]).
    pub ids: Vec<String>,
}

/// The boxed future a reconnect hook returns.
pub(crate) type HookFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A user-supplied async callback run (on its own task) after every *re*connect, once the
/// resubscription has been sent — e.g. to fetch open orders and recent trades over REST,
/// since the user channel does not replay what happened while disconnected.
pub(crate) type ReconnectHook = Arc<dyn Fn(Reconnected) -> HookFuture + Send + Sync + 'static>;

/// What kind of channel a shard speaks.
#[derive(Debug)]
pub(crate) enum ChannelKind {
    Market {
        custom_feature_enabled: bool,
        initial_dump: bool,
    },
    User {
        auth: Credentials,
    },
    /// The real-time data socket: the shard's ids are subscription objects, rendered by
    /// [`crate::rtds::Subscription::write_json`]. Its server shows liveness by sending, not
    /// necessarily by answering `PING` with `PONG`, so any inbound message answers a `PING`.
    Rtds,
    /// PolyBolt: the first frame is `{"op":"auth",…}`; the subscription (the shard's ids are
    /// `{"channel","filter"}` objects) goes once the server answered `authed`. Keepalive is
    /// `{"op":"ping"}` (any inbound message answers it); the server's WebSocket pings are
    /// answered by the transport. Close 4001 and 4008 stop the shard, 4003 reconnects once
    /// after a uniformly random delay of at most 10 s.
    PolyBolt {
        auth: Credentials,
    },
    /// The sports socket: nothing to subscribe, the server's text `ping` is answered with
    /// `pong`, and the client sends no keepalive of its own (the server's pings are the
    /// liveness signal the watchdog watches).
    Sports,
}

impl ChannelKind {
    /// The `channel` field of tracing events.
    #[cfg(feature = "tracing")]
    fn name(&self) -> &'static str {
        match self {
            ChannelKind::Market { .. } => "market",
            ChannelKind::User { .. } => "user",
            ChannelKind::Rtds => "rtds",
            ChannelKind::PolyBolt { .. } => "polybolt",
            ChannelKind::Sports => "sports",
        }
    }
}

/// Close codes of PolyBolt ([PolyBolt WebSocket]).
///
/// [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview
pub(crate) mod close {
    // 4002 (slow consumer or pong timeout) takes the usual backoff: no constant needed.
    /// Authentication failed: do not retry with the same credentials.
    pub(crate) const AUTH: u16 = 4001;
    /// Server draining: reconnect after a uniformly random 0–10 s.
    pub(crate) const DRAINING: u16 = 4003;
    /// Policy violation (a limit): do not retry the same request.
    pub(crate) const POLICY: u16 = 4008;
}

/// Longest delay of the one reconnect after PolyBolt's close 4003 (the docs: 0 to 10 s).
pub(crate) const DRAIN_MAX: Duration = Duration::from_secs(10);

/// Connection settings shared by all shards of a stream.
pub(crate) struct Config {
    pub(crate) endpoint: Endpoint,
    /// The proxy this endpoint is reached through, if any (resolved at build).
    pub(crate) proxy: Option<Arc<crate::http::Proxy>>,
    pub(crate) tls: Option<Arc<rustls::ClientConfig>>,
    pub(crate) ping_interval: Duration,
    pub(crate) pong_timeout: Duration,
    pub(crate) silence_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) backoff_initial: Duration,
    pub(crate) backoff_max: Duration,
    pub(crate) max_message_size: usize,
    pub(crate) read_buffer_size: usize,
    pub(crate) on_reconnect: Option<ReconnectHook>,
    pub(crate) kind: ChannelKind,
    /// The stream's counters, shared by its shards.
    pub(crate) counters: super::counters::Counters,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("url", &self.endpoint.url)
            .field("proxy", &self.proxy)
            .field("ping_interval", &self.ping_interval)
            .field("pong_timeout", &self.pong_timeout)
            .field("silence_timeout", &self.silence_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("backoff_initial", &self.backoff_initial)
            .field("backoff_max", &self.backoff_max)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// Requests from the stream handle to a shard.
#[derive(Debug)]
pub(crate) enum Command {
    Subscribe(Vec<String>),
    Unsubscribe(Vec<String>),
    Reconnect,
    Shutdown,
}

/// What shards send to the consumer, in order.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// First message of every shard: the cell holding its current epoch.
    Started {
        shard: usize,
        epoch: Arc<AtomicU64>,
    },
    Frame {
        shard: usize,
        epoch: u64,
        payload: Payload,
        /// When the connection's task took the message from the transport.
        received: std::time::Instant,
    },
    Status(Status),
}

/// How a session ended.
struct End {
    reason: Disconnect,
    /// At least one data frame was received: the server accepted us, so the next
    /// failure starts the backoff from the beginning.
    healthy: bool,
    /// Frames lost to a full queue.
    lagged: u64,
    shutdown: bool,
}

impl End {
    fn new(reason: Disconnect, healthy: bool) -> Self {
        Self {
            reason,
            healthy,
            lagged: 0,
            shutdown: false,
        }
    }
    fn shutdown() -> Self {
        Self {
            reason: Disconnect::Requested,
            healthy: true,
            lagged: 0,
            shutdown: true,
        }
    }
}

/// One connection's task state.
pub(crate) struct Shard {
    pub(crate) id: usize,
    pub(crate) cfg: Arc<Config>,
    pub(crate) ids: BTreeSet<String>,
    pub(crate) cmd_rx: mpsc::UnboundedReceiver<Command>,
    pub(crate) tx: mpsc::Sender<Inbound>,
    pub(crate) start_at: Option<Instant>,
    pub(crate) epoch: Arc<AtomicU64>,
    pub(crate) backoff: Backoff,
    pub(crate) buf: String,
}

impl fmt::Debug for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shard")
            .field("id", &self.id)
            .field("ids", &self.ids.len())
            .finish()
    }
}

impl Shard {
    pub(crate) fn new(
        id: usize,
        cfg: Arc<Config>,
        ids: BTreeSet<String>,
        cmd_rx: mpsc::UnboundedReceiver<Command>,
        tx: mpsc::Sender<Inbound>,
        start_at: Option<Instant>,
    ) -> Self {
        let backoff = Backoff::new(
            cfg.backoff_initial,
            cfg.backoff_max,
            super::backoff::entropy_seed() ^ id as u64,
        );
        Self {
            id,
            cfg,
            ids,
            cmd_rx,
            tx,
            start_at,
            epoch: Arc::new(AtomicU64::new(1)),
            backoff,
            buf: String::new(),
        }
    }

    /// Whether the shard connects with nothing subscribed (its first message does not depend
    /// on subscriptions).
    fn connects_empty(&self) -> bool {
        matches!(
            self.cfg.kind,
            ChannelKind::User { .. } | ChannelKind::PolyBolt { .. } | ChannelKind::Sports
        )
    }

    /// What to do after a session of a PolyBolt shard ended with `reason`: `None` to stop,
    /// `Some(delay)` to reconnect after `delay` (`Some(None)` = the usual backoff).
    fn polybolt_policy(&mut self, reason: Disconnect) -> Option<Option<Duration>> {
        if !matches!(self.cfg.kind, ChannelKind::PolyBolt { .. }) {
            return Some(None);
        }
        match reason {
            Disconnect::Closed {
                code: Some(close::AUTH | close::POLICY),
            } => None,
            Disconnect::Closed {
                code: Some(close::DRAINING),
            } => {
                let max = DRAIN_MAX.min(self.cfg.backoff_max);
                // Full jitter over [0, max]: a fresh backoff's draw is uniform on [max/2, max].
                let mut b = Backoff::new(max * 2, max * 2, super::backoff::entropy_seed());
                Some(Some(b.next_delay().saturating_sub(max)))
            }
            _ => Some(None),
        }
    }

    /// The shard's task body. Ends on `Shutdown`, when every handle is gone, or when the
    /// consumer dropped the stream.
    pub(crate) async fn run(mut self) {
        let started = Inbound::Started {
            shard: self.id,
            epoch: Arc::clone(&self.epoch),
        };
        if self.tx.send(started).await.is_err() {
            return;
        }
        if let Some(at) = self.start_at.take() {
            if self.idle_until(at).await {
                return;
            }
        }
        let mut reconnect = false;
        loop {
            // A market shard with nothing to subscribe stays offline until it has.
            if self.ids.is_empty() && !self.connects_empty() {
                match self.cmd_rx.recv().await {
                    None | Some(Command::Shutdown) => return,
                    Some(cmd) => {
                        self.apply_offline(cmd);
                        continue;
                    }
                }
            }
            let epoch = self.epoch.load(Ordering::Acquire);
            // What the server asked for when it refused the upgrade (HTTP `Retry-After`).
            let mut retry_after = None;
            let ws_config = WebSocketConfig::default()
                .read_buffer_size(self.cfg.read_buffer_size)
                .max_message_size(Some(self.cfg.max_message_size))
                .max_frame_size(Some(self.cfg.max_message_size));
            let connected = transport::connect(
                &self.cfg.endpoint,
                self.cfg.proxy.as_deref(),
                self.cfg.tls.as_ref(),
                ws_config,
                self.cfg.connect_timeout,
            )
            .await;
            let end = match connected {
                Ok(ws) => {
                    let counters = &self.cfg.counters;
                    Counters::add(&counters.connects, 1);
                    Counters::add(&counters.reconnects, u64::from(reconnect));
                    crate::telemetry::event!(
                        INFO,
                        "polyclob.ws.connect",
                        channel = self.cfg.kind.name(),
                        shard = self.id,
                        epoch,
                        reconnect,
                        assets = self.ids.len(),
                    );
                    let status = Status::Connected {
                        shard: self.id,
                        epoch,
                        reconnect,
                    };
                    if self.tx.send(Inbound::Status(status)).await.is_err() {
                        return;
                    }
                    let span = crate::telemetry::span!(
                        "polyclob.ws.connection",
                        channel = self.cfg.kind.name(),
                        shard = self.id,
                        epoch,
                        assets = self.ids.len(),
                    );
                    let end =
                        crate::telemetry::instrument(self.session(ws, epoch, reconnect), &span)
                            .await;
                    reconnect = true;
                    // From here on, frames of this connection still queued are stale.
                    self.epoch.fetch_add(1, Ordering::AcqRel);
                    end
                }
                Err(refused) => {
                    retry_after = refused.retry_after;
                    End::new(Disconnect::Connect(refused.error), false)
                }
            };
            if end.shutdown {
                return;
            }
            if end.healthy {
                self.backoff.reset();
            }
            if end.lagged > 0 {
                Counters::add(&self.cfg.counters.lagged, end.lagged);
                crate::telemetry::event!(
                    WARN,
                    "polyclob.ws.lag",
                    channel = self.cfg.kind.name(),
                    shard = self.id,
                    epoch,
                    lost = end.lagged,
                );
                let status = Status::Lagged {
                    shard: self.id,
                    dropped: end.lagged,
                };
                if self.tx.send(Inbound::Status(status)).await.is_err() {
                    return;
                }
            }
            Counters::add(&self.cfg.counters.breaks, 1);
            let Some(policy) = self.polybolt_policy(end.reason) else {
                crate::telemetry::event!(
                    ERROR,
                    "polyclob.ws.break",
                    channel = self.cfg.kind.name(),
                    shard = self.id,
                    epoch,
                    reason = %end.reason,
                    recovery = "stop",
                );
                let status = Status::Stopped {
                    shard: self.id,
                    reason: end.reason,
                };
                let _ = self.tx.send(Inbound::Status(status)).await;
                return;
            };
            let retry_in = match (end.reason, policy) {
                (Disconnect::Lagged | Disconnect::Requested, _) => Duration::ZERO,
                (_, Some(delay)) => delay,
                (_, None) => self
                    .backoff
                    .next_delay()
                    .max(retry_after.unwrap_or_default()),
            };
            crate::telemetry::event!(
                WARN,
                "polyclob.ws.break",
                channel = self.cfg.kind.name(),
                shard = self.id,
                epoch,
                reason = %end.reason,
                recovery = "reconnect",
                retry_ms = crate::telemetry::ms(retry_in),
            );
            let status = Status::Disconnected {
                shard: self.id,
                epoch,
                reason: end.reason,
                retry_in,
                discarded: 0,
            };
            if self.tx.send(Inbound::Status(status)).await.is_err() {
                return;
            }
            if self.idle_until(Instant::now() + retry_in).await {
                return;
            }
        }
    }

    /// Wait until `at`, applying subscription changes meanwhile. Returns `true` on shutdown.
    async fn idle_until(&mut self, at: Instant) -> bool {
        let sleep = sleep_until(at);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => return false,
                cmd = self.cmd_rx.recv() => match cmd {
                    None | Some(Command::Shutdown) => return true,
                    Some(cmd) => self.apply_offline(cmd),
                }
            }
        }
    }

    fn apply_offline(&mut self, cmd: Command) {
        match cmd {
            Command::Subscribe(ids) => self.ids.extend(ids),
            Command::Unsubscribe(ids) => {
                for id in &ids {
                    self.ids.remove(id);
                }
            }
            Command::Reconnect | Command::Shutdown => {}
        }
    }

    fn write_initial(&mut self) {
        match &self.cfg.kind {
            ChannelKind::Market {
                custom_feature_enabled,
                initial_dump,
            } => {
                subscribe::market_initial(
                    &mut self.buf,
                    self.ids.iter().map(String::as_str),
                    *custom_feature_enabled,
                    *initial_dump,
                );
            }
            ChannelKind::User { auth } => {
                subscribe::user_initial(&mut self.buf, auth, self.ids.iter().map(String::as_str));
            }
            ChannelKind::Rtds => subscribe::rtds_request(
                &mut self.buf,
                Op::Subscribe,
                self.ids.iter().map(String::as_str),
            ),
            ChannelKind::PolyBolt { auth } => subscribe::polybolt_auth(&mut self.buf, auth),
            ChannelKind::Sports => self.buf.clear(),
        }
    }

    fn write_operation(&mut self, ids: &[String], op: Op) {
        match &self.cfg.kind {
            ChannelKind::Market {
                custom_feature_enabled,
                ..
            } => subscribe::market_operation(
                &mut self.buf,
                ids.iter().map(String::as_str),
                op,
                *custom_feature_enabled,
            ),
            ChannelKind::User { .. } => {
                subscribe::user_operation(&mut self.buf, ids.iter().map(String::as_str), op);
            }
            ChannelKind::Rtds => {
                subscribe::rtds_request(&mut self.buf, op, ids.iter().map(String::as_str))
            }
            ChannelKind::PolyBolt { .. } => {
                subscribe::polybolt_request(&mut self.buf, op, ids.iter().map(String::as_str))
            }
            ChannelKind::Sports => self.buf.clear(),
        }
    }

    /// Send `self.buf` as a text frame, bounded by the silence timeout.
    async fn send_buf(&mut self, ws: &mut Ws) -> Result<(), Disconnect> {
        let msg = Message::text(self.buf.as_str());
        if matches!(
            self.cfg.kind,
            ChannelKind::User { .. } | ChannelKind::PolyBolt { .. }
        ) {
            // The first user or PolyBolt message holds the API secret: do not leave it in
            // our buffer.
            subscribe::wipe(&mut self.buf);
        }
        send_bounded(ws, msg, self.cfg.silence_timeout).await
    }

    async fn session(&mut self, mut ws: Ws, epoch: u64, reconnect: bool) -> End {
        let cfg = Arc::clone(&self.cfg);
        let mut healthy = false;
        let mut subscribed = false;
        let polybolt = matches!(cfg.kind, ChannelKind::PolyBolt { .. });
        let sports = matches!(cfg.kind, ChannelKind::Sports);
        // PolyBolt: the subscription waits for `authed`.
        let mut authed = !polybolt;
        if sports {
            subscribed = true;
        } else if !self.ids.is_empty() || self.connects_empty() {
            self.write_initial();
            if let Err(reason) = self.send_buf(&mut ws).await {
                return End::new(reason, false);
            }
            subscribed = true;
            if reconnect && !polybolt {
                self.resubscribed(epoch);
                self.run_hook(epoch);
            }
        }
        let mut last_in = Instant::now();
        let mut pong_due: Option<Instant> = None;
        // One timer for pings, one for the watchdog; re-armed lazily, not per message.
        let ping = sleep_until(last_in + cfg.ping_interval);
        let watchdog = sleep_until(last_in + cfg.silence_timeout);
        tokio::pin!(ping, watchdog);
        loop {
            tokio::select! {
                biased;
                cmd = self.cmd_rx.recv() => {
                    let ids = match cmd {
                        None | Some(Command::Shutdown) => {
                            let _ = tokio::time::timeout(cfg.connect_timeout, ws.close(None)).await;
                            return End::shutdown();
                        }
                        Some(Command::Reconnect) => return End::new(Disconnect::Requested, healthy),
                        Some(Command::Subscribe(ids)) => {
                            let fresh: Vec<String> =
                                ids.into_iter().filter(|id| !self.ids.contains(id)).collect();
                            self.ids.extend(fresh.iter().cloned());
                            if !authed {
                                // Sent with the rest once `authed` arrives.
                                continue;
                            }
                            if !subscribed && (!self.ids.is_empty() || self.connects_empty()) {
                                self.write_initial();
                                subscribed = true;
                                let now = Instant::now();
                                last_in = now;
                                ping.as_mut().reset(now + cfg.ping_interval);
                                watchdog.as_mut().reset(now + cfg.silence_timeout);
                            } else if !fresh.is_empty() {
                                self.write_operation(&fresh, Op::Subscribe);
                            } else {
                                continue;
                            }
                            fresh
                        }
                        Some(Command::Unsubscribe(ids)) => {
                            let gone: Vec<String> =
                                ids.into_iter().filter(|id| self.ids.remove(id)).collect();
                            if !subscribed || !authed || gone.is_empty() {
                                continue;
                            }
                            self.write_operation(&gone, Op::Unsubscribe);
                            gone
                        }
                    };
                    drop(ids);
                    if let Err(reason) = self.send_buf(&mut ws).await {
                        return End::new(reason, healthy);
                    }
                }
                () = &mut watchdog, if subscribed => {
                    let now = Instant::now();
                    if let Some(due) = pong_due {
                        if now >= due {
                            return End::new(Disconnect::PongTimeout, healthy);
                        }
                    }
                    let silent_until = last_in + cfg.silence_timeout;
                    if now >= silent_until {
                        return End::new(Disconnect::Silence, healthy);
                    }
                    let next = pong_due.map_or(silent_until, |d| d.min(silent_until));
                    watchdog.as_mut().reset(next);
                }
                () = &mut ping, if subscribed && !sports => {
                    let now = Instant::now();
                    ping.as_mut().reset(now + cfg.ping_interval);
                    let keepalive = if polybolt { "{\"op\":\"ping\"}" } else { "PING" };
                    if let Err(reason) =
                        send_bounded(&mut ws, Message::text(keepalive), cfg.silence_timeout).await
                    {
                        return End::new(reason, healthy);
                    }
                    if pong_due.is_none() {
                        let due = now + cfg.pong_timeout;
                        pong_due = Some(due);
                        if due < watchdog.deadline() {
                            watchdog.as_mut().reset(due);
                        }
                    }
                }
                msg = ws.next() => {
                    // Drain what is already buffered before going back through the
                    // select (bounded, so commands and timers are never starved).
                    let max = self.tx.max_capacity();
                    // The consumer waits on an empty queue: hand it this frame before reading
                    // on (the read that finds the socket empty is a syscall it need not wait for).
                    let mut idle = self.tx.capacity() == max;
                    let mut next = Some(msg);
                    let mut budget = 64u32;
                    while let Some(msg) = next.take() {
                        let mut st = (last_in, pong_due, healthy);
                        let was_authed = authed;
                        match self.on_message(msg, epoch, &mut st, &mut authed) {
                            Step::Next => {}
                            Step::Reply(text) => {
                                if let Err(reason) =
                                    send_bounded(&mut ws, Message::text(text), cfg.silence_timeout).await
                                {
                                    return End::new(reason, healthy);
                                }
                            }
                            Step::End(end) => return end,
                            Step::Full(item) => {
                                match tokio::time::timeout(LAG_GRACE, self.tx.reserve()).await {
                                    Ok(Ok(permit)) => permit.send(item),
                                    Ok(Err(_)) => return End::shutdown(),
                                    Err(_) => {
                                        return End {
                                            lagged: 1,
                                            ..End::new(Disconnect::Lagged, true)
                                        };
                                    }
                                }
                            }
                        }
                        (last_in, pong_due, healthy) = st;
                        if authed && !was_authed && !self.ids.is_empty() {
                            let ids: Vec<String> = self.ids.iter().cloned().collect();
                            self.write_operation(&ids, Op::Subscribe);
                            if let Err(reason) = self.send_buf(&mut ws).await {
                                return End::new(reason, healthy);
                            }
                        }
                        if authed && !was_authed && reconnect {
                            self.resubscribed(epoch);
                            self.run_hook(epoch);
                        }
                        budget -= 1;
                        if budget > 0 {
                            if idle && self.tx.capacity() < max {
                                idle = false;
                                tokio::task::yield_now().await;
                            }
                            next = ws.next().now_or_never();
                        }
                    }
                    if max - self.tx.capacity() >= YIELD_AT.min(max / 2).max(1) {
                        tokio::task::yield_now().await;
                    }
                }
            }
        }
    }

    /// Handle one read result. `st` is `(last_inbound, pong_due, healthy)`.
    fn on_message(
        &self,
        msg: Option<Result<Message, tungstenite::Error>>,
        epoch: u64,
        st: &mut (Instant, Option<Instant>, bool),
        authed: &mut bool,
    ) -> Step {
        let healthy = st.2;
        let msg = match msg {
            None => return Step::End(End::new(Disconnect::Eof, healthy)),
            Some(Err(e)) => return Step::End(End::new(Disconnect::from_ws(&e), healthy)),
            Some(Ok(msg)) => msg,
        };
        st.0 = Instant::now();
        let rtds = matches!(self.cfg.kind, ChannelKind::Rtds);
        let polybolt = matches!(self.cfg.kind, ChannelKind::PolyBolt { .. });
        let sports = matches!(self.cfg.kind, ChannelKind::Sports);
        if rtds || polybolt || sports {
            // These servers show liveness by sending.
            st.1 = None;
        }
        let payload = match msg {
            Message::Text(t) => {
                if t.as_str() == "PONG" || (rtds && t.as_str().eq_ignore_ascii_case("pong")) {
                    st.1 = None;
                    return Step::Next;
                }
                if sports && t.as_str() == "ping" {
                    return Step::Reply("pong");
                }
                if polybolt && !*authed && subscribe::is_polybolt_authed(t.as_str()) {
                    *authed = true;
                }
                Counters::add(&self.cfg.counters.bytes, t.len() as u64);
                Payload::Text(t)
            }
            Message::Binary(b) => {
                Counters::add(&self.cfg.counters.bytes, b.len() as u64);
                Payload::Binary(b)
            }
            Message::Close(frame) => {
                let code = frame.map(|f| u16::from(f.code));
                return Step::End(End::new(Disconnect::Closed { code }, healthy));
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return Step::Next,
        };
        st.2 = true;
        Counters::add(&self.cfg.counters.frames, 1);
        match self.tx.try_send(Inbound::Frame {
            shard: self.id,
            epoch,
            payload,
            received: st.0.into_std(),
        }) {
            Ok(()) => Step::Next,
            Err(mpsc::error::TrySendError::Full(item)) => Step::Full(item),
            Err(mpsc::error::TrySendError::Closed(_)) => Step::End(End::shutdown()),
        }
    }

    /// A reconnected shard sent its subscriptions again.
    fn resubscribed(&self, epoch: u64) {
        crate::telemetry::event!(
            INFO,
            "polyclob.ws.resubscribe",
            channel = self.cfg.kind.name(),
            shard = self.id,
            epoch,
            assets = self.ids.len(),
        );
        let _ = epoch;
    }

    fn run_hook(&self, epoch: u64) {
        if let Some(hook) = &self.cfg.on_reconnect {
            let info = Reconnected {
                shard: self.id,
                epoch,
                ids: self.ids.iter().cloned().collect(),
            };
            tokio::spawn(hook(info));
        }
    }
}

async fn send_bounded(ws: &mut Ws, msg: Message, limit: Duration) -> Result<(), Disconnect> {
    match tokio::time::timeout(limit, ws.send(msg)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Disconnect::from_ws(&e)),
        Err(_) => Err(Disconnect::Silence),
    }
}
