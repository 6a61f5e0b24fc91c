//! Price paths: a fair value per market and reference prices per asset, driven by a path the
//! test gives, advanced one step per activity step ([`SimHandle::step_activity`], or the
//! [`SimBuilder::activity`] timer).
//!
//! A market's fair value is what the [crowd](crate::Crowd) trades around: its makers quote
//! about it, its informed traders take quotes on the wrong side of it. It follows a
//! [`FairValue`]: a [`PricePath`] of probabilities, or a reference price through a linear map.
//! A driven reference price is what RTDS (`crypto_prices`, `crypto_prices_chainlink`,
//! `crypto_prices_twap_*`, `equity_prices`) and PolyBolt (`price.*`) then report for that asset
//! instead of their synthetic series, so a signal bot sees the reference move and the books
//! follow it. [`SimHandle::move_book`] moves a book to a price at once.
//!
//! [`SimHandle::step_activity`]: crate::SimHandle::step_activity
//! [`SimBuilder::activity`]: crate::SimBuilder::activity
//! [`SimHandle::move_book`]: crate::SimHandle::move_book

use std::collections::BTreeMap;

use polyclob::fixed::Price;

use crate::exchange::rng::Rng;
use crate::exchange::state::Exchange;

/// A series of integer values, one per activity step: scripted, or a seeded random walk with
/// jumps. The unit is the user's: micro-units of probability (10⁻⁶, as [`Price`]) for a
/// market's fair value, micro-dollars (10⁻⁶ USD) for a reference price.
///
/// ```
/// use polyclob_sim::PricePath;
///
/// // 0.40, then 0.45 from the next step on, then 0.60 (and 0.60 after the script ends).
/// let fair = PricePath::scripted([400_000, 450_000, 600_000]);
/// // BTC at $100,000 moving up to $50 a step, a $1,000 jump on 1% of steps.
/// let btc = PricePath::random_walk(100_000_000_000, 50_000_000, 7).jumps(10_000, 1_000_000_000);
/// # let _ = (fair, btc);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PricePath(Kind);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Scripted(Vec<u64>),
    Walk {
        start: u64,
        max_step: u64,
        seed: u64,
        jump_per_million: u32,
        jump: u64,
    },
}

impl PricePath {
    /// The given values in order, one per step (the first is the value now); the last value
    /// holds once the script ends. An empty script holds 0.
    #[must_use]
    pub fn scripted(values: impl IntoIterator<Item = u64>) -> Self {
        Self(Kind::Scripted(values.into_iter().collect()))
    }

    /// A random walk from `start`: each step adds a seeded uniform move in
    /// `-max_step ..= max_step` (never below 0). No jumps unless [`jumps`](Self::jumps) is set.
    #[must_use]
    pub fn random_walk(start: u64, max_step: u64, seed: u64) -> Self {
        Self(Kind::Walk {
            start,
            max_step,
            seed,
            jump_per_million: 0,
            jump: 0,
        })
    }

    /// Adds jumps to a random walk: on a step, with probability `per_million / 1_000_000`, a
    /// move of `size` up or down (even odds) on top of the walk's own. No effect on a script.
    /// Default is no jumps.
    #[must_use]
    pub fn jumps(mut self, per_million: u32, size: u64) -> Self {
        if let Kind::Walk {
            jump_per_million,
            jump,
            ..
        } = &mut self.0
        {
            *jump_per_million = per_million;
            *jump = size;
        }
        self
    }

    fn start(self) -> Running {
        let (value, rng) = match &self.0 {
            Kind::Scripted(v) => (v.first().copied().unwrap_or(0), Rng::new(0, 0)),
            Kind::Walk { start, seed, .. } => (*start, Rng::new(*seed, 11)),
        };
        Running {
            path: self,
            index: 0,
            value,
            rng,
        }
    }
}

/// A path being followed.
#[derive(Debug, Clone)]
struct Running {
    path: PricePath,
    index: usize,
    value: u64,
    rng: Rng,
}

impl Running {
    fn step(&mut self) {
        self.index += 1;
        match &self.path.0 {
            Kind::Scripted(v) => {
                if let Some(x) = v.get(self.index) {
                    self.value = *x;
                }
            }
            Kind::Walk {
                max_step,
                jump_per_million,
                jump,
                ..
            } => {
                let up = self.rng.below(max_step.saturating_mul(2).saturating_add(1));
                let mut v = self.value.saturating_add(up).saturating_sub(*max_step);
                if self.rng.chance(*jump_per_million) {
                    v = if self.rng.below(2) == 0 {
                        v.saturating_add(*jump)
                    } else {
                        v.saturating_sub(*jump)
                    };
                }
                self.value = v;
            }
        }
    }
}

/// What a market's fair value follows.
///
/// ```
/// use polyclob_sim::{FairValue, PricePath};
///
/// // Scripted probabilities.
/// let a = FairValue::path(PricePath::scripted([500_000, 650_000]));
/// // "Will BTC end above $100,000?": 0.5 at the strike, +0.1 per $200 above it.
/// let b = FairValue::reference("btc", 100_000_000_000, 2_000_000_000);
/// # let _ = (a, b);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FairValue(Fair);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Fair {
    Path(PricePath),
    Reference {
        asset: String,
        strike: u64,
        width: u64,
    },
}

impl FairValue {
    /// The fair value follows `path`, in micro-units of probability (0.5 = 500,000).
    #[must_use]
    pub fn path(path: PricePath) -> Self {
        Self(Fair::Path(path))
    }

    /// The fair value follows the reference price of `symbol` (an asset, `"btc"`, or any feed's
    /// symbol for it: `"btcusd"`, `"btcusdt"`, `"btc/usd"`) linearly: 0.5 at `strike`, moving
    /// by 1.0 per `width` (both micro-dollars), so `0.5 + (reference − strike) / width`, on
    /// the market's grid within its price range. Until the reference is driven
    /// ([`SimHandle::drive_reference`](crate::SimHandle::drive_reference)) the fair value
    /// stays at the market's midpoint.
    #[must_use]
    pub fn reference(symbol: &str, strike: u64, width: u64) -> Self {
        Self(Fair::Reference {
            asset: asset_of(symbol),
            strike,
            width: width.max(1),
        })
    }
}

/// The asset a feed symbol names: lowercase, without `/` and without a `usdt`/`usd` quote
/// suffix (`"BTC/USD"`, `"btcusdt"` and `"btcusd"` are all `"btc"`; `"aapl"` stays).
pub(crate) fn asset_of(symbol: &str) -> String {
    let s: String = symbol
        .chars()
        .filter(|c| *c != '/')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    for quote in ["usdt", "usd"] {
        if let Some(base) = s.strip_suffix(quote).filter(|b| !b.is_empty()) {
            return base.to_owned();
        }
    }
    s
}

/// The driven prices of one simulator.
#[derive(Debug, Default)]
pub(crate) struct Paths {
    /// Reference paths per asset (micro-dollars).
    references: BTreeMap<String, Running>,
    /// Fair-value drivers per market index.
    drivers: BTreeMap<usize, Driver>,
    /// Fair values that differ from a market's configured midpoint, per market index.
    fair: BTreeMap<usize, u32>,
}

#[derive(Debug)]
enum Driver {
    Path(Running),
    Reference {
        asset: String,
        strike: u64,
        width: u64,
    },
}

impl Paths {
    /// The driven reference price of a feed symbol now, in the feeds' 10⁻⁵ USD.
    pub(crate) fn reference(&self, symbol: &str) -> Option<u64> {
        self.references.get(&asset_of(symbol)).map(|r| r.value / 10)
    }

    /// The value a feed's series for `symbol` reports at tick `k` (10⁻⁵ USD): the driven
    /// price when its asset is driven, else the synthetic series ([`series_value`]).
    pub(crate) fn reference_at(&self, seed: u64, symbol: &str, base: u64, k: u64) -> u64 {
        self.reference(symbol)
            .unwrap_or_else(|| series_value(seed, symbol, base, k))
    }

    /// Markets whose fair value was driven or moved, with it.
    pub(crate) fn moved(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.fair.iter().map(|(m, f)| (*m, *f))
    }
}

/// splitmix64 finaliser: a well-mixed hash of the tick inputs.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn symbol_hash(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
    })
}

/// The synthetic value (10⁻⁵ USD) of a symbol at tick `k`: a slow triangle wave of ±0.1%
/// plus a little seeded noise. Integer arithmetic only, so it is identical everywhere.
pub(crate) fn series_value(seed: u64, symbol: &str, base: u64, k: u64) -> u64 {
    const PERIOD: u64 = 240;
    let phase = k % PERIOD;
    let tri = if phase < PERIOD / 2 {
        phase
    } else {
        PERIOD - phase
    };
    let amp = base / 500;
    let wave = amp * tri / (PERIOD / 2);
    let span = base / 5000 + 1;
    let noise =
        mix(seed ^ symbol_hash(symbol) ^ k.wrapping_mul(0xA24B_AED4_963E_E407)) % (2 * span + 1);
    (base - amp / 2 + wave + noise).saturating_sub(span)
}

/// `p` on `tick`'s grid (nearest, ties up) within the tradable range `tick ..= 1 − tick`.
pub(crate) fn snap(p: u64, tick: u32) -> u32 {
    let t = u64::from(tick.max(1));
    let on = (p + t / 2) / t * t;
    let hi = u64::from(Price::SCALE).saturating_sub(t);
    u32::try_from(on.clamp(t, hi.max(t))).unwrap_or(tick)
}

impl Paths {
    /// The fair value of market `mi`: driven or moved, else its configured midpoint; on the
    /// market's grid.
    pub(crate) fn fair_value(&self, ex: &Exchange, mi: usize) -> u32 {
        let tick = ex.markets[mi].spec.tick.as_micros();
        self.fair
            .get(&mi)
            .copied()
            .unwrap_or_else(|| snap(u64::from(ex.markets[mi].spec.mid.as_micros()), tick))
    }

    /// Sets market `mi`'s fair value to `price` (on the grid) at once; returns it.
    pub(crate) fn set_fair(&mut self, ex: &Exchange, mi: usize, price: u32) -> u32 {
        let p = snap(u64::from(price), ex.markets[mi].spec.tick.as_micros());
        self.fair.insert(mi, p);
        p
    }

    /// Drives market `mi`'s fair value from now on (the value for this step is set at once).
    pub(crate) fn drive_market(&mut self, ex: &Exchange, mi: usize, fair: FairValue) {
        let driver = match fair.0 {
            Fair::Path(p) => Driver::Path(p.start()),
            Fair::Reference {
                asset,
                strike,
                width,
            } => Driver::Reference {
                asset,
                strike,
                width,
            },
        };
        self.drivers.insert(mi, driver);
        self.update_fair(ex, mi);
    }

    /// Drives the reference price of `symbol`'s asset from now on.
    pub(crate) fn drive_reference(&mut self, ex: &Exchange, symbol: &str, path: PricePath) {
        let asset = asset_of(symbol);
        self.references.insert(asset.clone(), path.start());
        let linked: Vec<usize> = self
            .drivers
            .iter()
            .filter(|(_, d)| matches!(d, Driver::Reference { asset: a, .. } if *a == asset))
            .map(|(m, _)| *m)
            .collect();
        for mi in linked {
            self.update_fair(ex, mi);
        }
    }

    /// One step of every path: references first, then the fair values that follow them.
    pub(crate) fn step(&mut self, ex: &Exchange) {
        for r in self.references.values_mut() {
            r.step();
        }
        let markets: Vec<usize> = self.drivers.keys().copied().collect();
        for mi in markets {
            if let Some(Driver::Path(r)) = self.drivers.get_mut(&mi) {
                r.step();
            }
            self.update_fair(ex, mi);
        }
    }

    /// Recomputes market `mi`'s fair value from its driver.
    fn update_fair(&mut self, ex: &Exchange, mi: usize) {
        let tick = ex.markets[mi].spec.tick.as_micros();
        let raw = match self.drivers.get(&mi) {
            None => return,
            Some(Driver::Path(r)) => r.value,
            Some(Driver::Reference {
                asset,
                strike,
                width,
            }) => {
                // Until the reference is driven, the fair value stays where it is.
                let Some(r) = self.references.get(asset) else {
                    return;
                };
                let reference = i128::from(r.value);
                let one = i128::from(Price::SCALE);
                let p = one / 2 + (reference - i128::from(*strike)) * one / i128::from(*width);
                u64::try_from(p.max(0)).unwrap_or(0)
            }
        };
        self.fair.insert(mi, snap(raw, tick));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_hold_their_last_value_and_walks_are_seeded() {
        let mut s = PricePath::scripted([1, 2, 3]).start();
        let got: Vec<u64> = (0..5)
            .map(|_| {
                let v = s.value;
                s.step();
                v
            })
            .collect();
        assert_eq!(got, [1, 2, 3, 3, 3]);
        let walk = |seed| {
            let mut w = PricePath::random_walk(1_000, 10, seed)
                .jumps(100_000, 500)
                .start();
            (0..200)
                .map(|_| {
                    w.step();
                    w.value
                })
                .collect::<Vec<_>>()
        };
        let (a, b, c) = (walk(1), walk(1), walk(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Moves are bounded by the step, except the jumps (there are some at 10%).
        let jumps = std::iter::once(1_000)
            .chain(a.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[0].abs_diff(w[1]) > 10)
            .count();
        assert!((5..60).contains(&jumps), "{jumps}");
    }

    #[test]
    fn symbols_name_assets_and_prices_snap() {
        for s in ["btc", "BTC/USD", "btcusdt", "btcusd"] {
            assert_eq!(asset_of(s), "btc");
        }
        assert_eq!(asset_of("aapl"), "aapl");
        assert_eq!(snap(456_000, 10_000), 460_000);
        assert_eq!(snap(0, 10_000), 10_000);
        assert_eq!(snap(2_000_000, 1_000), 999_000);
    }

    #[test]
    fn series_is_deterministic_bounded_and_moving() {
        let base = 10_000_000_000; // $100,000 in 10⁻⁵ USD
        let a: Vec<u64> = (0..500)
            .map(|k| series_value(7, "btcusdt", base, k))
            .collect();
        let b: Vec<u64> = (0..500)
            .map(|k| series_value(7, "btcusdt", base, k))
            .collect();
        assert_eq!(a, b);
        assert_ne!(
            a,
            (0..500)
                .map(|k| series_value(8, "btcusdt", base, k))
                .collect::<Vec<_>>()
        );
        assert!(a.iter().all(|v| v.abs_diff(base) <= base / 500));
        assert!(a.windows(2).filter(|w| w[0] != w[1]).count() > 400);
    }
}
