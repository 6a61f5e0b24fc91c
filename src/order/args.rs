//! Order arguments: what the caller decides, with defaults like reqwest's builders.

use alloy_primitives::Address;

use crate::fixed::{Price, Size};
use crate::types::{ExchangeVersion, OrderType, Side, TickSize};

/// A limit order request (GTC or GTD): a size in shares at a price on the tick grid.
///
/// Setters are infallible and state their default; validation happens when the order is built
/// ([`OrderSigner::limit_order`](super::OrderSigner::limit_order)).
///
/// ```
/// use polyclob::order::LimitOrder;
/// use polyclob::types::{OrderType, Side};
///
/// let o = LimitOrder::new(Side::Buy, "0.56".parse()?, "21.04".parse()?)
///     .order_type(OrderType::Gtd)
///     .expiration(1_900_000_000)
///     .post_only(true);
/// assert_eq!(o.get_order_type(), OrderType::Gtd);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitOrder {
    pub(crate) side: Side,
    pub(crate) price: Price,
    pub(crate) size: Size,
    pub(crate) common: Common,
}

/// What a market order's amount counts: pUSD to spend or shares.
///
/// A BUY spends pUSD or buys a number of shares (at most the order's worst price each;
/// [`MarketOrder::with_book`] tightens that price to the book). A SELL is sized in shares
/// only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarketAmount {
    /// pUSD (the collateral, 6 decimals) to spend.
    Usdc(Size),
    /// Outcome-token shares to buy or sell.
    Shares(Size),
}

impl MarketAmount {
    /// The quantity, whatever its unit.
    pub const fn value(self) -> Size {
        match self {
            Self::Usdc(v) | Self::Shares(v) => v,
        }
    }
}

/// A market order request (FOK or FAK): an amount in a named unit ([`MarketAmount`]: pUSD to
/// spend on a BUY, shares to sell; shares to buy too, priced against the book) and the worst
/// acceptable price (see [`market_price`](super::market_price) to get it from a book).
///
/// ```
/// use polyclob::order::{MarketAmount, MarketOrder};
/// use polyclob::types::{OrderType, Side};
///
/// let spend = MarketAmount::Usdc("100".parse()?);
/// let o = MarketOrder::new(Side::Buy, spend, "0.56".parse()?).order_type(OrderType::Fak);
/// assert_eq!(o.get_order_type(), OrderType::Fak);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarketOrder {
    pub(crate) side: Side,
    pub(crate) amount: MarketAmount,
    pub(crate) price: Price,
    pub(crate) common: Common,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Common {
    pub(crate) order_type: OrderType,
    pub(crate) expiration: u64,
    pub(crate) post_only: bool,
    pub(crate) defer_exec: bool,
    pub(crate) salt: Option<u64>,
    pub(crate) created_at_ms: Option<u64>,
    pub(crate) nonce: u64,
    pub(crate) fee_rate_bps: u64,
    pub(crate) taker: Address,
}

impl Common {
    const fn new(order_type: OrderType) -> Self {
        Self {
            order_type,
            expiration: 0,
            post_only: false,
            defer_exec: false,
            salt: None,
            created_at_ms: None,
            nonce: 0,
            fee_rate_bps: 0,
            taker: Address::ZERO,
        }
    }
}

macro_rules! common_setters {
    ($ty:ty) => {
        impl $ty {
            /// The time in force. Validated at build time.
            #[must_use]
            pub const fn order_type(mut self, order_type: OrderType) -> Self {
                self.common.order_type = order_type;
                self
            }

            /// Expiration in unix seconds (GTD only, at least now + 60 s). Default is 0 (none).
            #[must_use]
            pub const fn expiration(mut self, unix_secs: u64) -> Self {
                self.common.expiration = unix_secs;
                self
            }

            /// Post-only (rejected if it would cross; GTC/GTD only). Default is `false`.
            #[must_use]
            pub const fn post_only(mut self, post_only: bool) -> Self {
                self.common.post_only = post_only;
                self
            }

            /// The V2 body's `deferExec` flag. Default is `false`.
            #[must_use]
            pub const fn defer_exec(mut self, defer_exec: bool) -> Self {
                self.common.defer_exec = defer_exec;
                self
            }

            /// A fixed salt (≤ 2⁵³ − 1). Default is a fresh random salt from the OS.
            #[must_use]
            pub const fn salt(mut self, salt: u64) -> Self {
                self.common.salt = Some(salt);
                self
            }

            /// Pins the creation time (ms): the V2/V3 `timestamp` and the reference for the
            /// expiration check. Default is the signer's monotonic clock.
            #[must_use]
            pub const fn created_at_ms(mut self, ms: u64) -> Self {
                self.common.created_at_ms = Some(ms);
                self
            }

            /// V1 only: the exchange nonce. Default is 0.
            #[must_use]
            pub const fn nonce(mut self, nonce: u64) -> Self {
                self.common.nonce = nonce;
                self
            }

            /// V1 only: the fee rate in basis points. Default is 0.
            #[must_use]
            pub const fn fee_rate_bps(mut self, bps: u64) -> Self {
                self.common.fee_rate_bps = bps;
                self
            }

            /// V1 only: the allowed taker. Default is the zero address (anyone).
            #[must_use]
            pub const fn taker(mut self, taker: Address) -> Self {
                self.common.taker = taker;
                self
            }

            /// The time in force set so far.
            #[must_use]
            pub const fn get_order_type(&self) -> OrderType {
                self.common.order_type
            }
        }
    };
}

common_setters!(LimitOrder);
common_setters!(MarketOrder);

impl LimitOrder {
    /// A GTC limit order for `size` shares at `price`.
    #[must_use]
    pub const fn new(side: Side, price: Price, size: Size) -> Self {
        Self {
            side,
            price,
            size,
            common: Common::new(OrderType::Gtc),
        }
    }
}

impl MarketOrder {
    /// A FOK market order for `amount` (pUSD or shares to buy, shares to sell) at worst
    /// `price`. The unit is checked when the order is signed: a SELL in pUSD is
    /// [`OrderError::AmountUnit`](super::OrderError::AmountUnit).
    #[must_use]
    pub const fn new(side: Side, amount: MarketAmount, price: Price) -> Self {
        Self {
            side,
            amount,
            price,
            common: Common::new(OrderType::Fok),
        }
    }

    /// The side.
    #[must_use]
    pub const fn side(&self) -> Side {
        self.side
    }

    /// The amount and its unit.
    #[must_use]
    pub const fn amount(&self) -> MarketAmount {
        self.amount
    }

    /// The worst acceptable price.
    pub const fn price(&self) -> Price {
        self.price
    }

    /// The order's `(makerAmount, takerAmount)` for a market of `tick` on `version`.
    pub(crate) fn amounts(
        &self,
        tick: TickSize,
        version: ExchangeVersion,
    ) -> Result<super::amounts::Amounts, super::OrderError> {
        use super::amounts::{market_amounts, market_buy_shares_amounts};
        match (self.side, self.amount) {
            (Side::Buy, MarketAmount::Usdc(a)) | (Side::Sell, MarketAmount::Shares(a)) => {
                market_amounts(self.side, self.price, a, tick, version)
            }
            (Side::Buy, MarketAmount::Shares(a)) => {
                market_buy_shares_amounts(self.price, a, tick, version)
            }
            (side @ Side::Sell, MarketAmount::Usdc(_)) => {
                Err(super::OrderError::AmountUnit { side })
            }
        }
    }

    /// Tightens a BUY sized in shares to the book: its price becomes the worst ask level
    /// (best first: ascending; the REST `/book` lists asks worst first, so iterate it in
    /// reverse) that the shares reach, no higher than the order's own worst price, so the
    /// signed maker amount is the least that covers them. Any other order is returned
    /// unchanged. Signing does not need this: a shares BUY at its own worst price is valid.
    ///
    /// ```
    /// use polyclob::order::{MarketAmount, MarketOrder};
    /// use polyclob::fixed::{Price, Size};
    /// use polyclob::types::Side;
    ///
    /// let p = |s: &str| s.parse::<Price>().unwrap();
    /// let q = |s: &str| s.parse::<Size>().unwrap();
    /// let asks_best_first = [(p("0.50"), q("100")), (p("0.55"), q("100")), (p("0.58"), q("100"))];
    /// let buy = MarketOrder::new(Side::Buy, MarketAmount::Shares(q("150")), p("0.60"));
    /// assert_eq!(buy.with_book(asks_best_first)?.price(), p("0.55"));
    /// # Ok::<(), polyclob::order::OrderError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A FOK the levels within its price cannot fill:
    /// [`OrderError::NoMatch`](super::OrderError::NoMatch); no level within its price:
    /// [`OrderError::EmptyBook`](super::OrderError::EmptyBook); GTC/GTD.
    pub fn with_book<I>(mut self, asks_best_first: I) -> Result<Self, super::OrderError>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let (Side::Buy, MarketAmount::Shares(shares)) = (self.side, self.amount) else {
            return Ok(self);
        };
        self.price = super::amounts::shares_price(
            shares,
            self.price,
            self.common.order_type,
            asks_best_first,
        )?;
        Ok(self)
    }
}
