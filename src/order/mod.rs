//! Orders: exact amount math per tick size, validation, salts and timestamps, the prepared
//! builder, and the wire bodies (protocol.md §3).
//!
//! ```
//! use polyclob::order::{LimitOrder, MarketContext, OrderSigner};
//! use polyclob::sign::{Signer, wallet::Wallet};
//! use polyclob::types::{Chain, ExchangeVersion, Side, TickSize};
//!
//! // Once per account: who signs and who funds (Hardhat account #0, a public test key).
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
//! // Once per market: token, tick size, neg-risk flag, exchange (no network call).
//! let token = "71321045679252212594626385532706912750332728571942532289631379312455583992563".parse()?;
//! let market = MarketContext::new(Chain::Polygon, ExchangeVersion::V2, token, TickSize::Hundredth, false)?;
//!
//! // Per order: exact amounts, the EIP-712 hash, the signature, then the body into a reused buffer.
//! let bid = LimitOrder::new(Side::Buy, "0.48".parse()?, "10".parse()?);
//! let signed = orders.limit_order(&market, &bid)?;
//! let mut body = Vec::with_capacity(1024);
//! signed.write_json("your-api-key", &mut body);
//! let text = std::str::from_utf8(&body)?;
//! assert!(text.contains(r#""makerAmount":"4800000","takerAmount":"10000000""#));
//!
//! // A price off the 0.01 grid is refused before anything is signed.
//! let off_grid = LimitOrder::new(Side::Buy, "0.485".parse()?, "10".parse()?);
//! assert!(orders.limit_order(&market, &off_grid).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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
mod quote;
mod signed;
mod wire;

pub(crate) use self::amounts::limit_amounts;
pub use self::amounts::market_price;
pub use self::args::{LimitOrder, MarketAmount, MarketOrder};
pub use self::builder::OrderSigner;
pub use self::error::OrderError;
pub use self::market::MarketContext;
pub use self::quote::MarketQuote;
pub use self::signed::SignedOrder;
pub(crate) use self::wire::write_cancel_market_body;
pub use self::wire::{MAX_BATCH, write_batch_body, write_cancel_body, write_cancel_body_str};
pub use crate::sign::wallet::OrderSignature;
// The struct EIP-712 hashes and its token id live in `types`, which `sign` and `order` both
// import; they are re-exported here, where order-building code looks for them.
pub use crate::types::{Order, TokenId, TokenIdError};
