//! Gamma and the Data API v2 against the simulator: keyset and cursor pages are re-requested
//! correctly to the end, condition-id sets are chunked, a market found through Gamma is traded
//! with no CLOB metadata request, and a fill shows up in Data API positions and trades.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use polyclob::clob::ClientBuilder;
use polyclob::data::{self, Query};
use polyclob::fixed::{Price, Size};
use polyclob::gamma::{self, EventFilter, GammaMarket, MarketFilter};
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ExchangeVersion, Side};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};

/// Hardhat account #0: a public test key.
const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

fn count(sim: &SimHandle, prefix: &str) -> usize {
    sim.requests()
        .iter()
        .filter(|r| r.starts_with(prefix))
        .count()
}

fn many_markets(n: usize) -> Vec<MarketSpec> {
    (1..=n)
        .map(|i| {
            let (yes, no) = (format!("{i}001"), format!("{i}002"));
            MarketSpec::binary(
                format!("0x{i:064x}"),
                format!("Simulated question number {i}?"),
                [yes.as_str(), no.as_str()],
            )
        })
        .collect()
}

fn gamma_client(sim: &SimHandle) -> gamma::Client {
    gamma::Client::builder()
        .host(sim.gamma_url())
        .build()
        .unwrap()
}

fn data_client(sim: &SimHandle) -> data::Client {
    data::Client::builder()
        .host(sim.data_api_url())
        .build()
        .unwrap()
}

#[tokio::test]
async fn keyset_pages_are_followed_to_the_end() {
    let sim = Simulator::builder()
        .markets(many_markets(7))
        .start()
        .await
        .unwrap();
    let gamma = gamma_client(&sim);
    let want: Vec<String> = sim
        .markets()
        .iter()
        .map(|m| m.condition_id().to_owned())
        .collect();

    let (markets, skipped) = gamma
        .all_markets(MarketFilter::new().limit(2))
        .await
        .unwrap();
    assert!(skipped.is_empty());
    let got: Vec<&str> = markets.iter().map(|m| m.condition_id.as_str()).collect();
    assert_eq!(got, want, "every market once, in order");
    assert_eq!(count(&sim, "GET /gamma/markets/keyset"), 4, "2+2+2+1");

    // The first page alone, then the cursor it hands out.
    let first = gamma
        .markets_page(&MarketFilter::new().limit(3), None)
        .await
        .unwrap();
    assert_eq!(first.data.len(), 3);
    let cursor = first.next_cursor.clone().expect("more pages");
    let second = gamma
        .markets_page(&MarketFilter::new().limit(3), Some(&cursor))
        .await
        .unwrap();
    assert_eq!(second.data[0].condition_id, want[3]);

    // Events: ≤ 500 a page (1000 is clamped, which the simulator would refuse otherwise).
    sim.clear_requests();
    let (events, _) = gamma
        .all_events(EventFilter::new().limit(1000))
        .await
        .unwrap();
    assert_eq!(events.len(), 7);
    assert_eq!(events[6].markets[0].condition_id, want[6]);
    assert_eq!(count(&sim, "GET /gamma/events/keyset"), 1);
    sim.clear_requests();
    let (events, _) = gamma.all_events(EventFilter::new().limit(3)).await.unwrap();
    assert_eq!(events.len(), 7);
    assert_eq!(count(&sim, "GET /gamma/events/keyset"), 3);

    // Filters the simulator models: closed markets (none), a slug, a liquidity floor.
    let (closed, _) = gamma
        .all_markets(MarketFilter::new().closed(true))
        .await
        .unwrap();
    assert!(closed.is_empty());
    let (inactive, _) = gamma
        .all_markets(MarketFilter::new().active(false))
        .await
        .unwrap();
    assert!(inactive.is_empty());
    let (active, _) = gamma
        .all_markets(MarketFilter::new().active(true).archived(false).tag_id("1"))
        .await
        .unwrap();
    assert_eq!(active.len(), 7);
    let slugged = sim.markets()[4].clone();
    let one = gamma.market("5").await.unwrap();
    assert_eq!(one.condition_id, slugged.condition_id());
    let (rich, _) = gamma
        .all_markets(MarketFilter::new().liquidity_min(Size::MAX))
        .await
        .unwrap();
    assert!(rich.is_empty());
}

#[tokio::test]
async fn condition_id_sets_are_chunked_by_one_hundred() {
    let sim = Simulator::builder()
        .markets(many_markets(5))
        .start()
        .await
        .unwrap();
    let gamma = gamma_client(&sim);
    // 245 ids, five of them real: three requests of ≤ 100 (the simulator refuses more).
    let mut ids: Vec<String> = (1000..1240).map(|i| format!("0x{i:064x}")).collect();
    ids.extend(sim.markets().iter().map(|m| m.condition_id().to_owned()));
    let (markets, _) = gamma
        .all_markets(MarketFilter::new().condition_ids(ids).limit(100))
        .await
        .unwrap();
    assert_eq!(markets.len(), 5);
    assert_eq!(count(&sim, "GET /gamma/markets/keyset"), 3);
    // One page alone sends only the first hundred ids, which the server accepts.
    let page = gamma
        .markets_page(
            &MarketFilter::new().condition_ids((0..150).map(|i| format!("0x{i:064x}"))),
            None,
        )
        .await
        .unwrap();
    assert_eq!(page.data.len(), 5, "ids 1..=5 are among the first hundred");
}

async fn trader(sim: &SimHandle) -> (polyclob::clob::Client, OrderSigner, String) {
    let signer = Signer::from_hex(KEY).unwrap();
    let address = format!("{:#x}", signer.address());
    let clob = ClientBuilder::new()
        .host(sim.http_url())
        .signer(signer.clone())
        .build()
        .unwrap();
    let creds = clob
        .create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    clob.set_credentials(creds);
    sim.fund(signer.address(), 1_000_000 * 1_000_000);
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).unwrap();
    (clob, orders, address)
}

#[tokio::test]
async fn a_market_found_through_gamma_trades_without_metadata_requests() {
    let sim = Simulator::builder().seed(3).start().await.unwrap();
    let gamma = gamma_client(&sim);
    let (clob, orders, _) = trader(&sim).await;

    // Every fixture market: a plain one, a 0.001-tick one, a neg-risk one and a position-ID
    // (ExchangeV3) one. The simulator verifies each signature against the domain the market
    // needs, so acceptance proves the Gamma-derived context right.
    let (markets, _) = gamma.all_markets(MarketFilter::new()).await.unwrap();
    assert_eq!(markets.len(), 4);
    for m in &markets {
        let spec = sim
            .markets()
            .into_iter()
            .find(|s| s.condition_id() == m.condition_id)
            .unwrap();
        let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
        assert_eq!(t.contexts[0].tick(), spec.tick());
        assert_eq!(
            t.contexts[0].token_id().as_str(),
            spec.tokens()[0].token_id()
        );
        assert_eq!(
            t.contexts[0].version() == ExchangeVersion::V3,
            spec.is_position_ids()
        );

        sim.clear_requests();
        let price = Price::new(spec.tick().as_micros() * 3).unwrap();
        let req = LimitOrder::new(Side::Buy, price, t.min_order_size.max(Size::ONE));
        let signed = orders.limit_order(&t.contexts[0], &req).unwrap();
        let placed = clob.post_order(&signed).await.unwrap();
        assert!(placed.success, "{}: {}", m.question, placed.error_msg);
        assert_eq!(
            sim.requests(),
            ["POST /order"],
            "{}: no metadata request",
            m.question
        );
    }

    // The one-call helper too, once the contexts are remembered: only the post goes out.
    let m: &GammaMarket = markets.iter().find(|m| m.neg_risk).unwrap();
    let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
    let account = polyclob::account::Account::builder(orders.signer().clone())
        .client(ClientBuilder::new().host(sim.http_url()))
        .credentials(clob.credentials().unwrap())
        .build()
        .unwrap();
    account.client().remember_contexts(&t.contexts);
    sim.clear_requests();
    let token = t.contexts[1].token_id().as_str().to_owned();
    let req = LimitOrder::new(Side::Buy, "0.02".parse().unwrap(), "5".parse().unwrap());
    let placed = account.place_limit_order(&token, &req).await.unwrap();
    assert!(placed.success, "{}", placed.error_msg);
    assert_eq!(sim.requests(), ["POST /order"]);
    // Without it, the same helper asks the CLOB first (the counter is not blind).
    let fresh = ClientBuilder::new().host(sim.http_url()).build().unwrap();
    sim.clear_requests();
    let _ = fresh.market_context(&token).await.unwrap();
    assert!(sim.requests().len() >= 2, "{:?}", sim.requests());
}

#[tokio::test]
async fn a_fill_shows_up_in_data_api_positions_and_trades() {
    let sim = Simulator::builder().seed(9).start().await.unwrap();
    let gamma = gamma_client(&sim);
    let data = data_client(&sim);
    let (clob, orders, me) = trader(&sim).await;

    let found = gamma.search("simulated team", 0).await.unwrap();
    let m = found.events[0].markets[0].clone();
    let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
    let ask = m.best_ask.expect("the seeded book has asks");
    assert_eq!(data.positions(&me).await.unwrap(), (vec![], vec![]));

    // Take 10 shares at the best ask.
    let buy = LimitOrder::new(Side::Buy, ask, "10".parse().unwrap());
    let placed = clob
        .post_order(&orders.limit_order(&t.contexts[0], &buy).unwrap())
        .await
        .unwrap();
    assert_eq!(
        placed.status,
        polyclob::clob::types::OrderStatus::Matched,
        "{placed:?}"
    );

    let (pos, skipped) = data.positions(&me).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(pos.len(), 1);
    let p = &pos[0];
    assert_eq!(p.token_id, t.contexts[0].token_id().as_str());
    assert_eq!(p.condition_id, m.condition_id);
    assert_eq!(p.size, Some("10".parse().unwrap()));
    assert_eq!(p.avg_price, Some(ask));
    assert_eq!(p.status, "OPEN");
    assert_eq!(p.proxy_wallet, me);

    let (trades, skipped) = data.trades(&me).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(trades.len(), 1);
    assert_eq!(trades[0].side, Some(Side::Buy));
    assert_eq!(trades[0].size, Some("10".parse().unwrap()));
    assert_eq!(trades[0].price, Some(ask));
    assert_eq!(trades[0].outcome, m.outcomes[0]);

    let (activity, skipped) = data.activity(&me).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(activity.len(), 1);
    assert_eq!(activity[0].kind, "TRADE");
    let value = data.value(&me).await.unwrap();
    assert!(value.value.unwrap() > Size::ZERO);
    let (holders, skipped) = data.holders(&m.condition_id).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(holders[0].holders[0].proxy_wallet, me);

    // Sell it all back into the bid: the position closes with a realized PnL.
    let book = clob.book(t.contexts[0].token_id().as_str()).await.unwrap();
    let bid = book.bids.iter().map(|l| l.price).max().unwrap();
    let sell = LimitOrder::new(Side::Sell, bid, "10".parse().unwrap());
    let placed = clob
        .post_order(&orders.limit_order(&t.contexts[0], &sell).unwrap())
        .await
        .unwrap();
    assert_eq!(placed.status, polyclob::clob::types::OrderStatus::Matched);
    assert_eq!(data.positions(&me).await.unwrap(), (vec![], vec![]));
    let (closed, skipped) = data.closed_positions(&me).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(closed.len(), 1);
    let pnl = closed[0].realized_pnl.unwrap();
    // (bid − ask) × 10: negative, the spread paid.
    let want = (i64::from(bid.as_micros()) - i64::from(ask.as_micros())) * 10;
    assert_eq!(pnl.as_micros(), want);
    assert_eq!(data.trades(&me).await.unwrap().0.len(), 2);
}

#[tokio::test]
async fn data_api_cursor_pages_are_followed_to_the_end() {
    let sim = Simulator::builder().seed(11).start().await.unwrap();
    let data = data_client(&sim);
    let (clob, orders, me) = trader(&sim).await;
    let spec = sim.markets()[0].clone();
    let gamma = gamma_client(&sim);
    let m = gamma
        .all_markets(MarketFilter::new().condition_ids([spec.condition_id()]))
        .await
        .unwrap()
        .0
        .remove(0);
    let ctx = m.context(Chain::Polygon, ExchangeVersion::V2, 0).unwrap();
    for _ in 0..5 {
        let ask = clob.book(ctx.token_id().as_str()).await.unwrap();
        let best = ask.asks.iter().map(|l| l.price).min().unwrap();
        let buy = LimitOrder::new(Side::Buy, best, "5".parse().unwrap());
        let r = clob
            .post_order(&orders.limit_order(&ctx, &buy).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status, polyclob::clob::types::OrderStatus::Matched);
    }
    sim.clear_requests();
    let (rows, skipped) = data
        .collect(Query::trades().user(&me).limit(2))
        .await
        .unwrap();
    assert!(skipped.is_empty());
    assert_eq!(rows.len(), 5);
    assert_eq!(count(&sim, "GET /data-api/v2/trades"), 3, "2+2+1");
    let mut hashes: Vec<&str> = rows.iter().map(|r| r.transaction_hash.as_str()).collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), 5, "no row twice");
    assert!(
        rows.windows(2).all(|w| w[0].timestamp >= w[1].timestamp),
        "newest first"
    );

    // Page by page: the cursor carries the size; a bad cursor is the server's 400.
    let q = Query::trades().user(&me).limit(4);
    let first = data.page(&q, None).await.unwrap();
    assert!(first.has_more);
    let rest = data.page(&q, first.next_cursor.as_deref()).await.unwrap();
    assert_eq!((first.data.len(), rest.data.len()), (4, 1));
    assert!(!rest.has_more && rest.next_cursor.is_none());
    let err = data.page(&q, Some("garbage")).await.unwrap_err();
    assert_eq!(err.status(), Some(400));

    // The maker side: the seeded liquidity's rows appear only with taker_only=false.
    let (all, _) = data
        .collect(Query::trades().taker_only(false))
        .await
        .unwrap();
    let (takers, _) = data.collect(Query::trades()).await.unwrap();
    assert!(all.len() > takers.len());
    assert_eq!(takers.len(), 5);
}

#[tokio::test]
async fn single_lookups_lists_and_typed_errors() {
    let sim = Simulator::builder().seed(5).start().await.unwrap();
    let gamma = gamma_client(&sim);
    let m = gamma.market_by_slug("sim-team-wins-final").await.unwrap();
    assert_eq!(m.condition_id, sim.markets()[0].condition_id());
    assert_eq!(m.events.len(), 1);
    let e = gamma.event_by_slug("sim-team-wins-final").await.unwrap();
    assert_eq!(e.markets[0].condition_id, m.condition_id);
    let same = gamma.event(&e.id).await.unwrap();
    assert_eq!(same.id, e.id);
    let (tags, skipped) = gamma.tags(10).await.unwrap();
    assert_eq!((tags.len(), skipped.len()), (1, 0));
    assert!(gamma.sports().await.unwrap().0.is_empty());
    assert_eq!(
        gamma.series(10, 0).await.unwrap().0.len(),
        1,
        "the one series every simulated event recurs in"
    );
    let missing = gamma.market_by_slug("no-such-market").await.unwrap_err();
    assert_eq!(missing.status(), Some(404));
    let none = gamma.search("zzz-nothing", 0).await.unwrap();
    assert!(none.events.is_empty() && !none.has_more);

    let data = data_client(&sim);
    let err = data
        .page(&Query::holders("0xabc").limit(1_001), None)
        .await
        .unwrap_err();
    assert_eq!(
        err.status(),
        Some(400),
        "the simulator enforces the docs' 1,000 cap"
    );
    let v = data
        .value("0x0000000000000000000000000000000000000001")
        .await
        .unwrap();
    assert_eq!(v.value, Some(Size::ZERO));
}
