//! The order tracker against a simulator that holds taker orders, delays settlement and
//! injects retried and failed trades: the tracker, fed by the user channel and REST alike,
//! ends with the positions that actually settled on the simulator's ledger, and every fill
//! counted once.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::U256;
use polyclob::account::tracker::{OrderState, TrackerEvent};
use polyclob::account::user_events::{UserEvent, UserStream};
use polyclob::account::{Account, Tracker};
use polyclob::clob::ClientBuilder;
use polyclob::clob::types::{OrderStatus, TradeStatus, TraderSide};
use polyclob::data;
use polyclob::fixed::{Price, Size};
use polyclob::order::{LimitOrder, SignedOrder};
use polyclob::sign::Signer;
use polyclob::types::Side;
use polyclob::ws::feed::FeedEvent;
use polyclob_sim::{Faults, Settlement, SimHandle, Simulator, Trigger};
use tokio::sync::mpsc;

use crate::support::sim::{KEY_A, KEY_B};

// The exchange's hold, about 250 ms.
const HOLD: Duration = Duration::from_millis(250);
const SEC: Duration = Duration::from_secs(1);

async fn account(sim: &SimHandle, key: &str) -> Account {
    let signer = Signer::from_hex(key).unwrap();
    sim.fund(signer.address(), 10_000_000_000);
    Account::builder(signer)
        .client(ClientBuilder::new().host(sim.http_url()))
        .connect()
        .await
        .unwrap()
}

/// The account's user feed (its one default: each status once, in order), on a channel the
/// test drains when it likes.
fn user_channel(sim: &SimHandle, a: &Account) -> mpsc::UnboundedReceiver<UserEvent> {
    let c = a.credentials();
    let mut events = UserStream::builder(c.clone())
        .url(sim.user_ws_url())
        .build()
        .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            if let FeedEvent::Message(ev) = ev {
                if tx.send(ev).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// A bot with two trackers: one fed by everything (posts, the user channel, REST), one by
/// the posts and the user channel only. Everything the first reported is kept for counting.
struct Bot {
    account: Account,
    tracker: Tracker,
    ws_only: Tracker,
    user: mpsc::UnboundedReceiver<UserEvent>,
    events: Vec<TrackerEvent>,
    /// `trader_side` of each trade as the user channel sent it.
    sides: HashMap<String, TraderSide>,
}

impl Bot {
    fn drain(&mut self) {
        while let Ok(ev) = self.user.try_recv() {
            if let UserEvent::Trade(t) = &ev {
                if let Some(side) = &t.trader_side {
                    self.sides.insert(t.id.clone(), side.clone());
                }
            }
            self.tracker.on_user_event(&ev);
            self.ws_only.on_user_event(&ev);
        }
        self.tracker.check_overdue(Instant::now());
        self.events.extend(self.tracker.take_events());
    }

    async fn post(&mut self, token: &str, side: Side, price: Price, size: &str) -> String {
        let req = LimitOrder::new(side, price, size.parse().unwrap());
        let order: SignedOrder = self.account.sign_limit_order(token, &req).await.unwrap();
        let answer = self.account.post_order(&order).await;
        self.tracker.posted(&order, &answer);
        self.ws_only.posted(&order, &answer);
        let r = answer.unwrap();
        assert!(r.success, "{r:?}");
        self.drain();
        r.order_id
    }

    /// Waits over REST (and the user channel meanwhile) until the order's fills settle.
    async fn settle(&mut self, id: &str) {
        let s = self
            .tracker
            .wait_for_settlement(
                self.account.client(),
                id,
                Duration::from_millis(15),
                30 * SEC,
            )
            .await
            .unwrap();
        self.drain();
        assert!(s.is_settled(), "{id}: {s:?}");
    }
}

/// The best price a taker on `side` meets (levels come worst first: the last is the best).
fn best(book: &polyclob::clob::types::BookSummary, side: Side) -> Price {
    let levels = match side {
        Side::Buy => &book.asks,
        Side::Sell => &book.bids,
    };
    levels.last().unwrap().price
}

/// A limit three ticks (0.01) through the best price: the order sweeps levels and fills whole.
fn through(book: &polyclob::clob::types::BookSummary, side: Side) -> Price {
    let p = best(book, side).as_micros();
    Price::new(match side {
        Side::Buy => p + 30_000,
        Side::Sell => p - 30_000,
    })
    .unwrap()
}

#[tokio::test]
async fn positions_equal_what_settled_with_failed_retried_and_delayed_trades() {
    let sim = Simulator::builder()
        .seed(11)
        .taker_hold(HOLD)
        .settlement(
            Settlement::immediate()
                .mined_after(Duration::from_millis(20))
                .confirmed_after(Duration::from_millis(30))
                .fail(Trigger::EveryNth(3))
                .retry(Trigger::EveryNth(4)),
        )
        .start()
        .await
        .unwrap();
    let markets = sim.markets();
    let yes = markets[0].tokens()[0].token_id().to_owned();
    let no = markets[0].tokens()[1].token_id().to_owned();
    let a = account(&sim, KEY_A).await;
    let b = account(&sim, KEY_B).await;
    let me = a.maker();
    let user = user_channel(&sim, &a);
    let mut bot = Bot {
        tracker: a.tracker().settle_within(Duration::from_secs(5)),
        ws_only: a.tracker(),
        account: a,
        user,
        events: Vec::new(),
        sides: HashMap::new(),
    };
    tokio::time::sleep(Duration::from_millis(100)).await; // the user channel subscribed

    // Client trades 1-4: A buys YES from the house, taker orders held first. Trade 3 fails,
    // trade 4 goes RETRYING then confirms.
    let mut ids = Vec::new();
    for _ in 0..4 {
        let ask = through(&bot.account.client().book(&yes).await.unwrap(), Side::Buy);
        let id = bot.post(&yes, Side::Buy, ask, "10").await;
        let o = bot.tracker.order(&id).unwrap();
        assert_eq!(o.state, OrderState::Delayed, "a taker order is held");
        assert!(!o.state.is_cancellable());
        // A cancel in the hold is refused, with a typed answer, and changes nothing.
        let c = bot.account.cancel(&id).await.unwrap();
        assert!(c.is_delayed(&id) && c.canceled.is_empty(), "{c:?}");
        assert_eq!(
            bot.account.order(&id).await.unwrap().status,
            OrderStatus::Delayed
        );
        bot.settle(&id).await;
        ids.push(id);
    }

    // Trade 5: A sells part of what settled (the ledger refuses more than that).
    let bid = through(&bot.account.client().book(&yes).await.unwrap(), Side::Sell);
    let sell = bot.post(&yes, Side::Sell, bid, "5").await;
    bot.settle(&sell).await;
    ids.push(sell);

    // Trades 6-7: A rests bids on NO and B sells into them; A is the maker, B's order is held.
    sim.fund_tokens(b.maker(), &no, 100_000_000);
    for _ in 0..2 {
        let book = bot.account.client().book(&no).await.unwrap();
        let price = Price::new(best(&book, Side::Sell).as_micros() + 10_000).unwrap();
        assert!(price < best(&book, Side::Buy), "the bid rests");
        let bid = bot.post(&no, Side::Buy, price, "5").await;
        assert_eq!(bot.tracker.order(&bid).unwrap().state, OrderState::Live);
        let take = b
            .place_limit_order(
                &no,
                &LimitOrder::new(Side::Sell, price, "5".parse().unwrap()),
            )
            .await
            .unwrap();
        assert_eq!(take.status, OrderStatus::Delayed);
        // A resting order with no fill is "settled": wait for B's hold to end first.
        let deadline = Instant::now() + Duration::from_secs(5);
        while bot.tracker.order(&bid).unwrap().state != OrderState::Matched {
            assert!(Instant::now() < deadline, "B's order never matched A's bid");
            tokio::time::sleep(Duration::from_millis(20)).await;
            bot.tracker
                .refresh_order(bot.account.client(), &bid)
                .await
                .unwrap();
        }
        bot.settle(&bid).await;
        ids.push(bid);
    }

    // Everything has settled on the exchange; let the user channel catch up.
    let (trades, skipped) = bot
        .account
        .all_trades(&polyclob::clob::TradeFilter::default())
        .await
        .unwrap();
    assert!(skipped.is_empty());
    assert_eq!(trades.len(), 7, "seven client trades");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        bot.drain();
        let done = bot
            .ws_only
            .fills()
            .filter(|(_, s)| matches!(s, TradeStatus::Confirmed | TradeStatus::Failed))
            .count();
        if done == 7 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the user channel stalled at {done} of 7"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A was the taker of its YES trades and the maker of its NO ones.
    for (f, _) in bot.ws_only.fills() {
        let want = if f.asset_id == yes {
            TraderSide::Taker
        } else {
            TraderSide::Maker
        };
        assert_eq!(bot.sides.get(&f.trade_id), Some(&want), "{f:?}");
    }
    // The user channel alone came to the same positions.
    assert_eq!(bot.ws_only.positions(), bot.tracker.positions());
    // Feeding REST again after the user channel changes nothing.
    for t in &trades {
        bot.tracker.on_trade(t);
    }
    bot.drain();

    // Every fill counted: one leg of A's per trade, each reported once, failed ones included.
    let statuses: HashMap<&str, &TradeStatus> =
        trades.iter().map(|t| (t.id.as_str(), &t.status)).collect();
    let fills: Vec<_> = bot.tracker.fills().collect();
    assert_eq!(fills.len(), 7, "{fills:?}");
    for (f, status) in &fills {
        assert_eq!(statuses[f.trade_id.as_str()], *status, "{f:?}");
        assert!(ids.contains(&f.order_id), "{f:?}");
    }
    let mut announced: Vec<(&str, &str)> = bot
        .events
        .iter()
        .filter_map(|e| match e {
            TrackerEvent::Fill(f) => Some((f.trade_id.as_str(), f.order_id.as_str())),
            _ => None,
        })
        .collect();
    announced.sort_unstable();
    let before = announced.len();
    announced.dedup();
    assert_eq!(announced.len(), before, "a fill reported twice");
    assert_eq!(announced.len(), 7, "every fill reported");
    let failed: Vec<_> = fills
        .iter()
        .filter(|(_, s)| **s == TradeStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 2, "trades 3 and 6 were injected failures");
    assert!(
        bot.events.iter().any(|e| matches!(
            e,
            TrackerEvent::Trade {
                status: TradeStatus::Retrying,
                ..
            }
        )),
        "trade 4 was retried"
    );
    assert!(
        !bot.events
            .iter()
            .any(|e| matches!(e, TrackerEvent::Overdue { .. }))
    );

    // The tracker's positions are what settled on the ledger, token by token.
    let mut expected: HashMap<String, i64> = HashMap::new();
    for (f, s) in &fills {
        if **s == TradeStatus::Confirmed {
            let e = expected.entry(f.asset_id.clone()).or_default();
            match f.side {
                Side::Buy => *e += i64::try_from(f.size.as_micros()).unwrap(),
                Side::Sell => *e -= i64::try_from(f.size.as_micros()).unwrap(),
            }
        }
    }
    for token in [&yes, &no] {
        let on_ledger = sim.outcome_balance(me, token.parse::<U256>().unwrap());
        let p = bot.tracker.position(token).unwrap();
        let held = p.held().unwrap();
        assert_eq!(U256::from(held.as_micros()), on_ledger, "{token}: {p:?}");
        assert_eq!(
            i64::try_from(held.as_micros()).unwrap(),
            expected[token.as_str()],
            "{token}"
        );
        assert!(p.pending_buy.is_zero() && p.pending_sell.is_zero());
    }
    // 10 + 10 + 10 bought (the third failed), 5 sold; 5 bought of NO (the first failed).
    assert_eq!(
        bot.tracker.position(&yes).unwrap().held(),
        Some("25".parse().unwrap())
    );
    assert_eq!(
        bot.tracker.position(&no).unwrap().held(),
        Some("5".parse().unwrap())
    );

    // And they agree with the Data API's.
    let data_api = data::Client::builder()
        .host(sim.data_api_url())
        .build()
        .unwrap();
    let (rows, skipped) = data_api
        .positions(&me.to_string().to_ascii_lowercase())
        .await
        .unwrap();
    assert!(skipped.is_empty());
    assert_eq!(bot.tracker.reconcile(&rows), []);
    assert!(
        rows.iter()
            .any(|r| r.size == Some(Size::from_micros(25_000_000)))
    );
}

#[tokio::test]
async fn a_trade_that_does_not_confirm_in_time_is_reported_and_not_held() {
    let sim = Simulator::builder()
        .seed(12)
        .settlement(
            Settlement::immediate()
                .mined_after(Duration::from_millis(10))
                .confirmed_after(Duration::from_millis(700)),
        )
        .start()
        .await
        .unwrap();
    let yes = sim.markets()[0].tokens()[0].token_id().to_owned();
    let a = account(&sim, KEY_A).await;
    let mut tracker = a.tracker().settle_within(Duration::from_millis(200));
    let ask = a
        .client()
        .book(&yes)
        .await
        .unwrap()
        .asks
        .last()
        .unwrap()
        .price;
    let order = a
        .sign_limit_order(&yes, &LimitOrder::new(Side::Buy, ask, "5".parse().unwrap()))
        .await
        .unwrap();
    let answer = a.post_order(&order).await;
    tracker.posted(&order, &answer);
    let id = answer.unwrap().order_id;
    assert_eq!(tracker.order(&id).unwrap().state, OrderState::Matched);

    let s = tracker
        .wait_for_settlement(a.client(), &id, Duration::from_millis(20), 30 * SEC)
        .await
        .unwrap();
    assert!(
        !s.is_settled() && s.overdue == "5".parse().unwrap(),
        "{s:?}"
    );
    assert!(
        tracker
            .take_events()
            .iter()
            .any(|e| matches!(e, TrackerEvent::Overdue { .. }))
    );
    let p = tracker.position(&yes).unwrap();
    assert_eq!(
        (p.held(), p.overdue_buy),
        (Some(Size::ZERO), "5".parse().unwrap())
    );
    // Nothing moved on the ledger either, until it confirms.
    let me = a.maker();
    assert_eq!(sim.outcome_balance(me, yes.parse().unwrap()), U256::ZERO);

    tokio::time::sleep(Duration::from_millis(700)).await;
    let s = tracker
        .wait_for_settlement(a.client(), &id, Duration::from_millis(20), 30 * SEC)
        .await
        .unwrap();
    assert!(s.is_settled(), "{s:?}");
    assert_eq!(
        tracker.position(&yes).unwrap().held(),
        Some("5".parse().unwrap())
    );
    assert_eq!(
        sim.outcome_balance(me, yes.parse().unwrap()),
        U256::from(5_000_000u64)
    );
}

/// `wait_for_settlement` has a deadline of its own: it returns the settlement as it stands when
/// the deadline passes, between polls or in the middle of a slow request, and never claims
/// settlement it has not seen.
#[tokio::test]
async fn wait_for_settlement_stops_at_its_deadline() {
    let sim = Simulator::builder()
        .seed(13)
        .settlement(Settlement::immediate().confirmed_after(Duration::from_secs(30)))
        .start()
        .await
        .unwrap();
    let yes = sim.markets()[0].tokens()[0].token_id().to_owned();
    let a = account(&sim, KEY_A).await;
    let mut tracker = a.tracker(); // overdue only after 60 s: not what stops the wait here
    let ask = a
        .client()
        .book(&yes)
        .await
        .unwrap()
        .asks
        .last()
        .unwrap()
        .price;
    let order = a
        .sign_limit_order(&yes, &LimitOrder::new(Side::Buy, ask, "5".parse().unwrap()))
        .await
        .unwrap();
    let answer = a.post_order(&order).await;
    tracker.posted(&order, &answer);
    let id = answer.unwrap().order_id;

    let (poll, deadline) = (Duration::from_millis(20), Duration::from_millis(300));
    let t0 = Instant::now();
    let s = tracker
        .wait_for_settlement(a.client(), &id, poll, deadline)
        .await
        .unwrap();
    let took = t0.elapsed();
    assert!(
        !s.is_settled() && s.pending == "5".parse().unwrap(),
        "{s:?}"
    );
    assert!(
        took >= deadline && took < deadline + poll + Duration::from_millis(200),
        "{took:?}"
    );

    // Every answer now takes 2 s: the deadline cuts the request short.
    sim.set_faults(Faults::none().latency(2 * SEC));
    let t0 = Instant::now();
    let s = tracker
        .wait_for_settlement(a.client(), &id, poll, deadline)
        .await
        .unwrap();
    let took = t0.elapsed();
    assert!(
        !s.is_settled() && s.pending == "5".parse().unwrap(),
        "{s:?}"
    );
    assert!(
        took >= deadline && took < deadline + Duration::from_millis(200),
        "{took:?}"
    );
}
