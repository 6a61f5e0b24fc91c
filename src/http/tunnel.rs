//! Tunnels through a [`Proxy`] for the connections reqwest does not open (the order lane, the
//! WebSocket streams): the HTTP `CONNECT` and SOCKS5 handshakes on a TCP stream, their reply
//! parsers, and [`ProxyFailure`], why a proxy did not open one.

use std::fmt;
use std::io;
use std::net::IpAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zeroize::Zeroizing;

use super::proxy::{Proxy, ProxyKind, push_host};

/// Why a proxy did not open a tunnel. Never carries the credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProxyFailure {
    /// The proxy itself could not be reached (TCP connect failed).
    Unreachable(io::ErrorKind),
    /// Reading from or writing to the proxy failed during the handshake.
    Io(io::ErrorKind),
    /// The proxy closed the connection before finishing the handshake.
    Closed,
    /// The proxy answered `CONNECT` with this HTTP status (407: it wants credentials or
    /// refused them; 403: not allowed; 502: it could not reach the target).
    Status(u16),
    /// The proxy's answer is not valid HTTP or SOCKS5.
    Malformed,
    /// The proxy's `CONNECT` answer exceeded 8 KiB.
    Oversized,
    /// The SOCKS5 proxy accepts none of the offered authentication methods (no credentials,
    /// or username/password when set).
    SocksNoMethod,
    /// The SOCKS5 proxy rejected the username and password.
    SocksAuth,
    /// The SOCKS5 proxy refused the connection with this reply code (1: general failure,
    /// 2: not allowed by ruleset, 3: network unreachable, 4: host unreachable, 5: connection
    /// refused, 6: TTL expired, 7: command not supported, 8: address type not supported).
    Socks(u8),
    /// `socks5://` resolves the target locally, and it did not resolve.
    Resolve,
    /// The target host cannot be sent to the proxy (longer than 255 bytes for SOCKS5, or
    /// characters not allowed in a request line).
    BadTarget,
    /// This transport does not speak to this kind of proxy (an `https://` proxy for a
    /// WebSocket stream).
    Unsupported,
}

impl fmt::Display for ProxyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ProxyFailure::Unreachable(k) => write!(f, "proxy: connecting to the proxy failed: {k}"),
            ProxyFailure::Io(k) => write!(f, "proxy: handshake I/O failed: {k}"),
            ProxyFailure::Closed => {
                f.write_str("proxy: the proxy closed the connection during the handshake")
            }
            ProxyFailure::Status(407) => f.write_str(
                "proxy: CONNECT refused with HTTP 407 (proxy authentication required or rejected)",
            ),
            ProxyFailure::Status(s) => write!(f, "proxy: CONNECT refused with HTTP {s}"),
            ProxyFailure::Malformed => f.write_str("proxy: the proxy's answer is malformed"),
            ProxyFailure::Oversized => {
                f.write_str("proxy: the proxy's CONNECT answer exceeds 8 KiB")
            }
            ProxyFailure::SocksNoMethod => f.write_str(
                "proxy: SOCKS5 proxy accepts none of the offered authentication methods",
            ),
            ProxyFailure::SocksAuth => {
                f.write_str("proxy: SOCKS5 proxy rejected the username/password")
            }
            ProxyFailure::Socks(code) => {
                let what = match code {
                    1 => "general failure",
                    2 => "not allowed by ruleset",
                    3 => "network unreachable",
                    4 => "host unreachable",
                    5 => "connection refused",
                    6 => "TTL expired",
                    7 => "command not supported",
                    8 => "address type not supported",
                    _ => "unknown reply code",
                };
                write!(f, "proxy: SOCKS5 CONNECT failed with reply {code} ({what})")
            }
            ProxyFailure::Resolve => f.write_str("proxy: the target did not resolve (socks5://)"),
            ProxyFailure::BadTarget => {
                f.write_str("proxy: the target host cannot be sent to the proxy")
            }
            ProxyFailure::Unsupported => {
                f.write_str("proxy: https:// proxies are not supported on this connection")
            }
        }
    }
}

impl std::error::Error for ProxyFailure {}

/// Longest `CONNECT` answer head accepted.
const MAX_CONNECT_HEAD: usize = 8 * 1024;

/// Opens a TCP connection to `host:port` through `proxy`. The caller bounds it with its
/// connect timeout.
pub(crate) async fn tunnel(
    proxy: &Proxy,
    host: &str,
    port: u16,
) -> Result<TcpStream, ProxyFailure> {
    if proxy.kind == ProxyKind::Https {
        return Err(ProxyFailure::Unsupported);
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() || host.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(ProxyFailure::BadTarget);
    }
    let mut s = TcpStream::connect((proxy.host.as_str(), proxy.port))
        .await
        .map_err(|e| ProxyFailure::Unreachable(e.kind()))?;
    let _ = s.set_nodelay(true);
    match proxy.kind {
        ProxyKind::Http | ProxyKind::Https => http_connect(&mut s, proxy, host, port).await?,
        ProxyKind::Socks5 | ProxyKind::Socks5h => socks5(&mut s, proxy, host, port).await?,
    }
    Ok(s)
}

fn io_fail(e: &io::Error) -> ProxyFailure {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => ProxyFailure::Closed,
        k => ProxyFailure::Io(k),
    }
}

async fn http_connect(
    s: &mut TcpStream,
    proxy: &Proxy,
    host: &str,
    port: u16,
) -> Result<(), ProxyFailure> {
    let mut req = Zeroizing::new(String::with_capacity(128));
    let mut authority = String::with_capacity(host.len() + 8);
    push_host(&mut authority, host);
    authority.push(':');
    authority.push_str(&port.to_string());
    req.push_str("CONNECT ");
    req.push_str(&authority);
    req.push_str(" HTTP/1.1\r\nHost: ");
    req.push_str(&authority);
    req.push_str("\r\n");
    if let Some(a) = &proxy.auth {
        let mut pair = Zeroizing::new(Vec::with_capacity(a.user.len() + a.pass.len() + 1));
        pair.extend_from_slice(a.user.as_bytes());
        pair.push(b':');
        pair.extend_from_slice(a.pass.as_bytes());
        req.push_str("Proxy-Authorization: Basic ");
        base64_encode(&pair, &mut req);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).await.map_err(|e| io_fail(&e))?;
    // Read the answer head. The proxy sends nothing after it until we speak (TLS and the
    // WebSocket upgrade are client-first), so bytes past the head are a broken proxy.
    // On the heap: an array here would sit in every stream task's future.
    let mut buf = vec![0u8; MAX_CONNECT_HEAD];
    let mut filled = 0;
    loop {
        let n = s.read(&mut buf[filled..]).await.map_err(|e| io_fail(&e))?;
        if n == 0 {
            return Err(ProxyFailure::Closed);
        }
        filled += n;
        match parse_connect_response(&buf[..filled])? {
            Some((status, used)) => {
                if !(200..300).contains(&status) {
                    return Err(ProxyFailure::Status(status));
                }
                if used != filled {
                    return Err(ProxyFailure::Malformed);
                }
                return Ok(());
            }
            None if filled == buf.len() => return Err(ProxyFailure::Oversized),
            None => {}
        }
    }
}

/// Parses a `CONNECT` answer: `Ok(None)` = incomplete, `Ok(Some((status, head_len)))`.
pub(crate) fn parse_connect_response(buf: &[u8]) -> Result<Option<(u16, usize)>, ProxyFailure> {
    // Check the status line as soon as it is whole, so garbage fails fast.
    let line_end = buf.windows(2).position(|w| w == b"\r\n");
    let first = match line_end {
        Some(e) => &buf[..e],
        None => {
            // Not yet a whole line: it must still look like the start of one.
            let probe = &buf[..buf.len().min(5)];
            if !b"HTTP/"[..probe.len()].eq(probe) {
                return Err(ProxyFailure::Malformed);
            }
            return Ok(None);
        }
    };
    let rest = first
        .strip_prefix(b"HTTP/1.")
        .ok_or(ProxyFailure::Malformed)?;
    if rest.len() < 5 || !matches!(rest[0], b'0' | b'1') || rest[1] != b' ' {
        return Err(ProxyFailure::Malformed);
    }
    let code = &rest[2..5];
    if !code.iter().all(u8::is_ascii_digit) || rest.get(5).is_some_and(|&b| b != b' ') {
        return Err(ProxyFailure::Malformed);
    }
    let status = code
        .iter()
        .fold(0u16, |acc, &d| acc * 10 + u16::from(d - b'0'));
    if status < 100 {
        return Err(ProxyFailure::Malformed);
    }
    match buf.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(p) => Ok(Some((status, p + 4))),
        None => Ok(None),
    }
}

fn base64_encode(data: &[u8], out: &mut String) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if c.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
}

async fn read_exact(s: &mut TcpStream, buf: &mut [u8]) -> Result<(), ProxyFailure> {
    s.read_exact(buf).await.map(|_| ()).map_err(|e| io_fail(&e))
}

async fn socks5(
    s: &mut TcpStream,
    proxy: &Proxy,
    host: &str,
    port: u16,
) -> Result<(), ProxyFailure> {
    // Greeting: offer "no authentication", or only username/password when set (a proxy
    // must not be let to skip credentials the user gave).
    let greeting: &[u8] = if proxy.auth.is_some() {
        &[5, 1, 2]
    } else {
        &[5, 1, 0]
    };
    s.write_all(greeting).await.map_err(|e| io_fail(&e))?;
    let mut choice = [0u8; 2];
    read_exact(s, &mut choice).await?;
    match check_method_reply(choice, proxy.auth.is_some())? {
        0 => {}
        _ => {
            let a = proxy.auth.as_ref().ok_or(ProxyFailure::Malformed)?;
            let (u, p) = (a.user.as_bytes(), a.pass.as_bytes());
            if u.len() > 255 || p.len() > 255 || u.is_empty() {
                return Err(ProxyFailure::SocksAuth);
            }
            let mut msg = Zeroizing::new(Vec::with_capacity(3 + u.len() + p.len()));
            msg.push(1);
            msg.push(u.len() as u8);
            msg.extend_from_slice(u);
            msg.push(p.len() as u8);
            msg.extend_from_slice(p);
            s.write_all(&msg).await.map_err(|e| io_fail(&e))?;
            let mut st = [0u8; 2];
            read_exact(s, &mut st).await?;
            if st[0] != 1 {
                return Err(ProxyFailure::Malformed);
            }
            if st[1] != 0 {
                return Err(ProxyFailure::SocksAuth);
            }
        }
    }
    // CONNECT request.
    let mut req = Vec::with_capacity(262);
    req.extend_from_slice(&[5, 1, 0]);
    let literal = host.parse::<IpAddr>().ok();
    let ip = match (literal, proxy.kind) {
        (Some(ip), _) => Some(ip),
        (None, ProxyKind::Socks5h) => None,
        (None, _) => {
            let mut addrs = tokio::net::lookup_host((host, port))
                .await
                .map_err(|_| ProxyFailure::Resolve)?;
            Some(addrs.next().ok_or(ProxyFailure::Resolve)?.ip())
        }
    };
    match ip {
        Some(IpAddr::V4(v4)) => {
            req.push(1);
            req.extend_from_slice(&v4.octets());
        }
        Some(IpAddr::V6(v6)) => {
            req.push(4);
            req.extend_from_slice(&v6.octets());
        }
        None => {
            let name = host.as_bytes();
            if name.len() > 255 {
                return Err(ProxyFailure::BadTarget);
            }
            req.push(3);
            req.push(name.len() as u8);
            req.extend_from_slice(name);
        }
    }
    req.extend_from_slice(&port.to_be_bytes());
    s.write_all(&req).await.map_err(|e| io_fail(&e))?;
    // Reply: VER REP RSV ATYP, then the bound address and port (read and dropped).
    let mut head = [0u8; 5];
    read_exact(s, &mut head).await?;
    let rest = socks_reply_rest(head)?;
    let mut tail = vec![0u8; rest];
    read_exact(s, &mut tail).await?;
    Ok(())
}

/// Checks the SOCKS5 method choice; returns the method (0 or 2).
pub(crate) fn check_method_reply(reply: [u8; 2], auth: bool) -> Result<u8, ProxyFailure> {
    if reply[0] != 5 {
        return Err(ProxyFailure::Malformed);
    }
    match reply[1] {
        0 if !auth => Ok(0),
        2 if auth => Ok(2),
        0xff => Err(ProxyFailure::SocksNoMethod),
        _ => Err(ProxyFailure::Malformed),
    }
}

/// Checks the first five bytes of a SOCKS5 reply; returns how many bytes follow.
pub(crate) fn socks_reply_rest(head: [u8; 5]) -> Result<usize, ProxyFailure> {
    if head[0] != 5 || head[2] != 0 {
        return Err(ProxyFailure::Malformed);
    }
    if head[1] != 0 {
        return Err(ProxyFailure::Socks(head[1]));
    }
    // The fifth byte is the first of the address (or the domain's length).
    match head[3] {
        1 => Ok(4 - 1 + 2),
        4 => Ok(16 - 1 + 2),
        3 => Ok(usize::from(head[4]) + 2),
        _ => Err(ProxyFailure::Malformed),
    }
}

/// Feeds `data` to the tunnel reply parsers: every prefix to the `CONNECT` answer parser
/// (as the reader would see it grow), and the first bytes to the SOCKS5 checks. Returns the
/// parsed `CONNECT` status and head length, if whole. Never panics; for the fuzz target.
#[doc(hidden)]
pub fn fuzz_proxy_replies(data: &[u8]) -> Option<(u16, usize)> {
    let mut whole = None;
    for end in 0..=data.len().min(MAX_CONNECT_HEAD) {
        match parse_connect_response(&data[..end]) {
            Ok(Some(r)) => {
                whole = Some(r);
                break;
            }
            Ok(None) => {}
            Err(_) => break,
        }
    }
    if let [a, b, ..] = *data {
        let _ = check_method_reply([a, b], a & 1 == 1);
    }
    if let [a, b, c, d, e, ..] = *data {
        let _ = socks_reply_rest([a, b, c, d, e]);
    }
    whole
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn connect_responses() {
        assert_eq!(
            parse_connect_response(b"HTTP/1.1 200 Connection established\r\n\r\n").unwrap(),
            Some((200, 39))
        );
        assert_eq!(
            parse_connect_response(b"HTTP/1.0 200\r\nVia: x\r\n\r\n").unwrap(),
            Some((200, 24))
        );
        assert_eq!(
            parse_connect_response(b"HTTP/1.1 407 Proxy Auth").unwrap(),
            None
        );
        assert_eq!(
            parse_connect_response(b"HTTP/1.1 407 No\r\n").unwrap(),
            None
        );
        assert_eq!(parse_connect_response(b"HT").unwrap(), None);
        for bad in [
            &b"SSH-2.0-OpenSSH\r\n"[..],
            b"\x05\x00",
            b"HTTP/2 200\r\n\r\n",
            b"HTTP/1.1 2x0 OK\r\n\r\n",
            b"HTTP/1.1 20\r\n\r\n",
            b"HTTP/1.1 099 x\r\n\r\n",
            b"HTTP/1.1 2000\r\n\r\n",
        ] {
            assert_eq!(
                parse_connect_response(bad),
                Err(ProxyFailure::Malformed),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn socks_replies() {
        assert_eq!(check_method_reply([5, 0], false), Ok(0));
        assert_eq!(check_method_reply([5, 2], true), Ok(2));
        assert_eq!(
            check_method_reply([5, 0], true),
            Err(ProxyFailure::Malformed)
        );
        assert_eq!(
            check_method_reply([5, 0xff], true),
            Err(ProxyFailure::SocksNoMethod)
        );
        assert_eq!(
            check_method_reply([4, 0], false),
            Err(ProxyFailure::Malformed)
        );
        assert_eq!(socks_reply_rest([5, 0, 0, 1, 127]), Ok(5));
        assert_eq!(socks_reply_rest([5, 0, 0, 4, 0]), Ok(17));
        assert_eq!(socks_reply_rest([5, 0, 0, 3, 9]), Ok(11));
        assert_eq!(
            socks_reply_rest([5, 5, 0, 1, 0]),
            Err(ProxyFailure::Socks(5))
        );
        assert_eq!(
            socks_reply_rest([5, 0, 0, 2, 0]),
            Err(ProxyFailure::Malformed)
        );
        assert_eq!(
            socks_reply_rest([b'H', b'T', b'T', b'P', b'/']),
            Err(ProxyFailure::Malformed)
        );
    }

    #[test]
    fn base64() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("user:pass", "dXNlcjpwYXNz"),
        ] {
            let mut s = String::new();
            base64_encode(i.as_bytes(), &mut s);
            assert_eq!(s, o);
        }
    }

    proptest! {
        #[test]
        fn connect_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            if let Ok(Some((status, used))) = parse_connect_response(&bytes) {
                prop_assert!((100..=999).contains(&status));
                prop_assert!(used <= bytes.len());
            }
        }

        #[test]
        fn connect_parser_prefixes(status in 100u16..1000, tail in "[ -~]{0,40}") {
            let full = format!("HTTP/1.1 {status} {tail}\r\nX: y\r\n\r\n");
            for cut in 0..full.len() {
                prop_assert_eq!(parse_connect_response(&full.as_bytes()[..cut]), Ok(None));
            }
            prop_assert_eq!(parse_connect_response(full.as_bytes()), Ok(Some((status, full.len()))));
        }

        #[test]
        fn fuzz_entry_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Some((status, head)) = fuzz_proxy_replies(&bytes) {
                prop_assert!((100..1000).contains(&status) && head <= bytes.len());
            }
        }

        #[test]
        fn socks_parsers_never_panic(a in any::<[u8; 2]>(), b in any::<[u8; 5]>(), auth in any::<bool>()) {
            let _ = check_method_reply(a, auth);
            if let Ok(n) = socks_reply_rest(b) {
                prop_assert!(n <= 257);
            }
        }
    }
}
