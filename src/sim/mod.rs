//! An offline Polymarket CLOB on loopback, for testing clients and trading bots without the
//! internet (feature `sim`).
//!
//! The simulator speaks the exchange's wire formats: the REST endpoints of the CLOB (markets,
//! books, prices, API keys, orders, cancels, open orders, trades, heartbeats) over HTTP/1.1 and
//! HTTP/2 (h2c), and the `/ws/market` and `/ws/user` WebSocket channels. It verifies L1
//! ClobAuth signatures, L2 HMACs and EIP-712 order signatures (V2 domain `"2"`, the neg-risk
//! exchange for neg-risk markets, V3 for position-ID markets; V1 bodies get
//! `order_version_mismatch`), keeps a price-time-priority book per token, matches crossing
//! orders (GTC, GTD, FOK, FAK, post-only) and publishes `book`, `price_change`,
//! `last_trade_price`, `tick_size_change` and user `order`/`trade` events. Everything is
//! deterministic given a seed: the seeded books, ids, credentials and fault decisions.
//!
//! # Testing your bot against it
//!
//! Start a simulator inside your test, point your client at [`SimHandle::http_url`] and
//! [`SimHandle::ws_url`], and drive it as you would the real exchange:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use polyclob::sim::{MarketSpec, Simulator};
//!
//! let sim = Simulator::builder()
//!     .seed(42)                                // same seed, same books and ids
//!     .markets(MarketSpec::defaults())         // the crate's four fixture markets
//!     .start()
//!     .await?;
//! let http = sim.http_url();                   // e.g. http://127.0.0.1:40123
//! let market_ws = format!("{}/ws/market", sim.ws_url());
//! # let _ = (http, market_ws);
//! // ... run your bot against these URLs ...
//! // The server stops when `sim` is dropped.
//! # Ok(()) }
//! ```
//!
//! Credentials: either go through `POST /auth/api-key` with an L1 ClobAuth signature (as the
//! real exchange requires), or ask the handle for the very same credentials with
//! [`SimHandle::api_credentials`] when your bot loads them from configuration.
//!
//! Faults: build a [`Faults`] (latency, jitter, `425`/`429`/`503` on a schedule or with a
//! probability, WS disconnects and silence) and pass it to [`SimBuilder::faults`], or change it
//! while running with [`SimHandle::set_faults`]; [`SimHandle::disconnect_ws`] drops every WS
//! connection at once and [`SimHandle::set_cancel_only`] puts the exchange in cancel-only mode.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use std::time::Duration;
//! use polyclob::sim::{Faults, HttpFault, HttpRule, Simulator, Trigger};
//!
//! let sim = Simulator::builder()
//!     .faults(
//!         Faults::none()
//!             .latency(Duration::from_millis(2))
//!             // every 5th POST /order answers 429 with Retry-After: 1
//!             .http(HttpRule::new(Trigger::EveryNth(5), HttpFault::RateLimited { retry_after: Duration::from_secs(1) })
//!                 .path_prefix("/order"))
//!             // drop market-channel connections after 50 frames
//!             .ws_disconnect(Trigger::EveryNth(50)),
//!     )
//!     .start()
//!     .await?;
//! sim.set_faults(Faults::none()); // and back to normal
//! # Ok(()) }
//! ```
//!
//! The standalone binary `polyclob-sim` (`cargo run --features sim --bin polyclob-sim -- --help`)
//! serves the same exchange for bots written in other languages.
//!
//! # Fidelity notes
//!
//! - Books are per token; complementary tokens are seeded as mirror images but an order on
//!   "Yes" does not match an order on "No" (the real exchange also matches via minting/merging).
//! - Market (FOK/FAK) orders are matched for the share quantity they imply (`takerAmount` for
//!   BUY, `makerAmount` for SELL) at the tick price recovered from the amounts.
//! - Trades settle at once: each match yields a `MATCHED` then a `CONFIRMED` user `trade` event
//!   with a deterministic fake transaction hash. Balances and allowances are not modelled.
//! - Proxy/Safe makers are not checked against their CREATE2 derivation; POLY_1271 signatures
//!   are checked (the owner's ERC-7739 signature must recover to `POLY_ADDRESS`).
//! - Error texts follow Polymarket's documented messages where they are documented; others are
//!   descriptive and stable.

mod auth;
mod engine;
mod events;
mod faults;
mod market;
mod rest;
mod rng;
mod server;
mod state;
mod ws;

pub use self::faults::{Faults, HttpFault, HttpRule, Trigger};
pub use self::market::{MarketSpec, TokenSpec, parse_markets};
pub use self::server::{ApiCredentials, SimBuilder, SimHandle, Simulator};
