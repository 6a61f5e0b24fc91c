//! Maker rebates, as the venue pays and reports them (docs.polymarket.com, maker rebates):
//! on a fee-enabled market with a rebate rate, each client maker's confirmed fills accrue, per
//! UTC day and market, `rebate_rate` of the taker fees those fills carried
//! ([`FeeSchedule::maker_rebate`]); the day's amounts are paid in pUSD once a maker's unpaid
//! total reaches $1 (smaller totals keep accruing), each paid amount becoming one Data API
//! `MAKER_REBATE` activity row. `GET /rebates/current` (`wire/rest.rs`) lists a maker's amounts
//! of a day, paid or not. Payment runs when the UTC day turns (the sweeper) or on
//! `SimHandle::pay_rebates`.
//!
//! [`FeeSchedule::maker_rebate`]: polyclob::types::FeeSchedule::maker_rebate

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};
use polyclob::fixed::{Price, Size};

use super::state::{Exchange, now_s};

/// The least a maker is paid at once, micro-pUSD.
const MIN_PAYOUT: u64 = 1_000_000;

/// One day's accrual of one maker on one market.
#[derive(Debug, Default, Clone)]
struct Accrual {
    /// The maker's fills: (its price, shares).
    fills: Vec<(Price, Size)>,
    /// Paid already (the amount when it was paid).
    paid: Option<u64>,
}

/// A paid rebate: a `MAKER_REBATE` activity row.
#[derive(Debug, Clone)]
pub(crate) struct Payout {
    /// Lowercase maker (funder) address.
    pub(crate) wallet: String,
    pub(crate) market: usize,
    /// Micro-pUSD.
    pub(crate) amount: u64,
    /// Unix seconds.
    pub(crate) time: u64,
    pub(crate) tx_hash: String,
}

/// An accrual's key: (lowercase maker address, day since the epoch, market index).
type Key = (String, u64, usize);

/// Accrued and paid rebates.
#[derive(Debug, Default)]
pub(crate) struct Rebates {
    accrued: BTreeMap<Key, Accrual>,
    /// Every payout, oldest first.
    pub(crate) payouts: Vec<Payout>,
    /// The UTC day the sweeper last saw.
    day: Option<u64>,
}

/// A rebate row of `GET /rebates/current`: (market, micro-pUSD).
pub(crate) type RebateRow = (usize, u64);

impl Exchange {
    /// Accrues the rebates of settled trade `idx`'s client makers.
    pub(crate) fn accrue_rebates(&mut self, idx: usize) {
        let Some(t) = self.trades.get(idx) else {
            return;
        };
        let mi = t.market;
        let rebating = self.markets[mi]
            .spec
            .fees
            .and_then(|f| f.rebate_rate())
            .is_some_and(|r| !r.is_zero());
        if !rebating {
            return;
        }
        let day = t.match_time / 86_400;
        let fills: Vec<(String, (Price, Size))> = t
            .fills
            .iter()
            .filter_map(|f| {
                let o = self.order_by_seq(f.maker_seq)?;
                if self.is_simulated(&o.user) {
                    return None;
                }
                let fill = (Price::new(f.price)?, Size::from_micros(f.size));
                Some((o.maker_address.to_ascii_lowercase(), fill))
            })
            .collect();
        for (maker, fill) in fills {
            let a = self.rebates.accrued.entry((maker, day, mi)).or_default();
            a.fills.push(fill);
        }
    }

    /// The rebate an accrual is worth, micro-pUSD.
    fn rebate_of(&self, mi: usize, a: &Accrual) -> u64 {
        let schedule = self.markets[mi].spec.fees;
        schedule
            .and_then(|f| f.maker_rebate(a.fills.iter().copied()))
            .map_or(0, Size::as_micros)
    }

    /// A maker's rebates of one day, per market with a non-zero amount (paid or not).
    pub(crate) fn rebates_of(&self, maker: &str, day: u64) -> Vec<RebateRow> {
        let maker = maker.to_ascii_lowercase();
        self.rebates
            .accrued
            .range((maker.clone(), day, 0)..=(maker, day, usize::MAX))
            .map(|((_, _, mi), a)| (*mi, a.paid.unwrap_or_else(|| self.rebate_of(*mi, a))))
            .filter(|(_, amount)| *amount > 0)
            .collect()
    }

    /// Pays every maker whose unpaid rebates of days before `before` (every day, with `None`)
    /// reach the minimum payout: pUSD credited, one `MAKER_REBATE` row per day and market.
    /// Returns the total paid, micro-pUSD.
    pub(crate) fn pay_rebates(&mut self, before: Option<u64>) -> u64 {
        let due = |day: u64| before.is_none_or(|b| day < b);
        let mut unpaid: BTreeMap<String, Vec<(Key, u64)>> = BTreeMap::new();
        for (key, a) in &self.rebates.accrued {
            if a.paid.is_none() && due(key.1) {
                let amount = self.rebate_of(key.2, a);
                unpaid
                    .entry(key.0.clone())
                    .or_default()
                    .push((key.clone(), amount));
            }
        }
        let mut total = 0u64;
        let now = now_s();
        for (maker, rows) in unpaid {
            let sum: u64 = rows.iter().map(|r| r.1).fold(0, u64::saturating_add);
            let Ok(wallet) = maker.parse::<Address>() else {
                continue;
            };
            if sum < MIN_PAYOUT {
                continue;
            }
            self.ledger_mut().mint_collateral(wallet, U256::from(sum));
            total = total.saturating_add(sum);
            for (key, amount) in rows {
                if let Some(a) = self.rebates.accrued.get_mut(&key) {
                    a.paid = Some(amount);
                }
                if amount > 0 {
                    let tx_hash = format!("0x{}", alloy_primitives::hex::encode(self.rng_bytes()));
                    self.rebates.payouts.push(Payout {
                        wallet: maker.clone(),
                        market: key.2,
                        amount,
                        time: now,
                        tx_hash,
                    });
                }
            }
        }
        total
    }

    /// The sweeper's part: when the UTC day has turned, yesterday's rebates (and earlier
    /// ones below the minimum then) are due.
    pub(crate) fn pay_rebates_daily(&mut self) {
        let today = now_s() / 86_400;
        if self.rebates.day.is_some_and(|d| d < today) {
            self.pay_rebates(Some(today));
        }
        self.rebates.day = Some(today);
    }
}
