//! The exchange's trade history, bounded where nobody can miss it.
//!
//! A trade is known by its index, counted from the first trade ever (indices never shift, so a
//! reader's cursor stays valid). Trades where a client took part are kept for the life of the
//! simulator; trades between the simulated liquidity owner's own orders (the `activity` steps
//! that keep books moving) are kept for the last [`HOUSE_HISTORY`] of them only, so a simulator
//! left running for hours under activity does not grow without bound.

use std::collections::{BTreeMap, VecDeque};

use polyclob::types::Side;

use super::engine::Fill;

/// A trade: one taker order against one or more makers.
#[derive(Debug, Clone)]
pub(crate) struct TradeRec {
    pub(crate) id: String,
    pub(crate) taker_seq: u64,
    pub(crate) market: usize,
    pub(crate) token: usize,
    pub(crate) side: Side,
    pub(crate) size: u64,
    /// The price of the last (worst) fill, seen from the taker's token (the complement of a
    /// maker's price across the tokens): where the taker's sweep stopped.
    pub(crate) price: u32,
    pub(crate) fills: Vec<Fill>,
    /// The taker's fee in micro-pUSD ([`FeeSchedule::taker_fee`] of the fills at the taker's
    /// prices; zero on a fee-free market).
    ///
    /// [`FeeSchedule::taker_fee`]: polyclob::types::FeeSchedule::taker_fee
    pub(crate) fee: u64,
    pub(crate) match_time: u64,
    pub(crate) status: &'static str,
    pub(crate) tx_hash: String,
}

/// How many of the most recent house-only trades are kept.
pub(crate) const HOUSE_HISTORY: usize = 100_000;

#[derive(Debug)]
pub(crate) struct TradeLog {
    by_index: BTreeMap<usize, TradeRec>,
    /// House-only trades kept at the most.
    house_cap: usize,
    /// Index the next trade gets.
    next: usize,
    /// Indices of the house-only trades still kept, oldest first.
    house: VecDeque<usize>,
}

impl Default for TradeLog {
    fn default() -> Self {
        Self::with_house_cap(HOUSE_HISTORY)
    }
}

impl TradeLog {
    pub(crate) fn with_house_cap(house_cap: usize) -> Self {
        Self {
            by_index: BTreeMap::new(),
            house_cap,
            next: 0,
            house: VecDeque::new(),
        }
    }

    /// Appends `t` and returns its index with the house-only trade it pushed out (and that
    /// trade's index), if any.
    pub(crate) fn push(
        &mut self,
        t: TradeRec,
        house_only: bool,
    ) -> (usize, Option<(usize, TradeRec)>) {
        let idx = self.next;
        self.next += 1;
        self.by_index.insert(idx, t);
        if !house_only {
            return (idx, None);
        }
        self.house.push_back(idx);
        let evicted = if self.house.len() > self.house_cap {
            self.house
                .pop_front()
                .and_then(|old| self.by_index.remove(&old).map(|t| (old, t)))
        } else {
            None
        };
        (idx, evicted)
    }

    pub(crate) fn get(&self, idx: usize) -> Option<&TradeRec> {
        self.by_index.get(&idx)
    }

    pub(crate) fn get_mut(&mut self, idx: usize) -> Option<&mut TradeRec> {
        self.by_index.get_mut(&idx)
    }

    /// The index the next trade will get: a cursor for [`since`](Self::since).
    pub(crate) fn end(&self) -> usize {
        self.next
    }

    /// Kept trades with an index of at least `from`, oldest first.
    pub(crate) fn since(&self, from: usize) -> impl Iterator<Item = &TradeRec> + '_ {
        self.by_index.range(from..).map(|(_, t)| t)
    }

    /// Trades kept now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_index.len()
    }
}

impl<'a> IntoIterator for &'a TradeLog {
    type Item = &'a TradeRec;
    type IntoIter = std::collections::btree_map::Values<'a, usize, TradeRec>;

    fn into_iter(self) -> Self::IntoIter {
        self.by_index.values()
    }
}
