//! Per-signer trading rate limits end to end: the client's governor against the simulator's
//! independent token buckets (Standard tier), header reading, tier learning, over-capacity
//! batches, and coalesced metadata lookups on a cold burst.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::rails;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use polyclob::clob::{Client, OrderFilter};
use polyclob::http::{Bucket, RetryPolicy, Throttle, Tier};
use polyclob::order::LimitOrder;
use polyclob::types::Side;
use rails::*;

/// The issue's "Done when": one signer firing 500 orders and 500 cancels as fast as it can at
/// the Standard tier sees no 429; every order is placed or refused locally with its wait; none
/// is lost or sent twice; cancels finish while orders are still throttled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn governed_burst_of_500_orders_and_500_cancels_draws_no_429() {
    let sim = sim(Some(Tier::Standard)).await;
    let c = client(&sim, KEY_A, Throttle::Wait(Duration::from_secs(8))).await;
    let orders = resting_bids(&c, KEY_A, 500, false);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, Instant)>();
    let t0 = Instant::now();
    let mut posts = Vec::new();
    for o in orders {
        let (c, tx) = (c.clone(), tx.clone());
        posts.push(tokio::spawn(async move {
            let r = c.post_order(&o).await;
            if let Ok(p) = &r {
                let _ = tx.send((p.order_id.clone(), Instant::now()));
            }
            r.map(|p| p.order_id)
        }));
    }
    drop(tx);
    // Cancel every order the moment it is placed, each in its own task.
    let canceller = {
        let c = c.clone();
        tokio::spawn(async move {
            let mut cancels = Vec::new();
            while let Some((id, placed_at)) = rx.recv().await {
                let c = c.clone();
                cancels.push(tokio::spawn(async move {
                    let r = c.cancel(&id).await;
                    (id, placed_at.elapsed(), Instant::now(), r)
                }));
            }
            let mut out = Vec::new();
            for t in cancels {
                out.push(t.await.unwrap());
            }
            out
        })
    };
    let (mut placed, mut refused) = (Vec::new(), 0);
    for p in posts {
        match p.await.unwrap() {
            Ok(id) => placed.push(id),
            Err(e) => {
                assert!(e.is_throttled() && e.is_refused_locally(), "{e}");
                let wait = e.retry_after().expect("a local refusal says when");
                assert!(wait > Duration::from_secs(8), "{wait:?}");
                refused += 1;
            }
        }
    }
    let orders_done = t0.elapsed();
    let cancels = canceller.await.unwrap();
    let stats = sim.rail_stats();
    assert_eq!(stats.rate_limited, 0, "no HTTP 429: {stats:?}");
    assert_eq!(placed.len() + refused, 500);
    // 54 at once (the burst less 10% headroom), then 40/s for the 8 s the callers wait: at
    // least 300 placed. On a busy machine the exchange's reports show arrivals bunched beyond
    // the headroom and move the waiting requests later (`slots_moved`), so up to that many
    // fewer tokens' worth fit; callers that start late (their first poll) get their 8 s
    // later. Never more than the usable burst and the refill over the whole run.
    let gs = c.governor().stats(Bucket::Order);
    let moved = (gs.slots_moved.as_millis() / 25) as usize;
    let most = 54 + (orders_done.as_secs_f64() * 40.0).ceil() as usize;
    assert!(
        (300usize.saturating_sub(moved)..=most).contains(&placed.len()),
        "{} placed, at most {most}, {gs:?}",
        placed.len()
    );
    let unique: HashSet<&String> = placed.iter().collect();
    assert_eq!(unique.len(), placed.len(), "no order sent twice");
    assert_eq!(
        cancels.len(),
        placed.len(),
        "every placed order was cancelled"
    );
    let mut worst = Duration::ZERO;
    for (id, latency, _, r) in &cancels {
        let r = r.as_ref().unwrap_or_else(|e| panic!("cancel {id}: {e}"));
        assert_eq!(r.canceled, std::slice::from_ref(id));
        worst = worst.max(*latency);
    }
    // Cancels have their own bucket: none waited behind the throttled orders (which wait up
    // to 8 s). The margin leaves room for a loaded machine's request latency.
    assert!(worst < Duration::from_secs(4), "slowest cancel {worst:?}");
    assert!(orders_done > Duration::from_secs(6), "{orders_done:?}");
    assert_eq!(stats.admitted as usize, placed.len() * 2);
    let (open, _) = c.all_orders(&OrderFilter::default()).await.unwrap();
    assert!(open.is_empty(), "{} still open", open.len());
}

/// With `Throttle::Refuse` a burst beyond the bucket is refused at once, each refusal saying
/// how long until it could go, and still nothing reaches the exchange to draw a 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuse_mode_fails_fast_with_the_wait() {
    let sim = sim(Some(Tier::Standard)).await;
    let c = client(&sim, KEY_A, Throttle::Refuse).await;
    let orders = Arc::new(resting_bids(&c, KEY_A, 200, false));
    let mut tasks = Vec::new();
    for i in 0..orders.len() {
        let (c, orders) = (c.clone(), Arc::clone(&orders));
        tasks.push(tokio::spawn(async move { c.post_order(&orders[i]).await }));
    }
    let (mut placed, mut waits) = (0, Vec::new());
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => placed += 1,
            Err(e) => {
                assert!(e.is_throttled() && !e.is_over_capacity(), "{e}");
                waits.push(e.retry_after().unwrap());
            }
        }
    }
    assert_eq!(sim.rail_stats().rate_limited, 0);
    assert!((54..120).contains(&placed), "{placed}");
    assert_eq!(placed + waits.len(), 200);
    assert!(
        waits
            .iter()
            .all(|w| *w > Duration::ZERO && *w < Duration::from_secs(5))
    );
}

/// Without the governor the simulator enforces the Standard bucket: 429 with `Retry-After`,
/// and the headers of every trading answer are readable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ungoverned_bursts_meet_the_exchange_429_and_headers_are_read() {
    let sim = sim(Some(Tier::Standard)).await;
    let c = client_with(
        &sim,
        KEY_A,
        Client::builder()
            .throttle(Throttle::Off)
            .retry(RetryPolicy::none()),
    )
    .await;
    let orders = Arc::new(resting_bids(&c, KEY_A, 150, false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..orders.len() {
        let (c, orders) = (c.clone(), Arc::clone(&orders));
        tasks.push(tokio::spawn(async move { c.post_order(&orders[i]).await }));
    }
    let mut limited = 0;
    for t in tasks {
        if let Err(e) = t.await.unwrap() {
            assert!(e.is_rate_limited() && !e.is_refused_locally(), "{e}");
            assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
            limited += 1;
        }
    }
    // The bucket held 60 and refilled 40/s while the burst arrived (spread over longer on a
    // busy machine): no more than that was admitted, and the rest met 429s.
    let refill = (started.elapsed().as_secs_f64() * 40.0).ceil() as u64;
    assert!(150 - limited <= 60 + refill, "{limited} limited");
    assert!(limited >= 1, "an ungoverned burst of 150 meets no 429");
    assert_eq!(sim.rail_stats().rate_limited, limited);
    // The governor, though off, saw every answer: the 429s, and the exchange's lower counts.
    let gs = c.governor().stats(Bucket::Order);
    assert_eq!((gs.admitted, gs.delayed, gs.refused), (0, 0, 0), "{gs:?}");
    assert_eq!(gs.rate_limited, limited, "{gs:?}");
    assert!(gs.corrections >= 1, "{gs:?}");
    let st = c.rate_limit_status(Bucket::Order).unwrap();
    assert_eq!(st.tier, Some(Tier::Standard));
    assert!(st.remaining.is_some() && st.reset.is_some());
    assert!(c.governor().tier_confirmed(), "the tier header was adopted");
}

/// The tier comes from `GET /v1/user/rate-limit-tier` or from the headers, and re-sizes the
/// buckets at run time.
#[tokio::test]
async fn the_tier_is_learnt_at_run_time() {
    let sim = sim(Some(Tier::Standard)).await;
    let c = client(&sim, KEY_A, Throttle::Refuse).await;
    let address = c.address().unwrap().to_string();
    sim.set_rate_limit_tier(&address, Tier::Silver);
    assert!(!c.governor().tier_confirmed());
    assert_eq!(c.sync_rate_limit_tier().await.unwrap(), Tier::Silver);
    assert_eq!(c.governor().tier(), Tier::Silver);
    assert_eq!(c.governor().burst(Bucket::Order), 300);
    // A second client learns it from the first order's answer.
    let c2 = client(&sim, KEY_A, Throttle::Refuse).await;
    let o = resting_bids(&c2, KEY_A, 1, true);
    c2.post_order(&o[0]).await.unwrap();
    assert_eq!(c2.governor().tier(), Tier::Silver);
    assert!(c2.governor().tier_confirmed());
}

/// A cancel list larger than the bucket can ever hold is split into batches that fit it once
/// the tier is known (never sent half, never refused by the exchange); a batch within it draws
/// its cost. (The governor refusing an oversized batch whole is tested in `clob::ratelimit`.)
#[tokio::test]
async fn over_capacity_cancel_lists_are_split_to_fit() {
    let sim = sim(Some(Tier::Standard)).await;
    let c = client_with(
        &sim,
        KEY_A,
        Client::builder().rate_limit_tier(Tier::Standard),
    )
    .await;
    let ids: Vec<String> = (0..121).map(|i| format!("0x{i:064x}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let before = sim.rail_stats();
    let r = c.cancel_orders(&refs).await.unwrap();
    assert_eq!(r.not_canceled.len(), 121, "unknown ids, all reported");
    let after = sim.rail_stats();
    assert_eq!(after.admitted, before.admitted + 2, "120 + 1");
    assert_eq!(after.rate_limited, before.rate_limited);
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    c.cancel_orders(&refs[..100]).await.unwrap();
    assert_eq!(sim.rail_stats().admitted, after.admitted + 1);
    assert!(c.governor().available(Bucket::Cancel) < 30);
}

/// A cold burst of 300 concurrent orders on one token sends one request per metadata kind
/// (tick size, neg-risk, version), not one per order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_burst_sends_one_request_per_metadata_kind() {
    use mock_clob::{MockClob, Reply};
    let m = MockClob::start().await;
    let slow = Duration::from_millis(60);
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":0.01}"#).delay(slow)],
    );
    m.on(
        "GET",
        "/neg-risk",
        vec![Reply::json(r#"{"neg_risk":false}"#).delay(slow)],
    );
    m.on(
        "GET",
        "/version",
        vec![Reply::json(r#"{"version":2}"#).delay(slow)],
    );
    m.on(
        "POST",
        "/order",
        vec![Reply::json(
            r#"{"success":true,"errorMsg":"","orderID":"0x1","status":"live"}"#,
        )],
    );
    let a = polyclob::account::Account::builder(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .client(Client::builder().host(m.url()).throttle(Throttle::Off))
        .credentials(polyclob::clob::Credentials::new("k", "AAAA", "p"))
        .build()
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..300 {
        let a = a.clone();
        tasks.push(tokio::spawn(async move {
            let req = LimitOrder::new(Side::Buy, "0.4".parse().unwrap(), "5".parse().unwrap());
            a.place_limit_order(YES, &req).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert_eq!(m.requests_to("/order").len(), 300);
    assert_eq!(m.requests_to("/tick-size").len(), 1);
    assert_eq!(m.requests_to("/neg-risk").len(), 1);
    assert_eq!(m.requests_to("/version").len(), 1);
}

/// The exchange's warning mode: over-limit requests are admitted with
/// `Poly-RateLimit-Warning: true`, which the client surfaces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warning_mode_is_surfaced() {
    let sim = polyclob_sim::Simulator::builder()
        .markets(vec![market()])
        .rate_limits(Some(Tier::Standard))
        .rate_limit_warning_only(true)
        .start()
        .await
        .unwrap();
    let c = client(&sim, KEY_A, Throttle::Off).await;
    let orders = Arc::new(resting_bids(&c, KEY_A, 100, false));
    let mut tasks = Vec::new();
    let t0 = Instant::now();
    for i in 0..orders.len() {
        let (c, orders) = (c.clone(), Arc::clone(&orders));
        tasks.push(tokio::spawn(async move { c.post_order(&orders[i]).await }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let stats = sim.rail_stats();
    assert_eq!(stats.rate_limited, 0);
    // 100 orders against a burst of 60 refilling at 40/s: at least the excess over what the
    // bucket could have refilled while they were in flight is over the limit (40 when the
    // burst takes well under a second; fewer on a slow machine).
    let over = 100 - 60 - (40.0 * elapsed).ceil() as i64;
    assert!(
        stats.warned as i64 >= over.min(20),
        "{stats:?} in {elapsed:.2} s"
    );
    assert_eq!(c.governor().warnings(), stats.warned);
}
