//! The exchange's order records: an order as the HTTP layer hands it over ([`NewOrder`]), as
//! the exchange keeps it ([`OrderRec`], its [`Status`]), and the answers to placing
//! ([`Placed`]) and cancelling ([`Canceled`]) orders.

use polyclob::types::{OrderType, Side};

/// Lifecycle of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Live,
    /// In the taker hold: not on the book yet, not cancellable.
    Delayed,
    Matched,
    Canceled,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Live => "LIVE",
            Self::Delayed => "DELAYED",
            Self::Matched => "MATCHED",
            Self::Canceled => "CANCELED",
        }
    }
}

/// An order the exchange has accepted.
#[derive(Debug, Clone)]
pub(crate) struct OrderRec {
    pub(crate) seq: u64,
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) user: String,
    pub(crate) maker_address: String,
    pub(crate) market: usize,
    pub(crate) token: usize,
    pub(crate) side: Side,
    pub(crate) price: u32,
    pub(crate) original: u64,
    pub(crate) matched: u64,
    pub(crate) order_type: OrderType,
    pub(crate) expiration: u64,
    pub(crate) created_at: u64,
    pub(crate) status: Status,
    pub(crate) trades: Vec<String>,
    /// Index of the latest trade the order took part in.
    pub(crate) last_trade: Option<usize>,
    /// Took part in a trade with a client: kept for as long as that trade is.
    pub(crate) pinned: bool,
    /// Builder code the order was signed with (zero = none).
    pub(crate) builder: alloy_primitives::B256,
    /// Signed as a V1 order (a pre-migration order).
    pub(crate) v1: bool,
}

/// What the HTTP layer hands the exchange for a new order, after parsing and signature checks.
#[derive(Debug, Clone)]
pub(crate) struct NewOrder {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) user: String,
    pub(crate) maker_address: String,
    pub(crate) token_id: String,
    pub(crate) side: Side,
    pub(crate) maker_amount: u64,
    pub(crate) taker_amount: u64,
    pub(crate) order_type: OrderType,
    pub(crate) post_only: bool,
    pub(crate) expiration: u64,
    /// Builder code the order was signed with (zero = none).
    pub(crate) builder: alloy_primitives::B256,
    /// Signed as a V1 order (a pre-migration order).
    pub(crate) v1: bool,
}

/// The exchange's answer to an accepted order.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub(crate) id: String,
    pub(crate) status: &'static str,
    pub(crate) making: u64,
    pub(crate) taking: u64,
    pub(crate) trade_ids: Vec<String>,
    pub(crate) tx_hashes: Vec<String>,
}

/// Result of a cancel request.
#[derive(Debug, Default)]
pub(crate) struct Canceled {
    pub(crate) canceled: Vec<String>,
    pub(crate) not_canceled: Vec<(String, String)>,
}
