//! The house: the simulator's own traders, the seed liquidity (`0x…5eed`) and the members of
//! a crowd. They trade through the exchange's rules like anyone else, but as an unlimited
//! counterparty: their side of a fill is minted or burned, their trades among themselves
//! settle nothing, and their finished orders are forgotten once no kept trade names them.
//! What they do is the scenario's business (`scenario/`); the exchange only knows who they
//! are and takes their orders.

use polyclob::fixed::Price;
use polyclob::types::{OrderType, Side};

use super::orders::NewOrder;
use super::rng::Rng;
use super::state::{Exchange, SEED_ADDRESS, SEED_OWNER, fill_notional};

impl Exchange {
    /// Whether `user` is one of the simulator's own traders (seed liquidity or crowd): an
    /// unlimited counterparty whose trades among themselves are not settled.
    pub(crate) fn is_simulated(&self, user: &str) -> bool {
        user == SEED_ADDRESS || self.house.contains(user)
    }

    /// Counts `address` (lowercase) among the simulator's own traders.
    pub(crate) fn join_house(&mut self, address: String) {
        self.house.insert(address);
    }

    /// Makes the seed liquidity's live orders those of house trader `to` (a crowd's maker, so
    /// that the seeded books become its quotes).
    pub(crate) fn hand_over_seed_orders(&mut self, to: String) {
        let seeded = self.live_by_user.remove(SEED_ADDRESS).unwrap_or_default();
        for seq in &seeded {
            if let Some(o) = self.orders.get_mut(seq) {
                o.user.clone_from(&to);
                o.maker_address.clone_from(&to);
            }
        }
        self.live_by_user.entry(to).or_default().extend(seeded);
    }

    /// Places an order for simulated trader `user` (lowercase address) through the normal
    /// rules, its id drawn from `rng`; a refusal (an amount that does not divide exactly, a
    /// FAK with nothing to take) just skips it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn place_as(
        &mut self,
        rng: &mut Rng,
        user: &str,
        mi: usize,
        ti: usize,
        side: Side,
        price: u32,
        size: u64,
        order_type: OrderType,
    ) {
        let tick = self.markets[mi].spec.tick;
        let Some(p) = Price::new(price).filter(|p| tick.in_range(*p) && tick.is_on_grid(*p)) else {
            return;
        };
        let usdc = fill_notional(size, p.as_micros());
        if usdc == 0 {
            return;
        }
        let (maker_amount, taker_amount) = match side {
            Side::Buy => (usdc, size),
            Side::Sell => (size, usdc),
        };
        let id = format!("0x{}", alloy_primitives::hex::encode(rng.bytes32()));
        let token_id = self.markets[mi].spec.tokens[ti].token_id().to_owned();
        let _ = self.place(NewOrder {
            id,
            owner: SEED_OWNER.to_owned(),
            user: user.to_owned(),
            maker_address: user.to_owned(),
            token_id,
            side,
            maker_amount,
            taker_amount,
            order_type,
            post_only: false,
            expiration: 0,
            builder: alloy_primitives::B256::ZERO,
            v1: false,
        });
    }
}
