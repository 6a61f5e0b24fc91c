//! The order lane: kept-alive HTTP/1.1 connections of the client's own for the
//! latency-critical trading requests (`POST /order`, `POST /orders`, the cancels and the
//! heartbeat), switched on with [`ClientBuilder::order_lane`](super::ClientBuilder::order_lane).
//!
//! Each request is built into a buffer the connection keeps (request line, `Host`, the L2
//! headers, `Content-Type`, `Content-Length`, body) and goes out with one write from the
//! calling task; the response is read by the small reader below. There is no connection
//! task to hop to and no header map on the request side.
//!
//! - A connection the server closed while idle is found before the write (readable while
//!   idle = EOF or stray bytes) and replaced: that order is sent on a new connection.
//! - A request whose bytes were written and whose response never came is not resent when it
//!   is not idempotent (an order): the error says the outcome is unknown. A cancel or a
//!   heartbeat is tried once more on a fresh connection.
//! - A request that finds every lane connection busy does not wait: it goes by the pooled
//!   `reqwest` client instead.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Mutex, MutexGuard};

use crate::http::parse_retry_after;
use crate::http::{Bucket, Error, Kind, RateLimitStatus, Req};
use crate::sign::eip712::write_u64_decimal;

/// Lane connections per client (opened when first needed; [`Client::prewarm`] opens one).
pub(crate) const LANE_CONNECTIONS: usize = 4;
/// Longest response head (status line + headers) accepted.
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// Largest response body accepted.
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;
/// Longest chunk-size line or trailer section of a chunked body.
const MAX_LINE: usize = 4 * 1024;
/// First read buffer size.
const READ_CHUNK: usize = 8 * 1024;

/// Whether `req` is one the lane carries.
pub(crate) fn carries(req: &Req<'_>) -> bool {
    if !req.query.is_empty() {
        return false;
    }
    match req.method.as_str() {
        "POST" => matches!(req.path, "/order" | "/orders" | "/v1/heartbeats"),
        "DELETE" => matches!(
            req.path,
            "/order" | "/orders" | "/cancel-all" | "/cancel-market-orders"
        ),
        _ => false,
    }
}

/// The lane of one client: where it connects and its connection slots.
pub(crate) struct Lane {
    /// `host:port` to connect to.
    addr: String,
    /// The host name (IPv6 without brackets) and port, for a proxy tunnel.
    target: (String, u16),
    /// The proxy the lane tunnels through, if any (`http://` or SOCKS5).
    proxy: Option<Arc<crate::http::Proxy>>,
    /// The `Host` header.
    host: String,
    /// A path prefix of the base URL (usually empty).
    base: String,
    user_agent: String,
    tls: Option<(
        tokio_rustls::TlsConnector,
        rustls::pki_types::ServerName<'static>,
    )>,
    connect_timeout: Option<Duration>,
    slots: Box<[Mutex<Slot>]>,
}

impl core::fmt::Debug for Lane {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lane")
            .field("addr", &self.addr)
            .field("tls", &self.tls.is_some())
            .field("proxy", &self.proxy)
            .finish_non_exhaustive()
    }
}

/// One connection and the buffers it reuses.
#[derive(Default)]
struct Slot {
    io: Option<Io>,
    /// The request being sent: holds the L2 headers (the passphrase), zeroized on drop.
    wbuf: Vec<u8>,
    /// Response bytes (`rbuf[..filled]`).
    rbuf: Vec<u8>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.wbuf);
    }
}

enum Io {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl Io {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self {
            Self::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self {
            Self::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
        }
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Self::Plain(s) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }

    /// An idle connection must have nothing to read: EOF, stray bytes or an error mean the
    /// server closed it (or broke it) and it must not carry a request.
    fn idle_ok(&mut self, scratch: &mut [u8]) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        let mut rb = ReadBuf::new(scratch);
        matches!(self.poll_read(&mut cx, &mut rb), Poll::Pending)
    }

    async fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| {
            let mut rb = ReadBuf::new(&mut *dst);
            match self.poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => Poll::Ready(Ok(rb.filled().len())),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    /// Writes all of `buf`; on failure also says whether any byte was handed to the socket.
    async fn write_all(&mut self, buf: &[u8]) -> Result<(), (io::Error, bool)> {
        let mut off = 0;
        while off < buf.len() {
            match poll_fn(|cx| self.poll_write(cx, &buf[off..])).await {
                Ok(0) => return Err((io::ErrorKind::WriteZero.into(), off > 0)),
                Ok(n) => off += n,
                Err(e) => return Err((e, off > 0)),
            }
        }
        poll_fn(|cx| self.poll_flush(cx))
            .await
            .map_err(|e| (e, true))
    }
}

impl Lane {
    /// A lane to `base_url` (`http://` or `https://`); `None` for any other scheme, and
    /// when the route sends the host through an `https://` proxy (the pooled client carries
    /// the orders then).
    pub(crate) fn new(
        base_url: &str,
        user_agent: &str,
        connect_timeout: Option<Duration>,
        route: &crate::http::proxy::Route,
    ) -> Result<Option<Self>, Error> {
        let bad = |m: &'static str| Error::new(Kind::Builder).with_message(m);
        let url = reqwest::Url::parse(base_url).map_err(|_| bad("order lane: bad host URL"))?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return Ok(None),
        };
        let name = url
            .host_str()
            .ok_or_else(|| bad("order lane: the host URL has no host"))?;
        let port = url
            .port_or_known_default()
            .ok_or_else(|| bad("order lane: the host URL has no port"))?;
        let host = match url.port() {
            Some(p) => format!("{name}:{p}"),
            None => name.to_owned(),
        };
        let tls = if https {
            let config = crate::http::tls::client_config(&[b"http/1.1"])
                .map_err(|e| Error::new(Kind::Builder).with_source(e))?;
            let server = rustls::pki_types::ServerName::try_from(
                name.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
            )
            .map_err(|_| bad("order lane: the host is not a valid TLS server name"))?;
            Some((tokio_rustls::TlsConnector::from(Arc::new(config)), server))
        } else {
            None
        };
        let base = url.path().trim_end_matches('/').to_owned();
        let bare = name.trim_start_matches('[').trim_end_matches(']');
        let proxy = route.for_target(https, bare);
        if proxy
            .as_ref()
            .is_some_and(|p| p.kind() == crate::http::proxy::ProxyKind::Https)
        {
            return Ok(None);
        }
        Ok(Some(Self {
            addr: format!("{name}:{port}"),
            target: (bare.to_owned(), port),
            proxy,
            host,
            base,
            user_agent: user_agent.to_owned(),
            tls,
            connect_timeout,
            slots: (0..LANE_CONNECTIONS)
                .map(|_| Mutex::new(Slot::default()))
                .collect(),
        }))
    }

    /// An idle slot, preferring one with an open connection; `None` when all are busy.
    fn acquire(&self) -> Option<MutexGuard<'_, Slot>> {
        let mut empty = None;
        for s in &self.slots {
            if let Ok(g) = s.try_lock() {
                if g.io.is_some() {
                    return Some(g);
                }
                if empty.is_none() {
                    empty = Some(g);
                }
            }
        }
        empty
    }

    async fn connect(&self) -> Result<Io, Error> {
        let open = async {
            let tcp = match &self.proxy {
                None => TcpStream::connect(self.addr.as_str()).await?,
                // The tunnel's failure is its own error (it names the proxy step).
                Some(p) => crate::http::tunnel(p, &self.target.0, self.target.1)
                    .await
                    .map_err(io::Error::other)?,
            };
            tcp.set_nodelay(true)?;
            match &self.tls {
                None => Ok(Io::Plain(tcp)),
                Some((c, name)) => Ok(Io::Tls(Box::new(c.connect(name.clone(), tcp).await?))),
            }
        };
        let r: io::Result<Io> = match self.connect_timeout {
            Some(t) => match tokio::time::timeout(t, open).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(
                        Error::new(Kind::Timeout).with_message("order lane: connecting timed out")
                    );
                }
            },
            None => open.await,
        };
        r.map_err(|e| {
            Error::new(Kind::Connect)
                .with_message("order lane: connecting failed")
                .with_source(e)
        })
    }

    /// Opens one lane connection ahead of the first order.
    pub(crate) async fn prewarm(&self) -> Result<(), Error> {
        let Some(mut slot) = self.acquire() else {
            return Ok(());
        };
        let slot = &mut *slot;
        if let Some(io) = slot.io.as_mut() {
            let mut scratch = [0u8; 64];
            if io.idle_ok(&mut scratch) {
                return Ok(());
            }
        }
        slot.io = Some(self.connect().await?);
        Ok(())
    }

    /// Open lane connections (for tests and diagnostics).
    pub(crate) fn open_connections(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.try_lock().map_or(true, |g| g.io.is_some()))
            .count()
    }
}

/// How one exchange on a connection failed.
enum Fail {
    /// Nothing reached the socket: safe to send again on a new connection.
    NotSent(io::Error),
    /// Sent; the connection ended (or broke) before a whole response came.
    Lost(Option<io::Error>),
    /// Sent; the response is not HTTP/1.1 as this reader accepts it.
    Malformed(&'static str),
}

impl Lane {
    /// One attempt of `req` on the lane within `timeout`, its auth headers written by
    /// `auth_headers`; `None` when every lane connection is busy (the caller then sends it by
    /// `reqwest`).
    pub(crate) async fn attempt(
        &self,
        req: &Req<'_>,
        timeout: Option<Duration>,
        auth_headers: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
        bucket: Option<Bucket>,
        limits: &mut Option<RateLimitStatus>,
    ) -> Option<Result<Bytes, Error>> {
        let mut slot = self.acquire()?;
        let run = self.run(&mut slot, req, auth_headers, bucket, limits);
        Some(match timeout {
            Some(t) => match tokio::time::timeout(t, run).await {
                Ok(r) => r,
                Err(_) => {
                    // The connection went with the dropped exchange (it was taken out of
                    // the slot); a half-read response never reaches the next request.
                    let msg = if req.idempotent {
                        "order lane: no response within the client timeout"
                    } else {
                        "order lane: no response within the client timeout; the request may \
                         have reached the exchange (outcome unknown, not resent)"
                    };
                    Err(Error::new(Kind::Timeout)
                        .with_message(msg)
                        .with_path(req.path))
                }
            },
            None => run.await,
        })
    }

    async fn run(
        &self,
        slot: &mut Slot,
        req: &Req<'_>,
        auth_headers: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
        bucket: Option<Bucket>,
        limits: &mut Option<RateLimitStatus>,
    ) -> Result<Bytes, Error> {
        let lane = self;
        let body = req.body.as_deref();
        // The request, signed for this attempt.
        let w = &mut slot.wbuf;
        // Grown here, never by a reallocation that would free header bytes unzeroized.
        let need = 1024 + lane.base.len() + lane.user_agent.len() + body.map_or(0, <[u8]>::len);
        if w.capacity() < need {
            zeroize::Zeroize::zeroize(w);
            *w = Vec::with_capacity(need.next_power_of_two());
        }
        w.clear();
        w.extend_from_slice(req.method.as_str().as_bytes());
        w.push(b' ');
        w.extend_from_slice(lane.base.as_bytes());
        w.extend_from_slice(req.path.as_bytes());
        w.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        w.extend_from_slice(lane.host.as_bytes());
        w.extend_from_slice(b"\r\nuser-agent: ");
        w.extend_from_slice(lane.user_agent.as_bytes());
        w.extend_from_slice(b"\r\n");
        auth_headers(w)?;
        if let Some(b) = body {
            w.extend_from_slice(b"content-type: application/json\r\ncontent-length: ");
            let mut digits = [0u8; 20];
            w.extend_from_slice(write_u64_decimal(b.len() as u64, &mut digits));
            w.extend_from_slice(b"\r\n\r\n");
            w.extend_from_slice(b);
        } else {
            w.extend_from_slice(b"\r\n");
        }

        let mut fresh_tries = 0u32;
        let mut lost_retried = false;
        loop {
            let mut scratch = [0u8; 64];
            let reused = slot
                .io
                .take()
                .and_then(|mut io| io.idle_ok(&mut scratch).then_some(io));
            let mut io = match reused {
                Some(io) => io,
                None => lane.connect().await.map_err(|e| e.with_path(req.path))?,
            };
            match exchange(&mut io, &slot.wbuf, &mut slot.rbuf).await {
                Ok(resp) => {
                    if resp.keep_alive {
                        slot.io = Some(io);
                    }
                    let status = resp.status;
                    if bucket.is_some() {
                        *limits = RateLimitStatus::from_headers(&resp.headers, status, bucket);
                    }
                    let retry_after = resp
                        .headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| parse_retry_after(v.as_bytes()));
                    return if (200..300).contains(&status) {
                        Ok(resp.body)
                    } else {
                        Err(Error::from_status(status, &resp.body, retry_after).with_path(req.path))
                    };
                }
                Err(Fail::NotSent(e)) => {
                    // A connection that broke before taking any byte: the request never left.
                    fresh_tries += 1;
                    if fresh_tries > 1 {
                        return Err(Error::new(Kind::Transport)
                            .with_message("order lane: the request could not be written")
                            .with_source(e)
                            .with_path(req.path));
                    }
                }
                Err(Fail::Lost(e)) => {
                    if req.idempotent && !lost_retried {
                        lost_retried = true;
                        continue;
                    }
                    let msg = if req.idempotent {
                        "order lane: the connection closed before the response"
                    } else {
                        "order lane: the request was sent but the connection closed before the \
                         response; its outcome is unknown and it was not resent"
                    };
                    let mut err = Error::new(Kind::Transport).with_message(msg);
                    if let Some(e) = e {
                        err = err.with_source(e);
                    }
                    return Err(err.with_path(req.path));
                }
                Err(Fail::Malformed(why)) => {
                    let mut msg = String::from("order lane: malformed response: ");
                    msg.push_str(why);
                    if !req.idempotent {
                        msg.push_str(" (the request was sent; its outcome is unknown)");
                    }
                    return Err(Error::new(Kind::Transport)
                        .with_message(msg)
                        .with_path(req.path));
                }
            }
        }
    }
}

/// Writes the request and reads one response.
async fn exchange(io: &mut Io, request: &[u8], rbuf: &mut Vec<u8>) -> Result<Response, Fail> {
    if let Err((e, sent)) = io.write_all(request).await {
        return Err(if sent {
            Fail::Lost(Some(e))
        } else {
            Fail::NotSent(e)
        });
    }
    if rbuf.len() < READ_CHUNK {
        rbuf.resize(READ_CHUNK, 0);
    }
    let mut filled = 0usize;
    let mut dec = Decoder::default();
    loop {
        if filled == rbuf.len() {
            if rbuf.len() >= MAX_HEAD + MAX_BODY + MAX_LINE {
                return Err(Fail::Malformed("response too large"));
            }
            let grow = rbuf.len().min(MAX_HEAD + MAX_BODY + MAX_LINE - rbuf.len());
            rbuf.resize(rbuf.len() + grow, 0);
        }
        let n = match io.read(&mut rbuf[filled..]).await {
            Ok(n) => n,
            Err(e) => return Err(Fail::Lost(Some(e))),
        };
        filled += n;
        match dec.step(&rbuf[..filled], n == 0) {
            Ok(Some(r)) => return Ok(r),
            Ok(None) => {}
            Err(Malformed::Closed) => return Err(Fail::Lost(None)),
            Err(Malformed::Bad(why)) => return Err(Fail::Malformed(why)),
        }
    }
}

/// A whole response.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    /// `Retry-After` and the `Poly-RateLimit-*` headers (the ones the client reads).
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    /// The connection may carry another request.
    pub(crate) keep_alive: bool,
}

/// Why the bytes are not (yet) a response.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Malformed {
    /// The connection ended before the response was whole.
    Closed,
    /// Not a response this reader accepts.
    Bad(&'static str),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Framing {
    #[default]
    Empty,
    Length(usize),
    Chunked,
    UntilClose,
}

#[derive(Clone, Copy, Debug, Default)]
enum Phase {
    #[default]
    Size,
    Data(usize),
    DataEnd,
    Trailers,
}

/// The response reader: fed the bytes read so far (always from the response's first byte),
/// it resumes where it stopped, so a response arriving a byte at a time costs linear time.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Where the search for the head's end resumes.
    scan: usize,
    /// The head once read: its length (from the start of the final response), status etc.
    head: Option<Head>,
    /// Interim (1xx) responses skipped before the final one.
    skip: usize,
    /// Chunked: position reached in the buffer, phase, body so far.
    pos: usize,
    phase: Phase,
    body: Vec<u8>,
}

#[derive(Debug, Default)]
struct Head {
    len: usize,
    status: u16,
    framing: Framing,
    keep_alive: bool,
    headers: HeaderMap,
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

impl Decoder {
    /// `Ok(Some)` once `buf` holds a whole response, `Ok(None)` when more bytes are needed;
    /// `eof` says the connection has ended.
    pub(crate) fn step(&mut self, buf: &[u8], eof: bool) -> Result<Option<Response>, Malformed> {
        loop {
            if self.head.is_some() {
                break;
            }
            let from = self.skip + self.scan.saturating_sub(3);
            match find(buf, from, b"\r\n\r\n") {
                Some(end) => {
                    let len = end + 4 - self.skip;
                    if len > MAX_HEAD {
                        return Err(Malformed::Bad("response head over 16 KiB"));
                    }
                    let head = parse_head(&buf[self.skip..self.skip + len])?;
                    if (100..200).contains(&head.status) {
                        if head.status == 101 {
                            return Err(Malformed::Bad("unexpected protocol switch"));
                        }
                        self.skip += len;
                        self.scan = 0;
                        continue;
                    }
                    self.pos = self.skip + len;
                    self.head = Some(head);
                }
                None => {
                    self.scan = buf.len() - self.skip;
                    if self.scan > MAX_HEAD {
                        return Err(Malformed::Bad("response head over 16 KiB"));
                    }
                    return if eof {
                        Err(Malformed::Closed)
                    } else {
                        Ok(None)
                    };
                }
            }
        }
        let Some(head) = self.head.as_ref() else {
            return Ok(None);
        };
        let start = self.skip + head.len;
        let (body, keep_alive) = match head.framing {
            Framing::Empty => (Bytes::new(), buf.len() == start),
            Framing::Length(n) => {
                if buf.len() < start + n {
                    return if eof {
                        Err(Malformed::Closed)
                    } else {
                        Ok(None)
                    };
                }
                (
                    Bytes::copy_from_slice(&buf[start..start + n]),
                    buf.len() == start + n,
                )
            }
            Framing::UntilClose => {
                if buf.len() - start > MAX_BODY {
                    return Err(Malformed::Bad("response body over the size limit"));
                }
                if !eof {
                    return Ok(None);
                }
                (Bytes::copy_from_slice(&buf[start..]), false)
            }
            Framing::Chunked => match self.chunked(buf)? {
                Some(end) => (
                    Bytes::from(std::mem::take(&mut self.body)),
                    buf.len() == end,
                ),
                None => {
                    return if eof {
                        Err(Malformed::Closed)
                    } else {
                        Ok(None)
                    };
                }
            },
        };
        let Some(head) = self.head.take() else {
            return Ok(None);
        };
        Ok(Some(Response {
            status: head.status,
            headers: head.headers,
            body,
            // Bytes after the response (nothing was asked for) make the connection suspect.
            keep_alive: keep_alive && head.keep_alive && !eof,
        }))
    }

    /// Advances the chunked body; `Some(end)` once the last chunk and trailers are read.
    fn chunked(&mut self, buf: &[u8]) -> Result<Option<usize>, Malformed> {
        loop {
            match self.phase {
                Phase::Size => {
                    let Some(eol) = find(buf, self.pos, b"\r\n") else {
                        if buf.len() - self.pos > MAX_LINE {
                            return Err(Malformed::Bad("chunk size line too long"));
                        }
                        return Ok(None);
                    };
                    if eol - self.pos > MAX_LINE {
                        return Err(Malformed::Bad("chunk size line too long"));
                    }
                    let line = &buf[self.pos..eol];
                    let digits = line
                        .iter()
                        .position(|b| !b.is_ascii_hexdigit())
                        .unwrap_or(line.len());
                    if digits == 0 || digits > 15 {
                        return Err(Malformed::Bad("bad chunk size"));
                    }
                    // After the digits only whitespace or an extension.
                    if !matches!(line.get(digits), None | Some(b';' | b' ' | b'\t')) {
                        return Err(Malformed::Bad("bad chunk size"));
                    }
                    let mut size = 0usize;
                    for &d in &line[..digits] {
                        let v = char::from(d).to_digit(16).unwrap_or(0) as usize;
                        size = size * 16 + v;
                    }
                    self.pos = eol + 2;
                    if size == 0 {
                        self.phase = Phase::Trailers;
                    } else {
                        if self.body.len() + size > MAX_BODY {
                            return Err(Malformed::Bad("response body over the size limit"));
                        }
                        self.phase = Phase::Data(size);
                    }
                }
                Phase::Data(left) => {
                    let have = (buf.len() - self.pos).min(left);
                    self.body.extend_from_slice(&buf[self.pos..self.pos + have]);
                    self.pos += have;
                    if have < left {
                        self.phase = Phase::Data(left - have);
                        return Ok(None);
                    }
                    self.phase = Phase::DataEnd;
                }
                Phase::DataEnd => {
                    if buf.len() < self.pos + 2 {
                        return Ok(None);
                    }
                    if &buf[self.pos..self.pos + 2] != b"\r\n" {
                        return Err(Malformed::Bad("chunk not followed by CRLF"));
                    }
                    self.pos += 2;
                    self.phase = Phase::Size;
                }
                Phase::Trailers => {
                    let Some(eol) = find(buf, self.pos, b"\r\n") else {
                        if buf.len() - self.pos > MAX_LINE {
                            return Err(Malformed::Bad("trailers too long"));
                        }
                        return Ok(None);
                    };
                    let empty = eol == self.pos;
                    self.pos = eol + 2;
                    if empty {
                        return Ok(Some(self.pos));
                    }
                }
            }
        }
    }
}

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Comma-separated list `value` contains `token` (ASCII case-insensitive).
fn has_token(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|&b| b == b',')
        .any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
}

/// Status line and headers (`head` ends with the blank line).
fn parse_head(head: &[u8]) -> Result<Head, Malformed> {
    let bad = Malformed::Bad;
    let text = &head[..head.len() - 4];
    let mut lines = text.split(|&b| b == b'\n');
    let status_line = lines.next().unwrap_or_default();
    let status_line = status_line.strip_suffix(b"\r").unwrap_or(status_line);
    let (http11, rest) = if let Some(r) = status_line.strip_prefix(b"HTTP/1.1 ") {
        (true, r)
    } else if let Some(r) = status_line.strip_prefix(b"HTTP/1.0 ") {
        (false, r)
    } else {
        return Err(bad("not an HTTP/1.x status line"));
    };
    let code = rest.get(..3).ok_or(bad("bad status code"))?;
    if !code.iter().all(u8::is_ascii_digit) || !matches!(rest.get(3), None | Some(b' ')) {
        return Err(bad("bad status code"));
    }
    let status = code.iter().fold(0u16, |a, &d| a * 10 + u16::from(d - b'0'));
    if status < 100 {
        return Err(bad("bad status code"));
    }
    let mut keep_alive = http11;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    let mut headers = HeaderMap::new();
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.contains(&b'\r') {
            return Err(bad("stray CR in a header line"));
        }
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .ok_or(bad("header line without a colon"))?;
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
            return Err(bad("bad header name"));
        }
        if value.iter().any(|&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
            return Err(bad("control character in a header value"));
        }
        if name.eq_ignore_ascii_case(b"content-length") {
            if value.is_empty() || value.len() > 12 || !value.iter().all(u8::is_ascii_digit) {
                return Err(bad("bad content-length"));
            }
            let n = value
                .iter()
                .fold(0usize, |a, &d| a * 10 + usize::from(d - b'0'));
            if length.is_some_and(|l| l != n) {
                return Err(bad("conflicting content-length headers"));
            }
            if n > MAX_BODY {
                return Err(bad("response body over the size limit"));
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            let last = value.rsplit(|&b| b == b',').next().unwrap_or_default();
            if !last.trim_ascii().eq_ignore_ascii_case(b"chunked")
                || value.split(|&b| b == b',').any(|t| {
                    !matches!(
                        t.trim_ascii().to_ascii_lowercase().as_slice(),
                        b"chunked" | b"identity"
                    )
                })
            {
                return Err(bad("unsupported transfer-encoding"));
            }
            chunked = true;
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            if !value.eq_ignore_ascii_case(b"identity") {
                return Err(bad("unsupported content-encoding"));
            }
        } else if name.eq_ignore_ascii_case(b"connection") {
            if has_token(value, b"close") {
                keep_alive = false;
            } else if has_token(value, b"keep-alive") {
                keep_alive = true;
            }
        } else if (name.eq_ignore_ascii_case(b"retry-after")
            || (name.len() > 5 && name[..5].eq_ignore_ascii_case(b"poly-")))
            && let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        {
            headers.append(n, v);
        }
    }
    let framing = if status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::Empty
    } else if chunked {
        // A length beside chunked is ignored, and the connection is not trusted after.
        if length.is_some() {
            keep_alive = false;
        }
        Framing::Chunked
    } else {
        match length {
            Some(0) => Framing::Empty,
            Some(n) => Framing::Length(n),
            None => {
                keep_alive = false;
                Framing::UntilClose
            }
        }
    };
    Ok(Head {
        len: head.len(),
        status,
        framing,
        keep_alive,
        headers,
    })
}

/// Feeds `data` to the response reader in pieces (each piece's length taken from the
/// previous byte), then as ended: for the fuzz target. Never panics.
#[doc(hidden)]
pub fn fuzz_read_response(data: &[u8]) -> Option<(u16, usize)> {
    let mut dec = Decoder::default();
    let mut end = 0;
    while end < data.len() {
        let step = usize::from(data[end] % 17) + 1;
        end = (end + step).min(data.len());
        match dec.step(&data[..end], false) {
            Ok(Some(r)) => return Some((r.status, r.body.len())),
            Ok(None) => {}
            Err(_) => return None,
        }
    }
    match dec.step(data, true) {
        Ok(Some(r)) => Some((r.status, r.body.len())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(data: &[u8]) -> Result<Option<Response>, Malformed> {
        Decoder::default().step(data, false)
    }

    fn bytewise(data: &[u8], eof: bool) -> Result<Option<Response>, Malformed> {
        let mut d = Decoder::default();
        for i in 1..=data.len() {
            if let Some(r) = d.step(&data[..i], false)? {
                return Ok(Some(r));
            }
        }
        if eof { d.step(data, true) } else { Ok(None) }
    }

    #[test]
    fn length_framed() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nPoly-RateLimit-Remaining: 7\r\nRetry-After: 2\r\n\r\nhello";
        for r in [whole(raw), bytewise(raw, false)] {
            let r = r.unwrap().unwrap();
            assert_eq!(
                (r.status, &r.body[..], r.keep_alive),
                (200, &b"hello"[..], true)
            );
            assert_eq!(r.headers.get("poly-ratelimit-remaining").unwrap(), "7");
            assert_eq!(r.headers.get("retry-after").unwrap(), "2");
        }
        assert!(whole(&raw[..raw.len() - 1]).unwrap().is_none());
        assert_eq!(
            Decoder::default()
                .step(&raw[..raw.len() - 1], true)
                .unwrap_err(),
            Malformed::Closed
        );
    }

    #[test]
    fn chunked_and_close() {
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n";
        for r in [whole(raw), bytewise(raw, false)] {
            let r = r.unwrap().unwrap();
            assert_eq!(&r.body[..], b"abc0123456789");
            assert!(!r.keep_alive);
        }
        let interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
        let r = bytewise(interim, false).unwrap().unwrap();
        assert_eq!((r.status, r.body.len(), r.keep_alive), (204, 0, true));
        let until_close = b"HTTP/1.0 400 Bad\r\n\r\n{\"error\":\"x\"}";
        assert!(whole(until_close).unwrap().is_none());
        let r = bytewise(until_close, true).unwrap().unwrap();
        assert_eq!(
            (r.status, &r.body[..], r.keep_alive),
            (400, &b"{\"error\":\"x\"}"[..], false)
        );
    }

    #[test]
    fn malformed() {
        for raw in [
            &b"HTTP/2 200\r\n\r\n"[..],
            b"HTTP/1.1 2x0 OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
            b"HTTP/1.1 101 Switching\r\n\r\n",
        ] {
            assert!(
                matches!(whole(raw), Err(Malformed::Bad(_))),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
        let mut long = b"HTTP/1.1 200 OK\r\nX: ".to_vec();
        long.resize(MAX_HEAD + 10, b'a');
        assert!(matches!(whole(&long), Err(Malformed::Bad(_))));
        assert_eq!(fuzz_read_response(&long), None);
    }

    #[test]
    fn carried_requests() {
        assert!(carries(&Req::post("/order", Vec::new())));
        assert!(carries(&Req::delete("/cancel-all", None)));
        assert!(!carries(&Req::post("/books", Vec::new())));
        assert!(!carries(&Req::get("/order")));
        assert!(!carries(&Req::delete("/order", None).query("a", "b")));
    }
}
