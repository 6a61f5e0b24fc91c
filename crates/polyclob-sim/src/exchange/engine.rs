//! The matching engine: one price-time-priority book per token, in fixed-point integers
//! (prices in 10⁻⁶ pUSD, sizes in 10⁻⁶ shares).
//!
//! The book only knows order sequence numbers and remaining sizes; who owns an order and
//! what it looks like on the wire is the exchange state's business (`state.rs`).

use std::collections::{BTreeMap, VecDeque};

use polyclob::types::Side;

/// A price level: FIFO queue of (order seq, remaining size) and the level total.
#[derive(Debug, Default, Clone)]
struct Level {
    total: u64,
    queue: VecDeque<(u64, u64)>,
}

/// A level whose total changed: the new total (0 = level gone). `side` is the side of the
/// resting orders (`Buy` = bids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LevelChange {
    pub(crate) side: Side,
    pub(crate) price: u32,
    pub(crate) size: u64,
}

/// One execution against a resting order, at the resting order's price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fill {
    pub(crate) maker_seq: u64,
    pub(crate) price: u32,
    pub(crate) size: u64,
    /// Whether the maker order is now fully filled (and gone from the book).
    pub(crate) maker_done: bool,
}

/// A limit order book for one token.
#[derive(Debug, Default, Clone)]
pub(crate) struct Book {
    bids: BTreeMap<u32, Level>,
    asks: BTreeMap<u32, Level>,
}

impl Book {
    pub(crate) fn best_bid(&self) -> Option<u32> {
        self.bids.keys().next_back().copied()
    }

    pub(crate) fn best_ask(&self) -> Option<u32> {
        self.asks.keys().next().copied()
    }

    /// Whether an order on `side` at `limit` would execute against the book now.
    pub(crate) fn crosses(&self, side: Side, limit: u32) -> bool {
        match side {
            Side::Buy => self.best_ask().is_some_and(|a| a <= limit),
            Side::Sell => self.best_bid().is_some_and(|b| b >= limit),
        }
    }

    /// Resting size an order on `side` at `limit` could take right now.
    pub(crate) fn available(&self, side: Side, limit: u32) -> u64 {
        match side {
            Side::Buy => self
                .asks
                .range(..=limit)
                .map(|(_, l)| l.total)
                .fold(0, u64::saturating_add),
            Side::Sell => self
                .bids
                .range(limit..)
                .map(|(_, l)| l.total)
                .fold(0, u64::saturating_add),
        }
    }

    /// Executes up to `qty` of an incoming order on `side` limited at `limit`, best price first
    /// and oldest first within a price. Returns the fills and appends the level changes.
    pub(crate) fn take(
        &mut self,
        side: Side,
        limit: u32,
        mut qty: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Vec<Fill> {
        let mut fills = Vec::new();
        let (book, resting_side) = match side {
            Side::Buy => (&mut self.asks, Side::Sell),
            Side::Sell => (&mut self.bids, Side::Buy),
        };
        while qty > 0 {
            let best = match side {
                Side::Buy => book.keys().next().copied().filter(|p| *p <= limit),
                Side::Sell => book.keys().next_back().copied().filter(|p| *p >= limit),
            };
            let Some(price) = best else { break };
            let Some(level) = book.get_mut(&price) else {
                break;
            };
            while qty > 0 {
                let Some(front) = level.queue.front_mut() else {
                    break;
                };
                let size = qty.min(front.1);
                front.1 -= size;
                level.total -= size;
                qty -= size;
                let maker_done = front.1 == 0;
                fills.push(Fill {
                    maker_seq: front.0,
                    price,
                    size,
                    maker_done,
                });
                if maker_done {
                    level.queue.pop_front();
                }
            }
            changes.push(LevelChange {
                side: resting_side,
                price,
                size: level.total,
            });
            if level.queue.is_empty() {
                book.remove(&price);
            }
        }
        fills
    }

    /// Rests `qty` of order `seq` at the back of its price level.
    pub(crate) fn insert(
        &mut self,
        side: Side,
        price: u32,
        seq: u64,
        qty: u64,
        changes: &mut Vec<LevelChange>,
    ) {
        let book = match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        };
        let level = book.entry(price).or_default();
        level.queue.push_back((seq, qty));
        level.total = level.total.saturating_add(qty);
        changes.push(LevelChange {
            side,
            price,
            size: level.total,
        });
    }

    /// Removes resting order `seq`; returns its remaining size if it was there.
    pub(crate) fn remove(
        &mut self,
        side: Side,
        price: u32,
        seq: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Option<u64> {
        let book = match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        };
        let level = book.get_mut(&price)?;
        let pos = level.queue.iter().position(|(s, _)| *s == seq)?;
        let (_, rem) = level.queue.remove(pos)?;
        level.total -= rem;
        changes.push(LevelChange {
            side,
            price,
            size: level.total,
        });
        if level.queue.is_empty() {
            book.remove(&price);
        }
        Some(rem)
    }

    /// The queue at one price level of resting orders on `side`, front first:
    /// (seq, remaining size).
    pub(crate) fn queue(&self, side: Side, price: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
        let book = match side {
            Side::Buy => &self.bids,
            Side::Sell => &self.asks,
        };
        book.get(&price)
            .into_iter()
            .flat_map(|l| l.queue.iter().copied())
    }

    /// The prices of every level on `side` (resting orders' side).
    pub(crate) fn prices(&self, side: Side) -> Vec<u32> {
        match side {
            Side::Buy => self.bids.keys().copied().collect(),
            Side::Sell => self.asks.keys().copied().collect(),
        }
    }

    /// Shrinks resting order `seq` by `by`, keeping its place in the queue (a partial cancel);
    /// an order shrunk to nothing leaves the book. Returns what is left of it.
    pub(crate) fn reduce(
        &mut self,
        side: Side,
        price: u32,
        seq: u64,
        by: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Option<u64> {
        let book = match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        };
        let level = book.get_mut(&price)?;
        let pos = level.queue.iter().position(|(s, _)| *s == seq)?;
        let cut = by.min(level.queue[pos].1);
        level.queue[pos].1 -= cut;
        level.total -= cut;
        let left = level.queue[pos].1;
        if left == 0 {
            level.queue.remove(pos);
        }
        changes.push(LevelChange {
            side,
            price,
            size: level.total,
        });
        if level.queue.is_empty() {
            book.remove(&price);
        }
        Some(left)
    }

    /// Bids worst-first (ascending price), as the REST `/book` delivers them.
    pub(crate) fn bids_worst_first(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.bids.iter().map(|(p, l)| (*p, l.total))
    }

    /// Asks worst-first (descending price), as the REST `/book` delivers them.
    pub(crate) fn asks_worst_first(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.asks.iter().rev().map(|(p, l)| (*p, l.total))
    }

    /// The sequence numbers of every resting order, bids then asks (not in seq order).
    pub(crate) fn resting_seqs(&self) -> impl Iterator<Item = u64> + '_ {
        self.bids
            .values()
            .chain(self.asks.values())
            .flat_map(|l| l.queue.iter().map(|(seq, _)| *seq))
    }

    /// Every resting (seq, side) pair, for bulk operations.
    #[cfg(test)]
    fn resting(&self) -> Vec<(u64, u64)> {
        self.bids
            .values()
            .chain(self.asks.values())
            .flat_map(|l| l.queue.iter().copied())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book_with(orders: &[(Side, u32, u64, u64)]) -> Book {
        let mut b = Book::default();
        let mut ch = Vec::new();
        for &(side, price, seq, qty) in orders {
            b.insert(side, price, seq, qty, &mut ch);
        }
        b
    }

    #[test]
    fn price_then_time_priority() {
        let mut b = book_with(&[
            (Side::Sell, 520_000, 1, 10),
            (Side::Sell, 510_000, 2, 5),
            (Side::Sell, 510_000, 3, 5),
            (Side::Sell, 530_000, 4, 100),
        ]);
        let mut ch = Vec::new();
        let fills = b.take(Side::Buy, 520_000, 12, &mut ch);
        let got: Vec<(u64, u32, u64)> = fills
            .iter()
            .map(|f| (f.maker_seq, f.price, f.size))
            .collect();
        assert_eq!(got, vec![(2, 510_000, 5), (3, 510_000, 5), (1, 520_000, 2)]);
        assert_eq!(b.best_ask(), Some(520_000));
        assert_eq!(b.available(Side::Buy, 520_000), 8);
        assert_eq!(
            ch,
            vec![
                LevelChange {
                    side: Side::Sell,
                    price: 510_000,
                    size: 0
                },
                LevelChange {
                    side: Side::Sell,
                    price: 520_000,
                    size: 8
                }
            ]
        );
    }

    #[test]
    fn limit_stops_the_walk() {
        let mut b = book_with(&[(Side::Buy, 480_000, 1, 10), (Side::Buy, 470_000, 2, 10)]);
        let mut ch = Vec::new();
        let fills = b.take(Side::Sell, 475_000, 100, &mut ch);
        assert_eq!(fills.len(), 1);
        assert_eq!(fills[0].size, 10);
        assert!(fills[0].maker_done);
        assert_eq!(b.best_bid(), Some(470_000));
        assert!(!b.crosses(Side::Sell, 475_000));
        assert!(b.crosses(Side::Sell, 470_000));
    }

    #[test]
    fn remove_and_worst_first_order() {
        let mut b = book_with(&[
            (Side::Buy, 400_000, 1, 3),
            (Side::Buy, 450_000, 2, 4),
            (Side::Sell, 600_000, 3, 5),
            (Side::Sell, 550_000, 4, 6),
        ]);
        let mut ch = Vec::new();
        assert_eq!(b.remove(Side::Buy, 450_000, 2, &mut ch), Some(4));
        assert_eq!(b.remove(Side::Buy, 450_000, 2, &mut ch), None);
        b.insert(Side::Buy, 420_000, 5, 7, &mut ch);
        let bids: Vec<_> = b.bids_worst_first().collect();
        let asks: Vec<_> = b.asks_worst_first().collect();
        assert_eq!(bids, vec![(400_000, 3), (420_000, 7)]);
        assert_eq!(asks, vec![(600_000, 5), (550_000, 6)]);
    }

    /// Naive oracle: a list of resting orders sorted by (price priority, arrival).
    #[test]
    fn matches_naive_oracle_on_random_flow() {
        let mut rng = crate::exchange::rng::Rng::new(5, 5);
        let mut b = Book::default();
        // oracle: (side, price, seq, remaining)
        let mut oracle: Vec<(Side, u32, u64, u64)> = Vec::new();
        for seq in 1..2000u64 {
            let side = if rng.below(2) == 0 {
                Side::Buy
            } else {
                Side::Sell
            };
            let price = (40 + rng.below(21) as u32) * 10_000;
            let qty = 1 + rng.below(50);
            let mut ch = Vec::new();
            let fills = b.take(side, price, qty, &mut ch);
            // Oracle matching.
            let mut want = Vec::new();
            let mut left = qty;
            loop {
                if left == 0 {
                    break;
                }
                let best = oracle
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| {
                        o.0 != side
                            && if side == Side::Buy {
                                o.1 <= price
                            } else {
                                o.1 >= price
                            }
                    })
                    .min_by_key(|(_, o)| {
                        (
                            if side == Side::Buy {
                                o.1
                            } else {
                                u32::MAX - o.1
                            },
                            o.2,
                        )
                    })
                    .map(|(i, _)| i);
                let Some(i) = best else { break };
                let f = left.min(oracle[i].3);
                oracle[i].3 -= f;
                left -= f;
                want.push((oracle[i].2, oracle[i].1, f));
                if oracle[i].3 == 0 {
                    oracle.remove(i);
                }
            }
            let got: Vec<_> = fills
                .iter()
                .map(|f| (f.maker_seq, f.price, f.size))
                .collect();
            assert_eq!(got, want, "seq {seq}");
            if left > 0 {
                b.insert(side, price, seq, left, &mut ch);
                oracle.push((side, price, seq, left));
            }
            // Occasionally cancel.
            if rng.below(5) == 0 && !oracle.is_empty() {
                let i = rng.below(oracle.len() as u64) as usize;
                let o = oracle.remove(i);
                assert_eq!(b.remove(o.0, o.1, o.2, &mut ch), Some(o.3));
            }
            assert!(
                b.best_bid()
                    .zip(b.best_ask())
                    .is_none_or(|(bid, ask)| bid < ask)
            );
        }
        let mut rest = b.resting();
        rest.sort_unstable();
        let mut want: Vec<_> = oracle.iter().map(|o| (o.2, o.3)).collect();
        want.sort_unstable();
        assert_eq!(rest, want);
    }
}
