//! Socket to book, same run, against the peers.
//!
//! A loopback WebSocket server (its own thread, blocking tungstenite) replays production-shaped
//! market-channel frames (compact JSON in the exchange's key order: `book` snapshots of 20
//! levels a side, `price_change` with 77-digit asset ids, `last_trade_price`) at 1,000 msg/s,
//! 50,000 msg/s and flat out, stamping each frame just before its write and again when the write
//! returns (on loopback the frame is then in the client's socket: the "in socket" columns).
//! Every client runs on ONE current-thread Tokio runtime (one core) and records the time when
//! its handler sees the frame applied (the frame's exchange timestamp says which frame it was):
//!
//! - `polyclob handler`: `MarketStream` + a zero-copy `Handler<MarketFeed>` (`dispatch`);
//! - `polyclob handler busy_poll`: the same with `.busy_poll(true)` (the thread never sleeps);
//! - `polyclob stream`: the owned `MarketStream` (`Stream` of events, books readable between);
//! - `polyfill-rs 0.4.3`: its `WebSocketStream` + `OrderBookManager` (snapshots and deltas);
//! - `official SDK 0.9.0`: `polymarket_client_sdk_v2`'s WS client, decode only (it keeps no book).
//!
//! Each book-keeping row checks the final best bid of one asset against the generator's
//! model, and every row must handle every frame, so a broken row cannot look fast.
//! Allocations are counted on the client's thread (the server's thread is not counted).
//!
//! Run: `cargo bench --manifest-path benches/peers/Cargo.toml --bench ws_end_to_end`
//! (`-- quick` for a shorter run; `ROUNDS=n` rounds a row, default 3, interleaved; `ROWS=` a
//! name filter; `RATE=` a rate filter (`1000`, `50000`, `flat`); `DIAG=1` the server's lateness per round).

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob_peer_benches::{
    ALLOCATIONS, ASSETS, CountingAlloc, Feed, Rate, Recorder, Row, Server, count_allocations_here,
    load_average,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// What a row reports besides latencies.
struct Outcome {
    rec: Recorder,
    /// Allocations on the client thread after the warm-up frames, per handled frame.
    allocs: u64,
    /// `Ok` when the final book matches the feed (or, for decode-only, nothing is missing).
    check: Result<(), String>,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// How long a row may take before it is declared broken.
fn budget(feed: &Feed, rate: Rate) -> Duration {
    let n = feed.frames.len() as u64;
    match rate {
        Rate::PerSecond(r) => {
            Duration::from_millis(n * 1000 / u64::from(r)) + Duration::from_secs(5)
        }
        Rate::FlatOut => Duration::from_secs(30),
    }
}

fn expect_bid(feed: &Feed, price_micros: i64, size_micros: u64) -> Result<(), String> {
    let (p, s) = feed.final_best_bid;
    if price_micros == i64::from(p) * 10_000 && size_micros == s {
        Ok(())
    } else {
        Err(format!(
            "final best bid {price_micros}/{size_micros}, expected {}/{s}",
            i64::from(p) * 10_000
        ))
    }
}

fn all_handled(rec: &Recorder) -> Result<(), String> {
    if rec.count == rec.recv_ns.len() {
        Ok(())
    } else {
        Err(format!(
            "handled {} of {} frames",
            rec.count,
            rec.recv_ns.len()
        ))
    }
}

/// Counts allocations once the warm-up frames are handled.
struct AllocWindow {
    start: Option<u64>,
}

impl AllocWindow {
    fn new() -> Self {
        Self { start: None }
    }
    fn tick(&mut self, rec: &Recorder, warmup: usize) {
        if self.start.is_none() && rec.count >= warmup {
            self.start = Some(ALLOCATIONS.load(Ordering::Relaxed));
        }
    }
    fn per_frame(&self, rec: &Recorder, warmup: usize) -> u64 {
        let used = ALLOCATIONS.load(Ordering::Relaxed) - self.start.unwrap_or(0);
        let n = rec.count.saturating_sub(warmup).max(1) as u64;
        (used + n / 2) / n
    }
}

mod polyclob_rows {
    use super::*;
    use polyclob::decode::EventView as Decoded;
    use polyclob::ws::feed::{Cx, FeedEvent, Handler};
    use polyclob::ws::market::{MarketEvent, MarketFeed, MarketMessage, MarketStream};

    fn timestamp(e: &Decoded<'_>) -> Option<u64> {
        match e {
            Decoded::Book(b) => b.timestamp_ms,
            Decoded::PriceChange(p) => p.timestamp_ms,
            Decoded::LastTradePrice(t) => t.timestamp_ms,
            _ => None,
        }
    }

    struct Probe {
        rec: Recorder,
        window: AllocWindow,
        warmup: usize,
        done: bool,
        sink: i64,
    }

    impl Handler<MarketFeed> for Probe {
        fn on_message(&mut self, m: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
            let MarketMessage::Update(u) = m else { return };
            let Some(ts) = timestamp(&u.event) else { return };
            // What a strategy does first: read the book it keeps.
            if let Some(l) = cx.state().book(ASSETS[0]).and_then(|b| b.best_bid()) {
                self.sink ^= i64::from(l.price.as_micros());
            }
            self.done |= self.rec.record(ts);
            self.window.tick(&self.rec, self.warmup);
        }
    }

    fn stream(url: &str, busy_poll: bool) -> MarketStream {
        MarketStream::builder()
            .url(url)
            .assets(ASSETS)
            .busy_poll(busy_poll)
            .build()
            .expect("market stream")
    }

    fn check(feed: &Feed, books: &polyclob::book::BookManager) -> Result<(), String> {
        let l = books
            .book(ASSETS[0])
            .and_then(|b| b.best_bid())
            .ok_or("no best bid")?;
        expect_bid(feed, i64::from(l.price.as_micros()), l.size.as_micros())
    }

    pub fn book_feed(feed: &Arc<Feed>, rate: Rate, base: Instant) -> (Server, Outcome) {
        book_feed_with(feed, rate, base, false)
    }

    pub fn book_feed_busy(feed: &Arc<Feed>, rate: Rate, base: Instant) -> (Server, Outcome) {
        book_feed_with(feed, rate, base, true)
    }

    fn book_feed_with(
        feed: &Arc<Feed>,
        rate: Rate,
        base: Instant,
        busy_poll: bool,
    ) -> (Server, Outcome) {
        let server = Server::start(feed, rate, base);
        let rt = runtime();
        let out = rt.block_on(async {
            let mut stream = stream(&server.url, busy_poll);
            let mut h = Probe {
                rec: Recorder::new(base, feed.frames.len()),
                window: AllocWindow::new(),
                warmup: feed.warmup,
                done: false,
                sink: 0,
            };
            let until = tokio::time::Instant::now() + budget(feed, rate);
            count_allocations_here(true);
            while !h.done {
                match tokio::time::timeout_at(until, stream.dispatch(&mut h)).await {
                    Ok(true) => {}
                    _ => break,
                }
            }
            count_allocations_here(false);
            stream.handle().shutdown();
            std::hint::black_box(h.sink);
            let check = check(feed, stream.state()).and(all_handled(&h.rec));
            Outcome {
                allocs: h.window.per_frame(&h.rec, feed.warmup),
                rec: h.rec,
                check,
            }
        });
        (server, out)
    }

    pub fn book_stream(feed: &Arc<Feed>, rate: Rate, base: Instant) -> (Server, Outcome) {
        let server = Server::start(feed, rate, base);
        let rt = runtime();
        let out = rt.block_on(async {
            let mut books = stream(&server.url, false);
            let mut rec = Recorder::new(base, feed.frames.len());
            let mut window = AllocWindow::new();
            let mut sink = 0i64;
            let until = tokio::time::Instant::now() + budget(feed, rate);
            count_allocations_here(true);
            loop {
                let ev = match tokio::time::timeout_at(until, books.next()).await {
                    Ok(Some(ev)) => ev,
                    _ => break,
                };
                let FeedEvent::Message(MarketEvent::Update { event, .. }) = ev else {
                    continue;
                };
                let Some(ts) = event.event().ok().as_ref().and_then(timestamp) else {
                    continue;
                };
                if let Some(l) = books.state().book(ASSETS[0]).and_then(|b| b.best_bid()) {
                    sink ^= i64::from(l.price.as_micros());
                }
                let last = rec.record(ts);
                window.tick(&rec, feed.warmup);
                if last {
                    break;
                }
            }
            count_allocations_here(false);
            books.handle().shutdown();
            std::hint::black_box(sink);
            let check = check(feed, books.state()).and(all_handled(&rec));
            Outcome {
                allocs: window.per_frame(&rec, feed.warmup),
                rec,
                check,
            }
        });
        (server, out)
    }
}

mod polyfill_row {
    use super::*;
    use polyfill_rs::types::{OrderDelta, StreamMessage};
    use polyfill_rs::{OrderBookManager, WebSocketStream};

    pub fn run(feed: &Arc<Feed>, rate: Rate, base: Instant) -> (Server, Outcome) {
        let server = Server::start(feed, rate, base);
        let rt = runtime();
        let out = rt.block_on(async {
            let books = OrderBookManager::new(100);
            for a in ASSETS {
                let _ = books.get_or_create_book(a);
            }
            let mut ws = WebSocketStream::new(&server.url);
            ws.subscribe_market_channel(ASSETS.iter().map(|s| (*s).to_owned()).collect())
                .await
                .expect("polyfill-rs subscribe");
            let mut rec = Recorder::new(base, feed.frames.len());
            let mut window = AllocWindow::new();
            let mut errors = 0u64;
            let mut sink = 0u64;
            let until = tokio::time::Instant::now() + budget(feed, rate);
            count_allocations_here(true);
            loop {
                let msg = match tokio::time::timeout_at(until, ws.next()).await {
                    Ok(Some(Ok(m))) => m,
                    Ok(Some(Err(_))) => {
                        errors += 1;
                        continue;
                    }
                    _ => break,
                };
                let ts = match msg {
                    StreamMessage::Book(b) => {
                        errors += u64::from(books.apply_book_update(&b).is_err());
                        b.timestamp
                    }
                    StreamMessage::PriceChange(p) => {
                        for c in p.price_changes {
                            let delta = OrderDelta {
                                token_id: c.asset_id,
                                timestamp: chrono::Utc::now(),
                                side: c.side,
                                price: c.price,
                                size: c.size.unwrap_or_default(),
                                sequence: p.timestamp,
                            };
                            errors += u64::from(books.apply_delta(delta).is_err());
                        }
                        p.timestamp
                    }
                    StreamMessage::LastTradePrice(t) => t.timestamp,
                    _ => continue,
                };
                if let Ok(Some(l)) = books.with_book_mut(ASSETS[0], |b| Ok(b.best_bid())) {
                    sink ^= u64::from(l.price.is_zero());
                }
                let last = rec.record(ts);
                window.tick(&rec, feed.warmup);
                if last {
                    break;
                }
            }
            count_allocations_here(false);
            std::hint::black_box(sink);
            let check = books
                .with_book_mut(ASSETS[0], |b| Ok(b.best_bid()))
                .ok()
                .flatten()
                .ok_or_else(|| "no best bid".to_owned())
                .and_then(|l| {
                    let p = (l.price * rust_decimal::Decimal::from(1_000_000)).trunc();
                    let s = (l.size * rust_decimal::Decimal::from(1_000_000)).trunc();
                    expect_bid(
                        feed,
                        p.to_string().parse().unwrap_or(-1),
                        s.to_string().parse().unwrap_or(0),
                    )
                })
                .and(all_handled(&rec))
                .and(if errors == 0 {
                    Ok(())
                } else {
                    Err(format!("{errors} apply errors"))
                });
            Outcome {
                allocs: window.per_frame(&rec, feed.warmup),
                rec,
                check,
            }
        });
        (server, out)
    }
}

mod sdk_row {
    use super::*;
    use polymarket_client_sdk_v2::clob::ws::Client;
    use polymarket_client_sdk_v2::types::U256;
    use polymarket_client_sdk_v2::ws::config::Config;

    pub fn run(feed: &Arc<Feed>, rate: Rate, base: Instant) -> (Server, Outcome) {
        let server = Server::start(feed, rate, base);
        let rt = runtime();
        let out = rt.block_on(async {
            let client = Client::new(&server.url, Config::default()).expect("sdk client");
            let ids: Vec<U256> = ASSETS.iter().map(|s| s.parse().expect("u256")).collect();
            // The SDK has one stream per message kind; a book keeper needs all three.
            let books = client
                .subscribe_orderbook(ids.clone())
                .expect("subscribe")
                .map(|r| r.map(|b| b.timestamp));
            let prices = client
                .subscribe_prices(ids.clone())
                .expect("subscribe")
                .map(|r| r.map(|p| p.timestamp));
            let trades = client
                .subscribe_last_trade_price(ids)
                .expect("subscribe")
                .map(|r| r.map(|t| t.timestamp));
            let mut all = pin!(futures_util::stream::select(
                futures_util::stream::select(books, prices),
                trades
            ));
            let mut rec = Recorder::new(base, feed.frames.len());
            let mut window = AllocWindow::new();
            let mut errors = 0u64;
            let until = tokio::time::Instant::now() + budget(feed, rate);
            count_allocations_here(true);
            loop {
                let ts = match tokio::time::timeout_at(until, all.next()).await {
                    Ok(Some(Ok(ts))) => ts,
                    Ok(Some(Err(_))) => {
                        errors += 1;
                        continue;
                    }
                    _ => break,
                };
                let last = rec.record(u64::try_from(ts).unwrap_or(0));
                window.tick(&rec, feed.warmup);
                if last {
                    break;
                }
            }
            count_allocations_here(false);
            // The SDK fans decoded messages out through a bounded broadcast queue and drops
            // what a receiver has not taken in time: a loss is its behaviour, reported as such
            // (latency covers the frames it delivered), not a failure of this bench.
            let lost = rec.recv_ns.len() - rec.count;
            let check = (if lost == 0 {
                Ok(())
            } else {
                Err(format!("LOST {lost} of {} frames", rec.recv_ns.len()))
            })
            .and(if errors == 0 {
                Ok(())
            } else {
                Err(format!("{errors} stream errors"))
            });
            Outcome {
                allocs: window.per_frame(&rec, feed.warmup),
                rec,
                check,
            }
        });
        (server, out)
    }
}

type RowFn = fn(&Arc<Feed>, Rate, Instant) -> (Server, Outcome);

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let only: Option<String> = std::env::var("ROWS").ok();
    let rows: [(&str, RowFn); 5] = [
        ("polyclob handler", polyclob_rows::book_feed),
        ("polyclob handler busy_poll", polyclob_rows::book_feed_busy),
        ("polyclob stream", polyclob_rows::book_stream),
        ("polyfill-rs 0.4.3 stream + book", polyfill_row::run),
        ("official SDK 0.9.0 (decode only)", sdk_row::run),
    ];
    let rates = [
        (Rate::PerSecond(1_000), if quick { 1_000 } else { 5_000 }),
        (
            Rate::PerSecond(50_000),
            if quick { 20_000 } else { 100_000 },
        ),
        (Rate::FlatOut, if quick { 50_000 } else { 200_000 }),
    ];
    // Rounds interleave the rows, so a stall of this shared machine lands on one row's round,
    // not on one row: each row reports the median of its rounds (the range beside p99).
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if quick { 1 } else { 3 })
        .max(1);
    let diag = std::env::var_os("DIAG").is_some();
    println!(
        "ws_end_to_end: load average before {} ({} CPUs), {rounds} round(s) a row, interleaved",
        load_average(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    // Two clocks: from just before the server's write (the kernel's send path included), and
    // from its return, when loopback has queued the frame on the client's socket.
    println!(
        "{:<34} {:>10} {:>9} {:>21} {:>9} {:>11} {:>8} {:>21}  check",
        "row",
        "rate",
        "p50 µs",
        "p99 µs [range]",
        "p99.9 µs",
        "msg/s",
        "alloc/msg",
        "in socket p50/p99 µs"
    );
    let mut failed = false;
    let only_rate: Option<String> = std::env::var("RATE").ok();
    for (rate, n) in rates {
        if only_rate
            .as_deref()
            .is_some_and(|r| !rate.label().starts_with(r))
        {
            continue;
        }
        let feed = Arc::new(Feed::new(n));
        let chosen: Vec<(&str, RowFn)> = rows
            .iter()
            .copied()
            .filter(|(name, _)| only.as_deref().is_none_or(|o| name.contains(o)))
            .collect();
        // Per row: (p50, p99, p99.9, msg/s, in-socket p50, in-socket p99) of each round, the
        // most allocations, the checks.
        let mut stats: Vec<(Vec<[f64; 6]>, u64, Vec<String>)> =
            vec![(Vec::new(), 0, Vec::new()); chosen.len()];
        for _ in 0..rounds {
            for (k, (name, run)) in chosen.iter().enumerate() {
                let base = Instant::now();
                let (server, out) = run(&feed, rate, base);
                let row = Row::new(&server.sent_ns, &out.rec, feed.warmup);
                let in_socket = Row::new(&server.written_ns, &out.rec, feed.warmup);
                if diag {
                    println!(
                        "  diag {name} {}: server late p99 {:.1} µs, max {:.1} µs; p99 {:.1} µs",
                        rate.label(),
                        server.late_pct_us(99.0),
                        server.late_pct_us(100.0),
                        row.pct_us(99.0)
                    );
                }
                server.finish();
                let check = match &out.check {
                    Ok(()) => "ok".to_owned(),
                    Err(e) if e.starts_with("LOST") => e.clone(),
                    Err(e) => {
                        failed = true;
                        format!("FAILED: {e}")
                    }
                };
                let st = &mut stats[k];
                st.0.push([
                    row.pct_us(50.0),
                    row.pct_us(99.0),
                    row.pct_us(99.9),
                    row.msg_per_s,
                    in_socket.pct_us(50.0),
                    in_socket.pct_us(99.0),
                ]);
                st.1 = st.1.max(out.allocs);
                if !st.2.contains(&check) {
                    st.2.push(check);
                }
            }
        }
        let median = |v: &[[f64; 6]], i: usize| {
            let mut x: Vec<f64> = v.iter().map(|r| r[i]).collect();
            x.sort_by(f64::total_cmp);
            x[x.len() / 2]
        };
        let mut best_peer_p99 = f64::INFINITY;
        for (k, (name, _)) in chosen.iter().enumerate() {
            let (runs, allocs, checks) = &stats[k];
            let (lo, hi) = runs.iter().fold((f64::INFINITY, 0f64), |(l, h), r| {
                (l.min(r[1]), h.max(r[1]))
            });
            if !name.starts_with("polyclob") {
                best_peer_p99 = best_peer_p99.min(median(runs, 1));
            }
            println!(
                "{:<34} {:>10} {:>9.1} {:>9.1} [{:>.1}–{:>.1}] {:>9.1} {:>11.0} {:>8} {:>12.1} / {:<6.1}  {}",
                name,
                rate.label(),
                median(runs, 0),
                median(runs, 1),
                lo,
                hi,
                median(runs, 2),
                median(runs, 3),
                allocs,
                median(runs, 4),
                median(runs, 5),
                checks.join(", "),
            );
        }
        if best_peer_p99.is_finite() {
            for (k, (name, _)) in chosen.iter().enumerate() {
                if name.starts_with("polyclob") {
                    println!(
                        "  {name} {}: median p99 / best peer's median p99 = {:.2}",
                        rate.label(),
                        median(&stats[k].0, 1) / best_peer_p99
                    );
                }
            }
        }
    }
    println!("load average after {}", load_average());
    if failed {
        std::process::exit(1);
    }
}
