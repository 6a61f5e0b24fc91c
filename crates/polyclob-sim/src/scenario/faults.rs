//! Fault injection: added latency, `425`/`429`/`503` answers, and WebSocket disconnects,
//! silences, stalls and close codes, PolyBolt error acknowledgements, and the user channel's
//! replayed history, stale statuses and malformed trades, on a schedule or with a
//! probability, each rule optionally for one account, one market or one kind of socket; all
//! decided by a seeded PRNG so that the same seed and the same request (or frame) sequence
//! give the same faults.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::exchange::rng::Rng;
use crate::exchange::trigger::Trigger;

/// An HTTP answer the simulator substitutes for the real one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpFault {
    /// `425 Too Early`: the matching engine is restarting.
    TooEarly,
    /// `429 Too Many Requests` with a `Retry-After` header (whole seconds, rounded up).
    RateLimited {
        /// The value announced in `Retry-After`.
        retry_after: Duration,
    },
    /// `503 Service Unavailable` with the exchange's "trading is currently disabled" error.
    Unavailable,
    /// `503 Service Unavailable` with a `Retry-After` header (whole seconds, rounded up): a
    /// server that is overloaded or restarting, as PolyBolt may refuse a handshake (its docs:
    /// 429 or 503, wait at least `Retry-After`).
    Overloaded {
        /// The value announced in `Retry-After`.
        retry_after: Duration,
    },
}

impl HttpFault {
    /// The HTTP status code.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            Self::TooEarly => 425,
            Self::RateLimited { .. } => 429,
            Self::Unavailable | Self::Overloaded { .. } => 503,
        }
    }

    /// The `{"error": …}` message.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Self::TooEarly => "Too Early: the matching engine is restarting, retry shortly",
            Self::RateLimited { .. } => "Too Many Requests",
            Self::Unavailable => "Trading is currently disabled. Check polymarket.com for updates",
            Self::Overloaded { .. } => "Service Unavailable: retry after the time announced",
        }
    }

    /// The `Retry-After` it announces, if any.
    #[must_use]
    pub fn retry_after(self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after } | Self::Overloaded { retry_after } => {
                Some(retry_after)
            }
            Self::TooEarly | Self::Unavailable => None,
        }
    }
}

/// What a fault rule may look at in a request.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RequestView<'a> {
    pub(crate) path: &'a str,
    pub(crate) query: &'a str,
    /// The `POLY_ADDRESS` header.
    pub(crate) address: Option<&'a str>,
    /// The `POLY_API_KEY` header.
    pub(crate) api_key: Option<&'a str>,
    pub(crate) body: &'a [u8],
}

/// One scheduled HTTP fault: what, when, and for which paths, accounts and markets.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRule {
    trigger: Trigger,
    fault: HttpFault,
    path_prefix: Option<String>,
    account: Option<String>,
    market: Option<String>,
}

impl HttpRule {
    /// Answers with `fault` whenever `trigger` fires (counting every HTTP request).
    #[must_use]
    pub fn new(trigger: Trigger, fault: HttpFault) -> Self {
        Self {
            trigger,
            fault,
            path_prefix: None,
            account: None,
            market: None,
        }
    }

    /// Applies the rule only to one account's requests: those whose `POLY_ADDRESS` header is
    /// `account` (an address, any case) or whose `POLY_API_KEY` is `account` (an API key).
    /// The trigger counts that account's requests only. Default is every account.
    ///
    /// ```
    /// use std::time::Duration;
    /// use polyclob_sim::{Faults, HttpFault, HttpRule, Trigger};
    ///
    /// // Every order of one account answers 429; everyone else trades normally.
    /// let f = Faults::none().http(
    ///     HttpRule::new(Trigger::EveryNth(1), HttpFault::RateLimited { retry_after: Duration::from_secs(1) })
    ///         .path_prefix("/order")
    ///         .account("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
    /// );
    /// # let _ = f;
    /// ```
    #[must_use]
    pub fn account(mut self, account: impl Into<String>) -> Self {
        self.account = Some(account.into().to_ascii_lowercase());
        self
    }

    /// Applies the rule only to requests that name one market: `id` (its condition id or
    /// one of its token ids) appears, as a whole id, in the query string or the body (an
    /// order's `tokenId`, a `market`/`asset_id` filter). Default is every request.
    #[must_use]
    pub fn market(mut self, id: impl Into<String>) -> Self {
        self.market = Some(id.into().to_ascii_lowercase());
        self
    }

    fn applies(&self, req: &RequestView<'_>) -> bool {
        if self
            .path_prefix
            .as_deref()
            .is_some_and(|p| !req.path.starts_with(p))
        {
            return false;
        }
        if let Some(a) = &self.account {
            let by_address = req.address.is_some_and(|h| h.eq_ignore_ascii_case(a));
            let by_key = req.api_key.is_some_and(|k| k.eq_ignore_ascii_case(a));
            if !by_address && !by_key {
                return false;
            }
        }
        if let Some(m) = &self.market {
            // A whole id: not part of a longer number or hex string.
            let named = |hay: &[u8]| {
                let n = m.len();
                if n == 0 || hay.len() < n {
                    return n == 0;
                }
                let edge = |i: usize| hay.get(i).is_none_or(|b| !b.is_ascii_alphanumeric());
                (0..=hay.len() - n).any(|i| {
                    hay[i..i + n].eq_ignore_ascii_case(m.as_bytes())
                        && (i == 0 || edge(i - 1))
                        && edge(i + n)
                })
            };
            if !named(req.query.as_bytes()) && !named(req.body) {
                return false;
            }
        }
        true
    }

    /// Restricts the rule to paths starting with `prefix` (e.g. `"/order"`); the trigger then
    /// counts only those requests. Default is every path.
    #[must_use]
    pub fn path_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.path_prefix = Some(prefix.into());
        self
    }
}

/// The simulator's WebSocket endpoints, as a [`WsRule`] names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WsChannel {
    /// `/ws/market`.
    Market,
    /// `/ws/user`.
    User,
    /// `/rtds`.
    Rtds,
    /// `/polybolt`.
    PolyBolt,
    /// `/sports`.
    Sports,
}

/// What a [`WsRule`] does to the connection whose frame triggered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WsFault {
    /// Drops the connection abruptly: no close frame, as a network failure would.
    Disconnect,
    /// The socket stays open but nothing is sent for this long, not even `PONG`; frames due
    /// meanwhile are lost, as on a half-open connection.
    Silence(Duration),
    /// Nothing is written for this long, then writing resumes: frames wait, as when the
    /// client reads too slowly. PolyBolt keeps at most 128 updates waiting per connection,
    /// discards the ones that do not fit and counts them in the `dropped` field of the
    /// channel's next envelope; a CLOB channel connection that falls 8192 frames behind is
    /// dropped; RTDS and sports skip the price and result ticks that fall in the stall
    /// (neither socket has sequence numbers to report it by).
    Stall(Duration),
    /// Sends a close frame with this code, then ends the connection (PolyBolt: 4001
    /// authentication, 4002 slow consumer, 4003 draining, 4008 policy).
    Close(u16),
    /// PolyBolt answers an op with an error acknowledgement
    /// (`{"op":"error","code":…,"rid":…}`) instead of doing it. `op` is `"auth"`,
    /// `"subscribe"` or `"unsubscribe"` (each subscription of a batch is one op, and its
    /// error names its `channel`); `code` is the code sent (`auth_unavailable`,
    /// `auth_expired`, `auth_invalid`, `bad_filter` …; after `sub_limit`, `rate_limited` and
    /// `auth_attempts` the connection is closed with 4008, as the docs say). A refused `auth`
    /// leaves the connection open and unauthenticated. The rule's trigger counts those ops,
    /// not frames: `Trigger::Window { first: 1, count: 2 }` with `auth_unavailable` refuses
    /// the first two `auth` frames and lets the third through.
    ErrorAck {
        /// The op refused.
        op: &'static str,
        /// The error code sent.
        code: &'static str,
    },
    /// User channel: when a connection subscribes, the server first sends again every trade
    /// message it sent before for the account's last `trades` trades, oldest first, each trade
    /// in its historical statuses (`MATCHED`, `MINED`, `CONFIRMED` …): history replayed after
    /// a reconnect. The trigger counts the channel's authenticated subscriptions (a
    /// connection's first one finds no history yet).
    ReplayHistory {
        /// How many of the account's most recent trades.
        trades: usize,
    },
    /// User channel: when a connection subscribes, the server first sends, for each of the
    /// account's last `trades` trades that changed status, its status before the latest one
    /// (`MINED` after `CONFIRMED`): a stale status after a reconnect. The trigger counts the
    /// channel's authenticated subscriptions.
    StaleStatus {
        /// How many of the account's most recent trades.
        trades: usize,
    },
    /// User channel: a trade message goes out malformed — its `price` is not a number
    /// (`"0.57x"`), its `id` intact — while `GET /data/trades` has the trade as it is. The
    /// trigger counts trade messages.
    MalformedTrade,
}

/// What a [`WsRule`]'s trigger counts, by its fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counts {
    /// Outbound frames.
    Frames,
    /// PolyBolt ops of this kind.
    Op(&'static str),
    /// User-channel subscriptions.
    Subscribes,
    /// User-channel trade messages.
    Trades,
}

impl WsFault {
    fn counts(self) -> Counts {
        match self {
            Self::ErrorAck { op, .. } => Counts::Op(op),
            Self::ReplayHistory { .. } | Self::StaleStatus { .. } => Counts::Subscribes,
            Self::MalformedTrade => Counts::Trades,
            Self::Disconnect | Self::Silence(_) | Self::Stall(_) | Self::Close(_) => Counts::Frames,
        }
    }
}

/// One scheduled WebSocket fault: what, when, and on which connections.
///
/// The trigger counts the frames the rule applies to, across connections, from when the
/// faults were installed ([`SimBuilder::faults`](crate::SimBuilder::faults),
/// [`SimHandle::set_faults`](crate::SimHandle::set_faults)): `Window { first: 50, count: 1 }`
/// fires once, on the 50th such frame.
///
/// ```
/// use std::time::Duration;
/// use polyclob_sim::{Faults, Trigger, WsChannel, WsFault, WsRule};
///
/// let f = Faults::none()
///     // PolyBolt closes with 4002 (slow consumer) on its 50th frame.
///     .ws(WsRule::new(Trigger::Window { first: 50, count: 1 }, WsFault::Close(4002))
///         .channel(WsChannel::PolyBolt))
///     // One account's user channel is cut on every 20th frame it is sent.
///     .ws(WsRule::new(Trigger::EveryNth(20), WsFault::Disconnect)
///         .channel(WsChannel::User)
///         .account("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
/// # let _ = f;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WsRule {
    trigger: Trigger,
    fault: WsFault,
    channel: Option<WsChannel>,
    account: Option<String>,
    market: Option<String>,
}

impl WsRule {
    /// Applies `fault` whenever `trigger` fires, counting every frame of every connection.
    #[must_use]
    pub fn new(trigger: Trigger, fault: WsFault) -> Self {
        Self {
            trigger,
            fault,
            channel: None,
            account: None,
            market: None,
        }
    }

    /// Applies the rule only to connections of one endpoint. Default is every endpoint.
    #[must_use]
    pub fn channel(mut self, channel: WsChannel) -> Self {
        self.channel = Some(channel);
        self
    }

    /// Applies the rule only to connections authenticated as one account (the user channel
    /// and PolyBolt authenticate with an API key): `account` is its address (any case) or
    /// the API key. Default is every connection, authenticated or not.
    #[must_use]
    pub fn account(mut self, account: impl Into<String>) -> Self {
        self.account = Some(account.into().to_ascii_lowercase());
        self
    }

    /// Applies the rule only to frames about one market: `id` is its condition id (both
    /// tokens) or one token id. Market-channel frames name their asset, user-channel frames
    /// their market; other frames (`PONG`, acknowledgements, RTDS, PolyBolt, sports) name
    /// none and are not counted. Default is every frame.
    #[must_use]
    pub fn market(mut self, id: impl Into<String>) -> Self {
        self.market = Some(id.into().to_ascii_lowercase());
        self
    }

    fn applies(&self, frame: &WsFrame<'_>, ids: &[String]) -> bool {
        if self.channel.is_some_and(|c| c != frame.channel) {
            return false;
        }
        if let Some(a) = &self.account {
            let ok = frame.account.is_some_and(|(address, key)| {
                address.eq_ignore_ascii_case(a) || key.eq_ignore_ascii_case(a)
            });
            if !ok {
                return false;
            }
        }
        if self.market.is_some() {
            let named = |id: &str| ids.iter().any(|m| m.eq_ignore_ascii_case(id));
            let ok = match frame.about {
                About::Nothing => false,
                About::Assets(assets) => assets.iter().any(|a| named(a)),
                About::Market(m) | About::Trade { market: m, .. } => named(m),
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// What an outbound frame is about, for the market filter of a [`WsRule`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum About<'a> {
    Nothing,
    /// Market channel: the assets (token ids) the frame carries.
    Assets(&'a [String]),
    /// User channel: the condition id of the event.
    Market(&'a str),
    /// User channel: a trade message (`id`, `status`) about a market (its condition id).
    Trade {
        market: &'a str,
        id: &'a str,
        status: &'a str,
        text: &'a Utf8Bytes,
    },
}

/// What the WS fault rules see of an outbound frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WsFrame<'a> {
    pub(crate) channel: WsChannel,
    /// The connection's account: (lowercase address, API key).
    pub(crate) account: Option<(&'a str, &'a str)>,
    pub(crate) about: About<'a>,
}

/// A fault configuration. Start from [`Faults::none`] and add what you need.
///
/// ```
/// use std::time::Duration;
/// use polyclob_sim::{Faults, HttpFault, HttpRule, Trigger, WsFault, WsRule};
///
/// let faults = Faults::none()
///     .latency(Duration::from_millis(5))
///     .http(HttpRule::new(Trigger::EveryNth(10), HttpFault::RateLimited { retry_after: Duration::from_secs(1) }))
///     .ws(WsRule::new(Trigger::EveryNth(100), WsFault::Disconnect));
/// # let _ = faults;
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Faults {
    latency: Duration,
    jitter: Duration,
    http: Vec<HttpRule>,
    ws: Vec<WsRule>,
}

impl Faults {
    /// No faults at all (the default).
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// Adds a fixed delay before every HTTP response. Default is zero.
    #[must_use]
    pub fn latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// Adds a uniformly random extra delay in `0..=jitter` (seeded). Default is zero.
    #[must_use]
    pub fn jitter(mut self, jitter: Duration) -> Self {
        self.jitter = jitter;
        self
    }

    /// Adds an HTTP fault rule; rules are checked in the order added, first match wins.
    #[must_use]
    pub fn http(mut self, rule: HttpRule) -> Self {
        self.http.push(rule);
        self
    }

    /// Adds a WebSocket fault rule; rules are checked in the order added, first match wins
    /// (every rule that applies to a frame counts it).
    #[must_use]
    pub fn ws(mut self, rule: WsRule) -> Self {
        self.ws.push(rule);
        self
    }

    /// The markets the WS rules name.
    pub(crate) fn ws_markets(&self) -> impl Iterator<Item = &str> {
        self.ws.iter().filter_map(|r| r.market.as_deref())
    }
}

/// What to do with one outbound WS frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WsAction {
    Send,
    /// Drop the frame and stay silent until the instant.
    SilenceUntil(Instant),
    /// Write nothing for this long, then send the frame.
    Stall(Duration),
    Disconnect,
    Close(u16),
    /// Send the frame malformed ([`WsFault::MalformedTrade`]).
    Corrupt,
}

/// Trades kept per account for [`WsFault::ReplayHistory`] and [`WsFault::StaleStatus`].
const HISTORY_TRADES: usize = 256;

/// A trade's messages as sent to one account: its condition id and each status's message,
/// in the order first sent.
#[derive(Debug)]
struct PastTrade {
    id: String,
    market: String,
    sent: Vec<(String, Utf8Bytes)>,
}

/// The trade messages sent on the user channel, per account (lowercase address), the last
/// [`HISTORY_TRADES`] trades of each: what a replay rule sends again.
#[derive(Debug, Default)]
struct History(HashMap<String, VecDeque<PastTrade>>);

impl History {
    fn record(&mut self, user: &str, market: &str, id: &str, status: &str, text: &Utf8Bytes) {
        let trades = self.0.entry(user.to_ascii_lowercase()).or_default();
        match trades.iter_mut().rev().find(|t| t.id == id) {
            Some(t) => {
                if !t.sent.iter().any(|(s, _)| s == status) {
                    t.sent.push((status.to_owned(), text.clone()));
                }
            }
            None => {
                trades.push_back(PastTrade {
                    id: id.to_owned(),
                    market: market.to_owned(),
                    sent: vec![(status.to_owned(), text.clone())],
                });
                if trades.len() > HISTORY_TRADES {
                    trades.pop_front();
                }
            }
        }
    }

    /// What `fault` sends `user` again: `(condition id, message)`, oldest trade first.
    fn replay(&self, user: &str, fault: WsFault) -> Vec<(String, Utf8Bytes)> {
        let Some(trades) = self.0.get(&user.to_ascii_lowercase()) else {
            return Vec::new();
        };
        let (n, stale) = match fault {
            WsFault::ReplayHistory { trades } => (trades, false),
            WsFault::StaleStatus { trades } => (trades, true),
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        for t in trades.iter().skip(trades.len().saturating_sub(n)) {
            let sent: &[(String, Utf8Bytes)] = if stale {
                match t.sent.len() {
                    0 | 1 => &[],
                    len => &t.sent[len - 2..len - 1],
                }
            } else {
                &t.sent
            };
            out.extend(sent.iter().map(|(_, m)| (t.market.clone(), m.clone())));
        }
        out
    }
}

/// The live fault state: configuration plus counters and the PRNG.
#[derive(Debug)]
pub(crate) struct FaultState {
    faults: Faults,
    rng: Rng,
    rule_counts: Vec<u64>,
    /// Per WS rule: the frames it applied to so far.
    ws_counts: Vec<u64>,
    /// Per WS rule with a market: the ids that name that market (its condition id and token
    /// ids, resolved when the rules were installed).
    ws_ids: Vec<Vec<String>>,
    /// The user channel's trade messages, kept only while a replay rule is installed.
    history: Option<History>,
}

impl FaultState {
    /// `ids` resolves a rule's market (a condition or token id) to every id that names it.
    pub(crate) fn new(faults: Faults, seed: u64, ids: impl Fn(&str) -> Vec<String>) -> Self {
        let mut s = Self {
            faults: Faults::none(),
            rng: Rng::new(seed, 2),
            rule_counts: Vec::new(),
            ws_counts: Vec::new(),
            ws_ids: Vec::new(),
            history: None,
        };
        s.set(faults, ids);
        s
    }

    /// Replaces the configuration (counters restart; the PRNG continues).
    pub(crate) fn set(&mut self, faults: Faults, ids: impl Fn(&str) -> Vec<String>) {
        self.rule_counts = vec![0; faults.http.len()];
        self.ws_counts = vec![0; faults.ws.len()];
        self.ws_ids = faults
            .ws
            .iter()
            .map(|r| r.market.as_deref().map(&ids).unwrap_or_default())
            .collect();
        let replays = faults
            .ws
            .iter()
            .any(|r| r.fault.counts() == Counts::Subscribes);
        if !replays {
            self.history = None;
        } else if self.history.is_none() {
            self.history = Some(History::default());
        }
        self.faults = faults;
    }

    pub(crate) fn get(&self) -> Faults {
        self.faults.clone()
    }

    /// Decides the delay and the substitute answer (if any) for a request to `path`.
    pub(crate) fn on_request(&mut self, req: &RequestView<'_>) -> (Duration, Option<HttpFault>) {
        let jitter_ms = self.faults.jitter.as_millis() as u64;
        let extra = if jitter_ms > 0 {
            Duration::from_millis(self.rng.below(jitter_ms + 1))
        } else {
            Duration::ZERO
        };
        let delay = self.faults.latency + extra;
        let mut hit = None;
        for (i, rule) in self.faults.http.iter().enumerate() {
            if !rule.applies(req) {
                continue;
            }
            self.rule_counts[i] += 1;
            if hit.is_none() && rule.trigger.fires(self.rule_counts[i], &mut self.rng) {
                hit = Some(rule.fault);
            }
        }
        (delay, hit)
    }

    /// The first rule (in order) counting `what` that fires for `frame`; every rule counting
    /// `what` that applies to it counts it.
    fn fire(&mut self, what: Counts, frame: &WsFrame<'_>) -> Option<WsFault> {
        let mut hit = None;
        for (i, rule) in self.faults.ws.iter().enumerate() {
            if rule.fault.counts() != what || !rule.applies(frame, &self.ws_ids[i]) {
                continue;
            }
            self.ws_counts[i] += 1;
            if hit.is_none() && rule.trigger.fires(self.ws_counts[i], &mut self.rng) {
                hit = Some(rule.fault);
            }
        }
        hit
    }

    /// The error code PolyBolt answers `op` with, if an [`WsFault::ErrorAck`] rule fires for
    /// it (`frame` says which connection it came on).
    pub(crate) fn on_ws_op(&mut self, frame: &WsFrame<'_>, op: &str) -> Option<&'static str> {
        let op = match op {
            "auth" => "auth",
            "subscribe" => "subscribe",
            "unsubscribe" => "unsubscribe",
            _ => return None,
        };
        match self.fire(Counts::Op(op), frame) {
            Some(WsFault::ErrorAck { code, .. }) => Some(code),
            _ => None,
        }
    }

    /// What a user-channel connection of `frame.account` is sent again as it subscribes, if
    /// a [`WsFault::ReplayHistory`] or [`WsFault::StaleStatus`] rule fires:
    /// `(condition id, message)`.
    pub(crate) fn on_user_subscribe(&mut self, frame: &WsFrame<'_>) -> Vec<(String, Utf8Bytes)> {
        match (
            self.fire(Counts::Subscribes, frame),
            &self.history,
            frame.account,
        ) {
            (Some(fault), Some(h), Some((user, _))) => h.replay(user, fault),
            _ => Vec::new(),
        }
    }

    /// Decides the fate of one outbound frame.
    pub(crate) fn on_ws_frame(&mut self, frame: &WsFrame<'_>) -> WsAction {
        if let About::Trade {
            market,
            id,
            status,
            text,
        } = frame.about
        {
            if let (Some(h), Some((user, _))) = (&mut self.history, frame.account) {
                h.record(user, market, id, status, text);
            }
            if let Some(WsFault::MalformedTrade) = self.fire(Counts::Trades, frame) {
                // The frame rules still count it (it is sent, malformed).
                return match self.fire(Counts::Frames, frame) {
                    None => WsAction::Corrupt,
                    Some(f) => Self::action(f),
                };
            }
        }
        match self.fire(Counts::Frames, frame) {
            Some(f) => Self::action(f),
            None => WsAction::Send,
        }
    }

    fn action(fault: WsFault) -> WsAction {
        match fault {
            WsFault::Disconnect => WsAction::Disconnect,
            WsFault::Silence(d) => WsAction::SilenceUntil(Instant::now() + d),
            WsFault::Stall(d) => WsAction::Stall(d),
            WsFault::Close(code) => WsAction::Close(code),
            WsFault::ErrorAck { .. }
            | WsFault::ReplayHistory { .. }
            | WsFault::StaleStatus { .. }
            | WsFault::MalformedTrade => WsAction::Send,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_and_window() {
        let mut s = FaultState::new(
            Faults::none()
                .http(HttpRule::new(
                    Trigger::Window { first: 2, count: 2 },
                    HttpFault::TooEarly,
                ))
                .http(
                    HttpRule::new(Trigger::EveryNth(3), HttpFault::Unavailable)
                        .path_prefix("/order"),
                ),
            1,
            |_| Vec::new(),
        );
        let got: Vec<_> = [
            "/book", "/book", "/order", "/order", "/order", "/order", "/order",
        ]
        .iter()
        .map(|p| {
            s.on_request(&RequestView {
                path: p,
                ..RequestView::default()
            })
            .1
        })
        .collect();
        assert_eq!(
            got,
            vec![
                None,
                Some(HttpFault::TooEarly),
                Some(HttpFault::TooEarly),
                None,
                Some(HttpFault::Unavailable),
                None,
                None
            ]
        );
    }

    #[test]
    fn probability_is_deterministic_per_seed() {
        let run = |seed| {
            let mut s = FaultState::new(
                Faults::none().http(HttpRule::new(
                    Trigger::Probability(0.3),
                    HttpFault::TooEarly,
                )),
                seed,
                |_| Vec::new(),
            );
            (0..200)
                .map(|_| {
                    s.on_request(&RequestView {
                        path: "/",
                        ..RequestView::default()
                    })
                    .1
                    .is_some()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(4), run(4));
        assert_ne!(run(4), run(5));
        let hits = run(4).iter().filter(|h| **h).count();
        assert!((30..90).contains(&hits), "{hits}");
    }

    #[test]
    fn ws_rules_count_the_frames_they_apply_to() {
        let ids = |id: &str| match id {
            "0xc1" => vec!["0xc1".to_owned(), "11".to_owned(), "12".to_owned()],
            other => vec![other.to_owned()],
        };
        let mut s = FaultState::new(
            Faults::none()
                .ws(WsRule::new(Trigger::EveryNth(2), WsFault::Disconnect)
                    .channel(WsChannel::User)
                    .account("0xAA"))
                .ws(WsRule::new(
                    Trigger::Window { first: 1, count: 1 },
                    WsFault::Silence(Duration::from_secs(1)),
                )
                .market("0xC1"))
                .ws(WsRule::new(Trigger::EveryNth(3), WsFault::Close(4002))
                    .channel(WsChannel::PolyBolt)),
            0,
            ids,
        );
        let user = |account, market| WsFrame {
            channel: WsChannel::User,
            account: Some((account, "key")),
            about: About::Market(market),
        };
        // Another account's frames do not count for the first rule.
        assert_eq!(s.on_ws_frame(&user("0xbb", "0xc2")), WsAction::Send);
        assert_eq!(s.on_ws_frame(&user("0xaa", "0xc2")), WsAction::Send);
        assert_eq!(s.on_ws_frame(&user("0xbb", "0xc2")), WsAction::Send);
        assert_eq!(s.on_ws_frame(&user("0xaa", "0xc2")), WsAction::Disconnect);
        // A market-channel frame of token 12 is about market 0xc1; token 13 is not.
        let other = ["13".to_owned()];
        let market = |assets| WsFrame {
            channel: WsChannel::Market,
            account: None,
            about: About::Assets(assets),
        };
        assert_eq!(s.on_ws_frame(&market(&other)), WsAction::Send);
        let ours = ["12".to_owned()];
        assert!(matches!(
            s.on_ws_frame(&market(&ours)),
            WsAction::SilenceUntil(_)
        ));
        assert_eq!(s.on_ws_frame(&market(&ours)), WsAction::Send);
        let bolt = WsFrame {
            channel: WsChannel::PolyBolt,
            account: None,
            about: About::Nothing,
        };
        let got: Vec<_> = (0..3).map(|_| s.on_ws_frame(&bolt)).collect();
        assert_eq!(got[2], WsAction::Close(4002));
        assert!(got[..2].iter().all(|a| *a == WsAction::Send));
    }

    /// An error-ack rule counts its ops, not frames; frame rules do not count ops.
    #[test]
    fn error_ack_rules_count_ops() {
        let unavailable = WsFault::ErrorAck {
            op: "auth",
            code: "auth_unavailable",
        };
        let mut s =
            FaultState::new(
                Faults::none()
                    .ws(
                        WsRule::new(Trigger::Window { first: 1, count: 2 }, unavailable)
                            .channel(WsChannel::PolyBolt),
                    )
                    .ws(WsRule::new(
                        Trigger::Window { first: 2, count: 1 },
                        WsFault::ErrorAck {
                            op: "subscribe",
                            code: "bad_filter",
                        },
                    ))
                    .ws(WsRule::new(Trigger::EveryNth(1), WsFault::Disconnect)
                        .channel(WsChannel::Rtds)),
                0,
                |_| Vec::new(),
            );
        let bolt = WsFrame {
            channel: WsChannel::PolyBolt,
            account: None,
            about: About::Nothing,
        };
        // Frames do not move the op rules' counters.
        for _ in 0..5 {
            assert_eq!(s.on_ws_frame(&bolt), WsAction::Send);
        }
        let auths: Vec<_> = (0..3).map(|_| s.on_ws_op(&bolt, "auth")).collect();
        assert_eq!(
            auths,
            [Some("auth_unavailable"), Some("auth_unavailable"), None]
        );
        let subs: Vec<_> = (0..3).map(|_| s.on_ws_op(&bolt, "subscribe")).collect();
        assert_eq!(subs, [None, Some("bad_filter"), None]);
        assert_eq!(s.on_ws_op(&bolt, "ping"), None);
        // Ops do not move the frame rules' counters either.
        let rtds = WsFrame {
            channel: WsChannel::Rtds,
            ..bolt
        };
        assert_eq!(s.on_ws_frame(&rtds), WsAction::Disconnect);
        assert_eq!(
            HttpFault::Overloaded {
                retry_after: Duration::from_secs(2)
            }
            .retry_after(),
            Some(Duration::from_secs(2))
        );
    }

    /// The user channel's rules: trade messages are kept per account only while a replay
    /// rule is installed, replayed or made stale as a connection subscribes, and a malformed
    /// trade is counted over trade messages only.
    #[test]
    fn user_channel_rules() {
        let mut s = FaultState::new(
            Faults::none()
                .ws(WsRule::new(
                    Trigger::Window { first: 2, count: 1 },
                    WsFault::ReplayHistory { trades: 2 },
                ))
                .ws(WsRule::new(
                    Trigger::Window { first: 3, count: 1 },
                    WsFault::StaleStatus { trades: 5 },
                ))
                .ws(WsRule::new(
                    Trigger::Window { first: 2, count: 1 },
                    WsFault::MalformedTrade,
                )
                .channel(WsChannel::User)),
            0,
            |_| Vec::new(),
        );
        let order = WsFrame {
            channel: WsChannel::User,
            account: Some(("0xAA", "key")),
            about: About::Market("0xc1"),
        };
        let texts: Vec<Utf8Bytes> = (0..6).map(|i| format!("m{i}").into()).collect();
        let mut send = |id, status, i: usize| {
            s.on_ws_frame(&WsFrame {
                about: About::Trade {
                    market: "0xc1",
                    id,
                    status,
                    text: &texts[i],
                },
                ..order
            })
        };
        // Trade messages count for the malformed rule; an order message does not.
        assert_eq!(send("t1", "MATCHED", 0), WsAction::Send);
        assert_eq!(send("t1", "MINED", 1), WsAction::Corrupt);
        assert_eq!(send("t1", "MINED", 1), WsAction::Send); // kept once
        assert_eq!(send("t2", "MATCHED", 2), WsAction::Send);
        assert_eq!(send("t1", "CONFIRMED", 3), WsAction::Send);
        assert_eq!(send("t3", "MATCHED", 4), WsAction::Send);
        assert_eq!(s.on_ws_frame(&order), WsAction::Send);
        let sub = |s: &mut FaultState, account| {
            s.on_user_subscribe(&WsFrame {
                account: Some((account, "key")),
                ..order
            })
            .into_iter()
            .map(|(m, t)| format!("{m}:{t}"))
            .collect::<Vec<_>>()
        };
        // First subscription: no rule fires. Second: the last two trades' history.
        assert!(sub(&mut s, "0xaa").is_empty());
        assert_eq!(sub(&mut s, "0xaa"), ["0xc1:m2", "0xc1:m4"]);
        // Third: each trade's status before its latest (only t1 changed), for the account
        // in any case; another account has no history.
        assert_eq!(sub(&mut s, "0xAa"), ["0xc1:m1"]);
        assert!(sub(&mut s, "0xbb").is_empty());
        // Without a replay rule nothing is kept.
        s.set(Faults::none(), |_| Vec::new());
        assert!(s.history.is_none());
    }

    #[test]
    fn history_is_bounded_per_account() {
        let mut h = History::default();
        let text: Utf8Bytes = "m".into();
        for i in 0..HISTORY_TRADES + 10 {
            h.record("0xaa", "0xc1", &format!("t{i}"), "MATCHED", &text);
        }
        let kept = &h.0["0xaa"];
        assert_eq!(kept.len(), HISTORY_TRADES);
        assert_eq!(kept.front().map(|t| t.id.as_str()), Some("t10"));
        let all = h.replay("0xaa", WsFault::ReplayHistory { trades: usize::MAX });
        assert_eq!(all.len(), HISTORY_TRADES);
    }
}
