//! The front door: [`SimHandle`], a running simulator. Its URLs, and what a test does to the
//! exchange and the scenario while it runs: faults, drifts, activity, price paths, rails,
//! credentials, balances and, with feature `onchain`, the chain.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, U256};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use polyclob::clob::Credentials;
use polyclob::types::TickSize;

#[cfg(feature = "onchain")]
use crate::exchange::chain::SimChain;
use crate::exchange::keys::ApiKeyRec;
use crate::exchange::market::MarketSpec;
use crate::exchange::settlement::Settlement;
use crate::scenario::drift::Drift;
use crate::scenario::faults::Faults;
use crate::scenario::paths::{FairValue, PricePath};
use crate::wire::rails::RailStats;
use crate::wire::shared::Shared;
use crate::wire::{data_api, gamma};

/// A running simulator. Dropping it stops the server and closes every connection.
#[derive(Debug)]
pub struct SimHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
    /// The handle of a server `SimBuilder::start` launched: its shared state, its address,
    /// the switch that stops it and its tasks.
    pub(crate) fn new(
        shared: Arc<Shared>,
        addr: SocketAddr,
        shutdown: watch::Sender<bool>,
        tasks: Vec<JoinHandle<()>>,
    ) -> Self {
        Self {
            shared,
            addr,
            shutdown,
            tasks,
        }
    }

    /// The bound address (`127.0.0.1:<port>`).
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The REST base URL, e.g. `http://127.0.0.1:41234` (no trailing slash).
    #[must_use]
    pub fn http_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The WS base URL, e.g. `ws://127.0.0.1:41234`; the channels are `/ws/market` and `/ws/user`.
    #[must_use]
    pub fn ws_url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// The market channel URL, `ws://127.0.0.1:<port>/ws/market`.
    #[must_use]
    pub fn market_ws_url(&self) -> String {
        format!("ws://{}/ws/market", self.addr)
    }

    /// The real-time data socket URL, `ws://127.0.0.1:<port>/rtds`: synthetic crypto and
    /// equity prices, and `orders_matched` activity for this simulator's fills.
    #[must_use]
    pub fn rtds_url(&self) -> String {
        format!("ws://{}/rtds", self.addr)
    }

    /// The PolyBolt URL, `ws://127.0.0.1:<port>/polybolt`: authentication against this
    /// simulator's API keys, snapshots and `seq`-numbered reference prices every
    /// [`SimBuilder::rtds_interval`](crate::SimBuilder::rtds_interval), the public
    /// `price.polymarket` top of book, the documented limits and close codes.
    #[must_use]
    pub fn polybolt_url(&self) -> String {
        format!("ws://{}/polybolt", self.addr)
    }

    /// The sports socket URL, `ws://127.0.0.1:<port>/sports`, as the live socket behaves: a
    /// WebSocket ping frame and the scripted games' frames every
    /// [`SimBuilder::rtds_interval`](crate::SimBuilder::rtds_interval) (keyed by `gameId`, or
    /// cricket's string `metadataGameId`; `ended: true` sent once per game); a client whose
    /// pong has not come within two intervals is dropped
    /// ([`SimBuilder::sports_text_ping`](crate::SimBuilder::sports_text_ping): the docs' text
    /// `ping` instead).
    #[must_use]
    pub fn sports_url(&self) -> String {
        format!("ws://{}/sports", self.addr)
    }

    /// The user channel URL, `ws://127.0.0.1:<port>/ws/user`.
    #[must_use]
    pub fn user_ws_url(&self) -> String {
        format!("ws://{}/ws/user", self.addr)
    }

    /// The Gamma base URL, `http://127.0.0.1:<port>/gamma`: point a
    /// [`gamma::Client`](polyclob::gamma::Client) here. Markets, tick sizes, neg-risk flags and
    /// token ids agree with the CLOB routes.
    #[must_use]
    pub fn gamma_url(&self) -> String {
        format!("http://{}{}", self.addr, gamma::PREFIX)
    }

    /// The Data API base URL, `http://127.0.0.1:<port>/data-api`: point a
    /// [`data::Client`](polyclob::data::Client) here. Positions and trades are derived from the
    /// simulator's fills.
    #[must_use]
    pub fn data_api_url(&self) -> String {
        format!("http://{}{}", self.addr, data_api::PREFIX)
    }

    /// `"METHOD /path"` of the HTTP requests served so far (the most recent 65,536 at most),
    /// oldest first, WS upgrades included: for tests that count round trips.
    #[must_use]
    pub fn requests(&self) -> Vec<String> {
        self.shared.requests().clone()
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        self.shared.requests().clear();
    }

    /// The markets being served (with their current tick sizes).
    #[must_use]
    pub fn markets(&self) -> Vec<MarketSpec> {
        self.shared
            .ex()
            .markets
            .iter()
            .map(|m| m.spec.clone())
            .collect()
    }

    /// Replaces the fault configuration at run time.
    pub fn set_faults(&self, faults: Faults) {
        // The market ids are resolved before the fault lock is taken: never both locks.
        let ids: Vec<(String, Vec<String>)> = {
            let ex = self.shared.ex();
            faults
                .ws_markets()
                .map(|m| (m.to_owned(), ex.market_ids(m)))
                .collect()
        };
        self.shared.faults().set(faults, |id| {
            ids.iter()
                .find(|(m, _)| m == id)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        });
    }

    /// The current fault configuration.
    #[must_use]
    pub fn faults(&self) -> Faults {
        self.shared.faults().get()
    }

    /// Switches exactly the drifts in `on` on (the others off); see [`Drift`].
    pub fn set_drift(&self, on: &[Drift]) {
        self.shared.drift.set(on);
    }

    /// Drops every open WS connection now, without a close frame (as a network failure would).
    pub fn disconnect_ws(&self) {
        self.shared.kick.send_modify(|n| *n += 1);
    }

    /// Starts (`Some(interval)`), retimes or stops (`None`) the simulated market activity
    /// (see [`SimBuilder::activity`](crate::SimBuilder::activity)).
    pub fn set_activity(&self, interval: Option<Duration>) {
        self.shared.activity_interval.send_replace(interval);
    }

    /// Runs `steps` activity steps now, synchronously (each moves every price path one step,
    /// then the crowd acts; see [`SimBuilder::activity`](crate::SimBuilder::activity)): the same seed and steps always give
    /// the same books.
    pub fn step_activity(&self, steps: usize) {
        let mut activity = self.shared.activity();
        let mut ex = self.shared.ex();
        for _ in 0..steps {
            activity.step(&mut ex);
        }
    }

    /// Applies up to `frames` frames of the replayed feed ([`SimBuilder::replay`](crate::SimBuilder::replay)) now, and
    /// nothing else; returns how many were applied (fewer at the end of the feed).
    pub fn replay_step(&self, frames: usize) -> usize {
        let mut activity = self.shared.activity();
        let mut ex = self.shared.ex();
        (0..frames)
            .take_while(|_| activity.replay_frame(&mut ex))
            .count()
    }

    /// Frames of the replayed feed not applied yet.
    #[must_use]
    pub fn replay_left(&self) -> usize {
        self.shared.activity().replay.left()
    }

    /// Drives the fair value of the market `condition_id` from now on; the crowd quotes and
    /// trades around it. Returns false for an unknown condition id.
    pub fn drive_market(&self, condition_id: &str, fair: FairValue) -> bool {
        let mut activity = self.shared.activity();
        let ex = self.shared.ex();
        let Some(mi) = ex.market_by_condition(condition_id) else {
            return false;
        };
        activity.paths.drive_market(&ex, mi, fair);
        true
    }

    /// Drives the reference price of `symbol`'s asset (`"btc"`, or a feed's symbol such as
    /// `"btcusdt"` or `"btc/usd"`) from now on, in micro-dollars: RTDS and PolyBolt report it
    /// (to their 10⁻⁵ precision) for every symbol of that asset instead of the synthetic
    /// series, and markets whose fair value follows it ([`FairValue::reference`]) move with it.
    ///
    pub fn drive_reference(&self, symbol: &str, path: PricePath) {
        let mut activity = self.shared.activity();
        let ex = self.shared.ex();
        activity.paths.drive_reference(&ex, symbol, path);
    }

    /// Moves the book of market `condition_id` to `price` (the first token's; the second's
    /// mirrors it) at once: its fair value becomes `price`, every order priced through it is
    /// taken by a simulated trader (clients' orders included), and the crowd's makers requote
    /// around it (without makers, one order of the minimum size rests a tick either side).
    /// Returns false for an unknown condition id.
    pub fn move_book(&self, condition_id: &str, price: polyclob::fixed::Price) -> bool {
        let mut activity = self.shared.activity();
        let mut ex = self.shared.ex();
        let Some(mi) = ex.market_by_condition(condition_id) else {
            return false;
        };
        activity.move_book(&mut ex, mi, price.as_micros());
        true
    }

    /// The fair value of market `condition_id` now (its configured midpoint until driven or
    /// moved), on its tick grid.
    #[must_use]
    pub fn fair_value(&self, condition_id: &str) -> Option<polyclob::fixed::Price> {
        let activity = self.shared.activity();
        let ex = self.shared.ex();
        let mi = ex.market_by_condition(condition_id)?;
        polyclob::fixed::Price::new(activity.paths.fair_value(&ex, mi))
    }

    /// How many market-channel frames (deltas, trades, books after trades, tick changes,
    /// `best_bid_ask`; not the snapshots sent on subscribe) the simulator has published since
    /// it started: with each asset subscribed on one connection, what its clients receive
    /// (less the `best_bid_ask` frames where `custom_feature_enabled` is off). Lets a load
    /// test pace [`step_activity`](Self::step_activity) to a frame rate.
    #[must_use]
    pub fn market_frames_published(&self) -> u64 {
        self.shared.ex().msg_seq()
    }

    /// Replaces the settlement of trades matched from now on (the triggers count afresh);
    /// trades already settling keep their plan.
    pub fn set_settlement(&self, settlement: Settlement) {
        self.shared.ex().settling.set(settlement);
    }

    /// Switches cancel-only mode: new orders get `503` with the exchange's cancel-only error,
    /// cancels keep working.
    pub fn set_cancel_only(&self, on: bool) {
        self.shared.ex().cancel_only = on;
    }

    /// Gives one signer (its address) its own rate-limit tier; with trading limits off this
    /// turns them on for that signer alone.
    pub fn set_rate_limit_tier(&self, address: &str, tier: polyclob::http::Tier) {
        self.shared
            .rails()
            .set_tier(normalize_address(address), tier);
    }

    /// Turns the trading rate limits on for every signer at `tier` (`None`: only signers given
    /// a tier of their own are limited).
    pub fn set_rate_limits(&self, tier: Option<polyclob::http::Tier>) {
        self.shared.rails().set_default_tier(tier);
    }

    /// Opens a post-only window for `duration` (`None` closes it): orders that are not
    /// post-only get `503` `{"code":"post_only_mode","retry_after_seconds":…}`.
    pub fn set_post_only(&self, duration: Option<Duration>) {
        self.shared.rails().set_post_only(duration);
    }

    /// Puts an address in (or out of) closed-only mode, as `GET /auth/ban-status/closed-only`
    /// then reports; its new orders are refused with the exchange's closed-only error.
    pub fn set_closed_only(&self, address: &str, on: bool) {
        self.shared
            .rails()
            .set_closed_only(normalize_address(address), on);
    }

    /// Makes an address trade from its deposit wallet only (`on`), as the exchange treats new
    /// API accounts: its CLOB orders with an EOA, proxy or Safe maker (signature types 0, 1,
    /// 2) are refused with `400 {"error":"maker address not allowed, please use the deposit
    /// wallet flow"}`; POLY_1271 orders from its deposit wallet are taken. Default is off for
    /// every address.
    pub fn set_deposit_wallet_only(&self, address: &str, on: bool) {
        self.shared
            .rails()
            .set_deposit_wallet_only(normalize_address(address), on);
    }

    /// A Relayer API key of `owner` for the simulator's relayer routes, sent as
    /// `RELAYER_API_KEY` with `RELAYER_API_KEY_ADDRESS` = `owner` (the same key every time for
    /// one address). On the exchange these keys are made on polymarket.com (Settings → API
    /// Keys → Relayer API Keys).
    #[must_use]
    pub fn relayer_api_key(&self, owner: alloy_primitives::Address) -> String {
        self.shared.ex().programs.relayer_key(owner)
    }

    /// What the trading rails did so far (admitted, rate-limited, warned, post-only refusals).
    #[must_use]
    pub fn rail_stats(&self) -> RailStats {
        self.shared.rails().stats()
    }

    /// Sets the fees `GET /fees/builder-fees/{code}` reports for a builder code, and that
    /// `/builder/trades` charges (basis points of the notional). Unknown codes have none.
    pub fn set_builder_fee(&self, code: alloy_primitives::B256, maker_bps: u32, taker_bps: u32) {
        self.shared
            .ex()
            .programs
            .set_builder_fee(code, maker_bps, taker_bps);
    }

    /// Changes a market's tick size and emits `tick_size_change` on the market channel.
    /// Returns false for an unknown condition id.
    pub fn set_tick_size(&self, condition_id: &str, tick: TickSize) -> bool {
        let mut ex = self.shared.ex();
        match ex.market_by_condition(condition_id) {
            Some(mi) => {
                ex.set_tick_size(mi, tick);
                true
            }
            None => false,
        }
    }

    /// Issues (or returns the already-issued) credentials for `address` and `nonce`, exactly
    /// those `POST /auth/api-key` would return: for bots that load credentials from config.
    #[must_use]
    pub fn api_credentials(&self, address: &str, nonce: u64) -> Credentials {
        let mut ex = self.shared.ex();
        let addr = normalize_address(address);
        let rec: ApiKeyRec = match ex.keys.derive(&addr, nonce) {
            Ok(r) => r,
            Err(_) => match ex.keys.create(&addr, nonce) {
                Ok(r) => r,
                // create only fails when the key exists, which derive just ruled out.
                Err(_) => return Credentials::new("", "", ""),
            },
        };
        Credentials::new(rec.key, rec.secret, rec.passphrase)
    }

    /// Registers credentials of your choosing for `address` and `nonce` (replacing any issued
    /// before), for bots whose configuration carries fixed API keys.
    pub fn register_api_credentials(&self, address: &str, nonce: u64, creds: &Credentials) {
        let rec = ApiKeyRec {
            key: creds.api_key().to_owned(),
            secret: creds.secret().to_owned(),
            passphrase: creds.passphrase().to_owned(),
            address: normalize_address(address),
        };
        self.shared.ex().keys.insert(rec, nonce);
    }

    /// Stops the server and waits for its tasks to end.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
    }
}

impl SimHandle {
    /// Credits `pusd` micro-pUSD (10⁻⁶ pUSD) to `address` and grants the exchange contracts
    /// every allowance trading needs, as a funded account that did Polymarket's approval
    /// step. Fund the address that makes the orders: the EOA, or its proxy / Safe / deposit
    /// wallet (the order's `maker`). With [`SimBuilder::onchain`](crate::SimBuilder::onchain)
    /// this funds the chain's balances.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// use alloy_primitives::{Address, U256};
    /// let sim = polyclob_sim::Simulator::builder().start().await?;
    /// let me = Address::repeat_byte(7);
    /// sim.fund(me, 100_000_000); // 100 pUSD
    /// assert_eq!(sim.collateral_balance(me), U256::from(100_000_000u64));
    /// # Ok(()) }
    /// ```
    pub fn fund(&self, address: Address, pusd: u64) {
        let mut ex = self.shared.ex();
        let ledger = ex.ledger_mut();
        ledger.mint_collateral(address, U256::from(pusd));
        ledger.set_approved(address, true);
    }

    /// Credits `shares` micro-shares of outcome token `token_id` (decimal) to `address`, with
    /// the approvals of [`SimHandle::fund`]; false for a token no market has.
    pub fn fund_tokens(&self, address: Address, token_id: &str, shares: u64) -> bool {
        let mut ex = self.shared.ex();
        let (Some(_), Ok(id)) = (ex.token(token_id), token_id.parse::<U256>()) else {
            return false;
        };
        let ledger = ex.ledger_mut();
        ledger.mint_token(address, id, U256::from(shares));
        ledger.set_approved(address, true);
        true
    }

    /// Grants (`true`) or revokes every exchange allowance and ERC-1155 approval of `address`.
    pub fn set_approved(&self, address: Address, approved: bool) {
        self.shared
            .ex()
            .ledger_mut()
            .set_approved(address, approved);
    }

    /// `who`'s pUSD balance, micro-pUSD (the chain's with `onchain`).
    #[must_use]
    pub fn collateral_balance(&self, who: Address) -> U256 {
        self.shared.ex().ledger().collateral_of(who)
    }

    /// `who`'s balance of the outcome token `token_id`, micro-shares.
    #[must_use]
    pub fn outcome_balance(&self, who: Address, token_id: U256) -> U256 {
        self.shared.ex().ledger().token_of(who, token_id)
    }

    /// Fills the ledger could not settle (an account short of balance or approval, possible
    /// with [`SimBuilder::enforce_balances`](crate::SimBuilder::enforce_balances) off); the
    /// trade of such a fill moves nothing and is reported `FAILED`.
    #[must_use]
    pub fn settlement_failures(&self) -> u64 {
        self.shared.ex().ledger().settlement_failures
    }

    /// Pays the maker rebates accrued so far, today's included, as the venue's daily payout
    /// does when the UTC day ends (the simulator also pays by itself then): each maker whose
    /// unpaid rebates reach $1 is credited in pUSD, each day and market's amount becoming a
    /// Data API `MAKER_REBATE` activity row; smaller totals keep accruing. Returns the pUSD
    /// paid, micro-units. Rebates accrue on fee-enabled markets with a rebate rate
    /// ([`MarketSpec::fees`](crate::MarketSpec::fees)) and are reported per day by
    /// `GET /rebates/current`.
    pub fn pay_rebates(&self) -> u64 {
        self.shared.ex().pay_rebates(None)
    }

    /// Seeds a combo position for `wallet`, served by the Data API's `/v2/positions/combos`
    /// (and a `SPLIT` row on `/v2/activity/combos`): its `legs` as (market index, outcome
    /// index) pairs of this simulator's markets, `shares` held (micro-shares) bought for
    /// `cost` (micro-pUSD). The simulator trades no combos; this is scenario data, so combo
    /// reads can be exercised. Returns the combo condition id (`0x03…`, 31 bytes), or `None`
    /// when a leg names no market or outcome.
    pub fn seed_combo(
        &self,
        wallet: Address,
        legs: &[(usize, usize)],
        shares: u64,
        cost: u64,
    ) -> Option<String> {
        let markets = self.shared.ex().markets.len();
        if legs.is_empty() || legs.iter().any(|&(m, o)| m >= markets || o > 1) {
            return None;
        }
        let seed = crate::scenario::seeded::ComboSeed::new(
            format!("{wallet:#x}"),
            legs.to_vec(),
            shares,
            cost,
        );
        let id = seed.condition_id.clone();
        self.shared.seeded().combos.push(seed);
        Some(id)
    }

    /// Seeds a Gamma comment by `author` on event `event_id` (this simulator's events are
    /// `1000 + market index`), a reply when `reply_to` names a comment; served by `/comments`,
    /// `/comments/{id}` and `/comments/user_address/{address}`. Returns the comment's id.
    pub fn comment(
        &self,
        event_id: &str,
        author: Address,
        body: &str,
        reply_to: Option<&str>,
    ) -> String {
        let parent = reply_to.and_then(|id| id.parse().ok());
        self.shared
            .seeded()
            .comment(event_id, format!("{author:#x}"), body, parent)
            .to_string()
    }
}

#[cfg(feature = "onchain")]
impl SimHandle {
    /// The chain's JSON-RPC URL, `http://127.0.0.1:<port>/rpc` (with [`SimBuilder::onchain`](crate::SimBuilder::onchain)).
    #[must_use]
    pub fn rpc_url(&self) -> String {
        format!("http://{}/rpc", self.addr())
    }

    fn with_chain<T>(&self, f: impl FnOnce(&mut SimChain) -> T) -> Option<T> {
        self.shared.ex().chain.as_mut().map(f)
    }

    /// Credits `amount` collateral (pUSD, 10⁻⁶ units) to `to`; false when the chain is off.
    pub fn fund_collateral(&self, to: Address, amount: U256) -> bool {
        self.with_chain(|c| c.ledger.mint_collateral(to, amount))
            .is_some()
    }

    /// Credits `wei` of the native token (for gas) to `to`; false when the chain is off.
    pub fn fund_native(&self, to: Address, wei: U256) -> bool {
        self.with_chain(|c| {
            let b = c.ledger.balances.native.entry(to).or_default();
            *b = b.saturating_add(wei);
        })
        .is_some()
    }

    /// Resolves a binary market on the chain: outcome `winner` (0 = the first token) pays 1,
    /// the other 0. False for an unknown condition, a bad index or the chain off. A V2
    /// condition may be given in its 62-hex (`bytes31`) or padded 64-hex form.
    pub fn resolve_market(&self, condition_id: &str, winner: usize) -> bool {
        let Some(id) = crate::exchange::ledger::condition_word(condition_id) else {
            return false;
        };
        let done = self
            .with_chain(|c| c.ledger.resolve(id, winner))
            .unwrap_or(false);
        if done {
            self.shared.seeded().resolved_at.insert(
                condition_id.to_ascii_lowercase(),
                crate::scenario::seeded::unix_secs(),
            );
        }
        done
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// `0x` + lowercase hex, the form the exchange state keys users by.
fn normalize_address(address: &str) -> String {
    match address.parse::<alloy_primitives::Address>() {
        Ok(a) => format!("{a:#x}"),
        Err(_) => address.to_ascii_lowercase(),
    }
}
