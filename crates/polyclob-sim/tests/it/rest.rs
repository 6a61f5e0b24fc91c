//! Public REST endpoints of the simulator: shapes, ordering, pagination, errors, HTTP/2.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use polyclob::fixed::Price;
use polyclob_sim::Simulator;
use serde_json::Value;
use support::*;

fn prices(levels: &Value) -> Vec<u32> {
    levels
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            // String numbers, as on the exchange.
            assert!(l["size"].is_string());
            Price::parse(l["price"].as_str().unwrap().as_bytes())
                .unwrap()
                .as_micros()
        })
        .collect()
}

#[tokio::test]
async fn health_time_version() {
    let sim = start(1).await;
    assert_eq!(get(&sim, "/").await, (200, Value::String("OK".into())));
    assert_eq!(get(&sim, "/ok").await.0, 200);
    let (s, t) = get(&sim, "/time").await;
    assert_eq!(s, 200);
    assert!(t.as_u64().unwrap().abs_diff(now_s()) <= 2);
    assert_eq!(
        get(&sim, "/version").await,
        (200, serde_json::json!({"version": 2}))
    );
    let (s, e) = get(&sim, "/no-such-endpoint").await;
    assert_eq!(s, 404);
    assert!(e["error"].is_string());
}

#[tokio::test]
async fn markets_paginate_with_cursors() {
    let sim = Simulator::builder().page_size(3).start().await.unwrap();
    for path in [
        "/markets",
        "/simplified-markets",
        "/sampling-markets",
        "/sampling-simplified-markets",
    ] {
        let (s, p1) = get(&sim, &format!("{path}?next_cursor=MA==")).await;
        assert_eq!(s, 200);
        assert_eq!(p1["data"].as_array().unwrap().len(), 3);
        assert_eq!(p1["count"], 3);
        let next = p1["next_cursor"].as_str().unwrap();
        assert_eq!(next, "Mw==", "base64 of \"3\"");
        let (_, p2) = get(&sim, &format!("{path}?next_cursor={next}")).await;
        assert_eq!(p2["data"].as_array().unwrap().len(), 1);
        assert_eq!(p2["next_cursor"], "LTE=");
        let (_, p3) = get(&sim, &format!("{path}?next_cursor=LTE=")).await;
        assert_eq!(p3["data"].as_array().unwrap().len(), 0);
    }
    let (s, e) = get(&sim, "/markets?next_cursor=!!").await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("next_cursor"));
    // Full objects carry the documented fields.
    let (_, p) = get(&sim, "/markets").await;
    let m = &p["data"][0];
    for k in [
        "condition_id",
        "question_id",
        "tokens",
        "minimum_tick_size",
        "minimum_order_size",
        "neg_risk",
        "accepting_orders",
    ] {
        assert!(m.get(k).is_some(), "missing {k}");
    }
    assert_eq!(m["tokens"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn single_market_lookups() {
    let sim = start(1).await;
    let ms = markets();
    let neg = &ms[2];
    let (s, m) = get(&sim, &format!("/markets/{}", neg.condition_id())).await;
    assert_eq!(s, 200);
    assert_eq!(m["neg_risk"], true);
    assert_eq!(m["condition_id"], neg.condition_id());
    let (s, c) = get(&sim, &format!("/clob-markets/{}", neg.condition_id())).await;
    assert_eq!(s, 200);
    assert_eq!(c["nr"], true);
    assert_eq!(c["t"][1]["t"], neg.tokens()[1].token_id());
    assert_eq!(c["mts"], 0.01);
    let (s, b) = get(
        &sim,
        &format!("/markets-by-token/{}", neg.tokens()[1].token_id()),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(b["condition_id"], neg.condition_id());
    assert_eq!(b["primary_token_id"], neg.tokens()[0].token_id());
    assert_eq!(get(&sim, "/markets/0xdead").await.0, 404);
    assert_eq!(get(&sim, "/markets-by-token/1").await.0, 404);
}

/// Whether a REST `/book` body's `hash` is the exchange's SHA-1 of it (`book::integrity`).
fn hash_verifies(b: &Value) -> bool {
    use polyclob::book::{BookMeta, book_hash};
    let meta = BookMeta::new(
        b["min_order_size"].as_str().unwrap().parse().unwrap(),
        b["neg_risk"].as_bool().unwrap(),
    );
    let h = book_hash(&b.to_string(), meta, &mut Vec::new()).unwrap();
    h.matches(b["hash"].as_str().unwrap())
}

#[tokio::test]
async fn book_is_worst_first_with_string_numbers() {
    let sim = start(3).await;
    let ms = markets();
    for m in &ms {
        for t in m.tokens() {
            let (s, b) = get(&sim, &format!("/book?token_id={}", t.token_id())).await;
            assert_eq!(s, 200);
            assert_eq!(b["asset_id"], t.token_id());
            assert_eq!(b["market"], m.condition_id());
            assert!(b["timestamp"].is_string());
            assert!(hash_verifies(&b), "{b}");
            assert_eq!(b["tick_size"], m.tick().as_str());
            let bids = prices(&b["bids"]);
            let asks = prices(&b["asks"]);
            assert!(!bids.is_empty() && !asks.is_empty());
            assert!(
                bids.windows(2).all(|w| w[0] < w[1]),
                "bids ascending (worst first): {bids:?}"
            );
            assert!(
                asks.windows(2).all(|w| w[0] > w[1]),
                "asks descending (worst first): {asks:?}"
            );
            let (best_bid, best_ask) = (*bids.last().unwrap(), *asks.last().unwrap());
            assert!(best_bid < best_ask);
            // /price: BUY answers the best bid, SELL the best ask (live-exchange behaviour).
            let (_, p) = get(&sim, &format!("/price?token_id={}&side=BUY", t.token_id())).await;
            assert_eq!(
                Price::parse(p["price"].as_str().unwrap().as_bytes())
                    .unwrap()
                    .as_micros(),
                best_bid
            );
            let (_, p) = get(&sim, &format!("/price?token_id={}&side=SELL", t.token_id())).await;
            assert_eq!(
                Price::parse(p["price"].as_str().unwrap().as_bytes())
                    .unwrap()
                    .as_micros(),
                best_ask
            );
            let (_, mid) = get(&sim, &format!("/midpoint?token_id={}", t.token_id())).await;
            let mid: f64 = mid["mid"].as_str().unwrap().parse().unwrap();
            assert!((mid * 1e6 - f64::from(best_bid + best_ask) / 2.0).abs() < 1.0);
            let (_, sp) = get(&sim, &format!("/spread?token_id={}", t.token_id())).await;
            assert_eq!(
                Price::parse(sp["spread"].as_str().unwrap().as_bytes())
                    .unwrap()
                    .as_micros(),
                best_ask - best_bid
            );
        }
    }
}

#[tokio::test]
async fn token_errors_have_the_exchange_shape() {
    let sim = start(1).await;
    let (s, e) = get(&sim, "/book").await;
    assert_eq!((s, e["error"].as_str().unwrap()), (400, "Invalid token id"));
    let (s, e) = get(&sim, "/book?token_id=123").await;
    assert_eq!(
        (s, e["error"].as_str().unwrap()),
        (404, "No orderbook exists for the requested token id")
    );
    let t = markets()[0].tokens()[0].token_id().to_owned();
    let (s, _) = get(&sim, &format!("/price?token_id={t}&side=UP")).await;
    assert_eq!(s, 400);
    let (s, e) = post_json(&sim, "/books", "{not json").await;
    assert_eq!((s, e["error"].as_str().unwrap()), (400, "Invalid payload"));
}

#[tokio::test]
async fn batch_market_data() {
    let sim = start(1).await;
    let ms = markets();
    let a = ms[0].tokens()[0].token_id();
    let b = ms[1].tokens()[1].token_id();
    let body = format!(r#"[{{"token_id":"{a}"}},{{"token_id":"{b}"}},{{"token_id":"999"}}]"#);
    let (s, books) = post_json(&sim, "/books", &body).await;
    assert_eq!(s, 200);
    assert_eq!(books.as_array().unwrap().len(), 2);
    assert_eq!(books[1]["asset_id"], b);
    let (_, mids) = post_json(&sim, "/midpoints", &body).await;
    assert!(mids[a].is_string() && mids[b].is_string());
    let prices_body =
        format!(r#"[{{"token_id":"{a}","side":"BUY"}},{{"token_id":"{a}","side":"SELL"}}]"#);
    let (_, p) = post_json(&sim, "/prices", &prices_body).await;
    assert!(p[a]["BUY"].is_string() && p[a]["SELL"].is_string());
    let (_, ltp) = post_json(&sim, "/last-trades-prices", &body).await;
    assert_eq!(ltp.as_array().unwrap().len(), 2);
    let (_, ts) = get(&sim, &format!("/tick-size?token_id={b}")).await;
    assert_eq!(ts["minimum_tick_size"], 0.001);
    let (_, nr) = get(
        &sim,
        &format!("/neg-risk?token_id={}", ms[2].tokens()[0].token_id()),
    )
    .await;
    assert_eq!(nr["neg_risk"], true);
    let (_, fr) = get(&sim, &format!("/fee-rate?token_id={a}")).await;
    assert_eq!(fr["base_fee"], 0);
}

#[tokio::test]
async fn same_seed_same_books_other_seed_other_books() {
    let t = markets()[0].tokens()[0].token_id().to_owned();
    let path = format!("/book?token_id={t}");
    let a = start(11).await;
    let b = start(11).await;
    let c = start(12).await;
    let (_, ba) = get(&a, &path).await;
    let (_, bb) = get(&b, &path).await;
    let (_, bc) = get(&c, &path).await;
    assert_eq!(ba["bids"], bb["bids"]);
    assert_eq!(ba["asks"], bb["asks"]);
    // The hash covers the timestamp, so two servers differ; each verifies.
    assert!(hash_verifies(&ba) && hash_verifies(&bb));
    assert_ne!((&ba["bids"], &ba["asks"]), (&bc["bids"], &bc["asks"]));
}

#[tokio::test]
async fn serves_http2_prior_knowledge() {
    let sim = start(1).await;
    install_tls();
    let client = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let resp = client
        .get(format!("{}/version", sim.http_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_2);
    assert_eq!(resp.status(), 200);
    let t = markets()[0].tokens()[0].token_id().to_owned();
    let resp = client
        .get(format!("{}/book?token_id={t}", sim.http_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_2);
    let v: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(v["asset_id"], t.as_str());
}

#[tokio::test]
async fn stops_when_dropped() {
    let sim = start(1).await;
    let url = sim.http_url();
    assert_eq!(
        http_client()
            .get(format!("{url}/ok"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    drop(sim);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(http_client().get(format!("{url}/ok")).send().await.is_err());
}
