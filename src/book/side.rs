//! One side of a book: price levels sorted worst-first, so the best level is the last element.
//!
//! Bids are stored ascending and asks descending. A *key* (the price in micros, bit-flipped
//! for asks) makes both sides ascending, so one search serves both.
//!
//! Removing a level only sets its size to zero. The entry stays in place as an empty *slot*
//! (a tombstone), and a later delta at the same price fills it without moving anything. The
//! exchange keeps adding and removing the same few prices near the top of a book, so in steady
//! state almost every delta is an in-place store. Slots never reach the top: removing the best
//! level pops it, along with the empty slots just below it, so the best level is still the last
//! element. Iteration skips empty slots, and `len` counts only the levels that are there.
//! An insert drops every slot first when the slots outnumber the levels by more than
//! [`SLACK`], or when they are at least a quarter of a full side that would otherwise grow its
//! allocation. A full side with fewer slots grows, as a plain `Vec` would, and keeps them.

use core::iter::Rev;
use core::slice;

use crate::decode::Level;
use crate::fixed::{Price, Size};

/// Levels below the top that [`SideLevels::find`] walks, one by one, before bisecting the rest.
const WALK: usize = 32;

/// Empty slots allowed beyond the number of levels before an insert drops them all.
const SLACK: usize = 16;

/// One side's levels: see the module documentation.
#[derive(Clone)]
pub(super) struct SideLevels {
    /// Worst first, best last; an entry with a zero size is an empty slot.
    levels: Vec<Level>,
    /// Entries with a nonzero size.
    live: usize,
    /// XOR mask that turns a price into an ascending key: 0 for bids, all ones for asks.
    flip: u32,
    /// Levels to reserve at the first store when `levels` has no allocation yet (fits in the
    /// padding after `flip`, so it costs no memory).
    reserve: u32,
}

impl SideLevels {
    /// An empty side; `descending` for asks.
    pub(super) fn new(descending: bool, capacity: usize) -> Self {
        Self {
            levels: Vec::with_capacity(capacity),
            live: 0,
            flip: if descending { u32::MAX } else { 0 },
            reserve: 0,
        }
    }

    /// An empty side that allocates nothing until its first level, then reserves room for
    /// `capacity` levels (or more, for a larger first snapshot).
    pub(super) fn deferred(descending: bool, capacity: usize) -> Self {
        Self {
            reserve: u32::try_from(capacity).unwrap_or(u32::MAX),
            ..Self::new(descending, 0)
        }
    }

    /// Makes room for `n` levels, with the deferred reservation on the first store.
    #[inline]
    fn room(&mut self, n: usize) {
        if self.levels.capacity() == 0 && n > 0 {
            self.levels.reserve_exact(n.max(self.reserve as usize));
        }
    }

    /// Replaces every level with `sorted`, which is in storage order and has no zero sizes.
    pub(super) fn replace(&mut self, sorted: &[Level]) {
        self.levels.clear();
        self.room(sorted.len());
        self.levels.extend_from_slice(sorted);
        self.live = sorted.len();
    }

    /// The best level, O(1).
    #[inline]
    pub(super) fn best(&self) -> Option<Level> {
        self.levels.last().copied()
    }

    /// Number of levels (empty slots excluded).
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// The levels, best first.
    pub(super) fn iter(&self) -> Iter<'_> {
        Iter {
            rest: self.levels.iter().rev(),
            left: self.live,
        }
    }

    /// Sets the size at `price`; zero removes the level.
    ///
    /// `grid` is `⌈2³² / tick⌉` for the book's tick in micros, or 0 when the tick is unknown; it
    /// only serves to guess where the price is (see [`SideLevels::find`]).
    #[inline]
    pub(super) fn set(&mut self, price: Price, size: Size, grid: u64) {
        match self.find(price, grid) {
            Ok(i) => {
                let slot = &mut self.levels[i].size;
                self.live = self.live + usize::from(slot.is_zero()) - usize::from(size.is_zero());
                *slot = size;
                if size.is_zero() {
                    self.trim();
                }
            }
            Err(_) if size.is_zero() => {}
            Err(mut i) => {
                let len = self.levels.len();
                let slots = len - self.live;
                // Drop the slots rather than grow when they are a quarter of a full side.
                if slots > self.live + SLACK || (len == self.levels.capacity() && 4 * slots >= len)
                {
                    self.compact();
                    // Still absent: compacting only drops entries.
                    i = match self.find(price, grid) {
                        Ok(j) | Err(j) => j,
                    };
                }
                self.room(1);
                self.levels.insert(i, Level { price, size });
                self.live += 1;
            }
        }
    }

    /// Where `price` is: `Ok(index)` when an entry (level or empty slot) has that price, else
    /// `Err(index)` where it would be inserted.
    ///
    /// Three tries, cheapest first:
    /// 1. On a tick grid with no gaps near the top (empty slots fill the gaps that removals
    ///    leave), a price `k` ticks below the top is exactly `k` entries below it. One
    ///    multiply and one load check that guess. A miss only costs the check.
    /// 2. Deltas land near the top, so walk down from it, at most [`WALK`] entries.
    /// 3. Bisect the rest.
    #[inline]
    fn find(&self, price: Price, grid: u64) -> Result<usize, usize> {
        let levels = &self.levels[..];
        let key = |p: Price| p.as_micros() ^ self.flip;
        let target = key(price);
        let Some(top) = levels.last() else {
            return Err(0);
        };
        let top = key(top.price);
        if target > top {
            return Err(levels.len());
        }
        if grid != 0 {
            if let Some(guess) = (levels.len() - 1).checked_sub(ticks(top - target, grid)) {
                if levels[guess].price == price {
                    return Ok(guess);
                }
            }
        }
        let floor = levels.len().saturating_sub(WALK);
        for i in (floor..levels.len()).rev() {
            let k = key(levels[i].price);
            if k <= target {
                return if k == target { Ok(i) } else { Err(i + 1) };
            }
        }
        // Everything from `floor` up is above the target.
        let deeper = &levels[..floor];
        let i = deeper.partition_point(|l| key(l.price) < target);
        match deeper.get(i) {
            Some(l) if l.price == price => Ok(i),
            _ => Err(i),
        }
    }

    /// Pops empty slots off the top, so that the last entry is the best level.
    fn trim(&mut self) {
        while self.levels.last().is_some_and(|l| l.size.is_zero()) {
            self.levels.pop();
        }
    }

    /// Drops every empty slot, in place.
    fn compact(&mut self) {
        self.levels.retain(|l| !l.size.is_zero());
    }
}

/// The levels, best first: empty slots are storage, not state.
impl core::fmt::Debug for SideLevels {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// How many ticks `diff` micros make, given the `grid` of that tick. Exact when `diff` is a
/// whole number of ticks: the rounded-up reciprocal adds less than `diff / 2³²` ticks, and
/// prices stay below 2²⁰ micros.
#[inline]
fn ticks(diff: u32, grid: u64) -> usize {
    ((u64::from(diff) * grid) >> 32) as usize
}

/// The key that [`SideLevels::find`]'s grid guess needs for a tick of `tick_micros` (never 0:
/// every [`crate::types::TickSize`] is at least 100 micros).
pub(super) fn grid(tick_micros: u32) -> u64 {
    (1u64 << 32).div_ceil(u64::from(tick_micros))
}

/// The levels of one side, best first, skipping empty slots.
#[derive(Clone, Debug)]
pub(super) struct Iter<'a> {
    rest: Rev<slice::Iter<'a, Level>>,
    left: usize,
}

impl Iterator for Iter<'_> {
    type Item = Level;

    #[inline]
    fn next(&mut self) -> Option<Level> {
        if self.left == 0 {
            return None;
        }
        let level = *self.rest.find(|l| !l.size.is_zero())?;
        self.left -= 1;
        Some(level)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn level(micros: u32, size: u64) -> Level {
        Level {
            price: Price::new(micros).expect("in range"),
            size: Size::from_micros(size),
        }
    }

    /// `find` gives what `binary_search_by` gives (hits, and insertion points between, before
    /// and after every entry) on both sides' orders, for every length up to 70, with and
    /// without the grid guess, including empty slots and a grid the prices are not on.
    #[test]
    fn find_agrees_with_binary_search() {
        for n in 0..70u32 {
            // Even prices are on the book; odd ones fall between (and outside) them. Every
            // third entry is an empty slot.
            let entries: Vec<Level> = (1..=n).map(|i| level(i * 2, u64::from(i % 3))).collect();
            let mut bids = SideLevels::new(false, 0);
            bids.levels = entries.clone();
            let mut asks = SideLevels::new(true, 0);
            asks.levels = entries.iter().rev().copied().collect();
            for grid in [0, grid(1), grid(2), grid(3), grid(4)] {
                for probe in 0..=2 * n + 2 {
                    let price = Price::new(probe).expect("in range");
                    assert_eq!(
                        bids.find(price, grid),
                        bids.levels.binary_search_by(|l| l.price.cmp(&price)),
                        "bids n={n} probe={probe} grid={grid}"
                    );
                    assert_eq!(
                        asks.find(price, grid),
                        asks.levels.binary_search_by(|l| price.cmp(&l.price)),
                        "asks n={n} probe={probe} grid={grid}"
                    );
                }
            }
        }
    }

    /// On a gap-free grid of every tick size, the guess lands on the price's own entry.
    #[test]
    fn grid_guess_is_exact_for_whole_ticks() {
        for tick in [100u32, 1_000, 2_500, 5_000, 10_000, 100_000] {
            let top = 1_000_000 - tick;
            let count = (top / tick) as usize;
            let mut bids = SideLevels::new(false, 0);
            bids.levels = (1..=count as u32).map(|k| level(k * tick, 1)).collect();
            for (i, l) in bids.levels.iter().enumerate() {
                assert_eq!(
                    bids.levels.len() - 1 - ticks(top - l.price.as_micros(), grid(tick)),
                    i,
                    "tick={tick} price={}",
                    l.price
                );
            }
        }
    }

    /// Random deltas against a `BTreeMap`: the same levels in the same order, and the same
    /// length and best level.
    #[test]
    fn set_matches_a_map() {
        let mut next = crate::testutil::lcg(7);
        for descending in [false, true] {
            for grid in [0, grid(1_000), grid(10_000)] {
                let mut side = SideLevels::new(descending, 40);
                let mut map = BTreeMap::new();
                for _ in 0..20_000 {
                    let price = Price::new(1_000 * (1 + next(60) as u32)).expect("in range");
                    let size = if next(3) == 0 { 0 } else { 1 + next(1_000) };
                    side.set(price, Size::from_micros(size), grid);
                    if size == 0 {
                        map.remove(&price);
                    } else {
                        map.insert(price, Size::from_micros(size));
                    }
                    let want: Vec<(Price, Size)> = if descending {
                        map.iter().map(|(p, s)| (*p, *s)).collect()
                    } else {
                        map.iter().rev().map(|(p, s)| (*p, *s)).collect()
                    };
                    let got: Vec<(Price, Size)> = side.iter().map(|l| (l.price, l.size)).collect();
                    assert_eq!(got, want);
                    assert_eq!(side.len(), want.len());
                    assert_eq!(side.iter().len(), want.len());
                    assert_eq!(
                        side.best().map(|l| (l.price, l.size)),
                        want.first().copied()
                    );
                }
            }
        }
    }

    /// A window of ten levels sliding over 600 prices leaves a trail of empty slots. They are
    /// dropped before they outnumber the levels or grow the allocation.
    #[test]
    fn empty_slots_are_bounded() {
        let mut side = SideLevels::new(false, 40);
        let price = |i: u32| Price::new(1_000 * (1 + i % 600)).expect("in range");
        for i in 0..5_000u32 {
            side.set(price(i), Size::ONE, grid(1_000));
            if i >= 10 {
                side.set(price(i - 10), Size::ZERO, grid(1_000));
            }
            assert_eq!(side.len(), (i as usize + 1).min(10));
            // At most one removal since the last insert checked the slots.
            let slots = side.levels.len() - side.len();
            assert!(slots <= side.len() + SLACK + 1, "{slots} empty slots");
            assert_eq!(side.levels.capacity(), 40);
        }
    }
}
