//! Any sequence of frames (split on 0xFF) applied to a book manager: no panic, and after every
//! frame every book keeps its invariants (sides strictly ordered best-last, no empty levels,
//! O(1) best equal to the first level, `len` equal to the levels listed, walks consistent).
#![no_main]

use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use polyclob::book::{BookManager, WalkAmount};
use polyclob::fixed::Size;
use polyclob::types::Side;

fuzz_target!(|data: &[u8]| {
    let mut books = BookManager::new();
    let now = Instant::now();
    for frame in data.split(|&b| b == 0xFF) {
        let Ok(frame) = std::str::from_utf8(frame) else { continue };
        let summary = books.apply(frame, now);
        assert!(summary.applied + summary.ignored + summary.errors <= summary.events);
        for b in books.books() {
            for side in [Side::Buy, Side::Sell] {
                let levels: Vec<_> = b.levels(side).collect();
                assert!(levels.iter().all(|l| !l.size.is_zero()));
                assert_eq!(b.len(side), levels.len());
                assert!(levels.windows(2).all(|w| match side {
                    Side::Buy => w[0].price > w[1].price,
                    Side::Sell => w[0].price < w[1].price,
                }));
                let best = match side {
                    Side::Buy => b.best_bid(),
                    Side::Sell => b.best_ask(),
                };
                assert_eq!(best, levels.first().copied());
                let total = levels.iter().fold(0u128, |a, l| a + u128::from(l.size.as_micros()));
                let fill = b.walk(side.opposite(), WalkAmount::Shares(Size::MAX));
                assert_eq!(u128::from(fill.shares.as_micros()), total.min(u128::from(u64::MAX)));
            }
            let _ = (b.top_state(), b.mid(), b.spread_micros(), b.to_snapshot());
        }
    }
});
