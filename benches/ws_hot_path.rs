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
//! present (or under `POLYCLOB_FIXTURES`), the exact byte strings behind the nautilus_trader
//! adapter's published rows.
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

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, measurement::WallTime};
use polyclob::book::BookManager;
use polyclob::decode::{EventView, decode};
use polyclob::fixed::{Price, Size};
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
            EventView::Book(b) => {
                for l in b.bids.chain(b.asks) {
                    let l = l.unwrap();
                    acc += u64::from(l.price.as_micros()) + l.size.as_micros();
                }
            }
            EventView::PriceChange(pc) => {
                for c in pc.changes {
                    let c = c.unwrap();
                    acc += u64::from(c.price.as_micros()) + c.size.map_or(0, |s| s.as_micros());
                }
            }
            EventView::LastTradePrice(t) => acc += u64::from(t.price.as_micros()),
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

/// Every input: (group name, frame, kind, frames applied first).
fn inputs() -> Vec<(String, String, Kind, Vec<String>)> {
    let mut rng = Lcg(42);
    let asset = ws_frames::asset_id(1);
    let warm = vec![ws_frames::book(&mut rng, &asset, 16)];
    let mut out = Vec::new();
    for levels in [1, 5, 16, 64] {
        let frame = ws_frames::book(&mut rng, &asset, levels);
        println!("book_{levels}x{levels}: {} bytes", frame.len());
        out.push((format!("book_{levels}x{levels}"), frame, Kind::Book, vec![]));
    }
    for n in [1, 2, 5] {
        let frame = ws_frames::price_change(&mut rng, &asset, n);
        out.push((
            format!("price_change_x{n}"),
            frame,
            Kind::PriceChange,
            warm.clone(),
        ));
    }
    let frame = ws_frames::last_trade(&mut rng, &asset);
    out.push(("last_trade_price".into(), frame, Kind::Trade, vec![]));

    // The feed changing shape (issue 21, "no cliff"): each at most 1.2x its exact layout.
    let book16 = ws_frames::book(&mut Lcg(16), &asset, 16);
    let pc2 = ws_frames::price_change(&mut Lcg(2), &asset, 2);
    for (name, frame, kind, warm) in [
        ("book_16x16_exact", book16.clone(), Kind::Book, vec![]),
        (
            "book_16x16_rest_keys",
            rest_keys(&book16),
            Kind::Book,
            vec![],
        ),
        (
            "book_16x16_new_field",
            new_field(&book16),
            Kind::Book,
            vec![],
        ),
        (
            "book_16x16_reordered",
            reordered(&book16),
            Kind::Book,
            vec![],
        ),
        (
            "price_change_x2_exact",
            pc2.clone(),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            "price_change_x2_new_field",
            new_field(&pc2),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            "price_change_x2_entry_field",
            pc2.replace(
                r#""best_ask":"0.55"}"#,
                r#""best_ask":"0.55","fee_rate_bps":"0"}"#,
            ),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            // A field inside every entry, between two the reader expects.
            "price_change_x2_entry_field_mid",
            pc2.replace(r#","size":""#, r#","fee_rate_bps":"0","size":""#),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            // A field between two members of the message.
            "price_change_x2_field_between",
            pc2.replacen(
                r#"","price_changes":["#,
                r#"","neg_risk":false,"price_changes":["#,
                1,
            ),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            // A new object between two members of the message.
            "price_change_x2_object_between",
            pc2.replacen(
                r#"","price_changes":["#,
                r#"","fees":{"taker_bps":"0","tiers":[1,2.5]},"price_changes":["#,
                1,
            ),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            // A field after the last member of the message.
            "price_change_x2_field_last",
            format!(r#"{},"neg_risk":false}}"#, &pc2[..pc2.len() - 1]),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            "price_change_x2_reordered",
            reordered(&pc2),
            Kind::PriceChange,
            warm.clone(),
        ),
        (
            // Every entry's `side` before its `size`, as in the nautilus captures.
            "price_change_x2_entry_reordered",
            side_before_size(&pc2),
            Kind::PriceChange,
            warm.clone(),
        ),
    ] {
        out.push((name.into(), frame, kind, warm));
    }

    if let Some(dir) = fixtures::shared("polymarket/nautilus_bench_inline") {
        // The captures are pretty-printed; the exchange sends compact JSON.
        let read = |f: &str| compact(&std::fs::read_to_string(dir.join(f)).unwrap());
        let book = read("market_book.json");
        out.push((
            "nautilus_inline/market_book".into(),
            book.clone(),
            Kind::Book,
            vec![],
        ));
        // The price change refers to the asset of market_book.json: snapshot it first.
        let pc = read("market_price_change.json");
        out.push((
            "nautilus_inline/market_price_change_exact".into(),
            exchange_order(&pc),
            Kind::PriceChange,
            vec![book.clone()],
        ));
        out.push((
            "nautilus_inline/market_price_change".into(),
            pc,
            Kind::PriceChange,
            vec![book],
        ));
        let trade = read("market_last_trade.json");
        out.push((
            "nautilus_inline/market_last_trade".into(),
            trade,
            Kind::Trade,
            vec![],
        ));
        let order = read("http_open_order.json");
        out.push((
            "nautilus_inline/http_open_order".into(),
            order,
            Kind::Rest,
            vec![],
        ));
        let report = read("http_trade_report.json");
        out.push((
            "nautilus_inline/http_trade_report".into(),
            report,
            Kind::Rest,
            vec![],
        ));
    }
    out
}

/// `json` without the whitespace between tokens, key order kept.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_str, mut escaped) = (false, false);
    for ch in json.chars() {
        if in_str {
            out.push(ch);
            match (escaped, ch) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if !ch.is_whitespace() {
            in_str = ch == '"';
            out.push(ch);
        }
    }
    out
}

/// The top-level members of a compact object, in order.
fn members(obj: &str) -> Vec<&str> {
    let inner = &obj[1..obj.len() - 1];
    let (mut depth, mut in_str, mut escaped, mut start) = (0i32, false, false, 0);
    let mut out = Vec::new();
    for (i, b) in inner.bytes().enumerate() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out
}

/// The same members in reverse order.
fn reordered(obj: &str) -> String {
    let mut m = members(obj);
    m.reverse();
    format!("{{{}}}", m.join(","))
}

/// Every entry's `side` moved in front of its `size`.
fn side_before_size(pc: &str) -> String {
    let mut out = String::new();
    let mut rest = pc;
    while let Some(at) = rest.find(r#","size":""#) {
        let side = at + 1 + rest[at + 1..].find(r#","side":"#).unwrap();
        let end = side + 1 + rest[side + 1..].find(',').unwrap();
        out.push_str(&rest[..at]);
        out.push_str(&rest[side..end]);
        out.push_str(&rest[at..side]);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A `price_change` re-laid in the exchange's key order, values unchanged: the exact layout
/// a capture in another order is compared with.
fn exchange_order(pc: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(pc).unwrap();
    let s = |v: &serde_json::Value, k: &str| serde_json::to_string(&v[k]).unwrap();
    let entries: Vec<String> = v["price_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                r#"{{"asset_id":{},"price":{},"size":{},"side":{},"hash":{},"best_bid":{},"best_ask":{}}}"#,
                s(e, "asset_id"),
                s(e, "price"),
                s(e, "size"),
                s(e, "side"),
                s(e, "hash"),
                s(e, "best_bid"),
                s(e, "best_ask")
            )
        })
        .collect();
    format!(
        r#"{{"market":{},"price_changes":[{}],"timestamp":{},"event_type":"price_change"}}"#,
        s(&v, "market"),
        entries.join(","),
        s(&v, "timestamp")
    )
}

/// The REST book's two extra keys, as a feed that added them would send them.
fn rest_keys(book: &str) -> String {
    format!(
        r#"{},"min_order_size":"5","neg_risk":false}}"#,
        &book[..book.len() - 1]
    )
}

/// A new field (an object holding an array) in front of the known ones: the first member is
/// where the fast readers have learnt least. Every JSON type in every position is covered by
/// the decoder's tests.
fn new_field(obj: &str) -> String {
    format!(
        r#"{{"fees":{{"taker_bps":"0","tiers":[1,2.5]}},{}"#,
        &obj[1..]
    )
}

fn benches(c: &mut Criterion) {
    for (name, frame, kind, warm) in inputs() {
        group(c, &name, &frame, kind, &warm);
    }
}

/// The book's side structure: sorted `Vec` (best last) against the design card's default, a
/// `BTreeMap<Price, Size>` per side, on the same 1,000 production-shaped deltas (updates,
/// inserts and removals near the top of a 64-level book).
fn structure(c: &mut Criterion) {
    use std::collections::BTreeMap;

    use polyclob::book::Book;
    use polyclob::types::Side;

    let mut rng = Lcg(9);
    let ops: Vec<(Side, Price, Size)> = (0..1_000)
        .map(|_| {
            let buy = rng.below(2) == 0;
            let thousandths = if buy {
                430 + rng.below(24)
            } else {
                547 + rng.below(24)
            };
            let size = if rng.below(4) == 0 {
                0
            } else {
                1 + rng.below(5_000_000_000)
            };
            let side = if buy { Side::Buy } else { Side::Sell };
            (
                side,
                Price::new(thousandths as u32 * 1_000).unwrap(),
                Size::from_micros(size),
            )
        })
        .collect();
    let now = Instant::now();
    let mut books = BookManager::new();
    books.apply(&ws_frames::book(&mut rng, "s", 64), now);
    let mut book: Book = books.book("s").unwrap().clone();
    let mut bids: BTreeMap<Price, Size> =
        book.levels(Side::Buy).map(|l| (l.price, l.size)).collect();
    let mut asks: BTreeMap<Price, Size> =
        book.levels(Side::Sell).map(|l| (l.price, l.size)).collect();

    let run_vec = |book: &mut Book| {
        for &(side, price, size) in &ops {
            book.set_level(side, price, size, None, now);
        }
        (book.best_bid(), book.best_ask())
    };
    let run_tree = |bids: &mut BTreeMap<Price, Size>, asks: &mut BTreeMap<Price, Size>| {
        for &(side, price, size) in &ops {
            let map = if side == Side::Buy {
                &mut *bids
            } else {
                &mut *asks
            };
            if size.is_zero() {
                map.remove(&price);
            } else {
                map.insert(price, size);
            }
        }
        (
            bids.last_key_value().map(|(p, _)| *p),
            asks.first_key_value().map(|(p, _)| *p),
        )
    };
    // Same ops, same result.
    let (vb, va) = run_vec(&mut book);
    let (tb, ta) = run_tree(&mut bids, &mut asks);
    assert_eq!((vb.map(|l| l.price), va.map(|l| l.price)), (tb, ta));
    assert_eq!(book.len(Side::Buy), bids.len());

    let mut g = c.benchmark_group("book_structure_1000_deltas_64_levels");
    g.bench_function("sorted_vec_book", |b| {
        b.iter(|| run_vec(black_box(&mut book)))
    });
    g.bench_function("baseline_btreemap", |b| {
        b.iter(|| run_tree(black_box(&mut bids), black_box(&mut asks)))
    });
    g.finish();
}

criterion_group!(hot_path, benches, structure);

/// Instruction counting, for a machine too loaded for stable timings: with
/// `WS_HOT_PATH_COUNT=<group>:<row>:<iterations>` the binary runs one row that many times and
/// exits, so that `valgrind --tool=cachegrind` can count instructions (run it with two
/// iteration counts and divide the difference). Rows: `apply`, `decode`, `ignored_any`.
fn count_mode(spec: &str) {
    let mut parts = spec.split(':');
    let (Some(name), Some(row), Some(n)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("WS_HOT_PATH_COUNT=<group>:<row>:<iterations>");
    };
    let n: u32 = n.parse().unwrap();
    let (_, frame, _, warm) = inputs()
        .into_iter()
        .find(|i| i.0 == name)
        .expect("known group");
    let now = Instant::now();
    let mut books = BookManager::new();
    for w in &warm {
        books.apply(w, now);
    }
    for _ in 0..n {
        match row {
            "apply" => {
                black_box(books.apply(black_box(&frame), now));
            }
            "decode" => {
                black_box(decode_all(black_box(&frame)));
            }
            "ignored_any" => {
                black_box(
                    serde_json::from_str::<serde::de::IgnoredAny>(black_box(&frame)).unwrap(),
                );
            }
            other => panic!("unknown row {other}"),
        }
    }
}

fn main() {
    if let Ok(spec) = std::env::var("WS_HOT_PATH_COUNT") {
        count_mode(&spec);
        return;
    }
    hot_path();
    Criterion::default().configure_from_args().final_summary();
}
