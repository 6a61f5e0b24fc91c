//! The order domain error: what is wrong with an order, and with which value.

use core::fmt;

use crate::fixed::{Price, Size};
use crate::sign::SignError;
use crate::types::{Chain, ExchangeVersion, OrderType, Side, SignatureType, TickSize};

/// Why an order could not be built, signed or serialised.
///
/// Every variant names the offending value so "invalid signature" never has to be debugged on
/// the exchange side (peers.md: validate funder, signature type, exchange and chain first).
///
/// ```
/// use polyclob::order::OrderError;
/// use polyclob::types::TickSize;
///
/// let e = OrderError::PriceOffGrid { price: "0.565".parse()?, tick: TickSize::Hundredth };
/// assert_eq!(e.to_string(), "price 0.565 is not a multiple of the tick size 0.01");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OrderError {
    /// A limit price that is not a whole multiple of the market's tick.
    PriceOffGrid {
        /// The price given.
        price: Price,
        /// The market's tick.
        tick: TickSize,
    },
    /// A price outside `[tick, 1 − tick]`.
    PriceOutOfRange {
        /// The (rounded) price.
        price: Price,
        /// The market's tick.
        tick: TickSize,
    },
    /// The size (or market amount) is zero once floored to 2 decimals.
    SizeZeroAfterRounding {
        /// The size or amount given.
        size: Size,
    },
    /// An amount does not fit the exchange's integer fields.
    AmountOverflow,
    /// A non-zero expiration on an order type other than GTD.
    ExpirationNotAllowed {
        /// The order type given.
        order_type: OrderType,
    },
    /// A GTD order without an expiration.
    ExpirationMissing,
    /// An expiration closer than now + 60 s (the exchange's security threshold).
    ExpirationTooSoon {
        /// The expiration given (unix seconds).
        expiration: u64,
        /// The earliest accepted value (now + 60).
        earliest: u64,
    },
    /// Post-only on an immediate (FOK/FAK) order.
    PostOnlyNotAllowed {
        /// The order type given.
        order_type: OrderType,
    },
    /// A market order with a resting order type (must be FOK or FAK), or the reverse.
    OrderTypeNotAllowed {
        /// The order type given.
        order_type: OrderType,
    },
    /// Not enough liquidity in the book to fill a FOK market order.
    NoMatch,
    /// The book side handed to the price walk is empty.
    EmptyBook,
    /// A proxy, Safe or deposit-wallet order whose funder (maker) was not given, or was given
    /// as the EOA itself.
    FunderMissing {
        /// The signature type that needs a funder.
        signature_type: SignatureType,
    },
    /// An EOA order given a funder that is not the EOA.
    FunderNotAllowed,
    /// The signature type does not exist on this exchange generation (POLY_1271 on V1).
    SignatureTypeNotAllowed {
        /// The signature type.
        signature_type: SignatureType,
        /// The exchange generation.
        version: ExchangeVersion,
    },
    /// The tick size does not exist on this exchange generation (0.005/0.0025 on V1).
    TickNotAllowed {
        /// The tick size.
        tick: TickSize,
        /// The exchange generation.
        version: ExchangeVersion,
    },
    /// The signer was prepared for another chain than the market.
    ChainMismatch {
        /// The signer's chain.
        signer: Chain,
        /// The market's chain.
        market: Chain,
    },
    /// A neg-risk market signed against the standard exchange, or the reverse.
    ExchangeMismatch {
        /// Whether the market is neg-risk.
        neg_risk: bool,
    },
    /// The verifying contract is not an exchange of this chain and generation.
    UnknownExchange,
    /// A salt above 2⁵³ − 1 (the body sends it as a JSON number).
    SaltTooLarge,
    /// More orders than one batch request accepts (15), or none.
    BatchSize {
        /// The number of orders given.
        len: usize,
    },
    /// The operating system's entropy source failed (salt generation).
    Entropy,
    /// Signing failed.
    Sign(SignError),
    /// A market order's amount is in a unit its side cannot be sized in: a SELL in pUSD.
    AmountUnit {
        /// The side.
        side: Side,
    },
}

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PriceOffGrid { price, tick } => {
                write!(f, "price {price} is not a multiple of the tick size {tick}")
            }
            Self::PriceOutOfRange { price, tick } => write!(
                f,
                "price {price} is outside [{tick}, {}] for tick size {tick}",
                tick.as_price().complement()
            ),
            Self::SizeZeroAfterRounding { size } => {
                write!(f, "size {size} is zero after rounding down to 2 decimals")
            }
            Self::AmountOverflow => f.write_str("order amount overflows"),
            Self::ExpirationNotAllowed { order_type } => {
                write!(f, "expiration is only allowed on GTD orders, not {order_type}")
            }
            Self::ExpirationMissing => f.write_str("GTD orders need an expiration"),
            Self::ExpirationTooSoon { expiration, earliest } => write!(
                f,
                "expiration {expiration} is closer than now + 60 s (earliest {earliest})"
            ),
            Self::PostOnlyNotAllowed { order_type } => {
                write!(f, "post-only is not allowed on {order_type} orders")
            }
            Self::OrderTypeNotAllowed { order_type } => {
                write!(f, "order type {order_type} is not allowed for this kind of order")
            }
            Self::NoMatch => f.write_str("not enough liquidity to fill the FOK market order"),
            Self::EmptyBook => f.write_str("the book side is empty"),
            Self::FunderMissing { signature_type } => write!(
                f,
                "signature type {signature_type:?} needs the funder (maker) wallet address"
            ),
            Self::FunderNotAllowed => {
                f.write_str("an EOA order's maker is the EOA; a different funder needs a proxy, Safe or deposit-wallet signature type")
            }
            Self::SignatureTypeNotAllowed { signature_type, version } => {
                write!(f, "signature type {signature_type:?} is not accepted by exchange {version:?}")
            }
            Self::TickNotAllowed { tick, version } => {
                write!(f, "tick size {tick} does not exist on exchange {version:?}")
            }
            Self::ChainMismatch { signer, market } => {
                write!(f, "signer is configured for {signer} but the market is on {market}")
            }
            Self::ExchangeMismatch { neg_risk: true } => {
                f.write_str("neg-risk market signed against the standard exchange")
            }
            Self::ExchangeMismatch { neg_risk: false } => {
                f.write_str("standard market signed against the neg-risk exchange")
            }
            Self::UnknownExchange => {
                f.write_str("verifying contract is not an exchange of this chain and version")
            }
            Self::SaltTooLarge => f.write_str("salt exceeds 2^53 - 1"),
            Self::BatchSize { len } => {
                write!(f, "a batch holds 1 to 15 orders, got {len}")
            }
            Self::Entropy => f.write_str("the OS entropy source failed"),
            // The cause is `source()`; printing it here too would repeat it in `{:#}`.
            Self::Sign(_) => f.write_str("signing failed"),
            Self::AmountUnit { side } => write!(
                f,
                "a market {side} is sized in {}",
                if *side == Side::Sell {
                    "shares to sell, not pUSD"
                } else {
                    "pUSD or shares"
                }
            ),
        }
    }
}

impl std::error::Error for OrderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Sign(e) => Some(e),
            _ => None,
        }
    }
}

impl From<SignError> for OrderError {
    fn from(e: SignError) -> Self {
        Self::Sign(e)
    }
}
