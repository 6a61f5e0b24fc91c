//! Issue 47, item 5: the Data API v2's errors, typed. The simulator's Data API answers in the
//! documented shape (`{error, code, retryable, trace_id, parameter?}`, `x-trace-id` on every
//! answer, `Retry-After` on a 503 `request_timeout`); over loopback the client reads the code,
//! the parameter and the trace id, shows the trace id in the error's text, and its one retry
//! loop retries exactly what the server calls retryable, no sooner than `Retry-After`.

use std::time::{Duration, Instant};

use polyclob::data::{self, Query};
use polyclob::http::{ApiErrorCode, RetryPolicy};
use polyclob_sim::{Faults, HttpFault, HttpRule, Simulator, Trigger};

const ME: &str = "0x983eedfbd75803602e4a6e6ea9aab6dc6b9c6748";

fn client(url: String) -> data::Client {
    data::Client::builder()
        .host(url)
        .retry(RetryPolicy {
            max_retries: 2,
            base: Duration::from_millis(10),
            max: Duration::from_secs(2),
        })
        .build()
        .unwrap()
}

fn outage(first: u64, count: u64) -> Faults {
    Faults::none().http(
        HttpRule::new(Trigger::Window { first, count }, HttpFault::Unavailable)
            .path_prefix("/data-api/v2/trades"),
    )
}

/// `retryable: false`: refused once, typed, with the parameter and the trace id; not retried.
#[tokio::test]
async fn a_refused_request_is_typed_and_not_retried() {
    let sim = Simulator::builder().start().await.unwrap();
    let data = client(sim.data_api_url());
    let e = data
        .page(&Query::trades(), Some("not-a-cursor"))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert_eq!(e.api_code(), Some(&ApiErrorCode::InvalidRequest));
    assert_eq!(e.code(), Some("invalid_request"));
    assert_eq!(
        (e.parameter(), e.retryable()),
        (Some("cursor"), Some(false))
    );
    assert!(!e.is_transient());
    let trace = e
        .trace_id()
        .expect("every answer carries a trace id")
        .to_owned();
    let text = e.to_string();
    assert!(text.contains(&trace), "{text}");
    assert!(
        text.contains("invalid cursor") && text.contains("parameter cursor"),
        "{text}"
    );
    let c = data.counters();
    assert_eq!((c.requests, c.retries, c.status_4xx), (1, 0, 1), "{c:?}");

    // A missing parameter names itself too.
    let e = data
        .collect(Query::positions("").status("OPEN"))
        .await
        .unwrap_err();
    assert_eq!(
        (e.api_code(), e.parameter()),
        (Some(&ApiErrorCode::InvalidRequest), Some("user"))
    );
}

/// `retryable: true` with `Retry-After: 1`: retried after at least a second, and the call
/// succeeds; once the outage outlasts the budget, the last answer comes back typed.
#[tokio::test]
async fn a_retryable_timeout_is_retried_after_retry_after() {
    let sim = Simulator::builder().start().await.unwrap();
    sim.set_faults(outage(1, 1));
    let data = client(sim.data_api_url());
    let started = Instant::now();
    let (trades, skipped) = data.trades(ME).await.unwrap();
    assert!(trades.is_empty() && skipped.is_empty());
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retried before Retry-After: {:?}",
        started.elapsed()
    );
    let c = data.counters();
    assert_eq!((c.requests, c.retries, c.status_5xx), (2, 1, 1), "{c:?}");

    sim.set_faults(outage(1, 10));
    let e = data.trades(ME).await.unwrap_err();
    assert_eq!(e.status(), Some(503));
    assert_eq!(e.api_code(), Some(&ApiErrorCode::RequestTimeout));
    assert_eq!(e.retryable(), Some(true));
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
    assert!(e.is_transient());
    assert!(e.to_string().contains(e.trace_id().unwrap()), "{e}");
    assert_eq!(data.counters().retries, 1 + 2, "the budget of two retries");
}

/// A 429 from the Data API is `rate_limited`, retryable, with the rule's `Retry-After`.
#[tokio::test]
async fn rate_limited_is_typed() {
    let sim = Simulator::builder().start().await.unwrap();
    sim.set_faults(
        Faults::none().http(
            HttpRule::new(
                Trigger::EveryNth(1),
                HttpFault::RateLimited {
                    retry_after: Duration::from_secs(30),
                },
            )
            .path_prefix("/data-api/"),
        ),
    );
    let data = client(sim.data_api_url());
    let e = data.value(ME).await.unwrap_err();
    assert!(e.is_rate_limited());
    assert_eq!(e.api_code(), Some(&ApiErrorCode::RateLimited));
    assert_eq!(e.retry_after(), Some(Duration::from_secs(30)));
    // Longer than the policy waits: returned at once, with the hint.
    assert_eq!(data.counters().retries, 0);
}
