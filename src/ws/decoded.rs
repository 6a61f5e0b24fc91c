//! Any stream's frames decoded into owned events: the convenient, allocating tier.
//!
//! For the user channel (orders and trades) and for market consumers that keep events past
//! the frame. The zero-copy tier is a [`Handler`](super::event::Handler) calling
//! [`decode`](crate::decode::decode) on the borrowed frame. Breaks in continuity are items
//! too ([`DecodedEvent::Break`], see [`continuity`](super::continuity)).

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;

use super::continuity::{Break, StreamKind};
use super::event::{Event, Status};
use super::market::MarketStream;
use super::user::UserStream;
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
    /// A break in continuity, right after the status that reported it: whatever was derived
    /// from the stream is untrusted until re-established (see
    /// [`continuity`](super::continuity)).
    Break(Break),
}

mod sealed {
    /// The CLOB channel streams a [`DecodedStream`](super::DecodedStream) decodes (sealed:
    /// public in name only, so that it can bound the public type).
    #[allow(unreachable_pub)]
    pub trait Sealed {
        /// The stream a break is reported for.
        const KIND: crate::ws::continuity::StreamKind;
    }
}

impl sealed::Sealed for MarketStream {
    const KIND: StreamKind = StreamKind::Market;
}

impl sealed::Sealed for UserStream {
    const KIND: StreamKind = StreamKind::User;
}

/// Wraps a [`MarketStream`] or
/// [`UserStream`] and yields decoded, owned events.
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

impl<S: sealed::Sealed> DecodedStream<S> {
    /// Decode the frames of `inner`.
    #[must_use]
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: VecDeque::new(),
        }
    }
}

impl<S> DecodedStream<S> {
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

fn split(pending: &mut VecDeque<DecodedEvent>, kind: StreamKind, ev: Event) {
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
        Event::Status(s) => {
            let brk = Break::from_status(kind, &s);
            pending.push_back(DecodedEvent::Status(s));
            pending.extend(brk.map(DecodedEvent::Break));
        }
    }
}

impl<S: Stream<Item = Event> + Unpin + sealed::Sealed> Stream for DecodedStream<S> {
    type Item = DecodedEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<DecodedEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(ev) = this.pending.pop_front() {
                return Poll::Ready(Some(ev));
            }
            match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Ready(Some(ev)) => split(&mut this.pending, S::KIND, ev),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
