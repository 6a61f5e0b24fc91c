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
//! ## A tour, from a market to a settled position
//!
//! Each step is a worked example that runs against the offline exchange of the
//! [`polyclob-sim`](https://docs.rs/polyclob-sim) crate, as this crate's tests do. For
//! Polymarket itself, leave out the `.host(..)` / `.url(..)` calls: every client defaults to
//! Polymarket's hosts. The `discover_and_trade` and `settle` examples run the whole path in one
//! program.
//!
//! ### 1. Discover a market ([`gamma`])
//!
//! Gamma lists markets and events; a Gamma market already carries what an order needs (token
//! ids, tick size, neg-risk flag, exchange), so trading it needs no CLOB metadata request.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::gamma::{self, MarketFilter};
//! use polyclob::types::{Chain, ExchangeVersion};
//!
//! let gamma = gamma::Client::builder().host(sim.gamma_url()).build()?;
//! let (markets, _skipped) = gamma.all_markets(MarketFilter::new().active(true)).await?;
//! let market = markets.iter().find(|m| m.is_tradable()).ok_or("nothing to trade")?;
//! let trading = market.trading(Chain::Polygon, ExchangeVersion::V2)?;
//! let yes = trading.contexts[0]; // an order::MarketContext per outcome token
//! println!("{}: token {}, tick {:?}", market.question, yes.token_id().as_str(), yes.tick());
//! # Ok(()) }
//! ```
//!
//! ### 2. Watch its book ([`clob`], [`ws`], [`book`])
//!
//! REST answers one-off questions; the market channel keeps a fixed-point [`book::Book`] per
//! token current, reconnecting and resnapshotting on its own.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use futures_util::StreamExt;
//! use polyclob::clob::ClientBuilder;
//! use polyclob::ws::market::MarketStream;
//! use std::time::Duration;
//!
//! let client = ClientBuilder::new().host(sim.http_url()).build()?;
//! println!("midpoint {}", client.midpoint(&token).await?);
//!
//! let mut books = MarketStream::builder().url(sim.market_ws_url()).assets([token.clone()]).build()?;
//! while books.state().book(&token).is_none() {
//!     tokio::time::timeout(Duration::from_secs(5), books.next()).await?.ok_or("closed")?;
//! }
//! let book = books.state().book(&token).ok_or("no book")?; // live books only
//! println!("best bid {:?}, best ask {:?}", book.best_bid(), book.best_ask());
//! # Ok(()) }
//! ```
//!
//! ### 3. Trade ([`account`], [`sign`], [`order`])
//!
//! An [`account::Account`] is one trading account: the [`sign::Signer`] (the key), the wallet
//! (EOA here; proxy, Safe and deposit wallet through [`sign::wallet`]) and the chain, given
//! once; `connect` creates or derives the API credentials (L1) and checks the wallet against
//! the key before any order. It is the one way to place an order: its L2 calls cannot run
//! without credentials, and it signs with its own [`order::OrderSigner`] (which signs CLOB V2
//! orders; keep an [`order::MarketContext`] to sign prepared orders with no I/O). Market data
//! and every other endpoint are its [`clob::Client`]'s.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().seed(5).start().await?;
//! # let token = sim.markets()[0].tokens()[0].token_id().to_owned();
//! use polyclob::account::Account;
//! use polyclob::clob::ClientBuilder;
//! use polyclob::order::LimitOrder;
//! use polyclob::sign::{Signer, wallet::Wallet};
//! use polyclob::types::Side;
//!
//! // Hardhat account #0: a public test key. Load yours from the environment.
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! # sim.fund(signer.address(), 1_000_000_000); // the simulator's accounts start empty
//! let account = Account::builder(signer)
//!     .wallet(Wallet::Eoa)
//!     .client(ClientBuilder::new().host(sim.http_url())) // chain, lane, proxy: here
//!     .connect()
//!     .await?;
//!
//! let bid = LimitOrder::new(Side::Buy, "0.10".parse()?, "10".parse()?).post_only(true);
//! let placed = account.place_limit_order(&token, &bid).await?; // market data cached
//! account.cancel(&placed.order_id).await?;
//!
//! // Prepared: the context kept, then sign and post with no lookups.
//! let market = account.market_context(&token).await?;
//! let signed = account.order_signer().limit_order(&market, &bid)?;
//! account.post_order(&signed).await?;
//! # Ok(()) }
//! ```
//!
//! ### 4. Read positions back ([`data`])
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::data::{self, Query};
//!
//! let me = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
//! let data = data::Client::builder().host(sim.data_api_url()).build()?;
//! let (positions, unreadable) = data.positions(me).await?; // rows that did not decode too
//! for p in positions {
//!     println!("{} {:?} shares at {:?}", p.outcome, p.size, p.avg_price);
//! }
//! assert!(unreadable.is_empty());
//! let (trades, _skipped) = data.collect(Query::trades().user(me)).await?; // every page
//! println!("{} trades", trades.len());
//! # Ok(()) }
//! ```
//!
//! ### 5. Settle on chain (`onchain`, feature `onchain`)
//!
//! Approvals, split/merge/redeem and balances as EIP-1559 transactions signed by the same
//! [`sign::Signer`] (an account's `settler(rpc_url)` presets its key, chain and wallet; a deposit
//! wallet settles through Polymarket's [`relayer`] instead); the simulator (with its own
//! feature `onchain`) serves a chain its fills move.
//!
//! ```
//! # #[cfg(feature = "onchain")]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().onchain(true).start().await?;
//! # let signer = polyclob::sign::Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! # sim.fund_native(signer.address(), polyclob::U256::from(10u64).pow(polyclob::U256::from(18u8)));
//! use polyclob::onchain::Settler;
//! use std::time::Duration;
//!
//! let settler = Settler::builder(sim.rpc_url(), signer)
//!     .poll_interval(Duration::from_millis(5))
//!     .build()?;
//! let sent = settler.ensure_approvals().await?; // only the approvals that are missing
//! let pusd = settler.collateral_balance(settler.holder()).await?;
//! println!("{} approvals sent, {pusd} pUSD micro-units", sent.len());
//! // Later: settler.redeem(condition_id, neg_risk).await? once the market resolves.
//! # Ok(()) }
//! # #[cfg(not(feature = "onchain"))]
//! # fn main() {}
//! ```
//!
//! ## Errors: nothing dropped, nothing guessed
//!
//! **Every call that returns rows follows one rule: no row is dropped silently.** A row that
//! does not decode comes back beside the rows as an [`http::SkippedRow`] (the list it was in,
//! its index, the reason, and its raw JSON text, kept up to
//! [`SkippedRow::RAW_MAX`](http::SkippedRow::RAW_MAX) bytes): in a page's `skipped`, or as the
//! second half of an `(rows, skipped)` answer. A call whose answer has no room for it (a map,
//! a batch whose answers line up with its orders, the drop-in's `Vec`s) fails instead. A row
//! holding an element that does not decode (a book level, a market's event, a reward config)
//! is itself a row that does not decode: nothing comes back thinned. Each skipped row is
//! counted ([`http::ClientCounters::skipped_rows`], every client's `counters()`) and traced
//! (`polyclob.http.skipped_row`). Where a value is unknown the answer says so (`None`, an
//! `Unknown` variant), never a guessed default.
//!
//! Every failure is one opaque [`http::Error`] queried by predicates. A server's typed error
//! body (the Data API v2's `{error, code, retryable, trace_id, parameter}`) is read whole:
//! [`api_code`](http::Error::api_code), [`retryable`](http::Error::retryable),
//! [`parameter`](http::Error::parameter), [`trace_id`](http::Error::trace_id) (also in the
//! error's text and in tracing). The one retry loop retries what the server calls retryable
//! (else by status), never sooner than its `Retry-After`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::data::{self, Query};
//! use polyclob::http::ApiErrorCode;
//!
//! let data = data::Client::builder().host(sim.data_api_url()).build()?;
//! let (_trades, skipped) = data.collect(Query::trades()).await?;
//! for row in &skipped {
//!     eprintln!("{}[{}] did not decode: {} in {}", row.list, row.index, row.reason, row.raw);
//! }
//! assert_eq!(data.counters().skipped_rows, skipped.len() as u64);
//! let e = data.page(&Query::trades(), Some("stale-cursor")).await.unwrap_err();
//! assert_eq!(e.api_code(), Some(&ApiErrorCode::InvalidRequest));
//! assert_eq!((e.parameter(), e.retryable()), (Some("cursor"), Some(false)));
//! eprintln!("{e}"); // ... (code invalid_request, parameter cursor, not retryable, trace_id …)
//! # Ok(()) }
//! ```
//!
//! ## Modules
//!
//! The layers, bottom first: a module uses only the modules of the layers below its own
//! (`tests/it/module_graph.rs` checks it; CONTRIBUTING.md has the table).
//!
//! | module | what it holds |
//! |---|---|
//! | [`fixed`] | [`Price`](fixed::Price), [`Size`](fixed::Size), [`Notional`](fixed::Notional): exact 6-decimal newtypes |
//! | [`types`] | sides, order types, tick sizes, signature types, chains, the contract table, the exchange's order struct and token ids |
//! | [`sign`] | keys, EIP-712, ECDSA backends, L1 ClobAuth, L2 HMAC, wallets |
//! | [`decode`] | WebSocket frames decoded into borrowed, allocation-free views (bytes in, events out) |
//! | [`http`] | the one HTTP transport every client uses: the tuned `reqwest` client, rustls (shared with [`ws`]), [proxies](http::Proxy), DNS cache, [retries](http::RetryPolicy), breaker, the client-side [rate limits](http::Governor), the one [`Error`](http::Error), and the [pages](http::Page) and [skipped rows](http::SkippedRow) answers are read into |
//! | [`order`] | order amounts per tick size, validation, the builder, the wire body |
//! | [`book`] | fixed-point L2 books and the manager that applies decoded frames to them |
//! | [`clob`] | the CLOB's REST surface, one call per endpoint: the [`Client`](clob::Client), auth, caches, the rate-limit and restriction rails, the order lane |
//! | [`data`] | the Data API v2: positions, trades, activity, portfolio value, holders, with cursor paging |
//! | `onchain` (feature `onchain`) | approvals, split/merge/redeem, neg-risk conversion and balances as EIP-1559 transactions (EOA, Safe, proxy) |
//! | [`ws`] | the one feed machine every WebSocket stream runs on (sharding, keepalive, backoff, close codes, trust per key, conflation and lag reports) and the continuity contract it keeps ([`ws::continuity`]) |
//! | [`gamma`] | market discovery (Gamma): keyset-paged markets and events, tags, series, sports, search; a market's trading contexts |
//! | [`rtds`] | the real-time data socket: matched-order `activity` (its price topics are deprecated: use [`polybolt`]) |
//! | [`relayer`] | Polymarket's relayer: deposit-wallet batches and deployment, session signers |
//! | [`polybolt`] | PolyBolt reference prices (crypto, TWAP, equity), exact, authenticated, with sequence and drop tracking |
//! | [`sports`] | the sports socket: live `sport_result` scores and game state |
//! | [`account`] | one trading account: [`Account`](account::Account) (orders, cancels, trades, balances, heartbeats, positions, settlement), the fill [`Tracker`](account::Tracker), the user channel's events and their recovery after a break |
//!
//! ## Observing it in production: counters and tracing
//!
//! **Counters** are always on and cost a relaxed atomic add where they count: a
//! [`clob::Client::counters`] snapshot ([`http::ClientCounters`]: requests, retries, errors by
//! kind, 429s, rows that did not decode, client-side rate-limit delays and their total time,
//! local refusals, heartbeat failures, presign fallbacks; the Gamma, Data API and relayer
//! clients' `counters()` give the transport's share) and one per stream (`counters()` on every stream, a
//! [`ws::StreamCounters`]: connects, reconnects, breaks, lag, frames, bytes, decode errors,
//! hash mismatches, and apart from them snapshots that could not be verified, messages a
//! conflating feed folded). Plain structs: export them to any metrics system (the `counters` example
//! prints them every second).
//!
//! **Tracing** (feature `tracing`, off by default; without it every call site compiles to
//! nothing): the crate emits [`tracing`](https://docs.rs/tracing) spans and events and never
//! installs a subscriber. Names and fields, the same in every module:
//!
//! | name | kind, level | fields |
//! |---|---|---|
//! | `polyclob.http.request` | span, INFO: one request attempt | `method`, `endpoint`, `attempt`, `status`, `rate_limit_wait_ms`, `trace_id` (the answer's `x-trace-id`, when sent) |
//! | `polyclob.http.retry` | event, WARN | `endpoint`, `attempt`, `status`, `error`, `delay_ms`, `trace_id` (`""` when none) |
//! | `polyclob.http.skipped_row` | event, WARN: a row of an answer did not decode (returned to the caller as an [`http::SkippedRow`]) | `endpoint`, `list`, `index` (in the page), `reason`, `raw_len` (the row's text itself is not a field) |
//! | `polyclob.governor.wait` | event, INFO: the governor delayed a trading request | `endpoint`, `bucket`, `cost`, `wait_ms` |
//! | `polyclob.governor.refused` | event, WARN: the governor refused it | `endpoint`, `bucket`, `cost`, `wait_ms`, `over_capacity` |
//! | `polyclob.pacer.wait` | event, DEBUG: a read pacer delayed a request | `endpoint`, `wait_ms` |
//! | `polyclob.heartbeat.sent` / `.resync` / `.failed` | event, DEBUG / INFO / WARN | `ok`; on failure `status`, `error` |
//! | `polyclob.order.post` | event, INFO | `ok`, `order_id`, `order_status`, `status` |
//! | `polyclob.order.cancel` | event, INFO | `ok`, `order_id`, `status` |
//! | `polyclob.settle.sent` | event, INFO: a transaction was broadcast (feature `onchain`) | `tx_hash`, `nonce`, `chain_id` |
//! | `polyclob.ws.connection` | span, INFO: one WebSocket connection | `channel`, `shard`, `epoch`, `assets` |
//! | `polyclob.ws.connect` | event, INFO | `channel`, `shard`, `epoch`, `reconnect`, `assets` |
//! | `polyclob.ws.resubscribe` | event, INFO: a reconnected shard subscribed again | `channel`, `shard`, `epoch`, `assets` |
//! | `polyclob.ws.break` | event, WARN (ERROR when the stream stops): a continuity break ([`ws::continuity`]) | `channel`, `shard`, `epoch`, `reason`, `recovery` (`reconnect` or `stop`); when reconnecting `retry_ms` and `step` (the backoff step) |
//! | `polyclob.ws.refused` | event, WARN: the server refused an operation (a PolyBolt error acknowledgement the feed acts on) | `channel`, `shard`, `epoch`, `code` |
//! | `polyclob.ws.lag` | event, WARN: the consumer fell behind and the queue overflowed | `channel`, `shard`, `epoch`, `lost` |
//! | `polyclob.feed.lag` | event, DEBUG: the consumer took a frame that had waited past the feed's lag threshold ([`ws::feed::Lag`]) | `behind_ms`, `conflated` |
//! | `polyclob.book.hash_mismatch` | event, WARN: a snapshot carrying every hashed member did not verify | `channel`, `shard`, `asset`, `streak` |
//! | `polyclob.book.hash_unverifiable` | event, DEBUG: a snapshot omitting a member the exchange fills in could not be verified (not a mismatch) | `channel`, `shard`, `asset` |
//!
//! `endpoint` is a path without its query; `channel` is `market`, `user`, `rtds`,
//! `polybolt` or `sports`; durations are `*_ms` integers. No field carries a key, secret,
//! passphrase, signature or header.
//!
//! ## Testing against an offline exchange
//!
//! The simulator lives in its own crate, [`polyclob-sim`](https://docs.rs/polyclob-sim): an
//! offline exchange on loopback (CLOB REST and WebSocket, Gamma, Data API, RTDS, matching,
//! faults, and with its feature `onchain` a chain) for testing bots, and a `polyclob-sim`
//! binary for bots in other languages. It was this crate's `sim` module (feature `sim`, on by
//! default) until 0.1; that feature now does nothing. To migrate, add the crate where the tests
//! are and rename the paths, `polyclob::sim::X` → `polyclob_sim::X`:
//!
//! ```toml
//! [dev-dependencies]
//! polyclob-sim = "0.1" # with features = ["onchain"] for the simulator's chain
//! ```
//!
//! [Polymarket]: https://docs.polymarket.com

// `unsafe` is denied everywhere except `json::simd` (the JSON scanner's SSE2 string-end scan and
// its bounds-checked fixed-size reads) and `sign::fork` (the nonce pool's wipe-on-fork mapping
// and atfork handler).
#![deny(unsafe_code)]
// docs.rs (`--cfg docsrs`): label each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
// The library never prints: output belongs to the application.
#![deny(clippy::print_stdout, clippy::print_stderr)]
// Library code never unwraps; `expect` only on a locally proven invariant, with its reason.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod account;
pub mod book;
pub mod clob;
mod compat;
pub mod data;
pub mod decode;
#[cfg(test)]
mod error_chains;
pub mod fixed;
pub mod gamma;
pub mod http;
mod json;
#[cfg(feature = "onchain")]
pub mod onchain;
pub mod order;
pub mod polybolt;
pub mod relayer;
pub mod rtds;
pub mod sign;
pub mod sports;
mod telemetry;
#[cfg(test)]
mod testutil;
pub mod types;
pub mod ws;

// The polymarket-rs-client 0.1.1 root, exactly (<https://docs.rs/polymarket-rs-client/0.1.1>).
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
