//! Orders: amount math per tick size, validation, salts and timestamps, the builder, and the
//! wire body.

mod token;
mod unsigned;

pub use self::token::{TokenId, TokenIdError};
pub use self::unsigned::Order;
