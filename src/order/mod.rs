//! Orders: exact amount math per tick size, validation, salts and timestamps, the prepared
//! builder, and the wire bodies (protocol.md §3).
//!
//! The path from a decision to bytes on the wire:
//! [`MarketContext`] (once per market) + [`OrderSigner`] (once per account) →
//! [`OrderSigner::limit_order`] / [`OrderSigner::market_order`] → [`SignedOrder`] (stack) →
//! [`SignedOrder::write_json`] into a reused buffer → the L2 HMAC over those exact bytes.

mod amounts;
mod args;
mod builder;
mod error;
mod market;
mod signed;
mod wire;

pub use self::amounts::{Amounts, limit_amounts, market_amounts, market_order_price, market_price};
pub use self::args::{LimitOrder, MarketOrder};
pub use self::builder::{MAX_SALT, OrderSigner, random_salt};
pub use self::error::OrderError;
pub use self::market::MarketContext;
pub use self::signed::SignedOrder;
pub use self::wire::{
    MAX_BATCH, write_batch_body, write_cancel_body, write_cancel_body_str,
    write_cancel_market_body, write_cancel_orders_body,
};
pub use crate::sign::wallet::OrderSignature;
// The struct EIP-712 hashes and its token id live in `types`, which `sign` and `order` both
// import; they are re-exported here, where order-building code looks for them.
pub use crate::types::{Order, TokenId, TokenIdError};
