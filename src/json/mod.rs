//! The JSON scanner under every reader and writer of JSON text in the crate: the WebSocket
//! decoder ([`crate::decode`]), RTDS, the REST page readers, the book hash and the string
//! writers. [`scanner`] walks text without building a tree, [`decimal`] reads prices and sizes
//! in place, [`simd`] holds the one `unsafe` scan (with its portable twin) that every string
//! read, skip and write goes through, and [`escape`] is the one JSON string writer. Typed
//! values are read from a response body by `from_body`, serde_json over text checked once.

pub(crate) mod decimal;
pub(crate) mod escape;
pub(crate) mod scanner;
pub(crate) mod simd;

pub(crate) use scanner::{
    Cursor, HASH_LEN, ID_LEN, MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, err, skip_ws, sub,
};
pub use scanner::{DecodeError, DecodeErrorKind, JsonStr};

/// Reads a response body with serde_json: the one way the crate turns bytes into typed values.
/// The body is checked as UTF-8 once, word at a time over ASCII, and read as text, so
/// serde_json does not validate each string again, and each `Deserialize` impl is compiled for
/// one serde_json reader, not for both the text and the byte reader. A body that is not UTF-8
/// is an error, as it was for the byte reader, whose strings must be UTF-8.
pub(crate) fn from_body<'a, T: serde::Deserialize<'a>>(body: &'a [u8]) -> serde_json::Result<T> {
    match core::str::from_utf8(body) {
        Ok(text) => serde_json::from_str(text),
        Err(e) => Err(serde::de::Error::custom(format_args!(
            "the body is not UTF-8: {e}"
        ))),
    }
}
