//! Memory at scale (issue 21, item 5): a `BookManager` with 10,000 books of 20 levels a side,
//! its resident memory, and the cost of applying a `price_change` when consecutive messages
//! hit random books (the working set, ~16 MB of books plus the frames, no longer fits in the
//! caches) against the same messages confined to 8 books (hot in L1/L2), same run, same
//! frame shapes. The heap figures per book are bounded in `tests/memory_at_scale.rs`; this
//! bench asserts the apply cost (CI builds benches but does not run them).
//!
//! `cargo bench --bench memory_scale -- shards` instead streams 5,000 assets over 25
//! connections (200 each, the exchange's cap) from the simulator into a `BookStream` and prints
//! the client's CPU per message and per 10,000 messages a second, at the rate the simulator
//! reaches (not bounded: the rate depends on the machine).
//!
//! ```text
//! cargo bench --bench memory_scale
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
use polyclob::sim::{MarketSpec, Simulator};
use polyclob::ws::books::{BookEvent, BookStream};
use polyclob::ws::market::MarketStream;
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

/// 5,000 assets (2,500 binary markets) over 25 connections from the simulator, which runs on
/// its own threads and is driven at about `steps_per_ms` activity steps a millisecond. The
/// client (shard tasks, book upkeep, the consumer) runs on this thread's current-thread
/// runtime, so this thread's CPU time is the client's.
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
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let sim = rt
            .block_on(Simulator::builder().seed(9).markets(specs).start())
            .unwrap();
        tx.send(sim.market_ws_url()).unwrap();
        // Drive the activity: `SHARDS_STEPS` steps (default 10) about every millisecond. More
        // steps overrun the simulator's broadcast on the 2-core development machine (shards
        // lag and resubscribe), so the rate reached is printed, not assumed.
        let steps = std::env::var("SHARDS_STEPS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(10);
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            sim.step_activity(steps);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    let url = rx.recv().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let stream = MarketStream::builder()
            .url(url)
            .assets(assets.iter().cloned())
            .build()
            .unwrap();
        let mut books = BookStream::new(stream);
        // Warm-up: every snapshot in, buffers grown.
        let warm = tokio::time::Instant::now() + Duration::from_secs(3);
        while let Ok(Some(_)) = tokio::time::timeout_at(warm, books.next()).await {}
        let (c0, t0) = (thread_cpu(), Instant::now());
        let end = tokio::time::Instant::from_std(t0 + Duration::from_secs(5));
        let mut n = 0u64;
        while let Ok(Some(e)) = tokio::time::timeout_at(end, books.next()).await {
            if matches!(e, BookEvent::Market { .. }) {
                n += 1;
            }
        }
        let (cpu, wall) = (thread_cpu() - c0, t0.elapsed());
        let rate = n as f64 / wall.as_secs_f64();
        let load = cpu.as_secs_f64() / wall.as_secs_f64();
        println!(
            "5,000 assets / 25 connections: {rate:.0} msg/s received, client CPU {:.1}% of a core \
             = {:.1}% of a core per 10,000 msg/s ({:.2} µs CPU a message); books: {}",
            100.0 * load,
            100.0 * load * 10_000.0 / rate,
            cpu.as_secs_f64() * 1e6 / n as f64,
            books.books().len(),
        );
        assert_eq!(books.books().len(), 5_000, "every asset has its book");
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
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
