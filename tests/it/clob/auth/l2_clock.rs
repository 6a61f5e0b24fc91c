//! L2 signatures are valid for 30 s: with `server_time(true)` the signed timestamp follows
//! the server's clock, learnt from `GET /time` before the first signed request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;

use mock_clob::{MockClob, Reply, auth_verifier};
use polyclob::clob::{Client, Credentials, OrderFilter};
use polyclob::http::RetryPolicy;
use polyclob::sign::Signer;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const PAGE: &str = r#"{"data":[],"next_cursor":"LTE=","limit":100,"count":0}"#;

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn client(m: &MockClob, server_time: bool) -> Client {
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    m.on("GET", "/data/orders", vec![Reply::json(PAGE)]);
    Client::builder()
        .host(m.url())
        .signer(Signer::from_hex(KEY).unwrap())
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .retry(RetryPolicy::none())
        .server_time(server_time)
        .build()
        .unwrap()
}

fn signed_timestamps(m: &MockClob) -> Vec<u64> {
    m.requests_to("/data/orders")
        .iter()
        .map(|r| {
            assert_eq!(r.auth, Some(Ok(())));
            r.header("poly_timestamp").unwrap().parse().unwrap()
        })
        .collect()
}

#[tokio::test]
async fn signed_timestamps_follow_the_server_clock_without_an_explicit_sync() {
    let m = MockClob::start().await;
    // The local clock is an hour behind the exchange.
    m.on(
        "GET",
        "/time",
        vec![Reply::json((now() + 3600).to_string())],
    );
    let c = client(&m, true);
    for _ in 0..3 {
        c.orders(&OrderFilter::default(), None).await.unwrap();
    }
    let ts = signed_timestamps(&m);
    assert_eq!(ts.len(), 3);
    for t in ts {
        let skew = t.abs_diff(now() + 3600);
        assert!(skew <= 2, "signed {t}, server clock ~{}", now() + 3600);
    }
    assert_eq!(m.requests_to("/time").len(), 1, "the offset is learnt once");
}

#[tokio::test]
async fn local_clock_by_default_and_when_time_fails() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/time",
        vec![Reply::json((now() + 3600).to_string())],
    );
    let c = client(&m, false);
    c.orders(&OrderFilter::default(), None).await.unwrap();
    assert!(signed_timestamps(&m)[0].abs_diff(now()) <= 2);
    assert!(m.requests_to("/time").is_empty());

    let m = MockClob::start().await;
    m.on(
        "GET",
        "/time",
        vec![Reply::status(500, r#"{"error":"down"}"#)],
    );
    let c = client(&m, true);
    c.orders(&OrderFilter::default(), None).await.unwrap();
    c.orders(&OrderFilter::default(), None).await.unwrap();
    for t in signed_timestamps(&m) {
        assert!(t.abs_diff(now()) <= 2);
    }
    assert_eq!(
        m.requests_to("/time").len(),
        1,
        "a failed /time is not retried per call"
    );
    // An explicit sync still works later.
    m.on("GET", "/time", vec![Reply::json((now() + 100).to_string())]);
    let off = c.sync_clock().await.unwrap();
    assert!((99..=101).contains(&off), "{off}");
}
