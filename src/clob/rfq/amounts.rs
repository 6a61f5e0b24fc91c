//! RFQ amounts and the V1 order behind an accept or an approve, computed exactly in
//! fixed point.
//!
//! A request or quote names what its sender receives (`assetIn`, `amountIn`) and gives
//! (`assetOut`, `amountOut`), in 10⁻⁶ units; collateral is asset `"0"`. A BUY of `size`
//! shares at `price` receives the shares and gives `size × price` collateral; a SELL the
//! reverse (py-clob-client-v2 1.2.1 `create_rfq_request`). Sizes take the exchange's lot
//! rounding (floored to 2 decimals); a price off the tick grid is an error, not rounded.

use serde::Serialize;

use super::types::{MatchType, RfqQuote};
use crate::fixed::{Price, Size};
use crate::http::Error;
use crate::order::{LimitOrder, MarketContext, OrderSigner, SignedOrder, TokenId};
use crate::types::{OrderType, Side, SignatureType, TickSize};

/// What a request or quote receives and gives.
///
/// ```
/// use polyclob::clob::rfq::RfqAmounts;
/// use polyclob::fixed::{Price, Size};
/// use polyclob::types::{Side, TickSize};
///
/// let a = RfqAmounts::new("1234", Side::Buy, Price::new(520_000).unwrap(),
///                         Size::from_micros(100_000_000), TickSize::Hundredth).unwrap();
/// assert_eq!((a.asset_in.as_str(), a.amount_in), ("1234", 100_000_000));
/// assert_eq!((a.asset_out.as_str(), a.amount_out), ("0", 52_000_000));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RfqAmounts {
    /// Asset received: a token id, or `"0"` for collateral.
    pub asset_in: String,
    /// Asset given.
    pub asset_out: String,
    /// Amount received, 10⁻⁶ units.
    pub amount_in: u64,
    /// Amount given, 10⁻⁶ units.
    pub amount_out: u64,
}

/// The collateral's asset id in RFQ bodies.
pub(crate) const COLLATERAL: &str = "0";

/// Checks a price against the tick grid and the open interval `(0, 1)`.
fn check_price(price: Price, tick: TickSize) -> Result<(), Error> {
    let t = tick.as_micros();
    let p = price.as_micros();
    if p % t != 0 || p < t || p > Price::SCALE - t {
        return Err(Error::argument(format!(
            "RFQ price {price} is not on the {tick} tick grid between {} and {}",
            Price::new(t).unwrap_or_default(),
            Price::new(Price::SCALE - t).unwrap_or_default(),
        )));
    }
    Ok(())
}

impl RfqAmounts {
    /// The amounts of a request or quote to `side` `size` shares of `token_id` at `price`.
    ///
    /// # Errors
    ///
    /// ([`Error::is_argument`]) a token id that is not decimal, a price off the tick grid,
    /// or a size that rounds to zero lots.
    pub fn new(
        token_id: &str,
        side: Side,
        price: Price,
        size: Size,
        tick: TickSize,
    ) -> Result<Self, Error> {
        TokenId::parse(token_id.as_bytes())
            .map_err(|e| Error::argument(format!("RFQ token id {token_id:?}: {}", e.reason())))?;
        check_price(price, tick)?;
        let shares = size.floor_to(2);
        if shares.is_zero() {
            return Err(Error::argument(format!(
                "RFQ size {size} is below one lot (0.01)"
            )));
        }
        // Exact: shares have 2 decimals and prices at most 4, so the product has at most 6.
        let notional = shares
            .checked_mul_price(price)
            .and_then(crate::fixed::Notional::to_micros_exact)
            .ok_or_else(|| Error::argument(format!("RFQ size {size} overflows")))?;
        let shares = shares.as_micros();
        Ok(match side {
            Side::Buy => Self {
                asset_in: token_id.to_owned(),
                asset_out: COLLATERAL.to_owned(),
                amount_in: shares,
                amount_out: notional,
            },
            Side::Sell => Self {
                asset_in: COLLATERAL.to_owned(),
                asset_out: token_id.to_owned(),
                amount_in: notional,
                amount_out: shares,
            },
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreateBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a str>,
    asset_in: &'a str,
    asset_out: &'a str,
    amount_in: String,
    amount_out: String,
    user_type: u8,
}

impl RfqAmounts {
    /// The body of `POST /rfq/request` (`request_id` `None`) or `POST /rfq/quote`, in the
    /// official clients' key order; `sig` is the sender's wallet kind (`userType`).
    #[must_use]
    pub fn to_json(&self, request_id: Option<&str>, sig: SignatureType) -> Vec<u8> {
        let body = CreateBody {
            request_id,
            asset_in: &self.asset_in,
            asset_out: &self.asset_out,
            amount_in: self.amount_in.to_string(),
            amount_out: self.amount_out.to_string(),
            user_type: sig.as_u8(),
        };
        // Strings and integers only: serialization cannot fail.
        serde_json::to_vec(&body).unwrap_or_default()
    }
}

/// The order one side signs to settle a quote: token, side, price and size.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RfqOrderTerms {
    /// Token the order trades.
    pub token_id: String,
    /// Side of the order.
    pub side: Side,
    /// Limit price.
    pub price: Price,
    /// Shares.
    pub size: Size,
}

impl RfqOrderTerms {
    /// The requester's order when accepting `quote`. For a complementary match the
    /// requester takes the other side of the quoted token; for a mint or merge, the same
    /// side of the complement token at `1 − price`.
    ///
    /// # Errors
    ///
    /// ([`Error::is_argument`]) an unknown match type, or a quote missing the token needed.
    pub fn accept(quote: &RfqQuote) -> Result<Self, Error> {
        let quoted = quote.side.unwrap_or(Side::Buy);
        let (token, side, price) = match &quote.match_type {
            MatchType::Complementary => (&quote.token, quoted.opposite(), quote.price),
            MatchType::Mint | MatchType::Merge => {
                (&quote.complement, quoted, quote.price.complement())
            }
            MatchType::Unknown(m) => {
                return Err(Error::argument(format!("RFQ quote has match type {m:?}")));
            }
        };
        if token.is_empty() {
            return Err(Error::argument(format!(
                "RFQ quote {} has no token for a {} match",
                quote.quote_id, quote.match_type
            )));
        }
        let size = match (&quote.match_type, side) {
            (MatchType::Complementary, Side::Buy) => quote.size_out,
            (MatchType::Complementary, Side::Sell) => quote.size_in,
            (_, Side::Buy) => quote.size_in,
            (_, Side::Sell) => quote.size_out,
        };
        Ok(Self {
            token_id: token.clone(),
            side,
            price,
            size,
        })
    }

    /// The quoter's order when approving `quote`: the quote's own token, side and price.
    ///
    /// # Errors
    ///
    /// ([`Error::is_argument`]) a quote without a token.
    pub fn approve(quote: &RfqQuote) -> Result<Self, Error> {
        if quote.token.is_empty() {
            return Err(Error::argument(format!(
                "RFQ quote {} has no token",
                quote.quote_id
            )));
        }
        let side = quote.side.unwrap_or(Side::Buy);
        Ok(Self {
            token_id: quote.token.clone(),
            side,
            price: quote.price,
            size: match side {
                Side::Buy => quote.size_in,
                Side::Sell => quote.size_out,
            },
        })
    }

    /// Signs the terms as a V1 limit order in `ctx` (which must be a V1 context). A non-zero
    /// `expiration` makes it a GTD order; `salt` and `now_ms` pin what is otherwise random or
    /// read from the clock (for known-answer tests).
    ///
    /// # Errors
    ///
    /// Any order validation error, as [`Error::is_argument`].
    pub fn sign(
        &self,
        signer: &OrderSigner,
        ctx: &MarketContext,
        expiration: u64,
        salt: Option<u64>,
        now_ms: Option<u64>,
    ) -> Result<SignedOrder, Error> {
        let mut o = LimitOrder::new(self.side, self.price, self.size);
        if expiration != 0 {
            o = o.order_type(OrderType::Gtd).expiration(expiration);
        }
        if let Some(s) = salt {
            o = o.salt(s);
        }
        if let Some(ms) = now_ms {
            o = o.created_at_ms(ms);
        }
        signer.limit_order(ctx, &o).map_err(Error::order)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    request_id: &'a str,
    quote_id: &'a str,
    owner: &'a str,
    salt: u64,
    maker: String,
    signer: String,
    taker: String,
    token_id: String,
    maker_amount: String,
    taker_amount: String,
    expiration: u64,
    nonce: String,
    fee_rate_bps: String,
    side: &'static str,
    signature_type: u8,
    signature: String,
}

/// The body of `POST /rfq/request/accept` and `POST /rfq/quote/approve`: the ids, the
/// owner's API key (the `owner` of the order) and the signed V1 order's fields, in the
/// official clients' key order.
#[must_use]
pub fn order_body(request_id: &str, quote_id: &str, owner: &str, signed: &SignedOrder) -> Vec<u8> {
    let o = signed.order();
    let body = Body {
        request_id,
        quote_id,
        owner,
        salt: o.salt,
        maker: o.maker.to_checksum(None),
        signer: o.signer.to_checksum(None),
        taker: o.taker.to_checksum(None),
        token_id: o.token_id.to_string(),
        maker_amount: o.maker_amount.to_string(),
        taker_amount: o.taker_amount.to_string(),
        expiration: o.expiration,
        nonce: o.nonce.to_string(),
        fee_rate_bps: o.fee_rate_bps.to_string(),
        side: o.side.as_str(),
        signature_type: o.signature_type.as_u8(),
        signature: signed.signature().to_hex_string(),
    };
    // Strings and integers only: serialization cannot fail.
    serde_json::to_vec(&body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(m: u32) -> Price {
        Price::new(m).unwrap()
    }

    #[test]
    fn amounts_are_exact_and_checked() {
        let a = RfqAmounts::new(
            "7",
            Side::Sell,
            p(3_700),
            Size::from_micros(12_345_678),
            TickSize::TenThousandth,
        )
        .unwrap();
        // 12.34 shares × 0.0037 = 0.045658 exactly.
        assert_eq!(a.amount_in, 45_658);
        assert_eq!(a.amount_out, 12_340_000);
        assert_eq!((a.asset_in.as_str(), a.asset_out.as_str()), ("0", "7"));
        let e = |r: Result<RfqAmounts, Error>| r.unwrap_err().is_argument();
        assert!(e(RfqAmounts::new(
            "7",
            Side::Buy,
            p(525_000),
            Size::from_micros(1_000_000),
            TickSize::Hundredth
        )));
        assert!(e(RfqAmounts::new(
            "7",
            Side::Buy,
            p(990_000),
            Size::from_micros(1_000_000),
            TickSize::Tenth
        )));
        assert!(e(RfqAmounts::new(
            "7",
            Side::Buy,
            p(500_000),
            Size::from_micros(9_999),
            TickSize::Hundredth
        )));
        assert!(e(RfqAmounts::new(
            "0x7",
            Side::Buy,
            p(500_000),
            Size::from_micros(1_000_000),
            TickSize::Hundredth
        )));
    }

    fn quote(side: Side, m: MatchType) -> RfqQuote {
        serde_json::from_value(serde_json::json!({
            "quoteId": "q", "requestId": "r", "token": "11", "complement": "22",
            "side": side.as_str(), "sizeIn": "100", "sizeOut": "40", "price": "0.4",
            "matchType": m.as_str(),
        }))
        .unwrap()
    }

    #[test]
    fn accept_and_approve_terms_follow_the_match_type() {
        let t = RfqOrderTerms::accept(&quote(Side::Buy, MatchType::Complementary)).unwrap();
        assert_eq!(
            (t.token_id.as_str(), t.side, t.size),
            ("11", Side::Sell, Size::from_micros(100_000_000))
        );
        assert_eq!(t.price, p(400_000));
        let t = RfqOrderTerms::accept(&quote(Side::Sell, MatchType::Complementary)).unwrap();
        assert_eq!((t.side, t.size), (Side::Buy, Size::from_micros(40_000_000)));
        let t = RfqOrderTerms::accept(&quote(Side::Buy, MatchType::Mint)).unwrap();
        assert_eq!(
            (t.token_id.as_str(), t.side, t.price),
            ("22", Side::Buy, p(600_000))
        );
        assert_eq!(t.size, Size::from_micros(100_000_000));
        let t = RfqOrderTerms::approve(&quote(Side::Sell, MatchType::Complementary)).unwrap();
        assert_eq!(
            (t.token_id.as_str(), t.side, t.size),
            ("11", Side::Sell, Size::from_micros(40_000_000))
        );
        assert!(
            RfqOrderTerms::accept(&quote(Side::Buy, MatchType::Unknown("SWAP".into())))
                .unwrap_err()
                .is_argument()
        );
    }
}
