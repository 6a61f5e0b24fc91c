//! TCP (+ rustls) connect and the WebSocket handshake.
//!
//! We open the socket and the TLS session ourselves and hand the stream to
//! `tokio_tungstenite::client_async_with_config`, so the WebSocket layer uses the same
//! rustls configuration (ring provider, platform verifier) as the HTTP client.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::event::ConnectError;

/// A plain or TLS TCP stream.
#[derive(Debug)]
pub(crate) enum MaybeTls {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for MaybeTls {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_read(cx, buf),
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for MaybeTls {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_write(cx, buf),
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_flush(cx),
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MaybeTls::Plain(s) => Pin::new(s).poll_shutdown(cx),
            MaybeTls::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

pub(crate) type Ws = WebSocketStream<MaybeTls>;

/// Where to connect, validated once at build time.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) url: String,
    host: String,
    port: u16,
    tls: bool,
}

impl Endpoint {
    pub(crate) fn parse(url: &str) -> Result<Self, ConnectError> {
        let req = url
            .into_client_request()
            .map_err(|_| ConnectError::InvalidUrl)?;
        let uri = req.uri();
        let tls = match uri.scheme_str() {
            Some("wss") => true,
            Some("ws") => false,
            _ => return Err(ConnectError::InvalidUrl),
        };
        let host = uri.host().ok_or(ConnectError::InvalidUrl)?;
        // IPv6 literals come bracketed in URIs.
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
        Ok(Self {
            url: url.to_owned(),
            host,
            port,
            tls,
        })
    }

    pub(crate) fn is_tls(&self) -> bool {
        self.tls
    }

    /// The host (IPv6 without brackets).
    pub(crate) fn host(&self) -> &str {
        &self.host
    }
}

/// The default TLS configuration: the crate's one rustls stack (`crate::http::tls`), shared with
/// the HTTP client; WebSocket upgrades run over HTTP/1.1, so no ALPN is offered.
pub(crate) fn default_tls() -> Result<Arc<rustls::ClientConfig>, ConnectError> {
    crate::http::tls::client_config(&[])
        .map(Arc::new)
        .map_err(|_| ConnectError::Tls)
}

/// Connect (directly or through a proxy tunnel), optionally wrap in TLS, and perform the
/// WebSocket handshake, all within `timeout`.
pub(crate) async fn connect(
    ep: &Endpoint,
    proxy: Option<&crate::http::Proxy>,
    tls: Option<&Arc<rustls::ClientConfig>>,
    ws_config: WebSocketConfig,
    timeout: Duration,
) -> Result<Ws, Refused> {
    let fut = async {
        let tcp = match proxy {
            None => TcpStream::connect((ep.host.as_str(), ep.port))
                .await
                .map_err(|e| ConnectError::Io(e.kind()))?,
            Some(p) => crate::http::tunnel(p, &ep.host, ep.port)
                .await
                .map_err(ConnectError::Proxy)?,
        };
        // Latency over throughput: frames are small and each one matters.
        let _ = tcp.set_nodelay(true);
        let stream = if ep.tls {
            let config = match tls {
                Some(c) => Arc::clone(c),
                None => default_tls()?,
            };
            let name =
                ServerName::try_from(ep.host.clone()).map_err(|_| ConnectError::InvalidUrl)?;
            let s = tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await
                .map_err(|e| ConnectError::Io(e.kind()))?;
            MaybeTls::Tls(Box::new(s))
        } else {
            MaybeTls::Plain(tcp)
        };
        let (ws, _response) =
            tokio_tungstenite::client_async_with_config(ep.url.as_str(), stream, Some(ws_config))
                .await
                .map_err(|e| Refused {
                    error: ConnectError::from_handshake(&e),
                    retry_after: retry_after(&e),
                })?;
        Ok(ws)
    };
    match tokio::time::timeout(timeout, fut).await {
        Ok(r) => r,
        Err(_) => Err(ConnectError::Timeout.into()),
    }
}

/// A failed connection attempt: why, and how long the server asked us to wait (the
/// `Retry-After` of an HTTP answer to the upgrade, e.g. a 429 or 503).
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) error: ConnectError,
    pub(crate) retry_after: Option<Duration>,
}

impl From<ConnectError> for Refused {
    fn from(error: ConnectError) -> Self {
        Self {
            error,
            retry_after: None,
        }
    }
}

fn retry_after(e: &tungstenite::Error) -> Option<Duration> {
    match e {
        tungstenite::Error::Http(resp) => resp
            .headers()
            .get("retry-after")
            .and_then(|v| crate::http::parse_retry_after(v.as_bytes())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_parse() {
        let e = Endpoint::parse("wss://ws-subscriptions-clob.polymarket.com/ws/market").unwrap();
        assert!(e.tls);
        assert_eq!(e.port, 443);
        assert_eq!(e.host, "ws-subscriptions-clob.polymarket.com");
        let e = Endpoint::parse("ws://127.0.0.1:9001/ws").unwrap();
        assert!(!e.tls);
        assert_eq!(e.port, 9001);
        let e = Endpoint::parse("ws://[::1]:9001/").unwrap();
        assert_eq!(e.host, "::1");
        for bad in ["http://x/", "not a url", "", "wss://"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn default_tls_builds() {
        // The platform verifier must initialise on a machine with a normal CA store.
        assert!(default_tls().is_ok());
    }
}
