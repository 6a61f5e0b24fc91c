//! The market channel: public book and price data for a set of asset (token) ids, sharded
//! over as many connections as needed.
//!
//! Subscriptions use `assets_ids` ([Polymarket market channel]); ids are spread over
//! connections of at most [`MAX_ASSETS_PER_CONNECTION`] each, whose first connects are
//! staggered so a large subscription does not open a burst of sockets at once.
//!
//! [Polymarket market channel]: https://docs.polymarket.com/developers/CLOB/websocket/market-channel

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::sync::mpsc;

use super::connection::ChannelKind;
use super::event::{Event, Handler};
use super::options::{BuildError, Options, common_setters};
use super::shards::{Closed, Dispatcher, Shards, StreamCore};

/// Polymarket's production market-channel endpoint.
pub const MARKET_URL: &str = "wss://ws-subscriptions-clob.polymarket.com/ws/market";

/// The most asset ids one connection carries. Larger subscriptions are sharded.
pub const MAX_ASSETS_PER_CONNECTION: usize = 200;

/// Builder of a [`MarketStream`].
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::ws::market::MarketStream;
///
/// let mut stream = MarketStream::builder()
///     .assets(["71321045679252212594626385532706912750332728571942532289631379312455583992563"])
///     .build()?;
/// while let Some(event) = stream.next().await {
///     println!("{event:?}");
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct MarketStreamBuilder {
    opts: Options,
    assets: Vec<String>,
    custom_feature_enabled: bool,
    initial_dump: bool,
    per_connection: usize,
    stagger: Duration,
}

impl MarketStreamBuilder {
    common_setters!();

    /// Asset ids to subscribe at start. More can be added later with
    /// [`MarketStream::subscribe`]. Default is none.
    #[must_use]
    pub fn assets<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.assets.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Request the `best_bid_ask`, `new_market` and `market_resolved` events. Default is `true`.
    #[must_use]
    pub fn custom_feature_enabled(mut self, on: bool) -> Self {
        self.custom_feature_enabled = on;
        self
    }

    /// Ask for a `book` snapshot of every asset on subscribe. Default is `true` (books
    /// need it to start, and to restart after a reconnect).
    #[must_use]
    pub fn initial_dump(mut self, on: bool) -> Self {
        self.initial_dump = on;
        self
    }

    /// Asset ids per connection, capped at [`MAX_ASSETS_PER_CONNECTION`]. Default is 200.
    #[must_use]
    pub fn assets_per_connection(mut self, n: usize) -> Self {
        self.per_connection = n.clamp(1, MAX_ASSETS_PER_CONNECTION);
        self
    }

    /// Delay between the first connects of successive shards. Default is 250 ms.
    #[must_use]
    pub fn connect_stagger(mut self, delay: Duration) -> Self {
        self.stagger = delay;
        self
    }

    /// Start the connections (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, or when called outside a runtime.
    pub fn build(self) -> Result<MarketStream, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let kind = ChannelKind::Market {
            custom_feature_enabled: self.custom_feature_enabled,
            initial_dump: self.initial_dump,
        };
        let (cfg, capacity, busy_poll) = self.opts.into_config(kind)?;
        let (tx, rx) = mpsc::channel(capacity);
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            self.per_connection,
            self.stagger,
        ));
        shards
            .subscribe(self.assets)
            .map_err(|_| BuildError::NoRuntime)?;
        Ok(MarketStream {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
        })
    }
}

/// Live market-channel data for a changing set of assets.
///
/// Deliver with the zero-copy [`dispatch`](Self::dispatch)/[`run`](Self::run) and a
/// [`Handler`], or poll it as a `Stream` of owned [`Event`]s. Subscriptions can be
/// changed from anywhere through a [`MarketHandle`].
#[derive(Debug)]
pub struct MarketStream {
    core: StreamCore,
}

impl MarketStream {
    /// A builder with the defaults listed on each setter.
    #[must_use]
    pub fn builder() -> MarketStreamBuilder {
        MarketStreamBuilder {
            opts: Options::new(MARKET_URL),
            assets: Vec::new(),
            custom_feature_enabled: true,
            initial_dump: true,
            per_connection: MAX_ASSETS_PER_CONNECTION,
            stagger: Duration::from_millis(250),
        }
    }

    /// A cloneable handle for subscription changes.
    #[must_use]
    pub fn handle(&self) -> MarketHandle {
        MarketHandle {
            shards: Arc::clone(&self.core.shards),
        }
    }

    /// Subscribe to more assets (ids already subscribed are ignored).
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](MarketHandle::shutdown).
    pub fn subscribe<I, S>(&self, ids: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core.shards.subscribe(ids.into_iter().map(Into::into))
    }

    /// Unsubscribe from assets (unknown ids are ignored).
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](MarketHandle::shutdown).
    pub fn unsubscribe<I, S>(&self, ids: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core
            .shards
            .unsubscribe(ids.into_iter().map(Into::into))
    }

    /// Deliver the next frame or status change to `handler`, borrowing the frame.
    /// Returns `false` once the stream has shut down.
    pub async fn dispatch<H: Handler + ?Sized>(&mut self, handler: &mut H) -> bool {
        self.core.dispatcher.dispatch(handler).await
    }

    /// [`dispatch`](Self::dispatch) until the stream shuts down.
    pub async fn run<H: Handler + ?Sized>(&mut self, handler: &mut H) {
        while self.dispatch(handler).await {}
    }

    /// This stream's counters: connects, breaks, frames, bytes, … (see
    /// [`StreamCounters`](crate::ws::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.core.shards.counters()
    }

    /// The next owned event (`None` once shut down). Equivalent to `StreamExt::next`.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.core.dispatcher.next_event().await
    }
}

impl Stream for MarketStream {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        Pin::new(&mut self.get_mut().core).poll_next(cx)
    }
}

/// A cloneable handle to change a [`MarketStream`]'s subscriptions from other tasks.
#[derive(Debug, Clone)]
pub struct MarketHandle {
    shards: Arc<Shards>,
}

impl MarketHandle {
    /// See [`MarketStream::subscribe`].
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn subscribe<I, S>(&self, ids: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.shards.subscribe(ids.into_iter().map(Into::into))
    }

    /// See [`MarketStream::unsubscribe`].
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn unsubscribe<I, S>(&self, ids: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.shards.unsubscribe(ids.into_iter().map(Into::into))
    }

    /// Reconnect one shard (or all with `None`) now, e.g. to force fresh snapshots.
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn reconnect(&self, shard: Option<usize>) -> Result<(), Closed> {
        self.shards.reconnect(shard)
    }

    /// Close all connections; the stream then ends.
    pub fn shutdown(&self) {
        self.shards.shutdown();
    }

    /// Connections opened so far.
    #[must_use]
    pub fn shard_count(&self) -> usize {
        self.shards.shard_count()
    }

    /// See [`MarketStream::counters`].
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.shards.counters()
    }

    /// The cells behind the counters (for the book streams).
    pub(crate) fn counter_cells(&self) -> &crate::ws::counters::Counters {
        self.shards.counter_cells()
    }

    /// The asset ids carried by shard `shard` (sorted; empty for an unknown shard).
    #[must_use]
    pub fn shard_assets(&self, shard: usize) -> Vec<String> {
        self.shards.ids_of(shard)
    }

    /// The asset ids carried by each shard (sorted), in shard order.
    #[must_use]
    pub fn assignment(&self) -> Vec<Vec<String>> {
        self.shards.assignment()
    }
}
