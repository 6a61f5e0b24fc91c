//! From discovery to a position: find a market on Gamma, derive its trading context, stream
//! its book, place and cancel an order, take liquidity, read the position and the trade back
//! from the Data API v2, and watch reference prices and the fill on the real-time data socket
//! (RTDS).
//!
//! `cargo run --release --example discover_and_trade` runs offline against the embedded
//! simulator (which serves the CLOB, Gamma, the Data API and RTDS) with Hardhat account #0, a
//! public test key. For the real exchange, drop the `.host(..)`/`.url(..)` calls (the
//! defaults are Polymarket's hosts) and load your own key.

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::account::Account;
use polyclob::book::Outcome;
use polyclob::clob::ClientBuilder;
use polyclob::data::{self, Query};
use polyclob::fixed::Price;
use polyclob::gamma;
use polyclob::order::LimitOrder;
use polyclob::rtds::decode::Payload;
use polyclob::rtds::{ActivityFilter, RtdsStream, Subscription};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ExchangeVersion, Side};
use polyclob::ws::feed::FeedEvent;
use polyclob::ws::market::{MarketEvent, MarketStream};
use polyclob_sim::Simulator;

const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = Simulator::builder()
        .seed(19)
        .rtds_interval(Duration::from_millis(100))
        .start()
        .await?;

    // 1. Discover: Gamma's public search, then the first market that takes orders.
    let gamma = gamma::Client::builder().host(sim.gamma_url()).build()?;
    let found = gamma.search("election", 5).await?;
    let market = found
        .events
        .iter()
        .flat_map(|e| e.markets.iter())
        .find(|m| m.is_tradable())
        .ok_or("no tradable market found")?
        .clone();
    println!("found:    {} ({})", market.question, market.condition_id);
    println!(
        "          outcomes {:?} at {:?}, tick {:?}, min size {:?}, neg-risk {}",
        market.outcomes,
        market
            .outcome_prices
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        market.tick_size.map(|t| t.as_str()),
        market.min_order_size.map(|s| s.to_string()),
        market.neg_risk,
    );

    // 2. Its trading context, with no request: token ids, tick size, neg-risk, minimum size,
    //    fees, and the exchange generation (V2 today; V3 for position-ID markets).
    let trading = market.trading(Chain::Polygon, ExchangeVersion::V2)?;
    let ctx = *trading.contexts.first().ok_or("no outcome token")?;
    let token = ctx.token_id().as_str().to_owned();
    println!(
        "context:  {} token {}…, exchange {} ({:?})",
        trading.outcomes.first().map_or("?", String::as_str),
        &token[..12.min(token.len())],
        ctx.exchange(),
        ctx.version()
    );

    // 3. Stream its book until the first snapshot is applied.
    let mut books = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([token.clone()])
        .build()?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while let Ok(Some(event)) = tokio::time::timeout_at(deadline, books.next()).await {
        if matches!(
            event,
            FeedEvent::Message(MarketEvent::Update {
                outcome: Outcome::Applied,
                ..
            })
        ) && books.state().book(&token).is_some()
        {
            break;
        }
    }
    let book = books
        .state()
        .book(&token)
        .ok_or("no book snapshot within 3 s")?;
    let best_bid = book.best_bid().ok_or("empty bid side")?.price;
    let best_ask = book.best_ask().ok_or("empty ask side")?.price;
    println!(
        "book:     bid {best_bid}  ask {best_ask}  mid {:?}",
        book.mid().map(|p| p.to_string())
    );

    // Watch the real-time data socket from here on: a reference price and every fill.
    let mut rtds = RtdsStream::builder()
        .url(sim.rtds_url())
        .subscribe(Subscription::crypto_prices(["btcusdt"]))
        .subscribe(Subscription::orders_matched(ActivityFilter::All))
        .build()?;

    // 4. Trade: an account (API credentials from the key), the Gamma contexts remembered by
    // its client.
    let signer = Signer::from_hex(TEST_KEY)?;
    let me = format!("{:#x}", signer.address());
    // The simulator enforces balances like the exchange: the account needs pUSD to buy.
    sim.fund(signer.address(), 1_000 * 1_000_000);

    let account = Account::builder(signer)
        .wallet(Wallet::Eoa)
        .client(ClientBuilder::new().host(sim.http_url()))
        .connect()
        .await?;
    account.client().remember_contexts(&trading.contexts);
    let orders = account.order_signer();
    sim.clear_requests();

    // A post-only bid one tick under the best bid rests; then it is cancelled.
    let tick = Price::new(ctx.tick().as_micros()).ok_or("bad tick")?;
    let under = best_bid.checked_sub(tick).ok_or("bid at the floor")?;
    let size = trading.min_order_size.max("5".parse()?);
    let resting = LimitOrder::new(Side::Buy, under, size).post_only(true);
    let placed = account
        .post_order(&orders.limit_order(&ctx, &resting)?)
        .await?;
    println!("placed:   {} {}", placed.order_id, placed.status);
    let cancelled = account.cancel(&placed.order_id).await?;
    println!("canceled: {:?}", cancelled.canceled);

    // A marketable bid at the best ask fills at once.
    let take = LimitOrder::new(Side::Buy, best_ask, size);
    let filled = account
        .post_order(&orders.limit_order(&ctx, &take)?)
        .await?;
    println!(
        "filled:   {} {} (trades {:?})",
        filled.order_id, filled.status, filled.trade_ids
    );
    let metadata = sim
        .requests()
        .iter()
        .filter(|r| !r.contains("/order"))
        .count();
    println!("CLOB metadata requests while trading: {metadata}");

    // 5. Read it back from the Data API v2: the open position and the trade.
    let data = data::Client::builder().host(sim.data_api_url()).build()?;
    let (positions, unreadable) = data.positions(&me).await?;
    for row in &unreadable {
        println!("position row {} did not decode: {}", row.index, row.reason);
    }
    for p in positions {
        println!(
            "position: {} {} shares @ avg {} (value {}, {})",
            p.outcome,
            p.size.map_or_else(|| "?".to_owned(), |s| s.to_string()),
            p.avg_price
                .map_or_else(|| "?".to_owned(), |s| s.to_string()),
            p.current_value
                .map_or_else(|| "?".to_owned(), |s| s.to_string()),
            p.status,
        );
    }
    let (trades, _) = data.collect(Query::trades().user(&me)).await?;
    for t in &trades {
        println!(
            "trade:    {:?} {} @ {} tx {}…",
            t.side.map(Side::as_str),
            t.size.map_or_else(|| "?".to_owned(), |s| s.to_string()),
            t.price.map_or_else(|| "?".to_owned(), |s| s.to_string()),
            &t.transaction_hash[..10.min(t.transaction_hash.len())],
        );
    }

    // 6. What RTDS saw meanwhile: BTC reference prices and the fill as `orders_matched`.
    let (mut prices, mut matched) = (0, 0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while prices < 2 || matched < 1 {
        let Ok(Some(event)) = tokio::time::timeout_at(deadline, rtds.next()).await else {
            break;
        };
        let FeedEvent::Message(m) = event else {
            continue;
        };
        match m.message()?.payload {
            Payload::Price(p) => {
                prices += 1;
                println!(
                    "rtds:     {} {} at {:?} ms",
                    p.symbol, p.price, p.timestamp_ms
                );
            }
            Payload::Trade(t) if t.asset == token => {
                matched += 1;
                println!(
                    "rtds:     orders_matched {:?} {} @ {}",
                    t.side, t.size, t.price
                );
            }
            _ => {}
        }
    }
    if trades.is_empty() || metadata != 0 || prices == 0 || matched == 0 {
        return Err(
            "the fill did not show up (Data API or RTDS), no RTDS price arrived, or trading \
             needed metadata requests"
                .into(),
        );
    }
    Ok(())
}
