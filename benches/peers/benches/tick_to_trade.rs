//! Tick to trade, same run, against polyfill-rs 0.4.3.
//!
//! A loopback WebSocket server sends one `price_change` for the watched asset at a time
//! (after the four initial `book` snapshots) and stamps it just before the write; the client
//! applies it to its book, reads the best bid, builds and signs a BUY limit order at that
//! price (EIP-712, ECDSA) and posts it with its L2 HMAC headers to a loopback HTTP server,
//! which stamps the moment the request's last byte arrives and checks the order it got
//! (token, side, price, amounts, a signature). The next frame goes out 30 ms after that
//! order arrived (under the Standard tier's 40 orders/s, which polyclob's governor enforces
//! by default), so every sample starts from an idle client. One current-thread runtime per
//! row.
//!
//! Rows: the floor (the same two legs from a blocking thread that reads the frame and writes a
//! prepared request: no runtime, no decoding, no signing); polyclob with RFC 6979 nonces; polyclob with the precomputed nonce pool
//! (`Signer::with_nonce_pool`, feature `presign`, refilled by its own thread); the same with
//! the market stream's `busy_poll(true)` (the client's thread never sleeps); polyfill-rs
//! 0.4.3 (`WebSocketStream` + `OrderBookManager`, `create_order` + `post_order`, tick size and
//! neg-risk passed in: its `create_order` still asks `GET /tick-size`, which the server
//! answers, and that round trip is part of its flow).
//!
//! Two scenarios, every row in each: the socket idle between triggers (every sample starts
//! from a sleeping client), and a steady feed between triggers (price changes of the three
//! other assets about every millisecond, as a client subscribed to a few active markets sees;
//! the strategy joins the watched asset's bid only when it moves).
//!
//! Run: `cargo bench --manifest-path benches/peers/Cargo.toml --bench tick_to_trade`

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob_peer_benches::{ASSETS, MARKETS, T0_MS, load_average};
use tokio_tungstenite::tungstenite::{self, Message};

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const API_KEY: &str = "00000000-0000-0000-0000-000000000001";
const SECRET: &str = "dGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZy12YWx1ZS0wMQ==";
const PASSPHRASE: &str = "bench-passphrase";
/// Timed orders per row (after `WARMUP` untimed ones).
const ORDERS: usize = 400;
const WARMUP: usize = 20;
/// Pause after each order's arrival: 33 orders/s stays under the exchange's Standard-tier
/// order limit (40/s), which polyclob's client-side governor enforces by default.
const GAP: Duration = Duration::from_millis(30);

/// A `book` snapshot: bids 0.20..=0.39, asks 0.51..=0.70, 20 levels a side.
fn snapshot(a: usize) -> String {
    let mut bids = String::new();
    let mut asks = String::new();
    for k in 0..20u32 {
        let sep = if k == 0 { "" } else { "," };
        bids.push_str(&format!(
            r#"{sep}{{"price":"0.{}","size":"{}.25"}}"#,
            20 + k,
            100 + k
        ));
        asks.push_str(&format!(
            r#"{sep}{{"price":"0.{}","size":"{}.5"}}"#,
            70 - k,
            200 + k
        ));
    }
    format!(
        r#"{{"market":"{}","asset_id":"{}","timestamp":"{}","hash":"0a1b2c3d4e5f60718293a4b5c6d7e8f901234567","bids":[{bids}],"asks":[{asks}],"tick_size":"0.01","event_type":"book","last_trade_price":"0.5"}}"#,
        MARKETS[a / 2],
        ASSETS[a],
        T0_MS
    )
}

/// Trigger `k`: the previous trigger's bid level is cancelled and a new best bid for
/// `ASSETS[0]` appears at 0.40 + (k % 9) cents (above the snapshot's 0.39).
fn trigger(k: usize) -> (String, u32) {
    let cents = 40 + (k % 9) as u32;
    let mut changes = String::new();
    if k > 0 {
        let prev = 40 + ((k - 1) % 9) as u32;
        changes.push_str(&format!(
            r#"{{"asset_id":"{}","price":"0.{prev}","size":"0","side":"BUY","hash":"1895759e4df7a796bf4f1c5a5950b748306923e2","best_bid":"0.39","best_ask":"0.51"}},"#,
            ASSETS[0]
        ));
    }
    changes.push_str(&format!(
        r#"{{"asset_id":"{}","price":"0.{cents}","size":"{}.5","side":"BUY","hash":"56621a121a47ed9333273e21c83b660cff37ae50","best_bid":"0.{cents}","best_ask":"0.51"}}"#,
        ASSETS[0],
        100 + k
    ));
    let frame = format!(
        r#"{{"event_type":"price_change","market":"{}","price_changes":[{changes}],"timestamp":"{}"}}"#,
        MARKETS[0],
        T0_MS + 1 + k as u64
    );
    (frame, cents)
}

/// Between triggers, send the other assets' price changes at about 1,000 a second (a client
/// subscribed to a few active markets) instead of leaving the socket idle: set per scenario.
static STEADY_FEED: AtomicBool = AtomicBool::new(false);

/// Background frame `k`: a size change at 0.3x on the bid side of one of the three other
/// assets (their best bid stays 0.39, the watched asset's book is untouched).
fn background(k: usize) -> String {
    let a = 1 + k % 3;
    format!(
        r#"{{"market":"{}","price_changes":[{{"asset_id":"{}","price":"0.3{}","size":"{}.5","side":"BUY","hash":"0c7a3f5e2b9d4c1a8e6f0b3d5a7c9e1f2b4d6a8c","best_bid":"0.39","best_ask":"0.51"}}],"timestamp":"{}","event_type":"price_change"}}"#,
        MARKETS[a / 2],
        ASSETS[a],
        k % 9,
        100 + k % 50,
        T0_MS + 1_000_000 + k as u64
    )
}

/// What the HTTP side saw of one order.
struct Arrival {
    at: Instant,
    body: String,
}

/// The loopback exchange: WS on one port, HTTP on another, one thread each (+ one per HTTP
/// connection).
struct Exchange {
    ws_url: String,
    http_url: String,
    /// (frame sent, order arrived) per trigger.
    samples: Arc<Mutex<Vec<(Instant, Instant)>>>,
    /// Orders whose body did not match the trigger.
    bad: Arc<Mutex<Vec<String>>>,
    done: Arc<AtomicBool>,
    ws_thread: Option<std::thread::JoinHandle<()>>,
}

impl Exchange {
    fn start(n: usize) -> Self {
        let ws = TcpListener::bind("127.0.0.1:0").expect("bind");
        let http = TcpListener::bind("127.0.0.1:0").expect("bind");
        let ws_url = format!("ws://{}/ws/market", ws.local_addr().expect("addr"));
        let http_url = format!("http://{}", http.local_addr().expect("addr"));
        let (order_tx, order_rx) = mpsc::channel::<Arrival>();
        std::thread::spawn(move || {
            for conn in http.incoming() {
                let Ok(conn) = conn else { return };
                let tx = order_tx.clone();
                std::thread::spawn(move || serve_http(conn, &tx));
            }
        });
        let samples = Arc::new(Mutex::new(Vec::new()));
        let bad = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicBool::new(false));
        let (s, b, d) = (Arc::clone(&samples), Arc::clone(&bad), Arc::clone(&done));
        let ws_thread = std::thread::spawn(move || serve_ws(&ws, n, &order_rx, &s, &b, &d));
        Self {
            ws_url,
            http_url,
            samples,
            bad,
            done,
            ws_thread: Some(ws_thread),
        }
    }

    fn finish(mut self) -> (Vec<(Instant, Instant)>, Vec<String>) {
        self.done.store(true, Ordering::Release);
        if let Some(t) = self.ws_thread.take() {
            let _ = t.join();
        }
        let s = std::mem::take(&mut *self.samples.lock().expect("lock"));
        let b = std::mem::take(&mut *self.bad.lock().expect("lock"));
        (s, b)
    }
}

fn serve_ws(
    listener: &TcpListener,
    n: usize,
    orders: &mpsc::Receiver<Arrival>,
    samples: &Mutex<Vec<(Instant, Instant)>>,
    bad: &Mutex<Vec<String>>,
    done: &AtomicBool,
) {
    let Ok((tcp, _)) = listener.accept() else {
        return;
    };
    let _ = tcp.set_nodelay(true);
    let Ok(mut ws) = tungstenite::accept(tcp) else {
        return;
    };
    loop {
        match ws.read() {
            Ok(Message::Text(_)) => break,
            Ok(_) => {}
            Err(_) => return,
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    let books: Vec<String> = (0..ASSETS.len()).map(snapshot).collect();
    if ws
        .send(Message::text(format!("[{}]", books.join(","))))
        .is_err()
    {
        return;
    }
    std::thread::sleep(Duration::from_millis(50));
    for k in 0..n {
        let (frame, cents) = trigger(k);
        let sent = Instant::now();
        if ws.send(Message::text(frame)).is_err() {
            return;
        }
        match orders.recv_timeout(Duration::from_secs(5)) {
            Ok(a) => {
                let price = format!("0.{cents}");
                if !order_matches(&a.body, &price) {
                    bad.lock().expect("lock").push(a.body);
                }
                samples.lock().expect("lock").push((sent, a.at));
            }
            Err(_) => {
                bad.lock()
                    .expect("lock")
                    .push(format!("no order for trigger {k}"));
                return;
            }
        }
        if STEADY_FEED.load(Ordering::Relaxed) {
            let until = Instant::now() + GAP;
            let mut j = 0;
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
                if ws.send(Message::text(background(k * 64 + j))).is_err() {
                    return;
                }
                j += 1;
            }
        } else {
            std::thread::sleep(GAP);
        }
    }
    let _ = ws
        .get_mut()
        .set_read_timeout(Some(Duration::from_millis(20)));
    while !done.load(Ordering::Acquire) {
        match ws.read() {
            Ok(Message::Text(t)) if t.as_str() == "PING" => {
                let _ = ws.send(Message::text("PONG"));
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
}

/// The order is for the watched token, a BUY, carries a 65-byte signature, and its amounts
/// are 10 shares at `price` (maker = USDC micro-units paid, taker = shares received).
fn order_matches(body: &str, price: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return false;
    };
    let o = &v["order"];
    let cents: u64 = price[2..].parse().unwrap_or(0);
    let maker = o["makerAmount"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| o["makerAmount"].as_u64().map(|n| n.to_string()));
    let taker = o["takerAmount"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| o["takerAmount"].as_u64().map(|n| n.to_string()));
    let sig_ok = o["signature"]
        .as_str()
        .is_some_and(|s| s.len() == 132 && s.starts_with("0x"));
    o["tokenId"].as_str() == Some(ASSETS[0])
        && o["side"].as_str() == Some("BUY")
        && sig_ok
        && maker.as_deref() == Some(&(cents * 100_000).to_string())
        && taker.as_deref() == Some("10000000")
}

fn serve_http(conn: std::net::TcpStream, orders: &mpsc::Sender<Arrival>) {
    let _ = conn.set_nodelay(true);
    let mut out = conn.try_clone().expect("clone");
    let mut r = BufReader::new(conn);
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let request_line = line.trim_end().to_owned();
        let mut len = 0usize;
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let h = line.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0u8; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let at = Instant::now();
        let body = String::from_utf8_lossy(&body).into_owned();
        let reply = if request_line.starts_with("POST /order ") {
            let _ = orders.send(Arrival { at, body });
            r#"{"errorMsg":"","orderID":"0x3f6f2c1b0c4d7a9e5f8b2a1d0e9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170","takingAmount":"","makingAmount":"","status":"live","success":true}"#
        } else if request_line.starts_with("GET /tick-size") {
            r#"{"minimum_tick_size":0.01}"#
        } else if request_line.starts_with("GET /neg-risk") {
            r#"{"neg_risk":false}"#
        } else {
            "{}"
        };
        let resp = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if out.write_all(resp.as_bytes()).is_err() {
            return;
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

mod polyclob_row {
    use super::*;
    use polyclob::clob::{ClientBuilder, Credentials};
    use polyclob::fixed::Price;
    use polyclob::order::{LimitOrder, MarketContext, OrderSigner};
    use polyclob::sign::Signer;
    use polyclob::sign::wallet::Wallet;
    use polyclob::types::{Chain, ExchangeVersion, Side, TickSize};
    use polyclob::decode::EventView as Decoded;
    use polyclob::ws::feed::{Cx, Handler};
    use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};

    /// The strategy: when the watched asset's best bid moves, join it.
    #[derive(Default)]
    struct JoinBid {
        order_at: Option<Price>,
        last: Option<Price>,
    }

    impl Handler<MarketFeed> for JoinBid {
        fn on_message(&mut self, m: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
            if let MarketMessage::Update(u) = m
                && let Decoded::PriceChange(_) = &u.event
            {
                let bid = cx
                    .state()
                    .book(ASSETS[0])
                    .and_then(|b| b.best_bid())
                    .map(|l| l.price);
                if bid != self.last {
                    self.last = bid;
                    self.order_at = bid;
                }
            }
        }
    }

    pub fn run(
        presign: bool,
        busy_poll: bool,
        lane: bool,
    ) -> (Vec<(Instant, Instant)>, Vec<String>) {
        let ex = Exchange::start(WARMUP + ORDERS);
        let rt = runtime();
        let marks = rt.block_on(async {
            let mut signer = Signer::from_hex(KEY).expect("key");
            if presign {
                use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
                let pool = NoncePool::new(PoolConfig::new().depth(64).refill(Refill::Thread));
                signer = signer.with_nonce_pool(pool).expect("pool");
            }
            let client = ClientBuilder::new()
                .host(&ex.http_url)
                .signer(signer.clone())
                .order_lane(lane)
                .build()
                .expect("client");
            client.set_credentials(Credentials::new(API_KEY, SECRET, PASSPHRASE));
            let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).expect("signer");
            let ctx = MarketContext::new(
                Chain::Polygon,
                ExchangeVersion::V2,
                ASSETS[0].parse().expect("token"),
                TickSize::Hundredth,
                false,
            )
            .expect("ctx");
            let size = "10".parse().expect("size");
            let mut stream = MarketStream::builder()
                .url(&ex.ws_url)
                .assets(ASSETS)
                .busy_poll(busy_poll)
                .build()
                .expect("stream");
            let mut feed = JoinBid::default();
            let mut posted = 0usize;
            let mut marks: Vec<(Instant, Instant)> = Vec::new();
            while posted < WARMUP + ORDERS {
                let Ok(true) =
                    tokio::time::timeout(Duration::from_secs(10), stream.dispatch(&mut feed)).await
                else {
                    break;
                };
                if let Some(price) = feed.order_at.take() {
                    let t0 = Instant::now();
                    let signed = orders
                        .limit_order(&ctx, &LimitOrder::new(Side::Buy, price, size))
                        .expect("sign");
                    let t1 = Instant::now();
                    client.post_order(&signed).await.expect("post");
                    marks.push((t0, t1));
                    posted += 1;
                }
            }
            stream.handle().shutdown();
            marks
        });
        let (samples, bad) = ex.finish();
        if std::env::var_os("DIAG").is_some() {
            let mut a: Vec<u128> = Vec::new();
            let mut b: Vec<u128> = Vec::new();
            let mut c: Vec<u128> = Vec::new();
            for ((sent, arrived), (t0, t1)) in samples.iter().zip(&marks).skip(WARMUP) {
                a.push((*t0 - *sent).as_nanos());
                b.push((*t1 - *t0).as_nanos());
                c.push(arrived.saturating_duration_since(*t1).as_nanos());
            }
            for v in [&mut a, &mut b, &mut c] {
                v.sort_unstable();
            }
            println!(
                "  diag p50 µs: frame->decided {:.1}, sign {:.1}, post->arrival {:.1}",
                a[a.len() / 2] as f64 / 1e3,
                b[b.len() / 2] as f64 / 1e3,
                c[c.len() / 2] as f64 / 1e3
            );
        }
        (samples, bad)
    }
}

/// The floor of this flow on this machine: the same two legs with no runtime, no decoding and
/// no signing. A blocking thread reads the WebSocket frame, finds the new best bid by a text
/// search, puts it into a request prepared in advance (a fixed, well-formed signature) and
/// writes it with one `write` on a kept-alive socket. No client can do the legs faster here.
mod floor_row {
    use super::*;
    use std::net::TcpStream;

    /// The order body with the maker amount (USDC micro-units for 10 shares) filled in.
    fn body(maker: u64) -> String {
        format!(
            r#"{{"order":{{"salt":1,"maker":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","signer":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","tokenId":"{}","makerAmount":"{maker}","takerAmount":"10000000","side":"BUY","signatureType":0,"timestamp":"1790000000000","metadata":"0x0000000000000000000000000000000000000000000000000000000000000000","builder":"0x0000000000000000000000000000000000000000000000000000000000000000","signature":"0x{}"}},"owner":"{API_KEY}","orderType":"GTC"}}"#,
            ASSETS[0],
            "ab".repeat(65)
        )
    }

    pub fn run() -> (Vec<(Instant, Instant)>, Vec<String>) {
        let ex = Exchange::start(WARMUP + ORDERS);
        let ws_url = ex.ws_url.clone();
        let http_addr = ex.http_url.trim_start_matches("http://").to_owned();
        let client = std::thread::spawn(move || {
            let addr = ws_url
                .trim_start_matches("ws://")
                .split('/')
                .next()
                .expect("addr")
                .to_owned();
            let tcp = TcpStream::connect(&addr).expect("connect");
            tcp.set_nodelay(true).expect("nodelay");
            // A 4 KiB read (tungstenite zero-fills its free buffer before each read).
            let config = tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
            let (mut ws, _) =
                tungstenite::client::client_with_config(ws_url.as_str(), tcp, Some(config))
                    .expect("handshake");
            ws.send(Message::text(r#"{"assets_ids":[],"type":"market"}"#))
                .expect("subscribe");
            let mut http = TcpStream::connect(&http_addr).expect("connect");
            http.set_nodelay(true).expect("nodelay");
            let mut reply = vec![0u8; 4096];
            let mut posted = 0;
            while posted < WARMUP + ORDERS {
                let Ok(Message::Text(t)) = ws.read() else {
                    continue;
                };
                let t = t.as_str();
                if !t.contains(r#""event_type":"price_change""#) || !t.contains(ASSETS[0]) {
                    continue;
                }
                // The last entry's reported best bid: "best_bid":"0.NN".
                let Some(at) = t.rfind(r#""best_bid":"0."#) else {
                    continue;
                };
                let cents: u64 = t[at + 14..at + 16].parse().unwrap_or(0);
                let b = body(cents * 100_000);
                let req = format!(
                    "POST /order HTTP/1.1\r\nhost: {http_addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{b}",
                    b.len()
                );
                http.write_all(req.as_bytes()).expect("post");
                // The reply: headers, then the body its content-length announces.
                let mut have = 0;
                loop {
                    let n = http.read(&mut reply[have..]).expect("reply");
                    assert!(n > 0, "server closed");
                    have += n;
                    let text = String::from_utf8_lossy(&reply[..have]);
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len: usize = text[..end]
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length: "))
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        if have >= end + 4 + len {
                            break;
                        }
                    }
                }
                posted += 1;
            }
        });
        let _ = client.join();
        ex.finish()
    }
}

mod polyfill_row {
    use super::*;
    use polyfill_rs::types::{
        ApiCredentials, ClientConfig, CreateOrderOptions, OrderArgs, OrderDelta, Side,
        StreamMessage,
    };
    use polyfill_rs::{ClobClient, OrderBookManager, WebSocketStream};
    use rust_decimal::Decimal;

    pub fn run() -> (Vec<(Instant, Instant)>, Vec<String>) {
        let ex = Exchange::start(WARMUP + ORDERS);
        let rt = runtime();
        rt.block_on(async {
            let client = ClobClient::from_config(ClientConfig {
                base_url: ex.http_url.clone(),
                chain: 137,
                private_key: Some(KEY.to_owned()),
                api_credentials: Some(ApiCredentials {
                    api_key: API_KEY.to_owned(),
                    secret: SECRET.to_owned(),
                    passphrase: PASSPHRASE.to_owned(),
                }),
                ..ClientConfig::default()
            })
            .expect("client");
            let opts = CreateOrderOptions {
                tick_size: Some(Decimal::new(1, 2)),
                neg_risk: Some(false),
            };
            let books = OrderBookManager::new(100);
            for a in ASSETS {
                let _ = books.get_or_create_book(a);
            }
            let mut ws = WebSocketStream::new(&ex.ws_url);
            ws.subscribe_market_channel(ASSETS.iter().map(|s| (*s).to_owned()).collect())
                .await
                .expect("subscribe");
            let mut posted = 0usize;
            // polyfill-rs drops a delta whose sequence is not above the book's last one, and
            // one frame may carry several changes for the same book: number them ourselves.
            let mut sequence = 0u64;
            let mut last = None;
            while posted < WARMUP + ORDERS {
                let msg = match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
                    Ok(Some(Ok(m))) => m,
                    Ok(Some(Err(_))) => continue,
                    _ => break,
                };
                match msg {
                    StreamMessage::Book(b) => {
                        let _ = books.apply_book_update(&b);
                    }
                    StreamMessage::PriceChange(p) => {
                        for c in p.price_changes {
                            sequence += 1;
                            let _ = books.apply_delta(OrderDelta {
                                token_id: c.asset_id,
                                timestamp: chrono::Utc::now(),
                                side: c.side,
                                price: c.price,
                                size: c.size.unwrap_or_default(),
                                sequence,
                            });
                        }
                        let Ok(Some(best)) = books.with_book_mut(ASSETS[0], |b| Ok(b.best_bid()))
                        else {
                            continue;
                        };
                        // Join the best bid when it moves (not on other assets' changes).
                        if last == Some(best.price) {
                            continue;
                        }
                        last = Some(best.price);
                        let args =
                            OrderArgs::new(ASSETS[0], best.price, Decimal::from(10), Side::BUY);
                        let order = client
                            .create_order(&args, Some(&opts))
                            .await
                            .expect("create");
                        client.post_order(order, None).await.expect("post");
                        posted += 1;
                    }
                    _ => {}
                }
            }
        });
        ex.finish()
    }
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[k] as f64 / 1000.0
}

fn main() {
    println!(
        "tick_to_trade: load average before {} ({} CPUs), {ORDERS} timed orders per row",
        load_average(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "{:<40} {:>9} {:>9} {:>9}  check",
        "row", "p50 µs", "p99 µs", "max µs"
    );
    type RowFn = Box<dyn Fn() -> (Vec<(Instant, Instant)>, Vec<String>)>;
    let rows: [(&str, RowFn); 7] = [
        ("floor: bare TCP legs", Box::new(floor_row::run)),
        (
            "polyclob (RFC 6979)",
            Box::new(|| polyclob_row::run(false, false, false)),
        ),
        (
            "polyclob (nonce pool)",
            Box::new(|| polyclob_row::run(true, false, false)),
        ),
        (
            "polyclob (nonce pool, order lane)",
            Box::new(|| polyclob_row::run(true, false, true)),
        ),
        (
            "polyclob (nonce pool, busy_poll)",
            Box::new(|| polyclob_row::run(true, true, false)),
        ),
        (
            "polyclob (nonce pool, lane, busy_poll)",
            Box::new(|| polyclob_row::run(true, true, true)),
        ),
        ("polyfill-rs 0.4.3", Box::new(polyfill_row::run)),
    ];
    let mut failed = false;
    // `ROW=<substring>` runs only the rows whose name contains it (for profiling one flow);
    // `SCENARIO=idle` or `SCENARIO=feed` only one scenario.
    let only = std::env::var("ROW").ok();
    let scenario = std::env::var("SCENARIO").ok();
    for (label, key, steady) in [
        ("idle socket between triggers", "idle", false),
        (
            "steady feed between triggers (other assets, ~1,000 msg/s)",
            "feed",
            true,
        ),
    ] {
        if scenario.as_deref().is_some_and(|s| s != key) {
            continue;
        }
        STEADY_FEED.store(steady, Ordering::Relaxed);
        println!("-- {label}");
        let mut p50s = Vec::new();
        for (name, run) in &rows {
            if only.as_deref().is_some_and(|o| !name.contains(o)) {
                continue;
            }
            let (samples, bad) = run();
            let mut lat: Vec<u64> = samples
                .iter()
                .skip(WARMUP)
                .map(|(s, a)| {
                    u64::try_from(a.saturating_duration_since(*s).as_nanos()).unwrap_or(0)
                })
                .collect();
            lat.sort_unstable();
            let check = if bad.is_empty() && samples.len() == WARMUP + ORDERS {
                "ok".to_owned()
            } else {
                failed = true;
                format!(
                    "FAILED: {} of {} orders, {} bad: {:?}",
                    samples.len(),
                    WARMUP + ORDERS,
                    bad.len(),
                    bad.first().map(|b| &b[..b.len().min(300)])
                )
            };
            p50s.push(pct(&lat, 50.0));
            println!(
                "{:<40} {:>9.1} {:>9.1} {:>9.1}  {check}",
                name,
                pct(&lat, 50.0),
                pct(&lat, 99.0),
                lat.last().map_or(f64::NAN, |&x| x as f64 / 1000.0),
            );
        }
        if let [floor, rfc, pool, pool_lane, busy, busy_lane, pf] = p50s[..] {
            println!(
                "p50 ratio polyfill-rs / polyclob: RFC 6979 {:.2}x, nonce pool {:.2}x, + lane {:.2}x, + busy_poll {:.2}x, + lane + busy_poll {:.2}x",
                pf / rfc,
                pf / pool,
                pf / pool_lane,
                pf / busy,
                pf / busy_lane
            );
            println!(
                "p50 above the floor ({floor:.1} µs): polyclob RFC 6979 {:.1}, nonce pool {:.1}, + lane {:.1}, + busy_poll {:.1}, + lane + busy_poll {:.1}, polyfill-rs {:.1} µs",
                rfc - floor,
                pool - floor,
                pool_lane - floor,
                busy - floor,
                busy_lane - floor,
                pf - floor
            );
        }
    }
    println!("load average after {}", load_average());
    if failed {
        std::process::exit(1);
    }
}
