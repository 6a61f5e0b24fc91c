//! Gamma and Data API decoding against our own fixtures (written from the documented formats,
//! tests/data/gamma and tests/data/data_api) and, when present, every real capture in
//! ../shared/fixtures: no row may be lost.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use crate::support::fixtures;

use polyclob::data::{
    Activity, DataTrade, HolderGroup, PortfolioValue, Position, UNLABELLED_OUTCOME,
    decode_cursor_page,
};
use polyclob::fixed::{Amount, Price, Size};
use polyclob::gamma::{GammaEvent, GammaMarket, SearchResults, Tag, decode_keyset_page};
use polyclob::types::{Chain, ExchangeVersion, Side, TickSize};
use proptest::prelude::*;
use serde_json::Value as Json;

const CAPTURES: &str = "polymarket/nautilus_test_data";

fn ours(rel: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn p(s: &str) -> Price {
    s.parse().unwrap()
}

fn sz(s: &str) -> Size {
    s.parse().unwrap()
}

/// The capture's file names that start with `prefix`, sorted; empty when ../shared is absent.
fn captures(prefix: &str) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = fixtures::shared(CAPTURES) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".json")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Asserts that a decoded market kept every list the JSON had.
fn assert_market_complete(name: &str, m: &GammaMarket, raw: &Json) {
    let list_len = |key: &str| -> usize {
        match raw.get(key) {
            Some(Json::String(s)) => serde_json::from_str::<Vec<Json>>(s).unwrap().len(),
            Some(Json::Array(a)) => a.len(),
            _ => 0,
        }
    };
    assert_eq!(m.outcomes.len(), list_len("outcomes"), "{name}: outcomes");
    assert_eq!(
        m.outcome_prices.len(),
        list_len("outcomePrices"),
        "{name}: outcomePrices"
    );
    assert_eq!(
        m.clob_token_ids.len(),
        list_len("clobTokenIds"),
        "{name}: clobTokenIds"
    );
    assert_eq!(m.events.len(), list_len("events"), "{name}: events lost");
    assert_eq!(m.tags.len(), list_len("tags"), "{name}: tags lost");
    assert_eq!(m.id, raw["id"].as_str().unwrap_or_default(), "{name}: id");
    assert_eq!(
        m.condition_id,
        raw.get("conditionId")
            .and_then(Json::as_str)
            .unwrap_or_default(),
        "{name}: conditionId"
    );
    for (e, raw_e) in m
        .events
        .iter()
        .zip(raw["events"].as_array().into_iter().flatten())
    {
        assert_event_complete(name, e, raw_e);
    }
}

fn assert_event_complete(name: &str, e: &GammaEvent, raw: &Json) {
    let n = |key: &str| raw.get(key).and_then(Json::as_array).map_or(0, Vec::len);
    assert_eq!(
        e.markets.len(),
        n("markets"),
        "{name}: event {} markets lost",
        e.id
    );
    assert_eq!(e.tags.len(), n("tags"), "{name}: event {} tags lost", e.id);
    assert_eq!(
        e.series.len(),
        n("series"),
        "{name}: event {} series lost",
        e.id
    );
    for (m, raw_m) in e
        .markets
        .iter()
        .zip(raw["markets"].as_array().into_iter().flatten())
    {
        assert_market_complete(name, m, raw_m);
    }
}

#[test]
fn every_gamma_market_capture_decodes_whole() {
    let files = captures("gamma_market");
    for (name, bytes) in &files {
        let raw: Json = serde_json::from_slice(bytes).unwrap();
        let m: GammaMarket =
            serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_market_complete(name, &m, &raw);
        // Every capture with token ids and a tick yields one signing context per outcome.
        if !m.clob_token_ids.is_empty() && m.tick_size.is_some() {
            let t = m
                .trading(Chain::Polygon, ExchangeVersion::V2)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.contexts.len(), m.clob_token_ids.len(), "{name}");
            assert_eq!(t.contexts[0].token_id().as_str(), m.clob_token_ids[0]);
            assert_eq!(t.contexts[0].neg_risk(), m.neg_risk);
        }
    }
    if files.is_empty() {
        return;
    }
    assert_eq!(files.len(), 9, "the nine gamma_market captures");

    let (_, live) = files
        .iter()
        .find(|(n, _)| n == "gamma_market.json")
        .unwrap();
    let m: GammaMarket = serde_json::from_slice(live).unwrap();
    assert_eq!(m.outcomes, ["Up", "Down"]);
    assert_eq!(m.outcome_prices, [p("0.505"), p("0.495")]);
    assert_eq!(m.tick_size, Some(TickSize::Hundredth));
    assert_eq!(m.min_order_size, Some(sz("5")));
    assert_eq!(m.liquidity, Some(sz("20328.3747")));
    assert_eq!(m.maker_base_fee, Some(1000));
    assert!(m.is_tradable());

    let (_, fee) = files
        .iter()
        .find(|(n, _)| n == "gamma_market_fee_crypto.json")
        .unwrap();
    let m: GammaMarket = serde_json::from_slice(fee).unwrap();
    let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
    assert!(t.fees_enabled);
    let fs = t.fee_schedule.unwrap();
    assert_eq!(
        (fs.rate(), fs.exponent(), fs.taker_only(), fs.rebate_rate()),
        (p("0.07"), 1, true, Some(Price::ZERO))
    );
    assert_eq!(t.min_order_size, sz("5"));

    let (_, sports) = files
        .iter()
        .find(|(n, _)| n == "gamma_market_sports_market_money_line.json")
        .unwrap();
    let m: GammaMarket = serde_json::from_slice(sports).unwrap();
    assert_eq!(m.sports_market_type, "moneyline");
    assert_eq!(m.tick_size, Some(TickSize::Thousandth));
    assert_eq!(
        m.volume,
        Some(sz("26458.188065")),
        "rounded half up at the 6th decimal"
    );
    assert!(m.closed && !m.is_tradable());
}

#[test]
fn gamma_event_tags_and_search_captures_decode_whole() {
    for (name, bytes) in captures("gamma_event") {
        let raw: Vec<Json> = serde_json::from_slice(&bytes).unwrap();
        let page = decode_keyset_page::<GammaEvent>(&bytes).unwrap();
        assert!(page.skipped.is_empty(), "{name}: {:?}", page.skipped);
        assert_eq!(page.data.len(), raw.len(), "{name}");
        for (e, r) in page.data.iter().zip(&raw) {
            assert_event_complete(&name, e, r);
        }
        assert!(page.data[0].neg_risk);
        assert!(page.data[0].markets.len() > 1);
    }
    for (name, bytes) in captures("gamma_tags") {
        let raw: Vec<Json> = serde_json::from_slice(&bytes).unwrap();
        let page = decode_keyset_page::<Tag>(&bytes).unwrap();
        assert!(page.skipped.is_empty(), "{name}");
        assert_eq!(page.data.len(), raw.len());
        assert_eq!(page.data[0].label, "Health and Human Services");
    }
    for (name, bytes) in captures("search_response") {
        let raw: Json = serde_json::from_slice(&bytes).unwrap();
        let r: SearchResults = serde_json::from_slice(&bytes).unwrap();
        assert!(r.skipped.is_empty(), "{name}: {:?}", r.skipped);
        let raw_events = raw["events"].as_array().unwrap();
        assert_eq!(r.events.len(), raw_events.len());
        for (e, re) in r.events.iter().zip(raw_events) {
            assert_event_complete(&name, e, re);
        }
        assert!(r.has_more);
        assert_eq!(r.total_results, 46_940);
    }
}

#[test]
fn data_api_captures_decode_whole() {
    for (name, bytes) in captures("data_api_") {
        let raw: Json = serde_json::from_slice(&bytes).unwrap();
        let rows = match &raw {
            Json::Array(a) => a.len(),
            other => other["data"].as_array().unwrap().len(),
        };
        let (decoded, skipped) = if name.contains("positions") {
            let p = decode_cursor_page::<Position>(&bytes).unwrap();
            (p.data.len(), p.skipped)
        } else {
            let p = decode_cursor_page::<DataTrade>(&bytes).unwrap();
            (p.data.len(), p.skipped)
        };
        assert!(skipped.is_empty(), "{name}: {skipped:?}");
        assert_eq!(decoded, rows, "{name}");
    }
    let Some(bytes) =
        fixtures::read_shared(&format!("{CAPTURES}/data_api_positions_response.json"))
    else {
        return;
    };
    let page = decode_cursor_page::<Position>(&bytes).unwrap();
    let first = &page.data[0];
    assert_eq!(first.size, Some(sz("150.5")));
    assert_eq!(first.avg_price, Some(p("0.55")));
    assert_eq!(
        first.unrealized_pnl,
        Some("7.525".parse::<Amount>().unwrap())
    );
    assert_eq!(first.entry_cost, Some(sz("82.775")));
    assert!(first.token_id.starts_with("7132"));

    let bytes = fixtures::read_shared(&format!(
        "{CAPTURES}/data_api_trades_captured_response.json"
    ))
    .unwrap();
    let t = decode_cursor_page::<DataTrade>(&bytes).unwrap();
    assert_eq!(t.next_cursor, None);
    assert!(!t.has_more);
    assert_eq!(t.data[1].side, Some(Side::Buy));
    assert_eq!(
        t.data[1].price,
        Some(p("0.71")),
        "0.709999959 rounds to 0.71"
    );
    assert_eq!(t.data[2].price, Some(p("0.297258")));
    assert_eq!(t.data[2].outcome_index, Some(1));
}

#[test]
fn our_gamma_fixtures() {
    let page = decode_keyset_page::<GammaMarket>(&ours("gamma/markets_keyset.json")).unwrap();
    assert_eq!(page.data.len(), 2);
    assert_eq!(page.skipped.len(), 1, "the garbled row is reported");
    assert_eq!(page.skipped[0].index, 2);
    assert_eq!(page.next_cursor.as_deref(), Some("eyJpZCI6NTAwMDAzfQ=="));
    let a = &page.data[0];
    assert_eq!(a.volume, Some(sz("10250.123457")));
    assert_eq!(a.fee_type, "crypto_fees");
    let b = &page.data[1];
    assert!(b.is_position_id());
    assert_eq!(b.outcome_prices, [p("0.5"), p("0.5")]);
    assert_eq!(
        (b.best_bid, b.best_ask),
        (Some(p("0.499")), Some(p("0.501")))
    );
    let ctx = b.context(Chain::Polygon, ExchangeVersion::V2, 1).unwrap();
    assert_eq!(ctx.version(), ExchangeVersion::V3);
    assert_eq!(ctx.token_id().as_str(), "78");

    let page = decode_keyset_page::<GammaEvent>(&ours("gamma/events_keyset_last.json")).unwrap();
    assert_eq!(page.next_cursor, None, "no next_cursor on the last page");
    let e = &page.data[0];
    assert_eq!((e.markets.len(), e.tags.len(), e.series.len()), (2, 1, 1));
    assert_eq!(e.comment_count, 12);
    assert_eq!(e.volume, Some(sz("100")));
    assert_eq!(
        e.markets[1]
            .trading(Chain::Polygon, ExchangeVersion::V2)
            .unwrap()
            .contexts
            .len(),
        2
    );
}

#[test]
fn our_data_api_fixtures() {
    let page = decode_cursor_page::<Position>(&ours("data_api/positions_v2.json")).unwrap();
    assert!(page.has_more);
    assert!(page.next_cursor.is_some());
    let a = &page.data[0];
    assert_eq!(a.size, Some(sz("86780.64")));
    assert_eq!(a.entry_cost, Some(sz("45159.4653")));
    assert_eq!(a.realized_pnl, Some("-1082.5533".parse().unwrap()));
    assert_eq!(a.unrealized_pnl.unwrap().as_micros(), -45_159_465_300);
    assert!(a.redeemable);
    let b = &page.data[1];
    assert_eq!(
        (b.size, b.avg_price),
        (None, None),
        "null is unavailable, not zero"
    );
    assert_eq!(b.outcome_index, Some(UNLABELLED_OUTCOME));

    let v = decode_cursor_page::<PortfolioValue>(&ours("data_api/value_v2.json")).unwrap();
    assert_eq!(v.data[0].value, Some(sz("1523.4567")));

    let h = decode_cursor_page::<HolderGroup>(&ours("data_api/holders_v2.json")).unwrap();
    assert_eq!(h.data.len(), 2);
    assert_eq!(h.data[0].holders.len(), 2);
    assert_eq!(h.data[0].holders[0].amount, Some(sz("1500.25")));

    let a = decode_cursor_page::<Activity>(&ours("data_api/activity_v2.json")).unwrap();
    assert_eq!(a.data.len(), 2);
    assert_eq!(a.data[0].kind, "TRADE");
    assert_eq!(a.data[0].usdc_size, Some(sz("6.1")));
    assert_eq!(a.data[1].side, None);
}

/// Every decoder of this module on `bytes`: errors are fine, panics are not.
fn decode_everything(bytes: &[u8]) {
    let _ = decode_keyset_page::<GammaMarket>(bytes);
    let _ = decode_keyset_page::<GammaEvent>(bytes);
    let _ = serde_json::from_slice::<SearchResults>(bytes);
    let _ = decode_cursor_page::<Position>(bytes);
    let _ = decode_cursor_page::<DataTrade>(bytes);
    let _ = decode_cursor_page::<Activity>(bytes);
    let _ = decode_cursor_page::<HolderGroup>(bytes);
    let _ = decode_cursor_page::<PortfolioValue>(bytes);
    let _ = decode_cursor_page::<polyclob::data::Resolution>(bytes);
    let _ = decode_cursor_page::<polyclob::data::DataPricePoint>(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = text.parse::<polyclob::types::Timestamp>();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        decode_everything(&bytes);
    }

    #[test]
    fn damaged_documents_never_panic(at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        for doc in ["gamma/markets_keyset.json", "gamma/events_keyset_last.json", "data_api/positions_v2.json", "data_api/holders_v2.json", "data_api/resolutions/event.json"] {
            let mut bytes = ours(doc);
            let i = at % bytes.len();
            bytes[i] = byte;
            decode_everything(&bytes);
            bytes.truncate(cut % bytes.len());
            decode_everything(&bytes);
        }
    }
}
