//! Trading restrictions, typed: post-only windows (and the local refusal of non-post-only
//! orders until they end), cancel-only mode, closed-only accounts and engine restarts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::rails;

use std::time::Duration;

use polyclob::clob::Client;
use polyclob::clob::types::OrderStatus;
use polyclob::http::{RetryPolicy, Throttle};
use rails::*;

#[tokio::test]
async fn post_only_windows_are_learnt_and_enforced_locally() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Refuse).await;
    sim.set_post_only(Some(Duration::from_secs(30)));
    let plain = resting_bids(&c, KEY_A, 3, false);
    let e = c.post_order(&plain[0]).await.unwrap_err();
    assert!(e.is_post_only_mode() && e.status() == Some(503), "{e:?}");
    assert_eq!(e.code(), Some("post_only_mode"));
    let hint = e.retry_after().unwrap();
    assert!(
        hint > Duration::from_secs(28) && hint <= Duration::from_secs(30),
        "{hint:?}"
    );
    // Until the window ends, non-post-only orders are refused without I/O.
    let e = c.post_order(&plain[1]).await.unwrap_err();
    assert!(e.is_post_only_mode() && e.is_refused_locally(), "{e:?}");
    assert!(e.retry_after().unwrap() <= hint);
    let e = c.post_orders(&plain[1..]).await.unwrap_err();
    assert!(e.is_post_only_mode() && e.is_refused_locally(), "{e:?}");
    assert_eq!(
        sim.rail_stats().post_only_refused,
        1,
        "only the first reached the exchange"
    );
    // Post-only orders still go.
    let maker = resting_bids(&c, KEY_A, 2, true);
    assert_eq!(
        c.post_order(&maker[0]).await.unwrap().status,
        OrderStatus::Live
    );
    assert_eq!(c.post_orders(&maker[1..]).await.unwrap().len(), 1);
}

#[tokio::test]
async fn cancel_only_and_closed_only_are_typed() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Refuse).await;
    let o = resting_bids(&c, KEY_A, 3, false);
    let placed = c.post_order(&o[0]).await.unwrap();
    sim.set_cancel_only(true);
    let e = c.post_order(&o[1]).await.unwrap_err();
    assert!(
        e.is_cancel_only() && !e.is_post_only_mode() && e.is_unavailable(),
        "{e:?}"
    );
    // Cancels still work.
    let r = c.cancel(&placed.order_id).await.unwrap();
    assert_eq!(r.canceled, std::slice::from_ref(&placed.order_id));
    sim.set_cancel_only(false);

    assert!(!c.closed_only().await.unwrap());
    sim.set_closed_only(&c.address().unwrap().to_string(), true);
    assert!(c.closed_only().await.unwrap());
    let e = c.post_order(&o[2]).await.unwrap_err();
    assert!(e.is_closed_only() && e.status() == Some(400), "{e:?}");
}

#[tokio::test]
async fn engine_restart_is_typed_with_its_retry_hint() {
    use mock_clob::{MockClob, Reply};
    let m = MockClob::start().await;
    m.on(
        "POST",
        "/order",
        vec![
            Reply::status(425, r#"{"error":"matching engine is restarting"}"#)
                .header("retry-after", "2"),
        ],
    );
    let c = Client::builder()
        .host(m.url())
        .signer(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .credentials(polyclob::clob::Credentials::new("k", "AAAA", "p"))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let o = resting_bids(&c, KEY_A, 1, false);
    let e = c.post_order(&o[0]).await.unwrap_err();
    assert!(e.is_engine_restart() && e.is_transient(), "{e:?}");
    assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
    assert_eq!(
        m.requests_to("/order").len(),
        1,
        "order posts are never retried"
    );
}

/// The local refusal lasts as long as the window the exchange announced, then orders go again.
#[tokio::test]
async fn post_only_refusals_end_with_the_window() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Refuse).await;
    sim.set_post_only(Some(Duration::from_millis(1_200)));
    let plain = resting_bids(&c, KEY_A, 3, false);
    let e = c.post_order(&plain[0]).await.unwrap_err();
    // The exchange rounds the window up to whole seconds.
    assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
    assert!(
        c.post_order(&plain[1])
            .await
            .unwrap_err()
            .is_refused_locally()
    );
    tokio::time::sleep(Duration::from_millis(2_050)).await;
    assert_eq!(
        c.post_order(&plain[1]).await.unwrap().status,
        OrderStatus::Live
    );
}
