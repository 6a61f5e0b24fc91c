//! The polymarket-rs-client 0.1.1 surface (<https://docs.rs/polymarket-rs-client/0.1.1>), a thin layer over
//! [`crate::clob`] and [`crate::order`]. Re-exported at the crate root; not public itself, so
//! `SignedOrderRequest` stays reachable but unnameable, as in 0.1.1.

mod client;
mod orders;
mod signed;
mod types;

pub use client::ClobClient;
pub use types::{
    ApiCreds, ApiKeysResponse, AssetType, BalanceAllowanceParams, BookParams, CreateOrderOptions,
    ExtraOrderArgs, MarketOrderArgs, MidpointResponse, NegRiskResponse, OpenOrder, OpenOrderParams,
    OrderArgs, OrderBookSummary, OrderSummary, OrderType, PostOrder, PriceResponse, Side,
    SpreadResponse, TickSizeResponse, TradeParams,
};

/// An alloy signer usable with this crate (0.1.1's marker trait; no API takes it).
#[cfg(feature = "eth-signer")]
pub trait EthSigner: alloy_signer::Signer + alloy_signer::SignerSync + Send + Sync {}

#[cfg(feature = "eth-signer")]
impl<T: alloy_signer::Signer + alloy_signer::SignerSync + Send + Sync> EthSigner for T {}
