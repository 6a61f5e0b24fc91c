//! A bot that does REST work between market events without falling behind the feed.
//!
//! ```text
//! cargo run --release --example rest_between_events
//! ```
//!
//! A bot that awaits a REST call (a post, a cancel, a position check: 50 ms here) after every
//! item of a plain owned stream reads its items in arrival order: when the book moves faster
//! than the bot works, the items queue, and the bot decides on a book of seconds ago while the
//! exchange's has moved on (a post-only quote it thinks safe crosses and is refused). The
//! stream says so: a [`FeedEvent::Lag`] reports how long the oldest item had waited.
//!
//! With `.conflate(true)` the stream drains everything queued before each yield and keeps
//! only the latest message per key; the books in `state()` have every message applied. So the
//! bot works on the current book after every await, and `Lag` tells it when it was behind.
//!
//! The example runs both for three seconds against the simulator (its traders move the book
//! every 5 ms) and, after each item and the bot's 50 ms of work, compares the local best bid
//! and ask with the exchange's (`GET /book`). It fails unless the conflating bot stays within
//! a second of the socket and the plain one falls further behind. A run here (release):
//!
//! ```text
//!      plain: 82 items, worst lag 764.695312ms, top matched the exchange on 52 of 57 decisions
//! conflating: 57 items, worst lag 150.247525ms, top matched the exchange on 52 of 53 decisions
//! ```
//!
//! The plain bot's lag grows for as long as the book moves faster than it works.

use std::process::ExitCode;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::ClientBuilder;
use polyclob::fixed::Price;
use polyclob::ws::feed::FeedEvent;
use polyclob::ws::market::MarketStream;
use polyclob_sim::Simulator;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// What one run saw.
#[derive(Debug, Default)]
struct Run {
    items: u32,
    /// The longest wait a `Lag` reported.
    worst_lag: Duration,
    /// Decisions taken on a live book, and those whose top matched the exchange's.
    decisions: u32,
    matched: u32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Res<bool> {
    let sim = Simulator::builder()
        .seed(7)
        .activity(Some(Duration::from_millis(5)))
        .start()
        .await?;
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();
    let plain = bot(&sim, &token, false).await?;
    let conflating = bot(&sim, &token, true).await?;
    for (name, r) in [("plain", &plain), ("conflating", &conflating)] {
        println!(
            "{name:>10}: {} items, worst lag {:?}, top matched the exchange on {} of {} decisions",
            r.items, r.worst_lag, r.matched, r.decisions
        );
    }
    let ok = conflating.worst_lag < Duration::from_secs(1)
        && plain.worst_lag > conflating.worst_lag
        && conflating.decisions > 0;
    if !ok {
        eprintln!(
            "check failed: the conflating bot should stay current, the plain one fall behind"
        );
    }
    Ok(ok)
}

/// Three seconds of a bot that spends 50 ms on REST after every item.
async fn bot(sim: &polyclob_sim::SimHandle, token: &str, conflate: bool) -> Res<Run> {
    let rest = ClientBuilder::new().host(sim.http_url()).build()?;
    let mut market = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([token.to_owned()])
        .conflate(conflate)
        .build()?;
    let mut run = Run::default();
    let end = tokio::time::Instant::now() + Duration::from_secs(3);
    while let Ok(Some(item)) = tokio::time::timeout_at(end, market.next()).await {
        if tokio::time::Instant::now() >= end {
            break;
        }
        run.items += 1;
        match item {
            FeedEvent::Lag(lag) => run.worst_lag = run.worst_lag.max(lag.behind),
            FeedEvent::Break(b) => println!("{b}"),
            FeedEvent::Message(_) => {
                // The decision: taken on the live book only (`book` hides one that is not).
                let Some(local) = market
                    .state()
                    .book(token)
                    .map(|b| top(b.best_bid(), b.best_ask()))
                else {
                    continue;
                };
                // The bot's REST work: here, the exchange's own view of the book, and a pause
                // standing for the rest of a round trip to the real exchange.
                let remote = rest.book(token).await?;
                let best =
                    |levels: &[polyclob::clob::types::BookLevel]| levels.last().map(|l| l.price);
                let remote = (best(&remote.bids), best(&remote.asks));
                tokio::time::sleep(Duration::from_millis(50)).await;
                run.decisions += 1;
                run.matched += u32::from(local == remote);
            }
            _ => {}
        }
    }
    Ok(run)
}

fn top(
    bid: Option<polyclob::decode::Level>,
    ask: Option<polyclob::decode::Level>,
) -> (Option<Price>, Option<Price>) {
    (bid.map(|l| l.price), ask.map(|l| l.price))
}
