//! The tracker's P&L against the venue's: a seeded run of one account on fee-enabled markets
//! (the simulator's fixture markets with a fee schedule), as taker and maker, on both
//! outcomes (so that its orders mint and merge with the crowd's on the other token), with
//! settlement delays and an injected failed trade. The tracker, fed the user channel and told
//! each market's fees, ends with the Data API's position in every token: shares, average
//! price, entry fees and realized P&L, to the micro-unit.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::account::user_events::{UserEvent, UserStream};
use polyclob::account::{Account, Tracker};
use polyclob::clob::ClientBuilder;
use polyclob::clob::types::TradeStatus;
use polyclob::data;
use polyclob::fixed::{Price, Size};
use polyclob::order::{LimitOrder, MarketAmount, MarketOrder};
use polyclob::sign::Signer;
use polyclob::types::{FeeSchedule, OrderType, Side};
use polyclob::ws::feed::FeedEvent;
use polyclob_sim::{Crowd, FairValue, MarketSpec, PricePath, Settlement, Simulator, Trigger};

use crate::support::sim::KEY_A;

#[tokio::test]
async fn tracker_pnl_equals_the_data_api_pnl_to_the_micro_unit() {
    let p = |s: &str| s.parse::<Price>().unwrap();
    let fees = FeeSchedule::new(p("0.05"), 1, true, Some(p("0.25"))).unwrap();
    let markets: Vec<MarketSpec> = MarketSpec::defaults()
        .into_iter()
        .map(|m| m.fees(fees))
        .collect();
    let sim = Simulator::builder()
        .seed(21)
        .markets(markets.clone())
        .crowd(Crowd::standard(21))
        .settlement(
            Settlement::immediate()
                .mined_after(Duration::from_millis(5))
                .confirmed_after(Duration::from_millis(5))
                .fail(Trigger::EveryNth(13)),
        )
        .start()
        .await
        .unwrap();
    // Each market's fair value walks, so the crowd's makers requote every step.
    for (k, m) in markets.iter().enumerate() {
        let mid = m.tokens()[0].token_id().len() as u32 % 3 * 100_000 + 400_000;
        let walk = PricePath::random_walk(mid.into(), 10_000, 21 + k as u64);
        sim.drive_market(m.condition_id(), FairValue::path(walk));
    }
    let signer = Signer::from_hex(KEY_A).unwrap();
    sim.fund(signer.address(), 5_000_000_000);
    let account = Account::builder(signer)
        .client(ClientBuilder::new().host(sim.http_url()))
        .connect()
        .await
        .unwrap();
    // The tracker knows each market's fees, as a bot learns them from Gamma or `fd`.
    let mut tracker: Tracker = account.tracker();
    for m in &markets {
        let schedule = account
            .client()
            .fee_schedule(m.tokens()[0].token_id())
            .await
            .unwrap();
        assert_eq!(schedule.map(|f| f.rate()), Some(fees.rate()));
        tracker.set_fee_schedule(m.condition_id(), schedule);
    }
    let mut events = UserStream::builder(account.credentials())
        .url(sim.user_ws_url())
        .build()
        .unwrap();
    let (tx, mut user) = tokio::sync::mpsc::unbounded_channel::<UserEvent>();
    tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let FeedEvent::Message(ev) = ev else { continue };
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await; // subscribed

    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let (mut placed, mut rested) = (0, 0);
    for i in 0..60u64 {
        let m = &markets[next(4) as usize];
        let token = m.tokens()[next(2) as usize].token_id();
        let book = account.client().book(token).await.unwrap();
        let (Some(bid), Some(ask)) = (book.bids.last(), book.asks.last()) else {
            sim.step_activity(1);
            continue;
        };
        let held = tracker
            .position(token)
            .map_or(Size::ZERO, |p| p.basis.held());
        let (lot, _dust) = held.split_lot();
        let answer = match next(4) {
            // A FAK buy of a few pUSD: the fee is on top, the shares are fractional.
            0 => {
                let spend = Size::from_micros((3 + next(20)) * 1_000_000);
                let buy = MarketOrder::new(Side::Buy, MarketAmount::Usdc(spend), ask.price)
                    .order_type(OrderType::Fak);
                account.sign_market_order(token, &buy).await
            }
            // Sell the lot of what is held (never the dust: the venue refuses it).
            1 if !lot.is_zero() => {
                let sell = MarketOrder::new(Side::Sell, MarketAmount::Shares(lot), bid.price)
                    .order_type(OrderType::Fak);
                account.sign_market_order(token, &sell).await
            }
            // Rest one tick inside the spread, for the crowd to take: a maker leg.
            _ => {
                let tick = m.tick().as_micros();
                let (side, price) = if next(2) == 0 || lot < Size::from_micros(5_000_000) {
                    (Side::Buy, bid.price.as_micros() + tick)
                } else {
                    (Side::Sell, ask.price.as_micros() - tick)
                };
                let price = Price::new(price).unwrap();
                let size = if side == Side::Buy {
                    Size::from_micros(5_000_000 + next(10) * 1_000_000)
                } else {
                    lot
                };
                rested += 1;
                account
                    .sign_limit_order(token, &LimitOrder::new(side, price, size))
                    .await
            }
        };
        // The tracker knows each order from its post, before any fill is reported.
        let order = answer.unwrap();
        let answer = account.post_order(&order).await;
        tracker.posted(&order, &answer);
        // Refusals are part of the game (funds held by pending trades, a FAK that met
        // nothing); every accepted order is counted.
        if answer.is_ok_and(|r| r.success) {
            placed += 1;
        }
        sim.step_activity(1 + (i % 3) as usize);
        if i % 10 == 9 {
            account.cancel_all().await.unwrap();
        }
        while let Ok(ev) = user.try_recv() {
            tracker.on_user_event(&ev);
        }
    }
    account.cancel_all().await.unwrap();
    assert!(
        placed >= 40 && rested >= 15,
        "{placed} placed, {rested} rested"
    );

    // Every trade of the account final on the exchange, then in the tracker.
    let (trades, _) = account
        .all_trades(&polyclob::clob::TradeFilter::default())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let final_ = tracker
            .fills()
            .filter(|(_, s)| matches!(s, TradeStatus::Confirmed | TradeStatus::Failed))
            .map(|(f, _)| f.trade_id)
            .collect::<std::collections::BTreeSet<_>>();
        if trades.iter().all(|t| final_.contains(&t.id)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} final",
            final_.len(),
            trades.len()
        );
        if let Ok(Some(ev)) = tokio::time::timeout(Duration::from_millis(50), user.recv()).await {
            tracker.on_user_event(&ev);
        }
        sim.step_activity(1);
    }
    let statuses: Vec<(TradeStatus, bool)> = tracker
        .fills()
        .map(|(f, s)| {
            (
                s.clone(),
                trades
                    .iter()
                    .any(|t| t.id == f.trade_id && t.taker_order_id == f.order_id),
            )
        })
        .collect();
    let failed = statuses
        .iter()
        .filter(|(s, _)| *s == TradeStatus::Failed)
        .count();
    let as_taker = statuses.iter().filter(|(_, taker)| *taker).count();
    let as_maker = statuses.len() - as_taker;
    // Mints and merges: the account's taker trades that met a maker on the other token.
    let crossed = trades
        .iter()
        .filter(|t| t.maker_orders.iter().any(|m| m.asset_id != t.asset_id))
        .count();
    assert!(
        failed >= 1 && as_taker >= 15 && as_maker >= 5 && crossed >= 3,
        "{failed} failed, {as_taker} taker legs, {as_maker} maker legs, {crossed} crossed"
    );

    // The Data API's positions, every status.
    let dapi = data::Client::builder()
        .host(sim.data_api_url())
        .build()
        .unwrap();
    let maker = account.maker().to_checksum(None);
    let (rows, skipped) = dapi.collect(data::Query::positions(&maker)).await.unwrap();
    assert!(skipped.is_empty());
    let mine = tracker.positions();
    assert!(mine.len() >= 4, "{} tokens traded", mine.len());
    let mut fees_paid = Size::ZERO;
    for pos in &mine {
        let row = rows
            .iter()
            .find(|r| r.token_id == pos.asset_id)
            .unwrap_or_else(|| panic!("no Data API row for {}", pos.asset_id));
        let b = &pos.basis;
        let token = &pos.asset_id;
        assert!(!pos.fees_unknown, "{token}");
        assert_eq!(row.size, pos.held(), "{token}: shares");
        assert_eq!(row.size, Some(b.held()), "{token}: shares with a basis");
        assert_eq!(
            row.avg_price.filter(|p| !p.is_zero()),
            b.avg_price(),
            "{token}: average price"
        );
        assert_eq!(row.entry_fees, Some(b.fees()), "{token}: entry fees");
        assert_eq!(
            row.realized_pnl,
            Some(b.realized()),
            "{token}: realized P&L"
        );
        fees_paid = fees_paid.checked_add(b.fees()).unwrap();
    }
    assert!(
        mine.iter().any(|p| !p.basis.realized().is_zero()),
        "some P&L was realized"
    );
    assert!(!fees_paid.is_zero(), "fees were paid on the shares held");
    assert_eq!(sim.settlement_failures(), 0);

    // The venue's report of the day's maker rebates is the client's arithmetic on the
    // account's confirmed maker fills, market by market.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let today = polyclob::types::Timestamp::from_secs(now.as_secs())
        .unwrap()
        .to_string();
    let today = &today[..10];
    let (rebates, skipped) = account
        .client()
        .current_rebates(today, &maker)
        .await
        .unwrap();
    assert!(skipped.is_empty() && !rebates.is_empty());
    for m in &markets {
        let tokens = [m.tokens()[0].token_id(), m.tokens()[1].token_id()];
        let fills: Vec<(Price, Size)> = tracker
            .fills()
            .filter(|(f, s)| **s == TradeStatus::Confirmed && tokens.contains(&f.asset_id.as_str()))
            .filter(|(f, _)| {
                !trades
                    .iter()
                    .any(|t| t.id == f.trade_id && t.taker_order_id == f.order_id)
            })
            .map(|(f, _)| (f.price, f.size))
            .collect();
        let want = fees.maker_rebate(fills).unwrap();
        let row = rebates.iter().find(|r| r.condition_id == m.condition_id());
        assert_eq!(
            row.map_or(Size::ZERO, |r| r.rebated_fees),
            want,
            "{}",
            m.condition_id()
        );
    }
}
