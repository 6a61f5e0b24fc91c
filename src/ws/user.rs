//! The user channel: the account's `order` and `trade` events, authenticated with L2 API
//! credentials and optionally filtered by market (condition id).
//!
//! The channel does not replay what happened while disconnected ([Polymarket user
//! channel]); wrap the stream in [`UserEvents`](crate::account::user_events::UserEvents) with
//! [`reconcile`](crate::account::user_events::UserEvents::reconcile) to have what was missed fetched
//! over REST and delivered after every break ([`reconcile`](crate::account::reconcile)).
//!
//! [Polymarket user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel

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
use crate::clob::Credentials;

/// Polymarket's production user-channel endpoint.
pub const USER_URL: &str = "wss://ws-subscriptions-clob.polymarket.com/ws/user";

/// Builder of a [`UserStream`].
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use polyclob::{clob::Credentials, ws::user::UserStream};
///
/// let stream = UserStream::builder(Credentials::new("key", "secret", "passphrase"))
///     .markets(["0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af"])
///     .build()?;
/// # drop(stream); Ok(()) }
/// ```
#[derive(Debug)]
pub struct UserStreamBuilder {
    opts: Options,
    auth: Credentials,
    markets: Vec<String>,
}

impl UserStreamBuilder {
    common_setters!();

    /// Condition ids to receive events for. Default is none, which the exchange treats
    /// as every market of the account.
    #[must_use]
    pub fn markets<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.markets.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Connect (on the current Tokio runtime).
    ///
    /// # Errors
    /// [`BuildError`] for an invalid URL or setting, or when called outside a runtime.
    pub fn build(self) -> Result<UserStream, BuildError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let (cfg, capacity, busy_poll) = self
            .opts
            .into_config(ChannelKind::User { auth: self.auth })?;
        let (tx, rx) = mpsc::channel(capacity);
        let shards = Arc::new(Shards::new(
            Arc::new(cfg),
            tx,
            runtime,
            usize::MAX,
            Duration::ZERO,
        ));
        shards
            .spawn_single(self.markets)
            .map_err(|_| BuildError::NoRuntime)?;
        Ok(UserStream {
            core: StreamCore {
                shards,
                dispatcher: Dispatcher::new(rx, busy_poll),
            },
        })
    }
}

/// The account's live order and trade events.
#[derive(Debug)]
pub struct UserStream {
    core: StreamCore,
}

impl UserStream {
    /// A builder with the given credentials and the defaults listed on each setter.
    #[must_use]
    pub fn builder(auth: Credentials) -> UserStreamBuilder {
        UserStreamBuilder {
            opts: Options::new(USER_URL),
            auth,
            markets: Vec::new(),
        }
    }

    /// Add markets (condition ids) to the filter.
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn subscribe<I, S>(&self, markets: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core
            .shards
            .subscribe(markets.into_iter().map(Into::into))
    }

    /// Remove markets from the filter.
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn unsubscribe<I, S>(&self, markets: I) -> Result<(), Closed>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.core
            .shards
            .unsubscribe(markets.into_iter().map(Into::into))
    }

    /// Reconnect now.
    ///
    /// # Errors
    /// [`Closed`] after [`shutdown`](Self::shutdown).
    pub fn reconnect(&self) -> Result<(), Closed> {
        self.core.shards.reconnect(None)
    }

    /// This stream's counters: connects, breaks, frames, bytes, … (see
    /// [`StreamCounters`](crate::ws::StreamCounters)).
    #[must_use]
    pub fn counters(&self) -> crate::ws::StreamCounters {
        self.core.shards.counters()
    }

    /// Close the connection; the stream then ends.
    pub fn shutdown(&self) {
        self.core.shards.shutdown();
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

    /// The next owned event (`None` once shut down).
    pub async fn next_event(&mut self) -> Option<Event> {
        self.core.dispatcher.next_event().await
    }
}

impl Stream for UserStream {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        Pin::new(&mut self.get_mut().core).poll_next(cx)
    }
}
