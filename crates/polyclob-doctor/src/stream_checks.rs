//! The stream checks: the market channel (snapshots, their hashes, deltas against REST,
//! continuity), PolyBolt (auth, snapshot, sequence numbers, close codes), RTDS (activity, the
//! deprecated price topics) and the sports socket.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, StreamExt};
use polyclob::book::{BookManager, HashStatus};
use polyclob::polybolt::decode::BoltMessage;
use polyclob::polybolt::{BoltSubscription, PolyBoltStream};
use polyclob::rtds::decode::Payload;
use polyclob::rtds::{ActivityFilter, RtdsStream};
use polyclob::sports::SportsStream;
use polyclob::types::Side;
use polyclob::ws::event::Disconnect;
use polyclob::ws::event::{OwnedFrame, Status};
use polyclob::ws::feed::{FeedEvent, FrameStream};
use polyclob::ws::market::MarketStream;

use crate::Report;
use crate::checks::{Auth, Ctx, Picked};

/// Close codes polyclob handles on PolyBolt (its docs), beside the WebSocket standard ones.
const POLYBOLT_CODES: [u16; 4] = [4001, 4002, 4003, 4008];

/// Whether `code` is one polyclob knows on PolyBolt.
fn known_close(code: u16) -> bool {
    (1000..=1015).contains(&code) || POLYBOLT_CODES.contains(&code)
}

/// Waits this long for a first snapshot or message.
const FIRST: Duration = Duration::from_secs(15);

/// A book side as comparable text, best level last as polyclob keeps it.
fn side_text(
    levels: impl Iterator<Item = (polyclob::fixed::Price, polyclob::fixed::Size)>,
) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = levels
        .filter(|(_, s)| !s.is_zero())
        .map(|(p, s)| (p.to_string(), s.to_string()))
        .collect();
    v.sort();
    v
}

struct Market {
    stream: FrameStream,
    books: BookManager,
    mismatches: u32,
    unverifiable: u32,
    errors: u32,
    applied: u32,
}

impl Market {
    fn apply(&mut self, ctx: &Ctx<'_>, ev: FeedEvent<OwnedFrame>) {
        if let FeedEvent::Message(f) = ev {
            if let Some(text) = f.as_str() {
                ctx.recorder.frame("market", text);
                let s = self.books.apply(text, std::time::Instant::now());
                self.mismatches += s.hash_mismatches;
                self.unverifiable += s.hash_unverifiable;
                self.errors += s.errors;
                self.applied += s.applied;
            }
        }
    }

    /// Applies every frame already waiting.
    fn drain(&mut self, ctx: &Ctx<'_>) {
        while let Some(Some(ev)) = self.stream.next().now_or_never() {
            self.apply(ctx, ev);
        }
    }

    /// Applies frames until `deadline`.
    async fn run_until(&mut self, ctx: &Ctx<'_>, deadline: Instant) {
        while let Ok(Some(ev)) = tokio::time::timeout_at(deadline.into(), self.stream.next()).await
        {
            self.apply(ctx, ev);
        }
    }
}

/// The market channel against REST.
pub(crate) async fn market(ctx: &Ctx<'_>, picked: &Picked, report: &mut Report) {
    if picked.tokens.is_empty() {
        report.warn("ws.market", "no token to subscribe: not checked");
        return;
    }
    let mut b = MarketStream::builder().assets(picked.tokens.iter().map(|(t, _)| t.clone()));
    if let Some(u) = &ctx.opts.market_ws {
        b = b.url(u);
    }
    let stream = match b.frames().build() {
        Ok(s) => s,
        Err(e) => {
            report.fail("ws.market", format!("cannot build the stream: {e}"));
            return;
        }
    };
    let mut books = BookManager::new();
    for ((token, _), book) in picked.tokens.iter().zip(&picked.books) {
        if let Ok(meta) = book.book_meta() {
            books.set_book_meta(token, meta);
        }
    }
    let mut m = Market {
        stream,
        books,
        mismatches: 0,
        unverifiable: 0,
        errors: 0,
        applied: 0,
    };
    let start = Instant::now();
    let all = |m: &Market| {
        picked
            .tokens
            .iter()
            .all(|(t, _)| m.books.book(t).is_some_and(|b| b.timestamp_ms().is_some()))
    };
    while !all(&m) && start.elapsed() < FIRST {
        m.run_until(ctx, Instant::now() + Duration::from_millis(50))
            .await;
    }
    if !all(&m) {
        let missing: Vec<&str> = picked
            .tokens
            .iter()
            .filter(|(t, _)| m.books.book(t).is_none())
            .map(|(t, _)| t.as_str())
            .collect();
        report.fail(
            "ws.market.snapshot",
            format!(
                "no book snapshot within {} s for {} of {} tokens (first {})",
                FIRST.as_secs(),
                missing.len(),
                picked.tokens.len(),
                missing.first().copied().unwrap_or("?")
            ),
        );
        return;
    }
    report.pass(
        "ws.market.snapshot",
        format!(
            "book snapshots for {} tokens in {} ms",
            picked.tokens.len(),
            start.elapsed().as_millis()
        ),
    );
    let verified = picked
        .tokens
        .iter()
        .filter(|(t, _)| m.books.hash_status(t) == Some(HashStatus::Verified))
        .count();
    if m.mismatches > 0 {
        report.fail(
            "ws.market.hash",
            format!("{} WS book snapshot hashes did not reproduce", m.mismatches),
        );
    } else if verified == picked.tokens.len() {
        report.pass(
            "ws.market.hash",
            format!("{verified}/{verified} WS book snapshot hashes reproduce"),
        );
    } else {
        report.warn(
            "ws.market.hash",
            format!(
                "{verified} of {} snapshot hashes reproduce; {} snapshots could not be verified \
                 (they omit tick_size or last_trade_price, which the exchange hashes with values \
                 this client does not know exactly: not mismatches); the rest carried no hash",
                picked.tokens.len(),
                m.unverifiable
            ),
        );
    }

    // Deltas for the duration, then each book against a fresh REST snapshot.
    m.run_until(ctx, Instant::now() + ctx.opts.duration).await;
    let mut differs: BTreeMap<String, String> = BTreeMap::new();
    for (token, _) in &picked.tokens {
        let mut last = String::new();
        let mut equal = false;
        // REST and WS are read at different instants: a book that moved in between is read
        // again, a few times.
        for _ in 0..8 {
            m.drain(ctx);
            let Ok((_, rest)) = crate::checks::rest_book(ctx, token).await else {
                break;
            };
            m.drain(ctx);
            let Some(ws) = m.books.book(token) else { break };
            let ws_bids = side_text(ws.levels(Side::Buy).map(|l| (l.price, l.size)));
            let ws_asks = side_text(ws.levels(Side::Sell).map(|l| (l.price, l.size)));
            let rest_bids = side_text(rest.bids.iter().map(|l| (l.price, l.size)));
            let rest_asks = side_text(rest.asks.iter().map(|l| (l.price, l.size)));
            if ws_bids == rest_bids && ws_asks == rest_asks {
                equal = true;
                break;
            }
            last = format!(
                "bids {} WS / {} REST levels, asks {} / {}",
                ws_bids.len(),
                rest_bids.len(),
                ws_asks.len(),
                rest_asks.len()
            );
            m.run_until(ctx, Instant::now() + Duration::from_millis(100))
                .await;
        }
        if !equal {
            differs.insert(token.clone(), last);
        }
    }
    match differs.iter().next() {
        None => report.pass(
            "ws.market.deltas",
            format!(
                "after {} s ({} updates applied) every book equals a fresh REST snapshot",
                ctx.opts.duration.as_secs_f32(),
                m.applied
            ),
        ),
        Some((t, why)) => report.fail(
            "ws.market.deltas",
            format!(
                "after {} s of deltas, {} of {} books differ from REST (token {t}: {why})",
                ctx.opts.duration.as_secs_f32(),
                differs.len(),
                picked.tokens.len()
            ),
        ),
    }
    let c = m.stream.counters();
    if m.errors > 0 {
        report.fail(
            "ws.market.decode",
            format!("{} elements did not decode ({} frames)", m.errors, c.frames),
        );
    }
    if c.breaks == 0 {
        report.pass(
            "ws.market.continuity",
            format!(
                "{} connection(s), no break ({} frames, {} bytes)",
                c.connects, c.frames, c.bytes
            ),
        );
    } else {
        report.warn(
            "ws.market.continuity",
            format!(
                "{} break(s), {} reconnect(s) in {} frames",
                c.breaks, c.reconnects, c.frames
            ),
        );
    }
}

/// PolyBolt: authenticates, snapshots, and keeps `seq` consecutive; closes only with codes
/// polyclob knows.
pub(crate) async fn polybolt(ctx: &Ctx<'_>, auth: Option<&Auth>, report: &mut Report) {
    let Some(auth) = auth else {
        report.warn("polybolt", "not checked: it needs API credentials (--key)");
        return;
    };
    let mut b = PolyBoltStream::builder()
        .credentials(auth.creds.clone())
        .subscribe(BoltSubscription::crypto_twap("btcusd"));
    if let Some(u) = &ctx.opts.polybolt {
        b = b.url(u);
    }
    let mut s = match b.build() {
        Ok(s) => s,
        Err(e) => {
            report.fail("polybolt", format!("cannot build the stream: {e}"));
            return;
        }
    };
    let watch = ctx.opts.duration.min(Duration::from_secs(10));
    let start = Instant::now();
    let (mut connected, mut snapshot, mut updates) = (false, false, 0u64);
    let mut breaks: Vec<String> = Vec::new();
    let mut closed: Option<u16> = None;
    let deadline = start + FIRST.max(watch);
    while Instant::now() < deadline && !(snapshot && start.elapsed() >= watch) {
        let Ok(Some(ev)) = tokio::time::timeout_at(deadline.into(), s.next()).await else {
            break;
        };
        match ev {
            FeedEvent::Status(Status::Connected { .. }) => connected = true,
            FeedEvent::Status(
                Status::Disconnected { reason, .. } | Status::Stopped { reason, .. },
            ) => {
                if let Disconnect::Closed { code: Some(c) } = reason {
                    closed.get_or_insert(c);
                }
                // A reconnect may follow; the close already decides the verdict below.
                if closed.is_some() {
                    break;
                }
            }
            FeedEvent::Break(b) => breaks.push(b.to_string()),
            FeedEvent::Message(msg) => {
                if let Some(t) = msg.frame().as_str() {
                    ctx.recorder.frame("polybolt", t);
                }
                // polyclob's own tracker reports gaps and server drops as `Break`s.
                if let Ok(BoltMessage::Data(e)) = msg.message() {
                    if e.snapshot {
                        snapshot = true;
                    } else {
                        updates += 1;
                    }
                }
            }
            _ => {}
        }
    }
    match closed {
        Some(c) if !known_close(c) => report.fail(
            "polybolt.close",
            format!(
                "the server closed the connection with code {c}, which polyclob does not handle (it knows {POLYBOLT_CODES:?} and 1000-1015)"
            ),
        ),
        Some(c) => report.warn("polybolt.close", format!("the server closed the connection with code {c}")),
        None => {}
    }
    if !connected {
        report.fail(
            "polybolt.connect",
            format!("no connection within {} s", FIRST.as_secs()),
        );
        return;
    }
    report.pass("polybolt.connect", "connected and authenticated");
    if snapshot {
        report.pass("polybolt.snapshot", "crypto_twap btcusd: snapshot received");
    } else {
        report.fail("polybolt.snapshot", "crypto_twap btcusd: no snapshot");
    }
    if breaks.is_empty() && closed.is_none() {
        report.pass(
            "polybolt.sequence",
            format!(
                "{updates} updates in {} s, seq consecutive, no dropped ({} connection(s))",
                watch.as_secs(),
                s.counters().connects
            ),
        );
    } else if let Some(b) = breaks.first() {
        report.fail(
            "polybolt.sequence",
            format!("{} break(s), first: {b}", breaks.len()),
        );
    }
}

/// RTDS: connects, and of what it subscribes (`activity` `orders_matched`, which stays on
/// RTDS, and the deprecated price topics `crypto_prices` and `crypto_prices_chainlink`, whose
/// removal Polymarket announced) receives and decodes every frame. Price topics still served
/// are a WARN (migrate to PolyBolt), gone ones a PASS; no activity in the window is a WARN (no
/// trade happened).
pub(crate) async fn rtds(ctx: &Ctx<'_>, report: &mut Report) {
    use polyclob::rtds::Subscription as Rtds;
    let mut b = RtdsStream::builder()
        .subscribe(Rtds::orders_matched(ActivityFilter::All))
        .subscribe(Rtds::crypto_prices(["btcusdt"]))
        .subscribe(Rtds::chainlink_prices(Some("btc/usd")));
    if let Some(u) = &ctx.opts.rtds {
        b = b.url(u);
    }
    let mut s = match b.build() {
        Ok(s) => s,
        Err(e) => {
            report.fail("rtds.connect", format!("cannot build the stream: {e}"));
            return;
        }
    };
    let start = Instant::now();
    // Watched for `--duration` (2 to 10 s) from the connection on.
    let window = ctx
        .opts
        .duration
        .clamp(Duration::from_secs(2), Duration::from_secs(10));
    let mut until = start + FIRST;
    let (mut connected, mut frames) = (false, 0u64);
    let mut per_topic: BTreeMap<String, u64> = BTreeMap::new();
    let mut invalid: Option<String> = None;
    let mut unread: Option<String> = None;
    let mut invalid_count = 0u64;
    while let Ok(Some(ev)) = tokio::time::timeout_at(until.into(), s.next()).await {
        match ev {
            FeedEvent::Status(Status::Connected { .. }) if !connected => {
                connected = true;
                until = Instant::now() + window;
            }
            FeedEvent::Message(m) => {
                frames += 1;
                if let Some(t) = m.frame().as_str() {
                    ctx.recorder.frame("rtds", t);
                }
                if let Ok(msg) = m.message() {
                    *per_topic.entry(msg.topic.to_owned()).or_default() += 1;
                    // An activity trade that reads as `Other` is a shape polyclob does not know.
                    if msg.topic == "activity" && matches!(msg.payload, Payload::Other(_)) {
                        unread.get_or_insert_with(|| format!("type {:?}", msg.kind));
                    }
                }
            }
            FeedEvent::Invalid { error, frame } => {
                frames += 1;
                invalid_count += 1;
                if let Some(t) = frame.as_str() {
                    ctx.recorder.frame("rtds", t);
                }
                invalid.get_or_insert_with(|| error.to_string());
            }
            _ => {}
        }
    }
    s.handle().shutdown();
    if !connected {
        report.fail(
            "rtds.connect",
            format!("no connection within {} s", FIRST.as_secs()),
        );
        return;
    }
    report.pass(
        "rtds.connect",
        format!(
            "connected; {frames} frames in {} ms",
            start.elapsed().as_millis()
        ),
    );
    match (&invalid, &unread) {
        (Some(e), _) => report.fail(
            "rtds.decode",
            format!("{invalid_count} of {frames} frames did not decode (first: {e})"),
        ),
        (None, Some(kind)) => report.fail(
            "rtds.decode",
            format!("an activity message of {kind} is not one polyclob reads"),
        ),
        (None, None) => report.pass("rtds.decode", format!("all {frames} frames decode")),
    }
    let count = |t: &str| per_topic.get(t).copied().unwrap_or(0);
    if count("activity") > 0 {
        report.pass(
            "rtds.activity",
            format!("{} orders_matched messages", count("activity")),
        );
    } else {
        report.warn(
            "rtds.activity",
            "no orders_matched message in the window (no trade?)",
        );
    }
    let legacy = ["crypto_prices", "crypto_prices_chainlink"];
    let served: Vec<String> = legacy
        .iter()
        .filter(|t| count(t) > 0)
        .map(|t| format!("{t} ({} messages)", count(t)))
        .collect();
    if served.is_empty() {
        report.pass(
            "rtds.prices",
            "the deprecated price topics are no longer served (removal announced; polyclob's PolyBolt streams serve them)",
        );
    } else {
        report.warn(
            "rtds.prices",
            format!(
                "deprecated price topics still served: {}; Polymarket announced their removal, use PolyBolt",
                served.join(", ")
            ),
        );
    }
}

/// The sports socket: connects and delivers a result (the server pings and the stream
/// answers).
pub(crate) async fn sports(ctx: &Ctx<'_>, report: &mut Report) {
    let mut b = SportsStream::builder();
    if let Some(u) = &ctx.opts.sports {
        b = b.url(u);
    }
    let mut s = match b.build() {
        Ok(s) => s,
        Err(e) => {
            report.fail("sports", format!("cannot build the stream: {e}"));
            return;
        }
    };
    let start = Instant::now();
    let deadline = start + FIRST;
    let mut connected = false;
    while let Ok(Some(ev)) = tokio::time::timeout_at(deadline.into(), s.next()).await {
        match ev {
            FeedEvent::Status(Status::Connected { .. }) => connected = true,
            FeedEvent::Message(_) => {
                report.pass(
                    "sports.stream",
                    format!("a sport_result after {} ms", start.elapsed().as_millis()),
                );
                return;
            }
            FeedEvent::Invalid { error, .. } => {
                report.fail("sports.stream", format!("a frame did not decode: {error}"));
                return;
            }
            _ => {}
        }
    }
    if connected {
        report.warn(
            "sports.stream",
            format!(
                "connected, but no sport_result in {} s (no live game?)",
                FIRST.as_secs()
            ),
        );
    } else {
        report.fail(
            "sports.stream",
            format!("no connection within {} s", FIRST.as_secs()),
        );
    }
}
