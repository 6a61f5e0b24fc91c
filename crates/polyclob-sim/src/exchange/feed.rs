//! The WS fan-out: every change of the exchange is published once, as a frame rendered by
//! [`events`](super::events) and shared by every connection that wants it ([`Outbound`]), and
//! not rendered at all while no connection listens.

use std::sync::Arc;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use polyclob::types::{Side, TickSize};

use super::engine::LevelChange;
use super::events;
use super::state::{Exchange, Outbound, SEED_OWNER, now_ms};

impl Exchange {
    /// Changes a market's tick size and announces it on the market channel.
    pub(crate) fn set_tick_size(&mut self, mi: usize, tick: TickSize) {
        let old = self.markets[mi].spec.tick;
        self.markets[mi].spec.tick = tick;
        let ts = now_ms();
        for ti in 0..2 {
            let text = events::tick_size_change(self, mi, ti, old, tick, ts);
            self.publish_market(mi, ti, text);
        }
    }

    fn publish(&mut self, msg: Outbound) {
        // No receivers is fine: nobody is listening.
        let _ = self.events.send(Arc::new(msg));
    }

    fn publish_market(&mut self, mi: usize, ti: usize, text: String) {
        self.publish_market_frame(mi, ti, text, false);
    }

    fn publish_market_frame(&mut self, mi: usize, ti: usize, text: String, custom: bool) {
        let assets = vec![self.markets[mi].spec.tokens[ti].token_id().to_owned()];
        self.publish_to(assets, text, custom);
    }

    fn publish_to(&mut self, assets: Vec<String>, text: String, custom: bool) {
        self.msg_seq += 1;
        self.publish(Outbound::Market {
            seq: self.msg_seq,
            assets,
            custom,
            text: text.into(),
        });
    }

    /// Whether any WS connection is open: without one, frames are not even rendered.
    fn has_listeners(&self) -> bool {
        self.events.receiver_count() > 0
    }

    /// Publishes a change of market `mi`'s book caused by an order of token `ti`: one
    /// `price_change` frame with each level's entry for both tokens (token `ti`'s first), sent
    /// to the subscribers of either token, as the venue pairs them; then `best_bid_ask` for each
    /// token whose top moved.
    pub(crate) fn publish_price_changes(
        &mut self,
        mi: usize,
        ti: usize,
        changes: &[LevelChange],
        ts_ms: u64,
    ) {
        let mut moved = [false; 2];
        for (t, m) in moved.iter_mut().enumerate() {
            let view = self.markets[mi].book.view(t);
            let bba = (view.best_bid(), view.best_ask());
            *m = self.markets[mi].last_bba[t] != bba;
            self.markets[mi].last_bba[t] = bba;
        }
        if changes.is_empty() || !self.has_listeners() {
            return;
        }
        let text = events::price_change(self, mi, ti, changes, ts_ms);
        let tokens = &self.markets[mi].spec.tokens;
        let assets = [ti, 1 - ti]
            .map(|t| tokens[t].token_id().to_owned())
            .to_vec();
        self.publish_to(assets, text, false);
        // `custom_feature_enabled` subscribers also get `best_bid_ask` when the top moves.
        for t in [ti, 1 - ti] {
            if moved[t] {
                let text = events::best_bid_ask(self, mi, t, ts_ms);
                self.publish_market_frame(mi, t, text, true);
            }
        }
    }

    /// After a trade on token `ti` of market `mi`: `last_trade_price` on that token, then a
    /// fresh `book` of both tokens (the exchange sends one when a trade changes the book, and
    /// one book shows both).
    pub(super) fn publish_last_trade(
        &mut self,
        mi: usize,
        ti: usize,
        (price, side, size): (u32, Side, u64),
        ts_ms: u64,
    ) {
        if !self.has_listeners() {
            return;
        }
        let text = events::last_trade_price(self, mi, ti, price, side, size, ts_ms);
        self.publish_market(mi, ti, text);
        for t in [ti, 1 - ti] {
            let text = events::ws_book(self, mi, t, ts_ms);
            self.publish_market(mi, t, text);
        }
    }

    pub(super) fn publish_order_event(&mut self, seq: u64, kind: &str) {
        if !self.has_listeners() {
            return;
        }
        let Some(o) = self.orders.get(&seq) else {
            return;
        };
        if o.owner == SEED_OWNER {
            return;
        }
        let text = events::user_order(self, o, kind);
        let (user, market) = (
            o.user.clone(),
            self.markets[o.market].spec.condition_id.clone(),
        );
        self.publish(Outbound::User {
            user,
            market,
            text: text.into(),
        });
    }

    /// Publishes trade `trade_idx` in its current status to the users in it.
    pub(crate) fn publish_trade_events(&mut self, trade_idx: usize) {
        if !self.has_listeners() {
            return;
        }
        let Some(t) = self.trades.get(trade_idx) else {
            return;
        };
        let mut users: Vec<String> = std::iter::once(t.taker_seq)
            .chain(t.fills.iter().map(|f| f.maker_seq))
            .filter_map(|s| self.orders.get(&s))
            .filter(|o| o.owner != SEED_OWNER)
            .map(|o| o.user.clone())
            .collect();
        users.sort_unstable();
        users.dedup();
        let market = self.markets[t.market].spec.condition_id.clone();
        let taker = self.orders.get(&t.taker_seq).map(|o| o.user.clone());
        // Rendered once per side: `trader_side` says which side of the trade the user was on.
        let texts: [Utf8Bytes; 2] =
            [true, false].map(|is_taker| events::user_trade(self, t, t.status, is_taker).into());
        for user in users {
            let text = texts[usize::from(taker.as_ref() != Some(&user))].clone();
            self.publish(Outbound::User {
                user,
                market: market.clone(),
                text,
            });
        }
    }
}
