//! How trades settle and taker orders are held: the exchange's clock-driven steps.
//!
//! A trade with a client in it is `MATCHED` when it matches and moves no balance then; it
//! becomes `MINED` after [`Settlement::mined_after`] and `CONFIRMED` after
//! [`Settlement::confirmed_after`] more, and only at `CONFIRMED` does the ledger move (all of
//! its fills or none: a trade any of whose fills cannot be covered is `FAILED` instead).
//! Injected faults make chosen trades go `RETRYING` before they confirm, or `RETRYING` then
//! `FAILED` — ghost fills that never move a balance. With both delays zero (the default) a
//! trade goes `MATCHED` then `CONFIRMED` at once, as before settlement was modelled.
//!
//! With [`SimBuilder::taker_hold`](super::SimBuilder::taker_hold), an order that would match
//! on arrival is answered `delayed` and matched only when the hold ends; meanwhile it reserves
//! its funds and a cancel is refused with the exchange's
//! `cannot cancel because the order is in pending/delayed status`.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::orders::Status;
use super::rng::Rng;
use super::state::Exchange;
use super::trigger::Trigger;

/// The exchange's refusal to cancel an order in the taker hold.
pub(crate) const CANCEL_DELAYED: &str =
    "cannot cancel because the order is in pending/delayed status";

/// How the simulator settles trades with a client in them: delays and injected failures.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use std::time::Duration;
/// use polyclob_sim::{Settlement, Simulator, Trigger};
///
/// let sim = Simulator::builder()
///     .settlement(
///         Settlement::immediate()
///             .mined_after(Duration::from_millis(50))
///             .confirmed_after(Duration::from_millis(100))
///             .fail(Trigger::EveryNth(3))   // every 3rd client trade is a ghost fill
///             .retry(Trigger::EveryNth(4)), // every 4th goes RETRYING, then confirms
///     )
///     .taker_hold(Duration::from_millis(250))
///     .start()
///     .await?;
/// # drop(sim);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    mined_after: Duration,
    confirmed_after: Duration,
    fail: Trigger,
    retry: Trigger,
}

impl Default for Settlement {
    fn default() -> Self {
        Self::immediate()
    }
}

impl Settlement {
    /// Every trade confirms at once (the default).
    #[must_use]
    pub fn immediate() -> Self {
        Self {
            mined_after: Duration::ZERO,
            confirmed_after: Duration::ZERO,
            fail: Trigger::Never,
            retry: Trigger::Never,
        }
    }

    /// Time from `MATCHED` to `MINED`. Default is zero.
    #[must_use]
    pub fn mined_after(mut self, delay: Duration) -> Self {
        self.mined_after = delay;
        self
    }

    /// Time from `MINED` to `CONFIRMED`. Default is zero.
    #[must_use]
    pub fn confirmed_after(mut self, delay: Duration) -> Self {
        self.confirmed_after = delay;
        self
    }

    /// Which client trades fail (counted over trades with a client in them, 1-based):
    /// `MATCHED` → `RETRYING` → `FAILED`, no balance moved. Default is never.
    #[must_use]
    pub fn fail(mut self, trigger: Trigger) -> Self {
        self.fail = trigger;
        self
    }

    /// Which client trades go `RETRYING` once before they confirm (a failure wins where both
    /// fire). Default is never.
    #[must_use]
    pub fn retry(mut self, trigger: Trigger) -> Self {
        self.retry = trigger;
        self
    }
}

/// A trade's next status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Mined,
    Retrying,
    /// Settle on the ledger: `CONFIRMED`, or `FAILED` when it cannot.
    Confirm,
    Failed,
}

/// The pending steps: trades to move on and held orders to release, by due time.
#[derive(Debug)]
pub(crate) struct Settling {
    config: Settlement,
    hold: Duration,
    /// Trade index → its remaining steps, earliest first.
    trades: BTreeMap<usize, VecDeque<(Instant, Step)>>,
    /// Held orders (seq) with their release time; one hold for all, so FIFO is time order.
    held: VecDeque<(Instant, u64)>,
    /// Client trades scheduled so far (what the triggers count).
    count: u64,
    rng: Rng,
    /// Woken when something new is due, so the sweeper need not poll.
    pub(crate) wake: Arc<Notify>,
}

impl Settling {
    pub(crate) fn new(config: Settlement, hold: Duration, seed: u64) -> Self {
        Self {
            config,
            hold,
            trades: BTreeMap::new(),
            held: VecDeque::new(),
            count: 0,
            rng: Rng::new(seed, 4),
            wake: Arc::new(Notify::new()),
        }
    }

    pub(crate) fn set(&mut self, config: Settlement) {
        self.config = config;
        self.count = 0;
    }

    pub(crate) fn hold(&self) -> Duration {
        self.hold
    }

    /// Whether trade `idx` has not settled yet (its parties' funds stay reserved).
    pub(crate) fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.trades.keys().copied()
    }

    /// Plans the steps of a client trade matched at `now`.
    fn schedule(&mut self, idx: usize, now: Instant) {
        self.count += 1;
        let c = &self.config;
        let fail = c.fail.fires(self.count, &mut self.rng);
        let retry = !fail && c.retry.fires(self.count, &mut self.rng);
        let (m, k) = (c.mined_after, c.confirmed_after);
        let steps: VecDeque<(Instant, Step)> = if fail {
            [(now + m, Step::Retrying), (now + m + k, Step::Failed)].into()
        } else if retry {
            [
                (now + m, Step::Retrying),
                (now + m + m, Step::Mined),
                (now + m + m + k, Step::Confirm),
            ]
            .into()
        } else if m.is_zero() && k.is_zero() {
            [(now, Step::Confirm)].into()
        } else {
            [(now + m, Step::Mined), (now + m + k, Step::Confirm)].into()
        };
        self.trades.insert(idx, steps);
        self.wake.notify_one();
    }

    fn next_due(&self) -> Option<Instant> {
        let trades = self.trades.values().filter_map(|s| s.front().map(|f| f.0));
        let held = self.held.front().map(|h| h.0);
        trades.chain(held).min()
    }
}

impl Exchange {
    /// Starts the settlement of trade `idx` (a trade with a client in it), matched `now`.
    pub(crate) fn schedule_settlement(&mut self, idx: usize) {
        self.settling.schedule(idx, Instant::now());
    }

    /// Holds order `seq` (already recorded as `Delayed`) for the taker hold.
    pub(crate) fn hold_order(&mut self, seq: u64) {
        let due = Instant::now() + self.settling.hold;
        self.settling.held.push_back((due, seq));
        self.settling.wake.notify_one();
    }

    /// When the next step is due, if any.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.settling.next_due()
    }

    /// Applies every step due by `now`: held orders are matched, trades move on.
    pub(crate) fn advance(&mut self, now: Instant) {
        while let Some(&(due, seq)) = self.settling.held.front() {
            if due > now {
                break;
            }
            self.settling.held.pop_front();
            if self
                .order_by_seq(seq)
                .is_some_and(|o| o.status == Status::Delayed)
            {
                self.execute(seq);
            }
        }
        loop {
            let due: Vec<(usize, Step)> = self
                .settling
                .trades
                .iter_mut()
                .filter_map(|(idx, steps)| match steps.front() {
                    Some(&(at, step)) if at <= now => {
                        steps.pop_front();
                        Some((*idx, step))
                    }
                    _ => None,
                })
                .collect();
            if due.is_empty() {
                break;
            }
            for (idx, step) in due {
                self.apply(idx, step);
            }
        }
        self.settling.trades.retain(|_, s| !s.is_empty());
    }

    fn apply(&mut self, idx: usize, step: Step) {
        let status = match step {
            Step::Mined => "MINED",
            Step::Retrying => "RETRYING",
            Step::Failed => "FAILED",
            Step::Confirm => {
                if self.trades.get(idx).is_none() {
                    return;
                }
                if self.settle_balances(idx) {
                    self.accrue_rebates(idx);
                    "CONFIRMED"
                } else {
                    "FAILED"
                }
            }
        };
        if let Some(t) = self.trades.get_mut(idx) {
            t.status = status;
        }
        if status == "FAILED" {
            self.settling.trades.remove(&idx);
        }
        self.publish_trade_events(idx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(config: Settlement, n: u64) -> Vec<Vec<Step>> {
        let mut s = Settling::new(config, Duration::ZERO, 1);
        let now = Instant::now();
        (0..n)
            .map(|i| {
                s.schedule(i as usize, now);
                s.trades[&(i as usize)].iter().map(|x| x.1).collect()
            })
            .collect()
    }

    #[test]
    fn plans_follow_the_triggers() {
        use Step::*;
        assert_eq!(plan(Settlement::immediate(), 1), [vec![Confirm]]);
        let c = Settlement::immediate()
            .mined_after(Duration::from_millis(1))
            .fail(Trigger::EveryNth(2))
            .retry(Trigger::EveryNth(3));
        assert_eq!(
            plan(c, 4),
            [
                vec![Mined, Confirm],
                vec![Retrying, Failed],
                vec![Retrying, Mined, Confirm],
                vec![Retrying, Failed],
            ]
        );
    }
}
