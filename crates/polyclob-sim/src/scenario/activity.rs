//! Simulated third-party trading: seeded random actions (rest near the top, cancel, take)
//! that keep books moving and trades printing without a second client.

use polyclob::types::{OrderType, Side};

use super::state::{Exchange, SEED_ADDRESS};

impl Exchange {
    /// One step of simulated third-party activity on a random token (seeded): rest a new
    /// order near the top of the book, cancel a resting one, or take liquidity at the best
    /// price. Keeps both sides of every book populated.
    pub(crate) fn random_activity(&mut self) {
        if self.markets.is_empty() || self.cancel_only {
            return;
        }
        let mi = self.activity_rng.below(self.markets.len() as u64) as usize;
        let ti = self.activity_rng.below(2) as usize;
        let tick = self.markets[mi].spec.tick.as_micros();
        let min = self.markets[mi]
            .spec
            .min_order_size
            .as_micros()
            .max(1_000_000);
        let (bid, ask) = {
            let b = &self.markets[mi].books[ti];
            (b.best_bid(), b.best_ask())
        };
        let roll = self.activity_rng.below(100);
        let side = if self.activity_rng.below(2) == 0 {
            Side::Buy
        } else {
            Side::Sell
        };
        let size = min + self.activity_rng.below(20) * 1_000_000;
        let empty_side = match side {
            Side::Buy => bid.is_none(),
            Side::Sell => ask.is_none(),
        };
        // The house rests about as often as it cancels or takes, so its orders pile up near the
        // top: past twice the seeded depth a rest becomes a cancel, which keeps a simulator
        // under activity for hours at a steady size.
        let cap = 8 * self.markets[mi].spec.seed_levels as usize + 32;
        let crowded = self.markets[mi].books[ti].resting_seqs().nth(cap).is_some();
        if (roll < 50 && !crowded) || empty_side {
            // Rest within two ticks of the top, never crossing.
            let k = self.activity_rng.below(3) as u32;
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
            self.place_as(SEED_ADDRESS, mi, ti, side, price, size, OrderType::Gtc);
        } else if roll < 75 || (crowded && roll < 50) {
            // The liquidity owner's live orders on this book, in seq order. Read from the
            // book (a few orders), not from the owner's live set (every book's orders: a
            // scan of it per step was most of the simulator's time with thousands of books).
            let live = self.live_by_user.get(SEED_ADDRESS);
            let mut mine: Vec<u64> = self.markets[mi].books[ti]
                .resting_seqs()
                .filter(|s| live.is_some_and(|l| l.contains(s)))
                .collect();
            mine.sort_unstable();
            // Sorted by seq: the pick is deterministic.
            if !mine.is_empty() {
                let pick = mine[self.activity_rng.below(mine.len() as u64) as usize];
                self.cancel_seq(pick);
            }
        } else {
            let limit = match side {
                Side::Buy => ask,
                Side::Sell => bid,
            };
            if let Some(limit) = limit {
                self.place_as(SEED_ADDRESS, mi, ti, side, limit, size, OrderType::Fak);
            }
        }
        // A cancel or a take may have removed a side's last order: rest a new one at once, so
        // that both sides are populated after every step (not only after a later rest).
        self.replenish(mi, ti, tick, min);
    }

    /// Rests an order of `size` one tick outside the other side on each side of the book
    /// that is empty.
    fn replenish(&mut self, mi: usize, ti: usize, tick: u32, size: u64) {
        let mid = 500_000 / tick * tick;
        if self.markets[mi].books[ti].best_bid().is_none() {
            let ask = self.markets[mi].books[ti].best_ask();
            let price = ask.map_or(mid.saturating_sub(tick), |a| a.saturating_sub(tick));
            self.place_as(SEED_ADDRESS, mi, ti, Side::Buy, price, size, OrderType::Gtc);
        }
        if self.markets[mi].books[ti].best_ask().is_none() {
            let bid = self.markets[mi].books[ti].best_bid();
            let price = bid.map_or(mid + tick, |b| b + tick);
            self.place_as(
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
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::market::MarketSpec;
    use crate::state::{Exchange, NewOrder, StateConfig};
    use crate::trades::TradeLog;
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
                settlement: crate::Settlement::immediate(),
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
            .flat_map(|m| m.books.iter())
            .map(|b| b.resting_seqs().count())
            .sum()
    }

    /// A simulator left under activity stays the same size: the house's resting orders, its
    /// finished orders and its own trades do not pile up, while a client's trade and the house
    /// order it traded with are kept.
    #[test]
    fn activity_runs_at_a_steady_size_and_keeps_client_trades() {
        let mut ex = exchange(500);
        for _ in 0..5_000 {
            ex.random_activity();
        }
        // A funded client buys from the house's best ask.
        let client: alloy_primitives::Address = "0x00000000000000000000000000000000000c1e47"
            .parse()
            .unwrap();
        let ledger = ex.ledger_mut();
        ledger.mint_collateral(client, alloy_primitives::U256::from(10_000_000u64));
        ledger.set_approved(client, true);
        let token = ex.markets[0].spec.tokens[0].token_id().to_owned();
        let ask = ex.markets[0].books[0].best_ask().expect("an ask");
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
                ex.random_activity();
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
}
