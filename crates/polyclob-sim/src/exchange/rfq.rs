//! Request for quote, as the exchange keeps it: requests, the quotes made on them, and how a
//! quote meets its request. The routes (create, list, cancel, accept, approve) and the
//! settlement of an approved quote are `wire/rfq.rs` and `Exchange::settle_pair`.

use polyclob::types::Side;

use super::orders::NewOrder;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Active,
    Canceled,
    Accepted,
    Filled,
}

/// One side's terms: token, side, shares and collateral (micro-units).
#[derive(Debug, Clone)]
pub(crate) struct Terms {
    pub(crate) mi: usize,
    pub(crate) ti: usize,
    pub(crate) side: Side,
    pub(crate) shares: u64,
    pub(crate) usdc: u64,
}

impl Terms {
    pub(crate) fn price(&self) -> u32 {
        u32::try_from(u128::from(self.usdc) * 1_000_000 / u128::from(self.shares.max(1)))
            .unwrap_or(0)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RequestRec {
    pub(crate) id: String,
    pub(crate) user: String,
    pub(crate) terms: Terms,
    pub(crate) expiry: u64,
    pub(crate) phase: Phase,
}

/// How a quote meets its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// Same token, opposite sides.
    Complementary,
    /// Complement token, both buy.
    Mint,
    /// Complement token, both sell.
    Merge,
}

impl Match {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Complementary => "COMPLEMENTARY",
            Self::Mint => "MINT",
            Self::Merge => "MERGE",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct QuoteRec {
    pub(crate) id: String,
    pub(crate) request_id: String,
    pub(crate) user: String,
    pub(crate) terms: Terms,
    pub(crate) kind: Match,
    pub(crate) phase: Phase,
    /// The requester's signed order, once accepted.
    pub(crate) accepted: Option<NewOrder>,
}

/// RFQ state kept with the exchange.
#[derive(Debug, Default)]
pub(crate) struct Rfq {
    pub(crate) requests: Vec<RequestRec>,
    pub(crate) quotes: Vec<QuoteRec>,
    pub(crate) next: u64,
}
