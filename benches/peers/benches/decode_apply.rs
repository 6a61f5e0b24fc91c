//! Decode + apply in one thread, no socket: polyclob's `BookManager::apply` against polyfill-rs
//! 0.4.3 on the production book shapes of `Feed` (the frames `ws_end_to_end` replays): `book`
//! snapshots (20 levels a side), `price_change` with one entry and with two.
//!
//! Each row replays the distinct frames of one shape in feed order (timestamps rising, so
//! neither client may skip a snapshot or a delta as stale), after the four initial snapshots;
//! every call must succeed. polyfill-rs rows use its public paths that take a frame:
//! - `book`: `WsBookUpdateProcessor::process_bytes` (its allocation-free book path; simd-json
//!   parses in place, so each frame is first copied into a reused buffer, a copy polyfill's
//!   own stream makes too) and, for reference, `decode::parse_stream_messages` +
//!   `OrderBookManager::apply_book_update` (what its `WebSocketStream` yields and
//!   `ws_end_to_end` applies);
//! - `price_change`: `decode::parse_stream_messages` + `OrderBookManager::apply_delta` per
//!   entry (its only path for deltas; the processor ignores them).
//!
//! Run: `cargo bench --manifest-path benches/peers/Cargo.toml --bench decode_apply` (wall time,
//! median of 7 rounds). Instructions: build with `--no-run`, then
//! `python3 scripts/instructions.py <binary> DECODE_APPLY_COUNT book:polyclob,book:polyfill,…`
//! (`<shape>:<row>`; shapes `book`, `price_change_x1`, `price_change_x2`; rows `polyclob`,
//! `polyfill`, `polyfill_stream` (book only)).

use std::hint::black_box;
use std::time::Instant;

use polyclob::book::BookManager;
use polyclob_peer_benches::{ASSETS, Feed, load_average};
use polyfill_rs::types::{OrderDelta, StreamMessage};
use polyfill_rs::{OrderBookManager, WsBookUpdateProcessor};

/// Frames generated: enough for 3,000 distinct frames of every shape (books are ~2%).
const FEED: usize = 160_000;

/// The feed's initial snapshots and its frames of each shape, in feed order.
struct Shapes {
    warm: Vec<String>,
    rows: Vec<(&'static str, Vec<String>)>,
}

fn shapes() -> Shapes {
    let feed = Feed::new(FEED);
    let all: Vec<&str> = feed.frames.iter().map(|f| f.as_str()).collect();
    let (warm, rest) = all.split_at(feed.warmup);
    let of = |keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        rest.iter()
            .filter(|f| keep(f))
            .map(|f| (*f).to_owned())
            .collect()
    };
    let is_change = |f: &str| f.contains("\"event_type\":\"price_change\"");
    let entries = |f: &str| f.matches("\"asset_id\"").count();
    let rows = vec![
        ("book", of(&|f| f.contains("\"event_type\":\"book\""))),
        ("price_change_x1", of(&|f| is_change(f) && entries(f) == 1)),
        ("price_change_x2", of(&|f| is_change(f) && entries(f) == 2)),
    ];
    for (name, frames) in &rows {
        assert!(frames.len() >= 3_000, "{name}: {} frames", frames.len());
    }
    Shapes {
        warm: warm.iter().map(|f| (*f).to_owned()).collect(),
        rows,
    }
}

/// One client's decode + apply of one frame; `false` on any error.
trait Client {
    fn apply(&mut self, frame: &str) -> bool;
}

struct Polyclob {
    books: BookManager,
    now: Instant,
}

impl Client for Polyclob {
    fn apply(&mut self, frame: &str) -> bool {
        let s = self.books.apply(frame, self.now);
        s.errors == 0 && s.applied > 0
    }
}

/// polyfill-rs's book processor (`book` frames only).
struct Polyfill {
    books: OrderBookManager,
    processor: WsBookUpdateProcessor,
    buf: Vec<u8>,
}

impl Client for Polyfill {
    fn apply(&mut self, frame: &str) -> bool {
        self.buf.clear();
        self.buf.extend_from_slice(frame.as_bytes());
        matches!(
            self.processor.process_bytes(&mut self.buf, &self.books),
            Ok(s) if s.book_messages == 1 && s.book_levels_applied > 0
        )
    }
}

/// polyfill-rs's stream decoder and its book manager.
struct PolyfillStream {
    books: OrderBookManager,
}

impl Client for PolyfillStream {
    fn apply(&mut self, frame: &str) -> bool {
        let Ok(msgs) = polyfill_rs::decode::parse_stream_messages(frame) else {
            return false;
        };
        let mut ok = !msgs.is_empty();
        for msg in msgs {
            match msg {
                StreamMessage::Book(b) => ok &= self.books.apply_book_update(&b).is_ok(),
                StreamMessage::PriceChange(p) => {
                    for c in p.price_changes {
                        let delta = OrderDelta {
                            token_id: c.asset_id,
                            timestamp: chrono::Utc::now(),
                            side: c.side,
                            price: c.price,
                            size: c.size.unwrap_or_default(),
                            sequence: p.timestamp,
                        };
                        ok &= self.books.apply_delta(delta).is_ok();
                    }
                }
                _ => ok = false,
            }
        }
        ok
    }
}

/// A client of `row`, its books holding the initial snapshots.
fn client(row: &str, warm: &[String]) -> Box<dyn Client> {
    let mut c: Box<dyn Client> = match row {
        "polyclob" => Box::new(Polyclob {
            books: BookManager::new(),
            now: Instant::now(),
        }),
        "polyfill" | "polyfill_stream" => {
            let books = OrderBookManager::new(100);
            for a in ASSETS {
                books.get_or_create_book(a).expect("polyfill-rs book");
            }
            if row == "polyfill" {
                Box::new(Polyfill {
                    books,
                    processor: WsBookUpdateProcessor::new(4096),
                    buf: Vec::with_capacity(4096),
                })
            } else {
                Box::new(PolyfillStream { books })
            }
        }
        other => panic!("unknown row {other}"),
    };
    for w in warm {
        assert!(c.apply(w), "{row}: initial snapshot refused");
    }
    c
}

/// The rows of a shape.
fn rows_of(shape: &str) -> &'static [&'static str] {
    if shape == "book" {
        &["polyclob", "polyfill", "polyfill_stream"]
    } else {
        &["polyclob", "polyfill_stream"]
    }
}

/// `DECODE_APPLY_COUNT=<shape>:<row>:<n>`: apply the shape's first `n` frames and exit (for
/// callgrind; the frames are generated whatever `n` is, so the difference of two runs is the
/// applies alone).
fn count_mode(spec: &str) {
    let mut parts = spec.split(':');
    let (Some(shape), Some(row), Some(n)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("DECODE_APPLY_COUNT=<shape>:<row>:<n>");
    };
    let n: usize = n.parse().expect("count");
    let s = shapes();
    let frames = &s.rows.iter().find(|r| r.0 == shape).expect("known shape").1;
    assert!(n <= frames.len(), "at most {} frames", frames.len());
    let mut c = client(row, &s.warm);
    for f in &frames[..n] {
        assert!(c.apply(black_box(f)), "{shape}/{row} refused {f}");
    }
}

fn main() {
    if let Ok(spec) = std::env::var("DECODE_APPLY_COUNT") {
        count_mode(&spec);
        return;
    }
    let s = shapes();
    println!(
        "decode_apply: load average before {}, median of 7 rounds over 3,000 frames a shape",
        load_average()
    );
    for (shape, frames) in &s.rows {
        let frames = &frames[..3_000];
        let mut medians = Vec::new();
        for row in rows_of(shape) {
            let mut ns: Vec<f64> = (0..7)
                .map(|_| {
                    let mut c = client(row, &s.warm);
                    let t = Instant::now();
                    for f in frames {
                        assert!(c.apply(black_box(f)), "{shape}/{row} refused {f}");
                    }
                    t.elapsed().as_nanos() as f64 / frames.len() as f64
                })
                .collect();
            ns.sort_by(f64::total_cmp);
            medians.push((row, ns[ns.len() / 2]));
        }
        let ours = medians[0].1;
        for (row, m) in &medians {
            println!(
                "{shape:16} {row:16} {m:9.0} ns/frame   polyclob ÷ this = {:.3}",
                ours / m
            );
        }
    }
    println!("load average after {}", load_average());
}
