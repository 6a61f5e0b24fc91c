//! Simulated market activity: what moves the books without a client. One activity step moves
//! every price path ([`Paths`]), applies the next frame of a replayed feed ([`ReplayState`]),
//! then lets the crowd act ([`CrowdState`]), or, without a crowd or a replay, the seed
//! liquidity's random action: rest near the top, cancel, or take.

use polyclob::types::{OrderType, Side};

use super::crowd::{Crowd, CrowdState};
use super::paths::Paths;
use super::replay::{Replay, ReplayState};
use crate::exchange::rng::Rng;
use crate::exchange::state::{Exchange, SEED_ADDRESS};

/// The simulated market around one exchange: the crowd, the price paths, the replayed feed.
/// Behind a lock of its own in the server's shared state, always taken before the
/// exchange's.
#[derive(Debug)]
pub(crate) struct Activity {
    pub(crate) crowd: CrowdState,
    pub(crate) paths: Paths,
    pub(crate) replay: ReplayState,
    /// Ids of the simulated traders' orders, and the seed liquidity's random choices.
    rng: Rng,
}

impl Activity {
    /// No crowd, no driven price, nothing to replay.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            crowd: CrowdState::default(),
            paths: Paths::default(),
            replay: ReplayState::default(),
            rng: Rng::new(seed, 3),
        }
    }

    /// Puts `crowd` to work and sets `replay` to be replayed.
    pub(crate) fn install(&mut self, ex: &mut Exchange, crowd: Crowd, replay: Replay) {
        self.crowd.install(ex, crowd);
        self.replay = ReplayState::new(replay);
    }

    /// One activity step: every price path, the next frame of a replayed feed, then the
    /// crowd (or, without one and without a replay, the default activity).
    pub(crate) fn step(&mut self, ex: &mut Exchange) {
        self.paths.step(ex);
        let replaying = self.replay_frame(ex);
        if self.crowd.is_empty() {
            if !replaying {
                self.random(ex);
            }
        } else {
            self.crowd.step(ex, &self.paths, &mut self.rng);
        }
    }

    /// Applies the next frame of the replayed feed; false when the feed is over.
    pub(crate) fn replay_frame(&mut self, ex: &mut Exchange) -> bool {
        self.replay.frame(ex, &mut self.rng)
    }

    /// One step of simulated third-party activity on a random token (seeded): rest a new
    /// order near the top of the book, cancel a resting one, or take liquidity at the best
    /// price. Keeps both sides of every book populated.
    fn random(&mut self, ex: &mut Exchange) {
        if ex.markets.is_empty() || ex.cancel_only {
            return;
        }
        let mi = self.rng.below(ex.markets.len() as u64) as usize;
        let ti = self.rng.below(2) as usize;
        let tick = ex.markets[mi].spec.tick.as_micros();
        let min = ex.markets[mi]
            .spec
            .min_order_size
            .as_micros()
            .max(1_000_000);
        let (bid, ask) = {
            let b = ex.markets[mi].book.view(ti);
            (b.best_bid(), b.best_ask())
        };
        let roll = self.rng.below(100);
        let side = if self.rng.below(2) == 0 {
            Side::Buy
        } else {
            Side::Sell
        };
        let size = min + self.rng.below(20) * 1_000_000;
        let empty_side = match side {
            Side::Buy => bid.is_none(),
            Side::Sell => ask.is_none(),
        };
        // The house rests about as often as it cancels or takes, so its orders pile up near the
        // top: past twice the seeded depth a rest becomes a cancel, which keeps a simulator
        // under activity for hours at a steady size.
        let cap = 8 * ex.markets[mi].spec.seed_levels as usize + 32;
        let crowded = ex.markets[mi].book.resting_seqs().nth(cap).is_some();
        if (roll < 50 && !crowded) || empty_side {
            // Rest within two ticks of the top, never crossing.
            let k = self.rng.below(3) as u32;
            let price = match (side, bid, ask) {
                (Side::Buy, Some(b), a) => (b + tick)
                    .saturating_sub(k * tick)
                    .min(a.map_or(u32::MAX, |a| a - tick)),
                (Side::Buy, None, Some(a)) => a.saturating_sub((k + 1) * tick),
                (Side::Sell, b, Some(a)) => (a + k * tick)
                    .saturating_sub(tick)
                    .max(b.map_or(0, |b| b + tick)),
                (Side::Sell, Some(b), None) => b + (k + 1) * tick,
                (_, None, None) => 500_000 / tick * tick,
            };
            ex.place_as(
                &mut self.rng,
                SEED_ADDRESS,
                mi,
                ti,
                side,
                price,
                size,
                OrderType::Gtc,
            );
        } else if roll < 75 || (crowded && roll < 50) {
            // The liquidity owner's live orders on this book, in seq order. Read from the
            // book (a few orders), not from the owner's live set (every book's orders: a
            // scan of it per step was most of the simulator's time with thousands of books).
            let live = ex.live_by_user.get(SEED_ADDRESS);
            let mut mine: Vec<u64> = ex.markets[mi]
                .book
                .resting_seqs()
                .filter(|s| live.is_some_and(|l| l.contains(s)))
                .collect();
            mine.sort_unstable();
            // Sorted by seq: the pick is deterministic.
            if !mine.is_empty() {
                let pick = mine[self.rng.below(mine.len() as u64) as usize];
                ex.cancel_seq(pick);
            }
        } else {
            let limit = match side {
                Side::Buy => ask,
                Side::Sell => bid,
            };
            if let Some(limit) = limit {
                ex.place_as(
                    &mut self.rng,
                    SEED_ADDRESS,
                    mi,
                    ti,
                    side,
                    limit,
                    size,
                    OrderType::Fak,
                );
            }
        }
        // A cancel or a take may have removed a side's last order: rest a new one at once, so
        // that both sides are populated after every step (not only after a later rest).
        self.replenish(ex, mi, ti, tick, min);
    }

    /// Rests an order of `size` one tick outside the other side on each side of the book
    /// that is empty.
    fn replenish(&mut self, ex: &mut Exchange, mi: usize, ti: usize, tick: u32, size: u64) {
        let mid = 500_000 / tick * tick;
        if ex.markets[mi].book.view(ti).best_bid().is_none() {
            let ask = ex.markets[mi].book.view(ti).best_ask();
            let price = ask.map_or(mid.saturating_sub(tick), |a| a.saturating_sub(tick));
            ex.place_as(
                &mut self.rng,
                SEED_ADDRESS,
                mi,
                ti,
                Side::Buy,
                price,
                size,
                OrderType::Gtc,
            );
        }
        if ex.markets[mi].book.view(ti).best_ask().is_none() {
            let bid = ex.markets[mi].book.view(ti).best_bid();
            let price = bid.map_or(mid + tick, |b| b + tick);
            ex.place_as(
                &mut self.rng,
                SEED_ADDRESS,
                mi,
                ti,
                Side::Sell,
                price,
                size,
                OrderType::Gtc,
            );
        }
    }

    /// Moves market `mi`'s book to `price` at once: the fair value becomes `price` (on the
    /// grid), a simulated trader takes every order priced through it (the first token's asks
    /// at or below, bids at or above; the second token's orders rest in the same book at the
    /// complement, and clients' orders are included, as an informed trader would), then the
    /// crowd's makers requote around it (or, without makers, one order of the minimum size
    /// rests a tick either side).
    pub(crate) fn move_book(&mut self, ex: &mut Exchange, mi: usize, price: u32) {
        if ex.cancel_only {
            return;
        }
        let tick = ex.markets[mi].spec.tick.as_micros();
        let p = self.paths.set_fair(ex, mi, price);
        let mover = self.crowd.mover();
        for side in [Side::Buy, Side::Sell] {
            let size = ex.markets[mi].book.view(0).available(side, p);
            if size > 0 {
                let whole = size.div_ceil(1_000_000) * 1_000_000;
                ex.place_as(&mut self.rng, &mover, mi, 0, side, p, whole, OrderType::Fak);
            }
        }
        if !self.crowd.requote_all(ex, &self.paths, &mut self.rng, mi) {
            let min = ex.markets[mi]
                .spec
                .min_order_size
                .as_micros()
                .div_ceil(1_000_000)
                .max(1)
                * 1_000_000;
            let (bid, ask) = (p.saturating_sub(tick), p + tick);
            for (side, at) in [(Side::Buy, bid), (Side::Sell, ask)] {
                ex.place_as(&mut self.rng, &mover, mi, 0, side, at, min, OrderType::Gtc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Activity;
    use crate::exchange::market::MarketSpec;
    use crate::exchange::orders::NewOrder;
    use crate::exchange::settlement::Settlement;
    use crate::exchange::state::{Exchange, StateConfig};
    use crate::exchange::trades::TradeLog;
    use polyclob::types::{OrderType, Side};

    fn exchange(house_cap: usize) -> Exchange {
        let (tx, _) = tokio::sync::broadcast::channel(16);
        let mut ex = Exchange::new(
            StateConfig {
                seed: 7,
                heartbeat_timeout: Duration::from_secs(10),
                chain: polyclob::types::Chain::Polygon,
                enforce_balances: true,
                taker_hold: Duration::ZERO,
                settlement: Settlement::immediate(),
            },
            MarketSpec::defaults(),
            tx,
        );
        ex.trades = TradeLog::with_house_cap(house_cap);
        ex
    }

    fn resting(ex: &Exchange) -> usize {
        ex.markets
            .iter()
            .map(|m| m.book.resting_seqs().count())
            .sum()
    }

    /// A simulator left under activity stays the same size: the house's resting orders, its
    /// finished orders and its own trades do not pile up, while a client's trade and the house
    /// order it traded with are kept.
    #[test]
    fn activity_runs_at_a_steady_size_and_keeps_client_trades() {
        let mut ex = exchange(500);
        let mut activity = Activity::new(7);
        for _ in 0..5_000 {
            activity.random(&mut ex);
        }
        // A funded client buys from the house's best ask.
        let client: alloy_primitives::Address = "0x00000000000000000000000000000000000c1e47"
            .parse()
            .unwrap();
        let ledger = ex.ledger_mut();
        ledger.mint_collateral(client, alloy_primitives::U256::from(10_000_000u64));
        ledger.set_approved(client, true);
        let token = ex.markets[0].spec.tokens[0].token_id().to_owned();
        let ask = ex.markets[0].book.view(0).best_ask().expect("an ask");
        let placed = ex
            .place(NewOrder {
                id: "0xc1".to_owned(),
                owner: "client-key".to_owned(),
                user: "0x00000000000000000000000000000000000c1e47".to_owned(),
                maker_address: "0x00000000000000000000000000000000000c1e47".to_owned(),
                token_id: token,
                side: Side::Buy,
                maker_amount: u64::from(ask) * 5,
                taker_amount: 5_000_000,
                order_type: OrderType::Fak,
                post_only: false,
                expiration: 0,
                builder: alloy_primitives::B256::ZERO,
                v1: false,
            })
            .expect("the client's order");
        let client_trade = placed.trade_ids[0].clone();
        let maker = ex
            .trades
            .since(0)
            .find(|t| t.id == client_trade)
            .map(|t| t.fills[0].maker_seq)
            .expect("the client's trade");
        let mut sizes = Vec::new();
        for _ in 0..4 {
            for _ in 0..10_000 {
                activity.random(&mut ex);
            }
            sizes.push((ex.orders.len(), ex.trades.len(), resting(&ex)));
        }
        let (orders, trades, rest) = sizes[3];
        assert!(trades <= 501, "trades kept: {sizes:?}");
        // Without retiring, every step leaves about 0.75 orders behind (30,000 here).
        assert!(orders < 3_000, "orders kept: {sizes:?}");
        assert!(
            orders <= sizes[0].0 + 300,
            "orders still growing: {sizes:?}"
        );
        let cap = ex
            .markets
            .iter()
            .map(|m| 2 * (8 * m.spec.seed_levels as usize + 33))
            .sum::<usize>();
        assert!(rest <= cap, "resting: {sizes:?}");
        assert!(ex.trades.since(0).any(|t| t.id == client_trade));
        assert!(ex.order("0xc1").is_some());
        assert!(
            ex.order_by_seq(maker).is_some(),
            "the client's maker is kept"
        );
        let client = "0x00000000000000000000000000000000000c1e47";
        assert_eq!(ex.user_trades(client).len(), 1);
    }

    /// What stepping the standard crowd on 1,000 generated markets costs the simulator, with
    /// one listener (so every frame is rendered): the README's "Scale" figures.
    #[test]
    #[ignore = "a measurement: cargo test --release -p polyclob-sim --lib crowd_steps -- --ignored --nocapture"]
    #[allow(clippy::print_stderr)] // the measurement is its output
    fn crowd_steps_on_a_thousand_markets() {
        use crate::scenario::crowd::Crowd;
        use crate::scenario::paths::{FairValue, PricePath};
        let (tx, mut rx) = tokio::sync::broadcast::channel(1 << 16);
        let mut ex = Exchange::new(
            StateConfig {
                seed: 3,
                heartbeat_timeout: std::time::Duration::from_secs(10),
                chain: polyclob::types::Chain::Polygon,
                enforce_balances: true,
                taker_hold: std::time::Duration::ZERO,
                settlement: Settlement::immediate(),
            },
            MarketSpec::generate(1_000),
            tx,
        );
        let mut activity = Activity::new(3);
        activity.install(&mut ex, Crowd::standard(3), Default::default());
        activity.paths.drive_reference(
            &ex,
            "btc",
            PricePath::random_walk(100_000_000_000, 40_000_000, 9).jumps(20_000, 500_000_000),
        );
        for mi in (0..1_000).step_by(50) {
            activity.paths.drive_market(
                &ex,
                mi,
                FairValue::reference("btc", 100_000_000_000, 20_000_000_000),
            );
        }
        let (steps, mut frames) = (2_000, 0u64);
        let t = std::time::Instant::now();
        for _ in 0..steps {
            activity.step(&mut ex);
            while rx.try_recv().is_ok() {
                frames += 1;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        assert!(frames > 100 * steps);
        eprintln!(
            "{steps} steps, {frames} frames in {secs:.2} s: {:.0} frames/s, {:.0} µs a step",
            frames as f64 / secs,
            secs * 1e6 / steps as f64
        );
    }
}
