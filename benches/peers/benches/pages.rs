//! `GET /markets` and `GET /simplified-markets`: fetch + typed decode of one production-shaped
//! page through each client's public call, against the transport floor (the same bytes fetched
//! with a bare `reqwest` GET and not decoded), same run, interleaved call by call.
//!
//! Server: a blocking loopback HTTP/1.1 server on its own thread that answers every request with
//! one prebuilt response (no allocation per request, so the allocation counter sees only the
//! client). Clients run on one current-thread tokio runtime, one keep-alive connection each.
//!
//! Pages: `benches/support/pages.rs` (generated, compact, the exchange's key order, 500 rows;
//! shared with `benches/clob_decode.rs`). Every row of every call is checked (row count, first
//! and last condition id, a token id, the cursor) before and while timing.
//!
//! Run from the repository root (quiet machine, not niced):
//!
//! ```text
//! CARGO_TARGET_DIR=/work/peers-target cargo bench --manifest-path benches/peers/Cargo.toml --bench pages
//! ```
//!
//! `PAGES_ITERS` sets the calls per row (default 300).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use polyclob::clob::{Client, MarketList};

/// Counts every allocation in the process (the server thread makes none per request).
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only adds a relaxed counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[path = "../../support/pages.rs"]
mod pages;

use pages::{NEXT, ROWS, markets_page, rows, simplified_page};

fn response(body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// Serves `markets` for paths starting `/markets`, `simplified` for `/simplified-markets`.
fn serve(markets: Arc<Vec<u8>>, simplified: Arc<Vec<u8>>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { continue };
            let (m, sm) = (markets.clone(), simplified.clone());
            std::thread::spawn(move || conn(s, &m, &sm));
        }
    });
    format!("http://{addr}")
}

fn conn(mut s: TcpStream, markets: &[u8], simplified: &[u8]) {
    s.set_nodelay(true).unwrap();
    let mut buf = [0u8; 8192];
    let mut have = 0;
    loop {
        let Ok(n) = s.read(&mut buf[have..]) else {
            return;
        };
        if n == 0 {
            return;
        }
        have += n;
        // Requests are GETs without a body: answer each complete head.
        while let Some(end) = buf[..have].windows(4).position(|w| w == b"\r\n\r\n") {
            let head = &buf[..end];
            let path_start = head.iter().position(|&b| b == b' ').map_or(0, |p| p + 1);
            let body = if head[path_start..].starts_with(b"/simplified-markets") {
                simplified
            } else if head[path_start..].starts_with(b"/markets") {
                markets
            } else {
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".as_slice()
            };
            if s.write_all(body).is_err() {
                return;
            }
            buf.copy_within(end + 4..have, 0);
            have -= end + 4;
        }
        if have == buf.len() {
            return;
        }
    }
}

/// What every row must find in a page.
struct Expect {
    first: String,
    last: String,
    last_no_token: String,
}

fn check(n: usize, first: &str, last: &str, no_token: &str, cursor: &str, e: &Expect) {
    assert_eq!(n, ROWS, "row count");
    assert_eq!(first, e.first, "first condition id");
    assert_eq!(last, e.last, "last condition id");
    assert_eq!(no_token, e.last_no_token, "last row's second token");
    assert_eq!(cursor, NEXT, "cursor");
}

struct Stats {
    name: &'static str,
    call: &'static str,
    times: Vec<Duration>,
    cpu: Vec<Duration>,
    allocs: Vec<u64>,
}

impl Stats {
    fn new(name: &'static str, call: &'static str) -> Self {
        Self {
            name,
            call,
            times: Vec::new(),
            cpu: Vec::new(),
            allocs: Vec::new(),
        }
    }
    fn pct(&mut self, p: f64) -> Duration {
        self.times.sort_unstable();
        let i = ((self.times.len() as f64 - 1.0) * p).round() as usize;
        self.times[i]
    }
}

/// CPU time of the calling thread (user + system): the client's own work, whatever the load.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid out-pointer for the duration of the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort_unstable();
    v[v.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

macro_rules! timed {
    ($stats:expr, $body:expr) => {{
        let a0 = ALLOCS.load(Ordering::Relaxed);
        let c0 = thread_cpu();
        let t0 = Instant::now();
        let out = $body;
        let dt = t0.elapsed();
        let c1 = thread_cpu();
        let a1 = ALLOCS.load(Ordering::Relaxed);
        $stats.times.push(dt);
        $stats.cpu.push(c1 - c0);
        $stats.allocs.push(a1 - a0);
        out
    }};
}

fn report(title: &str, bytes: usize, rows: &mut [Stats]) {
    println!("\n{title} ({bytes} bytes, {ROWS} rows)");
    println!(
        "| row | call | p50 µs | p99 µs | p50 / best peer | CPU µs (median) | CPU / best peer | allocs/page |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let best_peer = rows
        .iter_mut()
        .filter(|r| !r.name.starts_with("polyclob") && !r.name.starts_with("floor"))
        .map(|r| r.pct(0.5))
        .min()
        .unwrap();
    let best_cpu = rows
        .iter()
        .filter(|r| !r.name.starts_with("polyclob") && !r.name.starts_with("floor"))
        .map(|r| median(&r.cpu))
        .min()
        .unwrap();
    for r in rows.iter_mut() {
        let (p50, p99) = (r.pct(0.5), r.pct(0.99));
        let mut a = r.allocs.clone();
        a.sort_unstable();
        let allocs = a[a.len() / 2];
        let cpu = median(&r.cpu);
        println!(
            "| {} | `{}` | {:.0} | {:.0} | {:.2}× | {:.0} | {:.2}× | {} |",
            r.name,
            r.call,
            us(p50),
            us(p99),
            p50.as_secs_f64() / best_peer.as_secs_f64(),
            us(cpu),
            cpu.as_secs_f64() / best_cpu.as_secs_f64(),
            allocs,
        );
    }
}

fn main() {
    let iters: usize = std::env::var("PAGES_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let rows = rows();
    let expect = Expect {
        first: rows[0].condition_id.clone(),
        last: rows[ROWS - 1].condition_id.clone(),
        last_no_token: rows[ROWS - 1].no.clone(),
    };
    let markets = markets_page(&rows);
    let simplified = simplified_page(&rows);
    let (mlen, slen) = (markets.len(), simplified.len());
    // The generated pages are valid JSON with the right row count.
    let v: serde_json::Value = serde_json::from_slice(&markets).unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), ROWS);
    let v: serde_json::Value = serde_json::from_slice(&simplified).unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), ROWS);
    let host = serve(
        Arc::new(response(&markets)),
        Arc::new(response(&simplified)),
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let floor = reqwest::Client::builder().no_proxy().build().unwrap();
    let ours = Client::builder().host(host.clone()).build().unwrap();
    let pf = polyfill_rs::ClobClient::new(&host);
    let sdk = polymarket_client_sdk_v2::clob::Client::new(
        &format!("{host}/"),
        polymarket_client_sdk_v2::clob::Config::default(),
    )
    .unwrap();

    let mut m = [
        Stats::new(
            "floor: reqwest GET, bytes only",
            "get(/markets).send().bytes()",
        ),
        Stats::new("polyclob", "markets(MarketList::All, None)"),
        Stats::new(
            "polyclob, borrowed rows",
            "markets_borrowed(MarketList::All, None, &mut body)",
        ),
        Stats::new("polyfill-rs 0.4.3", "get_markets(None)"),
        Stats::new("official SDK 0.9.0", "markets(None)"),
    ];
    let mut s = [
        Stats::new(
            "floor: reqwest GET, bytes only",
            "get(/simplified-markets).send().bytes()",
        ),
        Stats::new(
            "polyclob",
            "simplified_markets(MarketList::Simplified, None)",
        ),
        Stats::new(
            "polyclob, borrowed rows",
            "simplified_markets_borrowed(MarketList::Simplified, None, &mut body)",
        ),
        Stats::new("polyfill-rs 0.4.3", "get_simplified_markets(None)"),
        Stats::new("official SDK 0.9.0", "simplified_markets(None)"),
    ];
    let murl = format!("{host}/markets?next_cursor=MA%3D%3D");
    let surl = format!("{host}/simplified-markets?next_cursor=MA%3D%3D");
    let e = &expect;

    let warm = iters / 10 + 5;
    for i in 0..warm + iters {
        rt.block_on(async {
            // /markets
            let b = timed!(
                m[0],
                floor
                    .get(&murl)
                    .send()
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap()
            );
            assert_eq!(b.len(), mlen);
            let p = timed!(m[1], ours.markets(MarketList::All, None).await.unwrap());
            check(
                p.data.len(),
                &p.data[0].condition_id,
                &p.data[ROWS - 1].condition_id,
                &p.data[ROWS - 1].tokens[1].token_id,
                &p.next_cursor,
                e,
            );
            assert!(p.skipped.is_empty());
            let n = timed!(m[2], {
                let mut body = polyclob::clob::Bytes::new();
                let p = ours
                    .markets_borrowed(MarketList::All, None, &mut body)
                    .await
                    .unwrap();
                check(
                    p.data.len(),
                    &p.data[0].condition_id,
                    &p.data[ROWS - 1].condition_id,
                    &p.data[ROWS - 1].tokens[1].token_id,
                    &p.next_cursor,
                    e,
                );
                p.data.len()
            });
            assert_eq!(n, ROWS);
            drop(p);
            let p = timed!(m[3], pf.get_markets(None).await.unwrap());
            check(
                p.data.len(),
                &p.data[0].condition_id,
                &p.data[ROWS - 1].condition_id,
                &p.data[ROWS - 1].tokens[1].token_id,
                p.next_cursor.as_deref().unwrap(),
                e,
            );
            drop(p);
            let p = timed!(m[4], sdk.markets(None).await.unwrap());
            check(
                p.data.len(),
                &p.data[0].condition_id.unwrap().to_string(),
                &p.data[ROWS - 1].condition_id.unwrap().to_string(),
                &p.data[ROWS - 1].tokens[1].token_id.to_string(),
                &p.next_cursor,
                e,
            );
            drop(p);

            // /simplified-markets
            let b = timed!(
                s[0],
                floor
                    .get(&surl)
                    .send()
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap()
            );
            assert_eq!(b.len(), slen);
            let p = timed!(
                s[1],
                ours.simplified_markets(MarketList::Simplified, None)
                    .await
                    .unwrap()
            );
            check(
                p.data.len(),
                &p.data[0].condition_id,
                &p.data[ROWS - 1].condition_id,
                &p.data[ROWS - 1].tokens[1].token_id,
                &p.next_cursor,
                e,
            );
            drop(p);
            let n = timed!(s[2], {
                let mut body = polyclob::clob::Bytes::new();
                let p = ours
                    .simplified_markets_borrowed(MarketList::Simplified, None, &mut body)
                    .await
                    .unwrap();
                check(
                    p.data.len(),
                    &p.data[0].condition_id,
                    &p.data[ROWS - 1].condition_id,
                    &p.data[ROWS - 1].tokens[1].token_id,
                    &p.next_cursor,
                    e,
                );
                p.data.len()
            });
            assert_eq!(n, ROWS);
            let p = timed!(s[3], pf.get_simplified_markets(None).await.unwrap());
            check(
                p.data.len(),
                &p.data[0].condition_id,
                &p.data[ROWS - 1].condition_id,
                &p.data[ROWS - 1].tokens[1].token_id,
                p.next_cursor.as_deref().unwrap(),
                e,
            );
            drop(p);
            let p = timed!(s[4], sdk.simplified_markets(None).await.unwrap());
            check(
                p.data.len(),
                &p.data[0].condition_id.unwrap().to_string(),
                &p.data[ROWS - 1].condition_id.unwrap().to_string(),
                &p.data[ROWS - 1].tokens[1].token_id.to_string(),
                &p.next_cursor,
                e,
            );
        });
        if i + 1 == warm {
            for r in m.iter_mut().chain(s.iter_mut()) {
                r.times.clear();
                r.cpu.clear();
                r.allocs.clear();
            }
        }
    }
    report("GET /markets", mlen, &mut m);
    report("GET /simplified-markets", slen, &mut s);
}
