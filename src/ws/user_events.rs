//! The user channel as flat owned events: [`UserEvent::Order`] and [`UserEvent::Trade`] with
//! typed statuses and the maker fills inline, trade-status repeats removed by default.
//!
//! The exchange sends every trade again as it progresses (`MATCHED`, then `MINED`, then
//! `CONFIRMED`; [user channel]), so a bot counting fills would count each one up to three
//! times. [`UserEvents`] delivers a trade the first time its id is seen, and again only when
//! the new status undoes or delays it (`FAILED`, `RETRYING`); [`UserEvents::all_statuses`]
//! turns that off. Ids are remembered for the last 65,536 trades.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt;
//! use polyclob::ws::subscribe::UserAuth;
//! use polyclob::ws::user::UserStream;
//! use polyclob::ws::user_events::{TradeStatus, UserEvent, UserEvents};
//!
//! let stream = UserStream::builder(UserAuth::new("key", "secret", "pass")).build()?;
//! let mut events = UserEvents::new(stream);
//! while let Some(ev) = events.next().await {
//!     match ev {
//!         UserEvent::Trade(t) if t.status != TradeStatus::Failed => {
//!             for m in &t.maker_fills {
//!                 println!("{} filled {} at {}", m.order_id, m.matched, m.price);
//!             }
//!         }
//!         UserEvent::Break(b) => println!("{b}"), // refetch open orders and trades over REST
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

use super::continuity::{Break, StreamKind};
use super::event::{Event, Status};
use crate::clob::types::{OrderStatus, TraderSide};
use crate::decode::{DecodeError, Event as Decoded, JsonStr, OrderMsg, TradeMsg, decode_bytes};
use crate::fixed::{Price, Size};
use crate::types::{OrderType, Side};

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
    /// A break in continuity (after the status that reported it): what happened meanwhile
    /// must be fetched over REST.
    Break(Break),
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
    }
}

/// Trade ids seen, bounded (oldest forgotten first).
#[derive(Debug, Default)]
struct Seen {
    ids: HashMap<String, ()>,
    order: VecDeque<String>,
}

/// Trades remembered for de-duplication.
const SEEN_CAP: usize = 65_536;

impl Seen {
    /// Whether to deliver this trade; remembers it.
    fn admit(&mut self, t: &TradeUpdate) -> bool {
        if self.ids.contains_key(&t.id) {
            return always_delivered(&t.status);
        }
        if self.order.len() == SEEN_CAP {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
        self.ids.insert(t.id.clone(), ());
        self.order.push_back(t.id.clone());
        true
    }
}

/// The user channel (any stream of its [`Event`]s, e.g. a
/// [`UserStream`](super::user::UserStream)) as flat [`UserEvent`]s.
#[derive(Debug)]
pub struct UserEvents<S> {
    inner: S,
    pending: VecDeque<UserEvent>,
    seen: Option<Seen>,
}

impl<S> UserEvents<S> {
    /// Wraps `inner`; trade-status repeats are removed (see the [module docs](self)).
    #[must_use]
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: VecDeque::new(),
            seen: Some(Seen::default()),
        }
    }

    /// Delivers every trade event as sent, repeats included. Default: repeats removed.
    #[must_use]
    pub fn all_statuses(mut self) -> Self {
        self.seen = None;
        self
    }

    /// The wrapped stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
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
                                if let Some(seen) = &mut self.seen {
                                    if !seen.admit(&t) {
                                        continue;
                                    }
                                }
                                UserEvent::Trade(t)
                            }
                            Err(error) => UserEvent::Invalid { shard, error },
                        },
                        Ok(Decoded::Order(o)) => UserEvent::Order(order(shard, &o)),
                        Ok(_) => continue,
                        Err(error) => UserEvent::Invalid { shard, error },
                    };
                    self.pending.push_back(ev);
                }
            }
            Event::Status(s) => {
                let b = Break::from_status(StreamKind::User, &s);
                self.pending.push_back(UserEvent::Status(s));
                if let Some(b) = b {
                    self.pending.push_back(UserEvent::Break(b));
                }
            }
        }
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
            match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Ready(Some(ev)) => this.split(ev),
                Poll::Ready(None) => return Poll::Ready(None),
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
