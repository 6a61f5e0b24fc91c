//! A book recorder: every raw market-channel frame, with the time it was received, and
//! snapshots of the books it built, written to a file that can be replayed later: to test a
//! strategy on real sequences, or to prove a book was right (or find the frame that made it
//! wrong).
//!
//! ```text
//! cargo run --release --example book_recorder                       # record 3 s, then replay
//! cargo run --release --example book_recorder -- --secs 10 --out rec.txt
//! cargo run --release --example book_recorder -- --replay rec.txt   # rebuild and compare
//! ```
//!
//! Recording runs against the embedded simulator (its traders keep eight books moving); for
//! the real exchange, leave out `.url(..)` and pick your token ids. After recording, the file
//! is replayed at once as a self-check. `--replay FILE` rebuilds the books from the recorded
//! frames alone, with the same rules the live feed uses, and compares them with every recorded
//! snapshot: it exits with 1 on the first mismatch (printing both versions) and with 2 when the
//! file cannot be read.
//!
//! # File format (version 1)
//!
//! A text header line `polyclob-book-recording 1`, then records in receive order. Every record
//! starts with a line of space-separated fields; `<t>` is the receive time in microseconds
//! since the Unix epoch (taken when the frame is handed to the consumer).
//!
//! - `F <t> <shard> <epoch> <len>` followed by exactly `<len>` bytes — the frame payload as
//!   received, unmodified — and a newline. Length-prefixed, so payloads may hold anything.
//! - `S <t> <shard> <kind> <assets>`: a connection status change. `<kind>` is `connected`,
//!   `reconnected`, `disconnected`, `lagged` or `connect_error`; `<assets>` are the token ids
//!   that connection carries, comma-separated (`-` for none). Every kind but `connect_error`
//!   makes those books ignore deltas until their next `book` snapshot, as the live feed does.
//! - `B <t> <asset> <state> <epoch> <tick> <timestamp_ms> <bids> <asks> <last_trade>`: the
//!   book of `<asset>` after the records before it. `<state>` is `live`, `awaiting` or
//!   `suspect`; `<bids>`/`<asks>` are `price@size` pairs, best first, comma-separated;
//!   `<last_trade>` is `price/size/side/timestamp_ms`. An absent value is `-`.
//!
//! Replaying: apply every `F` payload to a `BookManager` in order, gate the assets of every
//! `S` record but `connect_error`, and compare each `B` record with the rebuilt book.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use polyclob::book::{BookManager, BookSnapshot, BookState, LastTrade};
use polyclob::decode::Level;
use polyclob::fixed::{Price, Size};
use polyclob::types::{Side, TickSize};
use polyclob::ws::event::{Frame, Status};
use polyclob::ws::feed::{Cx, FeedHandle, Frames, Handler};
use polyclob::ws::market::MarketStream;
use polyclob_sim::Simulator;

const HEADER: &str = "polyclob-book-recording 1";
/// A snapshot of every book after this many frames (and once at the end).
const SNAPSHOT_EVERY: u64 = 25;

fn main() -> ExitCode {
    let mut secs = 3u64;
    let mut out: Option<PathBuf> = None;
    let mut replay: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--secs", Some(v)) if v.parse::<u64>().is_ok_and(|n| (1..=3600).contains(&n)) => {
                secs = v.parse().unwrap_or(3);
            }
            ("--out", Some(v)) => out = Some(v.into()),
            ("--replay", Some(v)) => replay = Some(v.into()),
            _ => {
                eprintln!(
                    "usage: book_recorder [--secs N] [--out FILE] | --replay FILE  (got {arg:?})"
                );
                return ExitCode::from(2);
            }
        }
    }
    if let Some(path) = replay {
        return report(replay_file(&path));
    }
    let path = out.unwrap_or_else(|| std::env::temp_dir().join("polyclob-book-recording.txt"));
    let recorded = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Failure::Io)
        .and_then(|rt| rt.block_on(record(&path, Duration::from_secs(secs))));
    match recorded {
        Ok(()) => report(replay_file(&path)),
        Err(e) => report(Err(e)),
    }
}

fn report(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Mismatch(m)) => {
            eprintln!("replay MISMATCH: {m}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("book_recorder: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why a run failed: a replayed book differs (exit 1), or anything else (exit 2).
#[derive(Debug)]
enum Failure {
    Mismatch(String),
    Io(io::Error),
    Format { line: u64, what: String },
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Mismatch(m) | Self::Other(m) => f.write_str(m),
            Self::Io(e) => write!(f, "i/o: {e}"),
            Self::Format { line, what } => write!(f, "bad recording at line {line}: {what}"),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

fn unix_micros() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

// ---------------------------------------------------------------- recording

async fn record(path: &Path, length: Duration) -> Result<(), Failure> {
    let sim = Simulator::builder()
        .seed(23)
        .activity(Some(Duration::from_millis(5)))
        .start()
        .await
        .map_err(|e| Failure::Other(format!("simulator: {e}")))?;
    let assets: Vec<String> = sim
        .markets()
        .iter()
        .flat_map(|m| m.tokens().iter().map(|t| t.token_id().to_owned()))
        .collect();
    let mut stream = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets(assets.iter().cloned())
        .frames()
        .build()
        .map_err(|e| Failure::Other(format!("market stream: {e}")))?;
    let mut out = BufWriter::new(File::create(path)?);
    writeln!(out, "{HEADER}")?;
    let mut rec = Recorder {
        handle: stream.handle(),
        books: BookManager::new(),
        out,
        frames: 0,
        snapshots: 0,
        error: None,
    };
    let deadline = tokio::time::Instant::now() + length;
    while let Ok(alive) = tokio::time::timeout_at(deadline, stream.dispatch(&mut rec)).await {
        if !alive || rec.error.is_some() {
            break;
        }
    }
    stream.handle().shutdown();
    rec.snapshot_all(); // the final state
    if let Some(e) = rec.error.take() {
        return Err(e.into());
    }
    rec.out.flush()?;
    let bytes = std::fs::metadata(path)?.len();
    println!(
        "recorded   {} frames and {} book snapshots of {} assets in {} s to {} ({} KiB)",
        rec.frames,
        rec.snapshots,
        assets.len(),
        length.as_secs(),
        path.display(),
        bytes / 1024
    );
    if rec.frames == 0 {
        return Err(Failure::Other("no frame received".into()));
    }
    Ok(())
}

/// Writes every raw frame and status, then applies it to its books as the market feed does
/// (a status makes the books of its connection await their snapshot).
struct Recorder<W: Write> {
    handle: FeedHandle<Frames>,
    books: BookManager,
    out: W,
    frames: u64,
    snapshots: u64,
    /// The first write error; recording stops at it.
    error: Option<io::Error>,
}

impl<W: Write> Recorder<W> {
    fn write(&mut self, f: impl FnOnce(&mut W) -> io::Result<()>) {
        if self.error.is_none() {
            if let Err(e) = f(&mut self.out) {
                self.error = Some(e);
            }
        }
    }

    fn snapshot_all(&mut self) {
        let t = unix_micros();
        let mut lines = Vec::new();
        for book in self.books.books_unchecked() {
            lines.push(format!("B {t} {}", format_snapshot(&book.to_snapshot())));
        }
        self.snapshots += lines.len() as u64;
        self.write(|w| lines.iter().try_for_each(|l| writeln!(w, "{l}")));
    }
}

impl<W: Write> Handler<Frames> for Recorder<W> {
    fn on_message(&mut self, frame: &Frame<'_>, _: &Cx<'_, Frames>) {
        let t = unix_micros();
        let bytes = frame.as_bytes();
        self.write(|w| {
            writeln!(
                w,
                "F {t} {} {} {}",
                frame.shard(),
                frame.epoch(),
                bytes.len()
            )?;
            w.write_all(bytes)?;
            w.write_all(b"\n")
        });
        let text = frame.as_str().unwrap_or("\u{fffd}");
        self.books.apply(text, std::time::Instant::now());
        self.frames += 1;
        if self.frames % SNAPSHOT_EVERY == 0 {
            self.snapshot_all();
        }
    }

    fn on_status(&mut self, status: &Status, _: &Cx<'_, Frames>) {
        let t = unix_micros();
        let kind = match status {
            _ if status.connect_error().is_some() => "connect_error",
            Status::Connected {
                reconnect: false, ..
            } => "connected",
            Status::Connected { .. } => "reconnected",
            Status::Disconnected { .. } => "disconnected",
            Status::Lagged { .. } => "lagged",
            _ => "other",
        };
        let assets = self.handle.shard_assets(status.shard()).join(",");
        let assets = if assets.is_empty() {
            "-".into()
        } else {
            assets
        };
        self.write(|w| writeln!(w, "S {t} {} {kind} {assets}", status.shard()));
        if status.connect_error().is_none() {
            for id in self.handle.shard_assets(status.shard()) {
                self.books.register(&id).await_snapshot();
            }
        }
    }
}

// ---------------------------------------------------------------- the snapshot line

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

fn format_levels(levels: &[Level]) -> String {
    if levels.is_empty() {
        return "-".into();
    }
    let pairs: Vec<String> = levels
        .iter()
        .map(|l| format!("{}@{}", l.price, l.size))
        .collect();
    pairs.join(",")
}

fn format_snapshot(s: &BookSnapshot) -> String {
    let state = match s.state {
        BookState::Live => "live",
        BookState::AwaitingSnapshot => "awaiting",
        BookState::Suspect => "suspect",
        _ => "other",
    };
    let last = s.last_trade.map_or_else(
        || "-".to_owned(),
        |t| {
            format!(
                "{}/{}/{}/{}",
                t.price,
                opt(t.size),
                opt(t.side.map(Side::as_str)),
                opt(t.timestamp_ms)
            )
        },
    );
    format!(
        "{} {state} {} {} {} {} {} {last}",
        s.asset_id,
        s.epoch,
        opt(s.tick_size.map(TickSize::as_str)),
        opt(s.timestamp_ms),
        format_levels(&s.bids),
        format_levels(&s.asks),
    )
}

/// Parses the fields after `B <t>`.
fn parse_snapshot(fields: &[&str]) -> Result<BookSnapshot, String> {
    let [asset, state, epoch, tick, ts, bids, asks, last] = fields else {
        return Err(format!(
            "a book record has 10 fields, not {}",
            fields.len() + 2
        ));
    };
    fn maybe<T>(s: &str, f: impl FnOnce(&str) -> Option<T>) -> Result<Option<T>, String> {
        if s == "-" {
            Ok(None)
        } else {
            f(s).map(Some).ok_or_else(|| format!("bad value {s:?}"))
        }
    }
    let price = |s: &str| s.parse::<Price>().map_err(|e| format!("price {s:?}: {e}"));
    let size = |s: &str| Size::parse(s.as_bytes()).map_err(|e| format!("size {s:?}: {e}"));
    let levels = |s: &str| -> Result<Vec<Level>, String> {
        if s == "-" {
            return Ok(Vec::new());
        }
        s.split(',')
            .map(|pair| {
                let (p, q) = pair
                    .split_once('@')
                    .ok_or_else(|| format!("level {pair:?} is not price@size"))?;
                Ok(Level {
                    price: price(p)?,
                    size: size(q)?,
                })
            })
            .collect()
    };
    let last_trade = if *last == "-" {
        None
    } else {
        let parts: Vec<&str> = last.split('/').collect();
        let [p, q, side, ts] = parts[..] else {
            return Err(format!(
                "last trade {last:?} is not price/size/side/timestamp"
            ));
        };
        Some(LastTrade {
            price: price(p)?,
            size: maybe(q, |q| Size::parse(q.as_bytes()).ok())?,
            side: maybe(side, |s| Side::parse(s.as_bytes()))?,
            timestamp_ms: maybe(ts, |t| t.parse().ok())?,
        })
    };
    Ok(BookSnapshot {
        asset_id: (*asset).to_owned(),
        bids: levels(bids)?,
        asks: levels(asks)?,
        state: match *state {
            "live" => BookState::Live,
            "awaiting" => BookState::AwaitingSnapshot,
            "suspect" => BookState::Suspect,
            other => return Err(format!("unknown book state {other:?}")),
        },
        epoch: epoch.parse().map_err(|_| format!("bad epoch {epoch:?}"))?,
        tick_size: maybe(tick, |t| TickSize::parse(t.as_bytes()))?,
        timestamp_ms: maybe(ts, |t| t.parse().ok())?,
        last_trade,
    })
}

// ---------------------------------------------------------------- replay

fn replay_file(path: &Path) -> Result<(), Failure> {
    let started = Instant::now();
    let mut r = BufReader::new(File::open(path)?);
    let mut line = String::new();
    let mut n = 1u64;
    let bad = |line: u64, what: String| Failure::Format { line, what };
    r.read_line(&mut line)?;
    if line.trim_end() != HEADER {
        return Err(bad(1, format!("expected the header {HEADER:?}")));
    }
    let mut books = BookManager::new();
    let (mut frames, mut checked, mut statuses) = (0u64, 0u64, 0u64);
    let (mut first_t, mut last_t) = (None, 0u128);
    let mut payload = Vec::new();
    loop {
        line.clear();
        n += 1;
        if r.read_line(&mut line)? == 0 {
            break;
        }
        let fields: Vec<&str> = line.trim_end_matches('\n').split(' ').collect();
        let t: u128 = fields
            .get(1)
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| bad(n, "missing receive time".into()))?;
        first_t.get_or_insert(t);
        last_t = last_t.max(t);
        match fields[0] {
            "F" => {
                let len: usize = fields
                    .get(4)
                    .and_then(|l| l.parse().ok())
                    .filter(|&l| l <= 64 << 20)
                    .ok_or_else(|| bad(n, "bad frame length".into()))?;
                payload.resize(len + 1, 0);
                r.read_exact(&mut payload)
                    .map_err(|_| bad(n, "frame cut short".into()))?;
                if payload.pop() != Some(b'\n') {
                    return Err(bad(n, "frame longer than its length".into()));
                }
                // What the live feed does with a frame that is not UTF-8.
                let text = std::str::from_utf8(&payload).unwrap_or("\u{fffd}");
                books.apply(text, Instant::now());
                frames += 1;
                n += bytecount_newlines(&payload) + 1;
            }
            "S" => {
                let (Some(kind), Some(assets)) = (fields.get(3), fields.get(4)) else {
                    return Err(bad(n, "a status record has 5 fields".into()));
                };
                if *kind != "connect_error" && *assets != "-" {
                    for id in assets.split(',') {
                        books.register(id).await_snapshot();
                    }
                }
                statuses += 1;
            }
            "B" => {
                let want = parse_snapshot(&fields[2..]).map_err(|e| bad(n, e))?;
                let got = books.snapshot(&want.asset_id);
                if got.as_ref() != Some(&want) {
                    return Err(Failure::Mismatch(format!(
                        "line {n}, after {frames} frames: book {}…\n  recorded {}\n  rebuilt  {}",
                        &want.asset_id[..want.asset_id.len().min(12)],
                        format_snapshot(&want),
                        got.as_ref()
                            .map_or_else(|| "(no such book)".into(), format_snapshot)
                    )));
                }
                checked += 1;
            }
            other => return Err(bad(n, format!("unknown record type {other:?}"))),
        }
    }
    if checked == 0 {
        return Err(Failure::Other(
            "the recording holds no book snapshot".into(),
        ));
    }
    let span = Duration::from_micros(
        u64::try_from(last_t - first_t.unwrap_or(last_t)).unwrap_or(u64::MAX),
    );
    println!(
        "replayed   {frames} frames and {statuses} status changes ({:.1} s of traffic) in {:.1} ms: \
         all {checked} recorded snapshots match the rebuilt books",
        span.as_secs_f64(),
        started.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}

/// Line count inside a payload, so that error messages name the right line.
fn bytecount_newlines(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64
}
