//! One shard: a connection that subscribes, keeps itself alive, and comes back.
//!
//! Each shard runs as its own task and owns its socket. The loop is
//! connect → subscribe → read/ping/watch → (end) → bump epoch → back off → connect …
//!
//! What differs between feeds is data, not code: a wire (subscription formats,
//! authentication, control frames) and a policy (keepalive, default timeouts and backoff,
//! close codes), given by each feed.
//!
//! - **Keepalive** ([Polymarket WSS overview]): the feed's text keepalive (`PING` on the CLOB
//!   channels) every `ping_interval`, only once something has been subscribed; its answer is
//!   consumed here and never delivered. Protocol pings of the server are answered by the
//!   transport and count as inbound traffic.
//! - **Watchdog**: no inbound byte for `silence_timeout`, or no `PONG` within `pong_timeout`
//!   of a `PING`, ends the connection. A half-open TCP connection (peer gone without FIN)
//!   is detected this way; no read waits forever. Writes are bounded by the same timeout.
//! - **Epochs**: the shard increments its epoch (shared with the consumer) the moment a
//!   connection ends, so frames of that connection still queued are discarded rather than
//!   mixed with the next connection's snapshots.
//! - **Backoff**: every break takes one step of the feed's [`Backoff`]; the steps reset once a
//!   connection stayed up for the policy's healthy period. A loss (lag, a gap the consumer saw)
//!   reconnects at once after a healthy period, else after its step; a reconnect the user asks
//!   for is immediate; a handshake `Retry-After` is a minimum the step's delay adds to.
//! - **Close**: every end the client chooses sends a Close frame first.
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
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};

use super::backoff::{Backoff, Jitter};
use super::continuity::StreamKind;
use super::counters::Counters;
use super::event::{Disconnect, Payload, Status};
use super::feed::{Control, Opts, Wire};
use super::subscribe::{self, Op};
use super::transport::{self, Endpoint, Ws};

/// How long a full queue may stay full before the consumer counts as lagging.
pub(crate) const LAG_GRACE: Duration = Duration::from_millis(50);

/// Queued frames at which a shard lets the consumer run before reading more.
pub(crate) const YIELD_AT: usize = 64;

/// Passed to the reconnect hook after a shard has reconnected and resubscribed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Reconnected {
    /// Connection index.
    pub shard: usize,
    /// Epoch of the new connection.
    pub epoch: u64,
    /// What the shard is subscribed to (asset ids; condition ids on the user channel; on
    /// RTDS and PolyBolt, each subscription object as sent).
    pub ids: Vec<String>,
}

/// The boxed future a reconnect hook returns.
pub(crate) type HookFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A user-supplied async callback run (on its own task) after every *re*connect, once the
/// resubscription has been sent (or accepted, where the feed authenticates first).
#[derive(Clone)]
pub(crate) struct Hook(pub(crate) Arc<dyn Fn(Reconnected) -> HookFuture + Send + Sync + 'static>);

impl fmt::Debug for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Hook")
    }
}

/// What a feed does when the server closes with a given code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnClose {
    /// Do not reconnect: the stream reports [`Status::Stopped`] and ends.
    Stop,
    /// Reconnect once after a uniformly random delay up to this (bounded by the backoff cap).
    Drain(Duration),
}

/// A feed's connection policy: its keepalive, its default timeouts and backoff, and what its
/// close codes mean. Each feed documents its own (the constants in its module).
#[derive(Debug)]
pub(crate) struct Policy {
    pub(crate) kind: StreamKind,
    pub(crate) url: &'static str,
    /// The text keepalive the client sends every `ping_interval` (none: the server pings).
    pub(crate) keepalive: Option<&'static str>,
    /// Any inbound frame answers the keepalive (the server is not documented to reply).
    pub(crate) any_frame_answers: bool,
    pub(crate) ping_interval: Duration,
    pub(crate) pong_timeout: Duration,
    pub(crate) silence_timeout: Duration,
    pub(crate) backoff: (Duration, Duration),
    pub(crate) jitter: Jitter,
    /// A connection up this long without a break resets the backoff steps (default).
    pub(crate) healthy_after: Duration,
    pub(crate) closes: &'static [(u16, OnClose)],
}

impl Policy {
    /// The `channel` field of tracing events.
    #[cfg(feature = "tracing")]
    fn name(&self) -> &'static str {
        match self.kind {
            StreamKind::Market => "market",
            StreamKind::User => "user",
            StreamKind::Rtds => "rtds",
            StreamKind::PolyBolt => "polybolt",
            StreamKind::Sports => "sports",
        }
    }
}

/// Connection settings shared by all shards of a stream: the builder's, and what `build`
/// resolved from them.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) opts: Opts,
    pub(crate) policy: &'static Policy,
    pub(crate) endpoint: Endpoint,
    /// The proxy this endpoint is reached through, if any.
    pub(crate) proxy: Option<Arc<crate::http::Proxy>>,
    pub(crate) tls: Option<Arc<rustls::ClientConfig>>,
    pub(crate) wire: Box<dyn Wire>,
    /// The stream's counters, shared by its shards.
    pub(crate) counters: super::counters::Counters,
}

/// Requests from the stream handle to a shard.
#[derive(Debug)]
pub(crate) enum Command {
    Subscribe(Vec<String>),
    Unsubscribe(Vec<String>),
    /// The user asked for a reconnect: immediate, no backoff step.
    Reconnect,
    /// The consumer saw a loss (a sequence gap, a hash mismatch): reconnect for fresh
    /// snapshots, paced by the backoff.
    Resnapshot,
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
    /// Frames lost to a full queue.
    lagged: u64,
    /// The stream shut down.
    shutdown: bool,
    /// The server's answer means retrying cannot help.
    stop: bool,
}

impl End {
    fn new(reason: Disconnect) -> Self {
        Self {
            reason,
            lagged: 0,
            shutdown: false,
            stop: false,
        }
    }
    fn shutdown() -> Self {
        Self {
            shutdown: true,
            ..Self::new(Disconnect::Requested)
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
        let (base, cap) = cfg.opts.backoff;
        let seed = super::backoff::entropy_seed() ^ id as u64;
        let backoff = Backoff::new(base, cap, cfg.policy.jitter, seed);
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

    async fn report(&self, status: Status) -> bool {
        self.tx.send(Inbound::Status(status)).await.is_ok()
    }

    /// The delay before the next attempt after `end`, taking its backoff step; `None` to stop.
    fn next_attempt(&mut self, end: &End, retry_after: Option<Duration>) -> Option<Duration> {
        let policy = self.cfg.policy;
        let code = match end.reason {
            Disconnect::Closed { code } => code,
            _ => None,
        };
        let on_close = policy
            .closes
            .iter()
            .find(|(c, _)| Some(*c) == code)
            .map(|(_, on)| *on);
        Some(match (end.reason, on_close) {
            _ if end.stop => return None,
            (_, Some(OnClose::Stop)) => return None,
            // The user asked: at once, and no step.
            (Disconnect::Requested, _) => Duration::ZERO,
            (_, Some(OnClose::Drain(max))) => {
                self.backoff.next_delay();
                self.backoff.uniform(max.min(self.cfg.opts.backoff.1))
            }
            // A loss inside the connection: the first after a healthy period is immediate.
            (Disconnect::Lagged | Disconnect::Resnapshot, _) if self.backoff.step() == 0 => {
                self.backoff.next_delay();
                Duration::ZERO
            }
            // The server's `Retry-After` is the minimum; the step's jitter comes on top.
            _ => retry_after.unwrap_or_default() + self.backoff.next_delay(),
        })
    }

    /// The shard's task body. Ends on `Shutdown`, when every handle is gone, when the
    /// consumer dropped the stream, or when the policy says to stop.
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
            if self.ids.is_empty() && !self.cfg.wire.connects_empty() {
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
                .read_buffer_size(self.cfg.opts.read_buffer_size)
                .max_message_size(Some(self.cfg.opts.max_message_size))
                .max_frame_size(Some(self.cfg.opts.max_message_size));
            let connected = transport::connect(
                &self.cfg.endpoint,
                self.cfg.proxy.as_deref(),
                self.cfg.tls.as_ref(),
                ws_config,
                self.cfg.opts.connect_timeout,
            )
            .await;
            let end = match connected {
                Ok(mut ws) => {
                    let counters = &self.cfg.counters;
                    Counters::add(&counters.connects, 1);
                    Counters::add(&counters.reconnects, u64::from(reconnect));
                    crate::telemetry::event!(
                        INFO,
                        "polyclob.ws.connect",
                        channel = self.cfg.policy.name(),
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
                    if !self.report(status).await {
                        return;
                    }
                    let span = crate::telemetry::span!(
                        "polyclob.ws.connection",
                        channel = self.cfg.policy.name(),
                        shard = self.id,
                        epoch,
                        assets = self.ids.len(),
                    );
                    let opened = Instant::now();
                    let session = self.session(&mut ws, epoch, reconnect);
                    let end = crate::telemetry::instrument(session, &span).await;
                    // Every end we choose is announced with a Close frame (the peer may be
                    // gone: bounded).
                    if end.reason.is_local() || end.shutdown {
                        let limit = self.cfg.opts.connect_timeout.min(Duration::from_secs(1));
                        let normal = CloseFrame {
                            code: CloseCode::Normal,
                            reason: "".into(),
                        };
                        let _ = tokio::time::timeout(limit, ws.close(Some(normal))).await;
                    }
                    if opened.elapsed() >= self.cfg.opts.healthy_after {
                        self.backoff.reset();
                    }
                    reconnect = true;
                    // From here on, frames of this connection still queued are stale.
                    self.epoch.fetch_add(1, Ordering::AcqRel);
                    end
                }
                Err(refused) => {
                    retry_after = refused.retry_after;
                    End::new(Disconnect::Connect(refused.error))
                }
            };
            if end.shutdown {
                return;
            }
            let step = self.backoff.step();
            let next = self.next_attempt(&end, retry_after);
            if end.lagged > 0 {
                Counters::add(&self.cfg.counters.lagged, end.lagged);
                crate::telemetry::event!(
                    WARN,
                    "polyclob.ws.lag",
                    channel = self.cfg.policy.name(),
                    shard = self.id,
                    epoch,
                    lost = end.lagged,
                );
                let status = Status::Lagged {
                    shard: self.id,
                    dropped: end.lagged,
                };
                if !self.report(status).await {
                    return;
                }
            }
            Counters::add(&self.cfg.counters.breaks, 1);
            let Some(retry_in) = next else {
                crate::telemetry::event!(
                    ERROR,
                    "polyclob.ws.break",
                    channel = self.cfg.policy.name(),
                    shard = self.id,
                    epoch,
                    reason = %end.reason,
                    recovery = "stop",
                );
                let status = Status::Stopped {
                    shard: self.id,
                    reason: end.reason,
                };
                let _ = self.report(status).await;
                return;
            };
            crate::telemetry::event!(
                WARN,
                "polyclob.ws.break",
                channel = self.cfg.policy.name(),
                shard = self.id,
                epoch,
                reason = %end.reason,
                recovery = "reconnect",
                retry_ms = crate::telemetry::ms(retry_in),
                step,
            );
            let status = Status::Disconnected {
                shard: self.id,
                epoch,
                reason: end.reason,
                retry_in,
                step,
                discarded: 0,
            };
            if !self.report(status).await {
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
            Command::Reconnect | Command::Resnapshot | Command::Shutdown => {}
        }
    }

    /// Send `self.buf` as a text frame, bounded by the silence timeout; a secret is wiped.
    async fn send_buf(&mut self, ws: &mut Ws) -> Result<(), Disconnect> {
        let msg = Message::text(self.buf.as_str());
        if self.cfg.wire.secret() {
            subscribe::wipe(&mut self.buf);
        }
        send_bounded(ws, msg, self.cfg.opts.silence_timeout).await
    }

    /// Subscribes every id (after `authed`), then runs the reconnect hook.
    async fn subscribe_all(
        &mut self,
        ws: &mut Ws,
        epoch: u64,
        reconnect: bool,
    ) -> Result<(), Disconnect> {
        if !self.ids.is_empty() {
            let ids: Vec<String> = self.ids.iter().cloned().collect();
            self.cfg.wire.operation(&mut self.buf, &ids, Op::Subscribe);
            self.send_buf(ws).await?;
        }
        if reconnect {
            self.resubscribed(epoch);
        }
        Ok(())
    }

    async fn session(&mut self, ws: &mut Ws, epoch: u64, reconnect: bool) -> End {
        let cfg = Arc::clone(&self.cfg);
        let wire = &*cfg.wire;
        let mut subscribed = false;
        let mut authed = !wire.awaits_auth();
        if !self.ids.is_empty() || wire.connects_empty() {
            if wire.initial(&mut self.buf, &self.ids) {
                if let Err(reason) = self.send_buf(ws).await {
                    return End::new(reason);
                }
            }
            subscribed = true;
            if reconnect && authed {
                self.resubscribed(epoch);
            }
        }
        let mut last_in = Instant::now();
        let mut pong_due: Option<Instant> = None;
        // One timer for pings, one for the watchdog; re-armed lazily, not per message.
        let ping = sleep_until(last_in + cfg.opts.ping_interval);
        let watchdog = sleep_until(last_in + cfg.opts.silence_timeout);
        tokio::pin!(ping, watchdog);
        loop {
            tokio::select! {
                biased;
                cmd = self.cmd_rx.recv() => {
                    match cmd {
                        None | Some(Command::Shutdown) => return End::shutdown(),
                        Some(Command::Reconnect) => return End::new(Disconnect::Requested),
                        Some(Command::Resnapshot) => return End::new(Disconnect::Resnapshot),
                        Some(Command::Subscribe(ids)) => {
                            let fresh: Vec<String> =
                                ids.into_iter().filter(|id| !self.ids.contains(id)).collect();
                            self.ids.extend(fresh.iter().cloned());
                            if !authed {
                                // Sent with the rest once `authed` arrives.
                                continue;
                            }
                            if !subscribed && (!self.ids.is_empty() || wire.connects_empty()) {
                                wire.initial(&mut self.buf, &self.ids);
                                subscribed = true;
                                let now = Instant::now();
                                last_in = now;
                                ping.as_mut().reset(now + cfg.opts.ping_interval);
                                watchdog.as_mut().reset(now + cfg.opts.silence_timeout);
                            } else if !fresh.is_empty() {
                                wire.operation(&mut self.buf, &fresh, Op::Subscribe);
                            } else {
                                continue;
                            }
                        }
                        Some(Command::Unsubscribe(ids)) => {
                            let gone: Vec<String> =
                                ids.into_iter().filter(|id| self.ids.remove(id)).collect();
                            if !subscribed || !authed || gone.is_empty() {
                                continue;
                            }
                            wire.operation(&mut self.buf, &gone, Op::Unsubscribe);
                        }
                    }
                    if let Err(reason) = self.send_buf(ws).await {
                        return End::new(reason);
                    }
                }
                () = &mut watchdog, if subscribed => {
                    let now = Instant::now();
                    if pong_due.is_some_and(|due| now >= due) {
                        return End::new(Disconnect::PongTimeout);
                    }
                    let silent_until = last_in + cfg.opts.silence_timeout;
                    if now >= silent_until {
                        return End::new(Disconnect::Silence);
                    }
                    let next = pong_due.map_or(silent_until, |d| d.min(silent_until));
                    watchdog.as_mut().reset(next);
                }
                () = &mut ping, if subscribed && cfg.policy.keepalive.is_some() => {
                    let now = Instant::now();
                    ping.as_mut().reset(now + cfg.opts.ping_interval);
                    let keepalive = cfg.policy.keepalive.unwrap_or_default();
                    if let Err(reason) =
                        send_bounded(ws, Message::text(keepalive), cfg.opts.silence_timeout).await
                    {
                        return End::new(reason);
                    }
                    if pong_due.is_none() {
                        let due = now + cfg.opts.pong_timeout;
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
                        let msg = match msg {
                            None => return End::new(Disconnect::Eof),
                            Some(Err(e)) => return End::new(Disconnect::from_ws(&e)),
                            Some(Ok(msg)) => msg,
                        };
                        last_in = Instant::now();
                        if cfg.policy.any_frame_answers {
                            pong_due = None;
                        }
                        let control = match &msg {
                            Message::Text(t) => wire.control(t.as_str()),
                            _ => Control::Data,
                        };
                        match control {
                            Control::Pong => pong_due = None,
                            Control::Reply(text) => {
                                if let Err(reason) =
                                    send_bounded(ws, Message::text(text), cfg.opts.silence_timeout).await
                                {
                                    return End::new(reason);
                                }
                            }
                            Control::Data | Control::Authed | Control::Refused { .. } => {
                                if let Some(end) = self.forward(msg, epoch, last_in).await {
                                    return end;
                                }
                            }
                        }
                        match control {
                            Control::Authed if !authed => {
                                authed = true;
                                if let Err(reason) = self.subscribe_all(ws, epoch, reconnect).await {
                                    return End::new(reason);
                                }
                            }
                            Control::Refused { code, stop } => {
                                crate::telemetry::event!(
                                    WARN,
                                    "polyclob.ws.refused",
                                    channel = cfg.policy.name(),
                                    shard = self.id,
                                    epoch,
                                    code,
                                );
                                return End { stop, ..End::new(Disconnect::Refused(code)) };
                            }
                            _ => {}
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

    /// Hands a message to the consumer: `Some` when the session must end (the consumer is
    /// gone, lags, or the server closed).
    async fn forward(&self, msg: Message, epoch: u64, at: Instant) -> Option<End> {
        let payload = match msg {
            Message::Text(t) => Payload::Text(t),
            Message::Binary(b) => Payload::Binary(b),
            Message::Close(frame) => {
                let code = frame.map(|f| u16::from(f.code));
                return Some(End::new(Disconnect::Closed { code }));
            }
            // Protocol pings prove liveness (the read above) and are answered by the transport.
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return None,
        };
        let counters = &self.cfg.counters;
        Counters::add(&counters.bytes, payload.as_bytes().len() as u64);
        Counters::add(&counters.frames, 1);
        let item = Inbound::Frame {
            shard: self.id,
            epoch,
            payload,
            received: at.into_std(),
        };
        let item = match self.tx.try_send(item) {
            Ok(()) => return None,
            Err(mpsc::error::TrySendError::Full(item)) => item,
            Err(mpsc::error::TrySendError::Closed(_)) => return Some(End::shutdown()),
        };
        match tokio::time::timeout(LAG_GRACE, self.tx.reserve()).await {
            Ok(Ok(permit)) => {
                permit.send(item);
                None
            }
            Ok(Err(_)) => Some(End::shutdown()),
            Err(_) => Some(End {
                lagged: 1,
                ..End::new(Disconnect::Lagged)
            }),
        }
    }

    /// A reconnected shard sent its subscriptions again: traced, and the hook runs.
    fn resubscribed(&self, epoch: u64) {
        crate::telemetry::event!(
            INFO,
            "polyclob.ws.resubscribe",
            channel = self.cfg.policy.name(),
            shard = self.id,
            epoch,
            assets = self.ids.len(),
        );
        if let Some(Hook(hook)) = &self.cfg.opts.on_reconnect {
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
