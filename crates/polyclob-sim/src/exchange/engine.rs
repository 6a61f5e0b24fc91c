//! The matching engine: one price-time-priority book per binary market, kept in the first
//! outcome's prices, in fixed-point integers (prices in 10⁻⁶ pUSD, sizes in 10⁻⁶ shares).
//!
//! Each token is a view of that book. An order on the first token rests as it is; an order on
//! the second rests on the other side at the complementary price: a BUY NO at `q` is an ask
//! of YES at `1 − q`, a SELL NO at `q` a bid of YES at `1 − q`. So the exchange contract's
//! three match types follow from one price-time walk: a BUY YES meets a SELL YES
//! (complementary) or a BUY NO whose price makes the two sum to 1 or more (a mint); a SELL YES
//! meets a BUY YES or a SELL NO whose price makes the two sum to 1 or less (a merge). The two
//! tokens' books are mirror images by construction. Orders of both tokens share one FIFO per
//! level (the venue's tie-break between them is not documented).
//!
//! The book only knows order sequence numbers, remaining sizes and tokens; who owns an order
//! and what it looks like on the wire is the exchange state's business (`state.rs`).

use std::collections::{BTreeMap, VecDeque};

use polyclob::fixed::Price;
use polyclob::types::Side;

const ONE: u32 = Price::SCALE;

/// A resting order: its sequence number, remaining size and token (0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    seq: u64,
    qty: u64,
    token: usize,
}

/// A price level: FIFO queue of resting orders and the level total.
#[derive(Debug, Default, Clone)]
struct Level {
    total: u64,
    queue: VecDeque<Entry>,
}

/// Where an order of `token` on `side` at `price` rests in the first outcome's prices.
fn first_outcome(token: usize, side: Side, price: u32) -> (Side, u32) {
    if token == 0 {
        (side, price)
    } else {
        (side.opposite(), ONE.saturating_sub(price))
    }
}

/// A level whose total changed: the new total (0 = level gone), in the first outcome's prices.
/// `side` is the side of the resting orders (`Buy` = bids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LevelChange {
    pub(crate) side: Side,
    pub(crate) price: u32,
    pub(crate) size: u64,
}

impl LevelChange {
    /// The change as token `token`'s book shows it: `(side, price)`.
    pub(crate) fn seen_by(self, token: usize) -> (Side, u32) {
        first_outcome(token, self.side, self.price)
    }
}

/// One execution against a resting order, at the resting order's own price (in its token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fill {
    pub(crate) maker_seq: u64,
    pub(crate) price: u32,
    pub(crate) size: u64,
    /// Whether the maker order is now fully filled (and gone from the book).
    pub(crate) maker_done: bool,
}

/// The limit order book of one binary market (see the module docs).
#[derive(Debug, Default, Clone)]
pub(crate) struct Book {
    bids: BTreeMap<u32, Level>,
    asks: BTreeMap<u32, Level>,
}

/// Token `token`'s view of a market's [`Book`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    book: &'a Book,
    token: usize,
}

impl View<'_> {
    fn flip(&self, p: u32) -> u32 {
        if self.token == 0 { p } else { ONE - p }
    }

    pub(crate) fn best_bid(&self) -> Option<u32> {
        match self.token {
            0 => self.book.bids.keys().next_back().copied(),
            _ => self.book.asks.keys().next().map(|p| ONE - p),
        }
    }

    pub(crate) fn best_ask(&self) -> Option<u32> {
        match self.token {
            0 => self.book.asks.keys().next().copied(),
            _ => self.book.bids.keys().next_back().map(|p| ONE - p),
        }
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
        let (side, limit) = first_outcome(self.token, side, limit);
        let levels: Box<dyn Iterator<Item = &Level>> = match side {
            Side::Buy => Box::new(self.book.asks.range(..=limit).map(|(_, l)| l)),
            Side::Sell => Box::new(self.book.bids.range(limit..).map(|(_, l)| l)),
        };
        levels.map(|l| l.total).fold(0, u64::saturating_add)
    }

    /// The levels of resting orders on `side` as this token shows them, worst first.
    fn levels(&self, side: Side) -> impl Iterator<Item = (u32, u64)> + '_ {
        let (yes_side, _) = first_outcome(self.token, side, 0);
        let map = match yes_side {
            Side::Buy => &self.book.bids,
            Side::Sell => &self.book.asks,
        };
        // The first outcome's bids are worst first ascending, its asks descending; the
        // second token's flip both the side and the order.
        let ascending = (side == Side::Buy) == (self.token == 0);
        let it: Box<dyn Iterator<Item = (&u32, &Level)>> = if ascending {
            Box::new(map.iter())
        } else {
            Box::new(map.iter().rev())
        };
        it.map(move |(p, l)| (self.flip(*p), l.total))
    }

    /// Bids worst-first (ascending price), as the REST `/book` delivers them.
    pub(crate) fn bids_worst_first(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.levels(Side::Buy)
    }

    /// Asks worst-first (descending price), as the REST `/book` delivers them.
    pub(crate) fn asks_worst_first(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.levels(Side::Sell)
    }

    /// The prices of every level of resting orders on `side`.
    pub(crate) fn prices(&self, side: Side) -> Vec<u32> {
        self.levels(side).map(|(p, _)| p).collect()
    }

    /// The queue at one level of resting orders on `side` at `price`, front first: (seq,
    /// remaining size), the orders of both tokens that rest there.
    pub(crate) fn queue(&self, side: Side, price: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
        let (side, price) = first_outcome(self.token, side, price);
        self.book
            .side(side)
            .get(&price)
            .into_iter()
            .flat_map(|l| l.queue.iter().map(|e| (e.seq, e.qty)))
    }
}

impl Book {
    /// Token `token`'s view.
    pub(crate) fn view(&self, token: usize) -> View<'_> {
        View { book: self, token }
    }

    fn side(&self, side: Side) -> &BTreeMap<u32, Level> {
        match side {
            Side::Buy => &self.bids,
            Side::Sell => &self.asks,
        }
    }

    fn side_mut(&mut self, side: Side) -> &mut BTreeMap<u32, Level> {
        match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        }
    }

    /// Executes up to `qty` of an incoming order of `token` on `side` limited at `limit`,
    /// best price first and oldest first within a price, against both tokens' resting orders.
    /// Returns the fills (each at its maker's own price) and appends the level changes.
    pub(crate) fn take(
        &mut self,
        token: usize,
        side: Side,
        limit: u32,
        mut qty: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Vec<Fill> {
        let (side, limit) = first_outcome(token, side, limit);
        let mut fills = Vec::new();
        let resting_side = side.opposite();
        let book = self.side_mut(resting_side);
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
                let size = qty.min(front.qty);
                front.qty -= size;
                level.total -= size;
                qty -= size;
                let maker_done = front.qty == 0;
                fills.push(Fill {
                    maker_seq: front.seq,
                    price: if front.token == 0 { price } else { ONE - price },
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

    /// Rests `qty` of order `seq` (of `token`, on `side` at `price`) at the back of its level.
    pub(crate) fn insert(
        &mut self,
        token: usize,
        side: Side,
        price: u32,
        seq: u64,
        qty: u64,
        changes: &mut Vec<LevelChange>,
    ) {
        let (side, price) = first_outcome(token, side, price);
        let level = self.side_mut(side).entry(price).or_default();
        level.queue.push_back(Entry { seq, qty, token });
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
        token: usize,
        side: Side,
        price: u32,
        seq: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Option<u64> {
        let (side, price) = first_outcome(token, side, price);
        let book = self.side_mut(side);
        let level = book.get_mut(&price)?;
        let pos = level.queue.iter().position(|e| e.seq == seq)?;
        let rem = level.queue.remove(pos)?.qty;
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

    /// Shrinks resting order `seq` by `by`, keeping its place in the queue (a partial cancel);
    /// an order shrunk to nothing leaves the book. Returns what is left of it.
    pub(crate) fn reduce(
        &mut self,
        token: usize,
        side: Side,
        price: u32,
        seq: u64,
        by: u64,
        changes: &mut Vec<LevelChange>,
    ) -> Option<u64> {
        let (side, price) = first_outcome(token, side, price);
        let book = self.side_mut(side);
        let level = book.get_mut(&price)?;
        let pos = level.queue.iter().position(|e| e.seq == seq)?;
        let cut = by.min(level.queue[pos].qty);
        level.queue[pos].qty -= cut;
        level.total -= cut;
        let left = level.queue[pos].qty;
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

    /// The sequence numbers of every resting order, both tokens', bids then asks (not in seq
    /// order).
    pub(crate) fn resting_seqs(&self) -> impl Iterator<Item = u64> + '_ {
        self.bids
            .values()
            .chain(self.asks.values())
            .flat_map(|l| l.queue.iter().map(|e| e.seq))
    }

    /// Every resting (seq, remaining) pair, for bulk checks.
    #[cfg(test)]
    fn resting(&self) -> Vec<(u64, u64)> {
        self.bids
            .values()
            .chain(self.asks.values())
            .flat_map(|l| l.queue.iter().map(|e| (e.seq, e.qty)))
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
            b.insert(0, side, price, seq, qty, &mut ch);
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
        let fills = b.take(0, Side::Buy, 520_000, 12, &mut ch);
        let got: Vec<(u64, u32, u64)> = fills
            .iter()
            .map(|f| (f.maker_seq, f.price, f.size))
            .collect();
        assert_eq!(got, vec![(2, 510_000, 5), (3, 510_000, 5), (1, 520_000, 2)]);
        assert_eq!(b.view(0).best_ask(), Some(520_000));
        assert_eq!(b.view(0).available(Side::Buy, 520_000), 8);
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
        let fills = b.take(0, Side::Sell, 475_000, 100, &mut ch);
        assert_eq!(fills.len(), 1);
        assert_eq!(fills[0].size, 10);
        assert!(fills[0].maker_done);
        assert_eq!(b.view(0).best_bid(), Some(470_000));
        assert!(!b.view(0).crosses(Side::Sell, 475_000));
        assert!(b.view(0).crosses(Side::Sell, 470_000));
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
        assert_eq!(b.remove(0, Side::Buy, 450_000, 2, &mut ch), Some(4));
        assert_eq!(b.remove(0, Side::Buy, 450_000, 2, &mut ch), None);
        b.insert(0, Side::Buy, 420_000, 5, 7, &mut ch);
        let bids: Vec<_> = b.view(0).bids_worst_first().collect();
        let asks: Vec<_> = b.view(0).asks_worst_first().collect();
        assert_eq!(bids, vec![(400_000, 3), (420_000, 7)]);
        assert_eq!(asks, vec![(600_000, 5), (550_000, 6)]);
        // The second token sees the mirror image, worst first too.
        let no_bids: Vec<_> = b.view(1).bids_worst_first().collect();
        let no_asks: Vec<_> = b.view(1).asks_worst_first().collect();
        assert_eq!(no_bids, vec![(400_000, 5), (450_000, 6)]);
        assert_eq!(no_asks, vec![(600_000, 3), (580_000, 7)]);
        assert_eq!(
            (b.view(1).best_bid(), b.view(1).best_ask()),
            (Some(450_000), Some(580_000))
        );
        assert_eq!(b.view(1).prices(Side::Sell), vec![600_000, 580_000]);
    }

    /// A BUY NO rests as a YES ask; a BUY YES at a price summing to 1 or more with it mints; a
    /// SELL YES and a SELL NO summing to 1 or less merge; each fill is at its maker's price.
    #[test]
    fn buys_mint_and_sells_merge_across_the_tokens() {
        let mut b = Book::default();
        let mut ch = Vec::new();
        b.insert(1, Side::Buy, 650_000, 1, 10, &mut ch);
        assert_eq!(
            ch[0],
            LevelChange {
                side: Side::Sell,
                price: 350_000,
                size: 10
            }
        );
        assert_eq!(ch[0].seen_by(1), (Side::Buy, 650_000));
        assert_eq!(b.view(0).best_ask(), Some(350_000));
        assert!(!b.view(0).crosses(Side::Buy, 340_000), "0.34 + 0.65 < 1");
        let fills = b.take(0, Side::Buy, 400_000, 4, &mut ch);
        assert_eq!(
            (fills[0].maker_seq, fills[0].price, fills[0].size),
            (1, 650_000, 4)
        );
        // Merge: a SELL NO at 0.50 rests as a YES bid at 0.50; a SELL YES at 0.45 meets it.
        b.insert(1, Side::Sell, 500_000, 2, 10, &mut ch);
        assert_eq!(b.view(0).best_bid(), Some(500_000));
        assert!(!b.view(0).crosses(Side::Sell, 510_000), "0.51 + 0.50 > 1");
        let fills = b.take(0, Side::Sell, 450_000, 10, &mut ch);
        assert_eq!(
            (fills[0].maker_seq, fills[0].price, fills[0].size),
            (2, 500_000, 10)
        );
        assert!(fills[0].maker_done);
        // The NO token's own trades still meet each other.
        let fills = b.take(1, Side::Sell, 600_000, 6, &mut ch);
        assert_eq!(
            (fills[0].maker_seq, fills[0].price, fills[0].size),
            (1, 650_000, 6)
        );
        assert!(b.resting().is_empty());
    }

    /// Naive oracle: a list of resting orders of both tokens, crossed by the contract's rule
    /// (a buy meets a sell of its token at a price no higher, a buy of the other token when
    /// the prices sum to 1 or more; a sell the mirror), in price priority then arrival.
    #[test]
    fn matches_naive_oracle_on_random_flow() {
        let mut rng = crate::exchange::rng::Rng::new(5, 5);
        let mut b = Book::default();
        // oracle: (token, side, price, seq, remaining)
        let mut oracle: Vec<(usize, Side, u32, u64, u64)> = Vec::new();
        // The price the incoming order pays or gets for maker `o`, in its own token: what
        // orders the walk (cheapest first for a buy, dearest first for a sell).
        let seen = |token: usize, o: &(usize, Side, u32, u64, u64)| {
            if o.0 == token { o.2 } else { ONE - o.2 }
        };
        for seq in 1..3000u64 {
            let token = rng.below(2) as usize;
            let side = if rng.below(2) == 0 {
                Side::Buy
            } else {
                Side::Sell
            };
            let price = (40 + rng.below(21) as u32) * 10_000;
            let qty = 1 + rng.below(50);
            let mut ch = Vec::new();
            let fills = b.take(token, side, price, qty, &mut ch);
            let mut want = Vec::new();
            let mut left = qty;
            while left > 0 {
                let crosses = |o: &(usize, Side, u32, u64, u64)| match (o.0 == token, side, o.1) {
                    (true, Side::Buy, Side::Sell) => o.2 <= price,
                    (true, Side::Sell, Side::Buy) => o.2 >= price,
                    (false, Side::Buy, Side::Buy) => o.2 + price >= ONE,
                    (false, Side::Sell, Side::Sell) => o.2 + price <= ONE,
                    _ => false,
                };
                let best = oracle
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| crosses(o))
                    .min_by_key(|(_, o)| {
                        let p = seen(token, o);
                        (if side == Side::Buy { p } else { ONE - p }, o.3)
                    })
                    .map(|(i, _)| i);
                let Some(i) = best else { break };
                let f = left.min(oracle[i].4);
                oracle[i].4 -= f;
                left -= f;
                want.push((oracle[i].3, oracle[i].2, f));
                if oracle[i].4 == 0 {
                    oracle.remove(i);
                }
            }
            let got: Vec<_> = fills
                .iter()
                .map(|f| (f.maker_seq, f.price, f.size))
                .collect();
            assert_eq!(got, want, "seq {seq}");
            if left > 0 {
                b.insert(token, side, price, seq, left, &mut ch);
                oracle.push((token, side, price, seq, left));
            }
            if rng.below(5) == 0 && !oracle.is_empty() {
                let i = rng.below(oracle.len() as u64) as usize;
                let o = oracle.remove(i);
                assert_eq!(b.remove(o.0, o.1, o.2, o.3, &mut ch), Some(o.4));
            }
            for t in 0..2 {
                let v = b.view(t);
                assert!(
                    v.best_bid()
                        .zip(v.best_ask())
                        .is_none_or(|(bid, ask)| bid < ask)
                );
            }
            assert_eq!(b.view(0).best_bid().map(|p| ONE - p), b.view(1).best_ask());
        }
        let mut rest = b.resting();
        rest.sort_unstable();
        let mut want: Vec<_> = oracle.iter().map(|o| (o.3, o.4)).collect();
        want.sort_unstable();
        assert_eq!(rest, want);
    }
}
