//! Fault injection: HTTP latency and 425/429/503 on schedules and probabilities,
//! determinism; rules for one account or one market, over HTTP and on the WebSockets.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::{Duration, Instant};

use polyclob::types::Side;
use polyclob_sim::{
    Faults, HttpFault, HttpRule, MarketSpec, Simulator, Trigger, WsChannel, WsFault, WsRule,
};
use support::*;

async fn status_and_retry_after(url: &str) -> (u16, Option<String>, serde_json::Value) {
    let r = http_client().get(url).send().await.unwrap();
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
    http_client().get(&url).send().await.unwrap();
    let t0 = Instant::now();
    assert_eq!(http_client().get(&url).send().await.unwrap().status(), 200);
    assert!(
        t0.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t0.elapsed()
    );
    sim.set_faults(Faults::none());
    let t0 = Instant::now();
    http_client().get(&url).send().await.unwrap();
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
            v.push(
                http_client()
                    .get(&url)
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16(),
            );
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

const C: u64 = 10_000;
const S: u64 = 1_000_000;

fn user_auth(t: &Trader) -> String {
    format!(
        r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}},"markets":[],"type":"user"}}"#,
        t.creds.api_key(),
        t.creds.secret(),
        t.creds.passphrase()
    )
}

/// Sends `PING` and waits for its `PONG`: what was sent before has been handled.
async fn ping(w: &mut Ws) {
    send(w, "PING").await;
    assert_eq!(next_text(w, LONG).await.as_deref(), Some("PONG"));
}

/// A WS rule for one account cuts that account's user channel only; the other account's
/// connection stays up and receives every one of its events.
#[tokio::test]
async fn ws_rule_cuts_one_accounts_user_channel_only() {
    let sim = start_empty().await;
    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    // A's second frame (its first is the PONG below) drops the connection, once.
    sim.set_faults(
        Faults::none().ws(
            WsRule::new(Trigger::Window { first: 2, count: 1 }, WsFault::Disconnect)
                .channel(WsChannel::User)
                .account(a.address().to_checksum(None)),
        ),
    );
    let mut wa = ws(&sim, "user").await;
    send(&mut wa, &user_auth(&a)).await;
    ping(&mut wa).await;
    let mut wb = ws(&sim, "user").await;
    send(&mut wb, &user_auth(&b)).await;
    ping(&mut wb).await;

    let mut b_ids = Vec::new();
    for i in 0..3 {
        b_ids.push(
            b.post(&limit(YES, Side::Buy, (30 + i) * C, 5 * S, i))
                .await
                .2,
        );
    }
    let (_, _, a_id) = a.post(&limit(YES, Side::Sell, 70 * C, 5 * S, 10)).await;
    // A's order event is the frame that cuts A: the socket ends without it.
    assert_eq!(next_text(&mut wa, LONG).await, None, "A's channel is cut");
    for i in 3..6 {
        b_ids.push(
            b.post(&limit(YES, Side::Buy, (30 + i) * C, 5 * S, i))
                .await
                .2,
        );
    }
    let mut seen = Vec::new();
    while seen.len() < b_ids.len() {
        let e = wait_event(&mut wb, "order", LONG)
            .await
            .expect("B's connection stays up");
        assert_eq!(e["type"], "PLACEMENT");
        seen.push(e["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(seen, b_ids, "B saw every one of its events, in order");
    ping(&mut wb).await;

    // The rule fired once: A's next connection works.
    let mut wa = ws(&sim, "user").await;
    send(&mut wa, &user_auth(&a)).await;
    ping(&mut wa).await;
    a.l2(
        "DELETE",
        "/order",
        Some(&format!(r#"{{"orderID":"{a_id}"}}"#)),
    )
    .await;
    let e = wait_event(&mut wa, "order", LONG).await.unwrap();
    assert_eq!(
        (e["type"].as_str(), e["id"].as_str()),
        (Some("CANCELLATION"), Some(a_id.as_str()))
    );
}

/// A WS rule for one market silences the connections that carry it; a connection
/// subscribed to another market keeps receiving everything.
#[tokio::test]
async fn ws_rule_silences_one_markets_subscribers_only() {
    const COND2: &str = "0x00000000000000000000000000000000000000000000000000000000000000c2";
    const YES2: &str = "2001";
    let sim = Simulator::builder()
        .markets(vec![
            empty_market(),
            MarketSpec::binary(COND2, "Second test market", [YES2, "2002"]).seed_levels(0),
        ])
        .start()
        .await
        .unwrap();
    let a = Trader::new(&sim, KEY_A).await;
    // Counted over frames about market COND (either token): the snapshot is the first, the
    // first price change the second.
    let silence = Duration::from_millis(2500);
    sim.set_faults(
        Faults::none().ws(WsRule::new(
            Trigger::Window { first: 2, count: 1 },
            WsFault::Silence(silence),
        )
        .market(COND)),
    );
    let subscribe = |asset: &str| format!(r#"{{"assets_ids":["{asset}"],"type":"market"}}"#);
    let mut w1 = ws(&sim, "market").await;
    send(&mut w1, &subscribe(YES)).await;
    assert_eq!(
        next_events(&mut w1, LONG).await.unwrap()[0]["event_type"],
        "book"
    );
    let mut w2 = ws(&sim, "market").await;
    send(&mut w2, &subscribe(YES2)).await;
    assert_eq!(
        next_events(&mut w2, LONG).await.unwrap()[0]["event_type"],
        "book"
    );

    let silenced_at = Instant::now();
    for i in 0..3 {
        a.post(&limit(YES, Side::Buy, (20 + i) * C, 5 * S, i)).await;
        a.post(&limit(YES2, Side::Buy, (20 + i) * C, 5 * S, 10 + i))
            .await;
    }
    // The other market's subscriber sees each of its three changes.
    for want in ["0.2", "0.21", "0.22"] {
        let e = wait_event(&mut w2, "price_change", LONG).await.unwrap();
        assert_eq!(e["price_changes"][0]["price"], want, "{e}");
    }
    // The silenced one sees nothing, not even a PONG, while the silence lasts.
    send(&mut w1, "PING").await;
    let quiet = next_text(&mut w1, Duration::from_millis(400)).await;
    assert_eq!(quiet, None);
    assert!(
        silenced_at.elapsed() < silence,
        "the check ran inside the silence"
    );
    // Then the connection speaks again (what was due meanwhile is lost).
    tokio::time::sleep(silence.saturating_sub(silenced_at.elapsed())).await;
    let deadline = Instant::now() + LONG;
    loop {
        send(&mut w1, "PING").await;
        if next_text(&mut w1, Duration::from_millis(200))
            .await
            .as_deref()
            == Some("PONG")
        {
            break;
        }
        assert!(Instant::now() < deadline, "the silence ends");
    }
    a.post(&limit(YES, Side::Buy, 30 * C, 5 * S, 20)).await;
    let e = wait_event(&mut w1, "price_change", LONG).await.unwrap();
    assert_eq!(e["price_changes"][0]["price"], "0.3");
}
