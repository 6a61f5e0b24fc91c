//! Polymarket WebSocket channels.
//!
//! | module | what it holds |
//! |---|---|
//! | [`decode`] | borrowed, allocation-free views of market- and user-channel frames |

mod json;

pub mod decode;
