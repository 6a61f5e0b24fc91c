//! The Gamma reads added for issue 49 against the simulator on loopback: comments (on an
//! event, a thread, a wallet's), public profiles, series summaries, teams, tags by id, and
//! sports market types. Each call decodes the simulator's answer, no row left out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use alloy_primitives::Address;
use polyclob::clob::Client;
use polyclob::gamma;
use polyclob::order::LimitOrder;
use polyclob::types::{Side, TickSize};
use polyclob_sim::{SimHandle, Simulator};

use crate::support::rails::{KEY_A, YES, client_with, market, order_signer};

async fn sim() -> (SimHandle, gamma::Client) {
    let sim = Simulator::builder()
        .markets(vec![market()])
        .start()
        .await
        .unwrap();
    let g = gamma::Client::builder()
        .host(sim.gamma_url())
        .build()
        .unwrap();
    (sim, g)
}

#[tokio::test]
async fn comments_threads_and_profiles() {
    let (sim, g) = sim().await;
    let a: Address = "0x00000000000000000000000000000000000000a1"
        .parse()
        .unwrap();
    let b: Address = "0x00000000000000000000000000000000000000b2"
        .parse()
        .unwrap();
    let top = sim.comment("1000", a, "first", None);
    let reply = sim.comment("1000", b, "a reply", Some(&top));
    let other = sim.comment("1000", a, "second", None);
    let (rows, skipped) = g.comments("event", "1000", 10, 0).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(
        rows.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        [other.as_str(), reply.as_str(), top.as_str()],
        "newest first, replies along"
    );
    assert_eq!(rows[1].parent_comment_id.as_deref(), Some(top.as_str()));
    assert_eq!(rows[1].reply_address, format!("{a:#x}"));
    assert_eq!(rows[0].parent_entity_type, "Event");
    assert_eq!(rows[0].parent_entity_id, "1000");
    assert_eq!(rows[0].profile.proxy_wallet, format!("{a:#x}"));
    assert!(rows[0].created_at.is_some());
    // Offset paging.
    let (page2, _) = g.comments("Event", "1000", 2, 2).await.unwrap();
    assert_eq!(page2.len(), 1);
    assert_eq!(page2[0].id, top);
    assert!(
        g.comments("Tag", "1", 10, 0)
            .await
            .unwrap_err()
            .is_argument()
    );
    let (thread, _) = g.comment_thread(&top).await.unwrap();
    assert_eq!(thread.len(), 2);
    let (mine, _) = g.comments_by_user(&format!("{a:#x}"), 10, 0).await.unwrap();
    assert_eq!(
        mine.iter().map(|c| c.body.as_str()).collect::<Vec<_>>(),
        ["second", "first"]
    );

    let p = g.public_profile(&format!("{b:#x}")).await.unwrap().unwrap();
    assert_eq!(p.proxy_wallet, format!("{b:#x}"));
    assert_eq!(
        (p.display_username_public, p.verified_badge),
        (Some(true), Some(false))
    );
    assert_eq!(p.users.len(), 1);
    assert!(p.created_at.is_some());
    let nobody = "0x00000000000000000000000000000000000000c3";
    assert_eq!(g.public_profile(nobody).await.unwrap(), None);
    assert!(g.public_profile("0x12").await.unwrap_err().is_argument());
}

/// A wallet that placed an order has a public profile, and its comments carry it.
#[tokio::test]
async fn a_traders_profile_and_positions() {
    let (sim, g) = sim().await;
    let c = client_with(&sim, KEY_A, Client::builder()).await;
    let ctx = c
        .market_context_with(YES, TickSize::Hundredth, false)
        .unwrap();
    let o = order_signer(KEY_A)
        .limit_order(
            &ctx,
            &LimitOrder::new(Side::Buy, "0.01".parse().unwrap(), "5".parse().unwrap()),
        )
        .unwrap();
    c.post_order(&o).await.unwrap();
    let me = polyclob::sign::Signer::from_hex(KEY_A).unwrap().address();
    let p = g.public_profile(&format!("{me:#x}")).await.unwrap();
    assert!(p.is_some(), "a wallet that placed an order has a profile");
    let id = sim.comment("1000", me, "holding", None);
    let thread = g
        .comment_thread(&id)
        .await
        .unwrap()
        .0
        .into_iter()
        .next()
        .unwrap();
    assert_eq!(thread.profile.proxy_wallet, format!("{me:#x}"));
    assert_eq!(
        thread.profile.positions.len(),
        0,
        "positions only on request"
    );
}

#[tokio::test]
async fn series_teams_tags_and_market_types() {
    let (_sim, g) = sim().await;
    let (series, _) = g.series(10, 0).await.unwrap();
    assert_eq!(series.len(), 1);
    let by_id = g.series_by_id(&series[0].id).await.unwrap();
    assert_eq!(by_id.slug, series[0].slug);
    let s = g.series_summary(&series[0].id).await.unwrap();
    let by_slug = g.series_summary_by_slug(&series[0].slug).await.unwrap();
    assert_eq!(s, by_slug);
    // The market ends 2027-12-31: one date, in the year's 53rd week.
    assert_eq!(s.event_dates, ["2027-12-31"]);
    assert_eq!(s.event_weeks, ["53"]);
    assert_eq!(s.earliest_open_date, "2027-12-31");
    assert_eq!(s.earliest_open_week, Some(53));
    assert!(g.series_summary("404").await.unwrap_err().status() == Some(404));

    let (teams, skipped) = g.teams(50, 0, &[]).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(
        teams.len(),
        6,
        "two teams of each of the sports socket's three games"
    );
    let (nfl, _) = g.teams(50, 0, &["nfl"]).await.unwrap();
    assert_eq!(
        nfl.iter()
            .map(|t| t.abbreviation.as_str())
            .collect::<Vec<_>>(),
        ["LAC", "BUF"]
    );
    let one = g.team(&nfl[1].id).await.unwrap();
    assert_eq!(one, nfl[1]);

    let tag = g.tag("1").await.unwrap();
    assert_eq!(g.tag_by_slug(&tag.slug).await.unwrap(), tag);
    assert_eq!(
        g.event_tags("1000").await.unwrap().0,
        std::slice::from_ref(&tag)
    );
    assert_eq!(g.market_tags("1").await.unwrap().0, [tag]);
    assert!(g.related_tags("1").await.unwrap().0.is_empty());
    assert!(g.market_tags("77").await.unwrap_err().status() == Some(404));
    assert_eq!(
        g.sports_market_types().await.unwrap(),
        ["moneyline", "spreads", "totals"]
    );
}
