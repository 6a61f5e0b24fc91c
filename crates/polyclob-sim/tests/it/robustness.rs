//! Bad input never panics the simulator: mutated order bodies, odd numbers, garbage on every
//! route and WS channel all get an answer (an `{"error"}` body or a normal response).
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use polyclob::types::Side;
use serde_json::Value;
use support::*;

/// A tiny LCG for reproducible mutations.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

const ODD_VALUES: &[&str] = &[
    "null",
    "true",
    "-1",
    "1e309",
    "18446744073709551616",
    "\"\"",
    "\"-5\"",
    "\"0x\"",
    "\"99999999999999999999999999999999999999999999999999999999999999999999999999999999\"",
    "{}",
    "[]",
    "\"1.5\"",
    "\"BUY\"",
    "3.7",
];

#[tokio::test]
async fn mutated_orders_get_errors_not_panics() {
    let sim = start_empty().await;
    let t = Trader::new(&sim, KEY_A).await;
    let (base, _) = t.order_body(&limit(YES, Side::Buy, 400_000, 10_000_000, 1));
    let base: Value = serde_json::from_str(&base).unwrap();
    let fields: Vec<String> = base["order"].as_object().unwrap().keys().cloned().collect();
    let mut rng = Lcg(7);
    for i in 0..300 {
        let mut v = base.clone();
        v["order"]["salt"] = Value::from(1000 + i);
        let body = match i % 3 {
            // Replace one order field with an odd value.
            0 => {
                let f = &fields[(rng.next() as usize) % fields.len()];
                let odd = ODD_VALUES[(rng.next() as usize) % ODD_VALUES.len()];
                v["order"][f] = serde_json::from_str(odd).unwrap_or(Value::Null);
                v.to_string()
            }
            // Replace a top-level field.
            1 => {
                let f = ["owner", "orderType", "postOnly", "order"][(rng.next() as usize) % 4];
                v[f] = serde_json::from_str(ODD_VALUES[(rng.next() as usize) % ODD_VALUES.len()])
                    .unwrap_or(Value::Null);
                v.to_string()
            }
            // Truncate or corrupt the bytes.
            _ => {
                let mut s = v.to_string().into_bytes();
                let cut = (rng.next() as usize) % s.len();
                if rng.next() % 2 == 0 {
                    s.truncate(cut);
                } else {
                    s[cut] = b"{}[],:\"\\x0"[(rng.next() as usize) % 10];
                }
                String::from_utf8_lossy(&s).into_owned()
            }
        };
        let (status, resp, _) = t.l2("POST", "/order", Some(&body)).await;
        match status {
            200 => assert_eq!(resp["success"], true, "{body}"),
            400 => assert!(resp["error"].is_string(), "{body} -> {resp}"),
            other => panic!("unexpected status {other} for {body}: {resp}"),
        }
    }
    // The server is still healthy.
    assert_eq!(get(&sim, "/ok").await.0, 200);
}

#[tokio::test]
async fn garbage_on_every_route() {
    let sim = start_empty().await;
    let t = Trader::new(&sim, KEY_A).await;
    let bodies = [
        "",
        "null",
        "[",
        "[{}]",
        "{\"orderID\":5}",
        "[1,2,3]",
        "\u{0}\u{ff}",
        "{\"heartbeat_id\":7}",
        "{\"market\":[]}",
    ];
    let routes = [
        ("POST", "/order"),
        ("POST", "/orders"),
        ("DELETE", "/order"),
        ("DELETE", "/orders"),
        ("DELETE", "/cancel-all"),
        ("DELETE", "/cancel-market-orders"),
        ("POST", "/v1/heartbeats"),
        ("GET", "/data/orders?next_cursor=%FF%FE"),
        ("GET", "/data/trades?before=x&after=-1&next_cursor=LTE="),
        ("GET", "/data/order/%00"),
        ("POST", "/books"),
        ("POST", "/prices"),
        ("POST", "/midpoints"),
        ("POST", "/spreads"),
        ("POST", "/last-trades-prices"),
    ];
    for (m, path) in routes {
        for b in bodies {
            let (status, resp, _) = t.l2(m, path, Some(b)).await;
            assert!(
                status == 200 || status == 400 || status == 404,
                "{m} {path} {b:?} -> {status} {resp}"
            );
            if status != 200 {
                assert!(resp["error"].is_string(), "{m} {path} {b:?} -> {resp}");
            }
        }
    }
    for q in [
        "/book?token_id=",
        "/price?token_id=1001&side=",
        "/markets?next_cursor=%",
        "/markets/",
        "/tick-size?token_id=%zz",
    ] {
        let (s, _) = get(&sim, q).await;
        assert!((200..500).contains(&s), "{q} -> {s}");
    }
    assert_eq!(get(&sim, "/ok").await.0, 200);
}

#[tokio::test]
async fn garbage_on_websockets() {
    let sim = start_empty().await;
    for channel in ["market", "user"] {
        let mut w = ws(&sim, channel).await;
        for junk in [
            "",
            "null",
            "[]",
            "{\"assets_ids\":\"1001\"}",
            "{\"assets_ids\":[1,2,null]}",
            "{\"markets\":{},\"operation\":7}",
            "{\"operation\":\"unsubscribe\"}",
        ] {
            send(&mut w, junk).await;
        }
        send(&mut w, "PING").await;
        assert_eq!(
            next_text(&mut w, LONG).await.as_deref(),
            Some("PONG"),
            "{channel}"
        );
        if channel == "user" {
            // Credentials that do not match close the channel.
            send(&mut w, r#"{"auth":{"apiKey":7},"type":"user"}"#).await;
            assert_eq!(next_text(&mut w, LONG).await, None);
        }
    }
    assert_eq!(get(&sim, "/ok").await.0, 200);
}
