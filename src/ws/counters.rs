//! What a stream has done since it was built: relaxed atomic counters shared by its shards,
//! read as one plain [`StreamCounters`] snapshot.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A snapshot of one stream's counters (all its connections) since it was built, for a bot to
/// export to its own metrics system.
///
/// Each field counts from zero and only grows. Reading one is a handful of relaxed atomic
/// loads; the shards pay one relaxed add per frame.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = polyclob_sim::Simulator::builder().start().await?;
/// # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
/// use futures_util::StreamExt;
/// use polyclob::ws::market::MarketStream;
///
/// let mut stream = MarketStream::builder().url(sim.market_ws_url()).assets([token]).build()?;
/// while stream.counters().frames == 0 {
///     stream.next().await.ok_or("closed")?;
/// }
/// let c = stream.counters();
/// assert!(c.connects == 1 && c.bytes > 0);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamCounters {
    /// Connections established (the first of each shard and every reconnect).
    pub connects: u64,
    /// Of those, reconnects.
    pub reconnects: u64,
    /// Connections that ended or failed to open, each one
    /// [`Break`](super::continuity::Break). A loss inside a connection (a PolyBolt sequence gap
    /// or `dropped`, a hash mismatch) counts once, as the reconnect it causes.
    pub breaks: u64,
    /// Frames lost to consumer lag.
    pub lagged: u64,
    /// Data frames received (keepalive answers excluded).
    pub frames: u64,
    /// Payload bytes of those frames.
    pub bytes: u64,
    /// Frames or elements that did not decode.
    pub decode_errors: u64,
    /// `book` snapshots whose hash did not verify although they carry every member it covers
    /// (book streams): the snapshot or its metadata is wrong.
    pub hash_mismatches: u64,
    /// `book` snapshots the client could not verify (book streams): they omit a member the
    /// exchange hashes with the market's current value, which this client cannot know
    /// exactly ([`HashStatus::Unverifiable`](crate::book::HashStatus::Unverifiable)). Not
    /// mismatches.
    pub hash_unverifiable: u64,
    /// Messages a conflating feed folded into a later one of their key (their state was
    /// applied; see [`FeedBuilder::conflate`](super::feed::FeedBuilder::conflate)).
    pub conflated: u64,
}

/// The cells behind [`StreamCounters`]; one per stream, in its shared configuration.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) connects: AtomicU64,
    pub(crate) reconnects: AtomicU64,
    pub(crate) breaks: AtomicU64,
    pub(crate) lagged: AtomicU64,
    pub(crate) frames: AtomicU64,
    pub(crate) bytes: AtomicU64,
    pub(crate) decode_errors: AtomicU64,
    pub(crate) hash_mismatches: AtomicU64,
    pub(crate) hash_unverifiable: AtomicU64,
    pub(crate) conflated: AtomicU64,
}

impl Counters {
    /// Adds `n` to `cell`.
    pub(crate) fn add(cell: &AtomicU64, n: u64) {
        cell.fetch_add(n, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> StreamCounters {
        StreamCounters {
            connects: self.connects.load(Relaxed),
            reconnects: self.reconnects.load(Relaxed),
            breaks: self.breaks.load(Relaxed),
            lagged: self.lagged.load(Relaxed),
            frames: self.frames.load(Relaxed),
            bytes: self.bytes.load(Relaxed),
            decode_errors: self.decode_errors.load(Relaxed),
            hash_mismatches: self.hash_mismatches.load(Relaxed),
            hash_unverifiable: self.hash_unverifiable.load(Relaxed),
            conflated: self.conflated.load(Relaxed),
        }
    }
}
