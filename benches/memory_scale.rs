//! Memory at scale (issue 21, item 5): a `BookManager` with 10,000 books of 20 levels a side,
//! its resident memory, and the cost of applying a `price_change` when consecutive messages
//! hit random books (the working set, ~16 MB of books plus the frames, no longer fits in the
//! caches) against the same messages confined to 8 books (hot in L1/L2), same run, same
//! frame shapes. The heap figures per book are bounded in `tests/alloc/memory_at_scale.rs`; this
//! bench asserts the apply cost (CI builds benches but does not run them).
//!
//! `cargo bench -p polyclob --bench memory_scale -- shards` instead streams 5,000 assets over 25
//! connections (200 each, the exchange's cap) from the simulator, paced to 10,000 market frames
//! a second in total, into three clients in turn: the owned `MarketStream` and its zero-copy handler tier on
//! a current-thread runtime, the owned tier on a two-worker runtime. It prints each client's CPU
//! (its threads only, not the simulator's) per frame and per 10,000 frames a second, and fails
//! when a row costs more than twice its recorded figure, falls below 9,000 frames a second,
//! sees a disconnect or a lag in the window, or ends without every asset's book live.
//!
//! ```text
//! cargo bench -p polyclob --bench memory_scale
//! ```
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/support/ws_frames.rs"]
mod ws_frames;

use std::hint::black_box;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use polyclob::book::BookManager;
use polyclob::book::BookState;
use polyclob::ws::feed::{Cx, FeedEvent, Handler};
use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
use polyclob_sim::{MarketSpec, Simulator};
use ws_frames::Lcg;

const BOOKS: u64 = 10_000;
const DEPTH: u64 = 20;
const MESSAGES: usize = 200_000;

/// Measured on 2026-11-24 (BENCHMARKS.md, "Memory at scale"), ns per message; the run fails
/// when a row is more than twice as slow.
const COLD_NS: f64 = 1400.0;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// One-entry `price_change` frames over `assets`, picked at random.
fn frames(rng: &mut Lcg, ids: &[String], assets: u64) -> Vec<String> {
    (0..MESSAGES)
        .map(|_| {
            let a = (rng.below(assets) * (BOOKS / assets)) as usize;
            ws_frames::price_change(rng, &ids[a], 1)
        })
        .collect()
}

/// Best-of-`rounds` ns per message over all of `frames`.
fn run(m: &mut BookManager, frames: &[String], rounds: usize) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let now = Instant::now();
        let t0 = Instant::now();
        for f in frames {
            black_box(m.apply(black_box(f), now));
        }
        best = best.min(t0.elapsed());
    }
    best.as_secs_f64() * 1e9 / frames.len() as f64
}

/// CPU time of the calling thread.
#[allow(unsafe_code)]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid out-pointer for the duration of the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Client CPU per market frame at [`RATE`], µs, by row (the owned tier on a current-thread
/// runtime, the handler tier on the same, the owned tier on a two-worker runtime): about the median of
/// five runs on 2026-11-24 under load 3.9–8.3 (BENCHMARKS.md, "Memory at scale"); the run fails
/// when a row costs more than twice its figure.
const SHARD_US: [f64; 3] = [7.5, 6.7, 11.5];

/// Market messages a second the simulator is paced to, over all 25 connections.
const RATE: f64 = 10_000.0;

/// CPU time of the threads of this process whose name starts with `prefix` (scheduler
/// accounting in nanoseconds, `/proc/self/task/*/schedstat`).
fn threads_cpu(prefix: &str) -> Duration {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = task.path();
        let named = std::fs::read_to_string(p.join("comm")).is_ok_and(|c| c.starts_with(prefix));
        if named {
            let stat = std::fs::read_to_string(p.join("schedstat")).unwrap_or_default();
            ns += stat
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(ns)
}

/// One row: which consumer, on which runtime.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Client {
    /// The owned tier on a current-thread runtime.
    StreamCurrent,
    /// The handler tier (borrowed messages) on a current-thread runtime.
    FeedCurrent,
    /// The owned tier on a multi-thread runtime with two workers (this machine's cores).
    StreamMulti,
}

impl Client {
    fn label(self) -> &'static str {
        match self {
            Self::StreamCurrent => "MarketStream (owned), current-thread runtime",
            Self::FeedCurrent => "MarketStream + Handler (zero-copy), current-thread runtime",
            Self::StreamMulti => "MarketStream (owned), multi-thread runtime (2 workers)",
        }
    }
}

/// What a measured window saw.
#[derive(Default)]
struct Window {
    /// Market messages delivered to the consumer.
    messages: u64,
    /// Status changes (disconnects, lags, reconnects) delivered.
    statuses: u64,
    /// Market messages the simulator published.
    published: u64,
}

/// Counts what the market feed's handler tier delivers.
#[derive(Default)]
struct Count(Window);

impl Handler<MarketFeed> for Count {
    fn on_message(&mut self, _: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {
        self.0.messages += 1;
    }

    fn on_status(&mut self, _: &polyclob::ws::event::Status, _: &Cx<'_, MarketFeed>) {
        self.0.statuses += 1;
    }
}

/// Runs `client` against the simulator at `url` (driven by another thread at [`RATE`]):
/// every snapshot in, 2 s at the rate to warm up, then a 5 s window. Returns the window, its
/// wall time and the client's CPU time in it, after checking that every asset has a live book.
fn run_client(
    client: Client,
    url: &str,
    assets: &[String],
    sim: &polyclob_sim::SimHandle,
) -> (Window, Duration, Duration) {
    let rt = match client {
        Client::StreamMulti => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("client-rt")
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    }
    .unwrap();
    // This thread (it polls the consumer) plus the runtime's workers, if any.
    let cpu = || thread_cpu() + threads_cpu("client-rt");
    rt.block_on(async {
        let stream = MarketStream::builder()
            .url(url)
            .assets(assets.iter().cloned())
            .build()
            .unwrap();
        let live = |books: &BookManager| {
            assets
                .iter()
                .filter(|a| books.book(a).is_some_and(|b| b.state() == BookState::Live))
                .count()
        };
        let check = |books: &BookManager| {
            assert_eq!(
                live(books),
                assets.len(),
                "{}: every asset has its live book",
                client.label()
            );
        };
        if client == Client::FeedCurrent {
            let mut stream = stream;
            let mut feed = Count::default();
            // Warm-up: every connection up and every book live (the connections are
            // staggered), then 2 s at the rate.
            let limit = tokio::time::Instant::now() + Duration::from_secs(60);
            while live(stream.state()) < assets.len() {
                let t = (tokio::time::Instant::now() + Duration::from_millis(100)).min(limit);
                while let Ok(true) = tokio::time::timeout_at(t, stream.dispatch(&mut feed)).await {}
                assert!(
                    tokio::time::Instant::now() < limit,
                    "{}: books never all live",
                    client.label()
                );
            }
            let warm = tokio::time::Instant::now() + Duration::from_secs(2);
            while let Ok(true) = tokio::time::timeout_at(warm, stream.dispatch(&mut feed)).await {}
            feed.0 = Window::default();
            let (c0, t0, p0) = (cpu(), Instant::now(), sim.market_frames_published());
            let end = tokio::time::Instant::from_std(t0 + Duration::from_secs(5));
            while let Ok(true) = tokio::time::timeout_at(end, stream.dispatch(&mut feed)).await {}
            let (used, wall) = (cpu() - c0, t0.elapsed());
            let published = sim.market_frames_published() - p0;
            check(stream.state());
            (
                Window {
                    published,
                    ..feed.0
                },
                wall,
                used,
            )
        } else {
            let mut books = stream;
            let limit = tokio::time::Instant::now() + Duration::from_secs(60);
            while live(books.state()) < assets.len() {
                let t = (tokio::time::Instant::now() + Duration::from_millis(100)).min(limit);
                while let Ok(Some(_)) = tokio::time::timeout_at(t, books.next()).await {}
                assert!(
                    tokio::time::Instant::now() < limit,
                    "{}: books never all live",
                    client.label()
                );
            }
            let warm = tokio::time::Instant::now() + Duration::from_secs(2);
            while let Ok(Some(_)) = tokio::time::timeout_at(warm, books.next()).await {}
            let mut w = Window::default();
            let (c0, t0, p0) = (cpu(), Instant::now(), sim.market_frames_published());
            let end = tokio::time::Instant::from_std(t0 + Duration::from_secs(5));
            while let Ok(Some(e)) = tokio::time::timeout_at(end, books.next()).await {
                match e {
                    FeedEvent::Message(_) => w.messages += 1,
                    FeedEvent::Status(st) => {
                        w.statuses += 1;
                        eprintln!("status: {st:?}");
                    }
                    _ => {}
                }
            }
            let (used, wall) = (cpu() - c0, t0.elapsed());
            w.published = sim.market_frames_published() - p0;
            check(books.state());
            (w, wall, used)
        }
    })
}

/// 5,000 assets (2,500 binary markets) over 25 connections (200 each, the exchange's cap)
/// from the simulator, which runs on its own runtime; a driver thread steps its activity so
/// that it publishes [`RATE`] market messages a second. Each row's client runs on a runtime
/// of its own; only its threads' CPU time is counted.
fn shards() {
    const MARKETS: u64 = 2_500;
    let specs: Vec<MarketSpec> = (0..MARKETS)
        .map(|i| {
            let (a, b) = (ws_frames::asset_id(2 * i), ws_frames::asset_id(2 * i + 1));
            MarketSpec::binary(format!("0x{:064x}", i + 1), format!("Market {i}"), [&a, &b])
        })
        .collect();
    let assets: Vec<String> = (0..2 * MARKETS).map(ws_frames::asset_id).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let driver = std::thread::Builder::new()
        .name("sim-driver".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("sim-rt")
                .enable_all()
                .build()
                .unwrap();
            let sim = std::sync::Arc::new(
                rt.block_on(Simulator::builder().seed(9).markets(specs).start())
                    .unwrap(),
            );
            tx.send(sim.clone()).unwrap();
            // Paced on what the simulator published: every millisecond, step until the
            // count is where `RATE` puts it (a step publishes 0–3 messages).
            let (t0, f0) = (Instant::now(), sim.market_frames_published());
            while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
                let due = f0 + (t0.elapsed().as_secs_f64() * RATE) as u64;
                for _ in 0..1_000 {
                    if sim.market_frames_published() >= due {
                        break;
                    }
                    sim.step_activity(1);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .unwrap();
    let sim = rx.recv().unwrap();
    let url = sim.market_ws_url();
    println!(
        "| client | frames/s sent | events/s delivered | status changes | client CPU, % of a core | µs a frame | % of a core per 10,000 frames/s |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut failed = Vec::new();
    for (row, client) in [
        Client::StreamCurrent,
        Client::FeedCurrent,
        Client::StreamMulti,
    ]
    .into_iter()
    .enumerate()
    {
        let (w, wall, cpu) = run_client(client, &url, &assets, &sim);
        let secs = wall.as_secs_f64();
        // Each asset is on one connection: every frame the simulator published reached the
        // client once (no status change in the window, so none was lost to a reconnect).
        let rate = w.published as f64 / secs;
        let us = cpu.as_secs_f64() * 1e6 / w.published.max(1) as f64;
        println!(
            "| {} | {rate:.0} | {:.0} | {} | {:.1}% | {us:.2} | {:.1}% |",
            client.label(),
            w.messages as f64 / secs,
            w.statuses,
            100.0 * cpu.as_secs_f64() / secs,
            us * 1e-6 * 1e4 * 100.0,
        );
        if rate < 0.9 * RATE || w.statuses > 0 {
            failed.push(format!(
                "{}: {rate:.0} frames/s, {} status changes",
                client.label(),
                w.statuses
            ));
        }
        if us > 2.0 * SHARD_US[row] {
            failed.push(format!(
                "{}: {us:.2} µs a frame, more than twice {}",
                client.label(),
                SHARD_US[row]
            ));
        }
    }
    drop(sim);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    driver.join().unwrap();
    assert!(failed.is_empty(), "{}", failed.join("; "));
}

fn main() {
    if std::env::args().any(|a| a == "shards") {
        shards();
        return;
    }
    let ids: Vec<String> = (0..BOOKS).map(ws_frames::asset_id).collect();
    let mut rng = Lcg(5);
    let rss0 = rss_kib();
    let mut m = BookManager::new();
    let now = Instant::now();
    for id in &ids {
        let s = m.apply(&ws_frames::book(&mut rng, id, DEPTH), now);
        assert_eq!(s.applied, 1);
    }
    let rss1 = rss_kib();
    let cold = frames(&mut rng, &ids, BOOKS);
    let hot = frames(&mut rng, &ids, 8);
    // Warm-up: every book sees the price range the frames touch.
    run(&mut m, &cold, 1);
    run(&mut m, &hot, 1);
    let (mut c, mut h) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        c = c.min(run(&mut m, &cold, 1));
        h = h.min(run(&mut m, &hot, 1));
    }
    println!(
        "{BOOKS} books x {DEPTH} levels a side: RSS +{:.1} MiB ({} B a book)",
        (rss1 - rss0) as f64 / 1024.0,
        (rss1 - rss0) * 1024 / BOOKS
    );
    println!("| row | ns/message |\n|---|---|");
    println!("| price_change, random book of {BOOKS} | {c:.0} |");
    println!("| price_change, one of 8 books | {h:.0} |");
    println!("cold / hot: {:.2}x", c / h);
    assert!(
        c <= 2.0 * COLD_NS,
        "apply across {BOOKS} books: {c:.0} ns/message, more than twice {COLD_NS}"
    );
}
