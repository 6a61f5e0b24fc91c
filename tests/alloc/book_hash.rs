//! Book-hash verification keeps the market-data path allocation-free: after warm-up,
//! applying verified, mismatching and unverified snapshots (with deltas between them)
//! allocates nothing, proved with a counting global allocator.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::counting_alloc;
use crate::support::ws_frames;

use std::time::Instant;

use polyclob::book::{BookManager, BookMeta, HashStatus, book_hash};
use polyclob::fixed::Size;
use ws_frames::Lcg;

/// `frame` with its `hash` value replaced by the right one for `meta`.
fn with_true_hash(frame: &str, meta: BookMeta) -> String {
    let at = frame.find(r#""hash":""#).unwrap() + 8;
    let end = at + frame[at..].find('"').unwrap();
    let h = book_hash(frame, meta, &mut Vec::new()).unwrap().to_string();
    format!("{}{h}{}", &frame[..at], &frame[end..])
}

#[test]
fn verifying_snapshots_allocates_nothing_after_warm_up() {
    let meta = BookMeta::new(Size::parse(b"5").unwrap(), false);
    let mut rng = Lcg(11);
    let assets: Vec<String> = (0..4).map(ws_frames::asset_id).collect();
    let mut frames = Vec::new();
    for round in 0..50u64 {
        for (i, a) in assets.iter().enumerate() {
            let depth = [1, 16, 64, 200][i];
            let book = ws_frames::book(&mut rng, a, depth);
            // Asset 3 has no metadata (unchecked); every 7th snapshot of the others is corrupt
            // (its random hash is kept).
            if i == 3 || (round + i as u64) % 7 == 0 {
                frames.push(book);
            } else {
                frames.push(with_true_hash(&book, meta));
            }
            frames.push(ws_frames::price_change(&mut rng, a, 3));
        }
    }
    let mut m = BookManager::new();
    for a in &assets[..3] {
        m.set_book_meta(a, meta);
    }
    let now = Instant::now();
    // Warm-up: every asset, every depth, every buffer at its largest.
    for f in &frames {
        m.apply(f, now);
    }
    let before = counting_alloc::allocations();
    let mut mismatches = 0u32;
    let mut applied = 0u32;
    for _ in 0..20 {
        for f in &frames {
            let s = m.apply(f, now);
            mismatches += s.hash_mismatches;
            applied += s.applied;
        }
    }
    let allocs = counting_alloc::allocations() - before;
    assert_eq!(allocs, 0, "allocations while verifying hashes");
    assert!(mismatches > 0 && applied > 0, "{mismatches} {applied}");
    // The statuses are what the frames say.
    assert_eq!(m.hash_status(&assets[3]), Some(HashStatus::Unchecked));
    assert!(
        assets[..3]
            .iter()
            .all(|a| m.hash_status(a) != Some(HashStatus::Unchecked))
    );
}
