//! Neg Risk Adapter calls: converting NO positions and redeeming neg-risk positions.
//!
//! The adapter unifies mutually exclusive binary markets (one question each) into one market.
//! `convertPositions(marketId, indexSet, amount)` burns `amount` NO tokens of every question in
//! `indexSet` (bit `i` = question `i`, least significant bit first) and pays `amount × (m − 1)`
//! collateral plus `amount` YES of every question outside the set, where `m` is the number of
//! questions in the set. `redeemPositions(conditionId, amounts)` redeems a resolved question's
//! `[yes, no]` amounts through the adapter. Source: Polymarket's neg-risk-ctf-adapter contracts
//! (NegRiskAdapter.sol); the address is the docs' contracts table entry "Neg Risk Adapter".

use alloy_primitives::{Address, B256, U256};

use super::abi::{Value, encode_call};
use super::{Call, CallError, Selector, check};

/// `convertPositions(marketId, indexSet, amount)` on the adapter.
///
/// ```
/// use alloy_primitives::{Address, B256, U256};
/// let call = polyclob::onchain::neg_risk::convert_positions(
///     Address::repeat_byte(0xd9), B256::repeat_byte(1), U256::from(0b101u8), U256::from(5_000_000u64))?;
/// assert_eq!(&call.data()[..4], &[0xc6, 0x47, 0x48, 0xc4]);
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// A zero adapter, index set or amount ([`CallError`]).
pub fn convert_positions(
    adapter: Address,
    market_id: B256,
    index_set: U256,
    amount: U256,
) -> Result<Call, CallError> {
    check::address(adapter, "the Neg Risk Adapter")?;
    if index_set.is_zero() {
        return Err(CallError::ZeroIndexSet);
    }
    check::amount(amount, "the amount")?;
    Ok(Call::new(
        adapter,
        encode_call(
            Selector::ConvertPositions.bytes(),
            &[
                Value::b256(market_id),
                Value::uint(index_set),
                Value::uint(amount),
            ],
        ),
    ))
}

/// `redeemPositions(conditionId, amounts)` on the adapter: `amounts` is `[yes, no]` to redeem.
///
/// # Errors
/// A zero adapter, or amounts that are empty or all zero ([`CallError`]).
pub fn redeem_positions(
    adapter: Address,
    condition_id: B256,
    amounts: &[U256],
) -> Result<Call, CallError> {
    check::address(adapter, "the Neg Risk Adapter")?;
    if amounts.iter().all(U256::is_zero) {
        return Err(CallError::ZeroAmount {
            what: "every amount to redeem",
        });
    }
    Ok(Call::new(
        adapter,
        encode_call(
            Selector::NegRiskRedeem.bytes(),
            &[Value::b256(condition_id), Value::uints(amounts)],
        ),
    ))
}
