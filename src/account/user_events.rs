//! The user channel as flat owned events: [`UserEvent::Order`] and [`UserEvent::Trade`] with
//! typed statuses and the maker fills inline, trade-status repeats removed by default.
//!
//! The exchange sends every trade again as it progresses (`MATCHED`, then `MINED`, then
//! `CONFIRMED`; [user channel]), so a bot counting fills would count each one up to three
//! times. [`UserEvents`] delivers a trade the first time its id is seen, and again only when
//! the new status undoes or delays it (`FAILED`, `RETRYING`) or ends such a state;
//! [`UserEvents::all_statuses`] turns that off. Ids are remembered for the last 65,536 trades.
//!
//! The channel does not replay what happened while disconnected. With
//! [`UserEvents::reconcile`] the stream fetches what it missed after every break and delivers
//! it as ordinary events whose `recovered` field is `true`, then a
//! [`UserEvent::Reconciled`] marker, and only then the live events again: every fill exactly
//! once ([`reconcile`](super::reconcile) has the sequence).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt;
//! use polyclob::clob::Credentials;
//! use polyclob::ws::user::UserStream;
//! use polyclob::account::user_events::{TradeStatus, UserEvent, UserEvents};
//!
//! let stream = UserStream::builder(Credentials::new("key", "secret", "pass")).build()?;
//! let mut events = UserEvents::new(stream);
//! while let Some(ev) = events.next().await {
//!     match ev {
//!         UserEvent::Trade(t) if t.status != TradeStatus::Failed => {
//!             for m in &t.maker_fills {
//!                 println!("{} filled {} at {}", m.order_id, m.matched, m.price);
//!             }
//!         }
//!         UserEvent::Break(b) => println!("{b}"), // see `UserEvents::reconcile`
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! [user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;

use super::reconcile::{Fetched, Outcome, Reconcile, Reconciled, Reconciler};
use crate::clob::types as rest;
use crate::clob::types::{OrderStatus, TraderSide};
use crate::decode::{DecodeError, EventView as Decoded, JsonStr, OrderMsg, TradeMsg, decode_bytes};
use crate::fixed::{Price, Size};
use crate::http::SkippedRow;
use crate::types::{OrderType, Side};
use crate::ws::continuity::{Break, StreamKind};
use crate::ws::event::{Event, Status};

/// A trade's settlement status: the same type as the REST trades' (`MATCHED`, `MINED`,
/// `CONFIRMED`, `RETRYING`, `FAILED`, …, unknown names kept in `Unknown`).
pub use crate::clob::types::TradeStatus;

/// Whether a later event with this status must reach the bot even after the trade was
/// delivered: the fill is undone or delayed.
fn always_delivered(s: &TradeStatus) -> bool {
    matches!(s, TradeStatus::Failed | TradeStatus::Retrying)
}

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
    /// Match time as sent.
    pub match_time: Option<String>,
    /// The maker legs.
    pub maker_fills: Vec<MakerFill>,
    /// `false` for a live event; `true` when fetched over REST after a break
    /// ([`UserEvents::reconcile`]): the socket missed it.
    pub recovered: bool,
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
    /// ([`UserEvents::reconcile`], kind [`OrderEventKind::Open`]).
    pub recovered: bool,
}

/// An item of [`UserEvents`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UserEvent {
    /// An order event.
    Order(OrderUpdate),
    /// A trade (after de-duplication unless [`UserEvents::all_statuses`]).
    Trade(TradeUpdate),
    /// A frame or element that did not decode (including a trade whose maker legs did not).
    Invalid {
        /// Connection.
        shard: usize,
        /// Why.
        error: DecodeError,
    },
    /// A break in continuity (after the status that reported it): data derived from the
    /// channel is untrusted until [`Reconciled`](Self::Reconciled) (with
    /// [`UserEvents::reconcile`]; without it, fetch over REST yourself).
    Break(Break),
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
    /// A connection status change.
    Status(Status),
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
        match_time: t.matchtime.map(str::to_owned),
        maker_fills,
        recovered: false,
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
        match_time: t.match_time.map(|m| m.as_secs().to_string()),
        maker_fills,
        recovered: true,
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

/// The last status seen of each trade, bounded (oldest trade forgotten first).
#[derive(Debug, Default)]
struct Seen {
    last: HashMap<String, TradeStatus>,
    order: VecDeque<String>,
}

/// Trades remembered for de-duplication.
const SEEN_CAP: usize = 65_536;

impl Seen {
    /// Remembers `t`'s status; returns whether it is news: a trade not seen before, or a
    /// status change to or from one that undoes or delays the fill. With `repeats`, any
    /// status other than the last one seen is news.
    fn admit(&mut self, t: &TradeUpdate, repeats: bool) -> bool {
        if let Some(prev) = self.last.get_mut(&t.id) {
            let news = *prev != t.status
                && (repeats || always_delivered(&t.status) || always_delivered(prev));
            prev.clone_from(&t.status);
            return news;
        }
        if self.order.len() == SEEN_CAP {
            if let Some(old) = self.order.pop_front() {
                self.last.remove(&old);
            }
        }
        self.last.insert(t.id.clone(), t.status.clone());
        self.order.push_back(t.id.clone());
        true
    }
}

/// The user channel (any stream of its [`Event`]s, e.g. a
/// [`UserStream`](crate::ws::user::UserStream)) as flat [`UserEvent`]s.
#[derive(Debug)]
pub struct UserEvents<S> {
    inner: S,
    pending: VecDeque<UserEvent>,
    seen: Seen,
    /// Every live trade event is delivered ([`all_statuses`](Self::all_statuses)).
    repeats: bool,
    reconciler: Option<Reconciler>,
    /// Live frames that arrived after a break, before its reconciliation completed.
    held: VecDeque<Event>,
    /// While held frames are released: each recovered open order's `size_matched`. A held
    /// order event behind it predates the REST snapshot and is not delivered.
    snapshot: HashMap<String, Size>,
}

impl<S> UserEvents<S> {
    /// Wraps `inner`; trade-status repeats are removed (see the [module docs](self)).
    #[must_use]
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: VecDeque::new(),
            seen: Seen::default(),
            repeats: false,
            reconciler: None,
            held: VecDeque::new(),
            snapshot: HashMap::new(),
        }
    }

    /// Whether a held order event is older than the recovered state of its order.
    fn is_stale(&self, o: &OrderUpdate) -> bool {
        match (self.snapshot.get(&o.id), o.size_matched) {
            (Some(recovered), Some(matched)) => matched < *recovered,
            _ => false,
        }
    }

    /// Delivers every live trade event as sent, repeats included. Default: repeats removed.
    /// Recovered trades are still delivered once per status change.
    #[must_use]
    pub fn all_statuses(mut self) -> Self {
        self.repeats = true;
        self
    }

    /// After every break, fetches what the socket missed over REST and delivers it (marked
    /// `recovered`) before live events resume; see [`reconcile`](super::reconcile). Default
    /// is off: a break is only reported.
    ///
    /// Live events that arrive while the fetch runs are held in memory.
    #[must_use]
    pub fn reconcile(mut self, how: Reconcile) -> Self {
        self.reconciler = Some(Reconciler::new(how));
        self
    }

    /// The wrapped stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// A trade event, live or recovered: delivered unless it repeats one already delivered.
    fn push_trade(&mut self, t: TradeUpdate) {
        let news = self.seen.admit(&t, self.repeats);
        // With `all_statuses`, a live event is delivered even when it is not news.
        let as_sent = self.repeats && !t.recovered;
        if !news && !as_sent {
            return;
        }
        if let Some(r) = &mut self.reconciler {
            r.delivered(t.match_time.as_deref());
        }
        self.pending.push_back(UserEvent::Trade(t));
    }

    fn split(&mut self, ev: Event) {
        match ev {
            Event::Frame(f) => {
                let shard = f.shard();
                let events = match decode_bytes(f.as_bytes()) {
                    Ok(events) => events,
                    Err(error) => {
                        self.pending.push_back(UserEvent::Invalid { shard, error });
                        return;
                    }
                };
                for r in events {
                    let ev = match r {
                        Ok(Decoded::Trade(t)) => match trade(shard, &t) {
                            Ok(t) => {
                                self.push_trade(t);
                                continue;
                            }
                            Err(error) => UserEvent::Invalid { shard, error },
                        },
                        Ok(Decoded::Order(o)) => {
                            let o = order(shard, &o);
                            if self.is_stale(&o) {
                                continue;
                            }
                            UserEvent::Order(o)
                        }
                        Ok(_) => continue,
                        Err(error) => UserEvent::Invalid { shard, error },
                    };
                    self.pending.push_back(ev);
                }
            }
            Event::Status(s) => {
                let b = Break::from_status(StreamKind::User, &s);
                if let Some(r) = &mut self.reconciler {
                    r.on_status(&s);
                }
                self.pending.push_back(UserEvent::Status(s));
                if let Some(b) = b {
                    self.pending.push_back(UserEvent::Break(b));
                }
            }
        }
    }

    /// An event of the inner stream: statuses at once, frames held while a break is not
    /// reconciled.
    fn accept(&mut self, ev: Event) {
        let hold = matches!(ev, Event::Frame(_))
            && self.reconciler.as_ref().is_some_and(Reconciler::holding);
        if hold {
            self.held.push_back(ev);
        } else {
            self.split(ev);
        }
    }

    /// Delivers a finished fetch, the marker, then the held live frames.
    fn recovered(&mut self, shard: usize, fetched: Fetched) {
        let Some(r) = &self.reconciler else { return };
        let Fetched {
            orders,
            mut trades,
            mut skipped,
        } = fetched;
        trades.retain(|t| {
            r.cfg
                .keeps(Some(t.market.as_str()).filter(|m| !m.is_empty()))
        });
        let orders: Vec<_> = orders
            .into_iter()
            .filter(|o| {
                r.cfg
                    .keeps(Some(o.market.as_str()).filter(|m| !m.is_empty()))
            })
            .collect();
        trades.sort_by_key(|t| t.match_time);
        let before = self.pending.len();
        for t in trades {
            match recovered_trade(shard, t) {
                Ok(t) => self.push_trade(t),
                Err(row) => skipped.push(row),
            }
        }
        let n_trades = self.pending.len() - before;
        let mut n_orders = 0;
        for o in orders {
            match recovered_order(shard, o) {
                Ok(o) => {
                    n_orders += 1;
                    if let Some(m) = o.size_matched {
                        self.snapshot.insert(o.id.clone(), m);
                    }
                    self.pending.push_back(UserEvent::Order(o));
                }
                Err(row) => skipped.push(row),
            }
        }
        self.pending.push_back(UserEvent::Reconciled(Reconciled {
            shard,
            orders: n_orders,
            trades: n_trades,
            skipped,
        }));
        self.release_held();
    }

    /// Delivers the held frames in order, then forgets the snapshot they were checked against.
    fn release_held(&mut self) {
        while let Some(ev) = self.held.pop_front() {
            self.split(ev);
        }
        self.snapshot.clear();
    }
}

impl<S: Stream<Item = Event> + Unpin> Stream for UserEvents<S> {
    type Item = UserEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<UserEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(ev) = this.pending.pop_front() {
                return Poll::Ready(Some(ev));
            }
            if let Some(r) = &mut this.reconciler {
                if let Poll::Ready(outcome) = r.poll(cx) {
                    match outcome {
                        Outcome::Done { shard, fetched } => this.recovered(shard, fetched),
                        Outcome::Failed {
                            shard,
                            error,
                            retry_in,
                        } => {
                            this.pending.push_back(UserEvent::ReconcileFailed {
                                shard,
                                error,
                                retry_in,
                            });
                            if retry_in.is_none() {
                                this.release_held();
                            }
                        }
                    }
                    continue;
                }
            }
            match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Ready(Some(ev)) => this.accept(ev),
                Poll::Ready(None) => {
                    // The stream ended (shut down): what was held is still the user's.
                    if let Some(r) = &mut this.reconciler {
                        if r.holding() && !this.held.is_empty() {
                            this.reconciler = None;
                            this.release_held();
                            continue;
                        }
                    }
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn frame(json: &str) -> Event {
        Event::Frame(crate::ws::event::OwnedFrame {
            shard: 0,
            epoch: 1,
            payload: crate::ws::event::Payload::Text(json.to_owned().into()),
            received: std::time::Instant::now(),
        })
    }

    fn trade_json(id: &str, status: &str) -> String {
        format!(
            r#"{{"event_type":"trade","id":"{id}","asset_id":"7","market":"0xm","side":"BUY","size":"10","price":"0.5","status":"{status}","taker_order_id":"0xt","maker_orders":[{{"order_id":"0xa","asset_id":"7","matched_amount":"4","price":"0.5","outcome":"Yes","owner":"k","maker_address":"0x1"}},{{"order_id":"0xb","asset_id":"7","matched_amount":"6","price":"0.5","outcome":"Yes","owner":"k","maker_address":"0x2"}}]}}"#
        )
    }

    async fn collect(evs: Vec<Event>, all: bool) -> Vec<UserEvent> {
        let s = UserEvents::new(futures_util::stream::iter(evs));
        let s = if all { s.all_statuses() } else { s };
        s.collect().await
    }

    #[tokio::test]
    async fn trades_are_flat_and_repeats_removed() {
        let evs = vec![
            frame(&trade_json("t1", "MATCHED")),
            frame(&trade_json("t1", "MINED")),
            frame(&trade_json("t2", "MATCHED")),
            frame(&trade_json("t1", "CONFIRMED")),
            frame(&trade_json("t2", "FAILED")),
            frame(
                r#"{"event_type":"order","id":"0xo","type":"CANCELLATION","asset_id":"7","side":"SELL","price":"0.4","status":"CANCELED"}"#,
            ),
        ];
        let got = collect(evs.clone(), false).await;
        let trades: Vec<_> = got
            .iter()
            .filter_map(|e| match e {
                UserEvent::Trade(t) => Some((t.id.as_str(), t.status.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            trades,
            [
                ("t1", TradeStatus::Matched),
                ("t2", TradeStatus::Matched),
                ("t2", TradeStatus::Failed)
            ]
        );
        let UserEvent::Trade(t) = &got[0] else {
            panic!()
        };
        assert_eq!(t.maker_fills.len(), 2);
        assert_eq!(t.maker_fills[1].matched.to_string(), "6");
        let UserEvent::Order(o) = got.last().unwrap() else {
            panic!()
        };
        assert_eq!(o.kind, OrderEventKind::Cancellation);
        assert_eq!(
            collect(evs, true).await.len(),
            6,
            "opt-out keeps every status"
        );
    }

    #[tokio::test]
    async fn the_end_of_a_retry_is_news_a_repeat_is_not() {
        let evs = ["MATCHED", "RETRYING", "RETRYING", "CONFIRMED", "CONFIRMED"]
            .map(|s| frame(&trade_json("t1", s)))
            .to_vec();
        let got: Vec<_> = collect(evs, false)
            .await
            .into_iter()
            .filter_map(|e| match e {
                UserEvent::Trade(t) => Some(t.status),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            [
                TradeStatus::Matched,
                TradeStatus::Retrying,
                TradeStatus::Confirmed
            ]
        );
    }

    #[tokio::test]
    async fn breaks_follow_their_status() {
        let lag = Event::Status(Status::Lagged {
            shard: 0,
            dropped: 2,
        });
        let got = collect(vec![lag, frame("garbage")], false).await;
        assert!(matches!(got[0], UserEvent::Status(_)));
        assert!(matches!(got[1], UserEvent::Break(b) if b.stream == StreamKind::User));
        assert!(matches!(got[2], UserEvent::Invalid { .. }));
    }
}
