//! The user channel's recovery after a break: what the socket did not deliver is fetched over
//! REST and delivered as ordinary events marked `recovered`, before live events resume.
//!
//! The user channel does not replay what happened while a client was away ([user channel]).
//! [`reconcile`](crate::ws::feed::FeedBuilder::reconcile) on the user feed closes the hole. After
//! every break (a disconnect, a failed connect, local lag, a `trade` element that did not
//! decode, a market added on the open socket) the feed:
//!
//! 1. delivers the [`Break`](crate::ws::continuity::Break); from here on, what the bot derived from
//!    the channel is **untrusted**;
//! 2. waits for the next connection (or keeps the open one), then [`settle`](Reconcile::settle)
//!    more, so that the server has applied the subscription (anything matched from then on
//!    arrives live);
//! 3. fetches the open orders (`GET /data/orders`) and then the trades matched since the newest
//!    trade it delivered, less five minutes (`GET /data/trades?after=`), every page with the
//!    client's page walker and through the client's read pacing (its rate budget);
//! 4. delivers, marked `recovered`: each trade of the stream's markets it had not delivered
//!    (or whose status moved on, as on the live path), oldest first; then each open order
//!    ([`OrderEventKind::Open`](super::user_events::OrderEventKind::Open): its state at the
//!    fetch, not a change); then one [`UserEvent::Reconciled`](super::user_events::UserEvent::Reconciled).
//!    From that marker on the data is trusted again: an order the bot thinks open that was not
//!    among the recovered open orders is no longer open (filled, as the recovered trades show,
//!    or cancelled / expired);
//! 5. only then delivers the live events that arrived meanwhile (held in memory, in order),
//!    and after them the live stream. A trade status is never delivered twice nor backwards:
//!    recovered, held and live trades pass one filter by trade id. A held order event whose
//!    `size_matched` is below its recovered open order's predates the REST snapshot and is not
//!    delivered.
//!
//! Track fills by the orders' `size_matched` and the trades' `taker_order_id` /
//! `maker_fills[].order_id`; the orders' `associate_trades` is not used (deprecated by the
//! exchange from 2026-12-14).
//!
//! A failed fetch is reported as [`UserEvent::ReconcileFailed`](super::user_events::UserEvent::ReconcileFailed)
//! and retried with backoff (honouring `Retry-After`); an authentication or argument error is
//! not retried (`retry_in: None`): the held events are then delivered and the data stays
//! untrusted.
//!
//! Before the first trade is delivered, "since" is the moment reconciliation was switched on,
//! by the local clock; so the first reconciliation may also deliver trades matched up to
//! five minutes before the stream started.
//!
//! [user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::clob::types::{OpenOrder, Trade};
use crate::clob::{Client, OrderFilter, TradeFilter};
use crate::http::SkippedRow;
use crate::ws::backoff::{self, Backoff, Jitter};
use crate::ws::event::Status;

/// How far before the newest delivered trade the trade fetch starts: trades matched in the
/// same second, a skew between the local and the exchange's clock, and the settlement status
/// changes (`FAILED`, `RETRYING`) of recent trades are all covered. Trades already delivered
/// are not delivered again.
const LOOKBACK: Duration = Duration::from_secs(300);

/// First delay after a failed fetch; doubles up to [`RETRY_MAX`].
const RETRY_INITIAL: Duration = Duration::from_secs(1);
/// Longest delay between fetch attempts.
const RETRY_MAX: Duration = Duration::from_secs(30);

/// How the user channel recovers after a break: the REST client to fetch with and the
/// markets to keep. See the [module docs](self).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::account::reconcile::Reconcile;
/// use polyclob::account::user_events::{UserEvent, UserStream};
/// use polyclob::clob::{Client, Credentials};
/// use polyclob::ws::feed::FeedEvent;
///
/// let client = Client::builder()
///     .signer(polyclob::sign::Signer::from_hex("0x…")?)
///     .credentials(Credentials::new("key", "secret", "pass"))
///     .build()?;
/// let mut events = UserStream::builder(Credentials::new("key", "secret", "pass"))
///     .reconcile(Reconcile::new(client))
///     .build()?;
/// while let Some(ev) = events.next().await {
///     match ev {
///         FeedEvent::Message(UserEvent::Trade(t)) => println!("fill {} (recovered: {})", t.id, t.recovered),
///         FeedEvent::Break(b) => println!("{b}: untrusted until Reconciled"),
///         FeedEvent::Message(UserEvent::Reconciled(r)) => println!("trusted again: {} missed trades", r.trades),
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Reconcile {
    client: Client,
    settle: Duration,
}

impl Reconcile {
    /// Reconciles with `client`, which needs L2 credentials of the same account as the
    /// stream's.
    #[must_use]
    pub fn new(client: Client) -> Self {
        Self {
            client,
            settle: Duration::from_millis(500),
        }
    }

    /// How long after a reconnect the fetch waits, so that the server has applied the new
    /// subscription before the REST snapshot is taken. Default is 500 ms.
    #[must_use]
    pub fn settle(mut self, delay: Duration) -> Self {
        self.settle = delay;
        self
    }
}

/// What one reconciliation delivered: the [`UserEvent::Reconciled`](super::user_events::UserEvent::Reconciled)
/// marker after the recovered events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconciled {
    /// The connection the live events resume on.
    pub shard: usize,
    /// Open orders delivered (every open order of the kept markets at the fetch).
    pub orders: usize,
    /// Missed trades delivered.
    pub trades: usize,
    /// Rows of the REST pages that did not decode (or lacked a side), with the reason: their
    /// fills are not among the recovered events.
    pub skipped: Vec<SkippedRow>,
}

/// What the REST fetch returned.
pub(super) struct Fetched {
    pub(super) orders: Vec<OpenOrder>,
    pub(super) trades: Vec<Trade>,
    pub(super) skipped: Vec<SkippedRow>,
}

/// What [`Reconciler::poll`] reports.
pub(super) enum Outcome {
    /// The fetch succeeded: deliver it, then the held events.
    Done { shard: usize, fetched: Fetched },
    /// The fetch failed; `retry_in: None` means it is not retried.
    Failed {
        shard: usize,
        error: String,
        retry_in: Option<Duration>,
    },
}

type FetchFuture = Pin<Box<dyn Future<Output = Result<Fetched, crate::http::Error>> + Send>>;

enum Phase {
    /// Nothing owed: events are delivered as they come.
    Live,
    /// A break happened: waiting for a connection.
    Broken,
    /// Connected: waiting for the subscription to take effect.
    Settling(Pin<Box<tokio::time::Sleep>>),
    /// Fetching over REST.
    Fetching(FetchFuture),
    /// Waiting to retry a failed fetch.
    Retrying(Pin<Box<tokio::time::Sleep>>),
}

/// The reconciliation state of one user feed.
pub(super) struct Reconciler {
    cfg: Reconcile,
    /// Match time (exchange unix seconds) of the newest delivered trade, or the start.
    watermark: u64,
    phase: Phase,
    /// The connection the fetch is for.
    shard: usize,
    backoff: Backoff,
}

impl fmt::Debug for Reconciler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let phase = match self.phase {
            Phase::Live => "live",
            Phase::Broken => "broken",
            Phase::Settling(_) => "settling",
            Phase::Fetching(_) => "fetching",
            Phase::Retrying(_) => "retrying",
        };
        f.debug_struct("Reconciler")
            .field("cfg", &self.cfg)
            .field("watermark", &self.watermark)
            .field("phase", &phase)
            .finish_non_exhaustive()
    }
}

impl Reconciler {
    pub(super) fn new(cfg: Reconcile) -> Self {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Self {
            cfg,
            watermark: now,
            phase: Phase::Live,
            shard: 0,
            backoff: Backoff::new(
                RETRY_INITIAL,
                RETRY_MAX,
                Jitter::Equal,
                backoff::entropy_seed(),
            ),
        }
    }

    /// Whether live frames must be held (a break is not reconciled yet).
    pub(super) fn holding(&self) -> bool {
        !matches!(self.phase, Phase::Live)
    }

    /// A trade matched at `match_time` was delivered (the watermark is in seconds whatever
    /// unit the frame used: a millisecond `matchtime` read as seconds would move the catch-up's
    /// `after` millennia ahead and it would find nothing).
    pub(super) fn delivered(&mut self, match_time: Option<crate::types::Timestamp>) {
        if let Some(t) = match_time {
            self.watermark = self.watermark.max(t.as_secs());
        }
    }

    /// A status of the stream: a break starts a reconciliation, a connection after a break
    /// starts its settle timer.
    pub(super) fn on_status(&mut self, status: &Status) {
        match status {
            Status::Connected { shard, .. } => {
                if matches!(self.phase, Phase::Broken) {
                    self.shard = *shard;
                    self.phase = Phase::Settling(Box::pin(tokio::time::sleep(self.cfg.settle)));
                }
            }
            // Whatever was in flight is superseded: fetch again after the next connect.
            Status::Disconnected { .. } | Status::Lagged { .. } | Status::Stopped { .. } => {
                self.phase = Phase::Broken;
            }
        }
    }

    /// Fetch again on the open connection `shard` (a `trade` element that did not decode, a
    /// market added): live frames are held from now on.
    pub(super) fn refetch(&mut self, shard: usize) {
        if matches!(self.phase, Phase::Live) {
            self.shard = shard;
            self.phase = Phase::Settling(Box::pin(tokio::time::sleep(self.cfg.settle)));
        }
    }

    fn start_fetch(&mut self) {
        let client = self.cfg.client.clone();
        let after = self.watermark.saturating_sub(LOOKBACK.as_secs());
        self.phase = Phase::Fetching(Box::pin(async move {
            // Orders first: a fill between the two requests is then in the trades.
            let (orders, mut skipped) = client.all_orders(&OrderFilter::default()).await?;
            let filter = TradeFilter {
                after: Some(after),
                ..TradeFilter::default()
            };
            let (trades, more) = client.all_trades(&filter).await?;
            skipped.extend(more);
            Ok(Fetched {
                orders,
                trades,
                skipped,
            })
        }));
    }

    /// Drives the settle timer, the fetch and the retry timer.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Outcome> {
        loop {
            match &mut self.phase {
                Phase::Live | Phase::Broken => return Poll::Pending,
                Phase::Settling(sleep) | Phase::Retrying(sleep) => {
                    if sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    self.start_fetch();
                }
                Phase::Fetching(fut) => {
                    let result = match fut.as_mut().poll(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(r) => r,
                    };
                    let shard = self.shard;
                    return Poll::Ready(match result {
                        Ok(fetched) => {
                            self.phase = Phase::Live;
                            self.backoff.reset();
                            Outcome::Done { shard, fetched }
                        }
                        Err(e) if e.is_auth() || e.is_argument() => {
                            self.phase = Phase::Live;
                            Outcome::Failed {
                                shard,
                                error: e.to_string(),
                                retry_in: None,
                            }
                        }
                        Err(e) => {
                            let delay = self
                                .backoff
                                .next_delay()
                                .max(e.retry_after().unwrap_or_default());
                            self.phase = Phase::Retrying(Box::pin(tokio::time::sleep(delay)));
                            Outcome::Failed {
                                shard,
                                error: e.to_string(),
                                retry_in: Some(delay),
                            }
                        }
                    });
                }
            }
        }
    }
}
