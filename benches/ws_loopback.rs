//! Live-stream cost over loopback: frame-to-book-update latency and sustained throughput.
//!
//! A loopback WebSocket server (its own thread and runtime) sends production-shaped
//! `price_change` frames (two 77-digit asset ids, hashes, best bid/ask, string
//! timestamps). The client runs on ONE current-thread runtime (one core): socket read,
//! framing, queue, decode, book update, handler.
//!
//! Rows (same frames, same run):
//! - `polyclob_book_feed`: `MarketStream` + a `Handler` (read → queue → decode → apply → handler);
//! - `baseline_tungstenite_serde_value`: a bare tokio-tungstenite reader that parses every
//!   frame into a `serde_json::Value` (the DOM decode peers use) and keeps no book;
//! - `baseline_tungstenite_read_only`: the transport floor, a bare reader that only counts;
//! - `polyclob_market_stream_count_only`: our connection layer (raw frames) with a handler that
//!   only counts;
//! - `decode_apply_only_no_network` vs `baseline_serde_value_only_no_network`: the same frames
//!   without a socket, decoded and applied to books vs parsed into a `serde_json::Value`.
//!
//! Latency is measured ping-pong (one frame in flight): from just before the server
//! writes a frame to the handler call after the book was updated. p50/p99 are printed
//! from a separate 20 000-sample run per row.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use futures_util::{SinkExt, StreamExt};
use polyclob::book::Outcome;
use polyclob::decode::EventView as Decoded;
use polyclob::ws::event::Frame;
use polyclob::ws::feed::{Cx, FeedEvent, FrameStream, Frames, Handler};
use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

const A: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const B: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";
const MARKET: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
/// Distinct frames cycled by the server (sizes differ so every frame changes the book).
const DISTINCT: usize = 1024;

fn snapshot(asset: &str) -> String {
    let mut bids = String::new();
    let mut asks = String::new();
    // 20 levels a side, worst first as the exchange sends them.
    for i in 0..20 {
        let sep = if i == 0 { "" } else { "," };
        bids.push_str(&format!(
            r#"{sep}{{"price":"0.{:02}","size":"{}.25"}}"#,
            20 + i,
            100 + i
        ));
        asks.push_str(&format!(
            r#"{sep}{{"price":"0.{:02}","size":"{}.5"}}"#,
            80 - i,
            200 + i
        ));
    }
    format!(
        r#"{{"event_type":"book","asset_id":"{asset}","market":"{MARKET}","bids":[{bids}],"asks":[{asks}],"timestamp":"1766789469958","hash":"0a1b2c3d4e5f60718293a4b5c6d7e8f901234567","tick_size":"0.01"}}"#
    )
}

fn delta(n: usize) -> String {
    format!(
        r#"{{"event_type":"price_change","market":"{MARKET}","price_changes":[{{"asset_id":"{A}","price":"0.39","size":"{n}.123456","side":"BUY","hash":"56621a121a47ed9333273e21c83b660cff37ae50","best_bid":"0.39","best_ask":"0.61"}},{{"asset_id":"{B}","price":"0.61","size":"{n}.654321","side":"SELL","hash":"1895759e4df7a796bf4f1c5a5950b748306923e2","best_bid":"0.39","best_ask":"0.61"}}],"timestamp":"1766789470{:03}"}}"#,
        n % 1000
    )
}

/// Size (micro-shares) that `delta(n)` gives asset A's 0.39 bid.
fn expected_a_size(n: usize) -> u64 {
    n as u64 * 1_000_000 + 123_456
}

enum Cmd {
    /// Send `n` frames as fast as possible.
    Flood(usize),
    /// Send `n` frames one at a time, stamping each send and waiting for the client's ack.
    PingPong(usize),
}

/// One-connection-at-a-time server on its own thread.
struct Server {
    url: String,
    cmd: mpsc::UnboundedSender<Cmd>,
    /// Nanoseconds since `base` at which the in-flight ping-pong frame was written.
    stamp: Arc<AtomicU64>,
    ack: Arc<Notify>,
    base: Instant,
}

fn start_server(base: Instant) -> Server {
    let (cmd, mut cmd_rx) = mpsc::unbounded_channel::<Cmd>();
    let stamp = Arc::new(AtomicU64::new(0));
    let ack = Arc::new(Notify::new());
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let (s2, a2) = (Arc::clone(&stamp), Arc::clone(&ack));
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        rt.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            url_tx.send(format!("ws://{}/ws/market", listener.local_addr().expect("addr"))).expect("url");
            let frames: Vec<Utf8Bytes> = (0..DISTINCT).map(|n| Utf8Bytes::from(delta(n))).collect();
            let snapshots = format!("[{},{}]", snapshot(A), snapshot(B));
            let (tcp, _) = listener.accept().await.expect("accept");
            tcp.set_nodelay(true).expect("nodelay");
            let mut ws = tokio_tungstenite::accept_async(tcp).await.expect("handshake");
            let mut sent = 0usize;
            loop {
                tokio::select! {
                    msg = ws.next() => match msg {
                        Some(Ok(Message::Text(t))) if t.as_str() == "PING" => {
                            ws.send(Message::text("PONG")).await.expect("pong");
                        }
                        Some(Ok(Message::Text(_))) => {
                            ws.send(Message::text(snapshots.as_str())).await.expect("snapshot");
                        }
                        Some(Ok(_)) => {}
                        _ => return,
                    },
                    cmd = cmd_rx.recv() => match cmd {
                        Some(Cmd::Flood(n)) => {
                            for _ in 0..n {
                                ws.feed(Message::Text(frames[sent % DISTINCT].clone())).await.expect("feed");
                                sent += 1;
                            }
                            ws.flush().await.expect("flush");
                        }
                        Some(Cmd::PingPong(n)) => {
                            for _ in 0..n {
                                let frame = Message::Text(frames[sent % DISTINCT].clone());
                                s2.store(base.elapsed().as_nanos() as u64, Ordering::Release);
                                ws.send(frame).await.expect("send");
                                sent += 1;
                                a2.notified().await;
                            }
                        }
                        None => return,
                    },
                }
            }
        });
    });
    let url = url_rx.recv().expect("server url");
    Server {
        url,
        cmd,
        stamp,
        ack,
        base,
    }
}

/// Latency recorder shared by the three clients.
struct Probe {
    frames: u64,
    ping_pong: bool,
    stamp: Arc<AtomicU64>,
    ack: Arc<Notify>,
    base: Instant,
    latencies: Vec<u64>,
    total_latency: Duration,
}

impl Probe {
    fn new(s: &Server) -> Self {
        Probe {
            frames: 0,
            ping_pong: false,
            stamp: Arc::clone(&s.stamp),
            ack: Arc::clone(&s.ack),
            base: s.base,
            latencies: Vec::with_capacity(32_768),
            total_latency: Duration::ZERO,
        }
    }

    #[inline]
    fn arrived(&mut self) {
        self.frames += 1;
        if self.ping_pong {
            let now = self.base.elapsed().as_nanos() as u64;
            let lat = now.saturating_sub(self.stamp.load(Ordering::Acquire));
            self.total_latency += Duration::from_nanos(lat);
            if self.latencies.len() < self.latencies.capacity() {
                self.latencies.push(lat);
            }
            self.ack.notify_one();
        }
    }
}

struct BookProbe {
    probe: Probe,
    last_a_size: u64,
}

impl Handler<MarketFeed> for BookProbe {
    fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
        let MarketMessage::Update(u) = msg else {
            return;
        };
        if let (Decoded::PriceChange(_), Outcome::Applied) = (&u.event, u.outcome) {
            if let Some(l) = cx.state().book(A).and_then(|b| b.best_bid()) {
                self.last_a_size = l.size.as_micros();
            }
            self.probe.arrived();
        }
    }
}

/// A client the bench can drive: `pump` processes until `probe.frames` reaches `target`.
trait Client {
    fn probe(&mut self) -> &mut Probe;
    async fn pump(&mut self, target: u64);
    fn check(&self, last_sent: usize);
}

struct Ours {
    stream: MarketStream,
    feed: BookProbe,
}

impl Client for Ours {
    fn probe(&mut self) -> &mut Probe {
        &mut self.feed.probe
    }
    async fn pump(&mut self, target: u64) {
        while self.feed.probe.frames < target {
            assert!(self.stream.dispatch(&mut self.feed).await, "stream ended");
        }
    }
    fn check(&self, last_sent: usize) {
        let book = self.stream.state().book(A).expect("book A");
        let best = book.best_bid().expect("bid");
        assert_eq!(
            best.size.as_micros(),
            expected_a_size(last_sent % DISTINCT),
            "book must match the last frame"
        );
    }
}

/// The connection layer alone: raw frames + a handler that only counts.
struct Raw {
    stream: FrameStream,
    counter: RawCount,
}

struct RawCount {
    probe: Probe,
}

impl Handler<Frames> for RawCount {
    fn on_message(&mut self, frame: &Frame<'_>, _: &Cx<'_, Frames>) {
        if frame
            .as_bytes()
            .starts_with(b"{\"event_type\":\"price_change\"")
        {
            self.probe.arrived();
        }
    }
}

impl Client for Raw {
    fn probe(&mut self) -> &mut Probe {
        &mut self.counter.probe
    }
    async fn pump(&mut self, target: u64) {
        while self.counter.probe.frames < target {
            assert!(
                self.stream.dispatch(&mut self.counter).await,
                "stream ended"
            );
        }
    }
    fn check(&self, _last_sent: usize) {}
}

async fn raw(server: &Server) -> Raw {
    let stream = MarketStream::builder()
        .url(&server.url)
        .assets([A, B])
        .queue_capacity(1 << 16)
        .frames()
        .build()
        .expect("build");
    let mut c = Raw {
        stream,
        counter: RawCount {
            probe: Probe::new(server),
        },
    };
    // Wait for the snapshot frame so the server is past the subscribe.
    loop {
        let ev = c.stream.next_event().await.expect("event");
        if let FeedEvent::Message(_) = ev {
            break;
        }
    }
    c
}

struct Bare {
    ws: tokio_tungstenite::WebSocketStream<TcpStream>,
    probe: Probe,
    parse: bool,
    last_size: String,
}

impl Client for Bare {
    fn probe(&mut self) -> &mut Probe {
        &mut self.probe
    }
    async fn pump(&mut self, target: u64) {
        while self.probe.frames < target {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => {
                    if t.as_str() == "PONG" {
                        continue;
                    }
                    if self.parse {
                        let v: serde_json::Value = serde_json::from_str(t.as_str()).expect("json");
                        if v["event_type"] != "price_change" {
                            continue;
                        }
                        if let Some(s) = v["price_changes"][0]["size"].as_str() {
                            self.last_size.clear();
                            self.last_size.push_str(s);
                        }
                    } else if !t.as_str().starts_with("{\"event_type\":\"price_change\"") {
                        continue;
                    }
                    self.probe.arrived();
                }
                Some(Ok(_)) => {}
                other => panic!("bare client: {other:?}"),
            }
        }
    }
    fn check(&self, last_sent: usize) {
        if self.parse {
            assert_eq!(self.last_size, format!("{}.123456", last_sent % DISTINCT));
        }
    }
}

async fn ours(server: &Server) -> Ours {
    let stream = MarketStream::builder()
        .url(&server.url)
        .assets([A, B])
        .queue_capacity(1 << 16)
        .build()
        .expect("build");
    let feed = BookProbe {
        probe: Probe::new(server),
        last_a_size: 0,
    };
    let mut c = Ours { stream, feed };
    while c
        .stream
        .state()
        .book(B)
        .is_none_or(|b| b.best_ask().is_none())
    {
        assert!(c.stream.dispatch(&mut c.feed).await);
    }
    c
}

async fn bare(server: &Server, parse: bool) -> Bare {
    let addr = server
        .url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .expect("addr")
        .to_owned();
    let tcp = TcpStream::connect(addr).await.expect("connect");
    tcp.set_nodelay(true).expect("nodelay");
    let (mut ws, _) = tokio_tungstenite::client_async(server.url.as_str(), tcp)
        .await
        .expect("handshake");
    ws.send(Message::text(format!(
        r#"{{"assets_ids":["{A}","{B}"],"type":"market"}}"#
    )))
    .await
    .expect("sub");
    // The snapshot frame.
    let _ = ws.next().await;
    Bare {
        ws,
        probe: Probe::new(server),
        parse,
        last_size: String::new(),
    }
}

fn percentiles(mut v: Vec<u64>) -> (f64, f64, f64) {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize] as f64 / 1000.0;
    (at(0.50), at(0.99), at(0.999))
}

fn run_row<C: Client>(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    name: &str,
    server: &Server,
    client: &mut C,
) {
    let sent = std::cell::Cell::new(0usize);
    // Percentiles from a dedicated ping-pong run.
    const SAMPLES: usize = 20_000;
    client.probe().ping_pong = true;
    client.probe().latencies.clear();
    server.cmd.send(Cmd::PingPong(SAMPLES)).expect("cmd");
    let target = client.probe().frames + SAMPLES as u64;
    rt.block_on(client.pump(target));
    sent.set(sent.get() + SAMPLES);
    client.check(sent.get() - 1);
    let (p50, p99, p999) = percentiles(std::mem::take(&mut client.probe().latencies));
    println!(
        "ws_loopback/latency/{name}: p50 {p50:.1} µs, p99 {p99:.1} µs, p99.9 {p999:.1} µs ({SAMPLES} samples)"
    );
    client.probe().latencies = Vec::with_capacity(32_768);

    let mut g = c.benchmark_group("ws_loopback/latency");
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let p = client.probe();
            p.ping_pong = true;
            p.total_latency = Duration::ZERO;
            p.latencies.clear();
            let target = p.frames + iters;
            server.cmd.send(Cmd::PingPong(iters as usize)).expect("cmd");
            rt.block_on(client.pump(target));
            sent.set(sent.get() + iters as usize);
            client.check(sent.get() - 1);
            client.probe().total_latency
        })
    });
    g.finish();

    const BATCH: u64 = 10_000;
    let mut g = c.benchmark_group("ws_loopback/throughput");
    g.throughput(Throughput::Elements(BATCH));
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            client.probe().ping_pong = false;
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let target = client.probe().frames + BATCH;
                let t0 = Instant::now();
                server.cmd.send(Cmd::Flood(BATCH as usize)).expect("cmd");
                rt.block_on(client.pump(target));
                total += t0.elapsed();
                sent.set(sent.get() + BATCH as usize);
                client.check(sent.get() - 1);
            }
            total
        })
    });
    g.finish();
}

/// No network: the same frames applied to a `BookManager` in a loop (decode + apply cost).
fn decode_apply_only(c: &mut Criterion) {
    let frames: Vec<String> = (0..DISTINCT).map(delta).collect();
    let mut books = polyclob::book::BookManager::new();
    let snap = format!("[{},{}]", snapshot(A), snapshot(B));
    books.apply(&snap, Instant::now());
    let mut g = c.benchmark_group("ws_loopback/throughput");
    g.throughput(Throughput::Elements(DISTINCT as u64));
    g.bench_function("decode_apply_only_no_network", |b| {
        b.iter(|| {
            let now = Instant::now();
            let mut applied = 0u64;
            for f in &frames {
                applied += books.apply(std::hint::black_box(f), now).applied as u64;
            }
            assert_eq!(applied, DISTINCT as u64);
        })
    });
    g.bench_function("baseline_serde_value_only_no_network", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for f in &frames {
                let v: serde_json::Value =
                    serde_json::from_str(std::hint::black_box(f)).expect("json");
                n += u64::from(v["price_changes"][0]["size"].is_string());
            }
            assert_eq!(n, DISTINCT as u64);
        })
    });
    g.finish();
    let best = books.book(A).and_then(|b| b.best_bid()).expect("bid");
    assert_eq!(best.size.as_micros(), expected_a_size(DISTINCT - 1));
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let base = Instant::now();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");

    let server = start_server(base);
    let mut client = rt.block_on(ours(&server));
    run_row(&mut c, &rt, "polyclob_book_feed", &server, &mut client);
    drop(client);

    let server = start_server(base);
    let mut client = rt.block_on(raw(&server));
    run_row(
        &mut c,
        &rt,
        "polyclob_market_stream_count_only",
        &server,
        &mut client,
    );
    drop(client);

    decode_apply_only(&mut c);

    let server = start_server(base);
    let mut client = rt.block_on(bare(&server, true));
    run_row(
        &mut c,
        &rt,
        "baseline_tungstenite_serde_value",
        &server,
        &mut client,
    );
    drop(client);

    let server = start_server(base);
    let mut client = rt.block_on(bare(&server, false));
    run_row(
        &mut c,
        &rt,
        "baseline_tungstenite_read_only",
        &server,
        &mut client,
    );

    c.final_summary();
}
