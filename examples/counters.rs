//! Counters a bot can export: one snapshot per client and per stream, printed every second
//! while a client polls books and a book stream follows a busy market; the simulator drops
//! the stream's connection once, so the reconnect shows up.
//!
//! Runs offline against the embedded simulator:
//! `cargo run --release --example counters` (`-- --secs N` for longer than 3 s).
//! Against the real exchange, drop the simulator and the `.host(..)`/`.url(..)` calls. Each
//! snapshot is a few relaxed atomic loads: cheap enough to read on every metrics scrape.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::clob::ClientBuilder;
use polyclob::ws::market::MarketStream;
use polyclob_sim::Simulator;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secs: u64 = match std::env::args().skip_while(|a| a != "--secs").nth(1) {
        Some(s) => s.parse().map_err(|_| "--secs takes whole seconds")?,
        None => 3,
    };
    // A simulated crowd trades every 20 ms, so the book stream has deltas to count.
    let sim = Simulator::builder()
        .seed(3)
        .activity(Some(Duration::from_millis(20)))
        .start()
        .await?;
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();
    let client = ClientBuilder::new().host(sim.http_url()).build()?;
    let mut books = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([token.clone()])
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
        .build()?;

    let start = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    let mut poll = tokio::time::interval(Duration::from_millis(100));
    let mut dropped = false;
    loop {
        tokio::select! {
            ev = books.next() => { ev.ok_or("the stream ended")?; }
            _ = poll.tick() => { client.book(&token).await?; }
            _ = tick.tick() => {
                let t = start.elapsed().as_secs();
                let c = client.counters();
                let s = books.counters();
                println!(
                    "t={t}s client: requests={} retries={} 429={} 4xx={} 5xx={} transport={} decode={} refused={} throttled={} ({:?}) heartbeat_failures={} presign_fallbacks={}",
                    c.requests, c.retries, c.rate_limited, c.status_4xx, c.status_5xx,
                    c.transport_errors, c.decode_errors, c.refused_locally, c.throttle_delays,
                    c.throttle_delay, c.heartbeat_failures, c.presign_fallbacks,
                );
                println!(
                    "t={t}s stream: connects={} reconnects={} breaks={} lagged={} frames={} bytes={} decode_errors={} hash_mismatches={} hash_unverifiable={}",
                    s.connects, s.reconnects, s.breaks, s.lagged, s.frames, s.bytes,
                    s.decode_errors, s.hash_mismatches, s.hash_unverifiable,
                );
                if !dropped {
                    // As a network failure would: the stream reconnects on its own.
                    sim.disconnect_ws();
                    dropped = true;
                }
                if t >= secs {
                    break;
                }
            }
        }
    }
    // What the run must have shown (so CI catches counters that stopped counting).
    let (c, s) = (client.counters(), books.counters());
    if c.requests == 0 || s.frames == 0 || s.bytes == 0 || s.reconnects == 0 {
        return Err(format!("counters did not move: {c:?} {s:?}").into());
    }
    Ok(())
}
