//! Request for quote (RFQ), both sides: a requester asks for a price, quoters answer,
//! the requester accepts a quote and the quoter approves it; the exchange then settles the
//! two signed orders as one trade.
//!
//! Paths, bodies and the amount rules follow py-clob-client-v2 1.2.1 (`rfq/rfq_client.py`)
//! and polymarket_client_sdk_v2 0.9.0 (`rfq` feature). Accept and approve carry a **V1**
//! signed order (domain version `"1"`, with `taker`, `nonce`, `feeRateBps`): both official
//! clients sign V1 there, whatever the exchange version of ordinary orders.

mod amounts;
mod calls;
mod types;

pub use amounts::{RfqAmounts, RfqOrderTerms, order_body};
pub use calls::RfqFilter;
pub use types::{MatchType, RfqCreated, RfqQuote, RfqRequest, RfqState};
