//! The `tracing` feature: a hand-written subscriber collects what the crate emits while a
//! stream reconnects, the governor delays orders and a heartbeat fails (against the simulator
//! and the mock CLOB), and finds each event named and with every documented field; and no
//! field of any event or span carries a key, secret, passphrase or signature.
#![cfg(feature = "tracing")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob::{MockClob, Reply};
use crate::support::rails::{self, KEY_A, YES};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::account::user_events::UserStream;
use polyclob::clob::{Client, Credentials};
use polyclob::http::{Governor, Limit, RetryPolicy, Throttle};
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent as Event;
use polyclob::ws::market::MarketStream;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanValues};
use tracing::subscriber::Interest;
use tracing::{Event as TraceEvent, Metadata, Subscriber};

/// One event or span as collected: its name and its fields rendered as text.
#[derive(Debug, Clone)]
struct Rec {
    name: String,
    fields: Vec<(String, String)>,
}

impl Rec {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

/// Collects every event, every span's fields at creation, and every later `record`.
#[derive(Clone, Default)]
struct Collector {
    recs: Arc<Mutex<Vec<Rec>>>,
    next: Arc<AtomicU64>,
    /// Each span's metadata, by id, and the entered spans (what `Span::current` asks for).
    spans: Arc<Mutex<Vec<&'static Metadata<'static>>>>,
    entered: Arc<Mutex<Vec<Id>>>,
}

impl Collector {
    fn recs(&self) -> Vec<Rec> {
        self.recs.lock().unwrap().clone()
    }
    fn named(&self, name: &str) -> Vec<Rec> {
        self.recs().into_iter().filter(|r| r.name == name).collect()
    }
}

impl Subscriber for Collector {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut fields = Vec::new();
        attrs.record(&mut Fields(&mut fields));
        self.recs.lock().unwrap().push(Rec {
            name: attrs.metadata().name().to_owned(),
            fields,
        });
        self.spans.lock().unwrap().push(attrs.metadata());
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn current_span(&self) -> tracing_core::span::Current {
        let entered = self.entered.lock().unwrap();
        match entered.last() {
            Some(id) => {
                let meta = self.spans.lock().unwrap()[id.into_u64() as usize - 1];
                tracing_core::span::Current::new(id.clone(), meta)
            }
            None => tracing_core::span::Current::none(),
        }
    }
    fn record(&self, _: &Id, values: &SpanValues<'_>) {
        let mut fields = Vec::new();
        values.record(&mut Fields(&mut fields));
        self.recs.lock().unwrap().push(Rec {
            name: "(span record)".to_owned(),
            fields,
        });
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &TraceEvent<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        self.recs.lock().unwrap().push(Rec {
            name: event.metadata().name().to_owned(),
            fields,
        });
    }
    fn enter(&self, id: &Id) {
        self.entered.lock().unwrap().push(id.clone());
    }
    fn exit(&self, id: &Id) {
        let mut entered = self.entered.lock().unwrap();
        if let Some(at) = entered.iter().rposition(|e| e == id) {
            entered.remove(at);
        }
    }
}

fn assert_complete(r: &Rec, fields: &[&str]) {
    for f in fields {
        assert!(r.field(f).is_some(), "{} lacks `{f}`: {r:?}", r.name);
    }
}

/// The two tests here run one at a time: each installs its collector as its thread's default,
/// and while two scoped dispatchers come and go in parallel tracing's callsite-interest cache can
/// miss one of them (seen: every span of a run missing while its events arrived).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Installs `col` as this thread's default, with a second dispatcher that interests no one
/// alive for the whole binary beside it. With a single dispatcher registered, tracing-core
/// (0.1.36, `Rebuilder::JustOne`) takes it for the global one: a call site first reached on
/// another thread (another test) while a collector is the only dispatcher has its interest
/// computed from that thread's default, none, and cached as never for every thread, so the
/// collector never sees it (seen: no `polyclob.http.request` span while the governor's events
/// arrived, in 3 of 4 full runs once the simulator's own tests had left this binary). With two
/// registered, interest is computed from both, and "never" and "sometimes" make "sometimes".
fn scoped(col: &Collector) -> tracing::subscriber::DefaultGuard {
    static BESIDE: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    BESIDE.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
    tracing::subscriber::set_default(col.clone())
}

async fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_reconnect_a_governor_wait_and_a_heartbeat_failure_are_traced() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let col = Collector::default();
    let _guard = scoped(&col);

    // A reconnect: the simulator drops the market connection.
    let sim = rails::sim(None).await;
    let mut stream = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([YES])
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap();
    let mut connected = 0;
    while connected < 2 {
        let ev = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("timely")
            .expect("open");
        if let Event::Status(Status::Connected { .. }) = ev {
            connected += 1;
            if connected == 1 {
                sim.disconnect_ws();
            }
        }
    }
    let connects = col.named("polyclob.ws.connect");
    assert!(connects.len() >= 2, "{connects:?}");
    assert_complete(
        &connects[1],
        &["channel", "shard", "epoch", "reconnect", "assets"],
    );
    assert_eq!(connects[1].field("reconnect"), Some("true"));
    assert_eq!(connects[1].field("channel"), Some("market"));
    let brk = &col.named("polyclob.ws.break")[0];
    assert_complete(
        brk,
        &[
            "channel", "shard", "epoch", "reason", "recovery", "retry_ms",
        ],
    );
    assert_eq!(brk.field("recovery"), Some("reconnect"));
    let resub = &col.named("polyclob.ws.resubscribe")[0];
    assert_complete(resub, &["channel", "shard", "epoch", "assets"]);
    assert_eq!(resub.field("assets"), Some("1"));
    assert!(!col.named("polyclob.ws.connection").is_empty());
    // The resubscription brings a fresh `book` snapshot.
    while stream.counters().frames == 0 {
        tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("a snapshot after the reconnect")
            .expect("open");
    }
    let counters = stream.counters();
    assert_eq!(
        (counters.connects, counters.reconnects),
        (2, 1),
        "{counters:?}"
    );
    assert!(counters.breaks >= 1 && counters.bytes > 0, "{counters:?}");
    drop(stream);

    // A governor wait: 5 orders a second, burst 2; four at once make two wait (sent one after
    // another, a slow machine's round trips could refill the bucket between them).
    let governor = Arc::new(Governor::with_limits(Limit::new(5, 2), Limit::new(10, 4)));
    let c = rails::client_with(
        &sim,
        KEY_A,
        Client::builder()
            .throttle(Throttle::Wait(Duration::from_secs(2)))
            .governor(governor),
    )
    .await;
    let orders = rails::resting_bids(&c, KEY_A, 4, false);
    for r in futures_util::future::join_all(orders.iter().map(|o| c.post_order(o))).await {
        r.unwrap();
    }
    let waits = col.named("polyclob.governor.wait");
    assert!(!waits.is_empty(), "no governor wait traced");
    assert_complete(&waits[0], &["endpoint", "bucket", "cost", "wait_ms"]);
    assert_eq!(waits[0].field("endpoint"), Some("/order"));
    let requests = col.named("polyclob.http.request");
    assert!(
        requests
            .iter()
            .any(|r| r.field("endpoint") == Some("/order")),
        "{requests:?}"
    );
    assert_complete(&requests[0], &["method", "endpoint", "attempt"]);
    assert!(
        col.recs()
            .iter()
            .any(|r| r.name == "(span record)" && r.field("rate_limit_wait_ms").is_some()),
        "the wait is recorded on the request span"
    );
    let posts = col.named("polyclob.order.post");
    assert_eq!(posts.len(), 4);
    assert_complete(&posts[0], &["ok", "order_id", "order_status", "status"]);
    let counters = c.counters();
    assert_eq!(counters.throttle_delays, waits.len() as u64, "{counters:?}");
    assert!(counters.throttle_delay > Duration::ZERO);

    // A heartbeat failure, from the mock CLOB.
    let m = MockClob::start().await;
    m.on(
        "POST",
        "/v1/heartbeats",
        vec![Reply::status(500, r#"{"error":"boom"}"#)],
    );
    let hb = Client::builder()
        .host(m.url())
        .signer(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .credentials(Credentials::new("k", "AAAA", "p"))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let h = hb.start_heartbeats(Duration::from_millis(20));
    wait_for("a failed heartbeat", || h.status().failed >= 1).await;
    let failed = &col.named("polyclob.heartbeat.failed")[0];
    assert_complete(failed, &["ok", "status", "error"]);
    assert_eq!(failed.field("status"), Some("500"));
    assert!(hb.counters().heartbeat_failures >= 1);
    assert!(hb.counters().status_5xx >= 1);
}

#[tokio::test(flavor = "current_thread")]
async fn no_secret_reaches_a_tracing_field() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let col = Collector::default();
    let _guard = scoped(&col);
    let sim = rails::sim(None).await;
    let c = rails::client(&sim, KEY_A, Throttle::Wait(Duration::from_secs(2))).await;
    let creds: Credentials = c
        .create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    let orders = rails::resting_bids(&c, KEY_A, 2, true);
    let body: serde_json::Value =
        serde_json::from_slice(&orders[0].to_json(creds.api_key())).unwrap();
    let signature = body["order"]["signature"].as_str().unwrap().to_owned();
    let placed = c.post_order(&orders[0]).await.unwrap();
    c.cancel(&placed.order_id).await.unwrap();
    c.heartbeat(None).await.unwrap();
    // The user channel authenticates with the same credentials; reconnect once.
    let mut user = UserStream::builder(creds.clone())
        .url(sim.user_ws_url())
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap();
    let mut connected = 0;
    while connected < 2 {
        let ev = tokio::time::timeout(Duration::from_secs(10), user.next())
            .await
            .expect("timely")
            .expect("open");
        if let Event::Status(Status::Connected { .. }) = ev {
            connected += 1;
            if connected == 1 {
                sim.disconnect_ws();
            }
        }
    }
    let recs = col.recs();
    assert!(recs.len() > 10, "something was traced: {recs:?}");
    let secrets = [
        KEY_A,
        creds.api_key(),
        creds.secret(),
        creds.passphrase(),
        signature.as_str(),
        signature.trim_start_matches("0x"),
    ];
    for r in &recs {
        for (k, v) in &r.fields {
            for s in secrets {
                assert!(!v.contains(s), "{}.{k} carries a secret: {v}", r.name);
            }
        }
    }
}

/// A PolyBolt sequence gap: the stream reconnects for new snapshots, and that reconnect is
/// the same `polyclob.ws.break` event (channel `polybolt`, every field of the table) and the
/// one counted break, as for any other stream.
#[tokio::test(flavor = "current_thread")]
async fn a_polybolt_gap_is_traced_and_counted_as_one_break() {
    use crate::support::ws_server::{Action, WsServer};
    use polyclob::polybolt::decode::BoltMessage;
    use polyclob::polybolt::{BoltSubscription, PolyBoltStream};
    use polyclob::ws::continuity::Cause;
    use polyclob::ws::feed::FeedEvent as PolyBoltEvent;

    let _serial = ONE_AT_A_TIME.lock().await;
    let col = Collector::default();
    let _guard = scoped(&col);
    let update = |seq: u64| {
        format!(
            r#"{{"v":1,"channel":"price.crypto.twap","seq":{seq},"ts":1788973001000,"dropped":0,"payload":{{"symbol":"btcusd","value":64126.0,"full_accuracy_value":"64126","timestamp":1788973001000,"window_seconds":60,"source":"chainlink"}}}}"#
        )
    };
    let s = WsServer::start().await;
    s.reply_to(
        r#""op":"auth""#,
        vec![r#"{"op":"authed","rid":"auth"}"#.to_owned()],
    );
    s.reply_to(
        r#""op":"subscribe""#,
        vec![
            r#"{"op":"subscribed","channel":"price.crypto.twap","rid":"s1"}"#.to_owned(),
            r#"{"v":1,"channel":"price.crypto.twap","seq":1,"ts":1788973000000,"snapshot":true,"payload":{"symbol":"btcusd","source":"chainlink","window_seconds":60,"data":[{"timestamp":1788972880000,"value":64123.5,"full_accuracy_value":"64123.500000001"}]}}"#.to_owned(),
        ],
    );
    let mut stream = PolyBoltStream::builder()
        .url(s.url())
        .no_proxy()
        .credentials(Credentials::new("key-1", "c2VjcmV0LXNlY3JldA==", "pass-1"))
        .subscribe(BoltSubscription::crypto_twap("btcusd"))
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap();
    let (mut snapshots, mut gap) = (0, false);
    while snapshots < 2 {
        match tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("timely")
            .expect("open")
        {
            PolyBoltEvent::Message(m) => {
                if let Ok(BoltMessage::Data(e)) = m.message() {
                    if e.snapshot {
                        snapshots += 1;
                        if snapshots == 1 {
                            // seq 2, then 5: 3 and 4 lost.
                            s.act(0, Action::Text(update(2)));
                            s.act(0, Action::Text(update(5)));
                        }
                    }
                }
            }
            PolyBoltEvent::Break(b) => {
                gap |= matches!(
                    b.cause,
                    Cause::SequenceGap {
                        expected: 3,
                        got: 5,
                        ..
                    }
                );
            }
            _ => {}
        }
    }
    assert!(gap, "the gap was reported");
    let traced: Vec<Rec> = col
        .named("polyclob.ws.break")
        .into_iter()
        .filter(|r| r.field("channel") == Some("polybolt"))
        .collect();
    assert_eq!(traced.len(), 1, "{traced:?}");
    assert_complete(
        &traced[0],
        &[
            "channel", "shard", "epoch", "reason", "recovery", "retry_ms",
        ],
    );
    assert_eq!(traced[0].field("recovery"), Some("reconnect"));
    let c = stream.counters();
    assert_eq!((c.breaks, c.reconnects), (1, 1), "{c:?}");
}

/// A Data API page with one bad row after a retried 503: one `polyclob.http.skipped_row`
/// event with every documented field (and not the row's text), the retry event and the
/// request span carrying the server's trace id.
#[tokio::test(flavor = "current_thread")]
async fn a_skipped_row_and_a_trace_id_are_traced() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let col = Collector::default();
    let _guard = scoped(&col);
    let m = MockClob::start().await;
    let busy = r#"{"error":"query timed out","code":"request_timeout","retryable":true,"trace_id":"trace-503"}"#;
    let page = r#"{"data":[{"token_id":"1"},{"token_id":"2","current_size":"lots"}],"pagination":{"has_more":false,"next_cursor":null}}"#;
    let long_id = format!("trace-200-{}", "x".repeat(10_000));
    m.on(
        "GET",
        "/v2/positions",
        vec![
            Reply::status(503, busy)
                .header("retry-after", "0")
                .header("x-trace-id", "trace-503"),
            // A server id of 10k characters: the span keeps its first 128.
            Reply::json(page).header("x-trace-id", &long_id),
        ],
    );
    let data = polyclob::data::Client::builder()
        .host(m.url())
        .build()
        .unwrap();
    let (rows, skipped) = data.positions("0x1").await.unwrap();
    assert_eq!((rows.len(), skipped.len()), (1, 1));
    let events = col.named("polyclob.http.skipped_row");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_complete(
        &events[0],
        &["endpoint", "list", "index", "reason", "raw_len"],
    );
    assert_eq!(events[0].field("endpoint"), Some("/v2/positions"));
    assert_eq!(events[0].field("index"), Some("1"));
    assert!(
        events[0]
            .fields
            .iter()
            .all(|(_, v)| !v.contains("lots\\\"}")),
        "the row's text stays out of the event: {events:?}"
    );
    let retry = &col.named("polyclob.http.retry")[0];
    assert_eq!(retry.field("trace_id"), Some("trace-503"));
    assert!(
        retry.field("error").unwrap().contains("trace-503"),
        "{retry:?}"
    );
    let recs = col.recs();
    let recorded: Vec<&str> = recs
        .iter()
        .filter(|r| r.name == "(span record)")
        .filter_map(|r| r.field("trace_id"))
        .collect();
    assert_eq!(
        recorded,
        ["trace-503", &long_id[..128]],
        "each attempt's span records its answer's trace id, bounded"
    );
    assert_eq!(data.counters().skipped_rows, 1);
}
