//! The native client's transport against a loopback mock CLOB: endpoints, typed errors,
//! retries, timeouts, malformed bodies, pagination, caches, the circuit breaker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;

use std::time::Duration;

use futures_util::TryStreamExt as _;
use mock_clob::{MockClob, Reply};
use polyclob::clob::{Client, MarketList};
use polyclob::fixed::{Price, Size};
use polyclob::http::{BreakerConfig, BreakerState, RetryPolicy};
use polyclob::types::{ExchangeVersion, Side, TickSize};

fn client(mock: &MockClob) -> Client {
    Client::builder()
        .host(mock.url())
        .timeout(Duration::from_secs(5))
        .retry(RetryPolicy {
            max_retries: 2,
            base: Duration::from_millis(5),
            max: Duration::from_millis(50),
        })
        .build()
        .unwrap()
}

const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";

#[tokio::test]
async fn public_endpoints_decode() {
    let m = MockClob::start().await;
    m.on("GET", "/", vec![Reply::json("\"OK\"")]);
    m.on("GET", "/time", vec![Reply::json("1795311424")]);
    m.on("GET", "/version", vec![Reply::json(r#"{"version":2}"#)]);
    m.on("GET", "/midpoint", vec![Reply::json(r#"{"mid":"0.525"}"#)]);
    m.on("GET", "/price", vec![Reply::json(r#"{"price":"0.52"}"#)]);
    m.on("GET", "/spread", vec![Reply::json(r#"{"spread":0.01}"#)]);
    m.on(
        "POST",
        "/midpoints",
        vec![Reply::json(format!(r#"{{"{TOKEN}":"0.5","2":0.25}}"#))],
    );
    m.on(
        "POST",
        "/prices",
        vec![Reply::json(r#"{"1":{"BUY":"0.4","SELL":"0.6"}}"#)],
    );
    m.on(
        "GET",
        "/last-trade-price",
        vec![Reply::json(r#"{"price":"0.55","side":"SELL"}"#)],
    );
    m.on(
        "GET",
        "/book",
        vec![Reply::json(format!(
            r#"{{"market":"0xabc","asset_id":"{TOKEN}","timestamp":"1767225600123","hash":"0xh",
            "bids":[{{"price":"0.48","size":"100"}},{{"price":"0.49","size":"20.5"}}],
            "asks":[{{"price":"0.52","size":"10"}},{{"price":"0.51","size":"3"}}],
            "min_order_size":"5","tick_size":"0.01","neg_risk":false,"last_trade_price":"0.5"}}"#
        ))],
    );
    m.on(
        "GET",
        "/prices-history",
        vec![Reply::json(
            r#"{"history":[{"t":1,"p":0.5},{"t":2,"p":"0.51"}]}"#,
        )],
    );
    let c = client(&m);

    assert!(c.ok().await);
    assert_eq!(c.server_time().await.unwrap(), 1_795_311_424);
    assert_eq!(c.exchange_version().await.unwrap(), ExchangeVersion::V2);
    assert_eq!(c.exchange_version().await.unwrap(), ExchangeVersion::V2);
    assert_eq!(m.requests_to("/version").len(), 1, "version is cached");
    assert_eq!(
        c.midpoint(TOKEN).await.unwrap(),
        Price::new(525_000).unwrap()
    );
    assert_eq!(
        c.price(TOKEN, Side::Buy).await.unwrap(),
        Price::new(520_000).unwrap()
    );
    let r = m.requests_to("/price").pop().unwrap();
    assert_eq!(r.query_param("token_id").as_deref(), Some(TOKEN));
    assert_eq!(r.query_param("side").as_deref(), Some("BUY"));
    assert_eq!(c.spread(TOKEN).await.unwrap(), Price::new(10_000).unwrap());
    let mids = c.midpoints(&[TOKEN, "2"]).await.unwrap();
    assert_eq!(mids[TOKEN], Price::new(500_000).unwrap());
    assert_eq!(mids["2"], Price::new(250_000).unwrap());
    let body = m.requests_to("/midpoints").pop().unwrap().body;
    assert_eq!(
        body,
        format!(r#"[{{"token_id":"{TOKEN}"}},{{"token_id":"2"}}]"#).into_bytes()
    );
    let prices = c
        .prices(&[("1", Side::Buy), ("1", Side::Sell)])
        .await
        .unwrap();
    assert_eq!(prices["1"][&Side::Sell], Price::new(600_000).unwrap());
    assert_eq!(
        m.requests_to("/prices").pop().unwrap().body,
        br#"[{"token_id":"1","side":"BUY"},{"token_id":"1","side":"SELL"}]"#
    );
    let lt = c.last_trade_price(TOKEN).await.unwrap();
    assert_eq!((lt.price, lt.side), (Price::new(550_000), Some(Side::Sell)));
    let book = c.book(TOKEN).await.unwrap();
    assert_eq!(book.timestamp, 1_767_225_600_123);
    assert_eq!(book.bids.len(), 2);
    assert_eq!(book.best_bid().unwrap().price, Price::new(490_000).unwrap());
    assert_eq!(book.best_ask().unwrap().size, Size::from_micros(3_000_000));
    assert_eq!(book.tick_size, Some(TickSize::Hundredth));
    let (h, skipped) = c
        .prices_history(
            TOKEN,
            polyclob::clob::types::HistoryRange::Interval(polyclob::clob::types::Interval::OneDay),
            Some(60),
        )
        .await
        .unwrap();
    assert!(skipped.is_empty());
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].p, Price::new(510_000).unwrap());
    let r = m.requests_to("/prices-history").pop().unwrap();
    assert_eq!(r.query, format!("market={TOKEN}&interval=1d&fidelity=60"));
}

#[tokio::test]
async fn status_errors_are_typed() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/midpoint",
        vec![Reply::status(
            404,
            r#"{"error":"No orderbook exists for the requested token id"}"#,
        )],
    );
    m.on("GET", "/spread", vec![Reply::status(425, "{}")]);
    m.on(
        "GET",
        "/price",
        vec![Reply::status(
            503,
            r#"{"error":"trading is currently in post_only_mode"}"#,
        )],
    );
    m.on(
        "GET",
        "/book",
        vec![Reply::status(
            503,
            r#"{"error":"exchange is in cancel-only mode"}"#,
        )],
    );
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::status(429, r#"{"error":"Too Many Requests"}"#).header("retry-after", "7")],
    );
    let c = Client::builder()
        .host(m.url())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();

    let e = c.midpoint("1").await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    assert_eq!(
        e.message(),
        Some("No orderbook exists for the requested token id")
    );
    assert_eq!(e.path(), Some("/midpoint"));
    assert!(e.to_string().contains("HTTP 404"), "{e}");
    assert!(c.spread("1").await.unwrap_err().is_engine_restart());
    let e = c.price("1", Side::Sell).await.unwrap_err();
    assert!(e.is_unavailable() && e.is_post_only_mode() && !e.is_cancel_only());
    let e = c.book("1").await.unwrap_err();
    assert!(e.is_cancel_only());
    let e = c.tick_size("1").await.unwrap_err();
    assert!(e.is_rate_limited());
    assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
}

#[tokio::test]
async fn idempotent_requests_are_retried_with_retry_after() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/midpoint",
        vec![
            Reply::status(502, "bad gateway"),
            Reply::status(429, "{}").header("retry-after", "0.05"),
            Reply::json(r#"{"mid":"0.5"}"#),
        ],
    );
    let c = client(&m);
    let t = std::time::Instant::now();
    assert_eq!(c.midpoint("1").await.unwrap(), Price::new(500_000).unwrap());
    assert_eq!(m.requests_to("/midpoint").len(), 3);
    assert!(
        t.elapsed() >= Duration::from_millis(50),
        "Retry-After honoured"
    );

    // The budget is finite: a permanently failing endpoint returns the last error.
    m.on(
        "GET",
        "/spread",
        vec![Reply::status(500, r#"{"error":"boom"}"#)],
    );
    let e = c.spread("1").await.unwrap_err();
    assert_eq!(e.status(), Some(500));
    assert_eq!(m.requests_to("/spread").len(), 3);

    // A 4xx is never retried.
    m.on(
        "GET",
        "/price",
        vec![Reply::status(400, r#"{"error":"bad side"}"#)],
    );
    assert!(c.price("1", Side::Buy).await.is_err());
    assert_eq!(m.requests_to("/price").len(), 1);
}

#[tokio::test]
async fn hang_ups_and_slow_answers() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/midpoint",
        vec![Reply::hang_up(), Reply::json(r#"{"mid":"0.5"}"#)],
    );
    m.on(
        "GET",
        "/spread",
        vec![Reply::json(r#"{"spread":"0.1"}"#).delay(Duration::from_millis(600))],
    );
    let c = Client::builder()
        .host(m.url())
        .timeout(Duration::from_millis(200))
        .retry(RetryPolicy {
            max_retries: 1,
            base: Duration::from_millis(1),
            max: Duration::from_millis(5),
        })
        .build()
        .unwrap();
    assert_eq!(
        c.midpoint("1").await.unwrap(),
        Price::new(500_000).unwrap(),
        "a dropped connection is retried"
    );
    let e = c.spread("1").await.unwrap_err();
    assert!(e.is_timeout(), "{e:?}");
    assert_eq!(
        m.requests_to("/spread").len(),
        2,
        "timeouts of idempotent requests are retried once"
    );
}

#[tokio::test]
async fn malformed_bodies_are_decode_errors() {
    let m = MockClob::start().await;
    m.on("GET", "/midpoint", vec![Reply::json("<html>oops</html>")]);
    m.on("GET", "/time", vec![Reply::json("soon")]);
    m.on(
        "GET",
        "/book",
        vec![Reply::json(r#"{"bids":[{"price":"0.5","size":"1"}"#)],
    );
    m.on("GET", "/price", vec![Reply::json(r#"{"price":"1.5"}"#)]);
    let c = client(&m);
    for e in [
        c.midpoint("1").await.unwrap_err(),
        c.server_time().await.unwrap_err(),
        c.book("1").await.unwrap_err(),
        c.price("1", Side::Buy).await.unwrap_err(),
    ] {
        assert!(e.is_decode(), "{e:?}");
        assert!(!e.is_transient());
    }
    assert_eq!(
        m.requests_to("/midpoint").len(),
        1,
        "decode errors are not retried"
    );
}

fn market_json(i: usize) -> String {
    format!(
        r#"{{"condition_id":"0x{i:064x}","question_id":"0x{i:064x}","tokens":[{{"token_id":"{TOKEN}","outcome":"Yes","price":0.5,"winner":false}},{{"token_id":"2","outcome":"No","price":"0.5","winner":false}}],
        "rewards":{{"rates":null,"min_size":0,"max_spread":0}},"minimum_order_size":5,"minimum_tick_size":0.01,"neg_risk":false,
        "active":true,"closed":false,"question":"Q {i} \"quoted\"","description":"line\nbreak","tags":["a","b"],"maker_base_fee":0,"taker_base_fee":"","seconds_delay":0}}"#
    )
}

#[tokio::test]
async fn markets_paginate_until_end_cursor() {
    let m = MockClob::start().await;
    let page = |rows: &[String], next: &str| {
        format!(
            r#"{{"data":[{}],"next_cursor":"{next}","limit":2,"count":{}}}"#,
            rows.join(","),
            rows.len()
        )
    };
    m.on_query(
        "GET",
        "/markets",
        Some("next_cursor=MA%3D%3D"),
        vec![Reply::json(page(&[market_json(1), market_json(2)], "Mg=="))],
    );
    m.on_query(
        "GET",
        "/markets",
        Some("next_cursor=Mg%3D%3D"),
        vec![Reply::json(page(
            &[
                market_json(3),
                r#"{"condition_id":"0xodd","tokens":"not a list"}"#.to_owned(),
            ],
            "NA==",
        ))],
    );
    m.on_query(
        "GET",
        "/markets",
        Some("next_cursor=NA%3D%3D"),
        vec![Reply::json(page(&[market_json(5)], "LTE="))],
    );
    let c = client(&m);

    let first = c.markets(MarketList::All, None).await.unwrap();
    assert_eq!(first.data.len(), 2);
    assert_eq!(first.next_cursor, "Mg==");
    assert_eq!(first.data[0].question, "Q 1 \"quoted\"");
    assert_eq!(first.data[0].tokens[0].token_id, TOKEN);
    assert_eq!(first.data[0].minimum_tick_size, Some(TickSize::Hundredth));

    // The zero-copy call decodes the same rows, borrowing the unescaped text from `body`.
    let mut body = bytes::Bytes::new();
    let borrowed = c
        .markets_borrowed(MarketList::All, None, &mut body)
        .await
        .unwrap();
    assert_eq!(borrowed.data, first.data);
    let token = &borrowed.data[0].tokens[0].token_id;
    assert!(matches!(token, std::borrow::Cow::Borrowed(_)));
    drop(borrowed);
    assert!(!body.is_empty());
    let mut body = bytes::Bytes::new();
    let simple = c
        .simplified_markets_borrowed(MarketList::All, None, &mut body)
        .await
        .unwrap();
    assert_eq!(simple.data.len(), 2);
    assert_eq!(simple.data[1].condition_id, first.data[1].condition_id);

    let pages: Vec<_> = c
        .markets_stream(MarketList::All)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[1].data.len(), 1, "the odd row is dropped");
    assert_eq!(pages[1].skipped.len(), 1, "and reported");
    assert_eq!(pages[1].skipped[0].index, 1);
    assert!(pages[2].is_last());
    let cursors: Vec<_> = m
        .requests_to("/markets")
        .iter()
        .map(|r| r.query_param("next_cursor").unwrap())
        .collect();
    assert_eq!(cursors, ["MA==", "MA==", "MA==", "MA==", "Mg==", "NA=="]);
}

#[tokio::test]
async fn tick_size_and_neg_risk_are_cached() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":0.001}"#)],
    );
    m.on(
        "GET",
        "/neg-risk",
        vec![Reply::json(r#"{"neg_risk":true}"#)],
    );
    m.on("GET", "/fee-rate", vec![Reply::json(r#"{"base_fee":0}"#)]);
    let c = client(&m);
    assert_eq!(c.tick_size("1").await.unwrap(), TickSize::Thousandth);
    assert_eq!(c.tick_size("1").await.unwrap(), TickSize::Thousandth);
    assert_eq!(m.requests_to("/tick-size").len(), 1);
    c.set_tick_size("1", TickSize::Hundredth);
    assert_eq!(
        c.tick_size("1").await.unwrap(),
        TickSize::Hundredth,
        "a WS tick_size_change wins"
    );
    assert_eq!(m.requests_to("/tick-size").len(), 1);
    c.set_tick_size("2", TickSize::FiveThousandths);
    assert_eq!(c.cached_tick_size("2"), Some(TickSize::FiveThousandths));
    assert!(c.neg_risk("1").await.unwrap());
    assert!(c.neg_risk("1").await.unwrap());
    assert_eq!(m.requests_to("/neg-risk").len(), 1);
    assert_eq!(c.fee_rate_bps("1").await.unwrap(), 0);
    c.invalidate_token("1");
    assert_eq!(c.tick_size("1").await.unwrap(), TickSize::Thousandth);
    assert_eq!(m.requests_to("/tick-size").len(), 2);

    // An unknown tick size is an error that names it, not a panic.
    m.on(
        "GET",
        "/tick-size",
        vec![Reply::json(r#"{"minimum_tick_size":0.05}"#)],
    );
    let e = c.tick_size("9").await.unwrap_err();
    assert!(e.to_string().contains("0.05"), "{e}");

    // TTL expiry.
    let c = Client::builder()
        .host(m.url())
        .cache_ttl(Duration::from_millis(30))
        .build()
        .unwrap();
    c.neg_risk("1").await.unwrap();
    tokio::time::sleep(Duration::from_millis(40)).await;
    c.neg_risk("1").await.unwrap();
    assert_eq!(m.requests_to("/neg-risk").len(), 3);
}

#[tokio::test]
async fn circuit_breaker_opens_half_opens_and_closes() {
    let m = MockClob::start().await;
    m.on(
        "GET",
        "/midpoint",
        vec![
            Reply::status(500, "{}"),
            Reply::status(500, "{}"),
            Reply::status(500, "{}"),
            Reply::json(r#"{"mid":"0.5"}"#),
        ],
    );
    let c = Client::builder()
        .host(m.url())
        .retry(RetryPolicy::none())
        .breaker(BreakerConfig {
            threshold: 3,
            cooldown: Duration::from_millis(100),
        })
        .build()
        .unwrap();
    for _ in 0..3 {
        assert_eq!(c.midpoint("1").await.unwrap_err().status(), Some(500));
    }
    assert_eq!(c.breaker_state(), BreakerState::Open);
    let e = c.midpoint("1").await.unwrap_err();
    assert!(e.is_circuit_open(), "{e:?}");
    assert_eq!(
        m.requests_to("/midpoint").len(),
        3,
        "an open breaker does no I/O"
    );
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(c.breaker_state(), BreakerState::HalfOpen);
    assert_eq!(c.midpoint("1").await.unwrap(), Price::new(500_000).unwrap());
    assert_eq!(c.breaker_state(), BreakerState::Closed);
    // 4xx answers are the caller's fault and do not trip the breaker.
    m.on("GET", "/spread", vec![Reply::status(400, "{}")]);
    for _ in 0..5 {
        let _ = c.spread("1").await;
    }
    assert_eq!(c.breaker_state(), BreakerState::Closed);
}

#[tokio::test]
async fn server_clock_offset() {
    let m = MockClob::start().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    m.on("GET", "/time", vec![Reply::json((now + 100).to_string())]);
    let c = Client::builder()
        .host(m.url())
        .server_time(true)
        .build()
        .unwrap();
    let off = c.sync_clock().await.unwrap();
    assert!((99..=101).contains(&off), "{off}");
    c.prewarm().await.unwrap();
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let c = Client::builder()
        .host(format!("http://{addr}"))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let e = c.server_time().await.unwrap_err();
    assert!(e.is_connect(), "{e:?}");
    assert!(!c.ok().await);
}

#[tokio::test]
async fn auth_endpoints_without_credentials_fail_before_io() {
    let m = MockClob::start().await;
    let c = client(&m);
    let e = c.cancel_all().await.unwrap_err();
    assert!(e.is_auth(), "{e:?}");
    assert!(m.requests().is_empty());
}

#[tokio::test]
async fn gzip_bodies_are_decoded() {
    use std::io::Write as _;
    let m = MockClob::start().await;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(br#"{"mid":"0.25"}"#).unwrap();
    let gz = enc.finish().unwrap();
    m.on(
        "GET",
        "/midpoint",
        vec![Reply::json(gz).header("content-encoding", "gzip")],
    );
    let c = client(&m);
    assert_eq!(c.midpoint("1").await.unwrap(), Price::new(250_000).unwrap());
    let r = m.requests_to("/midpoint").pop().unwrap();
    assert!(
        r.header("accept-encoding")
            .unwrap_or_default()
            .contains("gzip")
    );
    assert!(
        r.header("user-agent")
            .unwrap_or_default()
            .starts_with("polyclob/")
    );
}

#[tokio::test]
async fn hostnames_resolve_through_the_dns_cache() {
    let m = MockClob::start().await;
    m.on("GET", "/time", vec![Reply::json("7")]);
    let c = Client::builder()
        .host(format!("http://localhost:{}", m.addr.port()))
        .build()
        .unwrap();
    assert_eq!(c.server_time().await.unwrap(), 7);
}
