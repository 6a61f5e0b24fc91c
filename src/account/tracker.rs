//! [`Tracker`]: what a bot believes about its orders and fills, from the post to settlement.
//!
//! An order goes submitted → accepted as `live`, `matched`, `unmatched` or `delayed` (the
//! exchange's taker hold of about 250 ms, during which it cannot be cancelled) → partially and
//! fully matched; each trade that fills it goes `MATCHED` → `MINED` → `CONFIRMED`, or
//! `RETRYING` / `FAILED` (a "ghost fill": matched, never settled, no balance moved). The tracker
//! keeps that state from whatever the bot feeds it — its posts, the user channel's
//! [`UserEvent`]s, REST [`OpenOrder`]s and [`Trade`]s — in any order and any number of times:
//! a trade is known by its id, its status only moves forward, and each fill is counted once.
//!
//! Fills are attributed by the trades' `taker_order_id` and `maker_orders[].order_id`
//! against the orders the tracker knows (and the account's maker address), and an order's
//! matched size by those fills and `size_matched` — never by `associate_trades`, which may be
//! empty from 2026-12-14 ("an empty tuple does not mean no fills", Polymarket changelog).
//!
//! Positions count **confirmed** fills only. A fill whose trade is not confirmed within
//! [`Tracker::settle_within`] is reported once ([`TrackerEvent::Overdue`]) and kept apart
//! ([`TrackedPosition::overdue_buy`]), never as held; [`Tracker::reconcile`] compares the result with
//! the Data API's positions and returns every difference.
//!
//! P&L comes with the positions, exact and net of fees ([`TrackedPosition::basis`], polyclob's
//! [`CostBasis`]): each confirmed leg of the bot's is folded in when the tracker learns that
//! its trade confirmed — a taker's trade as one leg priced from its maker fills (the
//! complement of a maker's price when the two met across a market's tokens: a mint or a
//! merge), each maker fill as one leg at its own price — with the fee its market's schedule
//! gives it ([`Tracker::set_fee_schedule`]; `fee_rate_bps` on trade rows is not trusted: a
//! live capture has shown `0` on a charged trade). A leg of a market whose fees the tracker
//! was not told is counted without a fee and flags its position
//! ([`TrackedPosition::fees_unknown`]). The simulator's Data API computes its positions with
//! the same `CostBasis` from the same legs, so the two agree to the micro-unit. Average cost
//! depends on order: trades confirmed out of order (a REST backfill after a break) can move
//! realized P&L between sells, never the shares held or the fees paid.
//!
//! Memory is bounded: the tracker keeps at most [`Tracker::retain`] settled trades (every
//! fill confirmed or failed) and as many settled orders in full; older ones are folded into
//! the totals they contributed (positions, and the settlement of orders still kept) and
//! forgotten. Each forgotten trade and order leaves a 128-bit fingerprint of its id in a set,
//! so a late duplicate (a REST backfill, a replayed user-channel event) is recognised and
//! ignored, never counted twice. An id set rather than a time cut-off: trades carry no
//! timestamp the tracker could trust to order them, and a cut-off would drop a genuine fill
//! first seen late (after a user-channel break) silently. The set costs about 20 bytes per
//! forgotten trade or order. A trade first seen after its order was forgotten is counted
//! only through the [maker address](Tracker::maker).
//!
//! The tracker is a plain state machine (no sockets, no clock of its own but
//! [`check_overdue`](Tracker::check_overdue)'s argument); [`Tracker::refresh_order`] and
//! [`Tracker::wait_for_settlement`] are the thin REST driver.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().seed(5).start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use polyclob::account::Account;
//! use polyclob::clob::ClientBuilder;
//! use polyclob::order::LimitOrder;
//! use polyclob::sign::Signer;
//! use polyclob::types::Side;
//! use std::time::Duration;
//!
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! # sim.fund(signer.address(), 1_000_000_000);
//! let account = Account::builder(signer)
//!     .client(ClientBuilder::new().host(sim.http_url()))
//!     .connect()
//!     .await?;
//! let mut tracker = account.tracker();
//!
//! // A marketable bid: it takes the best ask.
//! let ask = account.client().book(&token).await?.asks.last().ok_or("no asks")?.price;
//! let order = account.sign_limit_order(&token, &LimitOrder::new(Side::Buy, ask, "5".parse()?)).await?;
//! let answer = account.post_order(&order).await;
//! tracker.posted(&order, &answer); // the order is known before any fill is reported
//!
//! let id = answer?.order_id;
//! let settled = tracker
//!     .wait_for_settlement(account.client(), &id, Duration::from_millis(20), Duration::from_secs(30))
//!     .await?;
//! assert!(settled.is_settled());
//! println!("confirmed {}, failed {}", settled.confirmed, settled.failed);
//! let held = tracker.position(&token).and_then(|p| p.held());
//! println!("holding {held:?} shares of {token}");
//! # assert_eq!(held, Some("5".parse()?));
//! # Ok(()) }
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use super::user_events::{OrderEventKind, OrderUpdate, TradeUpdate, UserEvent};
use crate::clob::types::{OpenOrder, OrderStatus, PostOrderResponse, Trade, TradeStatus};
use crate::clob::{Client, TradeFilter};
use crate::data;
use crate::fixed::{CostBasis, Notional, Price, Size};
use crate::http::{Error, SkippedRow};
use crate::order::SignedOrder;
use crate::types::{Address, FeeSchedule, Side, Timestamp};

/// How long a matched trade may take to confirm before it is reported overdue, by default.
/// Polymarket's SDKs poll a matched trade for at most 30 s; the tracker allows twice that.
const DEFAULT_SETTLE_WITHIN: Duration = Duration::from_secs(60);

/// How many settled trades (and settled orders) the tracker keeps in full, by default.
const DEFAULT_RETAIN: usize = 10_000;

/// Where an order stands, as far as the exchange has said.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OrderState {
    /// Posted (or about to be); no answer yet, or the answer was lost (a timeout: the order
    /// may exist).
    Submitted,
    /// Accepted and held before matching (the taker hold, about 250 ms): it cannot be
    /// cancelled until it is released.
    Delayed,
    /// Resting on the book, nothing matched yet.
    Live,
    /// Resting, part of it matched.
    PartiallyMatched,
    /// Fully matched (its trades may still be settling).
    Matched,
    /// Marketable but not matched (a FAK/FOK that found nothing): done, nothing traded.
    Unmatched,
    /// Cancelled — by the bot, at expiry, by the exchange — possibly after partial fills.
    Canceled,
    /// The exchange refused it, with its message.
    Rejected(String),
}

impl OrderState {
    fn rank(&self) -> u8 {
        match self {
            Self::Submitted => 0,
            Self::Delayed => 1,
            Self::Live => 2,
            Self::PartiallyMatched => 3,
            _ => 4,
        }
    }

    /// Whether nothing more can happen to the order itself (its trades may still settle).
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.rank() == 4
    }

    /// Whether a cancel can succeed now: the order rests on the book. A
    /// [`Delayed`](Self::Delayed) order is refused by the exchange
    /// ([`CancelResponse::is_delayed`](crate::clob::types::CancelResponse::is_delayed)).
    #[must_use]
    pub fn is_cancellable(&self) -> bool {
        matches!(self, Self::Live | Self::PartiallyMatched)
    }

    fn from_status(s: &OrderStatus) -> Option<Self> {
        Some(match s {
            OrderStatus::Live => Self::Live,
            OrderStatus::Matched => Self::Matched,
            OrderStatus::Delayed => Self::Delayed,
            OrderStatus::Unmatched => Self::Unmatched,
            OrderStatus::Canceled | OrderStatus::CanceledMarketResolved => Self::Canceled,
            OrderStatus::Invalid => Self::Rejected("INVALID".to_owned()),
            // `CANCELED_<reason>` statuses.
            OrderStatus::Unknown(u) if u.to_ascii_uppercase().starts_with("CANCELED") => {
                Self::Canceled
            }
            _ => return None,
        })
    }
}

/// One order the tracker knows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrackedOrder {
    /// The order hash.
    pub id: String,
    /// Its token, once known.
    pub asset_id: Option<String>,
    /// Its side, once known.
    pub side: Option<Side>,
    /// Its size in shares, once known.
    pub original: Option<Size>,
    /// `size_matched` as the exchange last reported it.
    pub reported_matched: Size,
    /// Where it stands.
    pub state: OrderState,
    /// Confirmed and failed shares of its trades already forgotten.
    folded: (Size, Size),
}

/// One fill of one of the bot's orders: its leg of a trade.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrackedFill {
    /// The trade.
    pub trade_id: String,
    /// The bot's order.
    pub order_id: String,
    /// The token the order traded.
    pub asset_id: String,
    /// The order's side.
    pub side: Side,
    /// Shares filled.
    pub size: Size,
    /// Price per share.
    pub price: Price,
}

/// What changed, in the order it changed ([`Tracker::take_events`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrackerEvent {
    /// An order moved to a new state.
    Order {
        /// The order.
        order_id: String,
        /// Its new state.
        state: OrderState,
    },
    /// A fill of one of the bot's orders was seen for the first time (matched, not yet
    /// settled; reported once per trade and order).
    Fill(TrackedFill),
    /// A trade the bot has a leg in changed settlement status. `CONFIRMED` moves the
    /// position; `FAILED` means the fill never happened.
    Trade {
        /// The trade.
        trade_id: String,
        /// Its new status.
        status: TradeStatus,
    },
    /// A trade of the bot's has not confirmed within [`Tracker::settle_within`]; its size is
    /// not counted as held until it does. Reported once.
    Overdue {
        /// The trade.
        trade_id: String,
        /// How long since it was first seen matched.
        age: Duration,
    },
    /// A trade whose legs cannot be read (no taker side): its fills are not counted.
    Unreadable {
        /// The trade.
        trade_id: String,
    },
}

/// A position derived from the fills the tracker saw (micro-share exact).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrackedPosition {
    /// The token.
    pub asset_id: String,
    /// Shares held before tracking began ([`Tracker::baseline`]).
    pub baseline: Size,
    /// Shares bought by confirmed fills.
    pub bought: Size,
    /// Shares sold by confirmed fills.
    pub sold: Size,
    /// Shares bought by fills still settling within the bound.
    pub pending_buy: Size,
    /// Shares sold by fills still settling within the bound.
    pub pending_sell: Size,
    /// Shares bought by fills past the bound, not confirmed.
    pub overdue_buy: Size,
    /// Shares sold by fills past the bound, not confirmed.
    pub overdue_sell: Size,
    /// Cost, fees and P&L of the confirmed legs, average-cost method: `basis.realized()`,
    /// `basis.avg_price()`, `basis.fees()`, `basis.unrealized(mark)` (see the
    /// [module docs](self)). The baseline carries no basis.
    pub basis: CostBasis,
    /// Some confirmed leg traded on a market whose fees the tracker was not told
    /// ([`Tracker::set_fee_schedule`]): it was counted without a fee.
    pub fees_unknown: bool,
}

impl TrackedPosition {
    /// Shares held: the baseline plus confirmed buys minus confirmed sells; `None` when the
    /// sells exceed the rest (a buy the tracker never saw).
    #[must_use]
    pub fn held(&self) -> Option<Size> {
        self.baseline
            .checked_add(self.bought)
            .unwrap_or(Size::MAX)
            .checked_sub(self.sold)
    }
}

/// A difference between the tracker's position and the Data API's ([`Tracker::reconcile`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PositionDiff {
    /// The token.
    pub asset_id: String,
    /// What the tracker holds ([`TrackedPosition::held`]; `Some(0)` for a token it never saw).
    pub tracker: Option<Size>,
    /// What the Data API says (`None`: absent from its answer, or its size unavailable).
    pub data_api: Option<Size>,
}

/// How an order's fills settled ([`Tracker::settlement`], [`Tracker::wait_for_settlement`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settlement {
    /// The order's state.
    pub state: OrderState,
    /// Shares whose trades confirmed.
    pub confirmed: Size,
    /// Shares whose trades are still settling within the bound.
    pub pending: Size,
    /// Shares whose trades are past the bound, not confirmed.
    pub overdue: Size,
    /// Shares whose trades failed (ghost fills: nothing moved).
    pub failed: Size,
}

impl Settlement {
    /// Whether nothing is left to wait for: the order is out of its hold and every fill is
    /// confirmed or failed.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        !matches!(self.state, OrderState::Submitted | OrderState::Delayed)
            && self.pending.is_zero()
            && self.overdue.is_zero()
    }
}

#[derive(Clone, Debug)]
struct Leg {
    order_id: String,
    asset_id: String,
    side: Side,
    size: Size,
    price: Price,
    /// What the leg's shares cost or fetched, exact: the taker's from the maker fills at the
    /// prices it traded at, a maker's at its own price.
    value: Notional,
    /// Lowercase maker address, when sent.
    maker_address: Option<String>,
    /// A [`TrackerEvent::Fill`] was emitted for it.
    announced: bool,
    /// Folded into its position's [`CostBasis`].
    counted: bool,
}

#[derive(Clone, Debug)]
struct TradeEntry {
    status: TradeStatus,
    /// When the status was last updated, as far as the messages said.
    updated: Option<Timestamp>,
    /// Lowercase condition id, empty when not sent.
    market: String,
    /// The taker's fills at the prices it traded at (what its fee is computed from).
    fills: Vec<(Price, Size)>,
    /// The taker's leg first, then the makers'.
    legs: Vec<Leg>,
    seen: Instant,
    overdue: bool,
}

/// The side a maker leg took: the opposite of the taker on the same token, the same side
/// across the market's two tokens (a mint or a merge).
fn maker_side(sent: Option<Side>, asset: &str, taker_asset: &str, taker_side: Side) -> Side {
    sent.unwrap_or(if asset == taker_asset {
        taker_side.opposite()
    } else {
        taker_side
    })
}

/// A taker's leg priced from its maker fills `(asset, price, shares)`: the fills at the
/// prices the taker traded at (a maker's own price on the taker's token, its complement on
/// the other: a mint or a merge) and their exact value.
fn taker_fills<'a>(
    taker_asset: &str,
    makers: impl Iterator<Item = (&'a str, Price, Size)>,
) -> (Vec<(Price, Size)>, Notional) {
    let fills: Vec<(Price, Size)> = makers
        .map(|(asset, p, s)| {
            (
                if asset == taker_asset {
                    p
                } else {
                    p.complement()
                },
                s,
            )
        })
        .collect();
    let value = fills
        .iter()
        .filter_map(|(p, s)| p.checked_mul_size(*s))
        .fold(Notional::ZERO, |a, n| {
            a.checked_add(n).unwrap_or(Notional::MAX)
        });
    (fills, value)
}

/// `size × price`, exact.
fn value_of(price: Price, size: Size) -> Notional {
    price.checked_mul_size(size).unwrap_or(Notional::MAX)
}

fn add(a: Size, b: Size) -> Size {
    a.checked_add(b).unwrap_or(Size::MAX)
}

fn lower(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_ascii_lowercase())
}

/// The fingerprint of a forgotten trade (`b't'`) or order (`b'o'`) id: 127 bits of the id's
/// Keccak-256, the lowest bit telling trades from orders.
fn fingerprint(tag: u8, id: &str) -> u128 {
    let h = crate::sign::keccak::keccak256(id.as_bytes());
    let mut w = [0u8; 16];
    w.copy_from_slice(&h[..16]);
    u128::from_be_bytes(w) & !1 | u128::from(tag == b'o')
}

/// The order tracker: see the [module docs](self).
#[derive(Clone, Debug)]
pub struct Tracker {
    settle_within: Duration,
    maker: Option<String>,
    orders: HashMap<String, TrackedOrder>,
    trades: HashMap<String, TradeEntry>,
    /// Trade ids by the order ids of their legs (any owner).
    by_order: HashMap<String, Vec<String>>,
    baseline: HashMap<String, Size>,
    events: VecDeque<TrackerEvent>,
    retain: usize,
    /// Trades in the order they became final (may hold ids forgotten with their order).
    settled_trades: VecDeque<String>,
    /// Orders in the order they became done.
    done_orders: VecDeque<String>,
    /// Fingerprints of forgotten trades and orders.
    forgotten: HashSet<u128>,
    /// Confirmed (bought, sold) shares per token of forgotten trades.
    folded: HashMap<String, (Size, Size)>,
    /// Fee schedules by lowercase condition id (`None`: fee-free).
    fees: HashMap<String, Option<FeeSchedule>>,
    /// Cost bases per token, of every confirmed leg counted.
    basis: HashMap<String, CostBasis>,
    /// Tokens with a leg counted without knowing its market's fees.
    fees_unknown: HashSet<String>,
}

impl Default for Tracker {
    fn default() -> Self {
        Self::new()
    }
}

impl Tracker {
    /// An empty tracker with the default bound (60 s) and no maker address
    /// (fills are then attributed by order id only). [`Account::tracker`](super::Account::tracker)
    /// sets the account's maker.
    #[must_use]
    pub fn new() -> Self {
        Self {
            settle_within: DEFAULT_SETTLE_WITHIN,
            maker: None,
            orders: HashMap::new(),
            trades: HashMap::new(),
            by_order: HashMap::new(),
            baseline: HashMap::new(),
            events: VecDeque::new(),
            retain: DEFAULT_RETAIN,
            settled_trades: VecDeque::new(),
            done_orders: VecDeque::new(),
            forgotten: HashSet::new(),
            folded: HashMap::new(),
            fees: HashMap::new(),
            basis: HashMap::new(),
            fees_unknown: HashSet::new(),
        }
    }

    /// How many settled trades, and how many settled orders, are kept in full; older ones
    /// are folded into the totals and forgotten (see the [module docs](self)). Default is
    /// 10,000.
    #[must_use]
    pub const fn retain(mut self, settled: usize) -> Self {
        self.retain = settled;
        self
    }

    /// How long a matched trade may take to confirm before it is reported overdue. Default
    /// is 60 s: Polymarket's SDKs poll a matched trade for at most 30 s; the tracker allows
    /// twice that.
    #[must_use]
    pub const fn settle_within(mut self, bound: Duration) -> Self {
        self.settle_within = bound;
        self
    }

    /// The account's maker (funder) address: trade legs made from it count as the bot's even
    /// when the order was placed before tracking began. Default is none.
    #[must_use]
    pub fn maker(mut self, maker: Address) -> Self {
        self.maker = Some(maker.to_string().to_ascii_lowercase());
        self
    }

    /// Starts positions from the Data API's (`size` of each row), so that
    /// [`TrackedPosition::held`] and [`reconcile`](Self::reconcile) compare like with like. Rows
    /// without a size are left out (and show up in `reconcile`).
    pub fn baseline(&mut self, positions: &[data::Position]) {
        for p in positions {
            if let Some(size) = p.size {
                self.baseline.insert(p.token_id.clone(), size);
            }
        }
    }

    /// The fees of market `condition_id`: its schedule (Gamma's `feeSchedule`, the CLOB's
    /// `fd`: [`Client::fee_schedule`](crate::clob::Client::fee_schedule)), or `None` for a
    /// fee-free market. Legs confirmed before this is set were counted without a fee (and
    /// flagged, [`TrackedPosition::fees_unknown`]); set it before trading. Default is unknown.
    pub fn set_fee_schedule(&mut self, condition_id: &str, schedule: Option<FeeSchedule>) {
        self.fees
            .insert(condition_id.to_ascii_lowercase(), schedule);
    }

    /// The events since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<TrackerEvent> {
        self.events.drain(..).collect()
    }

    /// An order the tracker knows.
    #[must_use]
    pub fn order(&self, order_id: &str) -> Option<&TrackedOrder> {
        self.orders.get(order_id)
    }

    /// The orders that may still change: not done, or with fills not settled. After a break
    /// of the user feed (events were missed), [`refresh_order`](Self::refresh_order) each.
    #[must_use]
    pub fn unsettled_orders(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .orders
            .values()
            .filter(|o| !o.state.is_done() || !self.settlement(&o.id).is_settled())
            .map(|o| o.id.as_str())
            .collect();
        ids.sort_unstable();
        ids
    }

    // ----- inputs -----

    /// Records a post and its answer: the order becomes `Submitted`, then what the answer
    /// says (`live`, `matched`, `delayed`, `unmatched`, or `Rejected` with the exchange's
    /// message). An error without an answer (a timeout, a dropped connection) leaves it
    /// `Submitted`: it may exist, and the user channel or [`refresh_order`](Self::refresh_order)
    /// will tell.
    pub fn posted(&mut self, order: &SignedOrder, answer: &Result<PostOrderResponse, Error>) {
        let o = order.order();
        // The exchange's id is the order hash; its answer's spelling wins.
        let id = match answer {
            Ok(r) if !r.order_id.is_empty() => r.order_id.clone(),
            _ => format!("{:#x}", order.hash()),
        };
        let shares = match o.side {
            Side::Buy => o.taker_amount,
            Side::Sell => o.maker_amount,
        };
        self.known(&id, Some(o.token_id.as_str()), Some(o.side));
        if let Some(t) = self.orders.get_mut(&id) {
            t.original = Some(Size::from_micros(shares));
        }
        let state = match answer {
            Ok(r) if !r.success || !r.error_msg.is_empty() && r.order_id.is_empty() => {
                Some(OrderState::Rejected(r.error_msg.clone()))
            }
            Ok(r) => OrderState::from_status(&r.status),
            // Refused before sending, or by the exchange (a 4xx, including 425 and 429, or
            // 503: trading disabled): nothing was placed. Other 5xx and transport errors
            // leave the outcome unknown.
            Err(e)
                if e.is_refused_locally()
                    || e.is_argument()
                    || e.status().is_some_and(|s| s < 500 || s == 503) =>
            {
                Some(OrderState::Rejected(
                    e.message().map_or_else(|| e.to_string(), str::to_owned),
                ))
            }
            Err(_) => None,
        };
        if let Some(s) = state {
            self.set_state(&id, s);
        }
        self.refresh_state(&id);
    }

    /// Feeds one user-channel event: every message of the user feed (it delivers each trade
    /// status once, in order). After a break the feed reports (without
    /// [`reconcile`](crate::ws::feed::FeedBuilder::reconcile)), [`refresh_order`](Self::refresh_order)
    /// the [`unsettled_orders`](Self::unsettled_orders).
    pub fn on_user_event(&mut self, event: &UserEvent) {
        match event {
            UserEvent::Order(o) => self.on_order_update(o),
            UserEvent::Trade(t) => self.on_trade_update(t),
            _ => {}
        }
    }

    fn on_order_update(&mut self, o: &OrderUpdate) {
        self.known(&o.id, Some(&o.asset_id), Some(o.side));
        if let Some(t) = self.orders.get_mut(&o.id) {
            if let Some(orig) = o.original_size {
                t.original = Some(orig);
            }
            if let Some(m) = o.size_matched {
                t.reported_matched = t.reported_matched.max(m);
            }
        }
        let state = if o.kind == OrderEventKind::Cancellation {
            Some(OrderState::Canceled)
        } else {
            o.status.as_ref().and_then(OrderState::from_status)
        };
        if let Some(s) = state {
            self.set_state(&o.id, s);
        }
        self.refresh_state(&o.id);
    }

    fn on_trade_update(&mut self, t: &TradeUpdate) {
        let makers = t.maker_fills.iter();
        let (fills, value) = taker_fills(
            &t.asset_id,
            makers.map(|m| (m.asset_id.as_str(), m.price, m.matched)),
        );
        let mut legs = vec![Leg {
            order_id: t.taker_order_id.clone().unwrap_or_default(),
            asset_id: t.asset_id.clone(),
            side: t.side,
            size: t.size,
            price: t.price,
            value,
            maker_address: None,
            announced: false,
            counted: false,
        }];
        legs.extend(t.maker_fills.iter().map(|m| Leg {
            order_id: m.order_id.clone(),
            asset_id: m.asset_id.clone(),
            side: maker_side(m.side, &m.asset_id, &t.asset_id, t.side),
            size: m.matched,
            price: m.price,
            value: value_of(m.price, m.matched),
            maker_address: m.maker_address.as_deref().and_then(lower),
            announced: false,
            counted: false,
        }));
        let market = t.market.as_deref().unwrap_or("");
        self.trade(&t.id, t.status.clone(), None, (market, fills), legs);
    }

    /// Feeds an order as `GET /data/order/{id}` or `GET /data/orders` returns it.
    pub fn on_order(&mut self, o: &OpenOrder) {
        self.known(&o.id, Some(&o.asset_id), o.side);
        if let Some(t) = self.orders.get_mut(&o.id) {
            if !o.original_size.is_zero() {
                t.original = Some(o.original_size);
            }
            t.reported_matched = t.reported_matched.max(o.size_matched);
        }
        if let Some(s) = OrderState::from_status(&o.status) {
            self.set_state(&o.id, s);
        }
        self.refresh_state(&o.id);
    }

    /// Feeds a trade as `GET /data/trades` returns it.
    pub fn on_trade(&mut self, t: &Trade) {
        let Some(side) = t.side else {
            if !self.trades.contains_key(&t.id) && !self.is_forgotten(b't', &t.id) {
                self.events.push_back(TrackerEvent::Unreadable {
                    trade_id: t.id.clone(),
                });
            }
            return;
        };
        let makers = t.maker_orders.iter();
        let (fills, value) = taker_fills(
            &t.asset_id,
            makers.map(|m| (m.asset_id.as_str(), m.price, m.matched_amount)),
        );
        let mut legs = vec![Leg {
            order_id: t.taker_order_id.clone(),
            asset_id: t.asset_id.clone(),
            side,
            size: t.size,
            price: t.price,
            value,
            // The top-level `maker_address` is the taker order's maker.
            maker_address: lower(&t.maker_address),
            announced: false,
            counted: false,
        }];
        legs.extend(t.maker_orders.iter().map(|m| Leg {
            order_id: m.order_id.clone(),
            asset_id: m.asset_id.clone(),
            side: maker_side(m.side, &m.asset_id, &t.asset_id, side),
            size: m.matched_amount,
            price: m.price,
            value: value_of(m.price, m.matched_amount),
            maker_address: lower(&m.maker_address),
            announced: false,
            counted: false,
        }));
        let updated = t.last_update.filter(|u| u.as_secs() > 0);
        self.trade(&t.id, t.status.clone(), updated, (&t.market, fills), legs);
    }

    /// Reports trades of the bot's that have not confirmed within the bound by `now`
    /// (pass `Instant::now()`; a test may pass a later instant instead of sleeping).
    pub fn check_overdue(&mut self, now: Instant) {
        let mut late: Vec<(String, Duration)> = Vec::new();
        for (id, t) in &mut self.trades {
            let age = now.saturating_duration_since(t.seen);
            if !t.overdue && !t.status.is_final() && age >= self.settle_within {
                t.overdue = true;
                late.push((id.clone(), age));
            }
        }
        late.sort();
        for (trade_id, age) in late {
            if self.has_leg(&trade_id) {
                self.events
                    .push_back(TrackerEvent::Overdue { trade_id, age });
            }
        }
    }

    // ----- the state machine -----

    fn known(&mut self, id: &str, asset: Option<&str>, side: Option<Side>) {
        if id.is_empty() || self.is_forgotten(b'o', id) {
            return;
        }
        let fresh = !self.orders.contains_key(id);
        let t = self
            .orders
            .entry(id.to_owned())
            .or_insert_with(|| TrackedOrder {
                id: id.to_owned(),
                asset_id: None,
                side: None,
                original: None,
                reported_matched: Size::ZERO,
                state: OrderState::Submitted,
                folded: (Size::ZERO, Size::ZERO),
            });
        if t.asset_id.is_none() {
            t.asset_id = asset.filter(|a| !a.is_empty()).map(str::to_owned);
        }
        if t.side.is_none() {
            t.side = side;
        }
        if fresh {
            // Trades that arrived before the order was known are its fills now.
            for trade in self.by_order.get(id).cloned().unwrap_or_default() {
                self.announce(&trade);
                self.count(&trade);
            }
        }
    }

    /// Moves an order forward (never back: a stale `live` after `matched` is ignored).
    fn set_state(&mut self, id: &str, state: OrderState) {
        let Some(t) = self.orders.get_mut(id) else {
            return;
        };
        if t.state == state || t.state.is_done() || state.rank() < t.state.rank() {
            return;
        }
        t.state = state.clone();
        if state.is_done() {
            self.done_orders.push_back(id.to_owned());
        }
        self.events.push_back(TrackerEvent::Order {
            order_id: id.to_owned(),
            state,
        });
        self.compact();
    }

    /// Derives partial / full matching from the fills and `size_matched`.
    fn refresh_state(&mut self, id: &str) {
        let matched = self.matched(id);
        let Some(t) = self.orders.get(id) else {
            return;
        };
        if t.state.is_done() || matched.is_zero() {
            return;
        }
        let full = t.original.is_some_and(|o| matched >= o);
        let next = if full {
            OrderState::Matched
        } else {
            OrderState::PartiallyMatched
        };
        self.set_state(id, next);
    }

    /// An order's matched size: its non-failed fills, or `size_matched` when larger.
    fn matched(&self, id: &str) -> Size {
        let from_fills = self
            .fills_of(id)
            .filter(|(s, _)| **s != TradeStatus::Failed)
            .fold(Size::ZERO, |a, (_, l)| add(a, l.size));
        let (reported, folded) = self.orders.get(id).map_or((Size::ZERO, Size::ZERO), |t| {
            (t.reported_matched, t.folded.0)
        });
        add(from_fills, folded).max(reported)
    }

    fn fills_of<'a>(&'a self, id: &'a str) -> impl Iterator<Item = (&'a TradeStatus, &'a Leg)> {
        self.by_order
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|t| self.trades.get(t))
            .flat_map(move |t| {
                t.legs
                    .iter()
                    .filter(move |l| l.order_id == id)
                    .map(move |l| (&t.status, l))
            })
    }

    fn is_ours(&self, leg: &Leg) -> bool {
        self.orders.contains_key(&leg.order_id)
            || self
                .maker
                .as_ref()
                .is_some_and(|m| leg.maker_address.as_ref() == Some(m))
    }

    fn has_leg(&self, trade_id: &str) -> bool {
        self.trades
            .get(trade_id)
            .is_some_and(|t| t.legs.iter().any(|l| self.is_ours(l)))
    }

    fn trade(
        &mut self,
        id: &str,
        status: TradeStatus,
        updated: Option<Timestamp>,
        (market, fills): (&str, Vec<(Price, Size)>),
        legs: Vec<Leg>,
    ) {
        if id.is_empty() || self.is_forgotten(b't', id) {
            return;
        }
        let changed = match self.trades.get_mut(id) {
            None => {
                for l in &legs {
                    if !l.order_id.is_empty() {
                        let ids = self.by_order.entry(l.order_id.clone()).or_default();
                        if !ids.iter().any(|t| t == id) {
                            ids.push(id.to_owned());
                        }
                    }
                }
                self.trades.insert(
                    id.to_owned(),
                    TradeEntry {
                        status,
                        updated,
                        market: market.to_ascii_lowercase(),
                        fills,
                        legs,
                        seen: Instant::now(),
                        overdue: false,
                    },
                );
                true
            }
            Some(t) => {
                // One rule for every source: final statuses stay, nothing goes backwards.
                let newer = status.supersedes(updated, &t.status, t.updated);
                if newer {
                    t.status = status;
                    t.updated = t.updated.max(updated);
                }
                newer
            }
        };
        if !changed {
            return;
        }
        self.announce(id);
        self.count(id);
        let Some(t) = self.trades.get(id) else {
            return;
        };
        let status = t.status.clone();
        if status.is_final() {
            self.settled_trades.push_back(id.to_owned());
        }
        let orders: Vec<String> = t.legs.iter().map(|l| l.order_id.clone()).collect();
        if self.has_leg(id) {
            self.events.push_back(TrackerEvent::Trade {
                trade_id: id.to_owned(),
                status,
            });
        }
        for o in orders {
            if self.orders.contains_key(&o) {
                self.refresh_state(&o);
            }
        }
        self.compact();
    }

    /// Whether the trade (`b't'`) or order (`b'o'`) `id` was forgotten (no hash while none was).
    fn is_forgotten(&self, tag: u8, id: &str) -> bool {
        !self.forgotten.is_empty() && self.forgotten.contains(&fingerprint(tag, id))
    }

    /// Forgets the oldest settled trades and orders beyond the bound.
    fn compact(&mut self) {
        while self.settled_trades.len() > self.retain {
            if let Some(id) = self.settled_trades.pop_front() {
                self.forget_trade(&id);
            }
        }
        // Each queued order is looked at once per call: one still settling goes to the back.
        for _ in 0..self.done_orders.len().saturating_sub(self.retain) {
            let Some(id) = self.done_orders.pop_front() else {
                break;
            };
            if !self.orders.contains_key(&id) {
                continue;
            }
            if !self.settlement(&id).is_settled() {
                self.done_orders.push_back(id);
                continue;
            }
            // Its trades are final: fold them while the order still makes them ours.
            for t in self.by_order.get(&id).cloned().unwrap_or_default() {
                self.forget_trade(&t);
            }
            self.orders.remove(&id);
            self.forgotten.insert(fingerprint(b'o', &id));
        }
    }

    /// Folds a final trade into the totals and forgets it.
    fn forget_trade(&mut self, id: &str) {
        let Some(t) = self.trades.remove(id) else {
            return;
        };
        self.forgotten.insert(fingerprint(b't', id));
        let confirmed = t.status == TradeStatus::Confirmed;
        for l in &t.legs {
            if self.is_ours(l) && confirmed {
                let f = self.folded.entry(l.asset_id.clone()).or_default();
                match l.side {
                    Side::Buy => f.0 = add(f.0, l.size),
                    Side::Sell => f.1 = add(f.1, l.size),
                }
            }
            if let Some(o) = self.orders.get_mut(&l.order_id) {
                if confirmed {
                    o.folded.0 = add(o.folded.0, l.size);
                } else {
                    o.folded.1 = add(o.folded.1, l.size);
                }
            }
            if let Some(ids) = self.by_order.get_mut(&l.order_id) {
                ids.retain(|x| x != id);
                if ids.is_empty() {
                    self.by_order.remove(&l.order_id);
                }
            }
        }
    }

    /// Emits a [`TrackerEvent::Fill`] for each of the bot's legs of a trade not announced
    /// yet (not for a trade that failed before the leg was known).
    fn announce(&mut self, trade_id: &str) {
        let Some(t) = self.trades.get(trade_id) else {
            return;
        };
        if t.status == TradeStatus::Failed {
            return;
        }
        let new: Vec<usize> = (0..t.legs.len())
            .filter(|&i| !t.legs[i].announced && self.is_ours(&t.legs[i]))
            .collect();
        let Some(t) = self.trades.get_mut(trade_id) else {
            return;
        };
        for i in new {
            let l = &mut t.legs[i];
            l.announced = true;
            self.events.push_back(TrackerEvent::Fill(TrackedFill {
                trade_id: trade_id.to_owned(),
                order_id: l.order_id.clone(),
                asset_id: l.asset_id.clone(),
                side: l.side,
                size: l.size,
                price: l.price,
            }));
        }
    }

    /// Folds the bot's legs of a confirmed trade not counted yet into their positions' cost
    /// bases, buyers before sellers (as the exchange's ledger books them), each with its fee.
    fn count(&mut self, trade_id: &str) {
        let Some(t) = self.trades.get(trade_id) else {
            return;
        };
        if t.status != TradeStatus::Confirmed {
            return;
        }
        let mut due: Vec<usize> = (0..t.legs.len())
            .filter(|&i| !t.legs[i].counted && self.is_ours(&t.legs[i]))
            .collect();
        due.sort_by_key(|&i| t.legs[i].side != Side::Buy);
        let schedule = self.fees.get(&t.market).copied();
        let mut folded = Vec::with_capacity(due.len());
        for i in due {
            let l = &t.legs[i];
            let fee = match schedule {
                Some(None) => Some(Size::ZERO),
                Some(Some(f)) if i == 0 => f.taker_fee(t.fills.iter().copied()),
                Some(Some(f)) => f.maker_fee([(l.price, l.size)]),
                None => None,
            };
            folded.push((i, l.asset_id.clone(), l.side, l.size, l.value, fee));
        }
        for (i, asset, side, size, value, fee) in folded {
            if fee.is_none() {
                self.fees_unknown.insert(asset.clone());
            }
            let b = self.basis.entry(asset).or_default();
            let fee = fee.unwrap_or(Size::ZERO);
            match side {
                Side::Buy => b.buy(size, value, fee),
                Side::Sell => b.sell(size, value, fee),
            }
            if let Some(l) = self
                .trades
                .get_mut(trade_id)
                .and_then(|t| t.legs.get_mut(i))
            {
                l.counted = true;
            }
        }
    }

    // ----- answers -----

    /// The bot's fills, each trade leg once (failed trades included, with their status), of
    /// the trades still kept (see [`retain`](Self::retain)).
    pub fn fills(&self) -> impl Iterator<Item = (TrackedFill, &TradeStatus)> + '_ {
        let mut ids: Vec<&String> = self.trades.keys().collect();
        ids.sort();
        ids.into_iter().flat_map(move |id| {
            let t = &self.trades[id];
            t.legs.iter().filter(|l| self.is_ours(l)).map(move |l| {
                (
                    TrackedFill {
                        trade_id: id.clone(),
                        order_id: l.order_id.clone(),
                        asset_id: l.asset_id.clone(),
                        side: l.side,
                        size: l.size,
                        price: l.price,
                    },
                    &t.status,
                )
            })
        })
    }

    /// How the order's fills settled so far.
    #[must_use]
    pub fn settlement(&self, order_id: &str) -> Settlement {
        let order = self.orders.get(order_id);
        let (confirmed, failed) = order.map_or((Size::ZERO, Size::ZERO), |t| t.folded);
        let mut s = Settlement {
            state: order.map_or(OrderState::Submitted, |t| t.state.clone()),
            confirmed,
            pending: Size::ZERO,
            overdue: Size::ZERO,
            failed,
        };
        for id in self.by_order.get(order_id).into_iter().flatten() {
            let Some(t) = self.trades.get(id) else {
                continue;
            };
            for l in t.legs.iter().filter(|l| l.order_id == order_id) {
                let slot = match (&t.status, t.overdue) {
                    (TradeStatus::Confirmed, _) => &mut s.confirmed,
                    (TradeStatus::Failed, _) => &mut s.failed,
                    (_, true) => &mut s.overdue,
                    (_, false) => &mut s.pending,
                };
                *slot = add(*slot, l.size);
            }
        }
        s
    }

    /// Positions per token from the bot's fills (confirmed ones held; see [`TrackedPosition`]),
    /// sorted by token.
    #[must_use]
    pub fn positions(&self) -> Vec<TrackedPosition> {
        let mut by: HashMap<&str, TrackedPosition> = HashMap::new();
        for (asset, size) in &self.baseline {
            by.entry(asset.as_str()).or_default().baseline = *size;
        }
        for (asset, (bought, sold)) in &self.folded {
            let p = by.entry(asset.as_str()).or_default();
            p.bought = add(p.bought, *bought);
            p.sold = add(p.sold, *sold);
        }
        for (asset, basis) in &self.basis {
            let p = by.entry(asset.as_str()).or_default();
            p.basis = *basis;
            p.fees_unknown = self.fees_unknown.contains(asset);
        }
        for t in self.trades.values() {
            for l in t.legs.iter().filter(|l| self.is_ours(l)) {
                let p = by.entry(l.asset_id.as_str()).or_default();
                let buy = l.side == Side::Buy;
                let slot = match (&t.status, t.overdue, buy) {
                    (TradeStatus::Failed, ..) => continue,
                    (TradeStatus::Confirmed, _, true) => &mut p.bought,
                    (TradeStatus::Confirmed, _, false) => &mut p.sold,
                    (_, true, true) => &mut p.overdue_buy,
                    (_, true, false) => &mut p.overdue_sell,
                    (_, false, true) => &mut p.pending_buy,
                    (_, false, false) => &mut p.pending_sell,
                };
                *slot = add(*slot, l.size);
            }
        }
        let mut out: Vec<TrackedPosition> = by
            .into_iter()
            .map(|(a, mut p)| {
                a.clone_into(&mut p.asset_id);
                p
            })
            .collect();
        out.sort_by(|a, b| a.asset_id.cmp(&b.asset_id));
        out
    }

    /// The position in one token.
    #[must_use]
    pub fn position(&self, asset_id: &str) -> Option<TrackedPosition> {
        self.positions()
            .into_iter()
            .find(|p| p.asset_id == asset_id)
    }

    /// Compares the tracker's held positions with the Data API's (`GET /v2/positions` of the
    /// maker address) and returns every token where they differ, sorted by token. The Data
    /// API lags the chain by a few seconds: a difference right after a fill may close on the
    /// next call; one that stays is a fill the tracker missed or a settlement it believes
    /// in wrongly.
    #[must_use]
    pub fn reconcile(&self, data_api: &[data::Position]) -> Vec<PositionDiff> {
        let mine = self.positions();
        let mut assets: Vec<&str> = mine.iter().map(|p| p.asset_id.as_str()).collect();
        assets.extend(data_api.iter().map(|p| p.token_id.as_str()));
        assets.sort_unstable();
        assets.dedup();
        assets
            .into_iter()
            .filter_map(|a| {
                let tracker = mine
                    .iter()
                    .find(|p| p.asset_id == a)
                    .map_or(Some(Size::ZERO), TrackedPosition::held);
                let row = data_api.iter().find(|p| p.token_id == a);
                let data_api = row.and_then(|p| p.size);
                // Absent from the Data API and nothing held is agreement; a row without a
                // size agrees with nothing.
                let same = match row {
                    None => tracker == Some(Size::ZERO),
                    Some(_) => tracker == data_api,
                };
                (!same).then(|| PositionDiff {
                    asset_id: a.to_owned(),
                    tracker,
                    data_api,
                })
            })
            .collect()
    }

    // ----- the REST driver -----

    /// Pulls one order (`GET /data/order/{id}`) and its market's trades since it was created
    /// (`GET /data/trades`, every page) into the tracker, then checks the bound. Returns the
    /// trade rows that did not decode (they are not counted: look at them).
    ///
    /// # Errors
    ///
    /// The requests' errors (the tracker keeps what it had).
    pub async fn refresh_order(
        &mut self,
        client: &Client,
        order_id: &str,
    ) -> Result<Vec<SkippedRow>, Error> {
        let o = client.order(order_id).await?;
        self.on_order(&o);
        let filter = TradeFilter {
            market: (!o.market.is_empty()).then(|| o.market.clone()),
            asset_id: o.market.is_empty().then(|| o.asset_id.clone()),
            after: o.created_at.and_then(|t| t.as_secs().checked_sub(1)),
            ..TradeFilter::default()
        };
        let (trades, skipped) = client.all_trades(&filter).await?;
        for t in &trades {
            self.on_trade(t);
        }
        self.check_overdue(Instant::now());
        Ok(skipped)
    }

    /// Polls [`refresh_order`](Self::refresh_order) every `poll` until the order's fills
    /// are settled ([`Settlement::is_settled`]), a fill is overdue (so at most about the
    /// bound after its trade was first seen), the order stays submitted or delayed past
    /// the bound, or `deadline` has passed since the call; returns where it stands then.
    /// Each request is bounded by the time left: at the deadline the answer is the
    /// settlement as it stands (not [settled](Settlement::is_settled), if it was not), never
    /// an error and never a wait past it. Only the fills matched so far are waited for: a
    /// resting order may fill later.
    ///
    /// # Errors
    ///
    /// The requests' errors (a request cut short by the deadline is not one).
    pub async fn wait_for_settlement(
        &mut self,
        client: &Client,
        order_id: &str,
        poll: Duration,
        deadline: Duration,
    ) -> Result<Settlement, Error> {
        let start = Instant::now();
        let end = start.checked_add(deadline);
        let left = |now: Instant| end.map_or(Duration::MAX, |e| e.saturating_duration_since(now));
        loop {
            let refreshed =
                tokio::time::timeout(left(Instant::now()), self.refresh_order(client, order_id))
                    .await;
            match refreshed {
                Ok(r) => drop(r?),
                // The deadline passed mid-request: what is known so far.
                Err(_) => return Ok(self.settlement(order_id)),
            }
            let s = self.settlement(order_id);
            let held = matches!(s.state, OrderState::Submitted | OrderState::Delayed);
            let now = Instant::now();
            if s.is_settled()
                || !s.overdue.is_zero()
                || held && now.duration_since(start) >= self.settle_within
                || left(now).is_zero()
            {
                return Ok(s);
            }
            tokio::time::sleep(poll.min(left(now))).await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
