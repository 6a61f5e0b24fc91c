//! BookSummary hashes of a mixed exchange: Protocol V2 books carry
//! `"version":"v2"` and the hash covers it; snapshots that omit `tick_size` or
//! `last_trade_price` are hashed with the market's current values; a corrupted snapshot is
//! still flagged. Checked against the real captures in `shared/fixtures` (skipped with a notice
//! when absent) and against vectors written by `scripts/make_book_hash_vectors.py`.

use std::path::PathBuf;
use std::time::Instant;

use polyclob::book::{BookManager, BookMeta, BookState, HashStatus, Outcome, book_hash};
use polyclob::clob::types::BookSummary;
use polyclob::fixed::{Price, Size};
use polyclob::types::{Protocol, TickSize};
use serde_json::Value;

/// A shared fixture: `$POLYCLOB_SHARED_FIXTURES/<rel>` or `../shared/fixtures/<rel>`, or `None`
/// with a printed notice.
fn shared(relative: &str) -> Option<String> {
    let base = std::env::var_os("POLYCLOB_SHARED_FIXTURES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures"),
        PathBuf::from,
    );
    let path = base.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            println!("SKIP: shared fixture {} not found", path.display());
            None
        }
    }
}

fn meta5() -> BookMeta {
    BookMeta::new(Size::parse(b"5").expect("size"), false)
}

fn statuses(m: &mut BookManager, frame: &str) -> Vec<Outcome> {
    let mut out = Vec::new();
    m.apply_with(frame, Instant::now(), |u| out.push(u.outcome));
    out
}

/// The captured burst ends with a genuine `book` that omits `tick_size` and
/// `last_trade_price`: its hash reproduces only with the market's current values (the earlier
/// snapshot's tick size, the price of the trade that just printed).
#[test]
fn captured_snapshot_without_tick_and_last_trade_verifies() {
    let Some(text) =
        shared("polymarket/nautilus_test_data/ws_market_price_change_crossing_burst.json")
    else {
        return;
    };
    let frames: Vec<Value> = serde_json::from_str(&text).expect("json");
    let last = frames.last().expect("frames");
    assert!(last.get("tick_size").is_none() && last.get("last_trade_price").is_none());
    let asset = last["asset_id"].as_str().unwrap().to_owned();
    let sent = last["hash"].as_str().unwrap().to_owned();
    let last_text = last.to_string();

    // Direct: with the stand-ins the hash is the exchange's; with `""` (the old rule) it is not.
    let mut scratch = Vec::new();
    let standins = meta5()
        .with_tick_size(TickSize::Thousandth)
        .with_last_trade_price(Price::parse(b"0.301").unwrap());
    assert!(
        book_hash(&last_text, standins, &mut scratch)
            .unwrap()
            .matches(&sent)
    );
    assert!(
        !book_hash(&last_text, meta5(), &mut scratch)
            .unwrap()
            .matches(&sent)
    );

    // Through the manager, as a feed delivers it: the first snapshot teaches the tick size,
    // the trades' `last_trade_price` (the capture kept only books and deltas; the exchange
    // sends one per trade, here the taker's sweep down to 0.301) teaches the price.
    let mut m = BookManager::new();
    m.set_book_meta(&asset, meta5());
    for f in &frames[..frames.len() - 1] {
        for o in statuses(&mut m, &f.to_string()) {
            assert!(
                !matches!(o, Outcome::HashMismatch | Outcome::Rejected(_)),
                "{o:?}"
            );
        }
    }
    assert_eq!(m.hash_status(&asset), Some(HashStatus::Verified));
    let market = last["market"].as_str().unwrap();
    let trade = format!(
        r#"{{"event_type":"last_trade_price","asset_id":"{asset}","market":"{market}","price":"0.301","side":"SELL","size":"45.83","fee_rate_bps":"0","timestamp":"1790658827000"}}"#
    );
    statuses(&mut m, &trade);
    assert_eq!(statuses(&mut m, &last_text), [Outcome::Applied]);
    assert_eq!(m.hash_status(&asset), Some(HashStatus::Verified));
    assert_eq!(m.book_unchecked(&asset).unwrap().state(), BookState::Live);

    // The same snapshot with one size changed no longer reproduces, but it omits members
    // the exchange filled in: the client cannot tell a changed size from a price it does
    // not know, so it says "cannot verify", not "mismatch", and keeps the book.
    let corrupt = last_text.replacen("\"45.83\"", "\"45.84\"", 1);
    assert_ne!(corrupt, last_text);
    assert_eq!(statuses(&mut m, &corrupt), [Outcome::Applied]);
    assert_eq!(m.hash_status(&asset), Some(HashStatus::Unverifiable));
    assert_eq!(m.book_unchecked(&asset).unwrap().state(), BookState::Live);
    // With the omitted members written in as the exchange hashed them, the same change is
    // a real mismatch.
    let whole = corrupt.replacen(
        "\"event_type\":\"book\"",
        "\"event_type\":\"book\",\"tick_size\":\"0.001\",\"last_trade_price\":\"0.301\"",
        1,
    );
    assert_ne!(whole, corrupt);
    assert_eq!(statuses(&mut m, &whole), [Outcome::HashMismatch]);
    assert_eq!(
        m.book_unchecked(&asset).unwrap().state(),
        BookState::Suspect
    );

    // Without the trade the manager does not guess a price, nor does it cry wolf: the
    // genuine snapshot cannot be verified, and the book is trusted.
    let mut blind = BookManager::new();
    blind.set_book_meta(&asset, meta5());
    statuses(&mut blind, &frames[0].to_string());
    let mut seen = Vec::new();
    let s = blind.apply_with(&last_text, Instant::now(), |u| {
        seen.push((u.outcome, u.hash))
    });
    assert_eq!(seen, [(Outcome::Applied, Some(HashStatus::Unverifiable))]);
    assert_eq!(
        (s.hash_mismatches, s.hash_unverifiable, s.applied),
        (0, 1, 1)
    );
    assert_eq!(
        blind.book_unchecked(&asset).unwrap().state(),
        BookState::Live
    );
}

/// A real REST book (`last_trade_price: ""`) verifies with the metadata it carries.
#[test]
fn captured_rest_book_verifies_with_its_own_meta() {
    let Some(text) = shared("polymarket/nautilus_test_data/clob_book_response_empty_ask.json")
    else {
        return;
    };
    let book: BookSummary = serde_json::from_str(&text).expect("book");
    assert_eq!(book.protocol(), Ok(Protocol::Ctf));
    let meta = book.book_meta().unwrap();
    let h = book_hash(&text, meta, &mut Vec::new()).unwrap();
    assert!(h.matches(&book.hash), "{h} != {}", book.hash);
}

#[test]
fn captured_ws_snapshot_still_verifies() {
    let Some(text) = shared("polymarket/nautilus_test_data/ws_book_snapshot_captured.json") else {
        return;
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    // A CTF market's meta: no `version` is added.
    let h = book_hash(&text, meta5(), &mut Vec::new()).unwrap();
    assert!(h.matches(v["hash"].as_str().unwrap()));
    let as_v2 = book_hash(&text, meta5().with_protocol(Protocol::V2), &mut Vec::new()).unwrap();
    assert!(!as_v2.matches(v["hash"].as_str().unwrap()));
}

fn vector_meta(m: &Value) -> BookMeta {
    let mut meta = BookMeta::new(
        Size::parse(m["min_order_size"].as_str().unwrap().as_bytes()).unwrap(),
        m["neg_risk"].as_bool().unwrap(),
    )
    .with_protocol(Protocol::parse(m["protocol"].as_str().unwrap()).unwrap());
    if let Some(t) = m.get("tick_size") {
        meta = meta.with_tick_size(t.as_str().unwrap().parse().unwrap());
    }
    if let Some(p) = m.get("last_trade_price") {
        meta = meta.with_last_trade_price(p.as_str().unwrap().parse().unwrap());
    }
    meta
}

/// Vectors from an independent encoder (Python's `json` + `hashlib`), CTF and V2, with and
/// without the optional members; each also corrupted one way per member class.
#[test]
fn vectors_verify_and_corruption_is_flagged() {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/book_hash_vectors.json"
    ));
    let v: Value = serde_json::from_str(text).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 6);
    let mut scratch = Vec::new();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let frame = c["text"].as_str().unwrap();
        let meta = vector_meta(&c["meta"]);
        let sent = serde_json::from_str::<Value>(frame).unwrap()["hash"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            book_hash(frame, meta, &mut scratch).unwrap().matches(&sent),
            "{name}: {}",
            String::from_utf8_lossy(&scratch)
        );
        // Decoded views expose the version as sent.
        let decoded = polyclob::decode::decode(frame).next().unwrap().unwrap();
        let polyclob::decode::EventView::Book(b) = decoded else {
            panic!("{name}: not a book")
        };
        assert_eq!(
            Protocol::of_book(b.version).unwrap(),
            if frame.contains("\"version\":\"v2\"") {
                Protocol::V2
            } else {
                Protocol::Ctf
            },
            "{name}"
        );
        // The manager verifies it; a changed level, a changed version or a different
        // protocol in the metadata are each flagged. A changed level in a frame that omits
        // `tick_size` or `last_trade_price` (hashed with stand-ins) cannot be told from a
        // stand-in the exchange held otherwise: "cannot verify", never a mismatch.
        let asset = b.asset_id.to_owned();
        let mut m = BookManager::new();
        m.set_book_meta(&asset, meta);
        assert_eq!(statuses(&mut m, frame), [Outcome::Applied], "{name}");
        assert_eq!(m.hash_status(&asset), Some(HashStatus::Verified), "{name}");
        let corrupt = frame.replacen("\"20.5\"", "\"20.4\"", 1);
        let sparse = !frame.contains("\"tick_size\"") || !frame.contains("\"last_trade_price\"");
        if corrupt != frame {
            let (outcome, status) = if sparse {
                (Outcome::Applied, HashStatus::Unverifiable)
            } else {
                (Outcome::HashMismatch, HashStatus::Mismatch)
            };
            assert_eq!(statuses(&mut m, &corrupt), [outcome], "{name}");
            assert_eq!(m.hash_status(&asset), Some(status), "{name}");
        }
        if frame.contains("\"version\":\"v2\"") {
            let v1 = frame.replacen("\"version\":\"v2\"", "\"version\":\"v1\"", 1);
            assert!(
                !book_hash(&v1, meta, &mut scratch).unwrap().matches(&sent),
                "{name}"
            );
        }
        let other = meta.with_protocol(match meta.protocol() {
            Protocol::V2 => Protocol::Ctf,
            _ => Protocol::V2,
        });
        if !frame.contains("\"version\"") {
            assert!(
                !book_hash(frame, other, &mut scratch)
                    .unwrap()
                    .matches(&sent),
                "{name}: the protocol is part of the hash"
            );
        }
    }
}

/// A REST book exposes its version and refuses an unknown one with a typed error.
#[test]
fn rest_book_version() {
    let v2: BookSummary = serde_json::from_str(
        r#"{"market":"0x01","asset_id":"1","timestamp":"5","hash":"","bids":[],"asks":[],"version":"v2"}"#,
    )
    .unwrap();
    assert_eq!(v2.version, "v2");
    assert_eq!(v2.protocol(), Ok(Protocol::V2));
    let odd: BookSummary = serde_json::from_str(r#"{"version":"v7"}"#).unwrap();
    assert!(odd.protocol().is_err());
    assert!(odd.book_meta().is_err());
}
