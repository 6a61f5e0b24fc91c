//! Accounts with money: the exchange's balance and allowance checks on new orders, the
//! balance reserved by open orders, and fills settled on the ledger (read by
//! `GET /balance-allowance`, funded through the handle).
//!
//! There is one book of balances, the [`Ledger`]: the chain's when the simulator runs one
//! (`SimBuilder::onchain`), else the exchange's own. The simulator's own liquidity (the seeded
//! books and the activity traders, `0x…5eed`) is an unlimited counterparty: its side of a
//! fill is minted or burned.

use alloy_primitives::{Address, U256};

use polyclob::fixed::{Notional, Price, Size};
use polyclob::types::Side;

use super::engine::Fill;
use super::ledger::Ledger;
use super::orders::{NewOrder, Status};
use super::state::{Exchange, SEED_ADDRESS, fill_notional};

/// The exchange's refusal of an order its maker cannot cover (Polymarket's error text; the
/// part after the colon says which of the two is short).
const NOT_ENOUGH_BALANCE: &str = "not enough balance / allowance: the balance is not enough";
const NOT_ENOUGH_ALLOWANCE: &str = "not enough balance / allowance: the allowance is not enough";

impl Exchange {
    /// The book of balances: the chain's when it runs, else the exchange's own.
    pub(crate) fn ledger(&self) -> &Ledger {
        #[cfg(feature = "onchain")]
        if let Some(c) = self.chain.as_ref() {
            return &c.ledger;
        }
        &self.ledger
    }

    pub(crate) fn ledger_mut(&mut self) -> &mut Ledger {
        #[cfg(feature = "onchain")]
        if let Some(c) = self.chain.as_mut() {
            return &mut c.ledger;
        }
        &mut self.ledger
    }

    /// What the maker's open and held orders and its trades not settled yet hold back:
    /// collateral for its buys (every market) and shares of token `(mi, ti)` for its sells
    /// there.
    fn reserved(&self, user: &str, maker: &str, mi: usize, ti: usize) -> (u64, u64) {
        let (mut collateral, mut shares) = self.unsettled(user, maker, mi, ti);
        let live = self.live_by_user.get(user).into_iter().flatten();
        for o in live.filter_map(|s| self.orders.get(s)) {
            if !matches!(o.status, Status::Live | Status::Delayed)
                || !o.maker_address.eq_ignore_ascii_case(maker)
            {
                continue;
            }
            let left = o.original.saturating_sub(o.matched);
            match o.side {
                Side::Buy => {
                    collateral = collateral.saturating_add(fill_notional(left, o.price));
                }
                Side::Sell if o.market == mi && o.token == ti => {
                    shares = shares.saturating_add(left);
                }
                Side::Sell => {}
            }
        }
        (collateral, shares)
    }

    /// What the maker owes in trades matched but not settled: (collateral, fees of buys
    /// included, and shares of `(mi, ti)`).
    fn unsettled(&self, user: &str, maker: &str, mi: usize, ti: usize) -> (u64, u64) {
        let (mut collateral, mut shares) = (0u64, 0u64);
        for t in self.settling.pending().filter_map(|i| self.trades.get(i)) {
            let legs = std::iter::once((t.taker_seq, None))
                .chain(t.fills.iter().map(|f| (f.maker_seq, Some(f))));
            for (seq, fill) in legs {
                let Some(o) = self.orders.get(&seq) else {
                    continue;
                };
                if o.user != user || !o.maker_address.eq_ignore_ascii_case(maker) {
                    continue;
                }
                // What the leg pays: its pUSD, and on a buy its fee on top.
                let (size, cost, fee) = match fill {
                    Some(f) => (
                        f.size,
                        fill_notional(f.size, f.price),
                        self.maker_fee(t.market, f),
                    ),
                    None => (
                        t.size,
                        t.fills
                            .iter()
                            .map(|f| self.taker_pusd(t.token, f))
                            .fold(0, u64::saturating_add),
                        t.fee,
                    ),
                };
                let cost = cost.saturating_add(fee);
                match o.side {
                    Side::Buy => collateral = collateral.saturating_add(cost),
                    Side::Sell if o.market == mi && o.token == ti => {
                        shares = shares.saturating_add(size);
                    }
                    Side::Sell => {}
                }
            }
        }
        (collateral, shares)
    }

    /// Refuses an order whose maker cannot cover it beyond what its open orders reserve: a
    /// BUY needs `usdc` of pUSD and the exchange's allowance for it, a SELL `shares` of the
    /// token and the exchange's ERC-1155 approval. Off with `SimBuilder::enforce_balances`.
    pub(crate) fn check_funds(
        &self,
        o: &NewOrder,
        (mi, ti): (usize, usize),
        usdc: u64,
        shares: u64,
    ) -> Result<(), String> {
        if !self.cfg.enforce_balances || self.is_simulated(&o.maker_address) {
            return Ok(());
        }
        let maker: Address = o
            .maker_address
            .parse()
            .map_err(|_| NOT_ENOUGH_BALANCE.to_owned())?;
        let ledger = self.ledger();
        let spec = &self.markets[mi].spec;
        let token: U256 = spec.tokens[ti]
            .token_id()
            .parse()
            .map_err(|_| NOT_ENOUGH_BALANCE.to_owned())?;
        // The exchange the fill settles on: ExchangeV3 for a Protocol V2 market.
        let (exchange, _, v2) = ledger.venue(token, spec.neg_risk);
        let (held_c, held_t) = self.reserved(&o.user, &o.maker_address, mi, ti);
        match o.side {
            Side::Buy => {
                let need = U256::from(usdc) + U256::from(held_c);
                if ledger.collateral_of(maker) < need {
                    return Err(NOT_ENOUGH_BALANCE.into());
                }
                if ledger.allowance_of(maker, exchange) < need {
                    return Err(NOT_ENOUGH_ALLOWANCE.into());
                }
            }
            Side::Sell => {
                let need = U256::from(shares) + U256::from(held_t);
                if ledger.token_of(maker, token) < need {
                    return Err(NOT_ENOUGH_BALANCE.into());
                }
                if !ledger.seller_approved(maker, exchange, v2) {
                    return Err(NOT_ENOUGH_ALLOWANCE.into());
                }
            }
        }
        Ok(())
    }

    /// Settles trade `idx` on the ledger, all of it or none: its fills (makers on the taker's
    /// token trade against it; a maker on the other token meets it through a mint or a merge
    /// of the full set), its taker fee (on top of a buy, out of a sell's proceeds) and any maker
    /// fees, then the cost bases (the taker's trade one leg, each maker fill one). When anything
    /// cannot be covered (balance or approval), the balances and cost bases are left as they
    /// were, the failures are counted in the ledger's `settlement_failures`, and the answer is
    /// false: the trade failed.
    pub(crate) fn settle_balances(&mut self, idx: usize) -> bool {
        let Some(t) = self.trades.get(idx).cloned() else {
            return false;
        };
        let ledger = self.ledger_mut();
        let before = ledger.settlement_failures;
        let snapshot = (ledger.balances.clone(), ledger.basis.clone());
        self.settle_each(&t);
        let ledger = self.ledger_mut();
        if ledger.settlement_failures == before {
            return true;
        }
        (ledger.balances, ledger.basis) = snapshot;
        false
    }

    fn settle_each(&mut self, t: &super::trades::TradeRec) {
        let (mi, ti, side) = (t.market, t.token, t.side);
        // Simulated traders (the crowd, the seed liquidity) settle as the ledger's unlimited house.
        let addr = |s: &str| {
            if self.is_simulated(s) {
                SEED_ADDRESS.parse::<Address>().ok()
            } else {
                s.parse::<Address>().ok()
            }
        };
        let spec = &self.markets[mi].spec;
        let neg_risk = spec.neg_risk;
        let token_of = |t: usize| spec.tokens[t].token_id().parse::<U256>().ok();
        let taker = self
            .orders
            .get(&t.taker_seq)
            .and_then(|o| addr(&o.maker_address));
        // Each maker fill: (address, fill, its token, its fee, whether it crossed the tokens).
        let mut legs: Vec<(Address, Fill, U256, u64, bool)> = Vec::new();
        let mut failed = 0u64;
        for f in &t.fills {
            match self
                .orders
                .get(&f.maker_seq)
                .map(|o| (addr(&o.maker_address), o.token))
            {
                Some((Some(a), mt)) => match token_of(mt) {
                    Some(id) => legs.push((a, *f, id, self.maker_fee(mi, f), mt != ti)),
                    None => failed += 1,
                },
                _ => failed += 1,
            }
        }
        let token = token_of(ti);
        let taker_notional = t
            .fills
            .iter()
            .map(|f| {
                let p = Price::new(self.taker_view_price(t, f)).unwrap_or(Price::ZERO);
                p.checked_mul_size(Size::from_micros(f.size))
                    .unwrap_or(Notional::ZERO)
            })
            .fold(Notional::ZERO, |a, n| {
                a.checked_add(n).unwrap_or(Notional::MAX)
            });
        let ledger = self.ledger_mut();
        let (Some(taker), Some(token)) = (taker, token) else {
            ledger.settlement_failures += 1;
            return;
        };
        ledger.settlement_failures += failed;
        let same: Vec<(Address, Fill)> = legs.iter().filter(|l| !l.4).map(|l| (l.0, l.1)).collect();
        ledger.settle_fills(taker, side, &same, token, neg_risk);
        for (maker, f, maker_token, _, crossed) in &legs {
            if *crossed {
                ledger.settle_crossed(side, [(taker, token), (*maker, *maker_token)], f, neg_risk);
            }
        }
        // Fees, once the fills moved: the taker's for the trade, each maker's for its fill.
        let (exchange, _, _) = ledger.venue(token, neg_risk);
        let maker_side = |crossed: bool| if crossed { side } else { side.opposite() };
        let fees = std::iter::once((taker, side, t.fee))
            .chain(legs.iter().map(|l| (l.0, maker_side(l.4), l.3)));
        for (who, side, fee) in fees {
            if ledger.charge_fee(who, exchange, side, fee).is_err() {
                ledger.settlement_failures += 1;
            }
        }
        // Cost bases: buyers before sellers (a client's own orders may meet).
        let taker_leg = (taker, token, side, (t.size, taker_notional, t.fee));
        let maker_legs = legs.iter().map(|(who, f, id, fee, crossed)| {
            let n = Price::new(f.price)
                .and_then(|p| p.checked_mul_size(Size::from_micros(f.size)))
                .unwrap_or(Notional::ZERO);
            (*who, *id, maker_side(*crossed), (f.size, n, *fee))
        });
        let mut all: Vec<_> = std::iter::once(taker_leg).chain(maker_legs).collect();
        all.sort_by_key(|l| l.2 != Side::Buy);
        for (who, id, side, leg) in all {
            ledger.record_leg(who, id, side, leg);
        }
    }
}
