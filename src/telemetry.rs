//! Tracing hooks (feature `tracing`): the crate-internal macros every call site uses, so that
//! without the feature a call site compiles to nothing (its fields are not even evaluated).
//!
//! The library only emits; it never installs a subscriber. Event names and field names are
//! listed once, in the crate docs ("Tracing"); a call site uses those names and no others.
//! No field ever carries a secret: endpoints are paths without their query, and no header,
//! body, key, passphrase or signature is recorded.

/// `event!(LEVEL, "polyclob.x.y", field = value, …)`: a `tracing` event with that name.
#[cfg(feature = "tracing")]
macro_rules! event {
    ($level:ident, $name:literal, $($fields:tt)+) => {
        ::tracing::event!(name: $name, ::tracing::Level::$level, $($fields)+)
    };
}

/// Without the feature: nothing (the fields are not evaluated).
#[cfg(not(feature = "tracing"))]
macro_rules! event {
    ($($t:tt)*) => {};
}

/// `span!("polyclob.x", field = value, …)`: an INFO span; [`Span`] without the feature.
#[cfg(feature = "tracing")]
macro_rules! span {
    ($name:literal, $($fields:tt)+) => {
        ::tracing::info_span!($name, $($fields)+)
    };
}

/// Without the feature: the zero-sized [`Span`].
#[cfg(not(feature = "tracing"))]
macro_rules! span {
    ($($t:tt)*) => {
        $crate::telemetry::Span
    };
}

/// `record!(span, "field", value)`: fills a field the span declared `Empty`.
#[cfg(feature = "tracing")]
macro_rules! record {
    ($span:expr, $field:literal, $value:expr) => {
        $span.record($field, $value)
    };
}

/// Without the feature: nothing.
#[cfg(not(feature = "tracing"))]
macro_rules! record {
    ($($t:tt)*) => {};
}

pub(crate) use {event, record, span};

/// A span: `tracing::Span` with the feature, a zero-sized stand-in without.
#[cfg(feature = "tracing")]
pub(crate) type Span = tracing::Span;

/// The stand-in for `tracing::Span` when the feature is off.
#[cfg(not(feature = "tracing"))]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span;

/// Runs `fut` inside `span` (with the feature); `fut` itself without.
#[cfg(feature = "tracing")]
pub(crate) fn instrument<F: Future>(fut: F, span: &Span) -> tracing::instrument::Instrumented<F> {
    tracing::Instrument::instrument(fut, span.clone())
}

/// Without the feature: `fut` unchanged.
#[cfg(not(feature = "tracing"))]
pub(crate) fn instrument<F: Future>(fut: F, _span: &Span) -> F {
    fut
}

/// Milliseconds of `d`, saturating: the unit of every `*_ms` field.
#[cfg(feature = "tracing")]
pub(crate) fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
