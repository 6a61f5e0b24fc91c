//! The user channel's trade statuses against the simulator's user-channel faults (issue 48):
//! each trade's status moves only forward in the one default mode — across replayed history,
//! a stale status after a reconnect, and live frames held during the REST catch-up — `FAILED`
//! is final, a trade message that does not decode is fetched over REST, and one stream feeds a
//! fill counter and a `Tracker` alike. Every stream is checked by the trust oracle.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;
use crate::support::trust_oracle::Checked;

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::account::Tracker;
use polyclob::account::reconcile::Reconcile;
use polyclob::account::user_events::{TradeStatus, UserEvent, UserFeed, UserStream};
use polyclob::clob::Client;
use polyclob::sign::Signer;
use polyclob::types::Side;
use polyclob::ws::continuity::{Cause, Recovery};
use polyclob::ws::feed::FeedEvent;
use polyclob_sim::{Faults, Settlement, SimHandle, Simulator, Trigger, WsChannel, WsFault, WsRule};
use support::{KEY_A, KEY_B, Trader, YES, limit};

const S: u64 = 1_000_000;
const SEC: Duration = Duration::from_secs(1);

type Events = Checked<UserFeed>;
type Ev = FeedEvent<UserEvent>;

async fn sim(settlement: Settlement, faults: &[(WsFault, Trigger)]) -> SimHandle {
    let mut f = Faults::none();
    for (fault, trigger) in faults {
        f = f.ws(WsRule::new(*trigger, *fault).channel(WsChannel::User));
    }
    Simulator::builder()
        .markets(vec![support::empty_market()])
        .settlement(settlement)
        .faults(f)
        .start()
        .await
        .unwrap()
}

fn settles() -> Settlement {
    Settlement::immediate()
        .mined_after(Duration::from_millis(20))
        .confirmed_after(Duration::from_millis(20))
}

/// A's user feed in its one default mode, with the REST catch-up; away 300 ms after a break.
fn user(sim: &SimHandle, a: &Trader) -> Events {
    let rest = Client::builder()
        .host(sim.http_url())
        .signer(Signer::from_hex(KEY_A).unwrap())
        .credentials(a.creds.clone())
        .build()
        .unwrap();
    let feed = UserStream::builder(a.creds.clone())
        .url(sim.user_ws_url())
        .backoff(Duration::from_millis(300), Duration::from_millis(300))
        .reconcile(Reconcile::new(rest).settle(Duration::from_millis(100)))
        .build()
        .unwrap();
    Checked::new(feed)
}

/// A trade between `a` (a resting SELL) and `b` (a crossing BUY).
async fn trade(a: &Trader, b: &Trader, salt: u64) {
    let (status, v, _) = a.post(&limit(YES, Side::Sell, 500_000, 5 * S, salt)).await;
    assert_eq!(status, 200, "{v}");
    let (status, v, _) = b
        .post(&limit(YES, Side::Buy, 500_000, 5 * S, salt + 1))
        .await;
    assert_eq!(
        (status, v["status"].as_str()),
        (200, Some("matched")),
        "{v}"
    );
}

/// Reads `s` into `log` until `done` holds of it; panics after 10 s.
async fn until(s: &mut Events, log: &mut Vec<Ev>, what: &str, done: impl Fn(&[Ev]) -> bool) {
    let end = tokio::time::Instant::now() + 10 * SEC;
    while !done(log) {
        match tokio::time::timeout_at(end, s.next()).await {
            Ok(Some(ev)) => log.push(ev),
            _ => panic!("waiting for {what}: {log:#?}"),
        }
    }
}

/// Reads `s` into `log` for `window`.
async fn drain(s: &mut Events, log: &mut Vec<Ev>, window: Duration) {
    let end = tokio::time::Instant::now() + window;
    while let Ok(Some(ev)) = tokio::time::timeout_at(end, s.next()).await {
        log.push(ev);
    }
}

/// Each trade's statuses as delivered, in order, with `recovered`.
fn statuses(log: &[Ev]) -> HashMap<String, Vec<(TradeStatus, bool)>> {
    let mut out: HashMap<String, Vec<_>> = HashMap::new();
    for ev in log {
        if let FeedEvent::Message(UserEvent::Trade(t)) = ev {
            out.entry(t.id.clone())
                .or_default()
                .push((t.status.clone(), t.recovered));
        }
    }
    out
}

fn has_status(log: &[Ev], status: &TradeStatus) -> bool {
    log.iter()
        .any(|e| matches!(e, FeedEvent::Message(UserEvent::Trade(t)) if &t.status == status))
}

fn reconciled(log: &[Ev]) -> usize {
    log.iter()
        .filter(|e| matches!(e, FeedEvent::Message(UserEvent::Reconciled(_))))
        .count()
}

/// Asserts every trade's statuses move forward only, each delivered once, nothing after a
/// final one, and `first` on the first delivery only.
fn assert_monotone(log: &[Ev]) {
    let mut seen: HashMap<&str, Vec<&TradeStatus>> = HashMap::new();
    for ev in log {
        let FeedEvent::Message(UserEvent::Trade(t)) = ev else {
            continue;
        };
        let prev = seen.entry(&t.id).or_default();
        assert_eq!(
            t.first,
            prev.is_empty(),
            "first flag of {t:?} after {prev:?}"
        );
        if let Some(last) = prev.last() {
            assert!(!last.is_final(), "{:?} after final {last:?}", t.status);
            assert!(
                t.status.supersedes(None, last, None),
                "{:?} after {prev:?}",
                t.status
            );
        }
        prev.push(&t.status);
    }
}

/// A trade confirms; the connection drops; as the client subscribes again the server replays
/// the trade's history (`MATCHED`, `MINED`, `CONFIRMED`) and a stale `MINED`. Nothing of it is
/// delivered again, and the trade never moves back. (Main's default mode dropped `MINED` and
/// `CONFIRMED` altogether; its `all_statuses` mode let the replay through, `CONFIRMED` →
/// `MINED`.)
#[tokio::test]
async fn replayed_history_and_a_stale_status_never_move_a_trade_back() {
    let every = Trigger::EveryNth(1);
    let sim = sim(
        settles(),
        &[
            (WsFault::ReplayHistory { trades: 5 }, every),
            (WsFault::StaleStatus { trades: 5 }, every),
        ],
    )
    .await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut s = user(&sim, &a);
    let mut log = Vec::new();
    until(&mut s, &mut log, "the connection", |l| !l.is_empty()).await;
    trade(&a, &b, 1).await;
    until(&mut s, &mut log, "CONFIRMED", |l| {
        has_status(l, &TradeStatus::Confirmed)
    })
    .await;
    let before = log.len();
    sim.disconnect_ws();
    until(&mut s, &mut log, "the catch-up", |l| reconciled(l) == 1).await;
    drain(&mut s, &mut log, SEC / 2).await;

    assert_monotone(&log);
    let by_trade = statuses(&log);
    assert_eq!(by_trade.len(), 1, "{by_trade:?}");
    let only: Vec<_> = by_trade.values().next().unwrap().clone();
    assert_eq!(
        only,
        [
            (TradeStatus::Matched, false),
            (TradeStatus::Mined, false),
            (TradeStatus::Confirmed, false)
        ]
    );
    assert!(
        !log[before..]
            .iter()
            .any(|e| matches!(e, FeedEvent::Message(UserEvent::Trade(_)))),
        "nothing of the replay delivered: {:#?}",
        &log[before..]
    );
    assert!(s.oracle.trusted_seen > 0, "the oracle saw trust come back");
}

/// A ghost fill: `MATCHED` arrives live, the connection drops, the trade goes `RETRYING` then
/// `FAILED` while the client is away; as it subscribes again the server replays `MATCHED`,
/// `RETRYING`, `FAILED`, which the feed holds while REST says `FAILED`. The trade is `FAILED`
/// once: a handler that hedges on `FAILED` fires once. (Main released the held frames without
/// an age check: `MATCHED` → `FAILED` → `RETRYING` → `FAILED`.)
#[tokio::test]
async fn a_ghost_fill_is_failed_once_across_the_held_frames_of_a_catch_up() {
    let sim = sim(
        Settlement::immediate()
            .mined_after(Duration::from_millis(60))
            .confirmed_after(Duration::from_millis(60))
            .fail(Trigger::EveryNth(1)),
        &[(WsFault::ReplayHistory { trades: 5 }, Trigger::EveryNth(1))],
    )
    .await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut s = user(&sim, &a);
    let mut log = Vec::new();
    until(&mut s, &mut log, "the connection", |l| !l.is_empty()).await;
    trade(&a, &b, 1).await;
    until(&mut s, &mut log, "MATCHED", |l| {
        has_status(l, &TradeStatus::Matched)
    })
    .await;
    sim.disconnect_ws();
    until(&mut s, &mut log, "the catch-up", |l| reconciled(l) == 1).await;
    drain(&mut s, &mut log, SEC / 2).await;

    assert_monotone(&log);
    let by_trade = statuses(&log);
    let only = by_trade.values().next().unwrap();
    let failed = only
        .iter()
        .filter(|(s, _)| *s == TradeStatus::Failed)
        .count();
    assert_eq!(failed, 1, "{only:?}");
    assert_eq!(only.last().unwrap().0, TradeStatus::Failed, "{only:?}");
}

/// The trade's first message goes out malformed (its `price`): the bot is told (`Invalid`,
/// then a break with `Recovery::Refetch`), the feed fetches the trade over REST, and the fill
/// reaches the bot once, with its id. (Main reported `Invalid` without an id and never
/// fetched the trade: only a connection break started a catch-up.)
#[tokio::test]
async fn a_trade_message_that_does_not_decode_is_fetched_over_rest() {
    let sim = sim(
        settles(),
        &[(
            WsFault::MalformedTrade,
            Trigger::Window { first: 1, count: 1 },
        )],
    )
    .await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut s = user(&sim, &a);
    let mut log = Vec::new();
    until(&mut s, &mut log, "the connection", |l| !l.is_empty()).await;
    trade(&a, &b, 1).await;
    until(&mut s, &mut log, "CONFIRMED", |l| {
        has_status(l, &TradeStatus::Confirmed) && reconciled(l) == 1
    })
    .await;
    drain(&mut s, &mut log, SEC / 4).await;

    assert_monotone(&log);
    let invalid = log
        .iter()
        .position(|e| matches!(e, FeedEvent::Invalid { .. }))
        .expect("the malformed message reported");
    let brk = log
        .iter()
        .find_map(|e| match e {
            FeedEvent::Break(b) => Some(b),
            _ => None,
        })
        .expect("a break");
    assert_eq!(
        (brk.cause, brk.recovery),
        (Cause::Malformed, Recovery::Refetch)
    );
    let firsts: Vec<_> = log[invalid..]
        .iter()
        .filter_map(|e| match e {
            FeedEvent::Message(UserEvent::Trade(t)) if t.first => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(firsts.len(), 1, "the fill once: {log:#?}");
    assert!(firsts[0].recovered, "fetched over REST: {:?}", firsts[0]);
    assert_eq!(firsts[0].size.to_string(), "5");
}

/// One default serves both consumers: a fill counter (counting `first`) sees each trade once,
/// and a `Tracker` fed every item of the same stream sees the fill settle. (Main's default
/// delivered each trade once and dropped `MINED`/`CONFIRMED`: a tracker fed from it never saw
/// a fill settle.)
#[tokio::test]
async fn one_default_feeds_a_fill_counter_and_the_tracker() {
    let sim = sim(settles(), &[]).await;
    let (a, b) = (
        Trader::new(&sim, KEY_A).await,
        Trader::new(&sim, KEY_B).await,
    );
    let mut s = user(&sim, &a);
    let mut log = Vec::new();
    until(&mut s, &mut log, "the connection", |l| !l.is_empty()).await;
    for i in 0..3 {
        trade(&a, &b, 10 * i + 1).await;
    }
    until(&mut s, &mut log, "three confirmations", |l| {
        l.iter()
            .filter(|e| {
                matches!(e, FeedEvent::Message(UserEvent::Trade(t)) if t.status == TradeStatus::Confirmed)
            })
            .count()
            == 3
    })
    .await;
    drain(&mut s, &mut log, SEC / 4).await;

    let mut fills = 0;
    let mut tracker = Tracker::new();
    for ev in &log {
        if let FeedEvent::Message(ev) = ev {
            if let UserEvent::Trade(t) = ev {
                fills += usize::from(t.first);
            }
            tracker.on_user_event(ev);
        }
    }
    assert_eq!(fills, 3);
    let settled: Vec<_> = tracker
        .fills()
        .filter(|(_, st)| **st == TradeStatus::Confirmed)
        .collect();
    assert_eq!(settled.len(), 3, "the tracker saw every fill settle");
}
