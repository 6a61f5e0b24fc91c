//! What book-hash verification (`book::integrity`) adds to applying a `book` snapshot.
//!
//! Rows, on the same bytes in the same run:
//! - `apply_unverified`: `BookManager::apply` of the snapshot, no `BookMeta` for the asset
//!   (the check is skipped: what every frame costs without verification);
//! - `apply_verified`: the same with the asset's `BookMeta` registered, so the hash is
//!   recomputed and compared (the result is checked to be `Verified`);
//! - `book_hash_only`: `book_hash` into a reused scratch buffer, split into
//!   `write_input_only` (the compact hash input) and `sha1_only` (SHA-1 of that input);
//! - `baseline_serde_ignored_any`: `serde_json` into `IgnoredAny` (merely validating).
//!
//! Inputs: the captured snapshot (`../shared/fixtures/.../ws_book_snapshot_captured.json`,
//! 7 bids + 58 asks, compacted) when present, and a generated 64 + 64-level snapshot.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/support/fixtures.rs"]
mod fixtures;
#[path = "../tests/support/ws_frames.rs"]
mod ws_frames;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use polyclob::book::integrity::write_hash_input;
use polyclob::book::{BookManager, BookMeta, HashStatus, book_hash};
use polyclob::fixed::Size;

fn meta() -> BookMeta {
    BookMeta::new(Size::parse(b"5").unwrap(), false)
}

/// `frame` with its `hash` value replaced by the right one for `meta()`.
fn with_true_hash(frame: &str) -> String {
    let at = frame.find(r#""hash":""#).unwrap() + 8;
    let end = at + frame[at..].find('"').unwrap();
    let h = book_hash(frame, meta(), &mut Vec::new())
        .unwrap()
        .to_string();
    format!("{}{h}{}", &frame[..at], &frame[end..])
}

fn inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(bytes) =
        fixtures::read_shared("polymarket/nautilus_test_data/ws_book_snapshot_captured.json")
    {
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        out.push(("captured_7x58".to_owned(), v.to_string()));
    }
    let mut rng = ws_frames::Lcg(3);
    let asset = ws_frames::asset_id(1);
    out.push((
        "generated_64x64".to_owned(),
        with_true_hash(&ws_frames::book(&mut rng, &asset, 64)),
    ));
    out
}

fn asset_of(frame: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(frame).unwrap();
    v["asset_id"].as_str().unwrap().to_owned()
}

/// `BOOK_HASH_COUNT=<input>:<row>:<n>`: run one row `n` times and exit, for load-independent
/// instruction counts (`perf stat -e instructions:u`, minus a run with `n = 0`).
fn count_mode(spec: &str) {
    let mut parts = spec.split(':');
    let (input, row, n) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap().parse::<u64>().unwrap(),
    );
    let (_, frame) = inputs()
        .into_iter()
        .find(|(name, _)| name == input)
        .unwrap();
    let asset = asset_of(&frame);
    let now = Instant::now();
    let mut books = BookManager::new();
    if row == "apply_verified" {
        books.set_book_meta(&asset, meta());
    }
    books.apply(&frame, now);
    let mut scratch = Vec::with_capacity(frame.len());
    for _ in 0..n {
        match row {
            "apply_unverified" | "apply_verified" => {
                black_box(books.apply(black_box(&frame), now));
            }
            "book_hash_only" => {
                black_box(book_hash(black_box(&frame), meta(), &mut scratch).unwrap());
            }
            "write_input_only" => {
                write_hash_input(black_box(&frame), meta(), &mut scratch).unwrap();
                black_box(scratch.len());
            }
            "baseline_serde_ignored_any" => {
                black_box(
                    serde_json::from_str::<serde::de::IgnoredAny>(black_box(&frame)).unwrap(),
                );
            }
            other => panic!("unknown row {other}"),
        }
    }
}

fn main() {
    if let Ok(spec) = std::env::var("BOOK_HASH_COUNT") {
        count_mode(&spec);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    for (name, frame) in inputs() {
        let asset = asset_of(&frame);
        let now = Instant::now();
        let mut g = c.benchmark_group(format!("book_hash/{name}"));
        g.throughput(Throughput::Bytes(frame.len() as u64));

        let mut plain = BookManager::new();
        plain.apply(&frame, now);
        assert_eq!(plain.hash_status(&asset), Some(HashStatus::Unchecked));
        g.bench_function("apply_unverified", |b| {
            b.iter(|| black_box(plain.apply(black_box(&frame), now)));
        });

        let mut verifying = BookManager::new();
        verifying.set_book_meta(&asset, meta());
        verifying.apply(&frame, now);
        assert_eq!(verifying.hash_status(&asset), Some(HashStatus::Verified));
        g.bench_function("apply_verified", |b| {
            b.iter(|| black_box(verifying.apply(black_box(&frame), now)));
        });
        assert_eq!(verifying.hash_status(&asset), Some(HashStatus::Verified));

        let mut scratch = Vec::with_capacity(frame.len());
        g.bench_function("book_hash_only", |b| {
            b.iter(|| black_box(book_hash(black_box(&frame), meta(), &mut scratch).unwrap()));
        });
        g.bench_function("write_input_only", |b| {
            b.iter(|| {
                write_hash_input(black_box(&frame), meta(), &mut scratch).unwrap();
                black_box(scratch.len())
            });
        });
        write_hash_input(&frame, meta(), &mut scratch).unwrap();
        let input = scratch.clone();
        g.bench_function("sha1_only", |b| {
            b.iter(|| black_box(<sha1::Sha1 as sha1::Digest>::digest(black_box(&input))));
        });
        g.bench_function("baseline_serde_ignored_any", |b| {
            b.iter(|| {
                black_box(serde_json::from_str::<serde::de::IgnoredAny>(black_box(&frame)).unwrap())
            });
        });
        g.finish();
    }
    c.final_summary();
}
