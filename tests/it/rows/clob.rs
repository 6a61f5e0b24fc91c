//! The CLOB: every call that returns rows, served a page in the documented shape
//! (docs.polymarket.com CLOB reference: orders, trades, markets, books, prices history,
//! notifications, builder keys and trades, rewards, RFQ, session signers) with one bad row:
//! the others come back, the bad one is reported with its raw text and counted, or, where the
//! signature has no room for it, the call fails.

use futures_util::TryStreamExt as _;
use polyclob::clob::rfq::RfqFilter;
use polyclob::clob::types::HistoryRange;
use polyclob::clob::types::Interval;
use polyclob::clob::{Client, Credentials, MarketList, OrderFilter, RewardsQuery, TradeFilter};
use polyclob::sign::Signer;
use polyclob::types::{B256, Side, SignatureType};
use serde_json::{Value as Json, json};

use super::{one_bad_at_1, the_bad_row_at_1, with_bad};
use crate::support::mock_clob::{MockClob, Reply};

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const MARKET: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
const EOA: SignatureType = SignatureType::Eoa;

async fn setup() -> (MockClob, Client) {
    let m = MockClob::start().await;
    let c = Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .credentials(Credentials::new(
            "00000000-1111-2222-3333-444444444444",
            "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==",
            "pass-phrase",
        ))
        .build()
        .unwrap();
    (m, c)
}

/// A CLOB cursor page of `rows`, the last one.
fn page(rows: &[Json]) -> String {
    json!({"data": rows, "next_cursor": "LTE=", "limit": 100, "count": rows.len()}).to_string()
}

/// `good` with `bad` at index 1, served as a page at `path`.
fn serve_page(m: &MockClob, path: &str, good: Vec<Json>, bad: &Json) {
    m.on(
        "GET",
        path,
        vec![Reply::json(page(&with_bad(good, bad.clone())))],
    );
}

fn order(id: &str) -> Json {
    json!({"id": id, "status": "LIVE", "owner": "00000000-1111-2222-3333-444444444444",
        "maker_address": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "market": MARKET,
        "asset_id": TOKEN, "side": "BUY", "original_size": "100", "size_matched": "0",
        "price": "0.5", "associate_trades": [], "outcome": "Yes", "created_at": 1703875200,
        "expiration": "0", "order_type": "GTC"})
}

fn trade(id: &str, match_time: &str) -> Json {
    json!({"id": id, "taker_order_id": "0x06bc63e346ed4ceddce9efd6b3af37c8f8f440c92fe7da6b2d0f9e4ccbc50c42",
        "market": MARKET, "asset_id": TOKEN, "side": "BUY", "size": "5", "fee_rate_bps": "0",
        "price": "0.57", "status": "MATCHED", "match_time": match_time, "last_update": match_time,
        "outcome": "YES", "bucket_index": 0, "owner": "00000000-1111-2222-3333-444444444444",
        "maker_address": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        "maker_orders": [{"order_id": "0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b",
            "owner": "11111111-2222-3333-4444-555555555555", "maker_address": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
            "matched_amount": "5", "price": "0.57", "fee_rate_bps": "0", "asset_id": TOKEN,
            "outcome": "YES", "side": "SELL"}],
        "transaction_hash": "0xff354cd7ca7539dfa9c28d90943ab5779a4eac34b9b37a757d7b32bdfb11790b",
        "trader_side": "TAKER"})
}

fn market(condition: &str) -> Json {
    json!({"condition_id": condition, "question_id": "0x01", "question": "Will it rain?",
        "minimum_order_size": 5, "minimum_tick_size": 0.01, "neg_risk": false,
        "tokens": [{"token_id": TOKEN, "outcome": "Yes", "price": 0.5, "winner": false},
                   {"token_id": "2", "outcome": "No", "price": 0.5, "winner": false}],
        "rewards": {"rates": null, "min_size": 0, "max_spread": 0},
        "active": true, "closed": false, "archived": false, "accepting_orders": true,
        "accepting_order_timestamp": "2026-01-01T00:00:00Z", "end_date_iso": "2027-01-01T00:00:00Z",
        "game_start_time": null})
}

/// Orders, trades and pre-migration orders: one page, the stream, and every page.
#[tokio::test]
async fn orders_and_trades_report_a_bad_row() {
    let (m, c) = setup().await;
    let bad_order = json!({"id": "0xbad", "status": "LIVE", "price": "half", "side": "BUY"});
    for path in ["/data/orders", "/data/pre-migration-orders"] {
        serve_page(&m, path, vec![order("0xa"), order("0xb")], &bad_order);
    }
    let f = OrderFilter::default();
    let p = c.orders(&f, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("orders", &p.skipped, &bad_order);
    assert_eq!(p.skipped[0].list, "data");
    assert!(p.skipped[0].reason.contains("price"), "{:?}", p.skipped[0]);
    let mut s = std::pin::pin!(c.orders_stream(&f));
    one_bad_at_1(
        "orders_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_orders(&f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_orders", &skipped, &bad_order);
    let p = c.pre_migration_orders(None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("pre_migration_orders", &p.skipped, &bad_order);
    let mut s = std::pin::pin!(c.pre_migration_orders_stream());
    one_bad_at_1(
        "pre_migration_orders_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_pre_migration_orders().await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_pre_migration_orders", &skipped, &bad_order);

    // Both forms of a match time decode; a time that is none is the bad row.
    let bad_trade = trade("t-bad", "last tuesday");
    serve_page(
        &m,
        "/data/trades",
        vec![
            trade("t-1", "1672290701"),
            trade("t-2", "2023-01-01T00:00:00Z"),
        ],
        &bad_trade,
    );
    let f = TradeFilter::default();
    let p = c.trades(&f, None).await.unwrap();
    assert_eq!(
        p.data
            .iter()
            .map(|t| t.match_time.unwrap().as_secs())
            .collect::<Vec<_>>(),
        [1_672_290_701, 1_672_531_200]
    );
    the_bad_row_at_1("trades", &p.skipped, &bad_trade);
    assert!(p.skipped[0].reason.contains("timestamp"), "{:?}", p.skipped);
    let mut s = std::pin::pin!(c.trades_stream(&f));
    one_bad_at_1(
        "trades_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_trades(&f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_trades", &skipped, &bad_trade);

    // 3 pages read with 1 bad row each, in the client's counters.
    assert_eq!(c.counters().skipped_rows, 9);
}

/// Across pages, a skipped row's index counts every row of the walk.
#[tokio::test]
async fn every_page_walk_indexes_skipped_rows_in_the_walk() {
    let (m, c) = setup().await;
    let bad = json!({"id": "0xbad", "price": 2});
    let first = json!({"data": [order("0xa"), bad], "next_cursor": "Mg==", "limit": 2, "count": 2});
    let second =
        json!({"data": [order("0xc"), bad], "next_cursor": "LTE=", "limit": 2, "count": 2});
    m.on_query(
        "GET",
        "/data/orders",
        Some("next_cursor=Mg%3D%3D"),
        vec![Reply::json(second.to_string())],
    );
    m.on("GET", "/data/orders", vec![Reply::json(first.to_string())]);
    let (rows, skipped) = c.all_orders(&OrderFilter::default()).await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(skipped.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 3]);
}

/// Market lists (full and simplified, owned, streamed and borrowed), books, last trade
/// prices and price history.
#[tokio::test]
async fn markets_books_and_prices_report_a_bad_row() {
    let (m, c) = setup().await;
    let mut bad_market = market("0xbad");
    bad_market["tokens"] = json!("oops");
    for path in ["/markets", "/sampling-markets"] {
        serve_page(&m, path, vec![market("0xa"), market("0xb")], &bad_market);
    }
    let mut bad_simple = market("0xbad");
    bad_simple["tokens"] = json!(7);
    for path in ["/simplified-markets", "/sampling-simplified-markets"] {
        serve_page(&m, path, vec![market("0xa"), market("0xb")], &bad_simple);
    }
    for list in [MarketList::All, MarketList::Sampling] {
        let p = c.markets(list, None).await.unwrap();
        assert_eq!(p.data.len(), 2, "{list:?}");
        the_bad_row_at_1("markets", &p.skipped, &bad_market);
        assert!(p.data[0].end_date_iso.is_some());
        let mut s = std::pin::pin!(c.markets_stream(list));
        one_bad_at_1(
            "markets_stream",
            &s.try_next().await.unwrap().unwrap().skipped,
        );
        let mut body = polyclob::clob::Bytes::new();
        let p = c.markets_borrowed(list, None, &mut body).await.unwrap();
        assert_eq!(p.data.len(), 2);
        the_bad_row_at_1("markets_borrowed", &p.skipped, &bad_market);
    }
    for list in [MarketList::Simplified, MarketList::SamplingSimplified] {
        let p = c.simplified_markets(list, None).await.unwrap();
        assert_eq!(p.data.len(), 2, "{list:?}");
        the_bad_row_at_1("simplified_markets", &p.skipped, &bad_simple);
        let mut s = std::pin::pin!(c.simplified_markets_stream(list));
        one_bad_at_1(
            "simplified_markets_stream",
            &s.try_next().await.unwrap().unwrap().skipped,
        );
        let mut body = polyclob::clob::Bytes::new();
        let p = c
            .simplified_markets_borrowed(list, None, &mut body)
            .await
            .unwrap();
        assert_eq!(p.data.len(), 2);
        the_bad_row_at_1("simplified_markets_borrowed", &p.skipped, &bad_simple);
    }

    let book = |asset: &str| {
        json!({"market": MARKET, "asset_id": asset, "timestamp": "1703875200000", "hash": "0xa1b2",
            "bids": [{"price": "0.48", "size": "30"}, {"price": "0.49", "size": "20"}],
            "asks": [{"price": "0.52", "size": "25"}, {"price": "0.51", "size": "10"}],
            "min_order_size": "5", "tick_size": "0.01", "neg_risk": false, "last_trade_price": "0.5"})
    };
    // A level that does not decode fails its book, which is reported whole, not thinned.
    let mut bad_book = book("3");
    bad_book["asks"][1] = json!({"price": "fifty", "size": "10"});
    m.on(
        "POST",
        "/books",
        vec![Reply::json(
            Json::Array(with_bad(vec![book("1"), book("2")], bad_book.clone())).to_string(),
        )],
    );
    let (books, skipped) = c.books(&["1", "3", "2"]).await.unwrap();
    assert_eq!(books.len(), 2);
    the_bad_row_at_1("books", &skipped, &bad_book);
    assert_eq!(skipped[0].list, "", "the body is the list");

    let bad_last = json!({"token_id": "3", "price": "1.5", "side": "BUY"});
    let last = vec![
        json!({"token_id": "1", "price": "0.5", "side": "BUY"}),
        json!({"token_id": "2", "price": "0.45", "side": "SELL"}),
    ];
    m.on(
        "POST",
        "/last-trades-prices",
        vec![Reply::json(
            Json::Array(with_bad(last, bad_last.clone())).to_string(),
        )],
    );
    let (rows, skipped) = c.last_trade_prices(&["1", "3", "2"]).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("last_trade_prices", &skipped, &bad_last);

    let bad_point = json!({"t": 1697875260, "p": "x"});
    let history = with_bad(
        vec![
            json!({"t": 1697875200, "p": 0.52}),
            json!({"t": 1697875320, "p": "0.51"}),
        ],
        bad_point.clone(),
    );
    m.on(
        "GET",
        "/prices-history",
        vec![Reply::json(json!({ "history": history }).to_string())],
    );
    let (points, skipped) = c
        .prices_history(TOKEN, HistoryRange::Interval(Interval::OneDay), None)
        .await
        .unwrap();
    assert_eq!(points.len(), 2);
    the_bad_row_at_1("prices_history", &skipped, &bad_point);
    assert_eq!(skipped[0].list, "history");
    assert_eq!(c.counters().skipped_rows, 3 * 2 + 3 * 2 + 3);
}

/// Notifications, builder keys and builder trades, rewards, RFQ lists, session signers.
#[tokio::test]
async fn account_lists_report_a_bad_row() {
    let (m, c) = setup().await;
    let note = |id: u64| {
        json!({"id": id, "owner": "", "type": 1,
            "payload": {"asset_id": TOKEN, "condition_id": MARKET, "eventSlug": "e", "icon": "",
                "image": "", "market": MARKET, "market_slug": "m", "matched_size": "10",
                "order_id": "0x1", "original_size": "10", "outcome": "YES", "outcome_index": 0,
                "owner": "", "price": "0.5", "question": "q?", "remaining_size": "0", "seriesSlug": "",
                "side": "BUY", "trade_id": "t", "transaction_hash": "0x2", "type": ""},
            "timestamp": 1703875200})
    };
    let bad_note = json!({"id": {"n": 3}, "type": 1});
    m.on(
        "GET",
        "/notifications",
        vec![Reply::json(
            Json::Array(with_bad(vec![note(1), note(2)], bad_note.clone())).to_string(),
        )],
    );
    let (notes, skipped) = c.notifications(EOA).await.unwrap();
    assert_eq!(notes.len(), 2);
    the_bad_row_at_1("notifications", &skipped, &bad_note);

    let bad_key = json!({"key": "k3", "createdAt": "soon"});
    m.on(
        "GET",
        "/auth/builder-api-key",
        vec![Reply::json(
            json!([{"key": "k1", "createdAt": "2026-01-01T00:00:00Z", "revokedAt": null},
                bad_key, {"key": "k2", "createdAt": "2026-01-02T00:00:00Z", "revokedAt": "2026-02-01T00:00:00Z"}])
            .to_string(),
        )],
    );
    let (keys, skipped) = c.builder_api_keys().await.unwrap();
    assert_eq!(keys.len(), 2);
    the_bad_row_at_1("builder_api_keys", &skipped, &bad_key);
    assert!(keys[1].is_revoked() && !keys[0].is_revoked());

    let builder_trade = |id: &str| {
        json!({"id": id, "tradeType": "TAKER", "takerOrderHash": "0x1", "builder": "0xb1",
            "market": MARKET, "assetId": TOKEN, "side": "BUY", "size": "100000000",
            "sizeUsdc": "50000000", "price": "0.5", "status": "TRADE_STATUS_CONFIRMED",
            "outcome": "Yes", "outcomeIndex": 0, "owner": "o", "maker": "0xf39f",
            "transactionHash": "0x2", "matchTime": "1767225600", "bucketIndex": 0, "fee": "0",
            "feeUsdc": "0", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"})
    };
    let mut bad_bt = builder_trade("b3");
    bad_bt["size"] = json!("a hundred");
    serve_page(
        &m,
        "/builder/trades",
        vec![builder_trade("b1"), builder_trade("b2")],
        &bad_bt,
    );
    let code = B256::repeat_byte(0xb1);
    let f = TradeFilter::default();
    let p = c.builder_trades(code, &f, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("builder_trades", &p.skipped, &bad_bt);
    let mut s = std::pin::pin!(c.builder_trades_stream(code, &f).unwrap());
    one_bad_at_1(
        "builder_trades_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_builder_trades(code, &f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_builder_trades", &skipped, &bad_bt);

    let earning = |c: &str| {
        json!({"date": "2024-03-26T00:00:00Z", "condition_id": c, "asset_address": "0x9c",
            "maker_address": "0xf39f", "earnings": 0.237519, "asset_rate": 1})
    };
    let mut bad_earning = earning("0xbad");
    bad_earning["earnings"] = json!("a few");
    serve_page(
        &m,
        "/rewards/user",
        vec![earning("0xa"), earning("0xb")],
        &bad_earning,
    );
    let day = "2024-03-26";
    let p = c.earnings_for_day(day, EOA, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("earnings_for_day", &p.skipped, &bad_earning);
    let mut s = std::pin::pin!(c.earnings_for_day_stream(day, EOA).unwrap());
    one_bad_at_1(
        "earnings_for_day_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_earnings_for_day(day, EOA).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_earnings_for_day", &skipped, &bad_earning);

    let bad_total = json!({"date": "2024-03-26", "asset_address": "0x9d", "maker_address": "0xf39f", "earnings": -1, "asset_rate": 1});
    let totals = vec![
        json!({"date": "2024-03-26", "asset_address": "0x9c", "maker_address": "0xf39f", "earnings": 7.014925, "asset_rate": 1}),
        json!({"date": "2024-03-26", "asset_address": "0x9e", "maker_address": "0xf39f", "earnings": "0.5", "asset_rate": "1"}),
    ];
    m.on(
        "GET",
        "/rewards/user/total",
        vec![Reply::json(
            Json::Array(with_bad(totals, bad_total.clone())).to_string(),
        )],
    );
    let (rows, skipped) = c.total_earnings_for_day(day, EOA).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("total_earnings_for_day", &skipped, &bad_total);

    let reward_market = |c: &str| {
        json!({"condition_id": c, "question": "q?", "market_slug": "m", "event_slug": "e",
            "image": "", "rewards_max_spread": 3.5, "rewards_min_size": 20,
            "market_competitiveness": 1.2,
            "tokens": [{"token_id": TOKEN, "outcome": "Yes", "price": 0.5}],
            "rewards_config": [{"id": 0, "asset_address": "0x9c", "start_date": "2024-01-01",
                "end_date": "2500-12-31", "rate_per_day": 2, "total_rewards": 92, "total_days": 46}]})
    };
    let user_market = |c: &str| {
        let mut r = reward_market(c);
        r["maker_address"] = json!("0xf39f");
        r["earning_percentage"] = json!(20);
        r["earnings"] = json!([{"asset_address": "0x9c", "earnings": 1.5, "asset_rate": 1}]);
        r
    };
    // An earning inside the row that does not decode fails the row.
    let mut bad_user_market = user_market("0xbad");
    bad_user_market["earnings"][0]["earnings"] = json!("x");
    serve_page(
        &m,
        "/rewards/user/markets",
        vec![user_market("0xa"), user_market("0xb")],
        &bad_user_market,
    );
    let q = RewardsQuery::new(day);
    let p = c.user_earnings_and_markets(&q, EOA, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("user_earnings_and_markets", &p.skipped, &bad_user_market);
    let (rows, skipped) = c.all_user_earnings_and_markets(&q, EOA).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_user_earnings_and_markets", &skipped, &bad_user_market);

    let current = |c: &str| {
        json!({"condition_id": c, "rewards_max_spread": 3.5, "rewards_min_size": 20,
            "rewards_config": [{"id": 0, "asset_address": "0x9c", "start_date": "2024-01-01",
                "end_date": "2500-12-31", "rate_per_day": 2, "total_rewards": 92}],
            "sponsored_daily_rate": 0, "sponsors_count": 0, "native_daily_rate": 2, "total_daily_rate": 2})
    };
    let mut bad_current = current("0xbad");
    bad_current["rewards_config"][0]["rate_per_day"] = json!("bad");
    serve_page(
        &m,
        "/rewards/markets/current",
        vec![current("0xa"), current("0xb")],
        &bad_current,
    );
    let p = c.current_rewards(None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("current_rewards", &p.skipped, &bad_current);
    let mut s = std::pin::pin!(c.current_rewards_stream());
    one_bad_at_1(
        "current_rewards_stream",
        &s.try_next().await.unwrap().unwrap().skipped,
    );
    let (rows, skipped) = c.all_current_rewards().await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_current_rewards", &skipped, &bad_current);

    let mut bad_reward = reward_market("0xbad");
    bad_reward["tokens"][0]["price"] = json!(2);
    serve_page(
        &m,
        &format!("/rewards/markets/{MARKET}"),
        vec![reward_market(MARKET), reward_market(MARKET)],
        &bad_reward,
    );
    let p = c.market_rewards(MARKET, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("market_rewards", &p.skipped, &bad_reward);
    let (rows, skipped) = c.all_market_rewards(MARKET).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_market_rewards", &skipped, &bad_reward);

    let rfq = |id: &str| {
        json!({"requestId": id, "quoteId": format!("q-{id}"), "userAddress": "0xf39f",
            "proxyAddress": "0xf39f", "condition": MARKET, "token": TOKEN, "complement": "2",
            "side": "BUY", "sizeIn": "50", "sizeOut": "100", "price": "0.5", "expiry": 1767225600,
            "matchType": "COMPLEMENTARY"})
    };
    let mut bad_rfq = rfq("r3");
    bad_rfq["sizeIn"] = json!([50]);
    let f = RfqFilter::default();
    serve_page(
        &m,
        "/rfq/data/requests",
        vec![rfq("r1"), rfq("r2")],
        &bad_rfq,
    );
    let p = c.rfq_requests(&f, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("rfq_requests", &p.skipped, &bad_rfq);
    let (rows, skipped) = c.all_rfq_requests(&f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_rfq_requests", &skipped, &bad_rfq);
    for path in ["/rfq/data/requester/quotes", "/rfq/data/quoter/quotes"] {
        serve_page(&m, path, vec![rfq("r1"), rfq("r2")], &bad_rfq);
    }
    let p = c.rfq_requester_quotes(&f, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("rfq_requester_quotes", &p.skipped, &bad_rfq);
    let (rows, skipped) = c.all_rfq_requester_quotes(&f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_rfq_requester_quotes", &skipped, &bad_rfq);
    let p = c.rfq_quoter_quotes(&f, None).await.unwrap();
    assert_eq!(p.data.len(), 2);
    the_bad_row_at_1("rfq_quoter_quotes", &p.skipped, &bad_rfq);
    let (rows, skipped) = c.all_rfq_quoter_quotes(&f).await.unwrap();
    assert_eq!(rows.len(), 2);
    the_bad_row_at_1("all_rfq_quoter_quotes", &skipped, &bad_rfq);

    let signer = |a: &str| json!({"address": a, "scopes": ["CLOB"], "valid_until": 1900000000});
    let bad_signer = json!({"address": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "scopes": ["CLOB", 7], "valid_until": 1900000000});
    m.on(
        "GET",
        "/v1/user/session-signers",
        vec![Reply::json(
            json!({"wallet": "0x1111111111111111111111111111111111111111",
                "signers": with_bad(vec![signer("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"),
                    signer("0x90f79bf6eb2c4f870365e785982e1f101e93b906")], bad_signer.clone())})
            .to_string(),
        )],
    );
    let l = c.session_signers().await.unwrap();
    assert_eq!(l.signers.len(), 2);
    the_bad_row_at_1("session_signers", &l.skipped, &bad_signer);
    assert_eq!(l.skipped[0].list, "signers");
}

/// Calls whose answer has no room for a skipped row fail on one, naming it; nothing is
/// returned thinned.
#[tokio::test]
async fn calls_without_room_for_a_skipped_row_fail() {
    let (m, c) = setup().await;
    m.on(
        "GET",
        "/auth/api-keys",
        vec![Reply::json(r#"{"apiKeys":["k1",7,"k2"]}"#)],
    );
    assert!(c.api_keys().await.unwrap_err().is_decode());
    m.on(
        "GET",
        "/auth/readonly-api-keys",
        vec![Reply::json(r#"["k1",{"key":"k2"}]"#)],
    );
    assert!(c.readonly_api_keys().await.unwrap_err().is_decode());
    m.on(
        "GET",
        "/rewards/user/percentages",
        vec![Reply::json(r#"{"0x29":20,"0xbd":"lots"}"#)],
    );
    let e = c.reward_percentages(EOA).await.unwrap_err();
    let why = std::error::Error::source(&e).map(ToString::to_string);
    assert!(
        e.is_decode() && why.as_deref().is_some_and(|w| w.contains("0xbd")),
        "{e}: {why:?}"
    );
    m.on(
        "POST",
        "/prices",
        vec![Reply::json(r#"{"1":{"BUY":"0.5","HOLD":"0.4"}}"#)],
    );
    let e = c
        .prices(&[("1", Side::Buy), ("1", Side::Sell)])
        .await
        .unwrap_err();
    assert!(e.is_decode() && e.to_string().contains("HOLD"), "{e}");
    m.on(
        "POST",
        "/midpoints",
        vec![Reply::json(r#"{"1":"0.5","2":"half"}"#)],
    );
    assert!(c.midpoints(&["1", "2"]).await.unwrap_err().is_decode());
}
