//! The user channel as a feed: [`UserEvent::Order`] and [`UserEvent::Trade`] with typed
//! statuses and the maker fills inline, each trade's status monotone, what a break hid fetched
//! over REST.
//!
//! The exchange sends every trade again as it settles (`MATCHED`, then `MINED`, then
//! `CONFIRMED`; `RETRYING` in between; `FAILED` instead; [user channel]), and may send an older
//! status late (a replay after a reconnect, a race with the REST catch-up). The feed delivers
//! each trade once per status **change that moves it forward**: `MATCHED` → (`RETRYING` ⇄
//! `MINED`) → `CONFIRMED` or `FAILED`, both final; an older or repeated status is dropped on
//! every path (live, held during a catch-up, fetched over REST, replayed). So one stream serves
//! a fill counter (count [`TradeUpdate::first`]) and a [`Tracker`](super::Tracker) (feed it every
//! item) alike. Statuses are remembered for the last 65,536 trades.
//!
//! The channel does not replay what happened while disconnected. With
//! [`reconcile`](FeedBuilder::reconcile) the feed fetches what it missed after every break —
//! and after a `trade` element that did not decode, whose fill would otherwise be lost — and
//! delivers it as ordinary events whose `recovered` field is `true`, then a
//! [`UserEvent::Reconciled`] marker, and only then the live events that arrived meanwhile
//! ([`reconcile`](super::reconcile) has the sequence). Markets change on the open socket
//! ([`FeedHandle::subscribe`]); the catch-up follows the stream's markets.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt;
//! use polyclob::clob::Credentials;
//! use polyclob::account::user_events::{TradeStatus, UserEvent, UserStream};
//! use polyclob::ws::feed::FeedEvent;
//!
//! let mut events = UserStream::builder(Credentials::new("key", "secret", "pass")).build()?;
//! while let Some(ev) = events.next().await {
//!     match ev {
//!         FeedEvent::Message(UserEvent::Trade(t)) if t.first && t.status != TradeStatus::Failed => {
//!             for m in &t.maker_fills {
//!                 println!("{} filled {} at {}", m.order_id, m.matched, m.price);
//!             }
//!         }
//!         FeedEvent::Break(b) => println!("{b}"), // see `reconcile`
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! [user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel

use std::collections::{HashMap, VecDeque};
use std::task::{Context, Poll};

use super::reconcile::{Fetched, Outcome, Reconcile, Reconciled, Reconciler};
use crate::clob::Credentials;
use crate::clob::types as rest;
use crate::clob::types::{OrderStatus, TraderSide};
use crate::decode::{DecodeError, EventView as Decoded, JsonStr, OrderMsg, TradeMsg, decode_bytes};
use crate::fixed::{Price, Size};
use crate::http::SkippedRow;
use crate::types::{OrderType, Side, Timestamp};
use crate::ws::Closed;
use crate::ws::continuity::{Break, Cause, Lost, Recovery, StreamKind};
use crate::ws::event::{OwnedFrame, Status};
use crate::ws::feed::{
    BuildError, Cx, Decoder, Feed, FeedBuilder, FeedHandle, Handler, Sealed, Wire,
};
use crate::ws::shards::Shards;
use crate::ws::trust::{Keys, Trust};
use crate::ws::user::{POLICY, UserWire};

/// A trade's settlement status: the same type as the REST trades' (`MATCHED`, `MINED`,
/// `CONFIRMED`, `RETRYING`, `FAILED`, …, unknown names kept in `Unknown`).
pub use crate::clob::types::TradeStatus;

/// What an order event reports (`type`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OrderEventKind {
    /// The order was placed.
    Placement,
    /// The order was (partly) matched.
    Update,
    /// The order was cancelled.
    Cancellation,
    /// A recovered open order: its state at the reconciliation fetch, not a change (see
    /// [`reconcile`](super::reconcile)).
    Open,
    /// Absent or unknown (as sent).
    Other(Box<str>),
}

/// One maker leg of a trade.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MakerFill {
    /// The maker order.
    pub order_id: String,
    /// The maker's token.
    pub asset_id: String,
    /// Size matched against this maker.
    pub matched: Size,
    /// The maker's price.
    pub price: Price,
    /// The maker's side, when sent.
    pub side: Option<Side>,
    /// The maker's API key, when sent.
    pub owner: Option<String>,
    /// The maker's address, when sent.
    pub maker_address: Option<String>,
}

/// A trade of the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TradeUpdate {
    /// Connection the event came from.
    pub shard: usize,
    /// Trade id.
    pub id: String,
    /// Settlement status.
    pub status: TradeStatus,
    /// Condition id, when sent.
    pub market: Option<String>,
    /// The taker's token.
    pub asset_id: String,
    /// Taker side.
    pub side: Side,
    /// Taker price.
    pub price: Price,
    /// Taker size.
    pub size: Size,
    /// The taker order, when sent.
    pub taker_order_id: Option<String>,
    /// `TAKER` or `MAKER` (which side of the trade the user was on), when sent.
    pub trader_side: Option<TraderSide>,
    /// Settlement transaction, when sent.
    pub transaction_hash: Option<String>,
    /// When the trade matched (`matchtime`), when sent as a time (seconds, milliseconds or
    /// ISO 8601, as [`Timestamp`] reads them).
    pub match_time: Option<Timestamp>,
    /// When the trade's status last changed (`last_update`), when sent.
    pub last_update: Option<Timestamp>,
    /// `bucket_index`, when sent (its meaning is not documented).
    pub bucket_index: Option<u32>,
    /// The maker legs.
    pub maker_fills: Vec<MakerFill>,
    /// `false` for a live event; `true` when fetched over REST after a break
    /// ([`reconcile`](FeedBuilder::reconcile)): the socket missed it.
    pub recovered: bool,
    /// `true` on the trade's first delivery (count fills by it); later deliveries of the same
    /// trade carry its newer statuses.
    pub first: bool,
}

/// An order event of the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OrderUpdate {
    /// Connection the event came from.
    pub shard: usize,
    /// Order id.
    pub id: String,
    /// What happened.
    pub kind: OrderEventKind,
    /// Condition id, when sent.
    pub market: Option<String>,
    /// Token.
    pub asset_id: String,
    /// Side.
    pub side: Side,
    /// Limit price.
    pub price: Price,
    /// Original size, when sent.
    pub original_size: Option<Size>,
    /// Size matched so far, when sent (track fills by this: `associate_trades` may be empty).
    pub size_matched: Option<Size>,
    /// Status, when sent (`LIVE`, `MATCHED`, `DELAYED`, `UNMATCHED`, `CANCELED` …).
    pub status: Option<OrderStatus>,
    /// Order type, when sent.
    pub order_type: Option<OrderType>,
    /// `false` for a live event; `true` for an open order fetched over REST after a break
    /// ([`reconcile`](FeedBuilder::reconcile), kind [`OrderEventKind::Open`]).
    pub recovered: bool,
}

/// A message of the user feed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UserEvent {
    /// An order event.
    Order(OrderUpdate),
    /// A trade, each status change once and in order (see the [module docs](self)).
    Trade(TradeUpdate),
    /// The missed events of a break were delivered (marked `recovered`): data derived from
    /// the channel is trusted again, and live events resume.
    Reconciled(Reconciled),
    /// A reconciliation fetch failed: retried after `retry_in`, or not at all (`None`: an
    /// authentication or argument error; the held live events follow and the data stays
    /// untrusted).
    ReconcileFailed {
        /// The connection the fetch was for.
        shard: usize,
        /// The REST error.
        error: String,
        /// When the fetch is retried.
        retry_in: Option<std::time::Duration>,
    },
}

fn text(s: Option<JsonStr<'_>>) -> Option<String> {
    s.map(|s| {
        s.to_unescaped()
            .map_or_else(|_| s.raw().to_owned(), |c| c.into_owned())
    })
}

fn trade(shard: usize, t: &TradeMsg<'_>) -> Result<TradeUpdate, DecodeError> {
    let mut maker_fills = Vec::new();
    for m in t.maker_orders {
        let m = m?;
        maker_fills.push(MakerFill {
            order_id: m.order_id.to_owned(),
            asset_id: m.asset_id.to_owned(),
            matched: m.matched_amount,
            price: m.price,
            side: m.side,
            owner: m.owner.map(str::to_owned),
            maker_address: m.maker_address.map(str::to_owned),
        });
    }
    Ok(TradeUpdate {
        shard,
        id: t.id.to_owned(),
        status: text(t.status).map_or(TradeStatus::Unknown(String::new()), |s| {
            TradeStatus::parse(&s)
        }),
        market: t.market.map(str::to_owned),
        asset_id: t.asset_id.to_owned(),
        side: t.side,
        price: t.price,
        size: t.size,
        taker_order_id: t.taker_order_id.map(str::to_owned),
        trader_side: t.trader_side.map(TraderSide::parse),
        transaction_hash: t.transaction_hash.map(str::to_owned),
        match_time: t.matchtime.and_then(|s| Timestamp::parse(s).ok()),
        last_update: t.last_update.and_then(|s| Timestamp::parse(s).ok()),
        bucket_index: t.bucket_index,
        maker_fills,
        recovered: false,
        first: false,
    })
}

fn order(shard: usize, o: &OrderMsg<'_>) -> OrderUpdate {
    OrderUpdate {
        shard,
        id: o.id.to_owned(),
        kind: match o.kind.map(str::to_ascii_uppercase).as_deref() {
            Some("PLACEMENT") => OrderEventKind::Placement,
            Some("UPDATE") => OrderEventKind::Update,
            Some("CANCELLATION") => OrderEventKind::Cancellation,
            other => OrderEventKind::Other(other.unwrap_or("").into()),
        },
        market: o.market.map(str::to_owned),
        asset_id: o.asset_id.to_owned(),
        side: o.side,
        price: o.price,
        original_size: o.original_size,
        size_matched: o.size_matched,
        status: text(o.status).map(|s| OrderStatus::parse(&s)),
        order_type: o.order_type,
        recovered: false,
    }
}

fn nonempty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// A row that decoded but cannot become an event (no side): named by its id, as its page's
/// text is gone by now.
fn skipped_row(what: &'static str, id: &str) -> SkippedRow {
    SkippedRow::new(what, 0, format!("{what} row {id} has no side"), "")
}

/// A trade of `GET /data/trades` as a recovered event.
fn recovered_trade(shard: usize, t: rest::Trade) -> Result<TradeUpdate, SkippedRow> {
    let side = t.side.ok_or_else(|| skipped_row("trades", &t.id))?;
    let maker_fills = t
        .maker_orders
        .into_iter()
        .map(|m| MakerFill {
            order_id: m.order_id,
            asset_id: m.asset_id,
            matched: m.matched_amount,
            price: m.price,
            side: m.side,
            owner: nonempty(m.owner),
            maker_address: nonempty(m.maker_address),
        })
        .collect();
    Ok(TradeUpdate {
        shard,
        status: TradeStatus::parse(t.status.as_str()),
        id: t.id,
        market: nonempty(t.market),
        asset_id: t.asset_id,
        side,
        price: t.price,
        size: t.size,
        taker_order_id: nonempty(t.taker_order_id),
        trader_side: t.trader_side,
        transaction_hash: nonempty(t.transaction_hash),
        match_time: t.match_time,
        last_update: t.last_update,
        bucket_index: None,
        maker_fills,
        recovered: true,
        first: false,
    })
}

/// An order of `GET /data/orders` as a recovered event.
fn recovered_order(shard: usize, o: rest::OpenOrder) -> Result<OrderUpdate, SkippedRow> {
    let side = o.side.ok_or_else(|| skipped_row("orders", &o.id))?;
    let order_type = match o.order_type {
        rest::OrderKind::Gtc => Some(OrderType::Gtc),
        rest::OrderKind::Gtd => Some(OrderType::Gtd),
        rest::OrderKind::Fok => Some(OrderType::Fok),
        rest::OrderKind::Fak => Some(OrderType::Fak),
        _ => None,
    };
    Ok(OrderUpdate {
        shard,
        kind: OrderEventKind::Open,
        market: nonempty(o.market),
        asset_id: o.asset_id,
        side,
        price: o.price,
        original_size: Some(o.original_size),
        size_matched: Some(o.size_matched),
        status: Some(o.status),
        order_type,
        id: o.id,
        recovered: true,
    })
}

/// The last status delivered of each trade and when it changed, bounded (oldest trade
/// forgotten first).
#[derive(Debug, Default)]
struct Seen {
    last: HashMap<String, (TradeStatus, Option<Timestamp>)>,
    order: VecDeque<String>,
}

/// Trades remembered.
const SEEN_CAP: usize = 65_536;

impl Seen {
    /// Whether `t` moves its trade on ([`TradeStatus::supersedes`]; then remembered, `first`
    /// set on a new trade).
    fn admit(&mut self, t: &mut TradeUpdate) -> bool {
        if let Some((prev, at)) = self.last.get_mut(&t.id) {
            if !t.status.supersedes(t.last_update, prev, *at) {
                return false;
            }
            *prev = t.status.clone();
            *at = t.last_update;
            return true;
        }
        if self.order.len() == SEEN_CAP {
            if let Some(old) = self.order.pop_front() {
                self.last.remove(&old);
            }
        }
        self.last
            .insert(t.id.clone(), (t.status.clone(), t.last_update));
        self.order.push_back(t.id.clone());
        t.first = true;
        true
    }
}

/// The user feed.
pub type UserStream = Feed<UserFeed>;

/// The user channel's decoder: flat orders and trades, monotone statuses, the REST catch-up;
/// its state is the trust of the account (key `None`) and of each market (`Some(condition id)`).
#[derive(Debug, Default)]
pub struct UserFeed {
    auth: Option<Credentials>,
    seen: Seen,
    keys: Keys,
    reconciler: Option<Reconciler>,
    /// Live frames that arrived after a break, before its reconciliation completed.
    held: VecDeque<OwnedFrame>,
    /// While held frames are released: each recovered open order's `size_matched`. A held
    /// order event behind it predates the REST snapshot and is not delivered.
    snapshot: HashMap<String, Size>,
    /// The markets the account's trust covers (the stream's, as of the last catch-up).
    markets: Vec<String>,
    /// The subscription changes seen (see `Shards::changes`).
    changes: u64,
}

impl Feed<UserFeed> {
    /// A builder with the user channel's policy (the market channel's) and `auth`.
    #[must_use]
    pub fn builder(auth: Credentials) -> FeedBuilder<UserFeed> {
        let feed = UserFeed {
            auth: Some(auth),
            ..UserFeed::default()
        };
        FeedBuilder::new(feed, &POLICY)
    }
}

impl FeedBuilder<UserFeed> {
    /// Condition ids to receive events for; more (or fewer) later on the open connection with
    /// [`FeedHandle::subscribe`]. Default is none, which the exchange treats as every market
    /// of the account.
    #[must_use]
    pub fn markets<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let ids = ids.into_iter().map(|m| market_key(&m.into()));
        self.opts.ids.extend(ids);
        self
    }

    /// After every break (and after a `trade` element that did not decode), fetch what the
    /// socket missed over REST and deliver it (marked `recovered`) before live events resume;
    /// see [`reconcile`](super::reconcile). Live events that arrive meanwhile are held in
    /// memory. Default is off: a break is only reported.
    #[must_use]
    pub fn reconcile(mut self, how: Reconcile) -> Self {
        self.decoder_mut().reconciler = Some(Reconciler::new(how));
        self
    }
}

impl FeedHandle<UserFeed> {
    /// The markets the stream receives (condition ids; empty: every market).
    #[must_use]
    pub fn markets(&self) -> Vec<String> {
        self.assignment().concat()
    }
}

/// A condition id in the form markets are compared in (64-hex, lower case).
pub(super) fn market_key(id: &str) -> String {
    crate::types::padded_condition(id).to_ascii_lowercase()
}

impl UserFeed {
    /// Whether a held order event is older than the recovered state of its order.
    fn is_stale(&self, o: &OrderUpdate) -> bool {
        match (self.snapshot.get(&o.id), o.size_matched) {
            (Some(recovered), Some(matched)) => matched < *recovered,
            _ => false,
        }
    }

    fn holding(&self) -> bool {
        self.reconciler.as_ref().is_some_and(Reconciler::holding)
    }

    /// A trade, live or recovered: delivered (`true`) when it moves the trade on.
    fn trade<H: Handler<Self>>(
        &mut self,
        mut t: TradeUpdate,
        frame: Option<&OwnedFrame>,
        h: &mut H,
    ) -> bool {
        if !self.seen.admit(&mut t) {
            return false;
        }
        if let Some(r) = &mut self.reconciler {
            r.delivered(t.match_time);
        }
        h.on_message(&UserEvent::Trade(t), &Cx::new(frame, &self.keys));
        true
    }

    /// One frame's elements, in order.
    fn split<H: Handler<Self>>(&mut self, frame: &OwnedFrame, h: &mut H) {
        let shard = frame.shard();
        let events = match decode_bytes(frame.as_bytes()) {
            Ok(events) => events,
            Err(error) => return h.on_invalid(&error, &Cx::new(Some(frame), &self.keys)),
        };
        for r in events {
            let error = match r {
                Ok(Decoded::Trade(t)) => match trade(shard, &t) {
                    Ok(t) => {
                        self.trade(t, Some(frame), h);
                        continue;
                    }
                    Err(error) => error,
                },
                Ok(Decoded::Order(o)) => {
                    let o = order(shard, &o);
                    if !self.is_stale(&o) {
                        h.on_message(&UserEvent::Order(o), &Cx::new(Some(frame), &self.keys));
                    }
                    continue;
                }
                Ok(_) => continue,
                Err(error) => error,
            };
            h.on_invalid(&error, &Cx::new(Some(frame), &self.keys));
            // A trade that did not decode is a fill the bot would never hear of: fetch it.
            let trade = frame.as_str().is_some_and(|t| t.contains("\"trade\""));
            if let Some(r) = self.reconciler.as_mut().filter(|_| trade) {
                r.refetch(shard);
                self.keys.break_shard(shard);
                let brk = Break {
                    stream: StreamKind::User,
                    shard,
                    cause: Cause::Malformed,
                    lost: Lost::Count(1),
                    recovery: Recovery::Refetch,
                };
                h.on_break(&brk, &Cx::new(None, &self.keys));
            }
        }
    }

    /// Delivers a finished fetch, the marker, then the held live frames.
    fn recovered<H: Handler<Self>>(
        &mut self,
        shard: usize,
        fetched: Fetched,
        shards: &Shards,
        h: &mut H,
    ) {
        let Fetched {
            orders,
            mut trades,
            mut skipped,
        } = fetched;
        self.markets = shards.ids_of_all();
        self.changes = shards.changes();
        let keeps = |m: &str| {
            self.markets.is_empty() || !m.is_empty() && self.markets.contains(&market_key(m))
        };
        trades.retain(|t| keeps(&t.market));
        let orders: Vec<_> = orders.into_iter().filter(|o| keeps(&o.market)).collect();
        trades.sort_by_key(|t| t.match_time);
        let mut n_trades = 0;
        for t in trades {
            match recovered_trade(shard, t) {
                Ok(t) => n_trades += usize::from(self.trade(t, None, h)),
                Err(row) => skipped.push(row),
            }
        }
        let mut n_orders = 0;
        for o in orders {
            match recovered_order(shard, o) {
                Ok(o) => {
                    n_orders += 1;
                    if let Some(m) = o.size_matched {
                        self.snapshot.insert(o.id.clone(), m);
                    }
                    h.on_message(&UserEvent::Order(o), &Cx::new(None, &self.keys));
                }
                Err(row) => skipped.push(row),
            }
        }
        self.establish(shard);
        let done = Reconciled {
            shard,
            orders: n_orders,
            trades: n_trades,
            skipped,
        };
        h.on_message(&UserEvent::Reconciled(done), &Cx::new(None, &self.keys));
        self.release_held(h);
    }

    /// The account and its markets are trusted again on connection `shard`.
    fn establish(&mut self, shard: usize) {
        self.keys.establish("", shard, None);
        for m in &self.markets {
            self.keys.establish(m, shard, None);
        }
    }

    /// Delivers the held frames in order, then forgets the snapshot they were checked against.
    fn release_held<H: Handler<Self>>(&mut self, h: &mut H) {
        while let Some(f) = self.held.pop_front() {
            self.split(&f, h);
        }
        self.snapshot.clear();
    }
}

impl Sealed for UserFeed {
    type Sub = String;
    type Refused = Closed;
    type Remote = ();

    fn render(sub: String) -> String {
        market_key(&sub)
    }
    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        let auth = self.auth.take().ok_or(BuildError::Invalid("credentials"))?;
        Ok(Box::new(UserWire(auth)))
    }
    fn remote(&mut self) {}
    fn state(&self) -> &Keys {
        &self.keys
    }
    fn trust(keys: &Keys, market: Option<&str>) -> Trust {
        match market {
            None => keys.trust(""),
            Some(m) => keys.trust(&market_key(m)),
        }
    }
    fn frame<H: Handler<Self>>(&mut self, frame: &OwnedFrame, _: &Shards, h: &mut H, _: bool) {
        if self.holding() {
            self.held.push_back(frame.clone());
        } else {
            self.split(frame, h);
        }
    }
    fn status(&mut self, status: &Status, shards: &Shards) {
        if let Some(r) = &mut self.reconciler {
            r.on_status(status);
        }
        match status {
            Status::Connected {
                shard,
                reconnect: false,
                ..
            } => {
                // Nothing was missed before the first connection.
                self.markets = shards.ids_of_all();
                self.changes = shards.changes();
                self.establish(*shard);
            }
            Status::Connected { .. } => {}
            _ => self.keys.break_shard(status.shard()),
        }
    }
    fn poll<H: Handler<Self>>(
        &mut self,
        cx: &mut Context<'_>,
        shards: &Shards,
        h: &mut H,
    ) -> Poll<()> {
        let Some(r) = &mut self.reconciler else {
            return Poll::Pending;
        };
        if !r.holding() && shards.changes() != self.changes {
            // A market was added on the open socket: its earlier fills never came over it.
            self.changes = shards.changes();
            r.refetch(0);
        }
        match r.poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Outcome::Done { shard, fetched }) => {
                self.recovered(shard, fetched, shards, h);
                Poll::Ready(())
            }
            Poll::Ready(Outcome::Failed {
                shard,
                error,
                retry_in,
            }) => {
                let failed = UserEvent::ReconcileFailed {
                    shard,
                    error,
                    retry_in,
                };
                h.on_message(&failed, &Cx::new(None, &self.keys));
                if retry_in.is_none() {
                    self.release_held(h);
                }
                Poll::Ready(())
            }
        }
    }
    fn to_owned(msg: &UserEvent, _: &Cx<'_, Self>) -> UserEvent {
        msg.clone()
    }
}

impl Decoder for UserFeed {
    type Message<'a> = UserEvent;
    type Owned = UserEvent;
    /// `None`: the account; `Some(condition id)`: one market.
    type Key<'a> = Option<&'a str>;
    type State = Keys;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Got(Vec<UserEvent>, Vec<Break>, usize);

    impl Handler<UserFeed> for Got {
        fn on_message(&mut self, msg: &UserEvent, _: &Cx<'_, UserFeed>) {
            self.0.push(msg.clone());
        }
        fn on_invalid(&mut self, _: &DecodeError, _: &Cx<'_, UserFeed>) {
            self.2 += 1;
        }
        fn on_break(&mut self, brk: &Break, _: &Cx<'_, UserFeed>) {
            self.1.push(*brk);
        }
    }

    fn frame(json: &str) -> OwnedFrame {
        OwnedFrame {
            shard: 0,
            epoch: 1,
            payload: crate::ws::event::Payload::Text(json.to_owned().into()),
            received: std::time::Instant::now(),
        }
    }

    fn trade_json(id: &str, status: &str) -> String {
        format!(
            r#"{{"event_type":"trade","id":"{id}","asset_id":"7","market":"0xm","side":"BUY","size":"10","price":"0.5","status":"{status}","taker_order_id":"0xt","maker_orders":[{{"order_id":"0xa","asset_id":"7","matched_amount":"4","price":"0.5","outcome":"Yes","owner":"k","maker_address":"0x1"}},{{"order_id":"0xb","asset_id":"7","matched_amount":"6","price":"0.5","outcome":"Yes","owner":"k","maker_address":"0x2"}}]}}"#
        )
    }

    fn statuses(frames: &[String]) -> Vec<(String, TradeStatus, bool)> {
        let (mut feed, mut got) = (UserFeed::default(), Got::default());
        for f in frames {
            feed.split(&frame(f), &mut got);
        }
        got.0
            .into_iter()
            .filter_map(|e| match e {
                UserEvent::Trade(t) => Some((t.id, t.status, t.first)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_trade_moves_forward_once_per_status() {
        use TradeStatus::{Confirmed as C, Failed as F, Matched as M, Mined as N, Retrying as R};
        let sent = [
            ("t1", "MATCHED"),
            ("t1", "MINED"),
            ("t2", "MATCHED"),
            ("t1", "MATCHED"), // late: dropped
            ("t1", "CONFIRMED"),
            ("t1", "MINED"), // a replay after the final status: dropped
            ("t2", "FAILED"),
            ("t2", "RETRYING"), // FAILED is final
            ("t2", "FAILED"),   // and never delivered twice
            ("t3", "MATCHED"),
            ("t3", "RETRYING"),
            ("t3", "RETRYING"),
            ("t3", "MINED"),
            ("t3", "CONFIRMED"),
        ]
        .map(|(id, s)| trade_json(id, s));
        let got = statuses(&sent);
        let want = [
            ("t1", M, true),
            ("t1", N, false),
            ("t2", M, true),
            ("t1", C, false),
            ("t2", F, false),
            ("t3", M, true),
            ("t3", R, false),
            ("t3", N, false),
            ("t3", C, false),
        ]
        .map(|(id, s, first)| (id.to_owned(), s, first));
        assert_eq!(got, want);
    }

    /// The catch-up's `after` is the newest delivered match time less the lookback, in
    /// seconds: a `matchtime` in milliseconds or ISO 8601 must read as the same instant, not as
    /// seconds in the year 58,000 (after which the catch-up would find no trade at all).
    #[test]
    fn match_time_reads_seconds_milliseconds_and_iso_as_one_instant() {
        let mut got = Got::default();
        let mut feed = UserFeed::default();
        for (id, when) in [
            ("s", "\"1791241253\""),
            ("ms", "\"1791241253000\""),
            ("iso", "\"2026-10-05T23:00:53Z\""),
            ("bad", "\"soon\""),
        ] {
            let json =
                trade_json(id, "MATCHED").replacen('{', &format!(r#"{{"matchtime":{when},"#), 1);
            feed.split(&frame(&json), &mut got);
        }
        let times: Vec<_> = got
            .0
            .iter()
            .filter_map(|e| match e {
                UserEvent::Trade(t) => Some((t.id.as_str(), t.match_time.map(Timestamp::as_secs))),
                _ => None,
            })
            .collect();
        assert_eq!(
            times,
            [
                ("s", Some(1_791_241_253)),
                ("ms", Some(1_791_241_253)),
                ("iso", Some(1_791_241_253)),
                ("bad", None),
            ]
        );
    }

    #[test]
    fn flat_trades_and_orders() {
        let (mut feed, mut got) = (UserFeed::default(), Got::default());
        feed.split(&frame(&trade_json("t1", "MATCHED")), &mut got);
        feed.split(
            &frame(r#"{"event_type":"order","id":"0xo","type":"CANCELLATION","asset_id":"7","side":"SELL","price":"0.4","status":"CANCELED"}"#),
            &mut got,
        );
        feed.split(&frame("garbage"), &mut got);
        let UserEvent::Trade(t) = &got.0[0] else {
            panic!()
        };
        assert_eq!(t.maker_fills.len(), 2);
        assert_eq!(t.maker_fills[1].matched.to_string(), "6");
        let UserEvent::Order(o) = &got.0[1] else {
            panic!()
        };
        assert_eq!(o.kind, OrderEventKind::Cancellation);
        assert_eq!(got.2, 1, "garbage is one invalid element");
        assert!(
            got.1.is_empty(),
            "without a catch-up there is nothing to restart"
        );
    }
}
