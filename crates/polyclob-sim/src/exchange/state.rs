//! The exchange state: markets and their books, orders, trades, API keys and heartbeats, plus
//! the rules the exchange applies when an order arrives (validation, matching, resting,
//! cancelling, expiring). Every change is published to the WS fan-out as pre-rendered frames
//! (`feed.rs`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use polyclob::fixed::{Price, Size};
use polyclob::types::{OrderType, Side};

use super::engine::{Book, Fill};
use super::keys::Keys;
use super::market::{MarketSpec, seed_orders};
use super::orders::{Canceled, NewOrder, OrderRec, Placed, Status};
use super::rng::Rng;
use super::trades::TradeRec;

/// The smallest share amount of a sell: 0.01 share (2 decimals), in micro-shares.
const LOT_UNIT: u64 = 10u64.pow(6 - Size::LOT_DECIMALS);

/// Address used as owner of the seeded liquidity.
pub(crate) const SEED_OWNER: &str = "sim-liquidity";
pub(crate) const SEED_ADDRESS: &str = "0x0000000000000000000000000000000000005eed";

/// Wall-clock unix time in milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Wall-clock unix time in seconds.
pub(crate) fn now_s() -> u64 {
    now_ms() / 1000
}

/// A frame for the WS fan-out, rendered once and filtered per connection. The text is
/// shared bytes: every connection that wants the frame sends the same buffer (no copy).
#[derive(Debug)]
pub(crate) enum Outbound {
    /// Market channel: delivered to connections subscribed to any of `assets` (`custom`
    /// frames only to those that enabled `custom_feature_enabled`).
    Market {
        seq: u64,
        assets: Vec<String>,
        custom: bool,
        text: Utf8Bytes,
    },
    /// User channel: delivered to connections authenticated as `user` (lowercase address)
    /// and subscribed to `market` (or to every market).
    User {
        user: String,
        market: String,
        text: Utf8Bytes,
    },
}

/// A market with its book (one for both tokens: [`Book::view`] shows each).
#[derive(Debug)]
pub(crate) struct MarketState {
    pub(crate) spec: MarketSpec,
    pub(crate) book: Book,
    pub(crate) last_trade: [Option<(u32, Side)>; 2],
    /// Best bid/ask last announced by `best_bid_ask`, per token.
    pub(super) last_bba: [(Option<u32>, Option<u32>); 2],
    /// Notional of every fill ever, micro-pUSD (size × price).
    pub(crate) traded_notional: u64,
}

#[derive(Debug)]
struct Heartbeat {
    id: String,
    last: Instant,
}

/// Exchange-wide settings the state needs.
#[derive(Debug, Clone)]
pub(crate) struct StateConfig {
    pub(crate) seed: u64,
    pub(crate) heartbeat_timeout: Duration,
    /// The chain whose contract table the ledger uses.
    pub(crate) chain: polyclob::types::Chain,
    /// Refuse orders their maker cannot cover (`SimBuilder::enforce_balances`).
    pub(crate) enforce_balances: bool,
    /// The taker hold (`SimBuilder::taker_hold`; zero = none).
    pub(crate) taker_hold: Duration,
    /// How trades settle (`SimBuilder::settlement`).
    pub(crate) settlement: super::settlement::Settlement,
}

/// The whole exchange.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub(crate) cfg: StateConfig,
    pub(crate) markets: Vec<MarketState>,
    by_token: HashMap<String, (usize, usize)>,
    by_condition: HashMap<String, usize>,
    pub(crate) orders: HashMap<u64, OrderRec>,
    order_ids: HashMap<String, u64>,
    next_seq: u64,
    pub(crate) trades: super::trades::TradeLog,
    /// The simulator chain, when enabled (`SimBuilder::onchain`): fills move its balances.
    #[cfg(feature = "onchain")]
    pub(crate) chain: Option<super::chain::SimChain>,
    /// Accounts' balances when the chain is off (`Exchange::ledger` picks the one in use).
    pub(crate) ledger: super::ledger::Ledger,
    /// Live order seqs per user (lowercase address): open-order queries and cancel-all
    /// cost the user's live orders, not the whole history.
    pub(crate) live_by_user: HashMap<String, BTreeSet<u64>>,
    /// Trade indices per user (taker or maker).
    trades_by_user: HashMap<String, Vec<usize>>,
    /// Resting GTD orders by (expiration, seq).
    gtd_queue: BTreeSet<(u64, u64)>,
    /// API keys (`keys.rs`).
    pub(crate) keys: Keys,
    heartbeats: HashMap<String, Heartbeat>,
    /// Builder keys and fees, rewards, RFQ, the relayer (`programs.rs`).
    pub(crate) programs: super::programs::Programs,
    /// Maker rebates accrued and paid (`rebates.rs`).
    pub(crate) rebates: super::rebates::Rebates,
    rng: Rng,
    pub(super) events: broadcast::Sender<Arc<Outbound>>,
    pub(super) msg_seq: u64,
    pub(crate) cancel_only: bool,
    /// Trades settling and orders held (`settlement.rs`).
    pub(crate) settling: super::settlement::Settling,
    /// The simulated traders besides the seed liquidity (`house.rs`), lowercase addresses.
    pub(super) house: HashSet<String>,
}

impl Exchange {
    pub(crate) fn new(
        cfg: StateConfig,
        specs: Vec<MarketSpec>,
        events: broadcast::Sender<Arc<Outbound>>,
    ) -> Self {
        let house = SEED_ADDRESS.parse().unwrap_or_default();
        let ledger = super::ledger::Ledger::new(cfg.chain, &specs, house);
        let settling =
            super::settlement::Settling::new(cfg.settlement.clone(), cfg.taker_hold, cfg.seed);
        let mut ex = Self {
            settling,
            ledger,
            rng: Rng::new(cfg.seed, 1),
            keys: Keys::new(cfg.seed),
            cfg,
            markets: Vec::new(),
            by_token: HashMap::new(),
            by_condition: HashMap::new(),
            orders: HashMap::new(),
            order_ids: HashMap::new(),
            next_seq: 1,
            trades: super::trades::TradeLog::default(),
            #[cfg(feature = "onchain")]
            chain: None,
            live_by_user: HashMap::new(),
            trades_by_user: HashMap::new(),
            gtd_queue: BTreeSet::new(),
            heartbeats: HashMap::new(),
            programs: super::programs::Programs::default(),
            rebates: super::rebates::Rebates::default(),
            events,
            msg_seq: 0,
            cancel_only: false,
            house: HashSet::new(),
        };
        let mut book_rng = Rng::new(ex.cfg.seed, 0);
        for spec in specs {
            let mi = ex.markets.len();
            ex.by_condition.insert(spec.condition_id.clone(), mi);
            for (ti, t) in spec.tokens.iter().enumerate() {
                ex.by_token.insert(t.token_id().to_owned(), (mi, ti));
            }
            let seeds = seed_orders(&spec, &mut book_rng);
            ex.markets.push(MarketState {
                spec,
                book: Book::default(),
                last_trade: [None, None],
                last_bba: [(None, None); 2],
                traded_notional: 0,
            });
            // Seeded on the first token: the second's book is its mirror image.
            let ti = 0;
            for (is_bid, price, size) in seeds {
                let seq = ex.next_seq;
                ex.next_seq += 1;
                let id = format!("0x{}", alloy_primitives::hex::encode(ex.rng.bytes32()));
                let side = if is_bid { Side::Buy } else { Side::Sell };
                ex.markets[mi]
                    .book
                    .insert(ti, side, price, seq, size, &mut Vec::new());
                ex.order_ids.insert(id.clone(), seq);
                ex.live_by_user
                    .entry(SEED_ADDRESS.to_owned())
                    .or_default()
                    .insert(seq);
                ex.orders.insert(
                    seq,
                    OrderRec {
                        seq,
                        id,
                        owner: SEED_OWNER.to_owned(),
                        user: SEED_ADDRESS.to_owned(),
                        maker_address: SEED_ADDRESS.to_owned(),
                        market: mi,
                        token: ti,
                        side,
                        price,
                        original: size,
                        matched: 0,
                        order_type: OrderType::Gtc,
                        expiration: 0,
                        created_at: now_s(),
                        status: Status::Live,
                        trades: Vec::new(),
                        last_trade: None,
                        pinned: false,
                        builder: alloy_primitives::B256::ZERO,
                        v1: false,
                    },
                );
            }
        }
        for m in &mut ex.markets {
            for ti in 0..2 {
                m.last_bba[ti] = (m.book.view(ti).best_bid(), m.book.view(ti).best_ask());
            }
        }
        ex
    }

    // ----- lookups -----

    pub(crate) fn token(&self, token_id: &str) -> Option<(usize, usize)> {
        self.by_token.get(token_id).copied()
    }

    pub(crate) fn market_by_condition(&self, condition_id: &str) -> Option<usize> {
        self.by_condition.get(condition_id).copied()
    }

    pub(crate) fn order(&self, id: &str) -> Option<&OrderRec> {
        self.order_ids.get(id).and_then(|s| self.orders.get(s))
    }

    pub(crate) fn order_by_seq(&self, seq: u64) -> Option<&OrderRec> {
        self.orders.get(&seq)
    }

    /// A user's orders that are still live, oldest first.
    pub(crate) fn open_orders(&self, user: &str) -> Vec<&OrderRec> {
        self.live_by_user
            .get(user)
            .into_iter()
            .flatten()
            .filter_map(|s| self.orders.get(s))
            .collect()
    }

    /// Trades a user took part in (as taker or maker), oldest first.
    pub(crate) fn user_trades(&self, user: &str) -> Vec<&TradeRec> {
        self.trades_by_user
            .get(user)
            .into_iter()
            .flatten()
            .filter_map(|i| self.trades.get(*i))
            .collect()
    }

    /// 32 bytes from the exchange's id generator (transaction hashes).
    pub(super) fn rng_bytes(&mut self) -> [u8; 32] {
        self.rng.bytes32()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Outbound>> {
        self.events.subscribe()
    }

    /// The sequence number of the last published market frame (for snapshot/delta consistency).
    pub(crate) fn msg_seq(&self) -> u64 {
        self.msg_seq
    }

    // ----- orders -----

    /// Validates, matches and (for GTC/GTD) rests an order. Errors are the exchange's
    /// `{"error": …}` messages.
    pub(crate) fn place(&mut self, o: NewOrder) -> Result<Placed, String> {
        if self.cancel_only {
            return Err("Trading is currently cancel-only. New orders are not accepted, but cancels are allowed.".into());
        }
        let (mi, ti) = self
            .token(&o.token_id)
            .ok_or_else(|| format!("market not found for token id {}", o.token_id))?;
        if self.order_ids.contains_key(&o.id) {
            return Err(format!("order {} is invalid. Duplicated.", o.id));
        }
        let spec = &self.markets[mi].spec;
        let tick = spec.tick;
        let min_size = spec.min_order_size.as_micros();
        if o.maker_amount == 0 || o.taker_amount == 0 {
            return Err(format!(
                "order {} is invalid. Amounts must be positive",
                o.id
            ));
        }
        let (usdc, shares) = match o.side {
            Side::Buy => (o.maker_amount, o.taker_amount),
            Side::Sell => (o.taker_amount, o.maker_amount),
        };
        let immediate = o.order_type.is_immediate();
        // A sell names its shares in the lot (the venue's refusal of more decimals; the text
        // mirrors its documented one for buys). The simulator's own traders are exempt: a
        // replayed level can have any size.
        if o.side == Side::Sell && shares % LOT_UNIT != 0 && !self.is_simulated(&o.user) {
            return Err(format!(
                "invalid amounts, the {}sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals",
                if immediate { "market " } else { "" }
            ));
        }
        let num = u128::from(usdc) * u128::from(Price::SCALE);
        let den = u128::from(shares);
        let limit = if immediate {
            // Market orders carry amounts truncated by the builder: recover the tick price.
            let t = u128::from(tick.as_micros());
            match o.side {
                Side::Buy => (num / den) / t * t,
                Side::Sell => num.div_ceil(den).div_ceil(t) * t,
            }
        } else {
            if num % den != 0 || (num / den) % u128::from(tick.as_micros()) != 0 {
                return Err(format!(
                    "order {} is invalid. Price ({}) breaks minimum tick size rule: {}",
                    o.id,
                    ratio_text(num, den),
                    tick.as_str()
                ));
            }
            num / den
        };
        let limit = u32::try_from(limit)
            .ok()
            .and_then(Price::new)
            .filter(|p| tick.in_range(*p))
            .ok_or_else(|| {
                format!(
                    "order {} is invalid. Price ({}), min: {} - max: {}",
                    o.id,
                    ratio_text(num, den),
                    tick.as_str(),
                    Price::new(Price::SCALE - tick.as_micros()).unwrap_or(Price::ONE)
                )
            })?;
        let limit = limit.as_micros();
        if !immediate && shares < min_size {
            return Err(format!(
                "order {} is invalid. Size ({}) lower than the minimum: {}",
                o.id,
                Size::from_micros(shares),
                Size::from_micros(min_size)
            ));
        }
        // The exchange's own wording for both post-only refusals (its error table's
        // INVALID_POST_ONLY_ORDER_TYPE and INVALID_POST_ONLY_ORDER), which names no order.
        if o.post_only && immediate {
            return Err(
                "invalid post-only order: only GTC and GTD order types are allowed".to_owned(),
            );
        }
        let now = now_s();
        if o.order_type == OrderType::Gtd && o.expiration <= now + 60 {
            return Err(format!(
                "order {} is invalid. Expiration ({}) must be more than 60 seconds in the future",
                o.id, o.expiration
            ));
        }
        let book = self.markets[mi].book.view(ti);
        if o.post_only && book.crosses(o.side, limit) {
            return Err("invalid post-only order: order crosses book".to_owned());
        }
        match o.order_type {
            OrderType::Fok if book.available(o.side, limit) < shares => {
                return Err(format!(
                    "order {} couldn't be fully filled. FOK orders are fully filled or killed.",
                    o.id
                ));
            }
            OrderType::Fak if !book.crosses(o.side, limit) => {
                return Err(format!(
                    "no orders found to match with FAK order {}. FAK orders are partially filled or killed if no match is found.",
                    o.id
                ));
            }
            _ => {}
        }

        // A buy that takes liquidity must also cover its taker fee, here at its limit price
        // (how the venue checks it is not documented; its SDKs size a buy so that amount plus
        // fee fits the balance).
        let fee = match (o.side, self.markets[mi].spec.fees) {
            (Side::Buy, Some(f)) if book.crosses(o.side, limit) => {
                let at = (
                    Price::new(limit).unwrap_or(Price::ONE),
                    Size::from_micros(shares),
                );
                f.taker_fee([at]).map_or(u64::MAX, Size::as_micros)
            }
            _ => 0,
        };
        self.check_funds(&o, (mi, ti), usdc.saturating_add(fee), shares)?;

        // A taker order is held before it matches (the exchange's taker hold).
        let held = !self.settling.hold().is_zero() && book.crosses(o.side, limit);
        let seq = self.next_seq;
        self.next_seq += 1;
        let rec = OrderRec {
            seq,
            id: o.id.clone(),
            owner: o.owner,
            user: o.user,
            maker_address: o.maker_address,
            market: mi,
            token: ti,
            side: o.side,
            price: limit,
            original: shares,
            matched: 0,
            order_type: o.order_type,
            expiration: o.expiration,
            created_at: now,
            status: if held { Status::Delayed } else { Status::Live },
            trades: Vec::new(),
            last_trade: None,
            pinned: false,
            builder: o.builder,
            v1: o.v1,
        };
        self.order_ids.insert(o.id.clone(), seq);
        if held {
            // Reserves its funds and shows in the open orders while held.
            self.live_by_user
                .entry(rec.user.clone())
                .or_default()
                .insert(seq);
        }
        self.orders.insert(seq, rec);
        if held {
            self.hold_order(seq);
            return Ok(Placed {
                id: o.id,
                status: "delayed",
                making: 0,
                taking: 0,
                trade_ids: Vec::new(),
                tx_hashes: Vec::new(),
            });
        }
        let placed = self.execute(seq);
        self.advance(Instant::now());
        Ok(placed)
    }

    /// Matches recorded order `seq` against the book and rests what is left (GTC/GTD): on
    /// arrival, or when its taker hold ends. FOK is checked again (the book may have moved
    /// during a hold); a FOK it fails, or a FAK that no longer crosses, is killed unmatched.
    pub(crate) fn execute(&mut self, seq: u64) -> Placed {
        let Some(o) = self.orders.get(&seq) else {
            return Placed {
                id: String::new(),
                status: "unmatched",
                making: 0,
                taking: 0,
                trade_ids: Vec::new(),
                tx_hashes: Vec::new(),
            };
        };
        let (id, user, mi, ti, side, limit, shares, order_type, expiration) = (
            o.id.clone(),
            o.user.clone(),
            o.market,
            o.token,
            o.side,
            o.price,
            o.original,
            o.order_type,
            o.expiration,
        );
        let immediate = order_type.is_immediate();
        let now = now_s();
        let book = self.markets[mi].book.view(ti);
        let killed = match order_type {
            OrderType::Fok => book.available(side, limit) < shares,
            OrderType::Fak => !book.crosses(side, limit),
            _ => false,
        };
        let mut changes = Vec::new();
        let fills = if killed {
            Vec::new()
        } else {
            self.markets[mi]
                .book
                .take(ti, side, limit, shares, &mut changes)
        };
        let filled: u64 = fills.iter().map(|f| f.size).sum();
        let notional: u64 = fills.iter().map(|f| self.taker_pusd(ti, f)).sum();
        let rest = shares - filled;
        let rests = rest > 0 && !immediate;
        if rests {
            self.markets[mi]
                .book
                .insert(ti, side, limit, seq, rest, &mut changes);
        }
        let status = if rests {
            Status::Live
        } else if filled == shares {
            Status::Matched
        } else {
            // FAK remainder, or killed.
            Status::Canceled
        };
        if let Some(rec) = self.orders.get_mut(&seq) {
            rec.matched = filled;
            rec.status = status;
        }
        let live = self.live_by_user.entry(user).or_default();
        if rests {
            live.insert(seq);
            if order_type == OrderType::Gtd {
                self.gtd_queue.insert((expiration, seq));
            }
        } else {
            live.remove(&seq);
        }

        let mut trade_ids = Vec::new();
        let mut tx_hashes = Vec::new();
        let ts_ms = now_ms();
        if !fills.is_empty() {
            let trade = self.record_trade(seq, mi, ti, side, &fills, now);
            trade_ids.push(trade.0.clone());
            tx_hashes.push(trade.1.clone());
        }
        self.publish_price_changes(mi, ti, &changes, ts_ms);
        if let Some(last) = fills.last() {
            let price = self.taker_price(ti, last);
            self.markets[mi].last_trade[ti] = Some((price, side));
            // A mint or a merge traded the other token too, at its maker's price.
            if let Some(f) = fills.iter().rev().find(|f| self.maker_token(f) != Some(ti)) {
                self.markets[mi].last_trade[1 - ti] = Some((f.price, side));
            }
            self.publish_last_trade(mi, ti, (price, side, filled), ts_ms);
        }
        if rests {
            self.publish_order_event(seq, "PLACEMENT");
        }
        if let Some(trade_idx) = self
            .trades
            .end()
            .checked_sub(1)
            .filter(|_| !fills.is_empty())
        {
            self.publish_trade_events(trade_idx);
        }
        let (making, taking) = match side {
            Side::Buy => (notional, filled),
            Side::Sell => (filled, notional),
        };
        Placed {
            id,
            status: if filled > 0 {
                "matched"
            } else if killed {
                "unmatched"
            } else {
                "live"
            },
            making,
            taking,
            trade_ids,
            tx_hashes,
        }
    }

    /// Settles an off-book match (an accepted and approved RFQ quote): both orders are
    /// recorded, fully matched for `shares`, and one trade joins them, reported like any other
    /// (`/data/trades`, the user channel). Each side is `(token index, price)` in market `mi`.
    /// On one token the two orders take opposite sides (a complementary match); on the two
    /// tokens of the market they take the same side, a mint when both buy and a merge when
    /// both sell, and the prices sum to one. Returns the trade id.
    pub(crate) fn settle_pair(
        &mut self,
        taker: NewOrder,
        maker: NewOrder,
        mi: usize,
        (taker_ti, taker_price): (usize, u32),
        (maker_ti, maker_price): (usize, u32),
        shares: u64,
    ) -> String {
        let now = now_s();
        let mut seqs = [0u64; 2];
        let legs = [
            (maker, maker_ti, maker_price),
            (taker, taker_ti, taker_price),
        ];
        for (i, (o, ti, price)) in legs.into_iter().enumerate() {
            let seq = self.next_seq;
            self.next_seq += 1;
            seqs[i] = seq;
            self.order_ids.insert(o.id.clone(), seq);
            self.orders.insert(
                seq,
                OrderRec {
                    seq,
                    id: o.id,
                    owner: o.owner,
                    user: o.user,
                    maker_address: o.maker_address,
                    market: mi,
                    token: ti,
                    side: o.side,
                    price,
                    original: shares,
                    // The maker's fill is counted by `record_trade`.
                    matched: if i == 0 { 0 } else { shares },
                    order_type: OrderType::Gtc,
                    expiration: o.expiration,
                    created_at: now,
                    status: Status::Matched,
                    trades: Vec::new(),
                    last_trade: None,
                    pinned: false,
                    builder: o.builder,
                    v1: o.v1,
                },
            );
        }
        let side = self.orders.get(&seqs[1]).map_or(Side::Buy, |o| o.side);
        let maker_side = self.orders.get(&seqs[0]).map_or(Side::Buy, |o| o.side);
        let fill = Fill {
            maker_seq: seqs[0],
            price: maker_price,
            size: shares,
            maker_done: true,
        };
        let (id, _) = self.record_trade(seqs[1], mi, taker_ti, side, &[fill], now);
        self.markets[mi].last_trade[taker_ti] = Some((taker_price, side));
        if maker_ti != taker_ti {
            self.markets[mi].last_trade[maker_ti] = Some((maker_price, maker_side));
        }
        self.publish_trade_events(self.trades.end() - 1);
        self.advance(Instant::now());
        id
    }

    /// The token of maker fill `f`'s order, while the order is known.
    fn maker_token(&self, f: &Fill) -> Option<usize> {
        self.order_by_seq(f.maker_seq).map(|o| o.token)
    }

    /// The price of maker fill `f` seen from a taker of token `ti`: the fill's own price when
    /// the maker traded the same token, its complement when the two met across the market's
    /// two tokens (a mint or a merge).
    pub(crate) fn taker_price(&self, ti: usize, f: &Fill) -> u32 {
        match self.maker_token(f) {
            Some(t) if t != ti => Price::SCALE.saturating_sub(f.price),
            _ => f.price,
        }
    }

    /// What a taker of token `ti` pays (a buy) or receives (a sell) for maker fill `f`, in
    /// micro-pUSD: the maker's own `size × price` floored on its token; across the tokens, the
    /// rest of the `size` the pair mints or merges (the maker's side floored, as the ledger
    /// settles it).
    pub(crate) fn taker_pusd(&self, ti: usize, f: &Fill) -> u64 {
        let maker = fill_notional(f.size, f.price);
        match self.maker_token(f) {
            Some(t) if t != ti => f.size.saturating_sub(maker),
            _ => maker,
        }
    }

    /// The fee maker fill `f` of market `mi` pays: zero on a taker-only (or fee-free) market.
    pub(crate) fn maker_fee(&self, mi: usize, f: &Fill) -> u64 {
        let Some(schedule) = self.markets[mi].spec.fees else {
            return 0;
        };
        let fill = (
            Price::new(f.price).unwrap_or(Price::ZERO),
            Size::from_micros(f.size),
        );
        schedule.maker_fee([fill]).map_or(u64::MAX, Size::as_micros)
    }

    /// [`taker_price`](Self::taker_price) of a fill of trade `t`.
    pub(crate) fn taker_view_price(&self, t: &TradeRec, f: &Fill) -> u32 {
        self.taker_price(t.token, f)
    }

    /// Records a trade for `taker_seq` and updates the makers; returns (trade id, tx hash).
    fn record_trade(
        &mut self,
        taker_seq: u64,
        mi: usize,
        ti: usize,
        side: Side,
        fills: &[Fill],
        now: u64,
    ) -> (String, String) {
        let id = self.rng.uuid();
        let tx_hash = format!("0x{}", alloy_primitives::hex::encode(self.rng.bytes32()));
        let idx = self.trades.end();
        let seqs = || std::iter::once(taker_seq).chain(fills.iter().map(|f| f.maker_seq));
        let mut users: Vec<String> = seqs()
            .filter_map(|s| self.orders.get(&s).map(|o| o.user.clone()))
            .collect();
        users.sort_unstable();
        users.dedup();
        let house_only = users.iter().all(|u| self.is_simulated(u));
        for f in fills {
            if let Some(m) = self.orders.get_mut(&f.maker_seq) {
                m.matched += f.size;
                m.trades.push(id.clone());
                if f.maker_done {
                    m.status = Status::Matched;
                    if let Some(set) = self.live_by_user.get_mut(&m.user) {
                        set.remove(&f.maker_seq);
                    }
                }
            }
            self.publish_order_event(f.maker_seq, "UPDATE");
        }
        if let Some(t) = self.orders.get_mut(&taker_seq) {
            t.trades.push(id.clone());
        }
        for s in seqs() {
            if let Some(o) = self.orders.get_mut(&s) {
                o.last_trade = Some(idx);
                o.pinned |= !house_only;
            }
        }
        let size = fills.iter().map(|f| f.size).sum();
        // The trade reads from the taker's side: its token, the last fill's price there.
        let price = fills.last().map_or(0, |f| self.taker_price(ti, f));
        self.markets[mi].traded_notional = fills
            .iter()
            .map(|f| f.size.saturating_mul(u64::from(f.price)) / 1_000_000)
            .fold(self.markets[mi].traded_notional, u64::saturating_add);
        let fee = self.markets[mi].spec.fees.map_or(0, |schedule| {
            let at = |f: &Fill| {
                let p = Price::new(self.taker_price(ti, f)).unwrap_or(Price::ZERO);
                (p, Size::from_micros(f.size))
            };
            // An overflow needs sizes beyond any market's: the fee is then the largest.
            schedule
                .taker_fee(fills.iter().map(at))
                .map_or(u64::MAX, Size::as_micros)
        });
        let (_, evicted) = self.trades.push(
            TradeRec {
                id: id.clone(),
                taker_seq,
                market: mi,
                token: ti,
                side,
                size,
                price,
                fills: fills.to_vec(),
                fee,
                match_time: now,
                // The house's own trades settle nothing; a client's settle later.
                status: if house_only { "CONFIRMED" } else { "MATCHED" },
                tx_hash: tx_hash.clone(),
            },
            house_only,
        );
        if !house_only {
            self.schedule_settlement(idx);
            for u in users {
                self.trades_by_user.entry(u).or_default().push(idx);
            }
        }
        if let Some((old, t)) = evicted {
            for s in std::iter::once(t.taker_seq).chain(t.fills.iter().map(|f| f.maker_seq)) {
                if self
                    .orders
                    .get(&s)
                    .is_some_and(|o| o.status != Status::Live && o.last_trade <= Some(old))
                {
                    self.retire(s);
                }
            }
        }
        (id, tx_hash)
    }

    /// Cancels the given orders of `user`; unknown or foreign ids are reported, not errors.
    pub(crate) fn cancel(&mut self, user: &str, ids: &[String]) -> Canceled {
        let mut out = Canceled::default();
        for id in ids {
            match self
                .order_ids
                .get(id.as_str())
                .copied()
                .and_then(|s| self.orders.get(&s).map(|o| (s, o)))
            {
                Some((_, o)) if o.user == user && o.status == Status::Delayed => out
                    .not_canceled
                    .push((id.clone(), super::settlement::CANCEL_DELAYED.into())),
                Some((seq, o)) if o.user == user => {
                    if o.status == Status::Live {
                        self.cancel_seq(seq);
                        out.canceled.push(id.clone());
                    } else {
                        out.not_canceled.push((
                            id.clone(),
                            "order can't be found - already canceled or matched".into(),
                        ));
                    }
                }
                _ => out
                    .not_canceled
                    .push((id.clone(), "order can't be found".into())),
            }
        }
        out
    }

    /// Cancels every live order of `user`, optionally restricted to a market and/or token.
    pub(crate) fn cancel_where(
        &mut self,
        user: &str,
        market: Option<usize>,
        token: Option<(usize, usize)>,
    ) -> Canceled {
        let ids: Vec<u64> = self
            .open_orders(user)
            .iter()
            .filter(|o| market.is_none_or(|m| o.market == m))
            .filter(|o| token.is_none_or(|(m, t)| o.market == m && o.token == t))
            .map(|o| o.seq)
            .collect();
        let mut out = Canceled::default();
        for seq in ids {
            if let Some(id) = self.cancel_seq(seq) {
                out.canceled.push(id);
            }
        }
        out
    }

    pub(crate) fn cancel_seq(&mut self, seq: u64) -> Option<String> {
        let o = self.orders.get_mut(&seq)?;
        if o.status != Status::Live {
            return None;
        }
        o.status = Status::Canceled;
        let (mi, ti, side, price, id) = (o.market, o.token, o.side, o.price, o.id.clone());
        if let Some(set) = self.live_by_user.get_mut(&o.user) {
            set.remove(&seq);
        }
        let mut changes = Vec::new();
        self.markets[mi]
            .book
            .remove(ti, side, price, seq, &mut changes);
        self.publish_price_changes(mi, ti, &changes, now_ms());
        self.publish_order_event(seq, "CANCELLATION");
        // A house order no kept trade names is forgotten.
        if self
            .orders
            .get(&seq)
            .is_some_and(|o| o.last_trade.is_none_or(|i| self.trades.get(i).is_none()))
        {
            self.retire(seq);
        }
        Some(id)
    }

    /// Forgets a finished order of a simulated trader that no kept trade names (clients'
    /// orders, and simulated orders that traded with a client, are kept).
    fn retire(&mut self, seq: u64) {
        if let Some(o) = self.orders.get(&seq)
            && self.is_simulated(&o.user)
            && !o.pinned
            && o.status != Status::Live
        {
            let id = o.id.clone();
            self.orders.remove(&seq);
            self.order_ids.remove(&id);
        }
    }

    // ----- heartbeats and timers -----

    /// `POST /v1/heartbeats`: an empty/absent id starts a chain, otherwise it must be the id
    /// returned last time. Returns the next id.
    pub(crate) fn heartbeat(&mut self, user: &str, id: Option<&str>) -> Result<String, String> {
        let next = self.rng.uuid();
        match (self.heartbeats.get_mut(user), id.filter(|s| !s.is_empty())) {
            (Some(hb), Some(given)) if hb.id == given => {
                hb.id.clone_from(&next);
                hb.last = Instant::now();
            }
            (_, None) => {
                self.heartbeats.insert(
                    user.to_owned(),
                    Heartbeat {
                        id: next.clone(),
                        last: Instant::now(),
                    },
                );
            }
            (_, Some(_)) => return Err("Invalid Heartbeat ID".to_owned()),
        }
        Ok(next)
    }

    /// The id the user's heartbeat chain expects next, if one is running.
    pub(crate) fn heartbeat_id(&self, user: &str) -> Option<&str> {
        self.heartbeats.get(user).map(|h| h.id.as_str())
    }

    /// Expires GTD orders, cancels the orders of users whose heartbeats stopped and pays the
    /// maker rebates due when the UTC day has turned.
    pub(crate) fn sweep(&mut self) {
        self.advance(Instant::now());
        self.pay_rebates_daily();
        let now = now_s();
        // Removed 60 s before the expiration (the documented security threshold).
        while let Some(&(exp, seq)) = self.gtd_queue.first() {
            if now + 60 < exp {
                break;
            }
            self.gtd_queue.remove(&(exp, seq));
            self.cancel_seq(seq);
        }
        let timeout = self.cfg.heartbeat_timeout;
        let stale: Vec<String> = self
            .heartbeats
            .iter()
            .filter(|(_, hb)| hb.last.elapsed() > timeout)
            .map(|(u, _)| u.clone())
            .collect();
        for user in stale {
            self.heartbeats.remove(&user);
            self.cancel_where(&user, None, None);
        }
    }

    /// Every id that names the market `id` names (a condition id, or a token id): the
    /// condition id and its token ids, or `id` alone for a token id or an unknown id.
    pub(crate) fn market_ids(&self, id: &str) -> Vec<String> {
        let condition = |m: &&MarketState| m.spec.condition_id.eq_ignore_ascii_case(id);
        match self.markets.iter().find(condition) {
            Some(m) => {
                let spec = &m.spec;
                std::iter::once(spec.condition_id.clone())
                    .chain(spec.tokens.iter().map(|t| t.token_id().to_owned()))
                    .collect()
            }
            None => vec![id.to_owned()],
        }
    }
}

/// `size × price` in micro-pUSD, truncated (6-decimal collateral).
pub(crate) fn fill_notional(size: u64, price: u32) -> u64 {
    let n = u128::from(size) * u128::from(price) / u128::from(Price::SCALE);
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// `num / den` as a decimal string with up to 6 decimals (for error messages).
fn ratio_text(num: u128, den: u128) -> String {
    let micros = num / den.max(1);
    match u64::try_from(micros) {
        Ok(m) => Size::from_micros(m).to_string(),
        Err(_) => "overflow".to_owned(),
    }
}
