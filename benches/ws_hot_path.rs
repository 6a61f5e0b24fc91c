//! The market-data hot path: decode a WebSocket frame and apply it to the books.
//!
//! Every group runs, on the same bytes in the same run:
//! - `polyclob_decode_apply`: `BookManager::apply` (decode + apply every event);
//! - `polyclob_decode`: `decode` alone, iterating every level/change (no book);
//! - `baseline_serde_ignored_any`: `serde_json` into `serde::de::IgnoredAny`, the cost of
//!   merely validating the JSON;
//! - `baseline_serde_typed`: `serde_json` into typed structs with `String` fields, then the
//!   prices and sizes parsed to fixed point (what a serde-based client does before a book).
//!
//! Inputs are production-shaped (compact, 77-digit ids, 40-hex hashes, string timestamps,
//! worst-first levels) plus, when `../shared/fixtures/polymarket/nautilus_bench_inline/` is
//! present, the exact byte strings behind the nautilus_trader adapter's published rows.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/support/ws_frames.rs"]
mod ws_frames;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use polyclob::book::BookManager;
use polyclob::fixed::{Price, Size};
use polyclob::ws::decode::{Event, decode};
use serde::Deserialize;
use ws_frames::Lcg;

#[derive(Deserialize)]
struct SLevel {
    price: String,
    size: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SBook {
    event_type: String,
    asset_id: String,
    market: String,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    hash: Option<String>,
    bids: Vec<SLevel>,
    asks: Vec<SLevel>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SChange {
    asset_id: String,
    price: String,
    #[serde(default)]
    size: Option<String>,
    side: String,
    #[serde(default)]
    hash: Option<String>,
    #[serde(default)]
    best_bid: Option<String>,
    #[serde(default)]
    best_ask: Option<String>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SPriceChange {
    event_type: String,
    market: String,
    price_changes: Vec<SChange>,
    #[serde(default)]
    timestamp: Option<String>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct STrade {
    event_type: String,
    asset_id: String,
    #[serde(default)]
    market: Option<String>,
    price: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    size: Option<String>,
    #[serde(default)]
    fee_rate_bps: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
}

fn typed_book(frame: &str) -> u64 {
    let b: SBook = serde_json::from_str(frame).unwrap();
    let mut acc = 0u64;
    for l in b.bids.iter().chain(&b.asks) {
        acc += u64::from(Price::parse(l.price.as_bytes()).unwrap().as_micros());
        acc += Size::parse(l.size.as_bytes()).unwrap().as_micros();
    }
    acc
}

fn typed_price_change(frame: &str) -> u64 {
    let m: SPriceChange = serde_json::from_str(frame).unwrap();
    let mut acc = 0u64;
    for c in &m.price_changes {
        acc += u64::from(Price::parse(c.price.as_bytes()).unwrap().as_micros());
        acc += c
            .size
            .as_ref()
            .map_or(0, |s| Size::parse(s.as_bytes()).unwrap().as_micros());
    }
    acc
}

fn typed_trade(frame: &str) -> u64 {
    let t: STrade = serde_json::from_str(frame).unwrap();
    u64::from(Price::parse(t.price.as_bytes()).unwrap().as_micros())
        + t.size
            .as_ref()
            .map_or(0, |s| Size::parse(s.as_bytes()).unwrap().as_micros())
}

/// Walks every event and every level/change; returns a checksum.
fn decode_all(frame: &str) -> u64 {
    let mut acc = 0u64;
    for e in decode(frame) {
        match e.unwrap() {
            Event::Book(b) => {
                for l in b.bids.chain(b.asks) {
                    acc += l.unwrap().size.as_micros();
                }
            }
            Event::PriceChange(pc) => {
                for c in pc.changes {
                    acc += c.unwrap().size.map_or(0, |s| s.as_micros());
                }
            }
            Event::LastTradePrice(t) => acc += u64::from(t.price.as_micros()),
            other => acc += other.json().len() as u64,
        }
    }
    acc
}

#[derive(Clone, Copy)]
enum Kind {
    Book,
    PriceChange,
    Trade,
    /// A REST row: no typed WS event; our decoder only walks it.
    Rest,
}

fn group(c: &mut Criterion, name: &str, frame: &str, kind: Kind, warm: &[String]) {
    let mut g: BenchmarkGroup<'_, WallTime> = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(frame.len() as u64));
    let now = Instant::now();

    // Check each row's result once before timing it.
    let mut books = BookManager::new();
    for w in warm {
        books.apply(w, now);
    }
    let s = books.apply(frame, now);
    assert_eq!(s.errors, 0, "{name}: {:?}", s.first_error);
    if !matches!(kind, Kind::Rest) {
        assert!(s.applied >= 1, "{name}: nothing applied");
    }
    g.bench_function("polyclob_decode_apply", |b| {
        b.iter(|| books.apply(black_box(frame), now))
    });
    assert!(decode_all(frame) > 0);
    g.bench_function("polyclob_decode", |b| {
        b.iter(|| decode_all(black_box(frame)))
    });
    serde_json::from_str::<serde::de::IgnoredAny>(frame).unwrap();
    g.bench_function("baseline_serde_ignored_any", |b| {
        b.iter(|| serde_json::from_str::<serde::de::IgnoredAny>(black_box(frame)).unwrap())
    });
    let typed: Option<fn(&str) -> u64> = match kind {
        Kind::Book => Some(typed_book),
        Kind::PriceChange => Some(typed_price_change),
        Kind::Trade => Some(typed_trade),
        Kind::Rest => None,
    };
    if let Some(typed) = typed {
        assert!(typed(frame) > 0);
        g.bench_function("baseline_serde_typed", |b| {
            b.iter(|| typed(black_box(frame)))
        });
    }
    g.finish();
}

fn nautilus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/polymarket/nautilus_bench_inline");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "SKIP: {} not found; nautilus_inline rows skipped",
            dir.display()
        );
        None
    }
}

fn benches(c: &mut Criterion) {
    let mut rng = Lcg(42);
    let asset = ws_frames::asset_id(1);
    let warm = vec![ws_frames::book(&mut rng, &asset, 16)];

    for levels in [1, 5, 16, 64] {
        let frame = ws_frames::book(&mut rng, &asset, levels);
        println!("book_{levels}x{levels}: {} bytes", frame.len());
        group(
            c,
            &format!("book_{levels}x{levels}"),
            &frame,
            Kind::Book,
            &[],
        );
    }
    for n in [1, 2, 5] {
        let frame = ws_frames::price_change(&mut rng, &asset, n);
        group(
            c,
            &format!("price_change_x{n}"),
            &frame,
            Kind::PriceChange,
            &warm,
        );
    }
    let frame = ws_frames::last_trade(&mut rng, &asset);
    group(c, "last_trade_price", &frame, Kind::Trade, &[]);

    if let Some(dir) = nautilus_dir() {
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        let book = read("market_book.json");
        assert_eq!(book.len(), 801);
        group(c, "nautilus_inline/market_book", &book, Kind::Book, &[]);
        // The price change refers to the asset of market_book.json: snapshot it first.
        group(
            c,
            "nautilus_inline/market_price_change",
            &read("market_price_change.json"),
            Kind::PriceChange,
            &[book],
        );
        group(
            c,
            "nautilus_inline/market_last_trade",
            &read("market_last_trade.json"),
            Kind::Trade,
            &[],
        );
        group(
            c,
            "nautilus_inline/http_open_order",
            &read("http_open_order.json"),
            Kind::Rest,
            &[],
        );
        group(
            c,
            "nautilus_inline/http_trade_report",
            &read("http_trade_report.json"),
            Kind::Rest,
            &[],
        );
    }
}

criterion_group!(hot_path, benches);
criterion_main!(hot_path);
