//! Orders, trades, post and cancel responses.

use std::collections::HashMap;

use serde::Deserialize;

use crate::fixed::{Price, Size};
use crate::http::lenient::{self, lenient_enum};
use crate::types::{Side, Timestamp, timestamp_opt};

lenient_enum!(
    /// Status of an order. The docs list `LIVE`, `INVALID`, `CANCELED_MARKET_RESOLVED`,
    /// `CANCELED` and `MATCHED` for `GET /data/orders`; their own examples send the prefixed
    /// form (`ORDER_STATUS_LIVE`), which is accepted. Other `CANCELED_<reason>` statuses and
    /// new names land in `Unknown`.
    ///
    /// ```
    /// use polyclob::clob::types::OrderStatus;
    /// assert_eq!(OrderStatus::parse("ORDER_STATUS_LIVE"), OrderStatus::Live);
    /// assert_eq!(OrderStatus::parse("canceled_market_resolved"), OrderStatus::CanceledMarketResolved);
    /// ```
    OrderStatus prefix "ORDER_STATUS_" {
        /// Resting on the book.
        Live = "LIVE",
        /// Fully matched.
        Matched = "MATCHED",
        /// Accepted, execution delayed (sports markets).
        Delayed = "DELAYED",
        /// Marketable but not matched.
        Unmatched = "UNMATCHED",
        /// Cancelled.
        Canceled = "CANCELED",
        /// Cancelled at market resolution.
        CanceledMarketResolved = "CANCELED_MARKET_RESOLVED",
        /// Invalid.
        Invalid = "INVALID",
    }
);

lenient_enum!(
    /// Settlement status of a trade. The `TRADE_STATUS_` prefix some responses carry
    /// (`TRADE_STATUS_CONFIRMED`) is accepted.
    TradeStatus prefix "TRADE_STATUS_" {
        /// Matched off-chain.
        Matched = "MATCHED",
        /// Matched, settlement transaction not broadcast yet (async execution).
        MatchedNotBroadcasted = "MATCHED_NOT_BROADCASTED",
        /// Mined.
        Mined = "MINED",
        /// Confirmed on chain.
        Confirmed = "CONFIRMED",
        /// Being retried.
        Retrying = "RETRYING",
        /// Failed.
        Failed = "FAILED",
    }
);

impl TradeStatus {
    /// How far a trade has settled: `MATCHED` (and `MATCHED_NOT_BROADCASTED`) 0, `MINED` and
    /// `RETRYING` 1, `CONFIRMED` and `FAILED` 2; `None` for a name this version does not know.
    fn rank(&self) -> Option<u8> {
        match self {
            Self::Matched | Self::MatchedNotBroadcasted => Some(0),
            Self::Mined | Self::Retrying => Some(1),
            Self::Confirmed | Self::Failed => Some(2),
            Self::Unknown(_) => None,
        }
    }

    /// Whether nothing follows: `CONFIRMED` (settled) or `FAILED` (not retried).
    ///
    /// ```
    /// use polyclob::clob::types::TradeStatus;
    /// assert!(TradeStatus::Failed.is_final() && !TradeStatus::Retrying.is_final());
    /// ```
    #[must_use]
    pub fn is_final(&self) -> bool {
        self.rank() == Some(2)
    }

    /// Whether a trade's status `self`, last updated at `at`, replaces the status `prev` it
    /// had (last updated at `prev_at`): the one rule that keeps a trade's status monotone
    /// whatever order its messages arrive in (live frames, a REST catch-up, history a server
    /// replays after a reconnect).
    ///
    /// A trade goes `MATCHED` → `MINED` → `CONFIRMED`, with `RETRYING` in between when its
    /// transaction is retried, or ends `FAILED`; `CONFIRMED` and `FAILED` are final. So:
    /// nothing replaces a final status (a second, different final is a conflict, not an
    /// update), the same status is no change, and a status earlier in that order never
    /// replaces a later one. Between `MINED` and `RETRYING` (either may follow the other) the
    /// update time decides when both are known: an older one does not replace a newer one.
    /// A name this version does not know replaces any status that is not final (it cannot be
    /// placed in the order: delivered rather than hidden), except an empty one, which says
    /// nothing.
    ///
    /// ```
    /// use polyclob::clob::types::TradeStatus::{self, *};
    /// use polyclob::types::Timestamp;
    ///
    /// assert!(Mined.supersedes(None, &Matched, None));
    /// assert!(!Mined.supersedes(None, &Confirmed, None)); // a replay goes nowhere
    /// assert!(!Retrying.supersedes(None, &Failed, None)); // FAILED is final
    /// assert!(!Matched.supersedes(None, &Matched, None));
    /// let (t1, t2) = (Some(Timestamp::from_millis(1_000)), Some(Timestamp::from_millis(2_000)));
    /// assert!(Retrying.supersedes(t2, &Mined, t1));
    /// assert!(!Retrying.supersedes(t1, &Mined, t2)); // older news
    /// assert!(TradeStatus::parse("SETTLING").supersedes(None, &Mined, None));
    /// ```
    #[must_use]
    pub fn supersedes(
        &self,
        at: Option<Timestamp>,
        prev: &Self,
        prev_at: Option<Timestamp>,
    ) -> bool {
        if self == prev || prev.is_final() || matches!(self, Self::Unknown(s) if s.is_empty()) {
            return false;
        }
        match (self.rank(), prev.rank()) {
            (Some(next), Some(was)) if next < was => false,
            (Some(next), Some(was)) if next == was => match (at, prev_at) {
                (Some(at), Some(prev_at)) => at >= prev_at,
                _ => true,
            },
            _ => true,
        }
    }
}

lenient_enum!(
    /// Which side of a trade the user was on.
    TraderSide {
        /// Taker.
        Taker = "TAKER",
        /// Maker.
        Maker = "MAKER",
    }
);

lenient_enum!(
    /// Order type as reported by the server.
    OrderKind {
        /// Good till cancelled.
        Gtc = "GTC",
        /// Good till date.
        Gtd = "GTD",
        /// Fill or kill.
        Fok = "FOK",
        /// Fill and kill.
        Fak = "FAK",
    }
);

/// An order as `GET /data/order/{id}` and `GET /data/orders` return it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct OpenOrder {
    /// Order hash.
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: String,
    /// Status.
    #[serde(default)]
    pub status: OrderStatus,
    /// API key that owns the order.
    #[serde(default, deserialize_with = "lenient::string")]
    pub owner: String,
    /// Maker (funder) address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub market: String,
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_id: String,
    /// Side (`None` if the server sent something else).
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// Original size in shares.
    #[serde(default, deserialize_with = "lenient::size")]
    pub original_size: Size,
    /// Shares matched so far. Kept after the order is cancelled, so it is what the order
    /// traded, not what the account holds: positions are the Data API's
    /// ([`data::Client::positions`](crate::data::Client::positions)).
    #[serde(default, deserialize_with = "lenient::size")]
    pub size_matched: Size,
    /// Limit price.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// Trades that filled this order (`null` or `[]` may come even for a filled order: the
    /// trades are the authority, [`Client::trades`](crate::clob::Client::trades)).
    #[serde(default)]
    pub associate_trades: Option<Vec<String>>,
    /// Outcome name.
    #[serde(default, deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Creation time (an integer of unix seconds here, a string on the user channel).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// Expiration, unix seconds (0 = none).
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub expiration: u64,
    /// Order type.
    #[serde(default = "unknown_kind", alias = "type")]
    pub order_type: OrderKind,
}

fn unknown_kind() -> OrderKind {
    OrderKind::Unknown(String::new())
}

/// A maker order filled by a trade.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct MakerOrder {
    /// Order hash.
    #[serde(default, deserialize_with = "lenient::string")]
    pub order_id: String,
    /// Owner API key.
    #[serde(default, deserialize_with = "lenient::string")]
    pub owner: String,
    /// Maker address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Matched size.
    #[serde(default, deserialize_with = "lenient::size")]
    pub matched_amount: Size,
    /// Price.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// Fee rate bps.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub fee_rate_bps: u64,
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_id: String,
    /// Outcome.
    #[serde(default, deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Side.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
}

/// A trade as `GET /data/trades` returns it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Trade {
    /// Trade id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub id: String,
    /// Taker order hash.
    #[serde(default, deserialize_with = "lenient::string")]
    pub taker_order_id: String,
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub market: String,
    /// Token id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub asset_id: String,
    /// Taker side.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// Size.
    #[serde(default, deserialize_with = "lenient::size")]
    pub size: Size,
    /// Fee rate bps.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub fee_rate_bps: u64,
    /// Price.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// Settlement status.
    #[serde(default = "unknown_trade_status")]
    pub status: TradeStatus,
    /// Match time (the docs show unix seconds in a string; ISO 8601 is read too).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub match_time: Option<Timestamp>,
    /// Last update, in the forms of [`match_time`](Self::match_time).
    #[serde(default, deserialize_with = "timestamp_opt")]
    pub last_update: Option<Timestamp>,
    /// Outcome.
    #[serde(default, deserialize_with = "lenient::string")]
    pub outcome: String,
    /// Owner API key.
    #[serde(default, deserialize_with = "lenient::string")]
    pub owner: String,
    /// Maker address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub maker_address: String,
    /// Maker orders filled.
    #[serde(default)]
    pub maker_orders: Vec<MakerOrder>,
    /// Settlement transaction.
    #[serde(default, deserialize_with = "lenient::string")]
    pub transaction_hash: String,
    /// Which side the user was on.
    #[serde(default)]
    pub trader_side: Option<TraderSide>,
    /// Error text, if any.
    #[serde(default, deserialize_with = "lenient::string")]
    pub error_msg: String,
}

fn unknown_trade_status() -> TradeStatus {
    TradeStatus::Unknown(String::new())
}

/// Response of `POST /order` (and each element of `POST /orders`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PostOrderResponse {
    /// Accepted.
    #[serde(default, deserialize_with = "lenient::bool_lenient")]
    pub success: bool,
    /// Error text when not accepted.
    #[serde(default, deserialize_with = "lenient::string")]
    pub error_msg: String,
    /// The order hash.
    #[serde(default, rename = "orderID", deserialize_with = "lenient::string")]
    pub order_id: String,
    /// `live`, `matched`, `delayed` (the taker hold: not cancellable yet), `unmatched`;
    /// `Unknown("")` when the order was refused.
    #[serde(default)]
    pub status: OrderStatus,
    /// Amount made (`""` = 0).
    #[serde(default, deserialize_with = "lenient::size")]
    pub making_amount: Size,
    /// Amount taken (`""` = 0).
    #[serde(default, deserialize_with = "lenient::size")]
    pub taking_amount: Size,
    /// Settlement transactions.
    #[serde(default)]
    pub transactions_hashes: Option<Vec<String>>,
    /// Trade ids.
    #[serde(default, rename = "tradeIDs")]
    pub trade_ids: Option<Vec<String>>,
}

impl PostOrderResponse {
    /// The exchange refused this post-only order because it would have matched on arrival
    /// (`errorMsg` `invalid post-only order: order crosses book`): how a `POST /orders` batch
    /// reports it per order inside its `200` answer, whatever the `success` flag says. A
    /// single `POST /order` answers `400` instead, seen as
    /// [`Error::is_post_only_crossing`](crate::http::Error::is_post_only_crossing).
    ///
    /// ```
    /// use polyclob::clob::types::PostOrderResponse;
    ///
    /// let batch: Vec<PostOrderResponse> = serde_json::from_str(
    ///     r#"[{"errorMsg":"invalid post-only order: order crosses book","orderID":"","takingAmount":"","makingAmount":"","status":"","success":true}]"#,
    /// )?;
    /// assert!(batch[0].is_post_only_crossing());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[must_use]
    pub fn is_post_only_crossing(&self) -> bool {
        crate::clob::error::is_post_only_crossing_text(&self.error_msg)
    }

    /// A FAK/FOK order in a `POST /orders` batch found nothing (or, FOK, not enough) to
    /// match, as [`Error::is_no_match`](crate::http::Error::is_no_match) reports it for one
    /// order.
    #[must_use]
    pub fn is_no_match(&self) -> bool {
        let m = self.error_msg.to_ascii_lowercase();
        m.contains("no orders found to match") || m.contains("couldn't be fully filled")
    }
}

/// Response of every cancel endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct CancelResponse {
    /// Cancelled order ids (`null` or absent = none).
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub canceled: Vec<String>,
    /// Orders not cancelled, with the reason (`null` or absent = none).
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub not_canceled: HashMap<String, String>,
}

impl CancelResponse {
    /// The exchange refused to cancel `order_id` because it is in the taker hold (about
    /// 250 ms after a marketable order is accepted as `delayed`): `not_canceled` says
    /// `cannot cancel because the order is in pending/delayed status`. The order will still
    /// be matched; cancel what is left of it after the hold.
    ///
    /// ```
    /// use polyclob::clob::types::CancelResponse;
    ///
    /// let r: CancelResponse = serde_json::from_str(
    ///     r#"{"canceled":[],"not_canceled":{"0xab":"cannot cancel because the order is in pending/delayed status"}}"#,
    /// )?;
    /// assert!(r.is_delayed("0xab") && !r.is_delayed("0xcd"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[must_use]
    pub fn is_delayed(&self, order_id: &str) -> bool {
        self.not_canceled
            .get(order_id)
            .is_some_and(|why| crate::clob::error::is_delayed_text(why))
    }
}

impl Default for OrderStatus {
    /// `Unknown("")`: no status was given (a refused post).
    fn default() -> Self {
        Self::Unknown(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `GET /data/orders` as docs.polymarket.com "Get user orders" shows it (its example
    /// sends the prefixed status and an integer `created_at`), and every status and order
    /// type the page lists: each decodes, none lands in `Unknown`.
    #[test]
    fn the_documented_order_shapes_decode() {
        let body = br#"{"limit":100,"next_cursor":"MTAw","count":2,"data":[
            {"id":"0xabcdef1234567890abcdef1234567890abcdef12","status":"ORDER_STATUS_LIVE",
             "owner":"f4f247b7-4ac7-ff29-a152-04fda0a8755a","maker_address":"0x1234567890123456789012345678901234567890",
             "market":"0x0000000000000000000000000000000000000000000000000000000000000001","asset_id":"0xabc123def456...",
             "side":"BUY","original_size":"100000000","size_matched":"0","price":"0.5","outcome":"YES",
             "expiration":"1735689600","order_type":"GTC","associate_trades":[],"created_at":1700000000},
            {"id":"0xfedcba0987654321fedcba0987654321fedcba09","status":"ORDER_STATUS_LIVE",
             "owner":"f4f247b7-4ac7-ff29-a152-04fda0a8755a","maker_address":"0x1234567890123456789012345678901234567890",
             "market":"0x0000000000000000000000000000000000000000000000000000000000000002","asset_id":"0xdef456abc789...",
             "side":"SELL","original_size":"200000000","size_matched":"50000000","price":"0.75","outcome":"NO",
             "expiration":"1735689600","order_type":"GTC","associate_trades":["trade-123"],"created_at":1700000001}]}"#;
        let page = crate::http::decode_page::<OpenOrder>(body).unwrap();
        assert!(page.skipped.is_empty(), "{:?}", page.skipped);
        assert_eq!(page.data.len(), 2);
        let o = &page.data[1];
        assert_eq!(o.status, OrderStatus::Live);
        assert_eq!(o.created_at.map(Timestamp::as_secs), Some(1_700_000_001));
        assert_eq!(o.expiration, 1_735_689_600);
        assert_eq!(o.order_type, OrderKind::Gtc);
        assert_eq!(o.size_matched.to_string(), "50000000");
        assert_eq!(
            o.associate_trades.as_deref(),
            Some(&["trade-123".to_owned()][..])
        );
        for (wire, want) in [
            ("LIVE", OrderStatus::Live),
            ("INVALID", OrderStatus::Invalid),
            (
                "CANCELED_MARKET_RESOLVED",
                OrderStatus::CanceledMarketResolved,
            ),
            ("CANCELED", OrderStatus::Canceled),
            ("MATCHED", OrderStatus::Matched),
            (
                "ORDER_STATUS_CANCELED_MARKET_RESOLVED",
                OrderStatus::CanceledMarketResolved,
            ),
            ("order_status_matched", OrderStatus::Matched),
        ] {
            for kind in ["GTC", "GTD", "FOK", "FAK"] {
                let row = format!(
                    r#"{{"id":"0x1","status":"{wire}","order_type":"{kind}","size_matched":"12.5",
                        "original_size":"20","created_at":1700000000,"associate_trades":null}}"#
                );
                let o: OpenOrder = serde_json::from_str(&row).unwrap();
                assert_eq!(o.status, want, "{wire}");
                assert!(!matches!(o.order_type, OrderKind::Unknown(_)), "{kind}");
                // Kept after a cancel: the matched size is still there.
                assert_eq!(o.size_matched.to_string(), "12.5");
            }
        }
        assert_eq!(
            serde_json::from_str::<OpenOrder>(r#"{"order_type":"FAK"}"#)
                .unwrap()
                .order_type,
            OrderKind::Fak
        );
        // A status that is not the prefix plus a known name stays verbatim.
        assert_eq!(
            OrderStatus::parse("ORDER_STATUS_PAUSED"),
            OrderStatus::Unknown("ORDER_STATUS_PAUSED".into())
        );
    }
}
