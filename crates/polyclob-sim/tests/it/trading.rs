//! Matching, order types, cancels, open orders, trades and heartbeats through the REST API.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use polyclob::types::Side;
use polyclob_sim::Simulator;
use serde_json::Value;
use support::*;

const S: u64 = 1_000_000; // one share / one pUSD in micro-units
const C: u64 = 10_000; // one cent

async fn book(
    sim: &polyclob_sim::SimHandle,
    token: &str,
) -> (Vec<(String, String)>, Vec<(String, String)>) {
    let (_, b) = get(sim, &format!("/book?token_id={token}")).await;
    let side = |k: &str| {
        b[k].as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["price"].as_str().unwrap().to_owned(),
                    l["size"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    (side("bids"), side("asks"))
}

fn lvl(p: &str, s: &str) -> (String, String) {
    (p.to_owned(), s.to_owned())
}

#[tokio::test]
async fn price_time_priority_partial_fills_and_trades() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let (_, r1, a1) = a.post(&limit(YES, Side::Sell, 55 * C, 10 * S, 1)).await;
    assert_eq!(r1["status"], "live");
    let (_, _, a2) = a.post(&limit(YES, Side::Sell, 56 * C, 20 * S, 2)).await;
    let (_, _, a3) = a.post(&limit(YES, Side::Sell, 55 * C, 7 * S, 3)).await; // same price, later
    assert_eq!(
        book(&sim, YES).await.1,
        vec![lvl("0.56", "20"), lvl("0.55", "17")]
    );

    // B sweeps 0.55 (oldest first) then part of 0.56.
    let (s, r, bid) = b.post(&limit(YES, Side::Buy, 56 * C, 25 * S, 10)).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["status"], "matched");
    assert_eq!(r["orderID"], bid.as_str());
    // 10×0.55 + 7×0.55 + 8×0.56 = 13.83 pUSD for 25 shares.
    assert_eq!(r["makingAmount"], "13.83");
    assert_eq!(r["takingAmount"], "25");
    assert_eq!(r["tradeIDs"].as_array().unwrap().len(), 1);
    assert_eq!(book(&sim, YES).await, (vec![], vec![lvl("0.56", "12")]));

    // A's open orders: only a2, with 8 matched.
    let (_, open, _) = a.l2("GET", "/data/orders", None).await;
    let data = open["data"].as_array().unwrap();
    assert_eq!(data.len(), 1);
    assert_eq!(data[0]["id"], a2.as_str());
    assert_eq!(data[0]["size_matched"], "8");
    assert_eq!(data[0]["original_size"], "20");
    assert_eq!(data[0]["price"], "0.56");
    assert_eq!(data[0]["status"], "LIVE");
    // Filled orders are still retrievable by id, for their owner only.
    let (s, o, _) = a.l2("GET", &format!("/data/order/{a1}"), None).await;
    assert_eq!(
        (
            s,
            o["status"].as_str().unwrap(),
            o["size_matched"].as_str().unwrap()
        ),
        (200, "MATCHED", "10")
    );
    assert_eq!(b.l2("GET", &format!("/data/order/{a1}"), None).await.0, 404);

    // Trades: one for B as taker with three maker orders; A sees it as maker.
    let (_, bt, _) = b.l2("GET", "/data/trades", None).await;
    let t = &bt["data"][0];
    assert_eq!(t["trader_side"], "TAKER");
    assert_eq!(t["side"], "BUY");
    assert_eq!(t["size"], "25");
    let makers: Vec<_> = t["maker_orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["order_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(makers, vec![a1.clone(), a3.clone(), a2.clone()]);
    assert_eq!(t["maker_orders"][2]["matched_amount"], "8");
    let (_, at, _) = a.l2("GET", "/data/trades", None).await;
    assert_eq!(at["data"][0]["trader_side"], "MAKER");
    assert_eq!(at["data"][0]["id"], t["id"]);
    let (_, ltp) = get(&sim, &format!("/last-trade-price?token_id={YES}")).await;
    assert_eq!(
        (
            ltp["price"].as_str().unwrap(),
            ltp["side"].as_str().unwrap()
        ),
        ("0.56", "BUY")
    );

    // A buy larger than the book rests its remainder at its limit.
    let (_, r, rest_id) = b.post(&limit(YES, Side::Buy, 56 * C, 20 * S, 11)).await;
    assert_eq!(r["status"], "matched");
    assert_eq!(book(&sim, YES).await, (vec![lvl("0.56", "8")], vec![]));
    let (_, open, _) = b.l2("GET", "/data/orders", None).await;
    assert_eq!(open["data"][0]["id"], rest_id.as_str());
    assert_eq!(open["data"][0]["size_matched"], "12");
}

#[tokio::test]
async fn post_only_fok_fak() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    a.post(&limit(YES, Side::Sell, 56 * C, 10 * S, 1)).await;

    let mut po = limit(YES, Side::Buy, 56 * C, 5 * S, 2);
    po.post_only = true;
    let (s, e, _) = b.post(&po).await;
    assert_eq!(s, 400);
    assert_eq!(
        e["error"], "invalid post-only order: order crosses book",
        "{e}"
    );
    let mut po = limit(YES, Side::Buy, 55 * C, 5 * S, 3);
    po.post_only = true;
    assert_eq!(b.post(&po).await.1["status"], "live");

    // Market BUY for 5 pUSD at 0.56: taker amount truncated (8.9285 shares) — the price is
    // recovered onto the tick and the order fills completely.
    let mut fok = limit(YES, Side::Buy, 56 * C, 0, 4);
    fok.order_type = "FOK";
    fok.maker_amount = 5 * S;
    fok.taker_amount = 8_928_500;
    let (s, r, _) = b.post(&fok).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["takingAmount"], "8.9285");
    assert_eq!(book(&sim, YES).await.1, vec![lvl("0.56", "1.0715")]);
    // Too big for the book: killed, book untouched.
    let mut fok = limit(YES, Side::Buy, 56 * C, 2 * S, 5);
    fok.order_type = "FOK";
    let (s, e, _) = b.post(&fok).await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("FOK"));
    assert_eq!(book(&sim, YES).await.1, vec![lvl("0.56", "1.0715")]);
    // FAK takes what there is and kills the rest; nothing to take is an error.
    let mut fak = limit(YES, Side::Buy, 56 * C, 3 * S, 6);
    fak.order_type = "FAK";
    let (s, r, id) = b.post(&fak).await;
    assert_eq!(
        (
            s,
            r["status"].as_str().unwrap(),
            r["takingAmount"].as_str().unwrap()
        ),
        (200, "matched", "1.0715")
    );
    assert!(book(&sim, YES).await.1.is_empty());
    let (_, o, _) = b.l2("GET", &format!("/data/order/{id}"), None).await;
    assert_eq!(o["status"], "CANCELED");
    let mut fak = limit(YES, Side::Buy, 56 * C, 3 * S, 7);
    fak.order_type = "FAK";
    let (s, e, _) = b.post(&fak).await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("FAK"));
    // Post-only with a market order type is refused.
    let mut bad = limit(YES, Side::Sell, 60 * C, 5 * S, 8);
    bad.order_type = "FOK";
    bad.post_only = true;
    let (s, e, _) = b.post(&bad).await;
    assert_eq!(s, 400);
    assert_eq!(
        e["error"],
        "invalid post-only order: only GTC and GTD order types are allowed"
    );
}

#[tokio::test]
async fn tick_size_range_and_min_size() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let (s, e, _) = a.post(&limit(YES, Side::Buy, 555_000, 10 * S, 1)).await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("tick size"), "{e}");
    let (s, e, _) = a.post(&limit(YES, Side::Buy, 50 * C, 4 * S, 2)).await;
    assert_eq!(s, 400);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("lower than the minimum: 5"),
        "{e}"
    );
    let (s, e, _) = a.post(&limit(YES, Side::Sell, 100 * C, 10 * S, 3)).await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("max: 0.99"), "{e}");
    let mut zero = limit(YES, Side::Buy, 50 * C, 10 * S, 4);
    zero.maker_amount = 0;
    assert_eq!(a.post(&zero).await.0, 400);
    // GTD must expire more than a minute out.
    let mut gtd = limit(YES, Side::Buy, 50 * C, 10 * S, 5);
    gtd.order_type = "GTD";
    gtd.expiration = now_s() + 30;
    assert_eq!(a.post(&gtd).await.0, 400);
    assert!(book(&sim, YES).await.0.is_empty());
}

#[tokio::test]
async fn gtd_orders_expire() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let mut gtd = limit(YES, Side::Buy, 50 * C, 10 * S, 1);
    gtd.order_type = "GTD";
    // The exchange keeps a one-minute security threshold: this one lives ~2 s.
    gtd.expiration = now_s() + 62;
    let (s, _, id) = a.post(&gtd).await;
    assert_eq!(s, 200);
    assert_eq!(book(&sim, YES).await.0, vec![lvl("0.5", "10")]);
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert!(book(&sim, YES).await.0.is_empty());
    let (_, o, _) = a.l2("GET", &format!("/data/order/{id}"), None).await;
    assert_eq!(o["status"], "CANCELED");
}

#[tokio::test]
async fn cancels() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let mut ids = Vec::new();
    for i in 0..5u64 {
        let (_, _, id) = a
            .post(&limit(
                if i < 4 { YES } else { NO },
                Side::Buy,
                (40 + i) * C,
                10 * S,
                i,
            ))
            .await;
        ids.push(id);
    }
    let (_, b_id) = {
        let (_, _, id) = b.post(&limit(YES, Side::Buy, 30 * C, 10 * S, 99)).await;
        ((), id)
    };
    // Single cancel; cancelling again or someone else's order is reported, not an error.
    let body = format!(r#"{{"orderID":"{}"}}"#, ids[0]);
    let (s, r, _) = a.l2("DELETE", "/order", Some(&body)).await;
    assert_eq!(s, 200);
    assert_eq!(r["canceled"], serde_json::json!([ids[0]]));
    let (_, r, _) = a.l2("DELETE", "/order", Some(&body)).await;
    assert!(r["not_canceled"][&ids[0]].is_string());
    let (_, r, _) = a
        .l2(
            "DELETE",
            "/order",
            Some(&format!(r#"{{"orderID":"{b_id}"}}"#)),
        )
        .await;
    assert_eq!(r["canceled"], serde_json::json!([]));
    assert!(r["not_canceled"][&b_id].is_string());
    // Batch cancel.
    let body = serde_json::json!([ids[1], "0xunknown"]).to_string();
    let (_, r, _) = a.l2("DELETE", "/orders", Some(&body)).await;
    assert_eq!(r["canceled"], serde_json::json!([ids[1]]));
    assert!(r["not_canceled"]["0xunknown"].is_string());
    // Per market/token.
    let (_, r, _) = a
        .l2(
            "DELETE",
            "/cancel-market-orders",
            Some(&format!(r#"{{"asset_id":"{NO}"}}"#)),
        )
        .await;
    assert_eq!(r["canceled"], serde_json::json!([ids[4]]));
    let (_, r, _) = a
        .l2(
            "DELETE",
            "/cancel-market-orders",
            Some(r#"{"market":"0xnot-a-market"}"#),
        )
        .await;
    assert_eq!(r["canceled"], serde_json::json!([]));
    // Everything else; B's order survives.
    let (_, r, _) = a.l2("DELETE", "/cancel-all", None).await;
    assert_eq!(r["canceled"], serde_json::json!([ids[2], ids[3]]));
    assert_eq!(book(&sim, YES).await.0, vec![lvl("0.3", "10")]);
    let (_, open, _) = a.l2("GET", "/data/orders", None).await;
    assert_eq!(open["data"], serde_json::json!([]));
    assert_eq!(a.l2("DELETE", "/order", Some("{}")).await.0, 400);
    assert_eq!(
        a.l2("DELETE", "/cancel-market-orders", Some("[]")).await.0,
        400
    );
    assert_eq!(
        b.l2("DELETE", "/cancel-market-orders", Some("garbage"))
            .await
            .0,
        400
    );
    // B's order survived the garbage; `{}` means every market.
    let (_, r, _) = b.l2("DELETE", "/cancel-market-orders", Some("{}")).await;
    assert_eq!(r["canceled"], serde_json::json!([b_id]));
}

#[tokio::test]
async fn batch_orders() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let bodies: Vec<Value> = (0..16u64)
        .map(|i| {
            serde_json::from_str(
                &a.order_body(&limit(YES, Side::Buy, (10 + i) * C, 10 * S, i))
                    .0,
            )
            .unwrap()
        })
        .collect();
    let (s, e, _) = a
        .l2(
            "POST",
            "/orders",
            Some(&Value::Array(bodies.clone()).to_string()),
        )
        .await;
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("15"));
    let mut three: Vec<Value> = bodies[..3].to_vec();
    three[1]["order"]["signature"] = Value::String(format!("0x{}", "11".repeat(65)));
    let (s, r, _) = a
        .l2("POST", "/orders", Some(&Value::Array(three).to_string()))
        .await;
    assert_eq!(s, 200);
    let ok: Vec<bool> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["success"].as_bool().unwrap())
        .collect();
    assert_eq!(ok, vec![true, false, true]);
    assert!(!r[1]["errorMsg"].as_str().unwrap().is_empty());
    let (_, open, _) = a.l2("GET", "/data/orders", None).await;
    assert_eq!(open["count"], 2);
}

#[tokio::test]
async fn data_endpoints_paginate_and_filter() {
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .page_size(2)
        .start()
        .await
        .unwrap();
    let a = Trader::new(&sim, KEY_A).await;
    for i in 0..5u64 {
        a.post(&limit(
            if i % 2 == 0 { YES } else { NO },
            Side::Buy,
            (20 + i) * C,
            10 * S,
            i,
        ))
        .await;
    }
    let mut seen = Vec::new();
    let mut cursor = "MA==".to_owned();
    while cursor != "LTE=" {
        let (s, p, _) = a
            .l2("GET", &format!("/data/orders?next_cursor={cursor}"), None)
            .await;
        assert_eq!(s, 200);
        assert!(p["data"].as_array().unwrap().len() <= 2);
        seen.extend(
            p["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_str().unwrap().to_owned()),
        );
        cursor = p["next_cursor"].as_str().unwrap().to_owned();
    }
    assert_eq!(seen.len(), 5);
    let (_, p, _) = a
        .l2(
            "GET",
            &format!("/data/orders?asset_id={NO}&market={COND}"),
            None,
        )
        .await;
    assert_eq!(p["count"], 2);
    let (_, p, _) = a
        .l2("GET", &format!("/data/orders?id={}", seen[3]), None)
        .await;
    assert_eq!(p["data"][0]["id"], seen[3].as_str());
}

#[tokio::test]
async fn heartbeats_chain_and_cancel_everything_when_they_stop() {
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .heartbeat_timeout(Duration::from_millis(800))
        .start()
        .await
        .unwrap();
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 1)).await;
    a.post(&limit(NO, Side::Buy, 40 * C, 10 * S, 2)).await;
    b.post(&limit(YES, Side::Buy, 30 * C, 10 * S, 3)).await; // B never heartbeats

    let (s, h1, _) = a
        .l2("POST", "/v1/heartbeats", Some(r#"{"heartbeat_id":null}"#))
        .await;
    assert_eq!(s, 200);
    let id1 = h1["heartbeat_id"].as_str().unwrap().to_owned();
    let mut last = id1.clone();
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let (s, h, _) = a
            .l2(
                "POST",
                "/v1/heartbeats",
                Some(&format!(r#"{{"heartbeat_id":"{last}"}}"#)),
            )
            .await;
        assert_eq!(s, 200);
        let next = h["heartbeat_id"].as_str().unwrap().to_owned();
        assert_ne!(next, last);
        last = next;
    }
    // A stale id is refused.
    let (s, e, _) = a
        .l2(
            "POST",
            "/v1/heartbeats",
            Some(&format!(r#"{{"heartbeat_id":"{id1}"}}"#)),
        )
        .await;
    assert_eq!(s, 400);
    assert!(e["error"].is_string());
    // Kept alive for 1 s > timeout: orders still there.
    let (_, open, _) = a.l2("GET", "/data/orders", None).await;
    assert_eq!(open["count"], 2);
    // Stop: everything of A's is cancelled, B's untouched.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    let (_, open, _) = a.l2("GET", "/data/orders", None).await;
    assert_eq!(open["count"], 0);
    let (_, open, _) = b.l2("GET", "/data/orders", None).await;
    assert_eq!(open["count"], 1);
    // A fresh chain can start again.
    assert_eq!(
        a.l2("POST", "/v1/heartbeats", Some(r#"{"heartbeat_id":""}"#))
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn cancel_only_mode() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let (_, _, id) = a.post(&limit(YES, Side::Buy, 40 * C, 10 * S, 1)).await;
    sim.set_cancel_only(true);
    let (s, e, _) = a.post(&limit(YES, Side::Buy, 41 * C, 10 * S, 2)).await;
    assert_eq!(s, 503);
    assert!(e["error"].as_str().unwrap().contains("cancel-only"));
    let (s, r, _) = a
        .l2(
            "DELETE",
            "/order",
            Some(&format!(r#"{{"orderID":"{id}"}}"#)),
        )
        .await;
    assert_eq!((s, r["canceled"][0].as_str().unwrap()), (200, id.as_str()));
    sim.set_cancel_only(false);
    assert_eq!(
        a.post(&limit(YES, Side::Buy, 41 * C, 10 * S, 3)).await.0,
        200
    );
}
