//! The state every connection shares: the exchange and the simulated market around it, the
//! fault rules, the trading rails, the drifts switched on and the settings the builder fixed.
//!
//! Locks are taken in one order: `activity`, then `ex`, then `seeded`, then `rails`; `faults`
//! is never held with another (the fault rules resolve market ids before they lock). Each is locked
//! through its method, which recovers a poisoned lock: a panic while one was held (a bug)
//! must not wedge every later request.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hyper::StatusCode;
use hyper::http::request::Parts;
use tokio::sync::watch;

use polyclob::http::Bucket;
use polyclob::types::Chain;

use super::http::{Resp, error_response};
use super::rails::{Arrival, Rails, stamped};
use crate::exchange::state::Exchange;
use crate::scenario::activity::Activity;
use crate::scenario::drift::Drifts;
use crate::scenario::faults::FaultState;
use crate::scenario::seeded::Seeded;

/// Requests kept in the log; the older half is dropped when it fills.
const MAX_LOGGED_REQUESTS: usize = 1 << 16;

/// State shared by every connection (lock the `Mutex` fields with the methods below).
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) ex: Mutex<Exchange>,
    /// The crowd, price paths and replayed feed (`scenario/activity.rs`).
    pub(crate) activity: Mutex<Activity>,
    pub(crate) faults: Mutex<FaultState>,
    pub(crate) chain: Chain,
    pub(crate) verify: bool,
    pub(crate) clob_version: u64,
    pub(crate) page_size: usize,
    /// Bumped to drop every open WS connection.
    pub(crate) kick: watch::Sender<u64>,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Interval of simulated market activity, `None` = off.
    pub(crate) activity_interval: watch::Sender<Option<Duration>>,
    /// `"METHOD /path"` of recent HTTP requests, oldest first (`SimHandle::requests`).
    pub(crate) requests: Mutex<Vec<String>>,
    /// Interval of the RTDS synthetic price ticks (and of PolyBolt's and the sports socket's).
    pub(crate) rtds_interval: Duration,
    /// The sports socket pings with the text `ping` (the docs) instead of ping frames (live).
    pub(crate) sports_text_ping: bool,
    /// Rate limits, post-only windows, closed-only accounts.
    pub(crate) rails: Mutex<Rails>,
    /// Departures from the exchange's behaviour switched on (`Drift`).
    pub(crate) drift: Drifts,
    /// Combos, comments and resolution times seeded through the handle.
    pub(crate) seeded: Mutex<Seeded>,
}

/// Locks `m`, recovering it if a panic poisoned it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Locks the exchange.
    pub(crate) fn ex(&self) -> MutexGuard<'_, Exchange> {
        lock(&self.ex)
    }

    /// Locks the simulated market; before [`ex`](Self::ex), never after it.
    pub(crate) fn activity(&self) -> MutexGuard<'_, Activity> {
        lock(&self.activity)
    }

    /// Locks the seeded scenario data; after [`ex`](Self::ex), before `rails`.
    pub(crate) fn seeded(&self) -> MutexGuard<'_, Seeded> {
        lock(&self.seeded)
    }

    pub(crate) fn rails(&self) -> MutexGuard<'_, Rails> {
        lock(&self.rails)
    }

    pub(crate) fn faults(&self) -> MutexGuard<'_, FaultState> {
        lock(&self.faults)
    }

    /// The request log.
    pub(crate) fn requests(&self) -> MutexGuard<'_, Vec<String>> {
        lock(&self.requests)
    }

    /// Logs `"METHOD /path"` of a request.
    pub(crate) fn log_request(&self, method: &hyper::Method, path: &str) {
        let mut log = self.requests();
        if log.len() >= MAX_LOGGED_REQUESTS {
            log.drain(..MAX_LOGGED_REQUESTS / 2);
        }
        log.push(format!("{method} {path}"));
    }

    /// Meters a trading request of `address` at its [`Arrival`] (now, for a request the
    /// server did not stamp): `f` runs only when the bucket admits `cost`, and its answer
    /// carries the rate-limit headers.
    pub(crate) fn metered(
        &self,
        parts: &Parts,
        address: &str,
        bucket: Bucket,
        cost: u32,
        f: impl FnOnce() -> Resp,
    ) -> Resp {
        let at = parts
            .extensions
            .get::<Arrival>()
            .map_or_else(Instant::now, |a| a.0);
        let admitted = self.rails().admit(address, bucket, cost, at);
        match admitted {
            Ok(a) => stamped(f(), a),
            Err(r) => *r,
        }
    }

    /// The order-side rails after parsing: a post-only window refuses orders that are not
    /// post-only (a batch whole); a closed-only account may not buy. `Some` is the refusal.
    pub(crate) fn order_gate(
        &self,
        address: &str,
        all_post_only: bool,
        any_buy: bool,
    ) -> Option<Resp> {
        let mut rails = self.rails();
        if let Some(left) = rails.post_only_left() {
            if !all_post_only {
                return Some(rails.post_only_refusal(left));
            }
        }
        if any_buy && rails.is_closed_only(address) {
            return Some(error_response(
                StatusCode::BAD_REQUEST,
                "address is in closed-only mode: orders that open positions are not accepted",
            ));
        }
        None
    }
}
