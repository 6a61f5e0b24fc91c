//! JSON bodies besides the single order: batches, cancels; and the writers they share.

use alloy_primitives::B256;

use super::{OrderError, SignedOrder};
use crate::json::escape::push_str;

/// The most orders `POST /orders` accepts in one request (docs.polymarket.com, post-orders).
pub const MAX_BATCH: usize = 15;

pub(crate) fn push_u64(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 20];
    out.extend_from_slice(crate::sign::eip712::write_u64_decimal(v, &mut buf));
}

pub(crate) fn push_u64_str(out: &mut Vec<u8>, v: u64) {
    out.push(b'"');
    push_u64(out, v);
    out.push(b'"');
}

/// Appends the `POST /orders` body: a JSON array of order bodies, each with its own flags.
///
/// # Errors
/// [`OrderError::BatchSize`] for an empty batch or more than [`MAX_BATCH`] orders.
///
/// ```
/// # use polyclob::order::*;
/// # use polyclob::sign::{Signer, wallet::Wallet};
/// # use polyclob::types::*;
/// # let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// # let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
/// # let market = MarketContext::new(Chain::Polygon, ExchangeVersion::V2, "1".parse()?, TickSize::Hundredth, false)?;
/// let one = orders.limit_order(&market, &LimitOrder::new(Side::Buy, "0.5".parse()?, "10".parse()?))?;
/// let mut body = Vec::new();
/// write_batch_body(&[one, one], "owner-key", &mut body)?;
/// assert!(body.starts_with(b"[{") && body.ends_with(b"}]"));
/// assert!(write_batch_body(&[one; 16], "owner-key", &mut body).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_batch_body(
    orders: &[SignedOrder],
    owner: &str,
    out: &mut Vec<u8>,
) -> Result<(), OrderError> {
    if orders.is_empty() || orders.len() > MAX_BATCH {
        return Err(OrderError::BatchSize { len: orders.len() });
    }
    out.push(b'[');
    for (i, o) in orders.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        o.write_json(owner, out);
    }
    out.push(b']');
    Ok(())
}

/// Appends the `DELETE /order` body `{"orderID":"0x…"}` for an order hash.
///
/// ```
/// use alloy_primitives::B256;
/// use polyclob::order::write_cancel_body;
///
/// let mut body = Vec::new();
/// write_cancel_body(&B256::repeat_byte(0xab), &mut body);
/// assert_eq!(body.len(), 80);
/// assert!(body.starts_with(br#"{"orderID":"0xabab"#));
/// ```
pub fn write_cancel_body(order_id: &B256, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"orderID":"0x"#);
    push_hex(out, order_id);
    out.extend_from_slice(br#""}"#);
}

/// Appends the `DELETE /order` body for an order id given as text (JSON-escaped as is).
pub fn write_cancel_body_str(order_id: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"orderID":"#);
    push_str(out, order_id);
    out.push(b'}');
}

/// Appends the `DELETE /cancel-market-orders` body; absent keys are omitted (as the V2 SDKs
/// do), so `{}` cancels nothing in particular — pass at least one.
pub(crate) fn write_cancel_market_body(
    market: Option<&str>,
    asset_id: Option<&str>,
    out: &mut Vec<u8>,
) {
    out.push(b'{');
    if let Some(m) = market {
        out.extend_from_slice(br#""market":"#);
        push_str(out, m);
    }
    if let Some(a) = asset_id {
        if market.is_some() {
            out.push(b',');
        }
        out.extend_from_slice(br#""asset_id":"#);
        push_str(out, a);
    }
    out.push(b'}');
}

fn push_hex(out: &mut Vec<u8>, v: &B256) {
    let start = out.len();
    out.resize(start + 64, 0);
    crate::sign::signature_hex_into(v.as_slice(), &mut out[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_bodies() {
        let mut out = Vec::new();
        write_cancel_market_body(Some("0xcond"), None, &mut out);
        assert_eq!(out, br#"{"market":"0xcond"}"#);
        out.clear();
        write_cancel_market_body(Some("m"), Some("a"), &mut out);
        assert_eq!(out, br#"{"market":"m","asset_id":"a"}"#);
        out.clear();
        write_cancel_market_body(None, Some("a"), &mut out);
        assert_eq!(out, br#"{"asset_id":"a"}"#);
        out.clear();
        write_cancel_body_str("0x1\"", &mut out);
        assert_eq!(out, br#"{"orderID":"0x1\""}"#);
    }
}
