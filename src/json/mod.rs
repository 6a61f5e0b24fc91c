//! The JSON scanner under every reader and writer of JSON text in the crate: the WebSocket
//! decoder ([`crate::decode`]), RTDS, the REST page readers, the book hash and the string
//! writers. [`scanner`] walks text without building a tree, [`decimal`] reads prices and sizes
//! in place, [`simd`] holds the one `unsafe` scan (with its portable twin) that every string
//! read, skip and write goes through, and [`escape`] is the one JSON string writer.

pub(crate) mod decimal;
pub(crate) mod escape;
pub(crate) mod scanner;
pub(crate) mod simd;

pub(crate) use scanner::{
    Cursor, HASH_LEN, ID_LEN, MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, err, skip_ws, sub,
};
pub use scanner::{DecodeError, DecodeErrorKind, JsonStr};
