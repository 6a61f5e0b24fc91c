//! Outbound proxies ([`Proxy`], re-exported as `polyclob::http::Proxy`): the URL type, the
//! builders' choice ([`Setting`]), the environment's proxies and `NO_PROXY` rules, and the
//! [`Route`] every transport follows (reqwest is configured from it; the order lane and the
//! streams open their tunnels in `tunnel.rs`).

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use zeroize::{Zeroize, Zeroizing};

/// How a [`Proxy`] is spoken to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProxyKind {
    /// `http://`: an HTTP proxy, tunnelled through with `CONNECT` (the pooled HTTP client
    /// sends plain `http://` requests to it in absolute form instead).
    Http,
    /// `https://`: an HTTP proxy reached over TLS. The pooled HTTP client (reqwest) speaks
    /// to it; the order lane is not used with it (orders go by the pooled client), and the
    /// WebSocket stream builders refuse it.
    Https,
    /// `socks5://`: SOCKS5, the target's name resolved locally.
    Socks5,
    /// `socks5h://`: SOCKS5, the target's name resolved by the proxy.
    Socks5h,
}

/// A proxy server: `http://[user:pass@]host:port`, `https://…`, `socks5://…` or
/// `socks5h://…` (a URL without a scheme is `http://`). The credentials (percent-decoded)
/// are zeroized on drop and never shown by `Debug` or any error.
///
/// Default ports: 80 (`http`), 443 (`https`), 1080 (SOCKS).
///
/// # Where it applies
///
/// One [`Proxy`] (HTTP `CONNECT`, HTTPS, SOCKS5 or SOCKS5 with remote DNS) for every
/// connection a client opens, or the proxy environment variables. Every transport follows
/// the same choice:
///
/// - the pooled HTTP client (CLOB REST, Gamma, Data API, the relayer, on-chain JSON-RPC)
///   hands it to reqwest;
/// - the order lane ([`ClientBuilder::order_lane`](crate::clob::ClientBuilder::order_lane)) and
///   the WebSocket streams (market, user, RTDS) open the tunnel themselves: an HTTP `CONNECT`
///   or a SOCKS5 handshake on the TCP stream before TLS, inside the connect timeout. A proxy
///   that refuses is a connect failure ([`ProxyFailure`](crate::http::ProxyFailure)), retried
///   with backoff by the streams. An `https://` proxy is for the pooled client only: the lane is not used with
///   it, and stream builders refuse it.
///
/// The builders' `proxy(Proxy)` and `no_proxy()` choose; the default honours the environment
/// the way reqwest (and so `polymarket-rs-client` 0.1.1) does, read once when the client or
/// stream is built:
///
/// | target                    | variables (first set wins)                               |
/// |---------------------------|----------------------------------------------------------|
/// | `https://`, `wss://`      | `HTTPS_PROXY`, `https_proxy`, `ALL_PROXY`, `all_proxy`    |
/// | `http://`, `ws://`        | `HTTP_PROXY`, `http_proxy`, `ALL_PROXY`, `all_proxy`      |
///
/// `NO_PROXY` (or `no_proxy`) lists hosts that go direct: `*` (every host), a domain (which
/// also matches its subdomains; a leading dot is ignored), an IP address, or a CIDR block
/// (`10.0.0.0/8`); a port in an entry is ignored. From the environment, loopback targets
/// (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`) always go direct; an explicit `Proxy`
/// applies to them too. As in reqwest, `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set
/// (a CGI process, where it could come from a request header), and a value that is not a
/// proxy URL is ignored. When no variable is set the clients are built exactly as with
/// `no_proxy()`: nothing is looked up per request.
///
/// ```
/// use polyclob::http::Proxy;
///
/// let proxy: Proxy = "socks5h://bot:s3cret@10.0.0.7:1080".parse()?;
/// assert_eq!(proxy.host(), "10.0.0.7");
/// assert_eq!(proxy.port(), 1080);
/// // Credentials never appear in Debug output.
/// assert!(!format!("{proxy:?}").contains("s3cret"));
///
/// let client = polyclob::clob::Client::builder().proxy(proxy).build()?;
/// # let _ = client;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Proxy {
    pub(super) kind: ProxyKind,
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) auth: Option<Auth>,
}

#[derive(Clone)]
pub(super) struct Auth {
    pub(super) user: Zeroizing<String>,
    pub(super) pass: Zeroizing<String>,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("kind", &self.kind)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("auth", &self.auth.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Why a proxy URL was refused. The message names the problem, never the URL (which may
/// hold credentials).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxyError(&'static str);

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid proxy URL: {}", self.0)
    }
}

impl std::error::Error for ProxyError {}

impl Proxy {
    /// Parses a proxy URL.
    ///
    /// # Errors
    /// An unsupported scheme (only `http`, `https`, `socks5`, `socks5h`), no host, a bad
    /// port, a path, query or fragment, or a credential that is not valid percent-encoded
    /// UTF-8.
    pub fn parse(url: &str) -> Result<Self, ProxyError> {
        let url = url.trim();
        let with_scheme;
        let text = if url.contains("://") {
            url
        } else {
            with_scheme = Zeroizing::new(format!("http://{url}"));
            with_scheme.as_str()
        };
        let parsed = reqwest::Url::parse(text).map_err(|_| ProxyError("not a URL"))?;
        let (kind, default_port) = match parsed.scheme() {
            "http" => (ProxyKind::Http, 80),
            "https" => (ProxyKind::Https, 443),
            "socks5" => (ProxyKind::Socks5, 1080),
            "socks5h" => (ProxyKind::Socks5h, 1080),
            _ => {
                return Err(ProxyError(
                    "unsupported scheme (http, https, socks5 and socks5h are)",
                ));
            }
        };
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or(ProxyError("no host"))?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        if !matches!(parsed.path(), "" | "/") || parsed.query().is_some() {
            return Err(ProxyError("a proxy URL has no path or query"));
        }
        if parsed.fragment().is_some() {
            return Err(ProxyError("a proxy URL has no fragment"));
        }
        let port = parsed.port().unwrap_or(default_port);
        let auth = if parsed.username().is_empty() && parsed.password().is_none() {
            None
        } else {
            let user = percent_decode(parsed.username())?;
            let pass = percent_decode(parsed.password().unwrap_or(""))?;
            Some(Auth { user, pass })
        };
        // `parsed` holds the credentials too: `Url` cannot be wiped in place, its `String`
        // (taken without a copy) can.
        let mut s: String = parsed.into();
        s.zeroize();
        Ok(Self {
            kind,
            host,
            port,
            auth,
        })
    }

    /// Sets (or replaces) the username and password (`Proxy-Authorization: Basic` for HTTP
    /// proxies, RFC 1929 for SOCKS5).
    #[must_use]
    pub fn basic_auth(mut self, user: &str, pass: &str) -> Self {
        self.auth = Some(Auth {
            user: Zeroizing::new(user.to_owned()),
            pass: Zeroizing::new(pass.to_owned()),
        });
        self
    }

    /// How the proxy is spoken to.
    #[must_use]
    pub fn kind(&self) -> ProxyKind {
        self.kind
    }

    /// The proxy's host name or IP address (IPv6 without brackets).
    #[must_use]
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The proxy's port.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether credentials are set.
    #[must_use]
    pub fn has_auth(&self) -> bool {
        self.auth.is_some()
    }

    /// The URL reqwest is given (with the credentials, percent-encoded); wiped by the caller.
    fn reqwest_url(&self) -> Zeroizing<String> {
        let scheme = match self.kind {
            ProxyKind::Http => "http",
            ProxyKind::Https => "https",
            ProxyKind::Socks5 => "socks5",
            ProxyKind::Socks5h => "socks5h",
        };
        let mut s = Zeroizing::new(String::with_capacity(64));
        s.push_str(scheme);
        s.push_str("://");
        if let Some(a) = &self.auth {
            percent_encode(&a.user, &mut s);
            s.push(':');
            percent_encode(&a.pass, &mut s);
            s.push('@');
        }
        push_host(&mut s, &self.host);
        s.push(':');
        s.push_str(&self.port.to_string());
        s
    }

    fn reqwest_proxy_url(&self) -> Option<reqwest::Url> {
        reqwest::Url::parse(&self.reqwest_url()).ok()
    }
}

impl std::str::FromStr for Proxy {
    type Err = ProxyError;

    fn from_str(s: &str) -> Result<Self, ProxyError> {
        Self::parse(s)
    }
}

pub(super) fn push_host(s: &mut String, host: &str) {
    if host.contains(':') {
        s.push('[');
        s.push_str(host);
        s.push(']');
    } else {
        s.push_str(host);
    }
}

fn percent_decode(s: &str) -> Result<Zeroizing<String>, ProxyError> {
    let bad = ProxyError("credentials are not valid percent-encoded UTF-8");
    let b = s.as_bytes();
    let mut out = Zeroizing::new(Vec::with_capacity(b.len()));
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = |c: u8| (c as char).to_digit(16);
            let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            ) else {
                return Err(bad);
            };
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let text = std::str::from_utf8(&out).map_err(|_| bad)?;
    Ok(Zeroizing::new(text.to_owned()))
}

fn percent_encode(s: &str, out: &mut String) {
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
            out.push(c as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        }
    }
}

// ----------------------------------------------------------------------------------------
// The choice: environment, direct, or one proxy.

/// What a builder was told.
#[derive(Debug, Clone, Default)]
pub(crate) enum Setting {
    /// The proxy environment variables (the default).
    #[default]
    Env,
    /// Never a proxy.
    Direct,
    /// This proxy for every target.
    Fixed(Arc<Proxy>),
}

impl Setting {
    /// Reads the environment (once) when the setting asks for it.
    pub(crate) fn resolve(&self) -> Route {
        match self {
            Setting::Env => {
                let env = EnvProxies::from_lookup(|k| std::env::var(k).ok());
                if env.is_empty() {
                    Route::Direct
                } else {
                    Route::Env(Arc::new(env))
                }
            }
            Setting::Direct => Route::Direct,
            Setting::Fixed(p) => Route::Fixed(Arc::clone(p)),
        }
    }
}

/// A resolved choice: which proxy, if any, a given target goes through.
#[derive(Debug, Clone)]
pub(crate) enum Route {
    Direct,
    Fixed(Arc<Proxy>),
    Env(Arc<EnvProxies>),
}

impl Route {
    /// The proxy for a target (`tls` = `https`/`wss`).
    pub(crate) fn for_target(&self, tls: bool, host: &str) -> Option<Arc<Proxy>> {
        match self {
            Route::Direct => None,
            Route::Fixed(p) => Some(Arc::clone(p)),
            Route::Env(e) => e.for_target(tls, host).map(|(p, _)| Arc::clone(p)),
        }
    }

    /// Configures reqwest the same way (its own environment lookup is always off, so every
    /// transport follows one decision).
    pub(crate) fn apply(
        &self,
        b: reqwest::ClientBuilder,
    ) -> Result<reqwest::ClientBuilder, ProxyError> {
        let b = b.no_proxy();
        match self {
            Route::Direct => Ok(b),
            Route::Fixed(p) => {
                let url = p.reqwest_url();
                let proxy = reqwest::Proxy::all(url.as_str())
                    .map_err(|_| ProxyError("refused by the HTTP client"))?;
                Ok(b.proxy(proxy))
            }
            Route::Env(e) => {
                let e = Arc::clone(e);
                Ok(b.proxy(reqwest::Proxy::custom(move |url: &reqwest::Url| {
                    let host = url.host_str()?;
                    let tls = url.scheme() == "https";
                    e.for_target(tls, host).map(|(_, u)| u.clone())
                })))
            }
        }
    }
}

/// The proxies the environment names.
pub(crate) struct EnvProxies {
    http: Option<(Arc<Proxy>, reqwest::Url)>,
    https: Option<(Arc<Proxy>, reqwest::Url)>,
    no_proxy: NoProxy,
}

impl fmt::Debug for EnvProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The `Url`s hold the credentials: only the `Proxy`s (redacted) are shown.
        f.debug_struct("EnvProxies")
            .field("http", &self.http.as_ref().map(|(p, _)| p))
            .field("https", &self.https.as_ref().map(|(p, _)| p))
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

impl EnvProxies {
    pub(crate) fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        let first = |names: &[&str]| -> Option<(Arc<Proxy>, reqwest::Url)> {
            names.iter().find_map(|n| {
                let v = Zeroizing::new(get(n)?);
                if v.trim().is_empty() {
                    return None;
                }
                let p = Proxy::parse(&v).ok()?;
                let u = p.reqwest_proxy_url()?;
                Some((Arc::new(p), u))
            })
        };
        let cgi = get("REQUEST_METHOD").is_some();
        let http_names: &[&str] = if cgi {
            &["ALL_PROXY", "all_proxy"]
        } else {
            &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
        };
        let no = get("NO_PROXY")
            .filter(|v| !v.trim().is_empty())
            .or_else(|| get("no_proxy"))
            .unwrap_or_default();
        Self {
            http: first(http_names),
            https: first(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]),
            no_proxy: NoProxy::parse(&no),
        }
    }

    fn is_empty(&self) -> bool {
        self.http.is_none() && self.https.is_none()
    }

    fn for_target(&self, tls: bool, host: &str) -> Option<&(Arc<Proxy>, reqwest::Url)> {
        let p = if tls { &self.https } else { &self.http }.as_ref()?;
        if is_loopback(host) || self.no_proxy.matches(host) {
            return None;
        }
        Some(p)
    }
}

/// A `NO_PROXY` list.
#[derive(Debug, Default)]
pub(crate) struct NoProxy {
    all: bool,
    domains: Vec<String>,
    nets: Vec<(IpAddr, u8)>,
}

impl NoProxy {
    pub(crate) fn parse(list: &str) -> Self {
        let mut n = Self::default();
        for entry in list
            .split(',')
            .map(|e| strip_port(e.trim()))
            .filter(|e| !e.is_empty())
        {
            if entry == "*" {
                n.all = true;
                continue;
            }
            let (addr, bits) = match entry.split_once('/') {
                Some((a, b)) => (a, b.parse::<u8>().ok()),
                None => (entry, None),
            };
            let bare = addr.trim_start_matches('[').trim_end_matches(']');
            if let Ok(ip) = bare.parse::<IpAddr>() {
                let max = if ip.is_ipv4() { 32 } else { 128 };
                n.nets.push((ip, bits.unwrap_or(max).min(max)));
            } else if bits.is_none() {
                let d = entry.trim_start_matches("*.").trim_start_matches('.');
                let d = d.trim_end_matches('.').to_ascii_lowercase();
                if !d.is_empty() {
                    n.domains.push(d);
                }
            }
        }
        n
    }

    pub(crate) fn matches(&self, host: &str) -> bool {
        if self.all {
            return true;
        }
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.nets.iter().any(|&(net, bits)| in_net(ip, net, bits));
        }
        let host = host.trim_end_matches('.');
        self.domains.iter().any(|d| {
            host.len() >= d.len()
                && host[host.len() - d.len()..].eq_ignore_ascii_case(d)
                && (host.len() == d.len() || host.as_bytes()[host.len() - d.len() - 1] == b'.')
        })
    }
}

/// `host:port` → `host`, `[v6]:port` → `v6` (a `NO_PROXY` entry matches the host on any
/// port).
fn strip_port(e: &str) -> &str {
    if let Some(rest) = e.strip_prefix('[') {
        if let Some((ip, _)) = rest.split_once(']') {
            return ip;
        }
    }
    match e.rsplit_once(':') {
        Some((h, p))
            if !h.contains(':') && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) =>
        {
            h
        }
        _ => e,
    }
}

fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            (u128::from(u32::from(a)), u128::from(u32::from(b)), 32u32)
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    let bits = u32::from(bits).min(width);
    if bits == 0 {
        return true;
    }
    let shift = width - bits;
    (a >> shift) == (b >> shift)
}

/// `localhost`, `*.localhost` and loopback addresses.
pub(crate) fn is_loopback(host: &str) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match ip {
            IpAddr::V4(v4) => v4.is_loopback(),
            IpAddr::V6(v6) => {
                v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v| v.is_loopback())
            }
        };
    }
    host.eq_ignore_ascii_case("localhost")
        || (host.len() > 10 && host[host.len() - 10..].eq_ignore_ascii_case(".localhost"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse_urls() {
        let p = Proxy::parse("http://u%40x:p%3Ass@proxy.example:3128").unwrap();
        assert_eq!(p.kind(), ProxyKind::Http);
        assert_eq!((p.host(), p.port()), ("proxy.example", 3128));
        let a = p.auth.as_ref().unwrap();
        assert_eq!((a.user.as_str(), a.pass.as_str()), ("u@x", "p:ss"));
        let dbg = format!("{p:?}");
        assert!(!dbg.contains("p:ss") && !dbg.contains("u@x"), "{dbg}");
        assert_eq!(
            Proxy::parse("10.1.2.3:8080").unwrap().kind(),
            ProxyKind::Http
        );
        assert_eq!(Proxy::parse("socks5h://h").unwrap().port(), 1080);
        assert_eq!(Proxy::parse("socks5://[::1]:9").unwrap().host(), "::1");
        assert_eq!(Proxy::parse("https://h").unwrap().port(), 443);
        assert_eq!(Proxy::parse("http://h/").unwrap().port(), 80);
        for bad in [
            "",
            "ftp://h:1",
            "socks4://h:1",
            "http://",
            "http://h:99999",
            "http://h/path",
            "http://h/?q",
            "http://u:%zz@h",
            "http://u:%ff@h",
            "http://h#frag",
        ] {
            let e = Proxy::parse(bad).unwrap_err();
            assert!(
                e.to_string().starts_with("invalid proxy URL: "),
                "{bad}: {e}"
            );
        }
        // The message never echoes the URL.
        let e = Proxy::parse("ftp://user:hunter2@h").unwrap_err();
        assert!(!e.to_string().contains("hunter2"));
    }

    #[test]
    fn reqwest_url_round_trips_credentials() {
        let p = Proxy::parse("socks5h://h:1")
            .unwrap()
            .basic_auth("a b", "p@ss:/%");
        let u = p.reqwest_proxy_url().unwrap();
        assert_eq!(u.scheme(), "socks5h");
        let back = Proxy::parse(u.as_str()).unwrap();
        let a = back.auth.unwrap();
        assert_eq!((a.user.as_str(), a.pass.as_str()), ("a b", "p@ss:/%"));
        let v6 = Proxy::parse("http://[::1]:8")
            .unwrap()
            .reqwest_proxy_url()
            .unwrap();
        assert_eq!(v6.host_str(), Some("[::1]"));
    }

    #[test]
    fn environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            EnvProxies::from_lookup(move |k| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            })
        };
        let e = env(&[
            ("https_proxy", "http://s:1"),
            ("HTTP_PROXY", "socks5://h:2"),
            (
                "NO_PROXY",
                "internal.example, .corp, 10.0.0.0/8, 192.168.1.5, ported.example:8443, [fd00::1]:80, fe80::/10",
            ),
        ]);
        let pick = |tls, host| e.for_target(tls, host).map(|(p, _)| p.port());
        let e2 = env(&[("HTTPS_PROXY", "http://u:hunter2@s:1")]);
        let e2 = Arc::new(e2);
        let shown = format!("{e2:?} {:?}", Route::Env(Arc::clone(&e2)));
        assert!(
            !shown.contains("hunter2") && shown.contains("redacted"),
            "{shown}"
        );
        assert_eq!(pick(true, "clob.polymarket.com"), Some(1));
        assert_eq!(pick(false, "clob.polymarket.com"), Some(2));
        assert_eq!(pick(true, "internal.example"), None);
        assert_eq!(pick(true, "a.internal.example"), None);
        assert_eq!(pick(true, "xinternal.example"), Some(1));
        assert_eq!(pick(true, "corp"), None);
        assert_eq!(pick(true, "x.corp"), None);
        assert_eq!(pick(true, "10.200.0.1"), None);
        assert_eq!(pick(true, "11.0.0.1"), Some(1));
        assert_eq!(pick(true, "192.168.1.5"), None);
        assert_eq!(pick(true, "192.168.1.6"), Some(1));
        assert_eq!(pick(true, "ported.example"), None);
        assert_eq!(pick(true, "fd00::1"), None);
        assert_eq!(pick(true, "[fe80::5]"), None);
        assert_eq!(pick(true, "fd00::2"), Some(1));
        // Loopback never goes through the environment's proxy.
        for lo in [
            "localhost",
            "a.localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "[::1]",
        ] {
            assert_eq!(pick(true, lo), None, "{lo}");
        }
        // ALL_PROXY fills in; `*` bypasses everything; CGI ignores HTTP_PROXY; junk ignored.
        let e = env(&[
            ("ALL_PROXY", "socks5h://a:3"),
            ("HTTPS_PROXY", "::not a url::"),
        ]);
        assert_eq!(e.for_target(true, "x.com").map(|(p, _)| p.port()), Some(3));
        assert_eq!(e.for_target(false, "x.com").map(|(p, _)| p.port()), Some(3));
        let e = env(&[("HTTPS_PROXY", "http://s:1"), ("no_proxy", "*")]);
        assert!(e.for_target(true, "x.com").is_none());
        let e = env(&[("HTTP_PROXY", "http://s:1"), ("REQUEST_METHOD", "GET")]);
        assert!(e.is_empty());
        assert!(env(&[("HTTPS_PROXY", "")]).is_empty());
    }

    proptest! {
        #[test]
        fn no_proxy_never_panics(list in "[ -~]{0,60}", host in "[ -~]{0,30}") {
            let _ = NoProxy::parse(&list).matches(&host);
            let _ = Proxy::parse(&list);
        }
    }
}
