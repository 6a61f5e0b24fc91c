//! REST decoding and request latency.
//!
//! 1. The `GET /markets` and `GET /simplified-markets` pages of `benches/support/pages.rs`
//!    (500 rows each, compact, the exchange's key order; the same pages the peer bench
//!    serves) decoded by polyclob's page decoder (borrowed and owned rows, fixed-point,
//!    lenient) against the usual approach, serde_json into owned `String`/`f64` structs, on
//!    the same bytes in the same run.
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
#[path = "support/pages.rs"]
mod pages;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use polyclob::clob::decode_simplified_page;
use polyclob::clob::types::{Market, SimplifiedMarket};
use polyclob::http::decode_page;
use serde::Deserialize;

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

#[derive(Deserialize)]
struct BaselineSimplifiedPage {
    data: Vec<BaselineSimplified>,
    next_cursor: String,
    #[allow(dead_code)]
    limit: u64,
    #[allow(dead_code)]
    count: u64,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BaselineSimplified {
    condition_id: String,
    rewards: BaselineRewards,
    tokens: Vec<BaselineToken>,
    active: bool,
    closed: bool,
    archived: bool,
    accepting_orders: bool,
}

fn decode_simplified(c: &mut Criterion, page: &[u8]) {
    let ours = decode_simplified_page(page).unwrap();
    assert_eq!(ours, decode_page::<SimplifiedMarket<'_>>(page).unwrap());
    let base: BaselineSimplifiedPage = serde_json::from_slice(page).unwrap();
    assert!(ours.skipped.is_empty());
    assert_eq!(ours.data.len(), base.data.len());
    assert_eq!(ours.next_cursor, base.next_cursor);
    for (a, b) in ours.data.iter().zip(&base.data) {
        assert_eq!(a.condition_id, b.condition_id);
        assert_eq!(a.tokens.len(), b.tokens.len());
        for (x, y) in a.tokens.iter().zip(&b.tokens) {
            assert_eq!(x.token_id, y.token_id);
            assert_eq!(x.outcome, y.outcome);
            assert_eq!(
                x.price.map(|p| p.as_micros()),
                Some((y.price * 1e6).round() as u32)
            );
        }
        let rates = b.rewards.rates.as_deref().unwrap_or_default();
        let r = a.rewards.as_ref().unwrap();
        assert_eq!(r.rates.len(), rates.len());
        assert_eq!(
            r.max_spread.as_micros(),
            (b.rewards.max_spread * 1e6).round() as u64
        );
        assert_eq!(
            (a.active, a.accepting_orders),
            (b.active, b.accepting_orders)
        );
    }
    let rows = ours.data.len();
    println!(
        "simplified-markets page: {} bytes, {rows} markets",
        page.len()
    );

    let mut g = c.benchmark_group("simplified_page_decode");
    g.throughput(Throughput::Bytes(page.len() as u64));
    g.bench_function("baseline_serde_json_owned", |b| {
        b.iter(|| {
            let p: BaselineSimplifiedPage = serde_json::from_slice(black_box(page)).unwrap();
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.bench_function("polyclob_borrowed", |b| {
        b.iter(|| {
            let p = decode_simplified_page(black_box(page)).unwrap();
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.bench_function("polyclob_generic_decode_page_borrowed", |b| {
        b.iter(|| {
            let p = decode_page::<SimplifiedMarket<'_>>(black_box(page)).unwrap();
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.bench_function("polyclob_owned", |b| {
        b.iter(|| {
            let p = decode_simplified_page(black_box(page))
                .unwrap()
                .map(SimplifiedMarket::into_owned);
            assert_eq!(p.data.len(), rows);
            p
        })
    });
    g.finish();
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
    #[cfg(feature = "simd-json")]
    {
        let mut scratch = Vec::with_capacity(page.len());
        let simd = polyclob::http::decode_page_simd::<Market<'_>>(page, &mut scratch).unwrap();
        assert_eq!(
            simd.data, ours.data,
            "simd-json and serde_json decode the same rows"
        );
        drop(simd);
        g.bench_function("polyclob_simd_borrowed", |b| {
            b.iter(|| {
                let p =
                    polyclob::http::decode_page_simd::<Market<'_>>(black_box(page), &mut scratch)
                        .unwrap();
                assert_eq!(p.data.len(), rows);
                p.data.len()
            })
        });
    }
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
        // reqwest is built without a TLS provider of its own (polyclob hands it ring
        // explicitly): a plain client needs one installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
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

/// `CLOB_DECODE_LOOP=row:n` decodes with one row's call `n` times and exits, for instruction
/// counts (`valgrind --tool=callgrind`; subtract a run with `n` = 0 for the page generation).
fn counted_loop(spec: &str, page: &[u8], simplified: &[u8]) {
    let (row, n) = spec.split_once(':').expect("CLOB_DECODE_LOOP=row:n");
    let n: usize = n.parse().expect("n");
    // No cliff: the same page with every object's keys sorted (serde_json's `Value` order), and
    // with a member of a new shape added to every row; both read as the original does.
    let v: serde_json::Value = serde_json::from_slice(simplified).unwrap();
    let sorted = serde_json::to_vec(&v).unwrap();
    let added = String::from_utf8(simplified.to_vec())
        .unwrap()
        .replace(
            r#","active":"#,
            r#","new_member":{"ids":[1,2],"note":"x"},"active":"#,
        )
        .into_bytes();
    assert_ne!(sorted, simplified);
    assert_ne!(added, simplified);
    let want = decode_simplified_page(simplified).unwrap();
    assert_eq!(decode_simplified_page(&sorted).unwrap(), want);
    assert_eq!(decode_simplified_page(&added).unwrap(), want);
    let variants = (sorted, added);
    let mut rows = 0;
    #[cfg(feature = "simd-json")]
    let mut scratch = Vec::new();
    for _ in 0..n {
        rows += match row {
            "markets/baseline_serde_json_owned" => {
                serde_json::from_slice::<BaselinePage>(black_box(page))
                    .unwrap()
                    .data
                    .len()
            }
            "markets/polyclob_borrowed" => decode_page::<Market<'_>>(black_box(page))
                .unwrap()
                .data
                .len(),
            #[cfg(feature = "simd-json")]
            "markets/polyclob_simd_borrowed" => {
                polyclob::http::decode_page_simd::<Market<'_>>(black_box(page), &mut scratch)
                    .unwrap()
                    .data
                    .len()
            }
            "markets/polyclob_owned" => decode_page::<Market<'_>>(black_box(page))
                .unwrap()
                .map(Market::into_owned)
                .data
                .len(),
            "simplified/baseline_serde_json_owned" => {
                serde_json::from_slice::<BaselineSimplifiedPage>(black_box(simplified))
                    .unwrap()
                    .data
                    .len()
            }
            "simplified/polyclob_borrowed" => decode_simplified_page(black_box(simplified))
                .unwrap()
                .data
                .len(),
            "simplified/polyclob_generic_decode_page_borrowed" => {
                decode_page::<SimplifiedMarket<'_>>(black_box(simplified))
                    .unwrap()
                    .data
                    .len()
            }
            "simplified/polyclob_borrowed_sorted_keys" => {
                decode_simplified_page(black_box(&variants.0))
                    .unwrap()
                    .data
                    .len()
            }
            "simplified/polyclob_borrowed_new_member" => {
                decode_simplified_page(black_box(&variants.1))
                    .unwrap()
                    .data
                    .len()
            }
            "simplified/polyclob_owned" => decode_simplified_page(black_box(simplified))
                .unwrap()
                .map(SimplifiedMarket::into_owned)
                .data
                .len(),
            other => panic!("no row {other}"),
        };
    }
    println!("{row}: {n} pages, {rows} rows");
}

fn main() {
    let rows = pages::rows();
    let page = pages::markets_page(&rows);
    let simplified = pages::simplified_page(&rows);
    if let Ok(spec) = std::env::var("CLOB_DECODE_LOOP") {
        counted_loop(&spec, &page, &simplified);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    decode(&mut c, &page);
    decode_simplified(&mut c, &simplified);
    c.final_summary();
    latency();
}
