//! REST decoding and request latency.
//!
//! 1. A realistic ~0.5 MB `GET /markets` page (generated here: 66-char condition ids,
//!    77-digit token ids, long descriptions with escapes, rewards, tags) decoded by
//!    polyclob's page decoder (borrowed, fixed-point, lenient) against the usual approach,
//!    serde_json into owned `String`/`f64` structs, on the same bytes in the same run.
//! 2. Request latency p50/p99 of `GET /midpoint` against a loopback server: polyclob's
//!    client against a default `reqwest::Client` + serde_json baseline.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/support/mock_clob.rs"]
mod mock_clob;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use polyclob::clob::decode_page;
use polyclob::clob::types::Market;
use serde::Deserialize;

/// Deterministic xorshift so the page is the same every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn digits(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        s.push(char::from(b'1' + (self.next() % 9) as u8));
        while s.len() < n {
            s.push(char::from(b'0' + (self.next() % 10) as u8));
        }
        s
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::from("0x");
        while s.len() < n + 2 {
            s.push_str(&format!("{:016x}", self.next()));
        }
        s.truncate(n + 2);
        s
    }
    fn words(&mut self, n: usize) -> String {
        const W: [&str; 16] = [
            "market",
            "resolve",
            "Yes",
            "if",
            "the",
            "official",
            "price",
            "of",
            "Bitcoin",
            "exceeds",
            "\"threshold\"",
            "by",
            "December",
            "31,",
            "2026",
            "otherwise",
        ];
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(if self.next() % 23 == 0 { '\n' } else { ' ' });
            }
            s.push_str(W[(self.next() % 16) as usize]);
        }
        s
    }
}

/// One page shaped like production: ~0.5 MB.
fn markets_page() -> Vec<u8> {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut rows = Vec::new();
    let mut size = 0;
    while size < 500_000 {
        let price = (r.next() % 99 + 1) as f64 / 100.0;
        let m = serde_json::json!({
            "enable_order_book": true, "active": true, "closed": false, "archived": false, "accepting_orders": true,
            "accepting_order_timestamp": "2026-03-01T12:00:00Z", "minimum_order_size": 5, "minimum_tick_size": 0.01,
            "condition_id": r.hex(64), "question_id": r.hex(64), "question": r.words(14), "description": r.words(120),
            "market_slug": "will-bitcoin-exceed-the-threshold-by-december-31-2026", "end_date_iso": "2026-12-31T00:00:00Z",
            "game_start_time": null, "seconds_delay": 0, "fpmm": r.hex(40), "maker_base_fee": 0, "taker_base_fee": 0,
            "notifications_enabled": true, "neg_risk": r.next() % 3 == 0, "neg_risk_market_id": r.hex(64), "neg_risk_request_id": r.hex(64),
            "icon": "https://polymarket-upload.s3.us-east-2.amazonaws.com/bitcoin-icon.png",
            "image": "https://polymarket-upload.s3.us-east-2.amazonaws.com/bitcoin-image.png",
            "rewards": {"rates": [{"asset_address": r.hex(40), "rewards_daily_rate": 25}], "min_size": 50, "max_spread": 3.5},
            "is_50_50_outcome": false,
            "tokens": [
                {"token_id": r.digits(77), "outcome": "Yes", "price": price, "winner": false},
                {"token_id": r.digits(77), "outcome": "No", "price": ((1.0 - price) * 100.0).round() / 100.0, "winner": false}
            ],
            "tags": ["Crypto", "Bitcoin", "All"]
        });
        let s = m.to_string();
        size += s.len() + 1;
        rows.push(s);
    }
    format!(
        r#"{{"limit":{n},"count":{n},"next_cursor":"MTAwMA==","data":[{}]}}"#,
        rows.join(","),
        n = rows.len()
    )
    .into_bytes()
}

/// The usual typed decode: owned strings, f64 numbers.
#[derive(Deserialize)]
struct BaselinePage {
    data: Vec<BaselineMarket>,
    next_cursor: String,
    #[allow(dead_code)]
    limit: u64,
    #[allow(dead_code)]
    count: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BaselineToken {
    token_id: String,
    outcome: String,
    price: f64,
    winner: bool,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BaselineRate {
    asset_address: String,
    rewards_daily_rate: f64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BaselineRewards {
    rates: Option<Vec<BaselineRate>>,
    min_size: f64,
    max_spread: f64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BaselineMarket {
    enable_order_book: bool,
    active: bool,
    closed: bool,
    archived: bool,
    accepting_orders: bool,
    accepting_order_timestamp: Option<String>,
    minimum_order_size: f64,
    minimum_tick_size: f64,
    condition_id: String,
    question_id: String,
    question: String,
    description: String,
    market_slug: String,
    end_date_iso: Option<String>,
    game_start_time: Option<String>,
    seconds_delay: u64,
    fpmm: String,
    maker_base_fee: f64,
    taker_base_fee: f64,
    notifications_enabled: bool,
    neg_risk: bool,
    neg_risk_market_id: String,
    neg_risk_request_id: String,
    icon: String,
    image: String,
    rewards: BaselineRewards,
    is_50_50_outcome: bool,
    tokens: Vec<BaselineToken>,
    tags: Vec<String>,
}

fn decode(c: &mut Criterion, page: &[u8]) {
    // Both decoders agree on the content before anything is timed.
    let ours = decode_page::<Market<'_>>(page).unwrap();
    let base: BaselinePage = serde_json::from_slice(page).unwrap();
    assert!(ours.skipped.is_empty());
    assert_eq!(ours.data.len(), base.data.len());
    assert_eq!(ours.next_cursor, base.next_cursor);
    for (a, b) in ours.data.iter().zip(&base.data) {
        assert_eq!(a.condition_id, b.condition_id);
        assert_eq!(a.description, b.description);
        assert_eq!(a.tokens[1].token_id, b.tokens[1].token_id);
        assert_eq!(a.neg_risk, b.neg_risk);
    }
    let rows = ours.data.len();
    println!("markets page: {} bytes, {rows} markets", page.len());

    let mut g = c.benchmark_group("markets_page_decode");
    g.throughput(Throughput::Bytes(page.len() as u64));
    g.bench_function("baseline_serde_json_owned", |b| {
        b.iter(|| {
            let p: BaselinePage = serde_json::from_slice(black_box(page)).unwrap();
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.bench_function("polyclob_borrowed", |b| {
        b.iter(|| {
            let p = decode_page::<Market<'_>>(black_box(page)).unwrap();
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.bench_function("polyclob_owned", |b| {
        b.iter(|| {
            let p = decode_page::<Market<'_>>(black_box(page))
                .unwrap()
                .map(Market::into_owned);
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.finish();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// p50/p99 of sequential `GET /midpoint` round trips over one kept-alive connection.
fn latency() {
    const N: usize = 5_000;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let m = mock_clob::MockClob::start().await;
        m.on("GET", "/midpoint", vec![mock_clob::Reply::json(r#"{"mid":"0.525"}"#)]);
        let ours = polyclob::clob::Client::builder().host(m.url()).build().unwrap();
        let base = reqwest::Client::new();
        let url = format!("{}/midpoint?token_id=1", m.url());

        #[derive(Deserialize)]
        struct Mid {
            mid: String,
        }
        let mut rows = Vec::new();
        for round in 0..2 {
            let mut t_ours = Vec::with_capacity(N);
            let mut t_base = Vec::with_capacity(N);
            for _ in 0..N {
                let t = Instant::now();
                let p = ours.midpoint("1").await.unwrap();
                t_ours.push(t.elapsed());
                assert_eq!(p.as_micros(), 525_000);
                let t = Instant::now();
                let r = base.get(&url).send().await.unwrap().bytes().await.unwrap();
                let v: Mid = serde_json::from_slice(&r).unwrap();
                t_base.push(t.elapsed());
                assert_eq!(v.mid, "0.525");
            }
            m.clear_log();
            if round == 0 {
                continue; // warm-up
            }
            t_ours.sort();
            t_base.sort();
            rows.push(("baseline_reqwest_default", percentile(&t_base, 0.5), percentile(&t_base, 0.99)));
            rows.push(("polyclob_client", percentile(&t_ours, 0.5), percentile(&t_ours, 0.99)));
        }
        println!("request latency, GET /midpoint, loopback HTTP/1.1, {N} sequential requests each (interleaved):");
        for (name, p50, p99) in rows {
            println!("  {name:<26} p50 {:>7.1} µs   p99 {:>7.1} µs", p50.as_secs_f64() * 1e6, p99.as_secs_f64() * 1e6);
        }
    });
}

fn main() {
    // The library never installs a process-wide crypto provider; the baseline
    // `reqwest::Client::new()` needs one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let page = markets_page();
    let mut c = Criterion::default().configure_from_args();
    decode(&mut c, &page);
    c.final_summary();
    latency();
}
