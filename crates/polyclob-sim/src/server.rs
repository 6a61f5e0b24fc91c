//! The simulator's front door: the builder, the running handle, the loopback listener and the
//! per-request pipeline (faults → WS upgrade or REST route).

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

use polyclob::clob::Credentials;
use polyclob::types::{Chain, TickSize};

use super::faults::{FaultState, Faults, HttpFault};
use super::market::MarketSpec;
use super::state::{ApiKeyRec, Exchange, StateConfig};
use super::{rest, ws};

/// Largest request body accepted (a batch of 15 orders is ~15 KiB).
const MAX_BODY: usize = 1 << 20;

/// Requests kept in the log; the older half is dropped when it fills.
const MAX_LOGGED_REQUESTS: usize = 1 << 16;

/// State shared by every connection.
#[derive(Debug)]
pub(crate) struct Shared {
    ex: Mutex<Exchange>,
    faults: Mutex<FaultState>,
    pub(crate) chain: Chain,
    pub(crate) verify: bool,
    pub(crate) clob_version: u64,
    pub(crate) page_size: usize,
    /// Bumped to drop every open WS connection.
    pub(crate) kick: watch::Sender<u64>,
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Interval of simulated market activity, `None` = off.
    activity: watch::Sender<Option<Duration>>,
    /// `"METHOD /path"` of recent HTTP requests, oldest first (see [`SimHandle::requests`]).
    requests: Mutex<Vec<String>>,
    /// Interval of the RTDS synthetic price ticks.
    pub(crate) rtds_interval: Duration,
    /// Rate limits, post-only windows, closed-only accounts. Locked after `ex`, never before.
    rails: Mutex<super::rails::Rails>,
    /// Departures from the exchange's behaviour switched on ([`super::Drift`]).
    pub(crate) drift: super::drift::Drifts,
}

impl Shared {
    /// Locks the exchange. A panic while holding the lock (a bug) must not wedge every later
    /// request, so a poisoned lock is recovered.
    pub(crate) fn ex(&self) -> MutexGuard<'_, Exchange> {
        self.ex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn log_request(&self, method: &hyper::Method, path: &str) {
        let mut log = self
            .requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if log.len() >= MAX_LOGGED_REQUESTS {
            log.drain(..MAX_LOGGED_REQUESTS / 2);
        }
        log.push(format!("{method} {path}"));
    }

    pub(crate) fn rails(&self) -> MutexGuard<'_, super::rails::Rails> {
        self.rails
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn faults(&self) -> MutexGuard<'_, FaultState> {
        self.faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Entry point: `Simulator::builder()`.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// let sim = polyclob_sim::Simulator::builder().seed(7).start().await?;
/// println!("REST at {}, WS at {}/ws/market", sim.http_url(), sim.ws_url());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Simulator;

impl Simulator {
    /// A builder with the defaults documented on each setter.
    #[must_use]
    pub fn builder() -> SimBuilder {
        SimBuilder::default()
    }
}

/// Configures and starts a simulator.
#[derive(Debug, Clone)]
pub struct SimBuilder {
    seed: u64,
    markets: Option<Vec<MarketSpec>>,
    chain: Chain,
    verify_signatures: bool,
    heartbeat_timeout: Duration,
    page_size: usize,
    faults: Faults,
    port: u16,
    clob_version: u64,
    activity: Option<Duration>,
    rtds_interval: Duration,
    rate_limits: Option<polyclob::http::Tier>,
    rate_limit_warning_only: bool,
    enforce_balances: bool,
    drift: Vec<super::Drift>,
    taker_hold: Duration,
    settlement: super::settlement::Settlement,
    crowd: super::crowd::Crowd,
    replay: super::replay::Replay,
    #[cfg(feature = "onchain")]
    onchain: bool,
}

impl Default for SimBuilder {
    fn default() -> Self {
        Self {
            seed: 0,
            markets: None,
            chain: Chain::Polygon,
            verify_signatures: true,
            heartbeat_timeout: Duration::from_secs(10),
            page_size: 500,
            faults: Faults::none(),
            port: 0,
            clob_version: 2,
            activity: None,
            rtds_interval: Duration::from_secs(1),
            rate_limits: None,
            rate_limit_warning_only: false,
            enforce_balances: true,
            drift: Vec::new(),
            taker_hold: Duration::ZERO,
            settlement: super::settlement::Settlement::immediate(),
            crowd: super::crowd::Crowd::new(),
            replay: super::replay::Replay::default(),
            #[cfg(feature = "onchain")]
            onchain: false,
        }
    }
}

impl SimBuilder {
    /// Departs from the exchange's documented behaviour in the way `drift` says (repeatable),
    /// for testing conformance checks. Default is none.
    #[must_use]
    pub fn drift(mut self, drift: super::Drift) -> Self {
        self.drift.push(drift);
        self
    }

    /// Seeds books, ids, credentials and fault decisions. Default is 0.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The markets to list. Default is [`MarketSpec::defaults`] (the crate's seed fixture).
    #[must_use]
    pub fn markets(mut self, markets: Vec<MarketSpec>) -> Self {
        self.markets = Some(markets);
        self
    }

    /// The chain whose EIP-712 domains signatures must use. Default is Polygon (137).
    #[must_use]
    pub fn chain(mut self, chain: Chain) -> Self {
        self.chain = chain;
        self
    }

    /// Whether L1 signatures, L2 HMACs and order signatures are verified. Default is true.
    /// With `false` the headers must still be present and API keys must exist, but no
    /// cryptographic check is made (handy for load tests of non-signing code paths).
    #[must_use]
    pub fn verify_signatures(mut self, verify: bool) -> Self {
        self.verify_signatures = verify;
        self
    }

    /// How long a user's heartbeat chain may stay silent before all their orders are
    /// cancelled. Default is 10 s.
    #[must_use]
    pub fn heartbeat_timeout(mut self, timeout: Duration) -> Self {
        self.heartbeat_timeout = timeout;
        self
    }

    /// Items per page on paginated endpoints (at least 1). Default is 500.
    #[must_use]
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }

    /// Fault injection from the start. Default is [`Faults::none`].
    #[must_use]
    pub fn faults(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    /// The loopback port to bind. Default is 0 (an ephemeral port).
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// What `GET /version` answers (1 = V1 orders expected, 2 = V2). Default is 2.
    #[must_use]
    pub fn clob_version(mut self, version: u64) -> Self {
        self.clob_version = version;
        self
    }

    /// Simulated third-party trading: every `interval`, one activity step: every price path
    /// moves one step ([`PricePath`](crate::PricePath)), then every trader of the
    /// [`crowd`](Self::crowd) acts; without a crowd, one seeded random action on a random token
    /// by the seed liquidity `0x0000000000000000000000000000000000005eed` (rest an order near
    /// the top, cancel one, or take liquidity), so streams move and trades happen without a
    /// second client. Default is off. The simulator keeps a steady size under activity however
    /// long it runs: the seed liquidity's resting orders are capped per book, and of the trades
    /// among simulated traders only the last 100,000 are kept (with the finished orders they
    /// name); every trade a client took part in is kept.
    #[must_use]
    pub fn activity(mut self, interval: Option<Duration>) -> Self {
        self.activity = interval;
        self
    }

    /// Interval of the synthetic crypto and equity prices on the RTDS endpoint
    /// ([`SimHandle::rtds_url`]). Default is 1 s (the live feed ticks about once a second).
    #[must_use]
    pub fn rtds_interval(mut self, interval: Duration) -> Self {
        self.rtds_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Enforces the exchange's per-signer trading rate limits, every signer at `tier` unless
    /// given its own with [`SimHandle::set_rate_limit_tier`]: order and cancel token buckets,
    /// `Poly-RateLimit-Remaining`/`-Reset`/`-Tier` headers on trading answers, `429` with
    /// `Retry-After` when a bucket is short, batches all or nothing. Default is `None`: no
    /// trading limits (as before the exchange enforced them).
    #[must_use]
    pub fn rate_limits(mut self, tier: Option<polyclob::http::Tier>) -> Self {
        self.rate_limits = tier;
        self
    }

    /// The exchange's warning mode: requests over the limit are admitted with
    /// `Poly-RateLimit-Warning: true` instead of a `429`. Default is `false`.
    #[must_use]
    pub fn rate_limit_warning_only(mut self, on: bool) -> Self {
        self.rate_limit_warning_only = on;
        self
    }

    /// Refuses orders their maker cannot cover, as the exchange does: a BUY without the pUSD
    /// (or the exchange's allowance) for it, a SELL without the outcome tokens (or the
    /// exchange's ERC-1155 approval), counting what the maker's open orders already reserve;
    /// the refusal is `400 {"error":"not enough balance / allowance: …"}`. Accounts start
    /// empty: fund them with [`SimHandle::fund`] / [`SimHandle::fund_tokens`] (or, with
    /// [`SimBuilder::onchain`], on the chain). Default is on; turn it off only for tests of
    /// plumbing (order formats, transport), where fills an account cannot cover are then
    /// counted in [`SimHandle::settlement_failures`] and move no balance.
    #[must_use]
    pub fn enforce_balances(mut self, on: bool) -> Self {
        self.enforce_balances = on;
        self
    }

    /// Holds every order that would match on arrival for `hold` before matching it, as the
    /// exchange holds taker orders (about 250 ms): the post answers `status: "delayed"`, the
    /// order shows as `DELAYED` in the open orders and reserves its funds, and a cancel is
    /// refused with `cannot cancel because the order is in pending/delayed status`. Default is
    /// zero (no hold).
    #[must_use]
    pub fn taker_hold(mut self, hold: Duration) -> Self {
        self.taker_hold = hold;
        self
    }

    /// How trades with a client in them settle: `MINED` / `CONFIRMED` delays and injected
    /// `RETRYING` / `FAILED` trades ([`Settlement`](super::Settlement)). Default is
    /// [`Settlement::immediate`](super::Settlement::immediate).
    #[must_use]
    pub fn settlement(mut self, settlement: super::settlement::Settlement) -> Self {
        self.settlement = settlement;
        self
    }

    /// Simulated traders with identities that act each activity step ([`Crowd`](crate::Crowd)).
    /// Default is none (the seed liquidity's random activity, see [`activity`](Self::activity)).
    #[must_use]
    pub fn crowd(mut self, crowd: super::crowd::Crowd) -> Self {
        self.crowd = crowd;
        self
    }

    /// A recorded market-channel feed to replay, one frame per activity step
    /// ([`SimHandle::step_activity`], [`SimHandle::replay_step`] or the
    /// [`activity`](Self::activity) timer), in place of the seed liquidity's random activity;
    /// clients' orders meet it by price-time priority ([`Replay`](crate::Replay) says how).
    /// Default is none.
    #[must_use]
    pub fn replay(mut self, replay: super::replay::Replay) -> Self {
        self.replay = replay;
        self
    }

    /// Serves a minimal chain at `POST /rpc` ([`SimHandle::rpc_url`], feature `onchain`):
    /// raw EIP-1559 transactions checked and applied to in-memory pUSD and outcome-token
    /// balances, which fills then move; [`SimHandle::resolve_market`] resolves a market for
    /// redemption. Default is off.
    #[cfg(feature = "onchain")]
    pub fn onchain(mut self, on: bool) -> Self {
        self.onchain = on;
        self
    }

    /// Binds `127.0.0.1:port` and starts serving on the current tokio runtime.
    ///
    /// # Errors
    /// The bind error, e.g. when the port is taken.
    pub async fn start(self) -> std::io::Result<SimHandle> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, self.port)).await?;
        self.launch(listener)
    }

    /// Everything after the bind, as a plain function. An `async fn`'s body is compiled again
    /// in every crate that awaits it (release builds share no generic code, and its state
    /// machine counts as generic), so spawning the server's tasks from here keeps them, and
    /// hyper's server code under them, compiled once in this crate: a program that starts a
    /// simulator does not compile the server again.
    #[inline(never)]
    fn launch(self, listener: TcpListener) -> std::io::Result<SimHandle> {
        let addr = listener.local_addr()?;
        let (events, _) = broadcast::channel(8192);
        let ex = Exchange::new(
            StateConfig {
                seed: self.seed,
                heartbeat_timeout: self.heartbeat_timeout,
                chain: self.chain,
                enforce_balances: self.enforce_balances,
                taker_hold: self.taker_hold,
                settlement: self.settlement,
            },
            self.markets.unwrap_or_else(MarketSpec::defaults),
            events,
        );
        let mut ex = ex;
        ex.install_crowd(self.crowd);
        ex.install_replay(self.replay);
        #[cfg(feature = "onchain")]
        if self.onchain {
            let specs: Vec<MarketSpec> = ex.markets.iter().map(|m| m.spec.clone()).collect();
            let house = super::state::SEED_ADDRESS.parse().unwrap_or_default();
            ex.chain = Some(super::chain::SimChain::new(self.chain, &specs, house));
        }
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let (kick, _) = watch::channel(0u64);
        let faults = FaultState::new(self.faults, self.seed, |id| market_ids(&ex, id));
        let (activity, _) = watch::channel(self.activity);
        let shared = Arc::new(Shared {
            ex: Mutex::new(ex),
            faults: Mutex::new(faults),
            chain: self.chain,
            verify: self.verify_signatures,
            clob_version: self.clob_version,
            page_size: self.page_size,
            kick,
            shutdown: shutdown_rx,
            activity,
            requests: Mutex::new(Vec::new()),
            rtds_interval: self.rtds_interval,
            rails: Mutex::new(super::rails::Rails::new(
                self.rate_limits,
                self.rate_limit_warning_only,
            )),
            drift: super::drift::Drifts::new(&self.drift),
        });
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        let sweeper = tokio::spawn(sweep_loop(Arc::clone(&shared)));
        let activity = tokio::spawn(activity_loop(Arc::clone(&shared)));
        Ok(SimHandle {
            shared,
            addr,
            shutdown: shutdown_tx,
            tasks: vec![accept, sweeper, activity],
        })
    }
}

/// API credentials as `POST /auth/api-key` issues them: polyclob's one credential type (this
/// was a struct of the simulator's own until 0.2).
#[deprecated(since = "0.2.0", note = "use polyclob::clob::Credentials")]
pub type ApiCredentials = Credentials;

/// A running simulator. Dropping it stops the server and closes every connection.
#[derive(Debug)]
pub struct SimHandle {
    pub(super) shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
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
    /// [`SimBuilder::rtds_interval`], the documented limits and close codes.
    #[must_use]
    pub fn polybolt_url(&self) -> String {
        format!("ws://{}/polybolt", self.addr)
    }

    /// The sports socket URL, `ws://127.0.0.1:<port>/sports`: `ping` and scripted
    /// `sport_result`s every [`SimBuilder::rtds_interval`]; a client that does not answer
    /// `pong` within two intervals is dropped.
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
        format!("http://{}{}", self.addr, super::gamma::PREFIX)
    }

    /// The Data API base URL, `http://127.0.0.1:<port>/data-api`: point a
    /// [`data::Client`](polyclob::data::Client) here. Positions and trades are derived from the
    /// simulator's fills.
    #[must_use]
    pub fn data_api_url(&self) -> String {
        format!("http://{}{}", self.addr, super::data_api::PREFIX)
    }

    /// `"METHOD /path"` of the HTTP requests served so far (the most recent 65,536 at most),
    /// oldest first, WS upgrades included: for tests that count round trips.
    #[must_use]
    pub fn requests(&self) -> Vec<String> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
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
                .map(|m| (m.to_owned(), market_ids(&ex, m)))
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

    /// Switches exactly the drifts in `on` on (the others off); see [`super::Drift`].
    pub fn set_drift(&self, on: &[super::Drift]) {
        self.shared.drift.set(on);
    }

    /// Drops every open WS connection now, without a close frame (as a network failure would).
    pub fn disconnect_ws(&self) {
        self.shared.kick.send_modify(|n| *n += 1);
    }

    /// Starts (`Some(interval)`), retimes or stops (`None`) the simulated market activity
    /// (see [`SimBuilder::activity`]).
    pub fn set_activity(&self, interval: Option<Duration>) {
        self.shared.activity.send_replace(interval);
    }

    /// Runs `steps` activity steps now, synchronously (each moves every price path one step,
    /// then the crowd acts; see [`SimBuilder::activity`]): the same seed and steps always give
    /// the same books.
    pub fn step_activity(&self, steps: usize) {
        let mut ex = self.shared.ex();
        for _ in 0..steps {
            ex.activity_step();
        }
    }

    /// Applies up to `frames` frames of the replayed feed ([`SimBuilder::replay`]) now, and
    /// nothing else; returns how many were applied (fewer at the end of the feed).
    pub fn replay_step(&self, frames: usize) -> usize {
        let mut ex = self.shared.ex();
        (0..frames).take_while(|_| ex.replay_frame()).count()
    }

    /// Frames of the replayed feed not applied yet.
    #[must_use]
    pub fn replay_left(&self) -> usize {
        self.shared.ex().replay_left()
    }

    /// Drives the fair value of the market `condition_id` from now on; the crowd quotes and
    /// trades around it. Returns false for an unknown condition id.
    pub fn drive_market(&self, condition_id: &str, fair: crate::FairValue) -> bool {
        let mut ex = self.shared.ex();
        let Some(mi) = ex.market_by_condition(condition_id) else {
            return false;
        };
        ex.drive_market(mi, fair);
        true
    }

    /// Drives the reference price of `symbol`'s asset (`"btc"`, or a feed's symbol such as
    /// `"btcusdt"` or `"btc/usd"`) from now on, in micro-dollars: RTDS and PolyBolt report it
    /// (to their 10⁻⁵ precision) for every symbol of that asset instead of the synthetic
    /// series, and markets whose fair value follows it ([`FairValue::reference`]) move with it.
    ///
    /// [`FairValue::reference`]: crate::FairValue::reference
    pub fn drive_reference(&self, symbol: &str, path: crate::PricePath) {
        self.shared.ex().drive_reference(symbol, path);
    }

    /// Moves the book of market `condition_id` to `price` (the first token's; the second's
    /// mirrors it) at once: its fair value becomes `price`, every order priced through it is
    /// taken by a simulated trader (clients' orders included), and the crowd's makers requote
    /// around it (without makers, one order of the minimum size rests a tick either side).
    /// Returns false for an unknown condition id.
    pub fn move_book(&self, condition_id: &str, price: polyclob::fixed::Price) -> bool {
        let mut ex = self.shared.ex();
        let Some(mi) = ex.market_by_condition(condition_id) else {
            return false;
        };
        ex.move_book(mi, price.as_micros());
        true
    }

    /// The fair value of market `condition_id` now (its configured midpoint until driven or
    /// moved), on its tick grid.
    #[must_use]
    pub fn fair_value(&self, condition_id: &str) -> Option<polyclob::fixed::Price> {
        let ex = self.shared.ex();
        let mi = ex.market_by_condition(condition_id)?;
        polyclob::fixed::Price::new(ex.fair_value(mi))
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
    pub fn set_settlement(&self, settlement: super::settlement::Settlement) {
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
    pub fn rail_stats(&self) -> super::rails::RailStats {
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
        let rec: ApiKeyRec = match ex.derive_api_key(&addr, nonce) {
            Ok(r) => r,
            Err(_) => match ex.create_api_key(&addr, nonce) {
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
        self.shared.ex().insert_api_key(rec, nonce);
    }

    /// Stops the server and waits for its tasks to end.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
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

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                // Transient accept errors (EMFILE, aborted handshakes): keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = shutdown.changed() => return,
        };
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut shutdown = shared.shutdown.clone();
            let svc_shared = Arc::clone(&shared);
            let svc = service_fn(move |req| handle(req, Arc::clone(&svc_shared)));
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), svc);
            tokio::select! {
                _ = conn => {}
                _ = shutdown.changed() => {}
            }
        });
    }
}

/// Sweeps every 100 ms, and at once when a settlement step or a held order is due.
async fn sweep_loop(shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    let wake = Arc::clone(&shared.ex().settling.wake);
    let mut next = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            () = wake.notified() => {}
            _ = shutdown.changed() => return,
        }
        let mut ex = shared.ex();
        ex.sweep();
        let tick = std::time::Instant::now() + Duration::from_millis(100);
        let due = ex.next_due().map_or(tick, |d| d.min(tick));
        next = tokio::time::Instant::from_std(due);
    }
}

async fn activity_loop(shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    let mut config = shared.activity.subscribe();
    loop {
        let interval = *config.borrow_and_update();
        match interval {
            Some(every) if !every.is_zero() => {
                tokio::select! {
                    _ = tokio::time::sleep(every) => shared.ex().activity_step(),
                    _ = config.changed() => {}
                    _ = shutdown.changed() => return,
                }
            }
            _ => {
                tokio::select! {
                    r = config.changed() => if r.is_err() { return },
                    _ = shutdown.changed() => return,
                }
            }
        }
    }
}

/// A JSON response.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// A refused request: status and `{"error"}` message, turned into a response at the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reject {
    pub(crate) status: StatusCode,
    pub(crate) msg: std::borrow::Cow<'static, str>,
}

impl Reject {
    pub(crate) fn new(status: StatusCode, msg: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        Self {
            status,
            msg: msg.into(),
        }
    }

    pub(crate) fn bad(msg: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, msg)
    }

    pub(crate) fn into_response(self) -> Response<Full<Bytes>> {
        error_response(self.status, &self.msg)
    }
}

/// The exchange's error shape: `{"error": "<message>"}`.
pub(crate) fn error_response(status: StatusCode, msg: &str) -> Response<Full<Bytes>> {
    json_response(status, serde_json::json!({ "error": msg }).to_string())
}

fn fault_response(f: HttpFault) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(f.status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    let mut r = error_response(status, f.message());
    if let HttpFault::RateLimited { retry_after } = f {
        let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        if let Ok(v) = hyper::header::HeaderValue::from_str(&secs.to_string()) {
            r.headers_mut().insert(hyper::header::RETRY_AFTER, v);
        }
    }
    r
}

/// Every id that names the market `id` names (a condition id, or a token id): the condition
/// id and its token ids, or `id` alone for a token id or an unknown id.
fn market_ids(ex: &Exchange, id: &str) -> Vec<String> {
    let condition = |m: &&super::state::MarketState| m.spec.condition_id.eq_ignore_ascii_case(id);
    match ex.markets.iter().find(condition) {
        Some(m) => {
            let spec = &m.spec;
            std::iter::once(spec.condition_id.clone())
                .chain(spec.tokens.iter().map(|t| t.token_id().to_owned()))
                .collect()
        }
        None => vec![id.to_owned()],
    }
}

/// What the fault rules see of a request.
fn request_view<'a>(
    headers: &'a hyper::HeaderMap,
    uri: &'a hyper::Uri,
    body: &'a [u8],
) -> super::faults::RequestView<'a> {
    let header = |k: &str| headers.get(k).and_then(|v| v.to_str().ok());
    super::faults::RequestView {
        path: uri.path(),
        query: uri.query().unwrap_or(""),
        address: header("POLY_ADDRESS"),
        api_key: header("POLY_API_KEY"),
        body,
    }
}

/// Waits out the injected latency, then answers with the injected fault if there is one.
async fn faulted(delay: Duration, fault: Option<HttpFault>) -> Option<Response<Full<Bytes>>> {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    fault.map(fault_response)
}

async fn handle(
    mut req: Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    // Stamped before anything else runs: the exchange meters requests at its edge, so a
    // request's place in the rate-limit buckets is its arrival, not when a busy handler
    // reached it (see `rails::metered`).
    req.extensions_mut()
        .insert(super::rails::Arrival(Instant::now()));
    shared.log_request(req.method(), req.uri().path());
    if ws::is_upgrade(&req) {
        let (delay, fault) =
            shared
                .faults()
                .on_request(&request_view(req.headers(), req.uri(), b""));
        if let Some(r) = faulted(delay, fault).await {
            return Ok(r);
        }
        return Ok(ws::upgrade(req, shared));
    }
    let (parts, body) = req.into_parts();
    // The body is read before the fault rules run, so a rule can target the market it names.
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return Ok(error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload exceeds the limit",
            ));
        }
    };
    let (delay, fault) =
        shared
            .faults()
            .on_request(&request_view(&parts.headers, &parts.uri, &body));
    if let Some(r) = faulted(delay, fault).await {
        return Ok(r);
    }
    if let Some(r) =
        super::gamma::route(&shared, &parts).or_else(|| super::data_api::route(&shared, &parts))
    {
        return Ok(r);
    }
    #[cfg(feature = "onchain")]
    if parts.uri.path() == "/rpc" && parts.method == hyper::Method::POST {
        return Ok(super::chain::serve(&shared, &body));
    }
    Ok(rest::route(&shared, &parts, &body))
}
