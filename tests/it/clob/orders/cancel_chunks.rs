//! `DELETE /orders` takes at most 1,000 ids (Polymarket changelog, 2026-06-15): the client
//! chunks longer lists, the simulator refuses them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::sim as support;

use mock_clob::{MockClob, Reply, auth_verifier};
use polyclob::clob::{Client, Credentials, MAX_CANCEL_IDS};
use polyclob::http::{Bucket, RetryPolicy, Throttle, Tier};
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::types::Side;
use support::*;

const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const EMPTY: &str = r#"{"canceled":[],"not_canceled":{}}"#;

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("0x{i:064x}")).collect()
}

fn mock_client(m: &MockClob) -> Client {
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY_A).unwrap())
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .retry(RetryPolicy::none())
        // The exchange's 1,000-id rule alone; the governor's smaller chunks are tested below.
        .throttle(Throttle::Off)
        .build()
        .unwrap()
}

fn sent_ids(m: &MockClob) -> Vec<Vec<String>> {
    m.requests_to("/orders")
        .iter()
        .map(|r| {
            assert_eq!(r.method, "DELETE");
            assert_eq!(
                r.auth,
                Some(Ok(())),
                "each chunk is signed over its own body"
            );
            serde_json::from_slice(&r.body).unwrap()
        })
        .collect()
}

#[tokio::test]
async fn long_lists_go_in_chunks_of_1000_without_duplicates() {
    assert_eq!(MAX_CANCEL_IDS, 1000);
    let m = MockClob::start().await;
    m.on("DELETE", "/orders", vec![Reply::json(EMPTY)]);
    let c = mock_client(&m);
    let mut all = ids(2500);
    all.extend(ids(100)); // duplicates, ignored
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    c.cancel_orders(&refs).await.unwrap();
    let sent = sent_ids(&m);
    assert_eq!(
        sent.iter().map(Vec::len).collect::<Vec<_>>(),
        [1000, 1000, 500]
    );
    assert_eq!(sent.concat(), ids(2500), "every id once, in order");

    // At the limit: one request, as before.
    m.clear_log();
    let exact = ids(1000);
    let refs: Vec<&str> = exact.iter().map(String::as_str).collect();
    c.cancel_orders(&refs).await.unwrap();
    assert_eq!(sent_ids(&m).len(), 1);
}

#[tokio::test]
async fn a_failed_chunk_is_reported_per_id_and_stops_the_rest() {
    let m = MockClob::start().await;
    let first = ids(1000);
    let ok = format!(
        r#"{{"canceled":{},"not_canceled":{{}}}}"#,
        serde_json::to_string(&first[..2]).unwrap()
    );
    m.on(
        "DELETE",
        "/orders",
        vec![
            Reply::json(ok),
            Reply::status(500, r#"{"error":"boom"}"#),
            Reply::json(EMPTY),
        ],
    );
    let c = mock_client(&m);
    let all = ids(2500);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let r = c.cancel_orders(&refs).await.unwrap();
    assert_eq!(sent_ids(&m).len(), 2, "nothing sent after the failure");
    assert_eq!(r.canceled, first[..2]);
    let not = r.not_canceled;
    assert_eq!(not.len(), 1500);
    assert!(
        not[&all[1000]].starts_with("outcome unknown"),
        "{}",
        not[&all[1000]]
    );
    assert!(
        not[&all[2499]].starts_with("not sent"),
        "{}",
        not[&all[2499]]
    );

    // A failing first chunk is the call's error.
    let m = MockClob::start().await;
    m.on(
        "DELETE",
        "/orders",
        vec![Reply::status(500, r#"{"error":"boom"}"#)],
    );
    let c = mock_client(&m);
    let e = c.cancel_orders(&refs).await.unwrap_err();
    assert_eq!(e.status(), Some(500));
}

#[tokio::test]
async fn simulator_refuses_more_than_1000_and_the_client_chunks() {
    let sim = start(7).await;
    let t = Trader::new(&sim, KEY_A).await;
    // Raw: 1001 ids are refused whole, 1000 are accepted.
    let body = serde_json::to_string(&ids(1001)).unwrap();
    let (status, v, _) = t.l2("DELETE", "/orders", Some(&body)).await;
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("1000"), "{v}");
    let body = serde_json::to_string(&ids(1000)).unwrap();
    assert_eq!(t.l2("DELETE", "/orders", Some(&body)).await.0, 200);

    // Client: three real resting orders hidden in 2,500 ids are cancelled. The top tier's
    // cancel burst (1,800) lets chunks of 1,000 through; at the default tier the governor
    // would pace 2,500 cancels over ~30 s (80/s), which is right on the exchange but slow here.
    let signer = Signer::from_hex(KEY_A).unwrap();
    let account = polyclob::account::Account::builder(signer)
        .client(
            Client::builder()
                .host(sim.http_url())
                .rate_limit_tier(Tier::Elite),
        )
        .credentials(t.creds.clone())
        .build()
        .unwrap();
    let c = account.client().clone();
    let token = markets()[0].tokens()[0].token_id().to_owned();
    let mut real = Vec::new();
    for size in ["10", "11", "12"] {
        let r = account
            .place_limit_order(
                &token,
                &LimitOrder::new(Side::Buy, "0.1".parse().unwrap(), size.parse().unwrap()),
            )
            .await
            .unwrap();
        assert!(r.success, "{r:?}");
        real.push(r.order_id);
    }
    let mut all = ids(2497);
    all.insert(10, real[0].clone());
    all.insert(1500, real[1].clone());
    all.push(real[2].clone());
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let r = c.cancel_orders(&refs).await.unwrap();
    let mut got = r.canceled;
    got.sort();
    real.sort();
    assert_eq!(got, real);
    let (orders, _) = c.all_orders(&Default::default()).await.unwrap();
    assert!(orders.is_empty(), "{orders:?}");
}

#[tokio::test]
async fn the_drop_in_client_chunks_too() {
    use polyclob::{ApiCreds, ClobClient};
    let m = MockClob::start().await;
    m.on(
        "DELETE",
        "/orders",
        vec![
            Reply::json(r#"{"canceled":["0xa"],"not_canceled":{}}"#),
            Reply::json(r#"{"canceled":["0xb"],"not_canceled":{"0xc":"not found"}}"#),
        ],
    );
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    let c = ClobClient::with_l2_headers(
        &m.url(),
        KEY_A,
        137,
        ApiCreds {
            api_key: "key-1".into(),
            secret: SECRET.into(),
            passphrase: "pp".into(),
        },
    );
    let v = c.cancel_orders(&ids(1500)).await.unwrap();
    let sent = sent_ids(&m);
    assert_eq!(sent.iter().map(Vec::len).collect::<Vec<_>>(), [1000, 500]);
    assert_eq!(v["canceled"], serde_json::json!(["0xa", "0xb"]));
    assert_eq!(v["not_canceled"]["0xc"], "not found");
}

/// With the rate-limit governor on, a cancel batch must also fit the cancel bucket whole
/// (120 at the Standard tier): a long list goes in chunks of that size, none refused as over
/// capacity, none answered 429 by a simulator enforcing the same tier.
#[tokio::test]
async fn governed_cancels_go_in_chunks_that_fit_the_bucket() {
    let sim = polyclob_sim::Simulator::builder()
        .seed(8)
        .rate_limits(Some(Tier::Standard))
        .start()
        .await
        .unwrap();
    let t = Trader::new(&sim, KEY_A).await;
    let c = Client::builder()
        .host(sim.http_url())
        .signer(Signer::from_hex(KEY_A).unwrap())
        .credentials(t.creds.clone())
        .throttle(Throttle::Wait(std::time::Duration::from_secs(10)))
        .build()
        .unwrap();
    assert_eq!(c.governor().burst(Bucket::Cancel), 120);
    let all = ids(300);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let r = c.cancel_orders(&refs).await.unwrap();
    let not = r.not_canceled;
    assert_eq!(
        not.len(),
        300,
        "unknown ids are reported, not refused locally"
    );
    assert!(
        not.values()
            .all(|why| !why.contains("not sent") && !why.contains("outcome unknown")),
        "{not:?}"
    );
    assert_eq!(sim.rail_stats().rate_limited, 0);
    let deletes = sim
        .requests()
        .iter()
        .filter(|r| r.starts_with("DELETE /orders"))
        .count();
    assert_eq!(deletes, 3, "300 ids in chunks of at most 120");
}
