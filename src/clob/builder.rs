//! [`ClientBuilder`]: the transport's settings (tuning, retries, breaker, proxy) and the CLOB's
//! own (chain, clock, caches, auth material, rails, the order lane).

use std::sync::Arc;
use std::time::Duration;

use super::auth::{Auth, AuthConfig, Credentials};
use super::cache::Caches;
use super::client::{Client, Inner, UNSYNCED};
use super::lane::Lane;
use super::rails::{Rails, RailsConfig};
use crate::http::proxy::Setting;
use crate::http::{BreakerConfig, Error, Governor, Proxy, RetryPolicy, Settings, Throttle, Tier};
use crate::types::Chain;

/// The production CLOB host.
pub const DEFAULT_HOST: &str = "https://clob.polymarket.com";

impl Client {
    /// A builder with every default (production host, Polygon).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }
}

/// Builds a [`Client`]. Setters are infallible and state their default; only
/// [`build`](Self::build) can fail.
///
/// ```
/// use std::time::Duration;
/// use polyclob::clob::Client;
///
/// let client = Client::builder()
///     .host("http://127.0.0.1:1")
///     .timeout(Duration::from_secs(2))
///     .pool_max_idle_per_host(8)
///     .build()
///     .unwrap();
/// assert_eq!(client.host(), "http://127.0.0.1:1");
/// ```
#[derive(Debug)]
#[must_use]
pub struct ClientBuilder {
    http: Settings,
    pub(crate) chain: Chain,
    server_time: bool,
    cache_ttl: Duration,
    order_lane: bool,
    pub(crate) auth: AuthConfig,
    rails: RailsConfig,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientBuilder {
    /// A builder with the defaults listed on each setter.
    pub fn new() -> Self {
        Self {
            http: Settings::new(DEFAULT_HOST),
            chain: Chain::Polygon,
            server_time: false,
            cache_ttl: Duration::from_secs(300),
            order_lane: false,
            auth: AuthConfig::default(),
            rails: RailsConfig::default(),
        }
    }

    /// The base URL, without a trailing slash (one is removed). Default is
    /// `https://clob.polymarket.com`.
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.http.set_host(host);
        self
    }

    /// The chain orders and ClobAuth are signed for. Default is [`Chain::Polygon`].
    pub fn chain(mut self, chain: Chain) -> Self {
        self.chain = chain;
        self
    }

    /// Deadline of one attempt, connect to last body byte. Default is 10 s; `None` waits
    /// forever.
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.http.timeout = timeout.into();
        self
    }

    /// Deadline for establishing a connection. Default is 5 s.
    pub fn connect_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.http.connect_timeout = timeout.into();
        self
    }

    /// Idle connections kept per host. Default is 16.
    pub fn pool_max_idle_per_host(mut self, max: usize) -> Self {
        self.http.pool_max_idle_per_host = max;
        self
    }

    /// How long an idle pooled connection is kept. Default is 90 s.
    pub fn pool_idle_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.http.pool_idle_timeout = timeout.into();
        self
    }

    /// HTTP/2 PING interval, also while idle, so a quiet connection stays warm and a dead one
    /// is noticed. Default is 15 s.
    pub fn http2_keep_alive_interval(mut self, interval: impl Into<Option<Duration>>) -> Self {
        self.http.http2_keep_alive_interval = interval.into();
        self
    }

    /// How long to wait for a PING acknowledgement before closing. Default is 10 s.
    pub fn http2_keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.http.http2_keep_alive_timeout = timeout;
        self
    }

    /// Speak HTTP/2 without ALPN negotiation (for h2c test servers). Default is `false`.
    pub fn http2_prior_knowledge(mut self, enabled: bool) -> Self {
        self.http.http2_prior_knowledge = enabled;
        self
    }

    /// Disable Nagle's algorithm. Default is `true`.
    pub fn tcp_nodelay(mut self, enabled: bool) -> Self {
        self.http.tcp_nodelay = enabled;
        self
    }

    /// TCP keepalive probe interval. Default is 30 s.
    pub fn tcp_keepalive(mut self, interval: impl Into<Option<Duration>>) -> Self {
        self.http.tcp_keepalive = interval.into();
        self
    }

    /// Ask for gzip responses (markets pages shrink about tenfold). Default is `true`.
    pub fn gzip(mut self, enabled: bool) -> Self {
        self.http.gzip = enabled;
        self
    }

    /// Retry policy for idempotent requests. Default is [`RetryPolicy::default`].
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.http.retry = policy;
        self
    }

    /// Circuit breaker. Default is disabled ([`BreakerConfig::default`]).
    pub fn breaker(mut self, config: BreakerConfig) -> Self {
        self.http.breaker = config;
        self
    }

    /// Sign timestamps with the server's clock: the offset is learnt from `GET /time` by
    /// [`Client::sync_clock`], or automatically before the first signed request. L2
    /// signatures are valid for 30 s, so a local clock that is off by more fails every
    /// authenticated call. Default is `false`: the local clock.
    pub fn server_time(mut self, enabled: bool) -> Self {
        self.server_time = enabled;
        self
    }

    /// How long tick size, neg-risk and fee entries stay cached. Default is 300 s.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// How long resolved addresses are reused when a new connection is opened. Default is
    /// 60 s; `None` asks the system resolver every time. Ignored with the `hickory-dns` feature
    /// (hickory caches by record TTL).
    pub fn dns_cache_ttl(mut self, ttl: impl Into<Option<Duration>>) -> Self {
        self.http.dns_cache_ttl = ttl.into();
        self
    }

    /// The `User-Agent` header. Default is `polyclob/<version>`.
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.http.user_agent = ua.into();
        self
    }

    /// The private key used for L1 headers and order signatures. Default is none: public
    /// endpoints only.
    pub fn signer(mut self, signer: crate::sign::Signer) -> Self {
        self.auth.signer = Some(signer);
        self
    }

    /// API credentials for L2 endpoints. Default is none; they can also be set later with
    /// [`Client::set_credentials`].
    pub fn credentials(mut self, creds: Credentials) -> Self {
        self.auth.creds = Some(creds);
        self
    }

    /// What happens to an order or cancel the signer's rate-limit buckets would refuse:
    /// wait for the tokens, refuse at once with [`Error::is_throttled`] and the wait, or send
    /// anyway ([`Throttle::Off`]). Default is [`Throttle::Wait`] of up to 5 s.
    ///
    pub fn throttle(mut self, throttle: Throttle) -> Self {
        self.rails.throttle = throttle;
        self
    }

    /// The account's trading tier, when known in advance (it is also learnt from the
    /// exchange's `Poly-RateLimit-Tier` header and [`Client::sync_rate_limit_tier`]). Default is
    /// none: Standard, the tightest, is assumed until the exchange names one.
    pub fn rate_limit_tier(mut self, tier: Tier) -> Self {
        self.rails.tier = Some(tier);
        self
    }

    /// Shares one [`Governor`] between clients that trade for the same signer
    /// (the exchange meters per signer, not per connection). Default is a governor of this
    /// client's own.
    pub fn governor(mut self, governor: Arc<Governor>) -> Self {
        self.rails.governor = Some(governor);
        self
    }

    /// Pace every request to the exchange's per-IP limits
    /// (docs.polymarket.com/api-reference/rate-limits; one table with its source in
    /// `src/http/limits.rs`, paced by the rule [`Pacer`](crate::http::Pacer) states): all CLOB
    /// requests 9,000 per 10 s; `/book`, `/price`, `/midpoint` 1,500; `/books`, `/prices`,
    /// `/midpoints`, `/data/orders`, `/data/trades` 500; `/tick-size` and balance-allowance
    /// 200; `POST`/`DELETE /order` 5,000 per 10 s and 120,000 per 10 min; `DELETE /cancel-all` 250 and 6,000; … A trading
    /// request passes the signer's [governor](Self::governor) first. A burst then waits on the
    /// client instead of being queued or refused at the edge. Default is `false`.
    pub fn ip_pacing(mut self, enabled: bool) -> Self {
        self.http.pacing = enabled.then_some(crate::http::limits::Service::Clob);
        self
    }

    /// Sends orders, cancels and heartbeats on an **order lane**: up to four kept-alive
    /// HTTP/1.1 connections of the client's own (TLS with ALPN `http/1.1` for `https`), each
    /// request built into a reused buffer and written with one write from the calling task,
    /// its response read by a small reader of the lane's own. Everything else (and a trading
    /// request that finds all lane connections busy: it never waits for one) goes by the
    /// pooled `reqwest` client. The rails, breaker, timeout, errors and decoded answers are
    /// the same either way. An order whose bytes were written and whose response never came
    /// is not resent (the error says its outcome is unknown); a connection the server closed
    /// while idle is noticed before the write and replaced. [`Client::prewarm`] opens one
    /// lane connection.
    ///
    /// Default is `false`: the lane does not share the HTTP/2 connection the rest of the client
    /// multiplexes on (up to four more TCP+TLS connections to the exchange, each carrying one
    /// request at a time) and has no gzip. What it saves on an order's post is measured in
    /// BENCHMARKS.md ("Tick to trade").
    pub fn order_lane(mut self, enabled: bool) -> Self {
        self.order_lane = enabled;
        self
    }

    /// Sends every connection of the client through `proxy`: REST (relayer and geoblock
    /// calls included), the order lane (a `CONNECT` or SOCKS5 tunnel of its own; with an
    /// `https://` proxy the lane is not used and orders go by the pooled client), and the
    /// streams built with `proxy_from(&client)`
    /// ([`FeedBuilder::proxy_from`](crate::ws::feed::FeedBuilder::proxy_from)).
    /// It also applies to loopback hosts. Default is the proxy environment variables
    /// ([`Proxy`](Proxy#where-it-applies) lists them and the `NO_PROXY` rules).
    pub fn proxy(mut self, proxy: Proxy) -> Self {
        self.http.proxy = Setting::Fixed(Arc::new(proxy));
        self
    }

    /// Never use a proxy, whatever the environment says. Default is the proxy environment
    /// variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`;
    /// [`Proxy`](Proxy#where-it-applies)), as reqwest and `polymarket-rs-client`
    /// 0.1.1 do; with none set this is the same.
    pub fn no_proxy(mut self) -> Self {
        self.http.proxy = Setting::Direct;
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    ///
    /// When the TLS configuration cannot be set up (no usable root store) or the HTTP client
    /// cannot be built.
    pub fn build(self) -> Result<Client, Error> {
        // The environment is read once, here; every transport follows the same route.
        let route = self.http.proxy.resolve();
        let lane = if self.order_lane {
            Lane::new(
                &self.http.host,
                &self.http.user_agent,
                self.http.connect_timeout,
                &route,
            )?
        } else {
            None
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http: self.http.build(&route)?,
                chain: self.chain,
                server_time: self.server_time,
                clock_offset: std::sync::atomic::AtomicI64::new(UNSYNCED),
                caches: Caches::new(self.cache_ttl),
                auth: Auth::new(self.auth),
                rails: Rails::new(self.rails),
                lane,
            }),
        })
    }
}
