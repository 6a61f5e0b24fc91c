//! Memory at scale (issue 21, item 5): a `BookManager` with 10,000 books of 20 levels a side,
//! its resident memory, and the cost of applying a `price_change` when consecutive messages
//! hit random books (the working set, ~16 MB of books plus the frames, no longer fits in the
//! caches) against the same messages confined to 8 books (hot in L1/L2), same run, same
//! frame shapes. The heap figures per book are bounded in `tests/memory_at_scale.rs`; this
//! bench asserts the apply cost (CI builds benches but does not run them).
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

use polyclob::book::BookManager;
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

fn main() {
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
