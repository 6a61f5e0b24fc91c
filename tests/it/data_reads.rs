//! The Data API v2 reads added for issue 49, each against the simulator on loopback: two
//! wallets trade, a market resolves, a combo is seeded, and every call decodes the answer the
//! simulator computes from that, with no row left out. Expected values are worked out here
//! from the trades the test made, not read back from the simulator.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use alloy_primitives::B256;
use polyclob::clob::Client;
use polyclob::data::{self, Query};
use polyclob::fixed::Amount;
use polyclob::fixed::{Price, Size};
use polyclob::order::LimitOrder;
use polyclob::types::{Side, TickSize};
use polyclob_sim::{SimHandle, Simulator};

use crate::support::rails::{COND, KEY_A, KEY_B, YES, client_with, market, order_signer};

fn p(s: &str) -> Price {
    s.parse().unwrap()
}

fn sz(s: &str) -> Size {
    s.parse().unwrap()
}

fn amt(s: &str) -> Amount {
    s.parse().unwrap()
}

async fn post(c: &Client, key: &str, side: Side, price: &str, size: &str, builder: B256) {
    let ctx = c
        .market_context_with(YES, TickSize::Hundredth, false)
        .unwrap();
    let signer = order_signer(key).builder_code(builder);
    let o = signer
        .limit_order(&ctx, &LimitOrder::new(side, p(price), sz(size)))
        .unwrap();
    let r = c.post_order(&o).await.unwrap();
    assert!(r.success, "{r:?}");
}

fn wallet(key: &str) -> String {
    polyclob::sign::Signer::from_hex(key)
        .unwrap()
        .address()
        .to_string()
        .to_ascii_lowercase()
}

/// A buys 10 YES at 0.40 from B (B's 10 came from funding, at no cost), then sells 5 back to
/// B at 0.60; B's second order carries a builder code.
async fn traded() -> (SimHandle, data::Client) {
    let sim = Simulator::builder()
        .markets(vec![market()])
        .onchain(true)
        .start()
        .await
        .unwrap();
    let a = client_with(&sim, KEY_A, Client::builder()).await;
    let b = client_with(&sim, KEY_B, Client::builder()).await;
    let code = B256::repeat_byte(0xb1);
    post(&b, KEY_B, Side::Sell, "0.40", "10", B256::ZERO).await;
    post(&a, KEY_A, Side::Buy, "0.40", "10", B256::ZERO).await;
    post(&b, KEY_B, Side::Buy, "0.60", "5", code).await;
    post(&a, KEY_A, Side::Sell, "0.60", "5", B256::ZERO).await;
    let d = data::Client::builder()
        .host(sim.data_api_url())
        .build()
        .unwrap();
    (sim, d)
}

#[tokio::test]
async fn boards_follow_the_trades() {
    let (sim, d) = traded().await;
    let (a, b) = (wallet(KEY_A), wallet(KEY_B));
    // Before the resolution: realized only on the `all` board. A made 5 × (0.60 − 0.40);
    // B sold 10 it got for nothing at 0.40.
    let (board, skipped) = d.collect(Query::leaderboard().period("all")).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    type Row<'a> = (&'a str, Option<u32>, Option<Amount>, Option<Size>);
    let by: Vec<Row<'_>> = board
        .iter()
        .map(|e| (e.user_id.as_str(), e.rank, e.pnl, e.volume))
        .collect();
    assert_eq!(
        by,
        [
            (b.as_str(), Some(1), Some(amt("4")), Some(sz("15"))),
            (a.as_str(), Some(2), Some(amt("1")), Some(sz("15"))),
        ]
    );
    // Both traded 15 shares: they share rank 1 on the volume board.
    let (vol, _) = d
        .collect(
            Query::leaderboard()
                .period("all")
                .sort_by("VOLUME")
                .limit(1),
        )
        .await
        .unwrap();
    assert_eq!(
        vol.iter().map(|e| e.rank).collect::<Vec<_>>(),
        [Some(1), Some(1)]
    );
    let me = d
        .leaderboard_standing(&a, "all", "overall")
        .await
        .unwrap()
        .unwrap();
    assert_eq!((me.rank_pnl, me.rank_volume), (Some(2), Some(1)));
    assert_eq!(
        d.leaderboard_standing(
            "0x000000000000000000000000000000000000dead",
            "day",
            "overall"
        )
        .await
        .unwrap(),
        None
    );

    // YES wins: the day board marks the open shares at the payout. A: 1 + 5 × 1 − 2;
    // B: 4 + 5 × 1 − 3.
    assert!(sim.resolve_market(COND, 0));
    let (day, _) = d.collect(Query::leaderboard()).await.unwrap();
    let pnl: Vec<(&str, Option<Amount>)> =
        day.iter().map(|e| (e.user_id.as_str(), e.pnl)).collect();
    assert_eq!(
        pnl,
        [(b.as_str(), Some(amt("6"))), (a.as_str(), Some(amt("4")))]
    );

    // The biggest wins: A's 5 shares (cost 2) and B's 5 (cost 3), with a combo seeded on
    // the winning leg (5 shares for 2.5) between them.
    let combo = sim
        .seed_combo(a.parse().unwrap(), &[(0, 0)], 5_000_000, 2_500_000)
        .unwrap();
    let (wins, skipped) = d.collect(Query::biggest_winners()).await.unwrap();
    assert!(skipped.is_empty());
    let w: Vec<(Option<u32>, &str, bool, Option<Amount>)> = wins
        .iter()
        .map(|w| (w.win_rank, w.user_id.as_str(), w.is_combo(), w.pnl))
        .collect();
    assert_eq!(
        w,
        [
            (Some(1), a.as_str(), false, Some(amt("3"))),
            (Some(2), a.as_str(), true, Some(amt("2.5"))),
            (Some(3), b.as_str(), false, Some(amt("2"))),
        ]
    );
    assert_eq!(wins[1].condition_id, combo);
    assert_eq!(
        (wins[1].event_id.as_str(), wins[0].event_id.as_str()),
        ("0", "1000")
    );

    // Builders: B's 5-share order carried the code.
    let (builders, _) = d.collect(Query::builders().period("day")).await.unwrap();
    assert_eq!(builders.len(), 1);
    assert_eq!(
        builders[0].builder_code,
        format!("{:#x}", B256::repeat_byte(0xb1))
    );
    assert_eq!(
        (builders[0].volume, builders[0].active_users),
        (Some(sz("5")), Some(1))
    );
    let (series, skipped) = d.builder_volume("day", 7).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(series.len(), 1);
    assert_eq!(series[0].date.as_deref().map(str::len), Some(10));
    assert!(d.builder_volume("day", 91).await.unwrap_err().is_argument());
}

#[tokio::test]
async fn wallet_figures_follow_the_trades() {
    let (sim, d) = traded().await;
    let a = wallet(KEY_A);
    assert!(sim.resolve_market(COND, 0));
    let series = d.user_pnl(&a, "1d", "1h").await.unwrap();
    assert_eq!(
        (series.proxy_wallet.as_str(), series.interval.as_str()),
        (a.as_str(), "1d")
    );
    let last = series.points.last().unwrap();
    assert_eq!(last.realized_pnl, Some(amt("1")));
    assert_eq!(last.unrealized_pnl, Some(amt("3")));
    // The documented compositions.
    let add = |x: Option<Amount>, y: Option<Amount>| x.unwrap().checked_add(y.unwrap());
    assert_eq!(
        add(last.realized_market_pnl, last.realized_lp_pnl)
            .and_then(|s| s.checked_add(last.realized_combo_pnl.unwrap())),
        last.realized_pnl
    );
    assert_eq!(
        add(last.realized_pnl, last.unrealized_pnl),
        last.position_pnl
    );
    assert_eq!(
        add(last.position_pnl, last.wallet_income),
        last.economic_pnl
    );
    assert_eq!(add(last.realized_pnl, last.wallet_income), last.settled_pnl);
    assert_eq!(last.fees, None, "not modelled: uncovered, never zero");
    assert_eq!((last.volume, last.trade_count), (Some(sz("15")), Some(2)));
    assert!(series.points.len() >= 2, "a day of hourly points and now");
    assert!(d.user_pnl(&a, "2d", "1h").await.unwrap_err().is_argument());

    let stats = d.user_stats(&a).await.unwrap().unwrap();
    assert_eq!((stats.trades, stats.biggest_win), (Some(1), Some(sz("3"))));
    assert!(stats.join_date.is_some());
    assert_eq!(stats.all_time_pnl.unwrap().position_pnl, Some(amt("4")));
    assert_eq!(
        d.user_stats("0x000000000000000000000000000000000000dead")
            .await
            .unwrap(),
        None
    );

    // 10 at 0.40 and 5 at 0.60.
    let v = d.user_volume(&a, 0, 0).await.unwrap();
    assert_eq!(
        (v.volume, v.volume_usdc, v.trade_count),
        (Some(sz("15")), Some(sz("7")), Some(2))
    );
    let before = d.user_volume(&a, 1, 86_400).await.unwrap();
    assert_eq!(before.trade_count, Some(0));

    let approvals = d.approvals(&a).await.unwrap();
    assert_eq!(approvals.address, a);
    assert_eq!(approvals.chain_id, Some(137));
    assert!(!approvals.contracts.is_empty());
    assert!(
        approvals.contracts.iter().all(|c| c.approved),
        "{approvals:?}"
    );
    assert!(
        approvals
            .contracts
            .iter()
            .any(|c| c.standard == "ERC20" && c.is_unlimited())
    );
    assert!(
        approvals
            .contracts
            .iter()
            .any(|c| c.standard == "ERC1155" && c.amount.is_none())
    );

    // Taker volume of the market: the two taking orders, 10 and 5.
    let live = d.live_volume(&["1000", "1000"]).await.unwrap();
    assert_eq!(live.taker_volume_total, Some(sz("15")));
    assert_eq!(live.conditions.len(), 1);
    assert_eq!(live.conditions[0].condition_id, COND);
    assert!(d.live_volume(&["x"]).await.unwrap_err().is_argument());

    let status = d.status().await.unwrap();
    assert_eq!(
        (status.chain_id, status.network.as_str()),
        (Some(137), "polygon")
    );
    assert_eq!(
        status
            .mechanisms
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["activity_feed", "custody_balances", "pnl"]
    );
    assert!(status.most_lagged.is_some() && status.computed_at.is_some());
}

#[tokio::test]
async fn combo_positions_and_activity_decode() {
    let (sim, d) = traded().await;
    let a = wallet(KEY_A);
    let open = sim
        .seed_combo(a.parse().unwrap(), &[(0, 1)], 2_000_000, 500_000)
        .unwrap();
    let won = sim
        .seed_combo(a.parse().unwrap(), &[(0, 0)], 5_000_000, 2_000_000)
        .unwrap();
    assert!(open.starts_with("0x03") && open.len() == 64, "{open}");
    let (rows, skipped) = d
        .collect(Query::combo_positions(&a).limit(1))
        .await
        .unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(rows.len(), 2, "walked over two pages");
    assert!(rows.iter().all(|r| r.status == "OPEN" && r.legs.len() == 1));
    assert_eq!(rows[1].entry_avg_price, Some(p("0.4")));
    assert_eq!(rows[1].legs[0].market.event_id, "1000");
    assert_eq!(rows[1].legs[0].outcome_index, Some(0));
    // The NO leg loses and the YES leg wins.
    assert!(sim.resolve_market(COND, 0));
    let (won_rows, _) = d
        .collect(Query::combo_positions(&a).status("REDEEMABLE"))
        .await
        .unwrap();
    assert_eq!(won_rows.len(), 1);
    assert_eq!(won_rows[0].combo_condition_id, won);
    assert_eq!(won_rows[0].status, "RESOLVED_WIN");
    assert_eq!(won_rows[0].legs[0].status, "RESOLVED_WIN");
    assert!(won_rows[0].resolved_at.is_some());
    let (lost, _) = d
        .collect(
            Query::combo_positions(&a)
                .status("RESOLVED_LOSS")
                .condition(&open),
        )
        .await
        .unwrap();
    assert_eq!(lost.len(), 1);
    let (activity, skipped) = d.collect(Query::combo_activity(&a)).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(activity.len(), 2);
    assert!(
        activity
            .iter()
            .all(|r| r.kind == "SPLIT" && r.payout.is_none())
    );
    assert_eq!(activity[0].combo_condition_id, won, "newest first");
    assert_eq!(activity[0].amount, Some(sz("2")));
}
