//! The order lane (`ClientBuilder::order_lane`): the same answers and errors as the reqwest
//! path against the simulator, and its own HTTP/1.1 handling against a scripted loopback
//! server (keep-alive, closed connections, unknown outcomes, chunked and byte-at-a-time
//! responses, malformed answers, timeouts, concurrency).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::rails;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use polyclob::clob::{Client, ClientBuilder, Credentials};
use polyclob::http::{Bucket, Error, RetryPolicy, Throttle};
use polyclob::order::SignedOrder;
use polyclob::sign::Signer;
use rails::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ACCEPTED: &str = r#"{"errorMsg":"","orderID":"0x3f6f2c1b0c4d7a9e5f8b2a1d0e9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170","takingAmount":"","makingAmount":"","status":"live","success":true}"#;

/// What the scripted server does with request `n` (0-based, over all connections).
#[derive(Clone)]
enum Act {
    /// Answer with these exact bytes; then close if `close`.
    Reply(Vec<u8>, bool),
    /// Answer one byte per write.
    Bytewise(Vec<u8>),
    /// Read the request, then drop the connection without answering.
    Drop,
    /// Never answer.
    Hang,
}

fn ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

struct Raw {
    url: String,
    accepts: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Raw {
    async fn start(script: impl Fn(usize) -> Act + Send + Sync + 'static) -> Self {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let accepts = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<dyn Fn(usize) -> Act + Send + Sync> = Arc::new(script);
        let (a, r) = (Arc::clone(&accepts), Arc::clone(&requests));
        tokio::spawn(async move {
            while let Ok((s, _)) = l.accept().await {
                a.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(conn(s, Arc::clone(&r), Arc::clone(&script)));
            }
        });
        Self {
            url,
            accepts,
            requests,
        }
    }

    fn accepts(&self) -> usize {
        self.accepts.load(Ordering::SeqCst)
    }

    fn requests(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

async fn conn(
    mut s: TcpStream,
    log: Arc<Mutex<Vec<String>>>,
    script: Arc<dyn Fn(usize) -> Act + Send + Sync>,
) {
    let mut buf = Vec::new();
    loop {
        let end = loop {
            if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
            let mut chunk = [0u8; 4096];
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .map_or(0, |v| v.trim().parse().unwrap());
        while buf.len() < end + len {
            let mut chunk = [0u8; 4096];
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let n = {
            let mut l = log.lock().unwrap();
            l.push(String::from_utf8_lossy(&buf[..end + len]).into_owned());
            l.len() - 1
        };
        buf.drain(..end + len);
        match script(n) {
            Act::Reply(bytes, close) => {
                if s.write_all(&bytes).await.is_err() || close {
                    return;
                }
            }
            Act::Bytewise(bytes) => {
                for b in bytes {
                    if s.write_all(&[b]).await.is_err() {
                        return;
                    }
                    s.flush().await.unwrap();
                    tokio::time::sleep(Duration::from_micros(200)).await;
                }
            }
            Act::Drop => return,
            Act::Hang => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                return;
            }
        }
    }
}

fn raw_client(url: &str, timeout: Duration) -> Client {
    let c = ClientBuilder::new()
        .host(url)
        .signer(Signer::from_hex(KEY_A).unwrap())
        .throttle(Throttle::Off)
        .retry(RetryPolicy::none())
        .timeout(timeout)
        .order_lane(true)
        .build()
        .unwrap();
    c.set_credentials(Credentials::new(
        "00000000-0000-0000-0000-000000000001",
        "dGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZy12YWx1ZS0wMQ==",
        "lane-passphrase",
    ));
    c
}

fn orders(c: &Client, n: usize) -> Vec<SignedOrder> {
    resting_bids(c, KEY_A, n, false)
}

#[tokio::test]
async fn keep_alive_is_reused_and_requests_are_well_formed() {
    let srv = Raw::start(|_| Act::Reply(ok(ACCEPTED), false)).await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    // `GET /time` gets an order answer here (a decode error), after the lane was opened.
    assert!(c.prewarm().await.is_err());
    assert_eq!((srv.accepts(), c.order_lane_connections()), (2, 1));
    for o in orders(&c, 3) {
        let r = c.post_order(&o).await.unwrap();
        assert!(r.success && r.status == polyclob::clob::types::OrderStatus::Live);
    }
    assert_eq!(srv.requests(), 4);
    let reqs = srv.requests.lock().unwrap().clone();
    let posts: Vec<_> = reqs
        .iter()
        .filter(|r| r.starts_with("POST /order "))
        .collect();
    assert_eq!(posts.len(), 3, "{reqs:?}");
    for r in posts {
        let lower = r.to_ascii_lowercase();
        for h in [
            "host: 127.0.0.1:",
            "poly_address: 0x",
            "poly_signature: ",
            "poly_timestamp: ",
            "poly_api_key: 00000000-0000-0000-0000-000000000001",
            "poly_passphrase: lane-passphrase",
            "content-type: application/json",
        ] {
            assert!(lower.contains(h), "{h} missing in {r}");
        }
        assert!(r.contains(r#""orderType":"GTC""#));
    }
    // `GET /time` went by reqwest (one connection), the orders by one lane connection.
    assert_eq!(srv.accepts(), 2);
    assert_eq!(c.order_lane_connections(), 1);
}

#[tokio::test]
async fn connection_close_and_silent_idle_close_reconnect_and_send_once() {
    // Request 0 answers with `Connection: close`; request 1 is answered and then the server
    // closes that idle connection without a word.
    let srv = Raw::start(|n| match n {
        0 => Act::Reply(
            format!(
                "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{ACCEPTED}",
                ACCEPTED.len()
            )
            .into_bytes(),
            true,
        ),
        1 => Act::Reply(ok(ACCEPTED), true),
        _ => Act::Reply(ok(ACCEPTED), false),
    })
    .await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    let o = orders(&c, 3);
    c.post_order(&o[0]).await.unwrap();
    c.post_order(&o[1]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    c.post_order(&o[2]).await.unwrap();
    assert_eq!(srv.requests(), 3, "each order sent once");
    assert_eq!(srv.accepts(), 3, "a new connection after each close");
}

#[tokio::test]
async fn a_post_without_answer_is_not_resent_and_says_the_outcome_is_unknown() {
    let srv = Raw::start(|n| {
        if n == 0 {
            Act::Drop
        } else {
            Act::Reply(ok(ACCEPTED), false)
        }
    })
    .await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    let o = orders(&c, 2);
    let e = c.post_order(&o[0]).await.unwrap_err();
    assert!(e.to_string().contains("outcome is unknown"), "{e}");
    assert!(e.is_transient() && !e.is_status(), "{e:?}");
    assert_eq!(srv.requests(), 1, "not resent");
    c.post_order(&o[1]).await.unwrap();
    assert_eq!(srv.requests(), 2);
}

#[tokio::test]
async fn an_unanswered_cancel_is_retried_once_on_a_fresh_connection() {
    let cancelled = r#"{"canceled":["0xab"],"not_canceled":{}}"#;
    let srv = Raw::start(move |n| match n {
        0 => Act::Drop,
        _ => Act::Reply(ok(cancelled), false),
    })
    .await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    let r = c.cancel("0xab").await.unwrap();
    assert_eq!(r.canceled, vec!["0xab".to_owned()]);
    assert_eq!((srv.requests(), srv.accepts()), (2, 2));
    // Twice unanswered: the error, after exactly one retry.
    let srv = Raw::start(|_| Act::Drop).await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    let e = c.cancel("0xab").await.unwrap_err();
    assert!(e.is_transient(), "{e:?}");
    assert_eq!(srv.requests(), 2);
}

#[tokio::test]
async fn chunked_and_byte_at_a_time_responses() {
    let chunked = {
        let (a, b) = ACCEPTED.split_at(40);
        format!(
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{b}\r\n0\r\n\r\n",
            a.len(),
            b.len()
        )
    };
    let srv = Raw::start(move |n| match n % 2 {
        0 => Act::Reply(chunked.clone().into_bytes(), false),
        _ => Act::Bytewise(ok(ACCEPTED)),
    })
    .await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    for o in orders(&c, 4) {
        let r = c.post_order(&o).await.unwrap();
        assert_eq!(r.status, polyclob::clob::types::OrderStatus::Live);
    }
    assert_eq!((srv.requests(), srv.accepts()), (4, 1));
}

#[tokio::test]
async fn malformed_and_oversize_answers_are_clear_errors() {
    let bad: Vec<Vec<u8>> = vec![
        b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n".to_vec(),
        b"SMTP ready\r\n\r\n".to_vec(),
        b"HTTP/1.1 200 OK\r\ncontent-length: 999999999999\r\n\r\n".to_vec(),
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nnothex\r\n".to_vec(),
        {
            let mut v = b"HTTP/1.1 200 OK\r\nx-pad: ".to_vec();
            v.resize(40_000, b'a');
            v
        },
    ];
    let n = bad.len();
    let script = bad.clone();
    let srv = Raw::start(move |i| Act::Reply(script[i % n].clone(), false)).await;
    let c = raw_client(&srv.url, Duration::from_secs(5));
    for o in orders(&c, n) {
        let e = c.post_order(&o).await.unwrap_err();
        assert!(e.to_string().contains("malformed response"), "{e}");
        assert!(e.to_string().contains("outcome is unknown"), "{e}");
    }
    assert_eq!(srv.requests(), n);
}

#[tokio::test]
async fn the_client_timeout_holds_on_the_lane() {
    let srv = Raw::start(|n| {
        if n == 0 {
            Act::Hang
        } else {
            Act::Reply(ok(ACCEPTED), false)
        }
    })
    .await;
    let c = raw_client(&srv.url, Duration::from_millis(300));
    let o = orders(&c, 2);
    let t = Instant::now();
    let e = c.post_order(&o[0]).await.unwrap_err();
    assert!(e.is_timeout(), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(3));
    // The hung connection is not reused.
    c.post_order(&o[1]).await.unwrap();
    assert_eq!((srv.requests(), srv.accepts()), (2, 2));
}

#[tokio::test]
async fn eight_concurrent_posts_all_succeed() {
    let srv = Raw::start(|_| Act::Bytewise(ok(ACCEPTED))).await;
    let c = raw_client(&srv.url, Duration::from_secs(10));
    let o = orders(&c, 8);
    let all = futures_util::future::join_all(o.iter().map(|o| c.post_order(o))).await;
    assert!(
        all.iter().all(|r| r.as_ref().is_ok_and(|r| r.success)),
        "{all:?}"
    );
    assert_eq!(srv.requests(), 8);
    // Four on lane connections; the rest did not wait for one (they went by reqwest).
    assert!(c.order_lane_connections() <= 4);
}

/// Outcome of a scenario, comparable between the two paths.
fn shape(r: &Result<polyclob::clob::types::PostOrderResponse, Error>) -> String {
    match r {
        Ok(r) => format!("ok {} {} {}", r.success, r.status, r.error_msg),
        Err(e) => format!(
            "err {:?} {:?} {:?} crossing={} post_only_mode={} throttled={} rate_limited={} retry_after={}",
            e.status(),
            e.message(),
            e.code(),
            e.is_post_only_crossing(),
            e.is_post_only_mode(),
            e.is_throttled(),
            e.is_rate_limited(),
            e.retry_after().is_some()
        ),
    }
}

async fn simulator_run(lane: bool) -> Vec<String> {
    let sim = sim(Some(polyclob::http::Tier::Standard)).await;
    let build = |key| {
        client_with(
            &sim,
            key,
            Client::builder()
                .throttle(Throttle::Off)
                .retry(RetryPolicy::none())
                .order_lane(lane),
        )
    };
    let a = build(KEY_A).await;
    let b = build(KEY_B).await;
    let mut out = Vec::new();
    // Accepted, then a post-only bid crossing B's ask (refused).
    let ask = {
        let ctx = b
            .market_context_with(YES, polyclob::types::TickSize::Hundredth, false)
            .unwrap();
        let req = polyclob::order::LimitOrder::new(
            polyclob::types::Side::Sell,
            polyclob::fixed::Price::new(600_000).unwrap(),
            "5".parse().unwrap(),
        );
        order_signer(KEY_B).limit_order(&ctx, &req).unwrap()
    };
    out.push(shape(&b.post_order(&ask).await));
    let cross = {
        let ctx = a
            .market_context_with(YES, polyclob::types::TickSize::Hundredth, false)
            .unwrap();
        let req = polyclob::order::LimitOrder::new(
            polyclob::types::Side::Buy,
            polyclob::fixed::Price::new(600_000).unwrap(),
            "5".parse().unwrap(),
        )
        .post_only(true);
        order_signer(KEY_A).limit_order(&ctx, &req).unwrap()
    };
    out.push(shape(&a.post_order(&cross).await));
    // A batch: accepted per order.
    let batch = resting_bids(&a, KEY_A, 3, false);
    out.push(format!(
        "{:?}",
        a.post_orders(&batch)
            .await
            .map(|v| v.iter().map(|r| r.status.clone()).collect::<Vec<_>>())
    ));
    out.push(format!(
        "{:?}",
        a.rate_limit_status(Bucket::Order)
            .map(|s| (s.status, s.tier))
    ));
    // Cancels.
    let all = a.cancel_all().await.unwrap();
    out.push(format!("cancel-all {}", all.canceled.len()));
    // 503 post-only mode with its hint.
    sim.set_post_only(Some(Duration::from_secs(30)));
    out.push(shape(
        &a.post_order(&resting_bids(&a, KEY_A, 1, false)[0]).await,
    ));
    sim.set_post_only(None);
    // A burst over the Standard tier's order limit: 429s with Retry-After.
    let burst = resting_bids(&b, KEY_B, 120, false);
    let mut shapes = Vec::new();
    let mut limited = 0;
    for o in &burst {
        let r = b.post_order(o).await;
        if r.is_err() {
            limited += 1;
            shapes.push(shape(&r));
        }
    }
    shapes.dedup();
    out.push(format!("refused {shapes:?}"));
    // The governor (off, metering only) saw the same answers either way.
    let gs = b.governor().stats(Bucket::Order);
    out.push(format!(
        "governor: 429s counted {}, corrections {}, admitted {}",
        gs.rate_limited == limited && limited > 0,
        gs.corrections >= 1,
        gs.admitted
    ));
    let st = b.rate_limit_status(Bucket::Order).unwrap();
    out.push(format!(
        "{:?} {}",
        st.tier,
        st.remaining.is_some() && st.reset.is_some()
    ));
    // The trading requests went by the lane when it is on.
    assert_eq!(a.order_lane_connections(), usize::from(lane));
    assert_eq!(b.order_lane_connections(), usize::from(lane));
    out
}

#[tokio::test]
async fn the_simulator_answers_the_lane_as_it_answers_reqwest() {
    let plain = simulator_run(false).await;
    let lane = simulator_run(true).await;
    assert_eq!(plain, lane);
    assert!(plain[0].starts_with("ok true LIVE"), "{plain:?}");
    assert!(plain[1].contains("crossing=true"), "{plain:?}");
    assert!(plain[5].contains("post_only_mode=true"), "{plain:?}");
    assert!(
        plain[6].contains("rate_limited=true") && plain[6].contains("retry_after=true"),
        "{plain:?}"
    );
}
