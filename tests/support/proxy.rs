//! Loopback proxies for the proxy tests: an HTTP proxy (`CONNECT` tunnels and absolute-form
//! forwarding) and a SOCKS5 proxy (no auth or RFC 1929 username/password). Every tunnel goes
//! to one upstream address whatever target the client names (the target is recorded), so a
//! test can name a host that does not resolve and still reach the simulator, which proves
//! the connection went through the proxy. Each can also misbehave on purpose.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The first frame `market` delivers within 5 s; a disconnect (a proxy that failed) panics
/// with its reason.
pub async fn first_frame(
    market: &mut polyclob::ws::feed::FrameStream,
) -> polyclob::ws::event::OwnedFrame {
    use futures_util::StreamExt;
    use polyclob::ws::event::Status;
    use polyclob::ws::feed::FeedEvent;
    tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            match market.next().await.unwrap() {
                FeedEvent::Message(f) => break f,
                FeedEvent::Status(Status::Disconnected { reason, .. }) => panic!("{reason:?}"),
                _ => {}
            }
        }
    })
    .await
    .expect("a market frame through the proxy")
}

/// What the proxy does with a client.
#[derive(Clone, Debug)]
pub enum Behave {
    /// Tunnel (or forward) to the upstream.
    Serve,
    /// HTTP: answer `CONNECT` with this status and close.
    Status(u16),
    /// Answer with bytes that are neither HTTP nor SOCKS5, then close.
    Garbage,
    /// Close right after reading the client's first bytes.
    Close,
    /// Never answer (the client's connect timeout must end it).
    Hang,
    /// HTTP: a status line and 9 KiB of headers that never end. SOCKS5: the CONNECT reply
    /// cut after five bytes, then close.
    Oversized,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Http,
    Socks5,
}

#[derive(Default)]
struct Counts {
    accepts: AtomicUsize,
    tunnels: AtomicUsize,
    forwards: AtomicUsize,
    auth_failures: AtomicUsize,
    bytes_down: AtomicUsize,
    targets: Mutex<Vec<String>>,
}

/// A running proxy on `127.0.0.1`.
pub struct TestProxy {
    pub addr: SocketAddr,
    counts: Arc<Counts>,
}

impl TestProxy {
    /// Starts a proxy of `kind` forwarding to `upstream`; `auth` = the required user and
    /// password.
    pub async fn start(
        kind: Kind,
        upstream: SocketAddr,
        auth: Option<(&str, &str)>,
        behave: Behave,
    ) -> Self {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        Self::start_on(l, kind, upstream, auth, behave)
    }

    /// As [`start`](Self::start), on a listener bound beforehand (its address can go into
    /// the environment before any runtime thread exists).
    pub fn start_on(
        l: std::net::TcpListener,
        kind: Kind,
        upstream: SocketAddr,
        auth: Option<(&str, &str)>,
        behave: Behave,
    ) -> Self {
        l.set_nonblocking(true).unwrap();
        let l = TcpListener::from_std(l).unwrap();
        let addr = l.local_addr().unwrap();
        let counts = Arc::new(Counts::default());
        let c = Arc::clone(&counts);
        let auth = auth.map(|(u, p)| (u.to_owned(), p.to_owned()));
        tokio::spawn(async move {
            while let Ok((s, _)) = l.accept().await {
                c.accepts.fetch_add(1, Ordering::SeqCst);
                let (c, auth, behave) = (Arc::clone(&c), auth.clone(), behave.clone());
                tokio::spawn(async move {
                    let _ = match kind {
                        Kind::Http => http(s, upstream, auth, behave, c).await,
                        Kind::Socks5 => socks(s, upstream, auth, behave, c).await,
                    };
                });
            }
        });
        Self { addr, counts }
    }

    /// `http://[user:pass@]127.0.0.1:port` or `socks5h://…`.
    pub fn url(&self, scheme: &str, auth: Option<(&str, &str)>) -> String {
        match auth {
            Some((u, p)) => format!("{scheme}://{u}:{p}@{}", self.addr),
            None => format!("{scheme}://{}", self.addr),
        }
    }

    pub fn accepts(&self) -> usize {
        self.counts.accepts.load(Ordering::SeqCst)
    }

    /// Tunnels opened (`CONNECT` answered 200, or SOCKS5 CONNECT succeeded).
    pub fn tunnels(&self) -> usize {
        self.counts.tunnels.load(Ordering::SeqCst)
    }

    /// Plain requests forwarded in absolute form.
    pub fn forwards(&self) -> usize {
        self.counts.forwards.load(Ordering::SeqCst)
    }

    pub fn auth_failures(&self) -> usize {
        self.counts.auth_failures.load(Ordering::SeqCst)
    }

    /// Bytes carried from the upstream to the client.
    pub fn bytes_down(&self) -> usize {
        self.counts.bytes_down.load(Ordering::SeqCst)
    }

    /// The targets clients asked for (`host:port`).
    pub fn targets(&self) -> Vec<String> {
        self.counts.targets.lock().unwrap().clone()
    }
}

/// Holds the connection open, reading and dropping whatever comes, until the client leaves.
async fn hang(mut s: TcpStream) -> std::io::Result<()> {
    let mut buf = [0u8; 1024];
    while s.read(&mut buf).await? > 0 {}
    Ok(())
}

async fn pipe(mut client: TcpStream, mut up: TcpStream, counts: Arc<Counts>) {
    let (mut cr, mut cw) = client.split();
    let (mut ur, mut uw) = up.split();
    let upward = async {
        let _ = tokio::io::copy(&mut cr, &mut uw).await;
        let _ = uw.shutdown().await;
    };
    let downward = async {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match ur.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    counts.bytes_down.fetch_add(n, Ordering::SeqCst);
                    if cw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = cw.shutdown().await;
    };
    tokio::join!(upward, downward);
}

fn b64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
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
    out
}

async fn http(
    mut s: TcpStream,
    upstream: SocketAddr,
    auth: Option<(String, String)>,
    behave: Behave,
    counts: Arc<Counts>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    match behave {
        Behave::Serve => {}
        Behave::Status(code) => {
            let msg = format!("HTTP/1.1 {code} Nope\r\nContent-Length: 0\r\n\r\n");
            return s.write_all(msg.as_bytes()).await;
        }
        Behave::Garbage => return s.write_all(b"SSH-2.0-OpenSSH_9.6\r\n\r\n").await,
        Behave::Close => return Ok(()),
        Behave::Hang => return hang(s).await,
        Behave::Oversized => {
            s.write_all(b"HTTP/1.1 200 OK\r\n").await?;
            for _ in 0..9 {
                s.write_all(format!("X-Pad: {}\r\n", "a".repeat(1014)).as_bytes())
                    .await?;
            }
            return hang(s).await;
        }
    }
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("").to_owned();
    let mut parts = first.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if let Some((u, p)) = &auth {
        let want = format!("basic {}", b64(format!("{u}:{p}").as_bytes()));
        let ok = lines.any(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("proxy-authorization:")
                .is_some_and(|v| v.trim() == want.to_ascii_lowercase())
        });
        if !ok {
            counts.auth_failures.fetch_add(1, Ordering::SeqCst);
            return s
                .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"t\"\r\nContent-Length: 0\r\n\r\n")
                .await;
        }
    }
    counts.targets.lock().unwrap().push(target.to_owned());
    let mut up = TcpStream::connect(upstream).await?;
    if method == "CONNECT" {
        counts.tunnels.fetch_add(1, Ordering::SeqCst);
        s.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await?;
        // Anything the client sent after the head goes up too.
        up.write_all(&buf[end..]).await?;
    } else {
        // Absolute form: pass the request on as it is (the simulator's router reads only
        // the path); the rest of the connection follows.
        counts.forwards.fetch_add(1, Ordering::SeqCst);
        up.write_all(&buf).await?;
    }
    pipe(s, up, counts).await;
    Ok(())
}

async fn socks(
    mut s: TcpStream,
    upstream: SocketAddr,
    auth: Option<(String, String)>,
    behave: Behave,
    counts: Arc<Counts>,
) -> std::io::Result<()> {
    let mut head = [0u8; 2];
    s.read_exact(&mut head).await?;
    let mut methods = vec![0u8; usize::from(head[1])];
    s.read_exact(&mut methods).await?;
    match behave {
        Behave::Serve | Behave::Status(_) | Behave::Oversized => {}
        Behave::Garbage => return s.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await,
        Behave::Close => return Ok(()),
        Behave::Hang => return hang(s).await,
    }
    let want = if auth.is_some() { 2 } else { 0 };
    if head[0] != 5 || !methods.contains(&want) {
        return s.write_all(&[5, 0xff]).await;
    }
    s.write_all(&[5, want]).await?;
    if let Some((u, p)) = &auth {
        let mut v = [0u8; 2];
        s.read_exact(&mut v).await?;
        let mut user = vec![0u8; usize::from(v[1])];
        s.read_exact(&mut user).await?;
        let mut l = [0u8; 1];
        s.read_exact(&mut l).await?;
        let mut pass = vec![0u8; usize::from(l[0])];
        s.read_exact(&mut pass).await?;
        if user != u.as_bytes() || pass != p.as_bytes() {
            counts.auth_failures.fetch_add(1, Ordering::SeqCst);
            return s.write_all(&[1, 1]).await;
        }
        s.write_all(&[1, 0]).await?;
    }
    let mut req = [0u8; 4];
    s.read_exact(&mut req).await?;
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            s.read_exact(&mut a).await?;
            std::net::Ipv4Addr::from(a).to_string()
        }
        4 => {
            let mut a = [0u8; 16];
            s.read_exact(&mut a).await?;
            std::net::Ipv6Addr::from(a).to_string()
        }
        3 => {
            let mut l = [0u8; 1];
            s.read_exact(&mut l).await?;
            let mut name = vec![0u8; usize::from(l[0])];
            s.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => return s.write_all(&[5, 8, 0, 1, 0, 0, 0, 0, 0, 0]).await,
    };
    let mut port = [0u8; 2];
    s.read_exact(&mut port).await?;
    if let Behave::Oversized = behave {
        return s.write_all(&[5, 0, 0, 1, 127]).await;
    }
    if let Behave::Status(code) = behave {
        // SOCKS reply code instead of an HTTP status.
        return s.write_all(&[5, code as u8, 0, 1, 0, 0, 0, 0, 0, 0]).await;
    }
    counts
        .targets
        .lock()
        .unwrap()
        .push(format!("{host}:{}", u16::from_be_bytes(port)));
    let up = TcpStream::connect(upstream).await?;
    counts.tunnels.fetch_add(1, Ordering::SeqCst);
    s.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0]).await?;
    pipe(s, up, counts).await;
    Ok(())
}
