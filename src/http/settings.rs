//! [`Settings`]: what one HTTP transport is built from (host, timeouts, pool, HTTP/2, TCP,
//! gzip, DNS cache, user agent, retries, breaker, proxy), with the crate's defaults, and the
//! one place a tuned `reqwest` client is built from them.
//!
//! The public builders (CLOB, Gamma, Data API, the on-chain settler) hold a `Settings` and
//! document each knob on their own setters.

use std::time::Duration;

use super::breaker::{Breaker, BreakerConfig};
use super::client::Client;
use super::error::{Error, Kind};
use super::proxy::{Route, Setting};
use super::retry::RetryPolicy;

/// The transport's knobs. Every field has the default its builders document.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The base URL; used as given (the builders trim a trailing `/`).
    pub(crate) host: String,
    /// Deadline of one attempt, connect to last body byte.
    pub(crate) timeout: Option<Duration>,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) pool_max_idle_per_host: usize,
    pub(crate) pool_idle_timeout: Option<Duration>,
    pub(crate) http2_keep_alive_interval: Option<Duration>,
    pub(crate) http2_keep_alive_timeout: Duration,
    pub(crate) http2_prior_knowledge: bool,
    pub(crate) tcp_nodelay: bool,
    pub(crate) tcp_keepalive: Option<Duration>,
    pub(crate) gzip: bool,
    /// Ignored with the `hickory-dns` feature (hickory caches by record TTL).
    #[cfg_attr(feature = "hickory-dns", allow(dead_code))]
    pub(crate) dns_cache_ttl: Option<Duration>,
    pub(crate) user_agent: String,
    pub(crate) retry: RetryPolicy,
    pub(crate) breaker: BreakerConfig,
    pub(crate) proxy: Setting,
    /// Pace requests to this host's rows of the per-IP table (`None` = no pacing).
    pub(crate) pacing: Option<super::limits::Service>,
}

impl Settings {
    /// The defaults, for `host`.
    pub(crate) fn new(host: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            timeout: Some(Duration::from_secs(10)),
            connect_timeout: Some(Duration::from_secs(5)),
            pool_max_idle_per_host: 16,
            pool_idle_timeout: Some(Duration::from_secs(90)),
            http2_keep_alive_interval: Some(Duration::from_secs(15)),
            http2_keep_alive_timeout: Duration::from_secs(10),
            http2_prior_knowledge: false,
            tcp_nodelay: true,
            tcp_keepalive: Some(Duration::from_secs(30)),
            gzip: true,
            dns_cache_ttl: Some(Duration::from_secs(60)),
            user_agent: concat!("polyclob/", env!("CARGO_PKG_VERSION")).to_owned(),
            retry: RetryPolicy::default(),
            breaker: BreakerConfig::default(),
            proxy: Setting::Env,
            pacing: None,
        }
    }

    /// Sets the base URL, removing trailing slashes.
    pub(crate) fn set_host(&mut self, host: impl Into<String>) {
        let mut h: String = host.into();
        while h.ends_with('/') {
            h.pop();
        }
        self.host = h;
    }

    /// Builds the transport on the proxy `route` (resolved once by the caller, so that every
    /// connection it opens besides this client's follows the same one).
    ///
    /// # Errors
    /// When the TLS configuration cannot be set up (no usable root store), the proxy is
    /// refused, or reqwest cannot build the client.
    pub(crate) fn build(self, route: &Route) -> Result<Client, Error> {
        let builder_error = |e| Error::new(Kind::Builder).with_source(e);
        // h2 (and http/1.1 unless prior knowledge of HTTP/2 was asked for) over the crate's
        // one rustls configuration.
        let alpn: &[&[u8]] = if self.http2_prior_knowledge {
            &[b"h2"]
        } else {
            &[b"h2", b"http/1.1"]
        };
        let tls = super::tls::client_config(alpn).map_err(builder_error)?;
        let mut http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .user_agent(self.user_agent)
            .pool_max_idle_per_host(self.pool_max_idle_per_host)
            .pool_idle_timeout(self.pool_idle_timeout)
            .tcp_nodelay(self.tcp_nodelay)
            .tcp_keepalive(self.tcp_keepalive)
            .gzip(self.gzip)
            .http2_keep_alive_interval(self.http2_keep_alive_interval)
            .http2_keep_alive_timeout(self.http2_keep_alive_timeout)
            .http2_keep_alive_while_idle(true)
            .http2_adaptive_window(true);
        http = route
            .apply(http)
            .map_err(|e| Error::new(Kind::Builder).with_source(e))?;
        #[cfg(not(feature = "hickory-dns"))]
        if let Some(ttl) = self.dns_cache_ttl {
            http = http.dns_resolver(super::dns::CachingResolver::new(ttl));
        }
        if let Some(t) = self.connect_timeout {
            http = http.connect_timeout(t);
        }
        if self.http2_prior_knowledge {
            http = http.http2_prior_knowledge();
        }
        let http = http.build().map_err(Error::from_reqwest)?;
        Ok(Client::new(
            http,
            self.host,
            self.timeout,
            self.retry,
            Breaker::new(self.breaker),
            self.proxy,
            self.pacing.map(super::limits::Pacers::new),
        ))
    }
}
