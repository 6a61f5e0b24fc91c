//! Triggers: when an injected event fires, counted over the events a rule applies to (HTTP
//! requests, WS frames, trades), on a schedule or with a seeded probability. Shared by the
//! fault rules (`scenario/faults.rs`) and the settlement's ghost fills (`settlement.rs`).

use super::rng::Rng;

/// When a fault fires, counted over the events it applies to (HTTP requests, or WS frames).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Trigger {
    /// Never (the default).
    Never,
    /// On every `n`-th event (`n`, `2n`, …); `0` means never.
    EveryNth(u64),
    /// On events `first ..= first + count - 1` (1-based), e.g. a burst of 429s.
    Window {
        /// The first event affected (1-based).
        first: u64,
        /// How many consecutive events are affected.
        count: u64,
    },
    /// Independently on each event with this probability (0.0–1.0), from the seeded PRNG.
    Probability(f64),
}

impl Trigger {
    pub(crate) fn fires(self, n: u64, rng: &mut Rng) -> bool {
        match self {
            Self::Never => false,
            Self::EveryNth(k) => k != 0 && n % k == 0,
            Self::Window { first, count } => n >= first && n < first.saturating_add(count),
            Self::Probability(p) => {
                let per_million = (p.clamp(0.0, 1.0) * 1_000_000.0) as u32;
                rng.chance(per_million)
            }
        }
    }
}
