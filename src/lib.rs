//! # polyclob
//!
//! The fastest correct [Polymarket] CLOB client.
//!
//! - **Trades on today's exchange**: CLOB V2 orders (EIP-712 domain `"2"`), ExchangeV3 for
//!   position-ID markets, V1 only as legacy.
//! - **Fixed-point inside**: prices and sizes are parsed straight from the exchange's decimal
//!   strings into integers ([`fixed`]); no binary float reaches a book or a signature.
//! - **A source-compatible drop-in for `polymarket-rs-client` 0.1.1**: the crate root holds
//!   exactly that crate's names, so `polymarket-rs-client = { package = "polyclob", … }`
//!   keeps existing code compiling.
//!
//! ## Modules
//!
//! | module | what it holds |
//! |---|---|
//! | [`fixed`] | [`Price`](fixed::Price), [`Size`](fixed::Size), [`Notional`](fixed::Notional): exact 6-decimal newtypes |
//! | [`clob`] | the native REST [`Client`](clob::Client): tuned transport, typed errors, endpoints, pagination, caches |
//! | [`types`] | sides, order types, tick sizes, signature types, chains, the contract table, the exchange's order struct and token ids |
//! | [`sign`] | keys, EIP-712, ECDSA backends, L1 ClobAuth, L2 HMAC, wallets |
//! | [`order`] | order amounts per tick size, validation, the builder, the wire body |
//! | [`decode`] | WebSocket frames decoded into borrowed, allocation-free views (bytes in, events out) |
//! | [`ws`] | WebSocket streams that stay alive (sharding, keepalive, reconnect, lag reports) |
//! | [`book`] | fixed-point L2 books and the manager that applies decoded frames to them |
//! | [`gamma`] | market discovery (Gamma): keyset-paged markets and events, tags, series, sports, search; a market's trading contexts |
//! | [`data`] | the Data API v2: positions, trades, activity, portfolio value, holders, with cursor paging |
//! | [`rtds`] | the real-time data socket: crypto and equity prices, comments, matched orders |
//! | `onchain` (feature `onchain`) | approvals, split/merge/redeem, neg-risk conversion and balances as EIP-1559 transactions (EOA, Safe, proxy) |
//! | `sim` (feature `sim`, default) | an offline exchange on loopback (REST, WS, matching, faults) for testing bots |
//!
//! [Polymarket]: https://docs.polymarket.com

// `unsafe` is denied everywhere except `sign::x86` (SIMD loads/stores and the calls after
// run-time CPU detection for the Keccak and SHA-256 kernels; BENCHMARKS.md, Signing),
// `decode::x86` (the decoder's SSE2 string-end scan), `decode::json`'s bounds-checked chunk reads,
// and `sign::fork` (the nonce pool's wipe-on-fork mapping and atfork handler).
#![deny(unsafe_code)]
// The library never prints: output belongs to the application.
#![deny(clippy::print_stdout, clippy::print_stderr)]
// Library code never unwraps; `expect` only on a locally proven invariant, with its reason.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod book;
pub mod clob;
mod compat;
pub mod data;
pub mod decode;
#[cfg(test)]
mod error_chains;
pub mod fixed;
pub mod gamma;
#[cfg(feature = "onchain")]
pub mod onchain;
pub mod order;
pub mod rtds;
pub mod sign;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(test)]
mod testutil;
mod tls;
pub mod types;
pub mod ws;

// The polymarket-rs-client 0.1.1 root, exactly (compat-api.md §1).
pub use alloy_primitives::U256;
pub use anyhow::{Context, Result as ClientResult, anyhow};
#[cfg(feature = "eth-signer")]
pub use compat::EthSigner;
pub use compat::{
    ApiCreds, ApiKeysResponse, AssetType, BalanceAllowanceParams, BookParams, ClobClient,
    CreateOrderOptions, ExtraOrderArgs, MarketOrderArgs, MidpointResponse, NegRiskResponse,
    OpenOrder, OpenOrderParams, OrderArgs, OrderBookSummary, OrderSummary, OrderType, PostOrder,
    PriceResponse, Side, SpreadResponse, TickSizeResponse, TradeParams,
};
pub use serde_json::Value;

// Compiles and runs the README's code blocks as doctests, so the README cannot drift.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
