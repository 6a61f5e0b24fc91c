//! Memory at scale (issue 21, item 5), measured with the counting allocator's live heap bytes:
//! bytes per empty book, bytes per resting level, and a `BookManager` holding 10,000 books of 20
//! levels a side, fed through `BookManager::apply` with production-shaped `book` frames. Each
//! figure is bounded at twice what was measured (BENCHMARKS.md, "Memory at scale"), so a 2×
//! regression fails here. The apply cost once the books outgrow the caches is in
//! `benches/memory_scale.rs`.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use crate::support::ws_frames;

use std::time::Instant;

use polyclob::book::BookManager;
use polyclob::types::Side;
use ws_frames::Lcg;

use crate::support::counting_alloc::live;

const BOOKS: u64 = 10_000;
const DEPTH: u64 = 20;

/// Measured on 2026-11-24 (BENCHMARKS.md, "Memory at scale"); the bounds are twice these.
const EMPTY_BOOK_BYTES: i64 = 575;
const FULL_BOOK_BYTES: i64 = 1607;
const LEVEL_BYTES: i64 = 16;

#[test]
fn memory_at_scale() {
    let ids: Vec<String> = (0..BOOKS).map(ws_frames::asset_id).collect();
    let now = Instant::now();

    // Empty books: registered (as a subscription does), no snapshot yet.
    let base = live();
    let mut m = BookManager::new();
    for id in &ids {
        m.register(id);
    }
    let empty = live() - base;
    let per_empty = empty / BOOKS as i64;

    // Every book gets a 20-a-side snapshot through the production path.
    let mut rng = Lcg(21);
    for id in &ids {
        let frame = ws_frames::book(&mut rng, id, DEPTH);
        let s = m.apply(&frame, now);
        assert_eq!((s.applied, s.errors), (1, 0), "{frame}");
    }
    for id in ids.iter().step_by(997) {
        let b = m.book(id).unwrap();
        assert_eq!((b.len(Side::Buy), b.len(Side::Sell)), (20, 20));
    }
    let full = live() - base;
    let per_full = full / BOOKS as i64;

    // The marginal cost of a level: one book grown to 1,000 levels a side by deltas.
    let deep = ws_frames::asset_id(BOOKS + 1);
    m.apply(&ws_frames::book(&mut rng, &deep, 1), now);
    let before = live();
    for i in 0..1000u64 {
        let p = |t: u64| format!("0.{t:06}");
        let frame = format!(
            r#"{{"market":"0x00","price_changes":[{{"asset_id":"{deep}","price":"{}","size":"12.5","side":"BUY"}},{{"asset_id":"{deep}","price":"{}","size":"12.5","side":"SELL"}}],"timestamp":"1790658674035","event_type":"price_change"}}"#,
            p(1 + i),
            p(600_000 + i)
        );
        let s = m.apply(&frame, now);
        assert_eq!(s.applied, 1, "{frame}");
    }
    let b = m.book(&deep).unwrap();
    assert_eq!((b.len(Side::Buy), b.len(Side::Sell)), (1001, 1001));
    let per_level = (live() - before) / 2000;

    println!(
        "size_of::<Book>() = {} B, size_of::<Level>() = {} B",
        size_of::<polyclob::book::Book>(),
        size_of::<polyclob::decode::Level>()
    );
    println!(
        "empty book: {per_empty} B; book with {DEPTH} levels a side: {per_full} B \
         ({BOOKS} books: {:.1} MiB live heap); marginal level: {per_level} B",
        full as f64 / (1 << 20) as f64
    );
    assert!(
        per_empty <= 2 * EMPTY_BOOK_BYTES,
        "empty book: {per_empty} B"
    );
    assert!(per_full <= 2 * FULL_BOOK_BYTES, "full book: {per_full} B");
    assert!(per_level <= 2 * LEVEL_BYTES, "level: {per_level} B");
}
