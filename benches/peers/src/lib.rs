//! Shared pieces of the peer benchmarks: production-shaped market-channel frames, a loopback
//! WebSocket server that stamps every frame's send time, latency summaries, and an
//! allocation counter for the bench binaries' global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::{self, Message, Utf8Bytes};

/// Four production-shaped token ids (77 digits), two markets of two outcomes each.
pub const ASSETS: [&str; 4] = [
    "71321045679252212594626385532706912750332728571942532289631379312455583992563",
    "52114319501245915516055106046884209969926127482827954674443846427813813222426",
    "21742633143463906290569050155826241533067272736897614950488156847949938836455",
    "48331043336612883890938759509493159234755048973500640148014422747788308965732",
];
/// Condition ids of the two markets (`ASSETS[0..2]`, `ASSETS[2..4]`).
pub const MARKETS: [&str; 2] = [
    "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1",
    "0xdd22472e552920b8438158ea7238bfadfa4f736aa4cee91a6b86c39ead110917",
];
/// Exchange millisecond timestamp of frame 0; frame `i` carries `T0_MS + i`, which is how
/// every client (ours and the peers') tells which frame it just handled.
pub const T0_MS: u64 = 1_763_900_000_000;

/// A small deterministic generator (xorshift64*), so every run replays the same frames.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Book model used while generating, so `best_bid`/`best_ask` in `price_change` are true.
#[derive(Clone, Default)]
struct Model {
    /// price in cents -> size in micro-shares
    bids: BTreeMap<u32, u64>,
    asks: BTreeMap<u32, u64>,
}

/// `0.45`, `0.5` (the exchange drops trailing zeros).
fn price(cents: u32) -> String {
    let s = format!("0.{cents:02}");
    s.trim_end_matches('0').to_owned()
}

fn size(micros: u64) -> String {
    let whole = micros / 1_000_000;
    let frac = micros % 1_000_000;
    if frac == 0 {
        format!("{whole}")
    } else {
        let s = format!("{whole}.{frac:06}");
        s.trim_end_matches('0').to_owned()
    }
}

fn hash40(rng: &mut Rng) -> String {
    let mut s = String::with_capacity(40);
    for _ in 0..5 {
        let _ = write!(s, "{:08x}", rng.next() as u32);
    }
    s
}

/// The frames a run replays, in order, plus what a correct book shows at the end.
pub struct Feed {
    /// Compact JSON text frames, the exchange's key order.
    pub frames: Vec<Utf8Bytes>,
    /// Best bid of `ASSETS[0]` after the last frame: (price cents, size micro-shares).
    pub final_best_bid: (u32, u64),
    /// How many frames are warm-up (the initial snapshots); latency is not recorded for them.
    pub warmup: usize,
}

impl Feed {
    /// `n` frames: one `book` snapshot per asset (20 levels a side), then price changes
    /// (~90%), trades (~8%) and fresh snapshots (~2%).
    #[must_use]
    pub fn new(n: usize) -> Self {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut models = vec![Model::default(); ASSETS.len()];
        let mut frames = Vec::with_capacity(n);
        for (a, m) in models.iter_mut().enumerate() {
            for k in 0..20u32 {
                m.bids
                    .insert(30 + k, (100 + u64::from(k)) * 1_000_000 + 250_000);
                m.asks
                    .insert(51 + k, (200 + u64::from(k)) * 1_000_000 + 500_000);
            }
            frames.push(book_frame(a, m, frames.len(), &mut rng));
        }
        let warmup = frames.len();
        while frames.len() < n {
            let i = frames.len();
            let roll = rng.below(100);
            let a = rng.below(ASSETS.len() as u64) as usize;
            if roll < 2 {
                frames.push(book_frame(a, &models[a], i, &mut rng));
            } else if roll < 10 {
                frames.push(trade_frame(a, &models[a], i, &mut rng));
            } else {
                frames.push(price_change_frame(a, &mut models, i, &mut rng));
            }
        }
        let (&p, &s) = models[0].bids.iter().next_back().expect("bids never empty");
        Self {
            frames,
            final_best_bid: (p, s),
            warmup,
        }
    }

    /// Frame index of an exchange timestamp, if it belongs to this feed.
    #[must_use]
    pub fn index_of(&self, timestamp_ms: u64) -> Option<usize> {
        let i = usize::try_from(timestamp_ms.checked_sub(T0_MS)?).ok()?;
        (i < self.frames.len()).then_some(i)
    }
}

fn book_frame(a: usize, m: &Model, i: usize, rng: &mut Rng) -> Utf8Bytes {
    let mut s = String::with_capacity(2048);
    let _ = write!(
        s,
        r#"{{"market":"{}","asset_id":"{}","timestamp":"{}","hash":"{}","bids":["#,
        MARKETS[a / 2],
        ASSETS[a],
        T0_MS + i as u64,
        hash40(rng)
    );
    // The exchange sends bids worst (lowest) first and asks worst (highest) first.
    for (k, (p, q)) in m.bids.iter().enumerate() {
        let sep = if k == 0 { "" } else { "," };
        let _ = write!(
            s,
            r#"{sep}{{"price":"{}","size":"{}"}}"#,
            price(*p),
            size(*q)
        );
    }
    s.push_str(r#"],"asks":["#);
    for (k, (p, q)) in m.asks.iter().rev().enumerate() {
        let sep = if k == 0 { "" } else { "," };
        let _ = write!(
            s,
            r#"{sep}{{"price":"{}","size":"{}"}}"#,
            price(*p),
            size(*q)
        );
    }
    let (best_bid, _) = m.bids.iter().next_back().expect("bids");
    let _ = write!(
        s,
        r#"],"tick_size":"0.01","event_type":"book","last_trade_price":"{}"}}"#,
        price(*best_bid)
    );
    Utf8Bytes::from(s)
}

fn trade_frame(a: usize, m: &Model, i: usize, rng: &mut Rng) -> Utf8Bytes {
    let (p, side) = if rng.below(2) == 0 {
        (*m.bids.keys().next_back().expect("bids"), "SELL")
    } else {
        (*m.asks.keys().next().expect("asks"), "BUY")
    };
    Utf8Bytes::from(format!(
        r#"{{"asset_id":"{}","event_type":"last_trade_price","fee_rate_bps":"0","market":"{}","price":"{}","side":"{side}","size":"{}","timestamp":"{}","transaction_hash":"0x{}{}"}}"#,
        ASSETS[a],
        MARKETS[a / 2],
        price(p),
        size((1 + rng.below(500)) * 10_000),
        T0_MS + i as u64,
        hash40(rng),
        &hash40(rng)[..24],
    ))
}

fn price_change_frame(a: usize, models: &mut [Model], i: usize, rng: &mut Rng) -> Utf8Bytes {
    // One change on the asset, and (as the exchange does for a market's two outcomes) the
    // mirrored change on its complement half the time.
    let mut changes = vec![a];
    if rng.below(2) == 0 {
        changes.push(a ^ 1);
    }
    let mut s = String::with_capacity(512);
    let _ = write!(
        s,
        r#"{{"event_type":"price_change","market":"{}","price_changes":["#,
        MARKETS[a / 2]
    );
    for (k, &asset) in changes.iter().enumerate() {
        let m = &mut models[asset];
        let buy = rng.below(2) == 0;
        let (book, lo) = if buy {
            (&mut m.bids, 30u32)
        } else {
            (&mut m.asks, 51u32)
        };
        let p = lo + rng.below(20) as u32;
        // Remove a level 10% of the time, never the last one of a side.
        let q = if rng.below(10) == 0 && book.len() > 1 {
            book.remove(&p);
            0
        } else {
            let q = (1 + rng.below(5000)) * 10_000;
            book.insert(p, q);
            q
        };
        let bb = *m.bids.keys().next_back().expect("bids");
        let ba = *m.asks.keys().next().expect("asks");
        let sep = if k == 0 { "" } else { "," };
        let _ = write!(
            s,
            r#"{sep}{{"asset_id":"{}","price":"{}","size":"{}","side":"{}","hash":"{}","best_bid":"{}","best_ask":"{}"}}"#,
            ASSETS[asset],
            price(p),
            size(q),
            if buy { "BUY" } else { "SELL" },
            hash40(rng),
            price(bb),
            price(ba)
        );
    }
    let _ = write!(s, r#"],"timestamp":"{}"}}"#, T0_MS + i as u64);
    Utf8Bytes::from(s)
}

/// How fast the server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// This many frames per second, evenly spaced.
    PerSecond(u32),
    /// As fast as the socket takes them.
    FlatOut,
}

impl Rate {
    /// A short label for tables.
    #[must_use]
    pub fn label(self) -> String {
        match self {
            Rate::PerSecond(n) => format!("{n} msg/s"),
            Rate::FlatOut => "flat out".to_owned(),
        }
    }
}

/// A loopback WebSocket server for one client connection on its own thread.
pub struct Server {
    /// `ws://127.0.0.1:PORT/ws/market`.
    pub url: String,
    /// Nanoseconds since `base` just before each frame's write (0 = not sent).
    pub sent_ns: Arc<Vec<AtomicU64>>,
    /// Nanoseconds since `base` just after each frame's write returned: on loopback the
    /// kernel has by then queued the bytes on the client's socket (0 = not sent).
    pub written_ns: Arc<Vec<AtomicU64>>,
    /// The time origin shared with the client.
    pub base: Instant,
    /// Nanoseconds each paced frame went out after its scheduled time (0 flat out).
    pub late_ns: Arc<Vec<AtomicU64>>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serve `feed` at `rate` to the first client that connects, once it has subscribed.
    ///
    /// # Panics
    /// When the loopback socket cannot be opened.
    #[must_use]
    pub fn start(feed: &Arc<Feed>, rate: Rate, base: Instant) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!(
            "ws://{}/ws/market",
            listener.local_addr().expect("local addr")
        );
        let stamps = || -> Arc<Vec<AtomicU64>> {
            Arc::new((0..feed.frames.len()).map(|_| AtomicU64::new(0)).collect())
        };
        let (sent_ns, written_ns, late_ns) = (stamps(), stamps(), stamps());
        let done = Arc::new(AtomicBool::new(false));
        let (feed, sent, written, late, stop) = (
            Arc::clone(feed),
            Arc::clone(&sent_ns),
            Arc::clone(&written_ns),
            Arc::clone(&late_ns),
            Arc::clone(&done),
        );
        let thread = std::thread::spawn(move || {
            serve(
                &listener,
                &feed,
                rate,
                base,
                [&sent, &written, &late],
                &stop,
            );
        });
        Self {
            url,
            sent_ns,
            written_ns,
            base,
            late_ns,
            done,
            thread: Some(thread),
        }
    }

    /// Percentile `p` (0..=100) of how late the paced frames went out, microseconds.
    #[must_use]
    pub fn late_pct_us(&self, p: f64) -> f64 {
        let mut v: Vec<u64> = self
            .late_ns
            .iter()
            .map(|a| a.load(Ordering::Acquire))
            .collect();
        if v.is_empty() {
            return f64::NAN;
        }
        v.sort_unstable();
        let k = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
        v[k.min(v.len() - 1)] as f64 / 1000.0
    }

    /// Stop serving (the connection is closed once the feed is sent) and join the thread.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    listener: &TcpListener,
    feed: &Feed,
    rate: Rate,
    base: Instant,
    [sent, written, late]: [&[AtomicU64]; 3],
    done: &AtomicBool,
) {
    let Ok((tcp, _)) = listener.accept() else {
        return;
    };
    let _ = tcp.set_nodelay(true);
    let Ok(mut ws) = tungstenite::accept(tcp) else {
        return;
    };
    // Wait for the subscription, then give the client a moment to finish its set-up (the
    // official SDK subscribes each stream separately).
    loop {
        match ws.read() {
            Ok(Message::Text(_)) => break,
            Ok(_) => {}
            Err(_) => return,
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    let _ = ws.get_mut().set_nonblocking(false);
    let interval = match rate {
        Rate::PerSecond(n) => Some(Duration::from_secs(1) / n),
        Rate::FlatOut => None,
    };
    let start = Instant::now();
    for (i, frame) in feed.frames.iter().enumerate() {
        if let Some(step) = interval {
            // The snapshots go out together; paced frames follow.
            let at = start + step * u32::try_from(i.saturating_sub(feed.warmup)).unwrap_or(0);
            loop {
                let now = Instant::now();
                if now >= at {
                    break;
                }
                let left = at - now;
                if left > Duration::from_micros(200) {
                    std::thread::sleep(left - Duration::from_micros(100));
                } else {
                    std::hint::spin_loop();
                }
            }
        }
        let now = Instant::now();
        if interval.is_some() && i >= feed.warmup {
            let at =
                start + interval.unwrap_or_default() * u32::try_from(i - feed.warmup).unwrap_or(0);
            let behind = u64::try_from(now.saturating_duration_since(at).as_nanos());
            late[i].store(behind.unwrap_or(u64::MAX), Ordering::Relaxed);
        }
        let ns = u64::try_from((now - base).as_nanos()).unwrap_or(u64::MAX);
        sent[i].store(ns.max(1), Ordering::Release);
        if ws.send(Message::Text(frame.clone())).is_err() {
            return;
        }
        let ns = u64::try_from(base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        written[i].store(ns.max(1), Ordering::Release);
    }
    // Keep the connection open (answering PING) until the client is done.
    let _ = ws
        .get_mut()
        .set_read_timeout(Some(Duration::from_millis(20)));
    while !done.load(Ordering::Acquire) {
        match ws.read() {
            Ok(Message::Text(t)) if t.as_str() == "PING" => {
                let _ = ws.send(Message::text("PONG"));
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    let _ = ws.close(None);
    let _ = ws.flush();
}

/// Receive times recorded by a client: nanoseconds since the shared base, per frame index.
pub struct Recorder {
    base: Instant,
    /// 0 = not (yet) handled.
    pub recv_ns: Vec<u64>,
    /// Frames handled.
    pub count: usize,
    /// Index of the last frame; the run ends when it is handled.
    pub last: usize,
    first_at: Option<Instant>,
    last_at: Option<Instant>,
}

impl Recorder {
    /// A recorder for a feed of `n` frames.
    #[must_use]
    pub fn new(base: Instant, n: usize) -> Self {
        Self {
            base,
            recv_ns: vec![0; n],
            count: 0,
            last: n - 1,
            first_at: None,
            last_at: None,
        }
    }

    /// Record that the frame with exchange timestamp `ts` is now visible to the handler.
    /// Returns `true` once the last frame of the feed has been handled.
    #[inline]
    pub fn record(&mut self, ts: u64) -> bool {
        let now = Instant::now();
        let Some(i) = ts
            .checked_sub(T0_MS)
            .and_then(|d| usize::try_from(d).ok())
            .filter(|&i| i < self.recv_ns.len())
        else {
            return false;
        };
        if self.recv_ns[i] == 0 {
            self.recv_ns[i] = u64::try_from((now - self.base).as_nanos()).unwrap_or(u64::MAX);
            self.count += 1;
            self.first_at.get_or_insert(now);
            self.last_at = Some(now);
        }
        i == self.last
    }
}

/// One row of results.
#[derive(Debug, Clone)]
pub struct Row {
    /// Latencies (ns) of the frames after warm-up, sorted.
    pub lat_ns: Vec<u64>,
    /// Frames handled (of those sent).
    pub handled: usize,
    /// Frames in the feed.
    pub total: usize,
    /// Handled frames per second, first to last.
    pub msg_per_s: f64,
}

impl Row {
    /// Pair send and receive stamps, skipping warm-up frames (a frame the handler saw before
    /// the stamp, as a spinning client can before the server's write returns, counts as 0).
    #[must_use]
    pub fn new(sent: &[AtomicU64], rec: &Recorder, warmup: usize) -> Self {
        let mut lat_ns: Vec<u64> = sent
            .iter()
            .zip(&rec.recv_ns)
            .skip(warmup)
            .filter_map(|(s, &r)| {
                let s = s.load(Ordering::Acquire);
                (s != 0 && r != 0).then(|| r.saturating_sub(s))
            })
            .collect();
        lat_ns.sort_unstable();
        let span = match (rec.first_at, rec.last_at) {
            (Some(a), Some(b)) if b > a => (b - a).as_secs_f64(),
            _ => f64::NAN,
        };
        Self {
            lat_ns,
            handled: rec.count,
            total: rec.recv_ns.len(),
            msg_per_s: rec.count as f64 / span,
        }
    }

    /// Percentile `p` (0..=100) in microseconds.
    #[must_use]
    pub fn pct_us(&self, p: f64) -> f64 {
        if self.lat_ns.is_empty() {
            return f64::NAN;
        }
        let k = ((p / 100.0) * (self.lat_ns.len() - 1) as f64).round() as usize;
        self.lat_ns[k.min(self.lat_ns.len() - 1)] as f64 / 1000.0
    }
}

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

/// Allocations made on threads that called [`count_allocations_here`].
pub static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Count the allocations of the calling thread from now on (the client's thread).
pub fn count_allocations_here(on: bool) {
    COUNTING.with(|c| c.set(on));
}

/// The system allocator, counting allocations of the marked threads.
pub struct CountingAlloc;

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// `uptime`'s load averages, for the record.
#[must_use]
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_is_decodable_and_its_final_book_matches_the_model() {
        let feed = Feed::new(5000);
        let mut books = polyclob::book::BookManager::new();
        for f in &feed.frames {
            let s = books.apply(f.as_str(), Instant::now());
            assert_eq!(s.errors, 0, "{}", f.as_str());
        }
        let best = books
            .book(ASSETS[0])
            .and_then(|b| b.best_bid())
            .expect("bid");
        assert_eq!(
            i64::from(best.price.as_micros()),
            i64::from(feed.final_best_bid.0) * 10_000
        );
        assert_eq!(best.size.as_micros(), feed.final_best_bid.1);
    }
}
