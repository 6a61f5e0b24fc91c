//! Fault injection: added latency, `425`/`429`/`503` answers, WS disconnects and WS silence,
//! on a schedule or with a probability, all decided by a seeded PRNG so that the same seed and
//! the same request sequence give the same faults.

use std::time::{Duration, Instant};

use super::rng::Rng;

/// When a fault fires, counted over the events it applies to (HTTP requests, or WS frames).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Trigger {
    /// Never (the default).
    Never,
    /// On every `n`-th event (`n`, `2n`, …); `0` means never.
    EveryNth(u64),
    /// On events `first ..= first + count - 1` (1-based), e.g. a burst of 429s.
    Window {
        /// The first event affected (1-based).
        first: u64,
        /// How many consecutive events are affected.
        count: u64,
    },
    /// Independently on each event with this probability (0.0–1.0), from the seeded PRNG.
    Probability(f64),
}

impl Trigger {
    pub(crate) fn fires(self, n: u64, rng: &mut Rng) -> bool {
        match self {
            Self::Never => false,
            Self::EveryNth(k) => k != 0 && n % k == 0,
            Self::Window { first, count } => n >= first && n < first.saturating_add(count),
            Self::Probability(p) => {
                let per_million = (p.clamp(0.0, 1.0) * 1_000_000.0) as u32;
                rng.chance(per_million)
            }
        }
    }
}

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
}

impl HttpFault {
    /// The HTTP status code.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            Self::TooEarly => 425,
            Self::RateLimited { .. } => 429,
            Self::Unavailable => 503,
        }
    }

    /// The `{"error": …}` message.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Self::TooEarly => "Too Early: the matching engine is restarting, retry shortly",
            Self::RateLimited { .. } => "Too Many Requests",
            Self::Unavailable => "Trading is currently disabled. Check polymarket.com for updates",
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

/// A fault configuration. Start from [`Faults::none`] and add what you need.
///
/// ```
/// use std::time::Duration;
/// use polyclob_sim::{Faults, HttpFault, HttpRule, Trigger};
///
/// let faults = Faults::none()
///     .latency(Duration::from_millis(5))
///     .http(HttpRule::new(Trigger::EveryNth(10), HttpFault::RateLimited { retry_after: Duration::from_secs(1) }))
///     .ws_disconnect(Trigger::EveryNth(100));
/// # let _ = faults;
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Faults {
    latency: Duration,
    jitter: Duration,
    http: Vec<HttpRule>,
    ws_disconnect: Option<Trigger>,
    ws_silence: Option<(Trigger, Duration)>,
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

    /// Drops a WS connection abruptly (no close frame) when `trigger` fires, counting the
    /// frames the server is about to send on that connection. Default is never.
    #[must_use]
    pub fn ws_disconnect(mut self, trigger: Trigger) -> Self {
        self.ws_disconnect = Some(trigger);
        self
    }

    /// Makes a WS connection go silent for `duration` when `trigger` fires (counting outbound
    /// frames): the socket stays open but nothing is sent, not even `PONG`; frames due in the
    /// meantime are lost, as on a half-open connection. Default is never.
    #[must_use]
    pub fn ws_silence(mut self, trigger: Trigger, duration: Duration) -> Self {
        self.ws_silence = Some((trigger, duration));
        self
    }
}

/// What to do with one outbound WS frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WsAction {
    Send,
    /// Drop the frame and stay silent until the instant.
    SilenceUntil(Instant),
    Disconnect,
}

/// The live fault state: configuration plus counters and the PRNG.
#[derive(Debug)]
pub(crate) struct FaultState {
    faults: Faults,
    rng: Rng,
    requests: u64,
    rule_counts: Vec<u64>,
}

impl FaultState {
    pub(crate) fn new(faults: Faults, seed: u64) -> Self {
        let rule_counts = vec![0; faults.http.len()];
        Self {
            faults,
            rng: Rng::new(seed, 2),
            requests: 0,
            rule_counts,
        }
    }

    /// Replaces the configuration (counters restart; the PRNG continues).
    pub(crate) fn set(&mut self, faults: Faults) {
        self.rule_counts = vec![0; faults.http.len()];
        self.requests = 0;
        self.faults = faults;
    }

    pub(crate) fn get(&self) -> Faults {
        self.faults.clone()
    }

    /// Decides the delay and the substitute answer (if any) for a request to `path`.
    pub(crate) fn on_request(&mut self, req: &RequestView<'_>) -> (Duration, Option<HttpFault>) {
        self.requests += 1;
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

    /// Decides the fate of the `n`-th outbound frame (1-based) of a connection.
    pub(crate) fn on_ws_frame(&mut self, n: u64) -> WsAction {
        if let Some(t) = self.faults.ws_disconnect {
            if t.fires(n, &mut self.rng) {
                return WsAction::Disconnect;
            }
        }
        if let Some((t, d)) = self.faults.ws_silence {
            if t.fires(n, &mut self.rng) {
                return WsAction::SilenceUntil(Instant::now() + d);
            }
        }
        WsAction::Send
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
    fn ws_decisions() {
        let mut s = FaultState::new(Faults::none().ws_disconnect(Trigger::EveryNth(3)), 0);
        assert_eq!(s.on_ws_frame(1), WsAction::Send);
        assert_eq!(s.on_ws_frame(3), WsAction::Disconnect);
        let mut s = FaultState::new(
            Faults::none().ws_silence(Trigger::EveryNth(2), Duration::from_secs(1)),
            0,
        );
        assert!(matches!(s.on_ws_frame(2), WsAction::SilenceUntil(_)));
    }
}
