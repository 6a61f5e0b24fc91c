//! What a client's transport has done since it was built: relaxed atomic counters, one add per
//! request attempt, read as one plain [`ClientCounters`] snapshot.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use super::error::Error;

/// A snapshot of one client's counters since it was built (shared by its clones), for a bot
/// to export to its own metrics system.
///
/// Each field counts from zero and only grows; subtract two snapshots for a rate. Reading one
/// is a handful of relaxed atomic loads.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sim = polyclob_sim::Simulator::builder().start().await?;
/// let client = polyclob::clob::Client::builder().host(sim.http_url()).build()?;
/// client.server_time().await?;
/// let c = client.counters();
/// assert_eq!((c.requests, c.status_5xx), (1, 0));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientCounters {
    /// Request attempts sent (each retry is one more).
    pub requests: u64,
    /// Retries (attempts after the first of a request).
    pub retries: u64,
    /// Attempts that failed in transport: connect, timeout, reset, body read.
    pub transport_errors: u64,
    /// `429 Too Many Requests` answers.
    pub rate_limited: u64,
    /// Other 4xx answers.
    pub status_4xx: u64,
    /// 5xx answers (and any other non-2xx status).
    pub status_5xx: u64,
    /// 2xx answers whose body did not decode.
    pub decode_errors: u64,
    /// Rows left out of answers because they did not decode, each returned to the caller
    /// as a [`SkippedRow`](super::SkippedRow) beside the rows that did (one per row, per
    /// page as it was read).
    pub skipped_rows: u64,
    /// Requests refused before anything was sent: the governor, a restriction window, the
    /// heartbeat guard, an open circuit breaker.
    pub refused_locally: u64,
    /// Attempts the client-side rate limits (the governor, the per-IP pacers) delayed.
    pub throttle_delays: u64,
    /// The total time of those delays.
    pub throttle_delay: Duration,
    /// Heartbeats that failed (CLOB only).
    pub heartbeat_failures: u64,
    /// Orders signed with an RFC 6979 nonce because the signer's precomputed nonce pool was
    /// empty (feature `presign`; 0 without a pool).
    pub presign_fallbacks: u64,
}

/// The transport's share of [`ClientCounters`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    requests: AtomicU64,
    retries: AtomicU64,
    transport_errors: AtomicU64,
    rate_limited: AtomicU64,
    status_4xx: AtomicU64,
    status_5xx: AtomicU64,
    decode_errors: AtomicU64,
    skipped_rows: AtomicU64,
    refused_locally: AtomicU64,
    paced: AtomicU64,
    paced_ns: AtomicU64,
}

impl Counters {
    /// One attempt went out and ended with `result`.
    pub(crate) fn attempt(&self, result: &Result<bytes::Bytes, Error>) {
        self.requests.fetch_add(1, Relaxed);
        if let Err(e) = result {
            let cell = match e.status() {
                Some(429) => &self.rate_limited,
                Some(s) if (400..500).contains(&s) => &self.status_4xx,
                Some(_) => &self.status_5xx,
                None if e.is_decode() => &self.decode_errors,
                None => &self.transport_errors,
            };
            cell.fetch_add(1, Relaxed);
        }
    }

    pub(crate) fn retry(&self) {
        self.retries.fetch_add(1, Relaxed);
    }

    /// An attempt the per-IP pacers held for `wait`.
    pub(crate) fn paced(&self, wait: Duration) {
        self.paced.fetch_add(1, Relaxed);
        let ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
        self.paced_ns.fetch_add(ns, Relaxed);
    }

    pub(crate) fn refused(&self) {
        self.refused_locally.fetch_add(1, Relaxed);
    }

    /// A 2xx body that did not decode (counted where it is decoded).
    pub(crate) fn decode_error(&self, e: &Error) {
        if e.is_decode() {
            self.decode_errors.fetch_add(1, Relaxed);
        }
    }

    /// A row of an answer that did not decode (counted where the answer is read).
    pub(crate) fn skipped_row(&self) {
        self.skipped_rows.fetch_add(1, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> ClientCounters {
        ClientCounters {
            requests: self.requests.load(Relaxed),
            retries: self.retries.load(Relaxed),
            transport_errors: self.transport_errors.load(Relaxed),
            rate_limited: self.rate_limited.load(Relaxed),
            status_4xx: self.status_4xx.load(Relaxed),
            status_5xx: self.status_5xx.load(Relaxed),
            decode_errors: self.decode_errors.load(Relaxed),
            skipped_rows: self.skipped_rows.load(Relaxed),
            refused_locally: self.refused_locally.load(Relaxed),
            throttle_delays: self.paced.load(Relaxed),
            throttle_delay: Duration::from_nanos(self.paced_ns.load(Relaxed)),
            ..ClientCounters::default()
        }
    }
}
