//! Held-out captures (../shared/fixtures, skipped with a notice when absent) served over
//! loopback decode with no row lost: the CLOB's order and trade pages (one of them writes its
//! match times in ISO 8601, which a `u64` lost whole rows over), a market, Gamma's tags and
//! public search. Every row comes back and nothing is counted as skipped.

use polyclob::clob::{Client, Credentials, OrderFilter, TradeFilter};
use polyclob::sign::Signer;
use serde_json::Value as Json;

use crate::support::fixtures;
use crate::support::mock_clob::{MockClob, Reply};

const DIR: &str = "polymarket/nautilus_test_data";

fn capture(name: &str) -> Option<Vec<u8>> {
    fixtures::read_shared(&format!("{DIR}/{name}"))
}

fn rows_in(body: &[u8], key: &str) -> usize {
    let v: Json = serde_json::from_slice(body).unwrap();
    let list = if key.is_empty() { &v } else { &v[key] };
    list.as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn clob_and_gamma_captures_lose_no_row() {
    let (Some(orders), Some(trades), Some(market), Some(tags), Some(search)) = (
        capture("http_open_orders_page.json"),
        capture("http_trades_page.json"),
        capture("clob_market_response.json"),
        capture("gamma_tags.json"),
        capture("search_response.json"),
    ) else {
        return;
    };
    let m = MockClob::start().await;
    let c = Client::builder()
        .host(m.url())
        .signer(
            Signer::from_hex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
                .unwrap(),
        )
        .credentials(Credentials::new("k", "AAAA", "p"))
        .build()
        .unwrap();
    m.on("GET", "/data/orders", vec![Reply::json(orders.clone())]);
    m.on("GET", "/data/trades", vec![Reply::json(trades.clone())]);
    let (got, skipped) = c.all_orders(&OrderFilter::default()).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(got.len(), rows_in(&orders, "data"));
    assert!(got.iter().all(|o| o.created_at.is_some()));
    let (got, skipped) = c.all_trades(&TradeFilter::default()).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(got.len(), rows_in(&trades, "data"));
    assert!(
        got.iter()
            .all(|t| t.match_time.is_some() && t.last_update.is_some())
    );
    assert_eq!(c.counters().skipped_rows, 0);

    let v: Json = serde_json::from_slice(&market).unwrap();
    let condition = v["condition_id"].as_str().unwrap().to_owned();
    m.on(
        "GET",
        &format!("/markets/{condition}"),
        vec![Reply::json(market)],
    );
    let got = c.market(&condition).await.unwrap();
    assert!(got.accepting_order_timestamp.is_some());
    assert_eq!(got.tokens.len(), v["tokens"].as_array().unwrap().len());

    let gamma = polyclob::gamma::Client::builder()
        .host(m.url())
        .build()
        .unwrap();
    m.on("GET", "/tags", vec![Reply::json(tags.clone())]);
    let (got, skipped) = gamma.tags(100).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(got.len(), rows_in(&tags, ""));
    assert!(got.iter().all(|t| t.created_at.is_some()));
    m.on("GET", "/public-search", vec![Reply::json(search.clone())]);
    let found = gamma.search("bitcoin", 0).await.unwrap();
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.events.len(), rows_in(&search, "events"));
    assert_eq!(gamma.counters().skipped_rows, 0);
}
