//! Zero allocation on the market-data hot path, proved with a counting global allocator:
//! after warm-up, decoding and applying ≥ 100,000 mixed messages and querying the books make
//! no heap allocation at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use crate::support::counting_alloc;
use crate::support::ws_frames;

use std::time::{Duration, Instant};

use polyclob::book::{BookManager, WalkAmount};
use polyclob::decode::{EventView, decode};
use polyclob::fixed::Size;
use polyclob::types::Side;
use ws_frames::Lcg;

/// A mixed stream: books at 1/16/64 levels per side, price changes with 1–5 entries, trades,
/// tick-size changes (followed by fresh snapshots), best bid/ask, and array frames.
fn frames() -> (Vec<String>, Vec<String>) {
    let mut rng = Lcg(7);
    let assets: Vec<String> = (0..6).map(ws_frames::asset_id).collect();
    let depth = [1, 16, 64, 16, 64, 1];
    let mut out = Vec::new();
    for (a, &d) in assets.iter().zip(&depth) {
        out.push(ws_frames::book(&mut rng, a, d));
    }
    for round in 0..40 {
        for (i, a) in assets.iter().enumerate() {
            out.push(ws_frames::price_change(&mut rng, a, 1 + (round + i) % 5));
            if round % 3 == 0 {
                out.push(ws_frames::last_trade(&mut rng, a));
            }
            if round % 4 == 1 {
                out.push(ws_frames::best_bid_ask(&mut rng, a));
            }
        }
        if round % 10 == 5 {
            // Tick change, ignored deltas, then a fresh snapshot.
            let a = &assets[round % assets.len()];
            out.push(ws_frames::tick_size_change(&mut rng, a));
            out.push(ws_frames::price_change(&mut rng, a, 2));
            out.push(ws_frames::book(&mut rng, a, depth[round % assets.len()]));
        }
        if round % 5 == 2 {
            // An array frame, like the initial dump.
            let items = [
                ws_frames::book(&mut rng, &assets[1], 16),
                ws_frames::price_change(&mut rng, &assets[1], 3),
                ws_frames::last_trade(&mut rng, &assets[1]),
            ];
            out.push(format!("[{}]", items.join(",")));
        }
        // Re-snapshot a book every round so depths stay production-like.
        let a = (round * 5) % assets.len();
        out.push(ws_frames::book(&mut rng, &assets[a], depth[a]));
    }
    (out, assets)
}

fn elements(frames: &[String]) -> usize {
    frames.iter().map(|f| decode(f).count()).sum()
}

#[test]
fn replay_makes_no_allocation_after_warm_up() {
    let (frames, assets) = frames();
    let per_pass = elements(&frames);
    let passes = 100_000usize.div_ceil(per_pass) + 1;
    let mut books = BookManager::new();
    let t0 = Instant::now();
    // Warm-up: registers every asset and grows every buffer to its largest size.
    for f in &frames {
        books.apply(f, t0);
    }
    let mut applied = 0u64;
    let mut errors = 0u64;
    let ((), allocations) = counting_alloc::count(|| {
        for pass in 0..passes {
            let now = t0 + Duration::from_millis(pass as u64);
            for f in &frames {
                let s = books.apply(f, now);
                applied += u64::from(s.applied);
                errors += u64::from(s.errors);
            }
        }
    });
    let messages = per_pass * passes;
    println!(
        "{messages} messages in {passes} passes, {applied} applied, {allocations} allocations"
    );
    assert!(messages >= 100_000);
    assert_eq!(errors, 0);
    assert!(applied as usize > messages * 9 / 10, "{applied}");
    assert_eq!(
        allocations, 0,
        "allocations during replay of {messages} messages"
    );

    // The same holds with a callback that reads the borrowed views and the books.
    let mut seen = 0u64;
    let ((), allocations) = counting_alloc::count(|| {
        for f in &frames {
            books.apply_with(f, t0, |u| {
                if let Ok(EventView::Book(b)) = &u.event {
                    seen += u
                        .manager
                        .book(b.asset_id)
                        .map_or(0, |b| b.len(Side::Buy) as u64);
                }
            });
        }
    });
    assert!(seen > 0);
    assert_eq!(allocations, 0);

    // Queries.
    let later = t0 + Duration::from_secs(1);
    let mut acc = 0u64;
    let ((), allocations) = counting_alloc::count(|| {
        for _ in 0..1_000 {
            for id in &assets {
                let b = books.book(id).expect("registered");
                acc += u64::from(b.best_bid().is_some()) + u64::from(b.best_ask().is_some());
                acc += b.spread_micros().unwrap_or(0).unsigned_abs();
                acc += b.mid().map_or(0, |p| u64::from(p.as_micros()));
                acc += b
                    .depth(Side::Buy, 10)
                    .map(|l| l.size.as_micros())
                    .sum::<u64>();
                acc += b
                    .size_up_to(Side::Sell, "0.56".parse().unwrap())
                    .as_micros();
                let fill = b.walk(Side::Buy, WalkAmount::Pusd(Size::from_micros(250_000_000)));
                acc += fill.shares.as_micros() + fill.levels as u64;
                acc += b
                    .market_price(Side::Sell, WalkAmount::Shares(Size::ONE))
                    .map_or(0, |p| u64::from(p.as_micros()));
                acc +=
                    b.top_state() as u64 + u64::from(b.is_stale(later, Duration::from_millis(500)));
                acc += b.age(later).map_or(0, |d| d.as_millis() as u64);
            }
        }
    });
    assert!(acc > 0);
    assert_eq!(allocations, 0, "allocations during queries");
}

#[test]
fn decode_only_makes_no_allocation() {
    let (frames, _) = frames();
    let mut levels = 0u64;
    let ((), allocations) = counting_alloc::count(|| {
        for _ in 0..20 {
            for f in &frames {
                for e in decode(f) {
                    match e.expect("valid") {
                        EventView::Book(b) => {
                            levels += b.bids.chain(b.asks).filter(Result::is_ok).count() as u64
                        }
                        EventView::PriceChange(pc) => {
                            levels += pc.changes.filter(Result::is_ok).count() as u64
                        }
                        _ => {}
                    }
                }
            }
        }
    });
    assert!(levels > 10_000);
    assert_eq!(allocations, 0);
}
