//! Accounts with money: the exchange's balance and allowance checks on new orders, the
//! balance reserved by open orders, and fills settled on the ledger (read by
//! `GET /balance-allowance`, funded through the handle).
//!
//! There is one book of balances, the [`Ledger`]: the chain's when the simulator runs one
//! (`SimBuilder::onchain`), else the exchange's own. The simulator's own liquidity (the seeded
//! books and the activity traders, `0x…5eed`) is an unlimited counterparty: its side of a
//! fill is minted or burned.

use alloy_primitives::{Address, U256};

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

    /// What the maker owes in trades matched but not settled: (collateral, shares of
    /// `(mi, ti)`).
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
                let (size, cost) = match fill {
                    Some(f) => (f.size, fill_notional(f.size, f.price)),
                    None => (
                        t.size,
                        t.fills
                            .iter()
                            .map(|f| fill_notional(f.size, self.taker_view_price(t, f)))
                            .fold(0, u64::saturating_add),
                    ),
                };
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

    /// Settles a trade on the ledger, all of its fills or none: makers on the taker's token
    /// trade against it; a maker on the other token (an RFQ mint or merge) meets it through
    /// a split or a merge of the full set. When a fill cannot be covered (balance or
    /// approval), the balances and cost bases are left as they were, the fills are counted in
    /// the ledger's `settlement_failures`, and the answer is false: the trade failed.
    pub(crate) fn settle_balances(
        &mut self,
        taker_seq: u64,
        mi: usize,
        ti: usize,
        side: Side,
        fills: &[Fill],
    ) -> bool {
        let ledger = self.ledger_mut();
        let before = ledger.settlement_failures;
        let snapshot = (ledger.balances.clone(), ledger.basis.clone());
        self.settle_each(taker_seq, mi, ti, side, fills);
        let ledger = self.ledger_mut();
        if ledger.settlement_failures == before {
            return true;
        }
        (ledger.balances, ledger.basis) = snapshot;
        false
    }

    fn settle_each(&mut self, taker_seq: u64, mi: usize, ti: usize, side: Side, fills: &[Fill]) {
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
            .get(&taker_seq)
            .and_then(|o| addr(&o.maker_address));
        let mut makers: Vec<(Address, Fill)> = Vec::new();
        let mut crossed: Vec<(Address, Fill, Option<U256>)> = Vec::new();
        let mut failed = 0u64;
        for f in fills {
            match self
                .orders
                .get(&f.maker_seq)
                .map(|o| (addr(&o.maker_address), o.token))
            {
                Some((Some(a), t)) if t == ti => makers.push((a, *f)),
                Some((Some(a), t)) => crossed.push((a, *f, token_of(t))),
                _ => failed += 1,
            }
        }
        let token = token_of(ti);
        let ledger = self.ledger_mut();
        let (Some(taker), Some(token)) = (taker, token) else {
            ledger.settlement_failures += 1;
            return;
        };
        ledger.settlement_failures += failed;
        ledger.settle_fills(taker, side, &makers, token, neg_risk);
        for (maker, f, maker_token) in crossed {
            match maker_token {
                Some(t) => ledger.settle_crossed(side, [(taker, token), (maker, t)], &f, neg_risk),
                None => ledger.settlement_failures += 1,
            }
        }
    }
}
