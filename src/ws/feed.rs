//! The one feed machine: every stream of the crate is a [`Feed`] of its decoder.
//!
//! A feed is three things — a decoder ([`Decoder`]: market books, the user's orders and
//! trades, RTDS, PolyBolt, sports, or the raw [`Frames`]), its subscription format and its
//! policy table (keepalive, timeouts, backoff, close codes, error acknowledgements) — on one
//! machine written once: connections ([`connection`](super::connection)), liveness, backoff,
//! trust per key ([`Trust`]), counters and tracing. Two tiers, for every feed:
//!
//! - zero-copy: [`Feed::dispatch`]/[`Feed::run`] hand each decoded message, borrowed from the
//!   frame, to the one [`Handler`] trait, with a [`Cx`] that answers trust per key and shows
//!   the feed's state (books …);
//! - owned: the feed is a `Stream` of [`FeedEvent`]s. With
//!   [`conflate`](FeedBuilder::conflate) it drains everything queued before yielding and keeps
//!   only the latest message per key (the state has them all), so a bot that awaits REST
//!   calls between items never works on an old book; a [`Lag`] item says how far behind it was.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use futures_util::StreamExt;
//! use polyclob::ws::feed::FeedEvent;
//! use polyclob::ws::market::MarketStream;
//! use std::time::Duration;
//!
//! let mut market = MarketStream::builder().url(sim.market_ws_url()).assets([token.clone()]).build()?;
//! while !market.trust(&token).is_trusted() {
//!     match tokio::time::timeout(Duration::from_secs(5), market.next()).await?.ok_or("closed")? {
//!         FeedEvent::Break(b) => println!("{b}"),
//!         FeedEvent::Lag(l) => println!("behind by {:?}", l.behind),
//!         _ => {}
//!     }
//! }
//! let book = market.state().book(&token).ok_or("not live")?; // live books only
//! println!("bid {:?} ask {:?}", book.best_bid(), book.best_ask());
//! # Ok(()) }
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::Stream;
use tokio::sync::mpsc;

use super::connection::{Config, HookFuture, Policy, Reconnected};
use super::continuity::Break;
use super::counters::Counters;
use super::event::ConnectError;
use super::event::{OwnedFrame, Status};
use super::shards::{Closed, Delivery, Dispatcher, Shards, StreamCore};
use super::transport::Endpoint;
use super::trust::Trust;
use crate::decode::DecodeError;
use std::collections::BTreeSet;

pub(crate) use super::handler::{Control, Op, Reread, Sealed, Wire};
pub use super::handler::{Cx, Decoder, FeedEvent, FrameStream, Frames, Handler, Lag, Owned};

/// Why a feed could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The URL is not a `ws://` or `wss://` URL with a host.
    InvalidUrl,
    /// `build()` was called outside a Tokio runtime (the connections are spawned on it).
    NoRuntime,
    /// A setting is out of range; the message names it.
    Invalid(&'static str),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::InvalidUrl => {
                f.write_str("invalid WebSocket URL (need ws:// or wss:// and a host)")
            }
            BuildError::NoRuntime => f.write_str("build() must be called within a Tokio runtime"),
            BuildError::Invalid(what) => write!(f, "invalid setting: {what}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Default socket read size (see [`FeedBuilder::read_buffer_size`]).
pub(crate) const DEFAULT_READ_BUFFER: usize = 16 << 10;

/// The builder of every feed. The setters common to all feeds are here, written once; each
/// feed adds its own (`assets`, `credentials`, `subscribe` …) in its module. A default that
/// differs per feed is its policy's, stated on the feed's `builder()`.
#[derive(Debug)]
pub struct FeedBuilder<D> {
    decoder: D,
    pub(crate) opts: Opts,
}

/// A feed builder's settings, whatever its decoder (the connections read them too).
#[derive(Debug)]
pub(crate) struct Opts {
    policy: &'static Policy,
    wire: Option<Result<Box<dyn Wire>, BuildError>>,
    pub(crate) ids: Vec<String>,
    url: String,
    tls: Option<Arc<rustls::ClientConfig>>,
    pub(crate) ping_interval: Duration,
    pub(crate) pong_timeout: Duration,
    pub(crate) silence_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) backoff: (Duration, Duration),
    pub(crate) healthy_after: Duration,
    queue_capacity: usize,
    busy_poll: bool,
    pub(crate) max_message_size: usize,
    pub(crate) read_buffer_size: usize,
    pub(crate) on_reconnect: Option<super::connection::Hook>,
    proxy: crate::http::proxy::Setting,
    pub(crate) per_connection: usize,
    pub(crate) stagger: Duration,
    conflate: bool,
    lag_after: Duration,
}

impl<D: Decoder> FeedBuilder<D> {
    /// A builder for `decoder` with `policy`'s defaults.
    pub(crate) fn new(decoder: D, policy: &'static Policy) -> Self {
        let opts = Opts {
            policy,
            wire: None,
            ids: Vec::new(),
            url: policy.url.to_owned(),
            tls: None,
            ping_interval: policy.ping_interval,
            pong_timeout: policy.pong_timeout,
            silence_timeout: policy.silence_timeout,
            connect_timeout: Duration::from_secs(10),
            backoff: policy.backoff,
            healthy_after: policy.healthy_after,
            queue_capacity: 4096,
            busy_poll: false,
            max_message_size: 16 << 20,
            read_buffer_size: DEFAULT_READ_BUFFER,
            on_reconnect: None,
            proxy: crate::http::proxy::Setting::Env,
            per_connection: usize::MAX,
            stagger: Duration::ZERO,
            conflate: false,
            lag_after: Duration::from_millis(100),
        };
        Self { decoder, opts }
    }

    pub(crate) fn decoder_mut(&mut self) -> &mut D {
        &mut self.decoder
    }

    /// The same connection delivering raw frames instead of decoded messages.
    #[must_use]
    pub fn frames(mut self) -> FeedBuilder<Frames> {
        let wire = self.opts.wire.take().unwrap_or_else(|| self.decoder.wire());
        let opts = Opts {
            wire: Some(wire),
            ..self.opts
        };
        FeedBuilder {
            decoder: Frames,
            opts,
        }
    }

    /// The endpoint URL (`ws://`, `wss://`). Default is the feed's production endpoint.
    #[must_use]
    pub fn url(mut self, url: impl AsRef<str>) -> Self {
        url.as_ref().clone_into(&mut self.opts.url);
        self
    }

    /// The rustls configuration for `wss://`. Default is the HTTP clients' (ring, platform
    /// verifier).
    #[must_use]
    pub fn tls_config(mut self, config: Arc<rustls::ClientConfig>) -> Self {
        self.opts.tls = Some(config);
        self
    }

    /// Connects through `proxy` (`http://` `CONNECT` or SOCKS5, within the connect timeout; a
    /// refusal is a [`ConnectError::Proxy`], retried; `https://` proxies are refused at build).
    /// Default is the environment ([`Proxy`](crate::http::Proxy#where-it-applies)).
    #[must_use]
    pub fn proxy(mut self, proxy: crate::http::Proxy) -> Self {
        self.opts.proxy = crate::http::proxy::Setting::Fixed(Arc::new(proxy));
        self
    }

    /// Connects directly, whatever the environment says. Default is the environment.
    #[must_use]
    pub fn no_proxy(mut self) -> Self {
        self.opts.proxy = crate::http::proxy::Setting::Direct;
        self
    }

    /// Uses the same proxy choice as `client` (its [`proxy`](crate::clob::ClientBuilder::proxy),
    /// [`no_proxy`](crate::clob::ClientBuilder::no_proxy) or the environment default).
    #[must_use]
    pub fn proxy_from(mut self, client: &crate::clob::Client) -> Self {
        self.opts.proxy = client.proxy_setting().clone();
        self
    }

    /// Interval of the feed's keepalive (once something is subscribed). Default is the feed's:
    /// CLOB channels 10 s, RTDS and PolyBolt 5 s; sports sends none.
    #[must_use]
    pub fn ping_interval(mut self, every: Duration) -> Self {
        self.opts.ping_interval = every;
        self
    }

    /// How long a keepalive may go unanswered. Default is the feed's: CLOB channels 30 s, RTDS
    /// 15 s, PolyBolt 5 s.
    #[must_use]
    pub fn pong_timeout(mut self, timeout: Duration) -> Self {
        self.opts.pong_timeout = timeout;
        self
    }

    /// How long the connection may receive nothing (protocol pings count) before it is replaced
    /// as half-open; also bounds every write; above the ping interval. Default is the feed's:
    /// CLOB channels and PolyBolt 30 s, RTDS 15 s, sports three missed 15 s server pings.
    #[must_use]
    pub fn silence_timeout(mut self, timeout: Duration) -> Self {
        self.opts.silence_timeout = timeout;
        self
    }

    /// Bound on TCP connect + TLS + WebSocket handshake. Default is 10 s.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.opts.connect_timeout = timeout;
        self
    }

    /// Backoff: break `n` waits about `min(max, initial·2ⁿ)` with the feed's jitter. Default is
    /// the feed's: CLOB channels 1 s → 60 s equal jitter; RTDS, PolyBolt, sports 1 s → 30 s full.
    #[must_use]
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.opts.backoff = (initial, max);
        self
    }

    /// A connection up this long without a break starts the backoff over. Default is 30 s.
    #[must_use]
    pub fn healthy_after(mut self, period: Duration) -> Self {
        self.opts.healthy_after = period;
        self
    }

    /// Frames queued between the connections and the consumer; full for 50 ms is
    /// [`Status::Lagged`] and a reconnect for fresh snapshots. Default is 4096.
    #[must_use]
    pub fn queue_capacity(mut self, frames: usize) -> Self {
        self.opts.queue_capacity = frames;
        self
    }

    /// While nothing is queued, `dispatch`/`next` yield to the runtime instead of parking: the
    /// thread wake-up (tens of µs on a VM) leaves the socket-to-handler latency, one core
    /// spins. It helps on a current-thread runtime (or a `LocalSet`). Default is off.
    #[must_use]
    pub fn busy_poll(mut self, on: bool) -> Self {
        self.opts.busy_poll = on;
        self
    }

    /// Bytes asked of the socket per read (zero-filled before every read: at 128 KiB that was a
    /// quarter of the client's CPU over 25 connections at 10,000 msg/s). Default is 16 KiB; at
    /// least 1 KiB.
    #[must_use]
    pub fn read_buffer_size(mut self, bytes: usize) -> Self {
        self.opts.read_buffer_size = bytes;
        self
    }

    /// Largest accepted message. Default is 16 MiB.
    #[must_use]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.opts.max_message_size = bytes;
        self
    }

    /// An async callback run on its own task after every reconnect, once subscribed again.
    /// Default is none.
    #[must_use]
    pub fn on_reconnect<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Reconnected) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.opts.on_reconnect = Some(super::connection::Hook(Arc::new(move |r| -> HookFuture {
            Box::pin(hook(r))
        })));
        self
    }

    /// Owned tier: take every frame already queued before yielding and keep only the latest
    /// message per key (the state has them all applied): a consumer doing slow work between
    /// items reads current state, not a backlog. Messages without a key are all kept. Default
    /// is off.
    #[must_use]
    pub fn conflate(mut self, on: bool) -> Self {
        self.opts.conflate = on;
        self
    }

    /// A frame that waited longer than this for the consumer is a [`Lag`] (reported at most
    /// once per this period). Default is 100 ms.
    #[must_use]
    pub fn lag_after(mut self, threshold: Duration) -> Self {
        self.opts.lag_after = threshold;
        self
    }

    /// Starts the connections (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, or when called outside a runtime.
    pub fn build(mut self) -> Result<Feed<D>, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let endpoint = Endpoint::parse(&self.opts.url).map_err(|e| match e {
            ConnectError::InvalidUrl => BuildError::InvalidUrl,
            _ => BuildError::Invalid("url"),
        })?;
        if self.opts.ping_interval.is_zero() {
            return Err(BuildError::Invalid("ping_interval must be > 0"));
        }
        if self.opts.policy.keepalive.is_some()
            && self.opts.silence_timeout <= self.opts.ping_interval
        {
            return Err(BuildError::Invalid(
                "silence_timeout must exceed ping_interval",
            ));
        }
        if self.opts.pong_timeout.is_zero() || self.opts.connect_timeout.is_zero() {
            return Err(BuildError::Invalid("timeouts must be > 0"));
        }
        if self.opts.queue_capacity == 0 {
            return Err(BuildError::Invalid("queue_capacity must be > 0"));
        }
        let wire = match self.opts.wire.take() {
            Some(w) => w?,
            None => self.decoder.wire()?,
        };
        // Built once here (loading the platform verifier is not free), not per connect.
        let tls = match self.opts.tls.clone() {
            Some(c) => Some(c),
            None if endpoint.is_tls() => {
                Some(super::transport::default_tls().map_err(|_| BuildError::Invalid("tls"))?)
            }
            None => None,
        };
        // The environment is read once, here, for this endpoint.
        let proxy = self
            .opts
            .proxy
            .resolve()
            .for_target(endpoint.is_tls(), endpoint.host());
        if proxy
            .as_ref()
            .is_some_and(|p| p.kind() == crate::http::ProxyKind::Https)
        {
            return Err(BuildError::Invalid(
                "proxy: https:// proxies are not supported by WebSocket streams (use http:// or socks5://)",
            ));
        }
        let connects_empty = wire.connects_empty();
        let (policy, ids, conflate, lag_after) = (
            self.opts.policy,
            std::mem::take(&mut self.opts.ids),
            self.opts.conflate,
            self.opts.lag_after,
        );
        let (tx, rx) = mpsc::channel(self.opts.queue_capacity);
        let (per_connection, stagger, busy_poll) = (
            self.opts.per_connection,
            self.opts.stagger,
            self.opts.busy_poll,
        );
        self.opts.read_buffer_size = self.opts.read_buffer_size.max(1 << 10);
        let cfg = Config {
            opts: self.opts,
            policy,
            endpoint,
            proxy,
            tls,
            wire,
            counters: Counters::default(),
        };
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            per_connection,
            stagger,
        ));
        let started = if connects_empty {
            shards.spawn_single(ids)
        } else {
            shards.subscribe(ids)
        };
        started.map_err(|_| BuildError::NoRuntime)?;
        let remote = self.decoder.remote();
        Ok(Feed {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
            decoder: self.decoder,
            remote,
            policy,
            pending: VecDeque::new(),
            conflate: conflate.then(Conflation::default),
            lag_after,
            lagged_at: None,
            folded: 0,
            stopped: false,
        })
    }
}

/// Where the latest message of each key sits in the owned queue, during one fill (conflating
/// feeds).
#[derive(Debug, Default)]
struct Conflation {
    key: String,
    at: HashMap<String, usize>,
}

/// A live feed: its connections, its decoder's state and its queue of owned items.
///
/// Deliver with the zero-copy [`dispatch`](Self::dispatch)/[`run`](Self::run) and a
/// [`Handler`], or poll it as a `Stream` of [`FeedEvent`]s; change subscriptions from anywhere
/// through a [`FeedHandle`]. Dropping it closes its connections.
#[derive(Debug)]
pub struct Feed<D: Decoder> {
    core: StreamCore,
    decoder: D,
    remote: D::Remote,
    policy: &'static Policy,
    pending: VecDeque<FeedEvent<D::Owned>>,
    conflate: Option<Conflation>,
    lag_after: Duration,
    lagged_at: Option<Instant>,
    folded: u64,
    stopped: bool,
}

// Nothing of a feed is pinned in place (its futures are boxed or polled by reference).
impl<D: Decoder> Unpin for Feed<D> {}

/// The owned tier's handler: the queue, conflating when asked.
struct ToQueue<'q, M> {
    pending: &'q mut VecDeque<FeedEvent<M>>,
    conflate: Option<&'q mut Conflation>,
    folded: &'q mut u64,
}

impl<M> ToQueue<'_, M> {
    fn push(&mut self, ev: FeedEvent<M>) {
        if let Some(c) = self.conflate.as_mut() {
            c.at.clear(); // an item without a key: nothing before it is replaced any more
        }
        self.pending.push_back(ev);
    }
}

impl<D: Decoder> Handler<D> for ToQueue<'_, D::Owned> {
    fn on_message(&mut self, msg: &D::Message<'_>, cx: &Cx<'_, D>) {
        let owned = FeedEvent::Message(D::to_owned(msg, cx));
        let Some(c) = self.conflate.as_deref_mut() else {
            return self.pending.push_back(owned);
        };
        c.key.clear();
        if !D::conflation_key(msg, &mut c.key) {
            return self.push(owned);
        }
        match c.at.get(c.key.as_str()) {
            Some(&i) => {
                self.pending[i] = owned;
                *self.folded += 1;
            }
            None => {
                c.at.insert(c.key.clone(), self.pending.len());
                self.pending.push_back(owned);
            }
        }
    }
    fn on_invalid(&mut self, error: &DecodeError, cx: &Cx<'_, D>) {
        let frame = cx.owned_frame().cloned().unwrap_or_else(OwnedFrame::empty);
        self.push(FeedEvent::Invalid {
            error: *error,
            frame,
        });
    }
    fn on_status(&mut self, status: &Status, _: &Cx<'_, D>) {
        self.push(FeedEvent::Status(status.clone()));
    }
    fn on_break(&mut self, brk: &Break, _: &Cx<'_, D>) {
        self.push(FeedEvent::Break(*brk));
    }
    fn on_lag(&mut self, lag: &Lag, _: &Cx<'_, D>) {
        self.push(FeedEvent::Lag(*lag));
    }
}

impl<D: Decoder> Feed<D> {
    /// Delivers what comes next (a frame's messages, a status and its break, a lag report, a
    /// feed's own results such as a REST catch-up) to `handler`. Returns `false` once the feed
    /// has ended.
    pub async fn dispatch<H: Handler<D>>(&mut self, handler: &mut H) -> bool {
        if self.stopped {
            self.core.shards.shutdown();
            return false;
        }
        let delivery = std::future::poll_fn(|cx| {
            if self.decoder.poll(cx, &self.core.shards, handler).is_ready() {
                return Poll::Ready(Some(None));
            }
            self.core.dispatcher.poll_delivery(cx).map(|d| d.map(Some))
        })
        .await;
        match delivery {
            None => false,
            Some(None) => true,
            Some(Some(d)) => {
                self.deliver(d, handler, false);
                true
            }
        }
    }

    /// [`dispatch`](Self::dispatch) until the feed ends.
    pub async fn run<H: Handler<D>>(&mut self, handler: &mut H) {
        while self.dispatch(handler).await {}
    }

    /// The next owned item (`None` once the feed has ended); `StreamExt::next` without the
    /// import.
    pub async fn next_event(&mut self) -> Option<FeedEvent<D::Owned>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// A frame or a status from the connections, through the decoder to `h`.
    fn deliver<H: Handler<D>>(&mut self, delivery: Delivery, h: &mut H, owned: bool) {
        let shards = &self.core.shards;
        match delivery {
            Delivery::Frame(frame) => {
                let behind = frame.received_at().elapsed();
                if behind > self.lag_after
                    && self.lagged_at.is_none_or(|t| t.elapsed() >= self.lag_after)
                {
                    self.lagged_at = Some(Instant::now());
                    let lag = Lag {
                        behind,
                        conflated: std::mem::take(&mut self.folded),
                    };
                    crate::telemetry::event!(
                        DEBUG,
                        "polyclob.feed.lag",
                        behind_ms = crate::telemetry::ms(behind),
                        conflated = lag.conflated,
                    );
                    h.on_lag(&lag, &Cx::new(None, self.decoder.state()));
                }
                self.decoder.frame(&frame, shards, h, owned);
            }
            Delivery::Status(status) => {
                self.decoder.status(&status, shards);
                self.stopped |= matches!(status, Status::Stopped { .. });
                let cx = Cx::new(None, self.decoder.state());
                h.on_status(&status, &cx);
                if let Some(b) = Break::from_status(self.policy.kind, &status) {
                    h.on_break(&b, &cx);
                }
            }
        }
    }

    /// A cloneable handle for subscription changes and control from other tasks.
    #[must_use]
    pub fn handle(&self) -> FeedHandle<D> {
        FeedHandle {
            shards: Arc::clone(&self.core.shards),
            remote: self.remote.clone(),
        }
    }

    /// This feed's counters: connects, breaks, frames, bytes, … (see
    /// [`StreamCounters`](super::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> super::StreamCounters {
        self.core.shards.counters()
    }

    /// The feed's state as of the last item (market: the [`BookManager`](crate::book::BookManager);
    /// RTDS, PolyBolt, sports and the user channel: the trust of their keys).
    #[must_use]
    pub fn state(&self) -> &D::State {
        self.decoder.state()
    }

    /// The trust of `key` now (see [`continuity`](super::continuity)).
    #[must_use]
    pub fn trust(&self, key: D::Key<'_>) -> Trust {
        D::trust(self.decoder.state(), key)
    }

    pub(crate) fn decoder_mut(&mut self) -> &mut D {
        &mut self.decoder
    }
}

impl<D: Decoder> Stream for Feed<D> {
    type Item = FeedEvent<D::Owned>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(ev) = this.pending.pop_front() {
                return Poll::Ready(Some(ev));
            }
            if this.stopped {
                this.core.shards.shutdown();
                return Poll::Ready(None);
            }
            let mut pending = std::mem::take(&mut this.pending);
            let mut conflate = this.conflate.take();
            let mut folded = this.folded;
            let mut sink = ToQueue {
                pending: &mut pending,
                conflate: conflate.as_mut(),
                folded: &mut folded,
            };
            let step = if this
                .decoder
                .poll(cx, &this.core.shards, &mut sink)
                .is_ready()
            {
                Poll::Ready(Some(()))
            } else {
                match this.core.dispatcher.poll_delivery(cx) {
                    Poll::Ready(Some(d)) => {
                        this.deliver(d, &mut sink, true);
                        // Conflating: take everything already queued before yielding.
                        while sink.conflate.is_some() {
                            let Some(d) = this.core.dispatcher.try_delivery() else {
                                break;
                            };
                            this.deliver(d, &mut sink, true);
                        }
                        Poll::Ready(Some(()))
                    }
                    other => other.map(|d| d.map(drop)),
                }
            };
            if let Some(c) = conflate.as_mut() {
                c.at.clear();
            }
            Counters::add(
                &this.core.shards.counter_cells().conflated,
                folded - this.folded,
            );
            this.folded = folded;
            this.conflate = conflate;
            this.pending = pending;
            match step {
                Poll::Ready(Some(())) => {}
                Poll::Ready(None) => return Poll::Ready(this.pending.pop_front()),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// A cloneable handle to a [`Feed`]: subscription changes, reconnects and shutdown from any
/// task.
pub struct FeedHandle<D: Decoder> {
    shards: Arc<Shards>,
    pub(crate) remote: D::Remote,
}

impl<D: Decoder> Clone for FeedHandle<D> {
    fn clone(&self) -> Self {
        Self {
            shards: Arc::clone(&self.shards),
            remote: self.remote.clone(),
        }
    }
}

impl<D: Decoder> fmt::Debug for FeedHandle<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FeedHandle")
            .field("shards", &self.shards)
            .field("remote", &self.remote)
            .finish()
    }
}

impl<D: Decoder> FeedHandle<D> {
    /// Subscribes more (what is already subscribed is ignored); sent on the open connections.
    ///
    /// # Errors
    /// The feed's refusal: [`Closed`] after shutdown; PolyBolt's documented limits.
    pub fn subscribe<I, S>(&self, subs: I) -> Result<(), D::Refused>
    where
        I: IntoIterator<Item = S>,
        S: Into<D::Sub>,
    {
        let active = self.shards.ids_of_all();
        let mut seen = BTreeSet::new();
        let fresh: Vec<String> = subs
            .into_iter()
            .map(|s| D::render(s.into()))
            .filter(|s| active.binary_search(s).is_err() && seen.insert(s.clone()))
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        D::check(&self.remote, &active, &fresh)?;
        Ok(self.shards.subscribe(fresh)?)
    }

    /// Unsubscribes (what is not subscribed is ignored).
    ///
    /// # Errors
    /// As [`subscribe`](Self::subscribe).
    pub fn unsubscribe<I, S>(&self, subs: I) -> Result<(), D::Refused>
    where
        I: IntoIterator<Item = S>,
        S: Into<D::Sub>,
    {
        let gone: Vec<String> = subs.into_iter().map(|s| D::render(s.into())).collect();
        D::check(&self.remote, &[], &[])?;
        Ok(self.shards.unsubscribe(gone)?)
    }

    /// Reconnects one connection (or all with `None`) now, with no backoff step (e.g. for
    /// fresh snapshots).
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn reconnect(&self, shard: Option<usize>) -> Result<(), Closed> {
        self.shards.reconnect(shard)
    }

    /// Closes every connection (each with a Close frame); the feed then ends.
    pub fn shutdown(&self) {
        self.shards.shutdown();
    }

    /// Connections opened so far.
    #[must_use]
    pub fn shard_count(&self) -> usize {
        self.shards.shard_count()
    }

    /// What each connection carries (sorted), in connection order.
    #[must_use]
    pub fn assignment(&self) -> Vec<Vec<String>> {
        self.shards.assignment()
    }

    /// What connection `shard` carries (sorted; empty for an unknown one).
    #[must_use]
    pub fn shard_assets(&self, shard: usize) -> Vec<String> {
        self.shards.ids_of(shard)
    }

    /// See [`Feed::counters`].
    #[must_use]
    pub fn counters(&self) -> super::StreamCounters {
        self.shards.counters()
    }
}
