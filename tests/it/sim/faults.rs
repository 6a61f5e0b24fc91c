//! HTTP fault injection: latency, 425/429/503 on schedules and probabilities, determinism.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::{Duration, Instant};

use polyclob::types::Side;
use polyclob_sim::{Faults, HttpFault, HttpRule, Simulator, Trigger};
use support::*;

async fn status_and_retry_after(url: &str) -> (u16, Option<String>, serde_json::Value) {
    let r = reqwest::get(url).await.unwrap();
    let s = r.status().as_u16();
    let ra = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    (s, ra, body)
}

#[tokio::test]
async fn rate_limit_every_nth_with_retry_after() {
    let faults = Faults::none().http(HttpRule::new(
        Trigger::EveryNth(2),
        HttpFault::RateLimited {
            retry_after: Duration::from_millis(1500),
        },
    ));
    let sim = Simulator::builder().faults(faults).start().await.unwrap();
    let url = format!("{}/time", sim.http_url());
    let mut seen = Vec::new();
    for _ in 0..4 {
        seen.push(status_and_retry_after(&url).await);
    }
    assert_eq!(
        seen.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![200, 429, 200, 429]
    );
    assert_eq!(
        seen[1].1.as_deref(),
        Some("2"),
        "Retry-After rounds up to whole seconds"
    );
    assert_eq!(seen[1].2["error"], "Too Many Requests");
    assert_eq!(seen[0].1, None);
}

#[tokio::test]
async fn too_early_window_and_path_scoped_unavailable() {
    let faults = Faults::none()
        .http(HttpRule::new(
            Trigger::Window { first: 2, count: 2 },
            HttpFault::TooEarly,
        ))
        .http(HttpRule::new(Trigger::EveryNth(1), HttpFault::Unavailable).path_prefix("/book"));
    let sim = Simulator::builder().faults(faults).start().await.unwrap();
    let ok = format!("{}/ok", sim.http_url());
    let got: Vec<u16> = {
        let mut v = Vec::new();
        for _ in 0..5 {
            v.push(status_and_retry_after(&ok).await.0);
        }
        v
    };
    assert_eq!(got, vec![200, 425, 425, 200, 200]);
    let t = markets()[0].tokens()[0].token_id().to_owned();
    let (s, _, body) =
        status_and_retry_after(&format!("{}/book?token_id={t}", sim.http_url())).await;
    assert_eq!(s, 503);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Trading is currently disabled")
    );
    // Cleared at run time.
    sim.set_faults(Faults::none());
    assert_eq!(
        status_and_retry_after(&format!("{}/book?token_id={t}", sim.http_url()))
            .await
            .0,
        200
    );
    assert_eq!(sim.faults(), Faults::none());
}

#[tokio::test]
async fn latency_is_added() {
    let sim = Simulator::builder()
        .faults(Faults::none().latency(Duration::from_millis(300)))
        .start()
        .await
        .unwrap();
    let url = format!("{}/ok", sim.http_url());
    reqwest::get(&url).await.unwrap();
    let t0 = Instant::now();
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);
    assert!(
        t0.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t0.elapsed()
    );
    sim.set_faults(Faults::none());
    let t0 = Instant::now();
    reqwest::get(&url).await.unwrap();
    assert!(t0.elapsed() < Duration::from_millis(300));
}

#[tokio::test]
async fn probabilistic_faults_are_deterministic_per_seed() {
    async fn run(seed: u64) -> Vec<u16> {
        let faults = Faults::none().http(HttpRule::new(
            Trigger::Probability(0.4),
            HttpFault::Unavailable,
        ));
        let sim = Simulator::builder()
            .seed(seed)
            .faults(faults)
            .start()
            .await
            .unwrap();
        let url = format!("{}/ok", sim.http_url());
        let mut v = Vec::new();
        for _ in 0..40 {
            v.push(reqwest::get(&url).await.unwrap().status().as_u16());
        }
        v
    }
    let a = run(77).await;
    assert_eq!(a, run(77).await);
    assert_ne!(a, run(78).await);
    let failures = a.iter().filter(|s| **s == 503).count();
    assert!((4..=30).contains(&failures), "{failures}");
}

#[tokio::test]
async fn faults_also_hit_websocket_upgrades() {
    let sim = Simulator::builder()
        .faults(
            Faults::none()
                .http(HttpRule::new(Trigger::EveryNth(1), HttpFault::TooEarly).path_prefix("/ws/")),
        )
        .start()
        .await
        .unwrap();
    let err = tokio_tungstenite::connect_async(format!("{}/ws/market", sim.ws_url()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("425"), "{err}");
}

/// Per-account and per-market rules: one account is rate-limited while another trades, and
/// only the orders naming one market fail.
#[tokio::test]
async fn rules_can_target_one_account_or_one_market() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let limited = HttpRule::new(
        Trigger::EveryNth(1),
        HttpFault::RateLimited {
            retry_after: Duration::from_secs(2),
        },
    )
    .path_prefix("/order")
    .account(a.address().to_checksum(None));
    sim.set_faults(Faults::none().http(limited));
    for i in 0..3 {
        let (s, v, _) = a.post(&limit(YES, Side::Buy, 400_000, 5_000_000, i)).await;
        assert_eq!(s, 429, "A is rate-limited: {v}");
        let (s, v, _) = b.post(&limit(YES, Side::Buy, 400_000, 5_000_000, i)).await;
        assert_eq!(s, 200, "B is not: {v}");
    }
    // The same account through its API key.
    let by_key =
        HttpRule::new(Trigger::EveryNth(1), HttpFault::Unavailable).account(b.creds.api_key());
    sim.set_faults(Faults::none().http(by_key));
    assert_eq!(
        a.post(&limit(YES, Side::Buy, 400_000, 5_000_000, 10))
            .await
            .0,
        200
    );
    assert_eq!(
        b.post(&limit(YES, Side::Buy, 400_000, 5_000_000, 10))
            .await
            .0,
        503
    );

    // Only requests naming the No token fail, for everyone.
    let market = HttpRule::new(Trigger::EveryNth(1), HttpFault::Unavailable).market(NO);
    sim.set_faults(Faults::none().http(market));
    assert_eq!(
        a.post(&limit(YES, Side::Buy, 400_000, 5_000_000, 20))
            .await
            .0,
        200
    );
    assert_eq!(
        a.post(&limit(NO, Side::Buy, 400_000, 5_000_000, 21))
            .await
            .0,
        503
    );
    assert_eq!(get(&sim, &format!("/book?token_id={NO}")).await.0, 503);
    assert_eq!(get(&sim, &format!("/book?token_id={YES}")).await.0, 200);
}
