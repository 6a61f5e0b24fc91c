//! Decoder and book manager against our own fixtures (written from the documented message
//! formats, tests/data/ws/) and, when present, the real captures in ../shared/fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use crate::support::fixtures;

use std::time::{Duration, Instant};

use polyclob::book::{BookManager, BookState, Outcome, TopState, WalkAmount};
use polyclob::decode::{DecodeErrorKind, EventView, decode, decode_bytes};
use polyclob::fixed::{Price, Size};
use polyclob::types::{OrderType, Side, TickSize};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/ws/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn p(s: &str) -> Price {
    s.parse().unwrap()
}

fn sz(s: &str) -> Size {
    s.parse().unwrap()
}

fn one(frame: &str) -> EventView<'_> {
    let mut it = decode(frame);
    let e = it.next().expect("one event").expect("decodes");
    assert!(it.next().is_none(), "exactly one event");
    e
}

#[test]
fn book_docs_shape_with_leading_dot_prices() {
    let f = data("book_docs_shape.json");
    let EventView::Book(b) = one(&f) else {
        panic!()
    };
    assert_eq!(b.asset_id.len(), 77);
    assert_eq!(b.timestamp_ms, Some(123_456_789_000));
    assert_eq!(b.hash, Some("0x0000000000000000000000000000000000000000"));
    let bids: Vec<_> = b.bids.map(Result::unwrap).collect();
    assert_eq!(
        bids.iter().map(|l| l.price).collect::<Vec<_>>(),
        [p("0.48"), p("0.49"), p("0.5")]
    );
    let asks: Vec<_> = b.asks.map(Result::unwrap).collect();
    assert_eq!(asks[0].size, sz("25"));
}

#[test]
fn event_type_last_and_pretty_printed() {
    let f = data("book_event_type_last.json");
    let EventView::Book(b) = one(&f) else {
        panic!()
    };
    assert_eq!(b.tick_size, Some(TickSize::Hundredth));
    assert_eq!(b.last_trade_price, Some(p("0.3")));
    let bids: Vec<_> = b.bids.map(Result::unwrap).collect();
    // Full 6-decimal precision survives (peers quantise to 4 decimals).
    assert_eq!(bids[0].size.as_micros(), 1_000_123_456);
    let mut m = BookManager::new();
    m.apply(&f, Instant::now());
    let book = m.book_unchecked(b.asset_id).unwrap();
    // Levels arrive worst-first: the best are the last elements.
    assert_eq!(book.best_bid().unwrap().price, p("0.3"));
    assert_eq!(book.best_ask().unwrap().price, p("0.31"));
    assert_eq!(book.best_ask().unwrap().size, Size::from_micros(1));
    assert_eq!(book.tick_size(), Some(TickSize::Hundredth));
}

/// Books whose levels mix the exchange's compact layout, the one-space layout of
/// pretty-printers and others (newlines, long values, escapes, bad values): the manager (which
/// reads each array with the straight-line readers first) keeps exactly the levels that the
/// lazy iterator (the general reader) yields, or rejects the book when the iterator meets an
/// error.
#[test]
fn level_layouts_mixed_in_one_array() {
    let layouts = [
        r#"{"price":"P","size":"S"}"#,
        r#"{"price": "P", "size": "S"}"#,
        "{\n  \"price\": \"P\",\n  \"size\": \"S\"\n}",
        r#"{"size": "S", "price": "P"}"#,
    ];
    let prices = [
        "0.01", "0.2", ".35", "0.4999", "0.5", "0.61", "0.7", "0.999",
    ];
    let sizes = ["1", "20.5", "300.25", "12345678.5", "0", "1e3", "5\\u0030"];
    let mut seed = 3u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    for round in 0..2_000 {
        let side = |next: &mut dyn FnMut(usize) -> usize| {
            let n = next(6);
            let first = if round % 2 == 0 {
                1
            } else {
                next(layouts.len())
            };
            // Distinct prices: a duplicate would reject the book for another reason.
            let start = next(prices.len());
            (0..n)
                .map(|i| {
                    let layout = if i == 0 { first } else { next(layouts.len()) };
                    let size = sizes[next(sizes.len())];
                    let size = if next(4) == 0 { size } else { "7.5" };
                    layouts[layout]
                        .replace('P', prices[(start + i) % prices.len()])
                        .replace('S', size)
                })
                .collect::<Vec<_>>()
                .join(if next(2) == 0 { "," } else { ",\n    " })
        };
        let frame = format!(
            r#"{{"event_type": "book", "asset_id": "9", "market": "m", "bids": [{}], "asks": [{}]}}"#,
            side(&mut next),
            side(&mut next)
        );
        let Some(Ok(EventView::Book(b))) = decode(&frame).next() else {
            panic!("{frame}")
        };
        let lazy = |levels: polyclob::decode::Levels<'_>| -> Result<Vec<(Price, Size)>, _> {
            let mut out: Vec<(Price, Size)> = Vec::new();
            for l in levels {
                let l = l?;
                if !l.size.is_zero() {
                    out.push((l.price, l.size));
                }
            }
            Ok::<_, polyclob::decode::DecodeError>(out)
        };
        let mut m = BookManager::new();
        let summary = m.apply(&frame, Instant::now());
        match (lazy(b.bids), lazy(b.asks)) {
            (Ok(mut bids), Ok(mut asks)) => {
                assert_eq!(summary.errors, 0, "{frame}");
                let book = m.book_unchecked("9").unwrap();
                bids.sort_by_key(|l| std::cmp::Reverse(l.0));
                asks.sort_by_key(|l| l.0);
                let got = |side| -> Vec<(Price, Size)> {
                    book.levels(side).map(|l| (l.price, l.size)).collect()
                };
                assert_eq!(got(Side::Buy), bids, "{frame}");
                assert_eq!(got(Side::Sell), asks, "{frame}");
            }
            _ => assert_eq!(summary.errors, 1, "{frame}"),
        }
    }
}

#[test]
fn price_change_full_and_with_optional_fields_missing() {
    let f = data("price_change_full.json");
    let EventView::PriceChange(pc) = one(&f) else {
        panic!()
    };
    assert_eq!(pc.timestamp_ms, Some(1_757_908_892_351));
    let ch: Vec<_> = pc.changes.map(Result::unwrap).collect();
    assert_eq!(ch.len(), 2);
    assert_eq!(
        (ch[0].side, ch[0].size, ch[0].best_ask),
        (Side::Buy, Some(sz("200")), Some(Price::ONE))
    );
    assert_eq!(ch[1].best_bid, Some(Price::ZERO));

    let f = data("price_change_optional_missing.json");
    let EventView::PriceChange(pc) = one(&f) else {
        panic!()
    };
    let ch: Vec<_> = pc.changes.map(Result::unwrap).collect();
    assert_eq!(
        (ch[0].asset_id, ch[0].size, ch[0].hash),
        ("asset_a", None, Some("abc"))
    );
    assert_eq!(
        (ch[1].size, ch[1].hash, ch[1].best_bid, ch[1].best_ask),
        (Some(sz("5")), None, None, None)
    );
}

#[test]
fn the_other_market_events() {
    let f = data("tick_size_change.json");
    let EventView::TickSizeChange(t) = one(&f) else {
        panic!()
    };
    assert_eq!(
        (t.old_tick_size, t.new_tick_size),
        (Some(TickSize::Hundredth), TickSize::Thousandth)
    );

    let f = data("last_trade_price.json");
    let EventView::LastTradePrice(t) = one(&f) else {
        panic!()
    };
    assert_eq!(
        (t.price, t.side, t.size, t.fee_rate_bps),
        (p("0.456"), Some(Side::Buy), Some(sz("219.217767")), Some(0))
    );

    let f = data("best_bid_ask.json");
    let EventView::BestBidAsk(q) = one(&f) else {
        panic!()
    };
    assert_eq!(
        (q.best_bid, q.best_ask, q.spread),
        (Some(p("0.73")), Some(p("0.77")), Some(p("0.04")))
    );

    let f = data("new_market.json");
    let EventView::NewMarket(m) = one(&f) else {
        panic!()
    };
    assert_eq!(m.id, Some("1031769"));
    assert_eq!(
        m.question.unwrap().to_unescaped().unwrap(),
        "Will \"NVDA\" close above $190 \u{2014} on Friday?"
    );
    assert_eq!(
        m.description.unwrap().to_unescaped().unwrap(),
        "Resolves \"Yes\" if\nNVDA closes above $190."
    );
    assert_eq!(m.assets_ids.count(), 2);
    assert_eq!(
        m.outcomes
            .map(|o| o.unwrap().as_str().unwrap())
            .collect::<Vec<_>>(),
        ["Yes", "No"]
    );
    assert!(m.event_message.unwrap().starts_with("{\"id\":\"125819\""));

    let f = data("market_resolved.json");
    let EventView::MarketResolved(m) = one(&f) else {
        panic!()
    };
    assert_eq!(m.winning_asset_id.map(str::len), Some(77));
    assert_eq!(m.winning_outcome.unwrap(), "Yes");
    assert!(m.question.is_none());
}

#[test]
fn user_channel_order_and_trade() {
    let f = data("user_order_fok_killed.json");
    let EventView::Order(o) = one(&f) else {
        panic!()
    };
    assert_eq!(
        (o.side, o.price, o.original_size, o.size_matched),
        (Side::Sell, p("0.41"), Some(sz("7.5")), None)
    );
    assert_eq!(
        (o.kind, o.order_type, o.expiration),
        (Some("CANCELLATION"), Some(OrderType::Fok), Some(0))
    );
    assert!(o.is_canceled());
    assert!(
        o.cancel_reason()
            .unwrap()
            .raw()
            .starts_with("order couldn't be fully filled")
    );
    assert_eq!(o.outcome.unwrap().raw(), "");
    assert_eq!(o.associate_trades.count(), 0);

    let f = data("user_trade.json");
    let EventView::Trade(t) = one(&f) else {
        panic!()
    };
    assert_eq!((t.size, t.price, t.side), (sz("10"), p("0.57"), Side::Buy));
    let legs: Vec<_> = t.maker_orders.map(Result::unwrap).collect();
    assert_eq!(legs.len(), 1);
    assert_eq!(
        (legs[0].matched_amount, legs[0].price),
        (sz("10"), p("0.57"))
    );

    // Only `type` present: still recognised.
    let untagged = f.replace("\"event_type\":\"trade\",", "");
    assert!(matches!(one(&untagged), EventView::Trade(_)));
}

#[test]
fn batch_errors_are_per_element() {
    let f = data("batch_mixed.json");
    let got: Vec<_> = decode(&f).collect();
    assert_eq!(got.len(), 6);
    assert!(matches!(got[0], Ok(EventView::Book(_))));
    assert!(matches!(
        got[1],
        Ok(EventView::Unknown {
            event_type: "settlement_preview",
            ..
        })
    ));
    let e = got[2].as_ref().unwrap_err();
    assert_eq!(e.field(), "price");
    assert!(matches!(e.kind(), DecodeErrorKind::Decimal(_)));
    assert_eq!(&f[e.offset()..e.offset() + 3], "not");
    assert_eq!(
        got[3].as_ref().unwrap_err().kind(),
        DecodeErrorKind::WrongType
    );
    assert!(matches!(got[4], Ok(EventView::PriceChange(_))));
    let Ok(EventView::LastTradePrice(t)) = &got[5] else {
        panic!()
    };
    assert_eq!(t.transaction_hash, Some("0xabc"));

    let mut m = BookManager::new();
    let s = m.apply(&f, Instant::now());
    assert_eq!((s.events, s.applied, s.errors), (6, 3, 2));
    let book = m.book_unchecked("101").unwrap();
    assert_eq!(book.best_bid().unwrap().price, p("0.45")); // delta applied after the bad elements
    assert_eq!(book.last_trade().unwrap().side, Some(Side::Sell));
}

#[test]
fn control_frames_and_structural_errors() {
    assert!(matches!(one("PONG"), EventView::Pong));
    assert!(matches!(one("NO NEW ASSETS"), EventView::NoNewAssets));
    assert!(matches!(one(" \r\nPONG\n"), EventView::Pong));
    assert_eq!(decode("[]").count(), 0);
    for bad in [
        "",
        "P0NG",
        "{",
        "[{\"a\":1}",
        "{\"a\":1}}",
        "[{\"a\":1} {\"b\":2}]",
        "{\"a\":\"\\\"}",
    ] {
        let r: Vec<_> = decode(bad).collect();
        assert!(r.iter().any(Result::is_err), "{bad:?} → {r:?}");
        assert!(r.len() <= 2);
    }
    // Structural damage ends the frame after the elements before it.
    let r: Vec<_> =
        decode(r#"[{"event_type":"a"},{"event_type":"b" "x"},{"event_type":"c"}]"#).collect();
    assert_eq!(r.len(), 2);
    assert!(r[0].is_ok() && r[1].as_ref().unwrap_err().kind().is_structural());
    assert_eq!(
        decode_bytes(b"[\"\xc3\"]").unwrap_err().kind(),
        DecodeErrorKind::Utf8
    );
}

/// A frame that is one object must end there: whitespace may follow, anything else is a
/// syntax error at the stray text, on the compact `price_change` reader and on the general
/// one alike. An error inside the object is reported first.
#[test]
fn text_after_a_single_object() {
    let pc = concat!(
        r#"{"market":"0x1","price_changes":[{"asset_id":"7","price":"0.5","size":"1","#,
        r#""side":"BUY","hash":"ab","best_bid":"0.5","best_ask":"0.6"}],"#,
        r#""timestamp":"1","event_type":"price_change"}"#
    );
    let book = r#"{"event_type":"book","asset_id":"7","market":"m","bids":[],"asks":[]}"#;
    let bad_price = r#"{"event_type":"last_trade_price","asset_id":"7","market":"m","price":"x"}"#;
    for object in [pc, book] {
        let ok = format!("{object} \r\n");
        assert!(
            matches!(decode(&ok).collect::<Vec<_>>()[..], [Ok(_)]),
            "{ok}"
        );
        let bad = format!("{object} x");
        let r: Vec<_> = decode(&bad).collect();
        assert_eq!(r.len(), 1, "{bad}");
        let e = r[0].as_ref().unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (DecodeErrorKind::Syntax, object.len() + 1)
        );
    }
    let frame = format!("{bad_price} x");
    let r: Vec<_> = decode(&frame).collect();
    let e = r[0].as_ref().unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Decimal(_)), "{e:?}");
    assert_eq!(e.field(), "price");
}

#[test]
fn escapes_in_skipped_and_needed_fields() {
    // Escapes (including an escaped quote and brace) in a field we skip are skipped correctly.
    let f =
        r#"{"note":"a \"}\" b \\","event_type":"best_bid_ask","asset_id":"1","best_bid":"0.1"}"#;
    let EventView::BestBidAsk(q) = one(f) else {
        panic!()
    };
    assert_eq!(q.best_bid, Some(p("0.1")));
    // An escape inside an id is reported, never silently kept or mangled.
    let f = r#"{"event_type":"best_bid_ask","asset_id":"\u0031","best_bid":"0.1"}"#;
    let e = decode(f).next().unwrap().unwrap_err();
    assert_eq!(
        (e.kind(), e.field()),
        (DecodeErrorKind::Escaped, "asset_id")
    );
    // Inside a price too.
    let f = r#"{"event_type":"last_trade_price","asset_id":"1","price":"0.\u0035"}"#;
    assert_eq!(
        decode(f).next().unwrap().unwrap_err().kind(),
        DecodeErrorKind::Escaped
    );
}

#[test]
fn owned_events_outlive_the_frame() {
    let owned: Vec<_> = {
        let f = data("batch_mixed.json");
        decode(&f)
            .filter_map(Result::ok)
            .map(|e| e.to_owned_event())
            .collect()
    };
    assert_eq!(owned.len(), 4);
    let EventView::PriceChange(pc) = owned[2].event().unwrap() else {
        panic!()
    };
    assert_eq!(pc.changes.count(), 1);
}

#[test]
fn deltas_keep_the_book_fresh_and_same_ms_snapshots_apply() {
    let mut m = BookManager::new();
    let t0 = Instant::now();
    let book = |b: &str, a: &str, ts: &str| {
        format!(
            r#"{{"event_type":"book","asset_id":"9","market":"m","bids":[{b}],"asks":[{a}],"timestamp":"{ts}"}}"#
        )
    };
    let pc = |price: &str, size: &str, side: &str| {
        format!(
            r#"{{"event_type":"price_change","market":"m","timestamp":"5","price_changes":[{{"asset_id":"9","price":"{price}","size":"{size}","side":"{side}"}}]}}"#
        )
    };
    m.apply(
        &book(
            r#"{"price":"0.4","size":"10"}"#,
            r#"{"price":"0.6","size":"10"}"#,
            "5",
        ),
        t0,
    );
    m.apply(&pc("0.45", "1", "BUY"), t0 + Duration::from_millis(10));
    m.apply(&pc("0.6", "0", "SELL"), t0 + Duration::from_millis(20));
    let b = m.book_unchecked("9").unwrap();
    assert_eq!(b.best_bid().unwrap().price, p("0.45"));
    assert_eq!(b.best_ask(), None);
    assert_eq!(b.top_state(), TopState::OneSided);
    assert_eq!(
        b.age(t0 + Duration::from_millis(50)),
        Some(Duration::from_millis(30))
    );
    // A second snapshot in the same millisecond replaces the book (never dropped as a duplicate).
    m.apply(
        &book(
            r#"{"price":"0.3","size":"1"}"#,
            r#"{"price":"0.7","size":"1"}"#,
            "5",
        ),
        t0,
    );
    assert_eq!(
        m.book_unchecked("9").unwrap().best_bid().unwrap().price,
        p("0.3")
    );
    // A bad level rejects the snapshot but leaves the previous book intact.
    let s = m.apply(
        &book(
            r#"{"price":"0.35","size":"1"},{"price":"2","size":"1"}"#,
            "",
            "6",
        ),
        t0,
    );
    assert_eq!(s.errors, 1);
    assert_eq!(
        m.book_unchecked("9").unwrap().best_ask().unwrap().price,
        p("0.7")
    );
    // Tick change: deltas ignored (and counted) until the next snapshot.
    m.apply(r#"{"event_type":"tick_size_change","asset_id":"9","old_tick_size":"0.01","new_tick_size":"0.001"}"#, t0);
    let mut outcome = None;
    m.apply_with(&pc("0.301", "4", "BUY"), t0, |u| outcome = Some(u.outcome));
    assert_eq!(outcome, Some(Outcome::Ignored));
    let b = m.book_unchecked("9").unwrap();
    assert_eq!(
        (b.state(), b.epoch(), b.ignored_deltas()),
        (BookState::AwaitingSnapshot, 1, 1)
    );
    assert_eq!(b.best_bid().unwrap().price, p("0.3"));
    m.apply(
        &book(
            r#"{"price":"0.301","size":"4"}"#,
            r#"{"price":"0.7","size":"1"}"#,
            "7",
        ),
        t0,
    );
    assert_eq!(m.book_unchecked("9").unwrap().state(), BookState::Live);
}

#[test]
fn market_order_walks_from_the_best_level() {
    // REST-style worst-first arrays: walking from the array start would price at 0.99.
    let mut m = BookManager::new();
    m.apply(r#"{"event_type":"book","asset_id":"1","market":"m","bids":[{"price":"0.01","size":"100"},{"price":"0.40","size":"5"}],
        "asks":[{"price":"0.99","size":"100"},{"price":"0.55","size":"3"},{"price":"0.52","size":"2"}]}"#, Instant::now());
    let b = m.book_unchecked("1").unwrap();
    let fill = b.walk(Side::Buy, WalkAmount::Shares(sz("4")));
    assert_eq!(
        (fill.shares, fill.worst_price, fill.levels, fill.complete),
        (sz("4"), Some(p("0.55")), 2, true)
    );
    assert_eq!(fill.cost.to_string(), "2.14");
    assert_eq!(
        b.market_price(Side::Sell, WalkAmount::Shares(sz("5"))),
        Some(p("0.4"))
    );
    assert_eq!(
        b.market_price(Side::Sell, WalkAmount::Shares(sz("106"))),
        None
    );
    assert_eq!(
        b.depth(Side::Sell, 2).map(|l| l.price).collect::<Vec<_>>(),
        [p("0.52"), p("0.55")]
    );
    assert_eq!(b.size_up_to(Side::Buy, p("0.02")), sz("5"));
}

#[test]
fn shared_captured_snapshot() {
    let Some(bytes) =
        fixtures::read_shared("polymarket/nautilus_test_data/ws_book_snapshot_captured.json")
    else {
        return;
    };
    let f = String::from_utf8(bytes).unwrap();
    let EventView::Book(b) = one(&f) else {
        panic!()
    };
    assert_eq!((b.bids.count(), b.asks.count()), (7, 57));
    let mut m = BookManager::new();
    assert_eq!(m.apply(&f, Instant::now()).applied, 1);
    let book = m.book_unchecked(b.asset_id).unwrap();
    assert_eq!(book.best_bid().unwrap().price, p("0.07"));
    assert_eq!(book.best_ask().unwrap().price, p("0.08"));
    assert_eq!((book.len(Side::Buy), book.len(Side::Sell)), (7, 57));
    assert_eq!(book.last_trade().unwrap().price, p("0.92"));
}

#[test]
fn shared_crossing_burst_replay() {
    let Some(bytes) = fixtures::read_shared(
        "polymarket/nautilus_test_data/ws_market_price_change_crossing_burst.json",
    ) else {
        return;
    };
    let f = String::from_utf8(bytes).unwrap();
    let mut m = BookManager::new();
    let mut mismatches = 0;
    let mut matches = 0;
    let s = m.apply_with(&f, Instant::now(), |u| {
        if let Ok(EventView::PriceChange(pc)) = &u.event {
            for c in pc.changes.map(Result::unwrap) {
                let b = u.manager.book_unchecked(c.asset_id).unwrap();
                if b.state() != BookState::Live {
                    continue;
                }
                if c.best_bid != b.best_bid().map(|l| l.price)
                    || c.best_ask != b.best_ask().map(|l| l.price)
                {
                    // Where the deltas disagree with the exchange's reported top, the book
                    // built from them is crossed or locked, and both facts are visible.
                    mismatches += 1;
                    assert!(
                        matches!(b.top_state(), TopState::Crossed | TopState::Locked),
                        "{:?}",
                        b.top_state()
                    );
                    assert!(b.differs_from_reported());
                } else {
                    matches += 1;
                    assert!(!b.differs_from_reported());
                }
            }
        }
    });
    assert_eq!((s.events, s.errors), (51, 0));
    assert_eq!(m.len(), 2);
    // The YES book was snapshotted, so its deltas applied; the NO token only ever got deltas
    // and, with no snapshot, they were ignored (and counted) instead of building a fake book.
    let live: Vec<_> = m
        .books_unchecked()
        .filter(|b| b.state() == BookState::Live)
        .collect();
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].len(Side::Buy), 23); // the final snapshot replaced the crossed book
    assert_eq!(live[0].top_state(), TopState::Normal);
    let no = m
        .books_unchecked()
        .find(|b| b.state() == BookState::AwaitingSnapshot)
        .unwrap();
    assert_eq!(no.ignored_deltas(), 49);
    println!(
        "deltas agreeing with the reported top: {matches}, crossed/locked disagreements: {mismatches}"
    );
    assert!(matches > 40 && mismatches >= 1);
}

#[test]
fn every_shared_ws_fixture_decodes() {
    let Some(dir) = fixtures::shared("polymarket/nautilus_test_data") else {
        return;
    };
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("ws_") {
            continue;
        }
        let f = std::fs::read_to_string(&path).unwrap();
        for r in decode(&f) {
            let e = r.unwrap_or_else(|e| panic!("{name}: {e}"));
            if let EventView::Book(b) = &e {
                assert!(b.bids.chain(b.asks).all(|l| l.is_ok()), "{name}");
            }
            if let EventView::PriceChange(pc) = &e {
                assert!({ pc.changes }.all(|c| c.is_ok()), "{name}");
            }
            if let EventView::Trade(t) = &e {
                assert!({ t.maker_orders }.all(|c| c.is_ok()), "{name}");
            }
        }
        seen += 1;
    }
    assert!(seen >= 20, "{seen}");
}
