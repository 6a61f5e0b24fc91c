//! Owned events for consumers that keep an event past the frame (channels, queues).

use super::{DecodeError, EventView, decode};

/// An event that owns its JSON text and re-reads it on demand.
///
/// Holding the element's text (one allocation) instead of a tree of owned fields keeps the
/// conversion cheap and the typed views identical to the borrowed path: [`event`](Self::event)
/// decodes the same bytes again.
///
/// ```
/// use polyclob::decode::{decode, EventView};
///
/// let frame = String::from(r#"[{"event_type":"best_bid_ask","asset_id":"a","best_bid":"0.4"}]"#);
/// let owned: Vec<_> = decode(&frame).map(|e| e.map(|e| e.to_owned_event())).collect::<Result<_, _>>()?;
/// drop(frame);
/// let EventView::BestBidAsk(q) = owned[0].event()? else { panic!() };
/// assert_eq!(q.best_bid.unwrap().to_string(), "0.4");
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OwnedEvent {
    json: Box<str>,
}

impl OwnedEvent {
    pub(crate) fn from_event(e: &EventView<'_>) -> Self {
        let json = match e {
            EventView::Pong => "PONG",
            EventView::NoNewAssets => "NO NEW ASSETS",
            other => other.json(),
        };
        Self { json: json.into() }
    }

    /// The borrowed view of this event.
    ///
    /// ```
    /// use polyclob::decode::{decode, EventView};
    /// let owned = decode("NO NEW ASSETS").next().unwrap()?.to_owned_event();
    /// assert!(matches!(owned.event()?, EventView::NoNewAssets));
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// None in practice: the text decoded successfully when the event was created.
    pub fn event(&self) -> Result<EventView<'_>, DecodeError> {
        match decode(&self.json).next() {
            Some(r) => r,
            // The text is an element that decoded before, so it yields exactly one event.
            None => Ok(EventView::Unknown {
                event_type: "",
                json: &self.json,
            }),
        }
    }

    /// The element's JSON text (`"PONG"` / `"NO NEW ASSETS"` for the control frames).
    ///
    /// ```
    /// use polyclob::decode::decode;
    /// let owned = decode(r#"{"event_type":"zzz"}"#).next().unwrap()?.to_owned_event();
    /// assert_eq!(owned.json(), r#"{"event_type":"zzz"}"#);
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    #[must_use]
    pub fn json(&self) -> &str {
        &self.json
    }
}
