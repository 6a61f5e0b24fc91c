//! An offline Polymarket exchange on loopback, for testing clients and trading bots without
//! the internet: the CLOB's REST and WebSocket APIs, Gamma, the Data API, the real-time data
//! socket and, with feature `onchain`, a minimal chain. Built on [polyclob]'s public API (its
//! signing, order and contract code is what the simulator verifies against), and used by
//! polyclob's own examples and tests.
//!
//! In a bot's tests, as a dev-dependency:
//!
//! ```toml
//! [dev-dependencies]
//! polyclob-sim = "0.1" # features = ["onchain"] for the chain
//! ```
//!
//! For bots in other languages, the `polyclob-sim` binary serves the same exchange and prints
//! its address (`cargo install polyclob-sim`, then `polyclob-sim --help`; in polyclob's
//! repository `cargo run -p polyclob-sim -- --help`).
//!
//! Until polyclob 0.1 this was `polyclob::sim` (feature `sim`); every name is unchanged, only
//! the path: `polyclob::sim::X` is `polyclob_sim::X`.
//!
//! The simulator speaks the exchange's wire formats: the REST endpoints of the CLOB (markets,
//! books, prices, API keys, orders, cancels, open orders, trades, heartbeats) over HTTP/1.1 and
//! HTTP/2 (h2c), and the `/ws/market` and `/ws/user` WebSocket channels. It verifies L1
//! ClobAuth signatures, L2 HMACs and EIP-712 order signatures (V2 domain `"2"`, the neg-risk
//! exchange for neg-risk markets, V3 for position-ID markets; V1 bodies get
//! `order_version_mismatch`), keeps a price-time-priority book per market, matches crossing
//! orders (GTC, GTD, FOK, FAK, post-only) and publishes `book`, `price_change`,
//! `last_trade_price`, `tick_size_change` and user `order`/`trade` events. Everything is
//! deterministic given a seed: the seeded books, ids, credentials and fault decisions.
//!
//! It is a mixed exchange, as Polymarket's is since Protocol V2: beside the CTF markets, the
//! position-ID market of the default fixture is a V2 market — a `bytes31` condition (sent in
//! its padded 64-hex form) whose tokens are its V2 position ids, Gamma `version` `"v2"` with
//! `positionIds`, CLOB `v` `"v2"`, books carrying `"version":"v2"` under the exchange's hash,
//! orders signed for ExchangeV3 and, on the chain, positions on the PositionManager that the
//! Router splits, merges and redeems. [`MarketSpec::sparse_books`] makes a market's WS
//! snapshots omit `tick_size` and `last_trade_price` (still hashed), as some genuine ones do.
//!
//! # Testing your bot against it
//!
//! Start a simulator inside your test, point your client at [`SimHandle::http_url`] and
//! [`SimHandle::ws_url`], and drive it as you would the real exchange:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use polyclob_sim::{MarketSpec, Simulator};
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
//! [`SimHandle::api_credentials`] (or install your bot's own with
//! [`SimHandle::register_api_credentials`]). Authenticated calls then carry the usual five
//! `POLY_*` L2 headers, HMAC'd over the exact bytes sent:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use polyclob::sign::{Signer, hmac::HmacKey};
//! use polyclob_sim::Simulator;
//!
//! let sim = Simulator::builder().start().await?;
//! // Hardhat account #0: a public test key.
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! let address = signer.address().to_checksum(None);
//! let creds = sim.api_credentials(&address, 0);
//!
//! let ts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
//! let sig = HmacKey::from_base64url(creds.secret())?.sign(ts, "GET", "/data/orders", b"");
//! # // reqwest is built without a TLS provider of its own in this workspace (polyclob passes
//! # // its ring configuration explicitly); a plain reqwest client needs a default installed.
//! # let _ = rustls::crypto::ring::default_provider().install_default();
//! let page = reqwest::Client::new()
//!     .get(format!("{}/data/orders?next_cursor=MA==", sim.http_url()))
//!     .header("POLY_ADDRESS", &address)
//!     .header("POLY_SIGNATURE", sig.as_str())
//!     .header("POLY_TIMESTAMP", ts.to_string())
//!     .header("POLY_API_KEY", creds.api_key())
//!     .header("POLY_PASSPHRASE", creds.passphrase())
//!     .send()
//!     .await?
//!     .text()
//!     .await?;
//! assert!(page.contains(r#""next_cursor":"LTE=""#)); // no open orders yet
//! # Ok(()) }
//! ```
//!
//! Orders are the exchange's `POST /order` body signed for CLOB V2: domain
//! `"2"` and the CTF or NegRisk exchange per the market's `neg_risk`, or domain `"3"` and
//! ExchangeV3 for position-ID markets. The returned `orderID` is the EIP-712 order hash.
//!
//! ## What is served
//!
//! | area | endpoints / messages |
//! |---|---|
//! | health | `GET /`, `/ok`, `/time`, `/version` |
//! | markets | `GET /markets`, `/simplified-markets`, `/sampling-markets`, `/sampling-simplified-markets` (cursor pages `MA==` … `LTE=`), `/markets/{condition_id}`, `/clob-markets/{condition_id}`, `/markets-by-token/{token_id}` |
//! | prices | `GET /book` (levels worst-first), `POST /books`, `GET /price`, `POST /prices`, `GET /midpoint`, `POST /midpoints`, `GET /spread`, `POST /spreads`, `/tick-size`, `/neg-risk`, `/fee-rate` (and `/fee-rate/{token_id}`), `/last-trade-price`, `/last-trades-prices`, `/prices-history` (the token's taker fills) |
//! | fees (public) | `/fee-rate` `base_fee` and `/clob-markets` `fd` from the market's schedule ([`MarketSpec::fees`]); `GET /rebates/current` (a maker's rebates of a day) |
//! | keys (L1) | `POST /auth/api-key`, `GET /auth/derive-api-key` (deterministic per address, nonce and seed); `GET /auth/api-keys` (L2) |
//! | trading (L2) | `POST /order`, `POST /orders` (≤ 15), `DELETE /order`, `/orders` (≤ 1000 ids), `/cancel-all`, `/cancel-market-orders` |
//! | account (L2) | `GET /balance-allowance` (and `/update`; `asset_type=COLLATERAL` or `CONDITIONAL` with `token_id`, `signature_type` 0/1/2 picks EOA/proxy/Safe), `GET /data/orders` (`asset_id` needs `market`), `/data/order/{id}`, `/data/trades` (cursor pages), `POST /v1/heartbeats` (chained ids; silence for the heartbeat timeout cancels all the user's orders) |
//! | `/ws/market` | `{"assets_ids":[…],"type":"market"}` → one frame with an array of `book` events (hash by the exchange's formula, see [`book::integrity`](polyclob::book::integrity); no `min_order_size`/`neg_risk`, as on the exchange); then `price_change` (with `price_changes`, `best_bid`, `best_ask`, `hash`), `last_trade_price`, a fresh `book` after each trade, `tick_size_change`; with `"custom_feature_enabled":true` also `best_bid_ask` when the top of book moves; `{"operation":"subscribe"/"unsubscribe"}` at any time |
//! | `/ws/user` | `{"auth":{apiKey,secret,passphrase},"markets":[…],"type":"user"}` → `order` (`PLACEMENT`/`UPDATE`/`CANCELLATION`) and `trade` events of that user (`MATCHED`, then `MINED` / `CONFIRMED` or `RETRYING` / `FAILED` as it settles: [`SimBuilder::settlement`]; `trader_side` `TAKER` or `MAKER`), filtered by condition id (no list = all); as fault rules, an account's trade history replayed or a stale status sent as a connection subscribes again, a trade message sent malformed ([`WsFault::ReplayHistory`], [`WsFault::StaleStatus`], [`WsFault::MalformedTrade`]) |
//! | Gamma, at [`SimHandle::gamma_url`] | `GET /markets/keyset`, `/events/keyset` (keyset cursors: `after_cursor` in, `next_cursor` out, absent on the last page; ≤ 100 markets / 500 events a page, ≤ 100 `condition_ids`), `/markets/{id}`, `/markets/slug/{slug}`, `/events/{id}`, `/events/slug/{slug}`, `/public-search`, `/tags`, `/series`, `/sports`; the CLOB markets in Gamma's vocabulary |
//! | Data API v2, at [`SimHandle::data_api_url`] | `GET /v2/positions`, `/v2/trades`, `/v2/activity`, `/v2/value`, `/v2/holders` in the `{data, pagination}` envelope with cursors; derived from the simulator's fills; `/v2/resolutions` (the ledger's payouts), `/v2/oi`, `/v2/prices-history` in `{data}` |
//! | `/rtds` ([`SimHandle::rtds_url`]) | the real-time data socket: `{"action":"subscribe","subscriptions":[{topic,type,filters}]}` → deterministic synthetic (or driven, [`SimHandle::drive_reference`]) `crypto_prices` (Binance symbols), `crypto_prices_chainlink`, `crypto_prices_twap_*` and `equity_prices` updates every [`SimBuilder::rtds_interval`] (with the three-point `subscribe` history after a filtered subscribe), and `activity`/`orders_matched` for every fill of this simulator |
//! | `/polybolt` ([`SimHandle::polybolt_url`]) | PolyBolt: `auth` checked against this simulator's API keys, `subscribe` on `price.crypto`, `price.crypto.twap`, `price.equity`, `price.equity.twap` → `subscribed`, a snapshot, then `seq`-numbered exact prices every [`SimBuilder::rtds_interval`]; public `price.polymarket` (filter `asset_id`): the token's top of book and book hash from the matching engine, `[]` as a cold token's snapshot, an update when the top or hash moves; `auth_required`, `auth_invalid`, `bad_filter`, `sub_limit`/`auth_attempts` with close 4008, and any error acknowledgement on a chosen op as a [`WsFault::ErrorAck`] rule; a bounded send queue per connection whose overflow is counted in `dropped`; close codes (4001, 4002, 4003, 4008 …) as [`WsFault::Close`] rules |
//! | `/sports` ([`SimHandle::sports_url`]) | the sports socket as it behaves live: WebSocket ping frames (no text `ping`; [`SimBuilder::sports_text_ping`] for the docs' text `ping`) and the scripted games' frames every [`SimBuilder::rtds_interval`], no message type and no `slug`, keyed by `gameId` or cricket's string `metadataGameId`, `status` in varying casing, `ended: true` once per game; no pong within two intervals drops the client |
//! | RTDS | text `PING` → text `PONG` |
//! | market and user WS | text `PING` → text `PONG` (`INVALID OPERATION` before the initial subscribe); a second initial (`"type"`) message → `INVALID OPERATION` |
//! | chain (feature `onchain`, `SimBuilder::onchain`) | `POST /rpc`: JSON-RPC (`eth_call`, `eth_getCode`, `eth_sendRawTransaction`, receipts, nonces, fees; batches) over in-memory pUSD and outcome-token balances (ConditionalTokens and the collateral adapters for CTF markets; ExchangeV3, the PositionManager and the Router for V2 ones); `SimHandle::fund_collateral`, `fund_native`, `resolve_market` |
//!
//! Faults: build a [`Faults`] (latency, jitter, `425`/`429`/`503` on a schedule or with a
//! probability, each rule optionally for one path prefix, one account
//! ([`HttpRule::account`]) or one market ([`HttpRule::market`]) — a WebSocket handshake is
//! a request too, so `429`/`503` with `Retry-After` ([`HttpFault::Overloaded`]) refuse a
//! socket's upgrade; WebSocket disconnects, silences, stalls, close codes and PolyBolt error
//! acknowledgements ([`WsRule`], [`WsFault::ErrorAck`]), each optionally for one endpoint
//! ([`WsRule::channel`]), one authenticated account ([`WsRule::account`]) or one market
//! ([`WsRule::market`])) and pass it to [`SimBuilder::faults`], or change it while running
//! with [`SimHandle::set_faults`]; [`SimHandle::disconnect_ws`] drops every WS
//! connection at once and [`SimHandle::set_cancel_only`] puts the exchange in cancel-only mode.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use std::time::Duration;
//! use polyclob_sim::{Faults, HttpFault, HttpRule, Simulator, Trigger, WsChannel, WsFault, WsRule};
//!
//! let sim = Simulator::builder()
//!     .faults(
//!         Faults::none()
//!             .latency(Duration::from_millis(2))
//!             // every 5th POST /order answers 429 with Retry-After: 1
//!             .http(HttpRule::new(Trigger::EveryNth(5), HttpFault::RateLimited { retry_after: Duration::from_secs(1) })
//!                 .path_prefix("/order"))
//!             // drop a WS connection on every 50th frame sent
//!             .ws(WsRule::new(Trigger::EveryNth(50), WsFault::Disconnect))
//!             // PolyBolt closes with 4002 (slow consumer) once, on its 100th frame
//!             .ws(WsRule::new(Trigger::Window { first: 100, count: 1 }, WsFault::Close(4002))
//!                 .channel(WsChannel::PolyBolt)),
//!     )
//!     .start()
//!     .await?;
//! sim.set_faults(Faults::none()); // and back to normal
//! # Ok(()) }
//! ```
//!
//! Trading rails: [`SimBuilder::rate_limits`] enforces the exchange's per-signer order and
//! cancel token buckets (429 + `Retry-After`, `Poly-RateLimit-*` headers, per-signer tiers with
//! [`SimHandle::set_rate_limit_tier`], `GET /v1/user/rate-limit-tier`);
//! [`SimHandle::set_post_only`] opens a post-only window; [`SimHandle::set_closed_only`] marks
//! an account closed-only (`GET /auth/ban-status/closed-only`). An `Invalid Heartbeat ID`
//! answer carries the chain's current id, and silence past the heartbeat timeout cancels all
//! the user's orders.
//!
//! Market activity: [`SimBuilder::activity`] (or [`SimHandle::set_activity`]) makes seeded
//! simulated traders rest, cancel and take orders on a timer, so books move and trades print
//! without a second client; [`SimHandle::step_activity`] does the same synchronously for
//! deterministic tests. [`SimBuilder::crowd`] names those traders: a [`Crowd`] of makers,
//! Poisson takers, informed traders and sweepers, each with its own address (on RTDS
//! `activity`, the Data API and trades), seed and rate. They trade around each market's fair
//! value, which a test drives with a [`PricePath`] ([`SimHandle::drive_market`], or a
//! reference price with [`SimHandle::drive_reference`] that RTDS and PolyBolt then report) or
//! moves at once ([`SimHandle::move_book`]). [`SimBuilder::replay`] replays a recorded
//! market-channel feed ([`Replay`]) instead, clients' orders queueing behind the recorded
//! size.
//!
//! # Fidelity notes
//!
//! - One book per market, in the first outcome's prices; each token's book is a view of it, so
//!   "Yes" and "No" match as on the exchange: a BUY YES meets a SELL YES or a BUY NO whose
//!   price sums with its own to 1 or more (a mint: each buyer pays its own price, the pair's
//!   pUSD is escrowed where the market's positions live), a SELL YES a BUY YES or a SELL NO
//!   summing to 1 or less (a merge: the escrow pays each seller). The taker pays or gets the
//!   complement of a maker's price on the other token. A book change is one `price_change`
//!   frame with both tokens' entries, for subscribers of either. RFQ quotes settle across the
//!   two tokens the same way.
//! - The relayer: `/v1/session-signers/*`, `POST /submit` (deposit-wallet `WALLET` batches),
//!   `/v1/account/transactions/params` and `/v1/account/transactions/{id}` are served on the
//!   same host; a batch is checked (builder key, owner signature, the owner's nonce, deadline;
//!   for `WALLET`, the factory) and applied at once, with no pending transaction: a `WALLET`
//!   batch's calls run on the ledger as the deposit wallet, all or none, and one that reverts is
//!   refused with its reason without spending the nonce. A deposit wallet belongs to the first
//!   owner that signs for it (the simulator does not require the factory's derived address).
//!   `/submit`, the nonce and transaction routes also take a Relayer API key
//!   ([`SimHandle::relayer_api_key`], sent as `RELAYER_API_KEY` / `RELAYER_API_KEY_ADDRESS`);
//!   `WALLET-CREATE` deploys the signer's beacon deposit wallet once and `GET /deployed`
//!   (`type=WALLET`) reports it; a `/submit` repeating an `Idempotency-Key` gets the first
//!   executed answer (the same body) or `422` (another body). Whether the live `/submit`
//!   honours that header is not documented.
//! - Fees, on markets given a schedule ([`MarketSpec::fees`]): the taker pays
//!   `shares × rate × (p(1−p))^exponent` per trade, floored to 0.00001 pUSD, in pUSD (on top of
//!   a buy, out of a sell's proceeds; polyclob's `FeeSchedule::taker_fee`); makers accrue a
//!   `rebateRate` share of the fees their fills carried, reported by `/rebates/current` and paid
//!   daily ([`SimHandle::pay_rebates`]) as `MAKER_REBATE` activity. The README lists what is
//!   assumed where the venue documents nothing (`fee_rate_bps`, multi-level rounding, the
//!   rebate split).
//! - Market (FOK/FAK) orders are matched for the share quantity they imply (`takerAmount` for
//!   BUY, `makerAmount` for SELL) at the tick price recovered from the amounts.
//! - A user's orders may match each other (no self-trade prevention).
//! - A WS client that falls more than 8192 frames behind is disconnected (no silent loss: it
//!   reconnects and re-snapshots).
//! - Trades settle at once by default: each match yields a `MATCHED` then a `CONFIRMED` user
//!   `trade` event with a deterministic fake transaction hash, and moves pUSD and outcome
//!   tokens on the simulator's ledger (the chain's with `onchain`) through the exchange's
//!   allowances. [`SimBuilder::settlement`] delays `MINED` and `CONFIRMED` and injects
//!   `RETRYING` and `FAILED` trades; balances move at `CONFIRMED` only, all of a trade's fills
//!   or none (a trade that cannot be covered then is `FAILED`), and funds of matched trades
//!   stay reserved until then. [`SimBuilder::taker_hold`] holds marketable orders (`delayed`,
//!   not cancellable) before they match.
//! - Accounts start with no money. As on the exchange, an order its maker (the EOA, or its
//!   proxy / Safe / deposit wallet) cannot cover beyond what its open orders reserve is
//!   refused with `400 {"error":"not enough balance / allowance: …"}`: fund accounts with
//!   [`SimHandle::fund`] and [`SimHandle::fund_tokens`] (or [`SimBuilder::enforce_balances`]
//!   `(false)` for tests of plumbing only). `GET /balance-allowance` and the Data API's
//!   positions (size, fill-weighted average price, realized PnL) read the same ledger. The
//!   simulator's own traders (the seed liquidity `0x…5eed` and the [`Crowd`]) are an unlimited
//!   counterparty: their side of a fill is minted or burned, and they have no positions.
//! - Proxy/Safe makers must be the CREATE2 wallets of `POLY_ADDRESS` (the proxy factory only
//!   on Polygon). POLY_1271 signatures are checked (the owner's ERC-7739 signature must recover
//!   to `POLY_ADDRESS`); who owns a deposit wallet is not modelled. An account marked with
//!   [`SimHandle::set_deposit_wallet_only`] (as the exchange treats new API accounts) has its
//!   EOA, proxy and Safe orders refused with `maker address not allowed, please use the
//!   deposit wallet flow`.
//! - `POLY_TIMESTAMP` is not checked for freshness (fixed-timestamp test vectors work).
//! - GTD orders must expire more than 60 s ahead and are removed 60 s before their
//!   expiration (the exchange's documented one-minute security threshold).
//! - Error texts follow Polymarket's documented messages where they are documented; others are
//!   descriptive and stable.
//!
//! [polyclob]: https://docs.rs/polyclob

// The simulator never prints: output belongs to the test or the binary.
#![deny(clippy::print_stdout, clippy::print_stderr)]
// Nothing a client sends can panic it: no `unwrap` outside tests, `expect` only on a locally
// proven invariant, with its reason.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

// The front door (the builder, the handle, the server) on top; below it the wire front-ends,
// the scenario tools and, at the bottom, the exchange core. Imports run downward only
// (tests/it/layers.rs checks it).
mod builder;
mod exchange;
mod handle;
mod scenario;
mod server;
mod wire;

pub use self::builder::{SimBuilder, Simulator};
pub use self::exchange::market::{MarketSpec, TokenSpec, parse_markets};
pub use self::exchange::settlement::Settlement;
pub use self::exchange::trigger::Trigger;
pub use self::handle::SimHandle;
pub use self::scenario::crowd::{Crowd, CrowdTrader};
pub use self::scenario::drift::Drift;
pub use self::scenario::faults::{Faults, HttpFault, HttpRule, WsChannel, WsFault, WsRule};
pub use self::scenario::paths::{FairValue, PricePath};
pub use self::scenario::replay::Replay;
pub use self::wire::rails::RailStats;

// Compiles the README's code blocks as doctests, so the README cannot drift.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
