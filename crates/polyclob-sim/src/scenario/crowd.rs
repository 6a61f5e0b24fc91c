//! The crowd: simulated traders with identities (see [`Crowd`]), and what they do each
//! activity step.

use std::collections::BTreeMap;

use alloy_primitives::Address;
use polyclob::fixed::Price;
use polyclob::types::{OrderType, Side};

use super::paths::Paths;
use crate::exchange::rng::Rng;
use crate::exchange::state::{Exchange, SEED_ADDRESS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Maker,
    Taker,
    Informed,
    Sweeper,
}

/// One simulated trader of a [`Crowd`].
///
/// ```
/// use polyclob_sim::CrowdTrader;
///
/// let ivy = CrowdTrader::informed("ivy").rate(0.5).edge_ticks(2).size(20).seed(3);
/// assert_eq!(ivy.name(), "ivy");
/// assert_eq!(ivy.address(), CrowdTrader::taker("ivy").address()); // the name decides
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CrowdTrader {
    name: String,
    role: Role,
    seed: u64,
    rate: f64,
    size: u64,
    spread: u32,
    levels: u32,
    edge: u32,
    depth: u32,
}

impl CrowdTrader {
    fn new(name: &str, role: Role, rate: f64, size: u64) -> Self {
        Self {
            name: name.to_owned(),
            role,
            seed: 0,
            rate,
            size,
            spread: 1,
            levels: 3,
            edge: 1,
            depth: 3,
        }
    }

    /// A market maker: rate 1 (requotes every step), 50 shares a level, 3 levels, spread 1 tick.
    #[must_use]
    pub fn maker(name: &str) -> Self {
        Self::new(name, Role::Maker, 1.0, 50)
    }

    /// A noise taker: rate 0.5 orders a step, 10 shares each.
    #[must_use]
    pub fn taker(name: &str) -> Self {
        Self::new(name, Role::Taker, 0.5, 10)
    }

    /// An informed trader following the fair value: rate 1, 20 shares, edge 1 tick.
    #[must_use]
    pub fn informed(name: &str) -> Self {
        Self::new(name, Role::Informed, 1.0, 20)
    }

    /// A sweeper: rate 0.05 sweeps a step, 3 ticks deep.
    #[must_use]
    pub fn sweeper(name: &str) -> Self {
        Self::new(name, Role::Sweeper, 0.05, 0)
    }

    /// Seeds the trader's own random choices (independent of the other traders'). Default is 0.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Actions per step: a probability for a maker, the mean of a Poisson process for the
    /// others (see the table on [`Crowd`]). Negative or NaN is 0. Default per role.
    #[must_use]
    pub fn rate(mut self, per_step: f64) -> Self {
        self.rate = if per_step.is_finite() {
            per_step.max(0.0)
        } else {
            0.0
        };
        self
    }

    /// Whole shares per order (a maker's per level; ignored by a sweeper). Default per role.
    #[must_use]
    pub fn size(mut self, shares: u64) -> Self {
        self.size = shares;
        self
    }

    /// A maker's distance from the fair value to its best quotes, in ticks (at least 1).
    /// Default is 1.
    #[must_use]
    pub fn spread_ticks(mut self, ticks: u32) -> Self {
        self.spread = ticks.max(1);
        self
    }

    /// A maker's levels a side. Default is 3.
    #[must_use]
    pub fn levels(mut self, levels: u32) -> Self {
        self.levels = levels;
        self
    }

    /// How far (ticks) a quote must be on the wrong side of the fair value before an
    /// informed trader takes it. Default is 1.
    #[must_use]
    pub fn edge_ticks(mut self, ticks: u32) -> Self {
        self.edge = ticks;
        self
    }

    /// How many ticks past the best price a sweep reaches. Default is 3.
    #[must_use]
    pub fn depth_ticks(mut self, ticks: u32) -> Self {
        self.depth = ticks;
        self
    }

    /// The trader's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The trader's address: the last 20 bytes of `keccak256("polyclob-sim crowd " + name)`.
    #[must_use]
    pub fn address(&self) -> Address {
        let h = alloy_primitives::keccak256(format!("polyclob-sim crowd {}", self.name));
        Address::from_slice(&h[12..])
    }
}

/// A documented crowd of simulated traders, given to [`SimBuilder::crowd`]: each with its own
/// address, seed and rate, acting once per activity step ([`SimHandle::step_activity`], or the
/// [`SimBuilder::activity`] timer) around each market's [fair value](crate::FairValue).
///
/// | role | what it does each step |
/// |---|---|
/// | [maker](CrowdTrader::maker) | with probability `rate` (capped at 1), requotes every market whose fair value moved since it last quoted: cancels its orders there and rests `levels` orders of `size` a side, the best `spread` ticks from the fair value, on the first token, and their mirror image on the second |
/// | [taker](CrowdTrader::taker) | a Poisson number (mean `rate`) of market orders (FAK at the best price) of `size` on random markets, tokens and sides |
/// | [informed](CrowdTrader::informed) | a Poisson number (mean `rate`) of looks at the driven markets: where the first token's best ask is `edge` ticks or more below the fair value it buys up to `size` at fair − `edge` ticks; where the best bid is as far above, it sells |
/// | [sweeper](CrowdTrader::sweeper) | a Poisson number (mean `rate`) of sweeps: a random market, token and side, everything within `depth` ticks of the best price taken at once |
///
/// A crowd trader's address is derived from its name (the last 20 bytes of
/// `keccak256("polyclob-sim crowd " + name)`), and appears wherever the exchange shows who
/// traded: RTDS `activity` (`proxyWallet` of the taker), the Data API (`/v2/trades`,
/// `/v2/activity` with `user=`), and the maker and taker orders of trades. Like the seed
/// liquidity, crowd traders are an unlimited counterparty: their side of a fill is minted or
/// burned, so they hold no balances and the Data API lists no positions for them. With a crowd
/// that has a maker, the seeded books belong to its first maker; the simulator's other
/// liquidity (`0x…5eed`, the books' seed without a crowd maker, and the default activity when
/// no crowd is configured) is documented on [`SimBuilder::activity`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use polyclob_sim::{Crowd, CrowdTrader, Simulator};
///
/// let crowd = Crowd::standard(7);
/// let ivy = crowd.traders().iter().find(|t| t.name() == "informed").unwrap().address();
/// let sim = Simulator::builder().crowd(crowd).start().await?;
/// sim.step_activity(10); // ten steps of every trader
/// # let _ = ivy;
/// # Ok(()) }
/// ```
///
/// [`SimBuilder::crowd`]: crate::SimBuilder::crowd
/// [`SimHandle::step_activity`]: crate::SimHandle::step_activity
/// [`SimBuilder::activity`]: crate::SimBuilder::activity
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Crowd {
    traders: Vec<CrowdTrader>,
}

impl Crowd {
    /// No traders.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Four traders named `"maker"`, `"taker"`, `"informed"` and `"sweeper"`, with their
    /// roles' defaults and seeds derived from `seed`.
    #[must_use]
    pub fn standard(seed: u64) -> Self {
        Self::new()
            .trader(CrowdTrader::maker("maker").seed(seed))
            .trader(CrowdTrader::taker("taker").seed(seed.wrapping_add(1)))
            .trader(CrowdTrader::informed("informed").seed(seed.wrapping_add(2)))
            .trader(CrowdTrader::sweeper("sweeper").seed(seed.wrapping_add(3)))
    }

    /// Adds a trader; traders act in the order added.
    #[must_use]
    pub fn trader(mut self, t: CrowdTrader) -> Self {
        self.traders.push(t);
        self
    }

    /// The traders.
    #[must_use]
    pub fn traders(&self) -> &[CrowdTrader] {
        &self.traders
    }
}

/// A trader at work: its address and random state, and, for a maker, the fair value it
/// last quoted each moved market at.
#[derive(Debug)]
struct Member {
    spec: CrowdTrader,
    address: String,
    rng: Rng,
    quoted: BTreeMap<usize, u32>,
}

/// The crowd of one simulator.
#[derive(Debug, Default)]
pub(crate) struct CrowdState {
    members: Vec<Member>,
}

impl CrowdState {
    /// Whether the crowd has no trader (the seed liquidity's random activity runs instead).
    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Who moves books at once (`Activity::move_book`): the first maker, else the seed
    /// liquidity's address.
    pub(crate) fn mover(&self) -> String {
        self.members
            .iter()
            .find(|m| m.spec.role == Role::Maker)
            .map_or_else(|| SEED_ADDRESS.to_owned(), |m| m.address.clone())
    }

    /// Puts `crowd` to work; with a maker in it, the seeded books become its orders.
    pub(crate) fn install(&mut self, ex: &mut Exchange, crowd: Crowd) {
        for spec in crowd.traders {
            let address = format!("{:#x}", spec.address());
            ex.join_house(address.clone());
            self.members.push(Member {
                rng: Rng::new(spec.seed, 17),
                spec,
                address,
                quoted: BTreeMap::new(),
            });
        }
        let maker = self.mover();
        if maker == SEED_ADDRESS {
            return;
        }
        ex.hand_over_seed_orders(maker);
    }

    /// Every trader acts once, in order; ids of their orders come from `rng`.
    pub(crate) fn step(&mut self, ex: &mut Exchange, paths: &Paths, rng: &mut Rng) {
        if ex.markets.is_empty() || ex.cancel_only {
            return;
        }
        let mut members = std::mem::take(&mut self.members);
        for m in &mut members {
            match m.spec.role {
                Role::Maker => {
                    let p = (m.spec.rate.min(1.0) * 1_000_000.0) as u32;
                    if m.rng.chance(p) {
                        let stale: Vec<(usize, u32)> = paths
                            .moved()
                            .filter(|(mi, f)| m.quoted.get(mi) != Some(f))
                            .collect();
                        for (mi, f) in stale {
                            requote(ex, paths, rng, m, mi);
                            m.quoted.insert(mi, f);
                        }
                    }
                }
                Role::Taker => {
                    for _ in 0..poisson(&mut m.rng, m.spec.rate) {
                        let mi = m.rng.below(ex.markets.len() as u64) as usize;
                        let ti = m.rng.below(2) as usize;
                        let side = if m.rng.below(2) == 0 {
                            Side::Buy
                        } else {
                            Side::Sell
                        };
                        let book = ex.markets[mi].book.view(ti);
                        let best = match side {
                            Side::Buy => book.best_ask(),
                            Side::Sell => book.best_bid(),
                        };
                        if let Some(at) = best {
                            let size = m.spec.size * 1_000_000;
                            ex.place_as(rng, &m.address, mi, ti, side, at, size, OrderType::Fak);
                        }
                    }
                }
                Role::Informed => {
                    let driven: Vec<usize> = paths.moved().map(|(mi, _)| mi).collect();
                    for _ in 0..poisson(&mut m.rng, m.spec.rate) {
                        for &mi in &driven {
                            inform(ex, paths, rng, m, mi);
                        }
                    }
                }
                Role::Sweeper => {
                    for _ in 0..poisson(&mut m.rng, m.spec.rate) {
                        let mi = m.rng.below(ex.markets.len() as u64) as usize;
                        let ti = m.rng.below(2) as usize;
                        let side = if m.rng.below(2) == 0 {
                            Side::Buy
                        } else {
                            Side::Sell
                        };
                        let tick = ex.markets[mi].spec.tick.as_micros();
                        let reach = m.spec.depth * tick;
                        let book = ex.markets[mi].book.view(ti);
                        let limit = match side {
                            Side::Buy => book
                                .best_ask()
                                .map(|a| (a + reach).min(Price::SCALE - tick)),
                            Side::Sell => {
                                book.best_bid().map(|b| b.saturating_sub(reach).max(tick))
                            }
                        };
                        if let Some(limit) = limit {
                            let size = book.available(side, limit).div_ceil(1_000_000) * 1_000_000;
                            ex.place_as(rng, &m.address, mi, ti, side, limit, size, OrderType::Fak);
                        }
                    }
                }
            }
        }
        self.members = members;
    }

    /// Every crowd maker requotes market `mi` now; false when the crowd has no maker.
    pub(crate) fn requote_all(
        &mut self,
        ex: &mut Exchange,
        paths: &Paths,
        rng: &mut Rng,
        mi: usize,
    ) -> bool {
        let mut members = std::mem::take(&mut self.members);
        let fair = paths.fair_value(ex, mi);
        let mut any = false;
        for m in members.iter_mut().filter(|m| m.spec.role == Role::Maker) {
            requote(ex, paths, rng, m, mi);
            m.quoted.insert(mi, fair);
            any = true;
        }
        self.members = members;
        any
    }
}

/// A Poisson draw with mean `lambda` (Knuth's method; means above 30 are capped there).
fn poisson(rng: &mut Rng, lambda: f64) -> u32 {
    let l = (-lambda.min(30.0)).exp();
    let mut k = 0;
    let mut p = 1.0;
    loop {
        p *= (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if p <= l {
            return k;
        }
        k += 1;
    }
}

/// An informed look at market `mi`: take the first token's quotes `edge` ticks or more on
/// the wrong side of the fair value.
fn inform(ex: &mut Exchange, paths: &Paths, rng: &mut Rng, m: &Member, mi: usize) {
    let fair = paths.fair_value(ex, mi);
    let tick = ex.markets[mi].spec.tick.as_micros();
    let edge = m.spec.edge * tick;
    let size = m.spec.size * 1_000_000;
    let book = ex.markets[mi].book.view(0);
    if book.best_ask().is_some_and(|a| a + edge <= fair) {
        ex.place_as(
            rng,
            &m.address,
            mi,
            0,
            Side::Buy,
            fair - edge,
            size,
            OrderType::Fak,
        );
    } else if book.best_bid().is_some_and(|b| b >= fair + edge) {
        ex.place_as(
            rng,
            &m.address,
            mi,
            0,
            Side::Sell,
            fair + edge,
            size,
            OrderType::Fak,
        );
    }
}

/// Maker `m` cancels its orders on market `mi` and quotes around the fair value. Each quote
/// rests once, on a token drawn at random: a bid is a BUY of the first token or a SELL of the
/// second at the complement, an ask a SELL of the first or a BUY of the second, so both
/// tokens' books show it and takers of either token meet it (a BUY NO taking a resting BUY
/// YES is a mint, a SELL NO taking a resting SELL YES a merge).
fn requote(ex: &mut Exchange, paths: &Paths, rng: &mut Rng, m: &Member, mi: usize) {
    let mut mine: Vec<u64> = ex.markets[mi]
        .book
        .resting_seqs()
        .filter(|s| ex.orders.get(s).is_some_and(|o| o.user == m.address))
        .collect();
    mine.sort_unstable();
    for seq in mine {
        ex.cancel_seq(seq);
    }
    let fair = paths.fair_value(ex, mi);
    let tick = ex.markets[mi].spec.tick.as_micros();
    let size = m.spec.size * 1_000_000;
    for k in 0..m.spec.levels {
        let off = (m.spec.spread + k) * tick;
        let bid = fair.checked_sub(off).filter(|b| *b >= tick);
        let ask = Some(fair + off).filter(|a| *a <= Price::SCALE - tick);
        let quotes = [(Side::Buy, bid), (Side::Sell, ask)];
        for (side, price) in quotes {
            let Some(p) = price else { continue };
            let (ti, side, p) = if rng.below(2) == 0 {
                (0, side, p)
            } else {
                (1, side.opposite(), Price::SCALE - p)
            };
            ex.place_as(rng, &m.address, mi, ti, side, p, size, OrderType::Gtc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_mean_is_about_lambda() {
        let mut rng = Rng::new(1, 1);
        for lambda in [0.05, 0.5, 3.0] {
            let n = 20_000;
            let total: u64 = (0..n).map(|_| u64::from(poisson(&mut rng, lambda))).sum();
            let mean = total as f64 / f64::from(n);
            assert!(
                (mean - lambda).abs() < 0.05 + lambda * 0.05,
                "{lambda}: {mean}"
            );
        }
        assert_eq!(poisson(&mut rng, 0.0), 0);
    }

    #[test]
    fn addresses_come_from_names() {
        let a = CrowdTrader::maker("a").address();
        assert_eq!(a, CrowdTrader::sweeper("a").address());
        assert_ne!(a, CrowdTrader::maker("b").address());
        let crowd = Crowd::standard(1);
        let names: Vec<&str> = crowd.traders().iter().map(CrowdTrader::name).collect();
        assert_eq!(names, ["maker", "taker", "informed", "sweeper"]);
    }
}
