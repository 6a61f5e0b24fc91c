//! Connection settings shared by the market and user stream builders.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::connection::{
    ChannelKind, Config, ConnectError, HookFuture, ReconnectHook, Reconnected,
};
use super::transport::Endpoint;

/// Why a stream could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The URL is not a `ws://` or `wss://` URL with a host.
    InvalidUrl,
    /// `build()` was called outside a Tokio runtime (the shards are spawned on it).
    NoRuntime,
    /// A setting is out of range; the message names it.
    Invalid(&'static str),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

pub(crate) struct Options {
    pub(crate) url: String,
    pub(crate) tls: Option<Arc<rustls::ClientConfig>>,
    pub(crate) ping_interval: Duration,
    pub(crate) pong_timeout: Duration,
    pub(crate) silence_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) backoff_initial: Duration,
    pub(crate) backoff_max: Duration,
    pub(crate) queue_capacity: usize,
    pub(crate) busy_poll: bool,
    pub(crate) max_message_size: usize,
    pub(crate) read_buffer_size: usize,
    pub(crate) on_reconnect: Option<ReconnectHook>,
    pub(crate) proxy: crate::http::proxy::Setting,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("url", &self.url)
            .field("ping_interval", &self.ping_interval)
            .field("pong_timeout", &self.pong_timeout)
            .field("silence_timeout", &self.silence_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("backoff_initial", &self.backoff_initial)
            .field("backoff_max", &self.backoff_max)
            .field("queue_capacity", &self.queue_capacity)
            .field("busy_poll", &self.busy_poll)
            .field("max_message_size", &self.max_message_size)
            .field("read_buffer_size", &self.read_buffer_size)
            .field("on_reconnect", &self.on_reconnect.is_some())
            .field("proxy", &self.proxy)
            .finish_non_exhaustive()
    }
}

/// Default socket read size (see `read_buffer_size`).
pub(crate) const DEFAULT_READ_BUFFER: usize = 16 << 10;
const MIN_READ_BUFFER: usize = 1 << 10;

impl Options {
    pub(crate) fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
            tls: None,
            ping_interval: Duration::from_secs(10),
            pong_timeout: Duration::from_secs(30),
            silence_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            backoff_initial: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            queue_capacity: 4096,
            busy_poll: false,
            max_message_size: 16 << 20,
            read_buffer_size: DEFAULT_READ_BUFFER,
            on_reconnect: None,
            proxy: crate::http::proxy::Setting::Env,
        }
    }

    pub(crate) fn set_hook<F, Fut>(&mut self, f: F)
    where
        F: Fn(Reconnected) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_reconnect = Some(Arc::new(move |r| -> HookFuture { Box::pin(f(r)) }));
    }

    /// The shards' configuration, the queue capacity and whether the consumer busy-polls.
    pub(crate) fn into_config(
        self,
        kind: ChannelKind,
    ) -> Result<(Config, usize, bool), BuildError> {
        let endpoint = Endpoint::parse(&self.url).map_err(|e| match e {
            ConnectError::InvalidUrl => BuildError::InvalidUrl,
            _ => BuildError::Invalid("url"),
        })?;
        if self.ping_interval.is_zero() {
            return Err(BuildError::Invalid("ping_interval must be > 0"));
        }
        if self.silence_timeout <= self.ping_interval {
            return Err(BuildError::Invalid(
                "silence_timeout must exceed ping_interval",
            ));
        }
        if self.pong_timeout.is_zero() || self.connect_timeout.is_zero() {
            return Err(BuildError::Invalid("timeouts must be > 0"));
        }
        if self.queue_capacity == 0 {
            return Err(BuildError::Invalid("queue_capacity must be > 0"));
        }
        // Built once here (loading the platform verifier is not free), not per connect.
        let tls = match self.tls {
            Some(c) => Some(c),
            None if endpoint.is_tls() => {
                Some(super::transport::default_tls().map_err(|_| BuildError::Invalid("tls"))?)
            }
            None => None,
        };
        // The environment is read once, here, for this endpoint.
        let proxy = self
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
        let cfg = Config {
            proxy,
            endpoint,
            tls,
            ping_interval: self.ping_interval,
            pong_timeout: self.pong_timeout,
            silence_timeout: self.silence_timeout,
            connect_timeout: self.connect_timeout,
            backoff_initial: self.backoff_initial,
            backoff_max: self.backoff_max,
            max_message_size: self.max_message_size,
            read_buffer_size: self.read_buffer_size.max(MIN_READ_BUFFER),
            on_reconnect: self.on_reconnect,
            kind,
            counters: super::counters::Counters::default(),
        };
        Ok((cfg, self.queue_capacity, self.busy_poll))
    }
}

/// The builder setters common to both channels.
macro_rules! common_setters {
    () => {
        /// The endpoint URL (`ws://` or `wss://`). Default is Polymarket's production endpoint
        /// for this channel.
        #[must_use]
        pub fn url(mut self, url: impl AsRef<str>) -> Self {
            self.opts.url = url.as_ref().to_owned();
            self
        }

        /// The rustls configuration for `wss://`. Default is rustls with the ring provider
        /// and the platform verifier — the configuration the HTTP clients use.
        #[must_use]
        pub fn tls_config(mut self, config: std::sync::Arc<rustls::ClientConfig>) -> Self {
            self.opts.tls = Some(config);
            self
        }

        /// Connects through `proxy`: an HTTP `CONNECT` tunnel (`http://`) or a SOCKS5
        /// handshake (`socks5://`, `socks5h://`) before TLS, within the connect timeout. A
        /// proxy that refuses is a connect failure
        /// ([`ConnectError::Proxy`](crate::ws::connection::ConnectError::Proxy)), retried with
        /// backoff; `https://` proxies are not supported here (`build` says so). Applies to
        /// loopback hosts too. Default is the proxy environment variables
        /// ([`Proxy`](crate::http::Proxy#where-it-applies)).
        #[must_use]
        pub fn proxy(mut self, proxy: crate::http::Proxy) -> Self {
            self.opts.proxy = crate::http::proxy::Setting::Fixed(std::sync::Arc::new(proxy));
            self
        }

        /// Connects directly, whatever the proxy environment variables say. Default is the
        /// proxy environment variables ([`Proxy`](crate::http::Proxy#where-it-applies)).
        #[must_use]
        pub fn no_proxy(mut self) -> Self {
            self.opts.proxy = crate::http::proxy::Setting::Direct;
            self
        }

        /// Uses the same proxy choice as `client` (its
        /// [`proxy`](crate::clob::ClientBuilder::proxy),
        /// [`no_proxy`](crate::clob::ClientBuilder::no_proxy) or the environment default).
        #[must_use]
        pub fn proxy_from(mut self, client: &crate::clob::Client) -> Self {
            self.opts.proxy = client.proxy_setting().clone();
            self
        }

        /// Interval of the text `PING` keepalive, sent only once something is subscribed.
        /// Default is 10 s.
        #[must_use]
        pub fn ping_interval(mut self, every: std::time::Duration) -> Self {
            self.opts.ping_interval = every;
            self
        }

        /// How long a `PING` may go unanswered before the connection is considered dead.
        /// Default is 30 s.
        #[must_use]
        pub fn pong_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.opts.pong_timeout = timeout;
            self
        }

        /// How long the connection may receive nothing at all (PONGs included) before it is
        /// considered half-open and replaced; also bounds every write. Must exceed the ping
        /// interval. Default is 30 s.
        #[must_use]
        pub fn silence_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.opts.silence_timeout = timeout;
            self
        }

        /// Bound on TCP connect + TLS + WebSocket handshake. Default is 10 s.
        #[must_use]
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.opts.connect_timeout = timeout;
            self
        }

        /// Reconnect backoff: first delay around `initial`, doubling up to `max`, with
        /// jitter. Reset after a connection that delivered data. Default is 1 s → 60 s.
        #[must_use]
        pub fn backoff(mut self, initial: std::time::Duration, max: std::time::Duration) -> Self {
            self.opts.backoff_initial = initial;
            self.opts.backoff_max = max;
            self
        }

        /// Capacity of the queue between the connections and the consumer, in frames. When
        /// it stays full (the consumer took nothing for 50 ms) the shard reports
        /// `Status::Lagged` and reconnects. Default is 4096.
        #[must_use]
        pub fn queue_capacity(mut self, frames: usize) -> Self {
            self.opts.queue_capacity = frames;
            self
        }

        /// Never let the consumer's thread sleep while it waits for a frame: when nothing is
        /// queued, `dispatch`/`next` yield to the runtime (which then checks the sockets
        /// without blocking) instead of parking. This takes the thread wake-up (tens of µs on
        /// a virtual machine) out of the socket-to-handler latency, at the price of one core
        /// spinning. It helps where the sockets are read on the consumer's thread: a
        /// current-thread runtime (or a `LocalSet`). Default is off.
        #[must_use]
        pub fn busy_poll(mut self, on: bool) -> Self {
            self.opts.busy_poll = on;
            self
        }

        /// Bytes asked of the socket per read. The WebSocket reader zero-fills the free part
        /// of this buffer before every read (the empty read that ends each burst included), so
        /// a large one costs a memset of that size per read and pushes the decoder's and the
        /// books' lines out of the L1/L2 caches; at 128 KiB it was a quarter of the client's
        /// CPU over 25 connections at 10,000 msg/s. A message larger than the buffer takes
        /// several reads. Default is 16 KiB (a read
        /// still takes dozens of typical frames in a burst); values under 1 KiB count as
        /// 1 KiB.
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

        /// An async callback run on its own task after every reconnect, once the
        /// resubscription has been sent (so nothing falls between what the hook fetches
        /// and what the stream delivers). Default is none.
        #[must_use]
        pub fn on_reconnect<F, Fut>(mut self, hook: F) -> Self
        where
            F: Fn(crate::ws::connection::Reconnected) -> Fut + Send + Sync + 'static,
            Fut: std::future::Future<Output = ()> + Send + 'static,
        {
            self.opts.set_hook(hook);
            self
        }
    };
}

pub(crate) use common_setters;
