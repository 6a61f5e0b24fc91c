//! Read-only market data over REST: markets, a book, prices and market parameters.
//!
//! Runs offline against the embedded simulator:
//! `cargo run --release --example market_data`.
//! Against the real exchange, drop the simulator and build the client with
//! `ClientBuilder::new().build()?` (its default host is `https://clob.polymarket.com`).
//! No key or credentials are needed for any of these calls.

use std::time::Duration;

use polyclob::clob::{ClientBuilder, MarketList};
use polyclob::types::Side;
use polyclob_sim::Simulator;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A local exchange on 127.0.0.1 with the crate's fixture markets; stopped when dropped.
    let sim = Simulator::builder().seed(1).start().await?;

    // One client per process: it pools connections (HTTP/2 where offered), retries idempotent
    // GETs with backoff, and caches tick sizes, neg-risk flags and the exchange version.
    let client = ClientBuilder::new()
        .host(sim.http_url())
        .timeout(Duration::from_secs(5))
        .build()?;

    // Health and the exchange version (V2 today) that orders must be signed for.
    println!("server time {} s", client.server_time().await?);
    println!("exchange    {:?}", client.exchange_version().await?);

    // Markets come in cursor pages; `None` asks for the first one. Rows the decoder could not
    // read are reported in `page.skipped` instead of failing the whole page.
    let page = client.markets(MarketList::All, None).await?;
    println!(
        "markets     {} on this page, next cursor {:?}",
        page.data.len(),
        page.next_cursor
    );
    for m in &page.data {
        println!(
            "  {}…  neg_risk={} tick={:?} tokens={}",
            &m.condition_id[..10],
            m.neg_risk,
            m.minimum_tick_size,
            m.tokens.len()
        );
    }

    // Pick the first token of the first market that has an order book.
    let token = page
        .data
        .iter()
        .filter(|m| m.enable_order_book)
        .find_map(|m| m.tokens.first())
        .ok_or("no market with an order book")?
        .token_id
        .to_string();

    // The full book. Levels arrive as the exchange sends them: worst first, so the best bid
    // and the best ask are the LAST entries of each list.
    let book = client.book(&token).await?;
    let best_bid = book.bids.last();
    let best_ask = book.asks.last();
    println!(
        "book        {} bid levels, {} ask levels; best bid {:?}, best ask {:?}",
        book.bids.len(),
        book.asks.len(),
        best_bid.map(|l| (l.price.to_string(), l.size.to_string())),
        best_ask.map(|l| (l.price.to_string(), l.size.to_string())),
    );

    // Prices are exact fixed-point values (`Price`, micro-units), never floats.
    println!("midpoint    {}", client.midpoint(&token).await?);
    println!("spread      {}", client.spread(&token).await?);
    // `price(token, side)` is the best price on that side of the book: BUY = best bid.
    println!("BUY side    {}", client.price(&token, Side::Buy).await?);
    println!("SELL side   {}", client.price(&token, Side::Sell).await?);

    // Market parameters used when building orders. They are cached, so the second call is
    // answered without a request.
    println!("tick size   {}", client.tick_size(&token).await?.as_str());
    println!("neg risk    {}", client.neg_risk(&token).await?);
    println!("cached tick {:?}", client.cached_tick_size(&token));
    Ok(())
}
