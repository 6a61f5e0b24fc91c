//! The per-IP limits of docs.polymarket.com/api-reference/rate-limits end to end: a client
//! with `ip_pacing` against the simulator configured with the documented numbers sends more
//! than a window's worth and draws no `429`; without pacing the same burst does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use polyclob::http::{RetryPolicy, Throttle};
use polyclob_sim::{SimBuilder, SimHandle, Simulator};

use crate::support::rails::{KEY_A, client_with, market};

const S10: Duration = Duration::from_secs(10);

/// The documented rows the bursts below meet, as the simulator enforces them.
fn documented(b: SimBuilder) -> SimBuilder {
    b.ip_limit(Some("DELETE"), "/cancel-all", 250, S10)
        .ip_limit(
            Some("DELETE"),
            "/cancel-all",
            6_000,
            Duration::from_secs(600),
        )
        .ip_limit(None, "/data-api/*", 1_000, S10)
        .ip_limit(None, "/data-api/v2/trades", 200, S10)
        .ip_limit(None, "/gamma/*", 4_000, S10)
        .ip_limit(None, "/gamma/tags*", 200, S10)
}

async fn sim() -> SimHandle {
    documented(Simulator::builder().markets(vec![market()]))
        .start()
        .await
        .unwrap()
}

fn data(sim: &SimHandle, pacing: bool) -> polyclob::data::Client {
    polyclob::data::Client::builder()
        .host(sim.data_api_url())
        .retry(RetryPolicy::none())
        .ip_pacing(pacing)
        .build()
        .unwrap()
}

/// Without pacing, 210 trade-feed requests at once meet the documented 200 per 10 s: the
/// simulator answers the excess `429` (so the paced run below could fail).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unpaced_burst_over_a_documented_limit_draws_429s() {
    let sim = sim().await;
    let d = data(&sim, false);
    let mut tasks = Vec::new();
    for _ in 0..210 {
        let d = d.clone();
        tasks.push(tokio::spawn(async move {
            d.page(&polyclob::data::Query::trades(), None).await
        }));
    }
    let mut limited = 0;
    for t in tasks {
        if let Err(e) = t.await.unwrap() {
            assert!(e.is_rate_limited(), "{e}");
            assert!(e.retry_after().is_some(), "{e}");
            limited += 1;
        }
    }
    assert_eq!(limited, 10, "{:?}", sim.rail_stats());
    assert_eq!(sim.rail_stats().ip_rate_limited, 10);
}

/// The "Done when": at the documented numbers (Data API `/trades` 200 per 10 s,
/// Gamma `/tags` 200, `DELETE /cancel-all` 250 per 10 s and 6,000 per 10 min), bursts of more
/// than a window's worth on all three at once, as fast as the paced clients allow: no `429`,
/// every request answered, and each burst spread over more than one window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paced_bursts_at_the_documented_limits_draw_no_429() {
    let sim = sim().await;
    let d = data(&sim, true);
    let g = polyclob::gamma::Client::builder()
        .host(sim.gamma_url())
        .retry(RetryPolicy::none())
        .ip_pacing(true)
        .build()
        .unwrap();
    let c = client_with(
        &sim,
        KEY_A,
        polyclob::clob::Client::builder()
            .throttle(Throttle::Wait(Duration::from_secs(30)))
            .retry(RetryPolicy::none())
            .ip_pacing(true),
    )
    .await;
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..210 {
        let d = d.clone();
        tasks.push(tokio::spawn(async move {
            d.page(&polyclob::data::Query::trades(), None)
                .await
                .map(drop)
        }));
        let g = g.clone();
        tasks.push(tokio::spawn(async move { g.tags(5).await.map(drop) }));
    }
    for _ in 0..260 {
        let c = c.clone();
        tasks.push(tokio::spawn(async move { c.cancel_all().await.map(drop) }));
    }
    let n = tasks.len();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let elapsed = t0.elapsed();
    let stats = sim.rail_stats();
    assert_eq!(stats.ip_rate_limited, 0, "no HTTP 429: {stats:?}");
    assert_eq!(n, 680);
    // More than a window's worth on each route: the last of each went out after the first
    // window closed.
    assert!(elapsed > S10, "{elapsed:?}");
    assert!(d.counters().throttle_delays > 0 && g.counters().throttle_delays > 0);
    assert!(c.counters().throttle_delays > 0);
    assert_eq!(
        (
            d.counters().rate_limited,
            g.counters().rate_limited,
            c.counters().rate_limited
        ),
        (0, 0, 0)
    );
}
