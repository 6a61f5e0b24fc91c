//! Streaming order books over the market WebSocket channel.
//!
//! `cargo run --release --example stream_books` streams two books from the embedded
//! simulator for two seconds (its simulated traders keep the books moving).
//! For the real exchange, leave out `.url(..)`: the default is Polymarket's market channel.

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::book::Outcome;
use polyclob::types::Side;
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent;
use polyclob::ws::market::{MarketEvent, MarketStream};
use polyclob_sim::Simulator;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `activity` makes seeded simulated traders rest, cancel and take orders every 20 ms.
    let sim = Simulator::builder()
        .seed(3)
        .activity(Some(Duration::from_millis(20)))
        .start()
        .await?;
    // Two token ids ("asset ids") from the simulator's markets.
    let assets: Vec<String> = sim
        .markets()
        .iter()
        .take(2)
        .map(|m| m.tokens()[0].token_id().to_owned())
        .collect();

    // The stream connects lazily, subscribes, pings, and reconnects with backoff. Large
    // asset lists are split over several connections (`assets_per_connection`). It keeps a
    // `BookManager` up to date: `book` snapshots replace a book, `price_change` deltas edit
    // levels. After a disconnect the affected books ignore deltas until a fresh snapshot
    // arrives, and `book()` shows only live books, so a stale book is never read as current.
    let mut books = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets(assets.iter().cloned())
        .build()?;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    let mut applied = 0u32;
    while let Ok(Some(event)) = tokio::time::timeout_at(deadline, books.next()).await {
        match event {
            // Each element of a frame, already applied to `books.state()`.
            // (`event.event()` gives the typed view: book, price_change, last_trade_price…)
            FeedEvent::Message(MarketEvent::Update {
                outcome: Outcome::Applied,
                ..
            }) => {
                applied += 1;
                if applied % 25 == 1 {
                    let id = &assets[(applied as usize / 25) % assets.len()];
                    if let Some(book) = books.state().book(id) {
                        // Prices are exact fixed-point `Price`s; `None` = empty side.
                        let px = |p: Option<polyclob::fixed::Price>| {
                            p.map_or_else(|| "-".to_owned(), |p| p.to_string())
                        };
                        println!(
                            "{}…  bid {}  ask {}  mid {}",
                            &id[..8],
                            px(book.best_bid().map(|l| l.price)),
                            px(book.best_ask().map(|l| l.price)),
                            px(book.mid()),
                        );
                    }
                }
            }
            FeedEvent::Status(Status::Connected { .. }) => println!("connected"),
            FeedEvent::Status(s) => println!("status: {s:?}"),
            // Malformed elements are reported, never a panic; the rest of the frame applies.
            FeedEvent::Invalid { error, .. } => println!("invalid element: {error}"),
            _ => {}
        }
    }

    // Read the books at any time between items: top three levels of each side.
    println!("{applied} book events applied; final books:");
    for id in &assets {
        let Some(book) = books.state().book(id) else {
            continue;
        };
        let side = |s| {
            book.depth(s, 3)
                .map(|l| format!("{}x{}", l.price, l.size))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "  {}…  bids [{}]  asks [{}]",
            &id[..8],
            side(Side::Buy),
            side(Side::Sell)
        );
    }
    Ok(())
}
