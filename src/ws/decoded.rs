//! Any stream's frames decoded into owned events: the convenient, allocating tier.
//!
//! For the user channel (orders and trades) and for market consumers that keep events past
//! the frame. The zero-copy tier is a [`Handler`](super::event::Handler) calling
//! [`decode`](crate::decode::decode) on the borrowed frame.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;

use super::event::{Event, Status};
use crate::decode::{DecodeError, EventView as Decoded, OwnedEvent, decode_bytes};

/// An item of a [`DecodedStream`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodedEvent {
    /// One element of a frame (arrays are split into their elements).
    Event {
        /// Connection the frame came from.
        shard: usize,
        /// The element; [`OwnedEvent::event`] gives the typed view.
        event: OwnedEvent,
    },
    /// An element (or a whole non-UTF-8 frame) that could not be decoded. The other
    /// elements of the frame are still delivered.
    Invalid {
        /// Connection the frame came from.
        shard: usize,
        /// Why.
        error: DecodeError,
    },
    /// A connection status change.
    Status(Status),
}

/// Wraps a [`MarketStream`](super::market::MarketStream) or
/// [`UserStream`](super::user::UserStream) and yields decoded, owned events.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::decode::EventView;
/// use polyclob::ws::decoded::{DecodedEvent, DecodedStream};
/// use polyclob::{clob::Credentials, ws::user::UserStream};
///
/// let user = UserStream::builder(Credentials::new("key", "secret", "pass")).build()?;
/// let mut events = DecodedStream::new(user);
/// while let Some(item) = events.next().await {
///     if let DecodedEvent::Event { event, .. } = item {
///         if let Ok(EventView::Trade(t)) = event.event() {
///             println!("trade {} {:?}", t.id, t.status);
///         }
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct DecodedStream<S> {
    inner: S,
    pending: VecDeque<DecodedEvent>,
}

impl<S> DecodedStream<S> {
    /// Decode the frames of `inner`.
    #[must_use]
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: VecDeque::new(),
        }
    }

    /// The wrapped stream (e.g. to change subscriptions).
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped stream, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The wrapped stream (events not yet yielded are dropped).
    pub fn into_inner(self) -> S {
        self.inner
    }
}

fn split(pending: &mut VecDeque<DecodedEvent>, ev: Event) {
    match ev {
        Event::Frame(f) => {
            let shard = f.shard();
            match decode_bytes(f.as_bytes()) {
                Ok(events) => {
                    for r in events {
                        pending.push_back(match r {
                            Ok(Decoded::Pong) => continue,
                            Ok(e) => DecodedEvent::Event {
                                shard,
                                event: e.to_owned_event(),
                            },
                            Err(error) => DecodedEvent::Invalid { shard, error },
                        });
                    }
                }
                Err(error) => pending.push_back(DecodedEvent::Invalid { shard, error }),
            }
        }
        Event::Status(s) => pending.push_back(DecodedEvent::Status(s)),
    }
}

impl<S: Stream<Item = Event> + Unpin> Stream for DecodedStream<S> {
    type Item = DecodedEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<DecodedEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(ev) = this.pending.pop_front() {
                return Poll::Ready(Some(ev));
            }
            match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Ready(Some(ev)) => split(&mut this.pending, ev),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
