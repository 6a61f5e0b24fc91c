//! The tracker fed by hand: REST rows and user-channel events in every order.

use super::*;
use crate::clob::types::{OpenOrder, Trade};

const TAKER: &str = "0xtaker";
const MAKER: &str = "0xmaker";
const ASSET: &str = "7";

fn order_json(id: &str, status: &str, matched: &str) -> OpenOrder {
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","status":"{status}","asset_id":"{ASSET}","market":"0xm","side":"BUY","original_size":"10","size_matched":"{matched}","price":"0.5","created_at":100}}"#
    ))
    .unwrap()
}

/// A trade of our taker order `TAKER` (BUY 4) against a foreign maker.
fn trade(id: &str, status: &str, size: &str) -> Trade {
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","taker_order_id":"{TAKER}","asset_id":"{ASSET}","side":"BUY","size":"{size}","price":"0.5","status":"{status}","maker_address":"0xME","maker_orders":[{{"order_id":"0xother","matched_amount":"{size}","price":"0.5","asset_id":"{ASSET}","maker_address":"0xsomeone"}}]}}"#
    ))
    .unwrap()
}

fn fills(events: &[TrackerEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, TrackerEvent::Fill(_)))
        .count()
}

#[test]
fn each_fill_counts_once_whatever_arrives_twice() {
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    for status in [
        "MATCHED",
        "MATCHED",
        "MINED",
        "MATCHED",
        "CONFIRMED",
        "MINED",
    ] {
        t.on_trade(&trade("t1", status, "4"));
    }
    let ev = t.take_events();
    assert_eq!(fills(&ev), 1, "{ev:?}");
    let statuses: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            TrackerEvent::Trade { status, .. } => Some(status.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [
            TradeStatus::Matched,
            TradeStatus::Mined,
            TradeStatus::Confirmed
        ]
    );
    let p = t.position(ASSET).unwrap();
    assert_eq!(p.held(), Some("4".parse().unwrap()));
    assert!(p.pending_buy.is_zero());
    assert_eq!(t.order(TAKER).unwrap().state, OrderState::PartiallyMatched);
    let s = t.settlement(TAKER);
    assert_eq!(s.confirmed, "4".parse().unwrap());
    assert!(s.is_settled());
}

#[test]
fn failed_trades_move_nothing_and_pending_is_not_held() {
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    t.on_trade(&trade("ok", "MATCHED", "4"));
    t.on_trade(&trade("ghost", "MATCHED", "6"));
    let p = t.position(ASSET).unwrap();
    assert_eq!(p.held(), Some(Size::ZERO));
    assert_eq!(p.pending_buy, "10".parse().unwrap());
    assert_eq!(t.order(TAKER).unwrap().state, OrderState::Matched);
    t.on_trade(&trade("ghost", "RETRYING", "6"));
    t.on_trade(&trade("ghost", "FAILED", "6"));
    t.on_trade(&trade("ghost", "CONFIRMED", "6")); // final stays final
    t.on_trade(&trade("ok", "CONFIRMED", "4"));
    let p = t.position(ASSET).unwrap();
    assert_eq!(p.held(), Some("4".parse().unwrap()));
    assert!(p.pending_buy.is_zero());
    let s = t.settlement(TAKER);
    assert_eq!(
        (s.confirmed, s.failed),
        ("4".parse().unwrap(), "6".parse().unwrap())
    );
}

#[test]
fn trades_before_the_order_count_once_it_is_known() {
    let mut t = Tracker::new();
    t.on_trade(&trade("t1", "MATCHED", "4"));
    assert!(t.positions().is_empty(), "not ours yet");
    assert_eq!(fills(&t.take_events()), 0);
    t.on_order(&order_json(TAKER, "MATCHED", "4"));
    let ev = t.take_events();
    assert_eq!(fills(&ev), 1, "{ev:?}");
    t.on_order(&order_json(TAKER, "MATCHED", "4"));
    assert_eq!(fills(&t.take_events()), 0);
    assert_eq!(t.position(ASSET).unwrap().pending_buy, "4".parse().unwrap());
}

#[test]
fn maker_legs_by_address_and_derived_sides() {
    // Our resting SELL on the same token (side not sent) and a BUY on the complement.
    let mut t = Tracker::new().maker(
        "0x00000000000000000000000000000000000000aa"
            .parse()
            .unwrap(),
    );
    let tr: Trade = serde_json::from_str(
        r#"{"id":"x","taker_order_id":"0xforeign","asset_id":"7","side":"BUY","size":"5","price":"0.6","status":"CONFIRMED",
            "maker_orders":[{"order_id":"0xa","matched_amount":"3","price":"0.6","asset_id":"7","maker_address":"0x00000000000000000000000000000000000000AA"},
                            {"order_id":"0xb","matched_amount":"2","price":"0.4","asset_id":"8","maker_address":"0x00000000000000000000000000000000000000aa"}]}"#,
    )
    .unwrap();
    t.on_trade(&tr);
    let ps = t.positions();
    assert_eq!(ps.len(), 2);
    assert_eq!(
        (ps[0].asset_id.as_str(), ps[0].sold),
        ("7", "3".parse().unwrap())
    );
    assert_eq!(
        (ps[1].asset_id.as_str(), ps[1].bought),
        ("8", "2".parse().unwrap())
    );
    assert_eq!(ps[0].held(), None, "sold what it never saw bought");
}

#[test]
fn overdue_is_reported_once_and_not_held() {
    let mut t = Tracker::new().settle_within(Duration::from_secs(5));
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    t.on_trade(&trade("slow", "MINED", "4"));
    t.take_events();
    t.check_overdue(Instant::now());
    assert!(t.take_events().is_empty());
    let later = Instant::now() + Duration::from_secs(6);
    t.check_overdue(later);
    t.check_overdue(later);
    let ev = t.take_events();
    assert!(
        matches!(ev.as_slice(), [TrackerEvent::Overdue { trade_id, .. }] if trade_id == "slow"),
        "{ev:?}"
    );
    let p = t.position(ASSET).unwrap();
    assert_eq!(
        (p.held(), p.overdue_buy, p.pending_buy),
        (Some(Size::ZERO), "4".parse().unwrap(), Size::ZERO)
    );
    assert!(!t.settlement(TAKER).is_settled());
    assert_eq!(t.unsettled_orders(), [TAKER]);
    t.on_trade(&trade("slow", "CONFIRMED", "4"));
    assert_eq!(
        t.position(ASSET).unwrap().held(),
        Some("4".parse().unwrap())
    );
    assert!(t.settlement(TAKER).is_settled());
}

#[test]
fn delayed_orders_and_states_only_move_forward() {
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "DELAYED", "0"));
    let o = t.order(TAKER).unwrap();
    assert_eq!(o.state, OrderState::Delayed);
    assert!(!o.state.is_cancellable());
    assert!(!t.settlement(TAKER).is_settled(), "still in the hold");
    t.on_order(&order_json(TAKER, "MATCHED", "10"));
    t.on_order(&order_json(TAKER, "LIVE", "0")); // stale
    t.on_order(&order_json(TAKER, "DELAYED", "0")); // stale
    assert_eq!(t.order(TAKER).unwrap().state, OrderState::Matched);
    assert!(
        t.unsettled_orders().is_empty(),
        "done, and no fill to settle"
    );
    let states: Vec<_> = t
        .take_events()
        .into_iter()
        .filter_map(|e| match e {
            TrackerEvent::Order { state, .. } => Some(state),
            _ => None,
        })
        .collect();
    assert_eq!(states, [OrderState::Delayed, OrderState::Matched]);
    t.on_order(&order_json(MAKER, "CANCELED_EXPIRED", "0"));
    assert_eq!(t.order(MAKER).unwrap().state, OrderState::Canceled);
}

#[test]
fn reconcile_reports_every_difference() {
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    t.on_trade(&trade("t1", "CONFIRMED", "4"));
    let rows: Vec<data::Position> = serde_json::from_str(
        r#"[{"token_id":"7","size":4},{"token_id":"9","size":1},{"token_id":"11"}]"#,
    )
    .unwrap();
    let d = t.reconcile(&rows);
    assert_eq!(
        d,
        [
            PositionDiff {
                asset_id: "11".into(),
                tracker: Some(Size::ZERO),
                data_api: None
            },
            PositionDiff {
                asset_id: "9".into(),
                tracker: Some(Size::ZERO),
                data_api: Some("1".parse().unwrap())
            },
        ]
    );
    assert!(t.reconcile(&rows[..1]).is_empty());
    assert_eq!(
        t.reconcile(&[]).len(),
        1,
        "the tracker's 4 shares, absent there"
    );
}

#[test]
fn unreadable_trades_are_reported() {
    let mut t = Tracker::new();
    let tr: Trade =
        serde_json::from_str(r#"{"id":"u","side":"SIDEWAYS","status":"MATCHED"}"#).unwrap();
    t.on_trade(&tr);
    assert_eq!(
        t.take_events(),
        [TrackerEvent::Unreadable {
            trade_id: "u".into()
        }]
    );
}

#[test]
fn a_refused_post_is_rejected_and_a_lost_answer_stays_submitted() {
    use crate::order::{LimitOrder, MarketContext, OrderSigner};
    use crate::sign::Signer;
    use crate::sign::wallet::Wallet;
    use crate::types::{Chain, ExchangeVersion, TickSize, TokenId};

    let signer =
        Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
            .unwrap();
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).unwrap();
    let ctx = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        TokenId::parse(b"7").unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let sign = || {
        orders
            .limit_order(
                &ctx,
                &LimitOrder::new(Side::Buy, "0.5".parse().unwrap(), "10".parse().unwrap()),
            )
            .unwrap()
    };
    let mut t = Tracker::new();
    let refused = sign();
    let id = format!("{:#x}", refused.hash());
    let e = Error::from_status(400, br#"{"error":"not enough balance / allowance"}"#, None);
    t.posted(&refused, &Err(e));
    assert_eq!(
        t.order(&id).unwrap().state,
        OrderState::Rejected("not enough balance / allowance".into())
    );
    let lost = sign();
    let id = format!("{:#x}", lost.hash());
    t.posted(&lost, &Err(Error::from_status(502, b"", None)));
    let o = t.order(&id).unwrap();
    assert_eq!(
        (&o.state, o.original, o.side),
        (
            &OrderState::Submitted,
            Some("10".parse().unwrap()),
            Some(Side::Buy)
        )
    );
}

/// A trade of our taker order `order` (BUY `size` of `ASSET`).
fn trade_of(order: &str, id: &str, status: &str, size: &str) -> Trade {
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","taker_order_id":"{order}","asset_id":"{ASSET}","side":"BUY","size":"{size}","price":"0.5","status":"{status}","maker_orders":[{{"order_id":"0xother","matched_amount":"{size}","price":"0.5","asset_id":"{ASSET}","maker_address":"0xsomeone"}}]}}"#
    ))
    .unwrap()
}

#[test]
fn settled_history_is_bounded_and_late_duplicates_never_count_again() {
    let mut t = Tracker::new().retain(2);
    // A resting order with many fills: it stays, its old trades are folded into it.
    let big: OpenOrder = serde_json::from_str(&format!(
        r#"{{"id":"big","status":"LIVE","asset_id":"{ASSET}","market":"0xm","side":"BUY","original_size":"100","size_matched":"0","price":"0.5","created_at":100}}"#
    ))
    .unwrap();
    t.on_order(&big);
    // Six orders filled and settled, one failed trade, and the big order's five fills.
    for i in 0..6 {
        let id = format!("o{i}");
        t.on_order(&order_json(&id, "MATCHED", "10"));
        t.on_trade(&trade_of(&id, &format!("t{i}"), "MATCHED", "10"));
        t.on_trade(&trade_of(&id, &format!("t{i}"), "CONFIRMED", "10"));
    }
    t.on_order(&order_json("ghost", "MATCHED", "10"));
    t.on_trade(&trade_of("ghost", "tg", "FAILED", "10"));
    for i in 0..5 {
        t.on_trade(&trade_of("big", &format!("b{i}"), "CONFIRMED", "2"));
    }
    // One trade still settling is kept whatever the bound.
    t.on_order(&order_json("open", "MATCHED", "10"));
    t.on_trade(&trade_of("open", "tp", "MATCHED", "10"));
    let events = t.take_events();
    assert_eq!(fills(&events), 6 + 5 + 1, "{events:?}");

    assert!(t.trades.len() <= 3, "{} trades kept", t.trades.len());
    assert!(t.orders.len() <= 4, "{:?}", t.orders.keys());
    assert!(t.order("big").is_some() && t.order("open").is_some());
    assert!(
        t.order("o0").is_none(),
        "the oldest settled order is forgotten"
    );
    let p = t.position(ASSET).unwrap();
    assert_eq!(p.held(), Some("70".parse().unwrap()));
    assert_eq!(p.pending_buy, "10".parse().unwrap());
    let s = t.settlement("big");
    assert_eq!(s.confirmed, "10".parse().unwrap());
    assert_eq!(t.order("big").unwrap().state, OrderState::PartiallyMatched);

    // Everything again, late and twice: nothing new is counted or announced, and forgotten
    // orders do not come back.
    for _ in 0..2 {
        for i in 0..6 {
            let id = format!("o{i}");
            t.on_order(&order_json(&id, "MATCHED", "10"));
            for status in ["MATCHED", "MINED", "CONFIRMED"] {
                t.on_trade(&trade_of(&id, &format!("t{i}"), status, "10"));
            }
        }
        t.on_trade(&trade_of("ghost", "tg", "CONFIRMED", "10"));
        for i in 0..5 {
            t.on_trade(&trade_of("big", &format!("b{i}"), "CONFIRMED", "2"));
        }
    }
    assert_eq!(fills(&t.take_events()), 0);
    assert!(t.order("o0").is_none());
    assert_eq!(
        t.position(ASSET).unwrap().held(),
        Some("70".parse().unwrap())
    );
    assert_eq!(t.settlement("big").confirmed, "10".parse().unwrap());
    assert!(t.trades.len() <= 3 && t.orders.len() <= 4);

    // The settling trade confirms: counted once, then it may be forgotten too.
    t.on_trade(&trade_of("open", "tp", "CONFIRMED", "10"));
    t.on_trade(&trade_of("open", "tp", "CONFIRMED", "10"));
    assert_eq!(
        t.position(ASSET).unwrap().held(),
        Some("80".parse().unwrap())
    );
    // A genuinely new fill of a kept order still counts.
    t.on_trade(&trade_of("big", "b5", "CONFIRMED", "2"));
    assert_eq!(
        t.position(ASSET).unwrap().held(),
        Some("82".parse().unwrap())
    );
    assert_eq!(t.settlement("big").confirmed, "12".parse().unwrap());
    assert!(t.trades.len() <= 2, "{}", t.trades.len());
}

/// The one status rule (`TradeStatus::supersedes`): nothing goes backwards, finals stay,
/// and between MINED and RETRYING the rows' `last_update` decides.
#[test]
fn statuses_follow_the_one_monotone_rule() {
    let row = |status: &str, updated: u64| -> Trade {
        let mut t = trade("t1", status, "4");
        t.last_update = crate::types::Timestamp::from_secs(updated);
        t
    };
    let statuses = |t: &mut Tracker| -> Vec<TradeStatus> {
        t.take_events()
            .into_iter()
            .filter_map(|e| match e {
                TrackerEvent::Trade { status, .. } => Some(status),
                _ => None,
            })
            .collect()
    };
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    t.on_trade(&row("MATCHED", 100));
    t.on_trade(&row("MINED", 110));
    t.on_trade(&row("RETRYING", 105)); // older news than MINED: ignored
    t.on_trade(&row("RETRYING", 120));
    t.on_trade(&row("MATCHED", 130)); // backwards, whatever its time
    t.on_trade(&row("MINED", 125));
    t.on_trade(&row("MINED", 140));
    t.on_trade(&row("FAILED", 150));
    t.on_trade(&row("RETRYING", 160)); // FAILED is final
    t.on_trade(&row("FAILED", 170));
    assert_eq!(
        statuses(&mut t),
        [
            TradeStatus::Matched,
            TradeStatus::Mined,
            TradeStatus::Retrying,
            TradeStatus::Mined,
            TradeStatus::Failed
        ]
    );
    assert_eq!(t.settlement(TAKER).failed, "4".parse().unwrap());
}

/// A trade on market `0xm` of our taker order (`side` `size` of `ASSET`) against two foreign
/// makers: one on `ASSET` at 0.40, one on the other token (`8`) at 0.55 (a mint for a buy, a
/// merge for a sell, the taker at 0.45).
fn crossed(id: &str, status: &str, side: &str) -> Trade {
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","taker_order_id":"{TAKER}","market":"0xM","asset_id":"{ASSET}","side":"{side}","size":"20","price":"0.45","status":"{status}","maker_address":"0xME","maker_orders":[
          {{"order_id":"0xa","matched_amount":"10","price":"0.4","asset_id":"{ASSET}","maker_address":"0xsomeone"}},
          {{"order_id":"0xb","matched_amount":"10","price":"0.55","asset_id":"8","maker_address":"0xsomeone"}}]}}"#
    ))
    .unwrap()
}

#[test]
fn pnl_counts_confirmed_legs_once_with_their_fees() {
    let p = |s: &str| s.parse::<Price>().unwrap();
    let q = |s: &str| s.parse::<Size>().unwrap();
    let mut t = Tracker::new();
    t.on_order(&order_json(TAKER, "LIVE", "0"));
    t.set_fee_schedule("0xm", FeeSchedule::new(p("0.05"), 1, true, None));
    // Bought 20: 10 at 0.40 and 10 at 0.45 (the complement of the NO maker's 0.55).
    for status in ["MATCHED", "CONFIRMED", "CONFIRMED"] {
        t.on_trade(&crossed("buy", status, "BUY"));
    }
    let b = t.position(ASSET).unwrap().basis;
    assert_eq!((b.held(), b.avg_price()), (q("20"), Some(p("0.425"))));
    // 0.05 · (10 · 0.24 + 10 · 0.2475) = 0.24375.
    assert_eq!(b.fees(), q("0.24375"));
    // A trade that never confirmed moves nothing; one on a market of unknown fees is counted
    // without a fee and says so.
    t.on_trade(&trade("ghost", "FAILED", "4"));
    assert_eq!(t.position(ASSET).unwrap().basis.held(), q("20"));
    assert!(!t.position(ASSET).unwrap().fees_unknown);
    t.on_trade(&trade("unknown", "CONFIRMED", "4"));
    let pos = t.position(ASSET).unwrap();
    assert!(pos.fees_unknown);
    assert_eq!(
        (pos.basis.held(), pos.basis.fees()),
        (q("24"), q("0.24375"))
    );
    assert_eq!(pos.held(), Some(q("24")));
}
