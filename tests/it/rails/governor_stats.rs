//! The governor's statistics through a client against the simulator: a burst it must delay
//! shows the delays (and the client really waited them), a run it never throttles shows none,
//! and an ungoverned burst that meets the exchange's 429s counts them and the corrections the
//! exchange's `Poly-RateLimit-Remaining` made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::rails;

use std::sync::Arc;
use std::time::{Duration, Instant};

use polyclob::clob::Client;
use polyclob::clob::types::OrderStatus;
use polyclob::http::{Bucket, BucketStats, Governor, Limit, Throttle, Tier};
use rails::*;

#[tokio::test]
async fn a_governed_burst_records_its_delays() {
    let sim = sim(None).await;
    // 5 orders a second (one every 200 ms), burst 2: posting 4 back to back makes the last
    // two wait for their tokens (unless a round trip took longer than the refill).
    let governor = Arc::new(Governor::with_limits(Limit::new(5, 2), Limit::new(10, 4)));
    let c = client_with(
        &sim,
        KEY_A,
        Client::builder()
            .throttle(Throttle::Wait(Duration::from_secs(2)))
            .governor(Arc::clone(&governor)),
    )
    .await;
    let orders = resting_bids(&c, KEY_A, 4, false);
    let t0 = Instant::now();
    for o in &orders {
        assert_eq!(c.post_order(o).await.unwrap().status, OrderStatus::Live);
    }
    let elapsed = t0.elapsed();
    let s = c.governor().stats(Bucket::Order);
    assert_eq!((s.admitted, s.refused, s.rate_limited), (4, 0, 0), "{s:?}");
    // Each delayed order waited at most one refill interval (a round trip may have refilled
    // part of it, and a very slow one all of it).
    assert!((1..=2).contains(&s.delayed), "{s:?}");
    assert!(
        s.max_delay > Duration::ZERO && s.max_delay <= Duration::from_millis(200),
        "{s:?}"
    );
    assert!(s.total_delay >= s.max_delay, "{s:?}");
    assert!(s.total_delay <= s.max_delay * 2, "{s:?}");
    assert!(s.mean_delay() <= s.max_delay);
    // The client slept the waits it recorded.
    assert!(elapsed >= s.total_delay, "{elapsed:?} < {s:?}");
    // The cancel bucket saw nothing; the sim's stats agree that nothing was limited.
    assert_eq!(c.governor().stats(Bucket::Cancel), BucketStats::default());
    assert_eq!(sim.rail_stats().rate_limited, 0);
    // A cancel draws on its own bucket, undelayed.
    c.cancel_all().await.unwrap();
    let s = c.governor().stats(Bucket::Cancel);
    assert_eq!(
        (s.admitted, s.delayed, s.total_delay),
        (1, 0, Duration::ZERO)
    );
}

#[tokio::test]
async fn an_unthrottled_run_shows_no_delay() {
    let sim = sim(Some(Tier::Standard)).await;
    // The default governor (Standard, 54 usable tokens) never has to wait for 10 orders.
    let c = client(&sim, KEY_A, Throttle::Wait(Duration::from_secs(2))).await;
    for o in resting_bids(&c, KEY_A, 10, false) {
        c.post_order(&o).await.unwrap();
    }
    let s = c.governor().stats(Bucket::Order);
    assert_eq!((s.admitted, s.delayed, s.refused), (10, 0, 0), "{s:?}");
    assert_eq!(
        (s.total_delay, s.max_delay),
        (Duration::ZERO, Duration::ZERO)
    );
    assert_eq!(s.rate_limited, 0);
    // The exchange reported what it holds; it never held fewer than the client's bucket.
    assert_eq!(s.corrections, 0, "{s:?}");
}
