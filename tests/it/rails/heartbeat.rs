//! The heartbeat guard: new orders are refused locally from a failed heartbeat (or a stopped
//! task) until a heartbeat succeeds again; `Invalid Heartbeat ID` answers resynchronise.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::rails;

use std::time::{Duration, Instant};

use mock_clob::{MockClob, Reply};
use polyclob::clob::{Client, Credentials};
use polyclob::http::{RetryPolicy, Throttle};
use rails::*;

const PLACED: &str = r#"{"success":true,"errorMsg":"","orderID":"0x1","status":"live"}"#;

async fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn mock_client(m: &MockClob) -> Client {
    Client::builder()
        .host(m.url())
        .signer(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .credentials(Credentials::new("k", "AAAA", "p"))
        .retry(RetryPolicy::none())
        .throttle(Throttle::Off)
        .build()
        .unwrap()
}

#[tokio::test]
async fn orders_are_refused_from_a_failed_heartbeat_until_one_succeeds() {
    let m = MockClob::start().await;
    m.on("POST", "/order", vec![Reply::json(PLACED)]);
    m.on(
        "POST",
        "/v1/heartbeats",
        vec![
            Reply::json(r#"{"heartbeat_id":"a"}"#),
            Reply::status(500, r#"{"error":"boom"}"#),
        ],
    );
    let c = mock_client(&m);
    let o = resting_bids(&c, KEY_A, 4, false);
    let interval = Duration::from_millis(40);
    let h = c.start_heartbeats(interval);
    c.post_order(&o[0]).await.unwrap();
    wait_for("a failed heartbeat", || h.status().failed >= 1).await;
    // The failure is seen when its answer arrives: the very next order is refused, unsent.
    let e = c.post_order(&o[1]).await.unwrap_err();
    assert!(e.is_heartbeat_guard() && e.is_refused_locally(), "{e:?}");
    assert_eq!(m.requests_to("/order").len(), 1);
    // Cancels are never guarded.
    m.on(
        "DELETE",
        "/order",
        vec![Reply::json(r#"{"canceled":["0x1"]}"#)],
    );
    c.cancel("0x1").await.unwrap();
    // One success lifts the guard.
    m.on(
        "POST",
        "/v1/heartbeats",
        vec![Reply::json(r#"{"heartbeat_id":"b"}"#)],
    );
    let sent = h.status().sent;
    wait_for("a successful heartbeat", || h.status().sent > sent).await;
    c.post_order(&o[2]).await.unwrap();
    // A dropped handle (as a crashed task) engages the guard; only a heartbeat lifts it.
    drop(h);
    let e = c.post_order(&o[3]).await.unwrap_err();
    assert!(
        e.is_heartbeat_guard() && e.to_string().contains("task stopped"),
        "{e}"
    );
    c.heartbeat(Some("b")).await.unwrap();
    c.post_order(&o[3]).await.unwrap();
    // A deliberate stop lifts it.
    let h = c.start_heartbeats(interval);
    m.on("POST", "/v1/heartbeats", vec![Reply::status(500, "{}")]);
    let failed = h.status().failed;
    wait_for("a failed heartbeat", || h.status().failed > failed).await;
    assert!(c.post_order(&o[0]).await.unwrap_err().is_heartbeat_guard());
    h.stop();
    c.post_order(&o[0]).await.unwrap();
}

#[tokio::test]
async fn heartbeats_that_hang_engage_the_guard_after_two_intervals() {
    let m = MockClob::start().await;
    m.on("POST", "/order", vec![Reply::json(PLACED)]);
    m.on(
        "POST",
        "/v1/heartbeats",
        vec![
            Reply::json(r#"{"heartbeat_id":"a"}"#),
            Reply::json(r#"{"heartbeat_id":"b"}"#).delay(Duration::from_secs(30)),
        ],
    );
    let c = mock_client(&m);
    let o = resting_bids(&c, KEY_A, 1, false);
    let h = c.start_heartbeats(Duration::from_millis(50));
    wait_for("the first heartbeat", || h.status().sent >= 1).await;
    let t = Instant::now();
    loop {
        match c.post_order(&o[0]).await {
            Ok(_) => assert!(t.elapsed() < Duration::from_secs(2), "never refused"),
            Err(e) => {
                assert!(e.to_string().contains("two intervals"), "{e}");
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        t.elapsed() >= Duration::from_millis(40),
        "{:?}",
        t.elapsed()
    );
    h.stop();
}

/// Against the simulator: a chain restarted elsewhere answers `Invalid Heartbeat ID` with the
/// server's id; the task resynchronises on it at once, with no failure and no guard.
#[tokio::test]
async fn invalid_heartbeat_id_answers_resynchronise() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Off).await;
    let first = c.heartbeat(None).await.unwrap().heartbeat_id;
    let e = c.heartbeat(Some("not-the-id")).await.unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert_eq!(e.message(), Some("Invalid Heartbeat ID"));
    assert_eq!(e.heartbeat_id(), Some(first.as_str()));
    c.heartbeat(Some(&first)).await.unwrap();
    let o = resting_bids(&c, KEY_A, 1, true);

    // The guard refuses orders after two intervals without a successful heartbeat. The
    // interval is a liveness bound, not what the test checks: 30 ms let a loaded machine's
    // pause between the last heartbeat and the order trip the guard; 250 ms does not.
    let h = c.start_heartbeats(Duration::from_millis(250));
    wait_for("heartbeats", || h.status().sent >= 2).await;
    // Another process of the same user restarts the chain: the task's next id is stale.
    let other = client(&sim, KEY_A, Throttle::Off).await;
    other.heartbeat(None).await.unwrap();
    wait_for("a resync", || h.status().resynced >= 1).await;
    let sent = h.status().sent;
    wait_for("heartbeats after the resync", || h.status().sent > sent).await;
    let st = h.status();
    assert_eq!(st.failed, 0, "{st:?}");
    c.post_order(&o[0]).await.unwrap();
    h.stop();
}
