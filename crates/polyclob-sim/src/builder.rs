//! The front door: [`Simulator::builder`] and the [`SimBuilder`] that configures and starts a
//! simulator: it builds the exchange and the scenario around it, binds the loopback listener
//! and spawns the server's tasks (`server.rs`), and hands back the [`SimHandle`].

use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{broadcast, watch};

use polyclob::types::Chain;

#[cfg(feature = "onchain")]
use crate::exchange::chain::SimChain;
use crate::exchange::market::MarketSpec;
use crate::exchange::settlement::Settlement;
#[cfg(feature = "onchain")]
use crate::exchange::state::SEED_ADDRESS;
use crate::exchange::state::{Exchange, StateConfig};
use crate::handle::SimHandle;
use crate::scenario::activity::Activity;
use crate::scenario::crowd::Crowd;
use crate::scenario::drift::{Drift, Drifts};
use crate::scenario::faults::{FaultState, Faults};
use crate::scenario::replay::Replay;
use crate::server;
use crate::wire::rails::Rails;
use crate::wire::shared::Shared;

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
    sports_text_ping: bool,
    rate_limits: Option<polyclob::http::Tier>,
    rate_limit_warning_only: bool,
    ip_limits: Vec<crate::wire::rails::IpLimit>,
    enforce_balances: bool,
    drift: Vec<Drift>,
    taker_hold: Duration,
    settlement: Settlement,
    crowd: Crowd,
    replay: Replay,
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
            sports_text_ping: false,
            rate_limits: None,
            rate_limit_warning_only: false,
            ip_limits: Vec::new(),
            enforce_balances: true,
            drift: Vec::new(),
            taker_hold: Duration::ZERO,
            settlement: Settlement::immediate(),
            crowd: Crowd::new(),
            replay: Replay::default(),
            #[cfg(feature = "onchain")]
            onchain: false,
        }
    }
}

impl SimBuilder {
    /// Departs from the exchange's documented behaviour in the way `drift` says (repeatable),
    /// for testing conformance checks. Default is none.
    #[must_use]
    pub fn drift(mut self, drift: Drift) -> Self {
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

    /// Whether the sports socket ([`SimHandle::sports_url`]) pings with the text `ping` and
    /// waits for a text `pong`, as Polymarket's docs describe it. Default is `false`: it
    /// sends WebSocket ping frames, as the live socket does (it never sends a text `ping`).
    #[must_use]
    pub fn sports_text_ping(mut self, on: bool) -> Self {
        self.sports_text_ping = on;
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

    /// Enforces a per-IP limit of the exchange's edge (docs.polymarket.com/api-reference/rate-limits;
    /// repeatable): at most `count` requests per sliding `window` on the `method` requests
    /// (`None` = any) to `path` (the simulator's path, Gamma's under `/gamma`, the Data API's
    /// under `/data-api`; a trailing `*` makes it a prefix). A request over it is answered
    /// `429` with `Retry-After` (in the Data API's error shape on its routes) and counted in
    /// [`RailStats::ip_rate_limited`](crate::RailStats::ip_rate_limited). Default is none.
    ///
    /// ```no_run
    /// # async fn demo() -> std::io::Result<()> {
    /// use std::time::Duration;
    /// let sim = polyclob_sim::Simulator::builder()
    ///     .ip_limit(Some("DELETE"), "/cancel-all", 250, Duration::from_secs(10))
    ///     .ip_limit(None, "/data-api/*", 1_000, Duration::from_secs(10))
    ///     .start()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn ip_limit(
        mut self,
        method: Option<&str>,
        path: &str,
        count: u32,
        window: Duration,
    ) -> Self {
        self.ip_limits.push(crate::wire::rails::IpLimit::new(
            method, path, count, window,
        ));
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
    /// `RETRYING` / `FAILED` trades ([`Settlement`]). Default is
    /// [`Settlement::immediate`].
    #[must_use]
    pub fn settlement(mut self, settlement: Settlement) -> Self {
        self.settlement = settlement;
        self
    }

    /// Simulated traders with identities that act each activity step ([`Crowd`]).
    /// Default is none (the seed liquidity's random activity, see [`activity`](Self::activity)).
    #[must_use]
    pub fn crowd(mut self, crowd: Crowd) -> Self {
        self.crowd = crowd;
        self
    }

    /// A recorded market-channel feed to replay, one frame per activity step
    /// ([`SimHandle::step_activity`], [`SimHandle::replay_step`] or the
    /// [`activity`](Self::activity) timer), in place of the seed liquidity's random activity;
    /// clients' orders meet it by price-time priority ([`Replay`] says how).
    /// Default is none.
    #[must_use]
    pub fn replay(mut self, replay: Replay) -> Self {
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
        let mut activity = Activity::new(self.seed);
        activity.install(&mut ex, self.crowd, self.replay);
        #[cfg(feature = "onchain")]
        if self.onchain {
            let specs: Vec<MarketSpec> = ex.markets.iter().map(|m| m.spec.clone()).collect();
            let house = SEED_ADDRESS.parse().unwrap_or_default();
            ex.chain = Some(SimChain::new(self.chain, &specs, house));
        }
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let (kick, _) = watch::channel(0u64);
        let faults = FaultState::new(self.faults, self.seed, |id| ex.market_ids(id));
        let (activity_interval, _) = watch::channel(self.activity);
        let shared = Arc::new(Shared {
            ex: Mutex::new(ex),
            activity: Mutex::new(activity),
            faults: Mutex::new(faults),
            chain: self.chain,
            verify: self.verify_signatures,
            clob_version: self.clob_version,
            page_size: self.page_size,
            kick,
            shutdown: shutdown_rx,
            activity_interval,
            requests: Mutex::new(Vec::new()),
            rtds_interval: self.rtds_interval,
            sports_text_ping: self.sports_text_ping,
            rails: Mutex::new({
                let mut rails = Rails::new(self.rate_limits, self.rate_limit_warning_only);
                rails.set_ip_limits(self.ip_limits);
                rails
            }),
            drift: Drifts::new(&self.drift),
            seeded: Mutex::new(crate::scenario::seeded::Seeded::default()),
        });
        let accept = tokio::spawn(server::accept_loop(listener, Arc::clone(&shared)));
        let sweeper = tokio::spawn(server::sweep_loop(Arc::clone(&shared)));
        let activity = tokio::spawn(server::activity_loop(Arc::clone(&shared)));
        Ok(SimHandle::new(
            shared,
            addr,
            shutdown_tx,
            vec![accept, sweeper, activity],
        ))
    }
}
