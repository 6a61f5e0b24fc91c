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

/// `convertPositions(marketId, indexSet, amount)` on the adapter, for a market of
/// `questions` questions (the adapter reverts on an index set naming a question beyond them,
/// so the builder refuses it; the count is the market's, from Gamma or the adapter's
/// `getQuestionCount`).
///
/// ```
/// use alloy_primitives::{Address, B256, U256};
/// use polyclob::onchain::{CallError, neg_risk::convert_positions};
///
/// let (adapter, market) = (Address::repeat_byte(0xd9), B256::repeat_byte(1));
/// let call = convert_positions(adapter, market, 3, U256::from(0b101u8), U256::from(5_000_000u64))?;
/// assert_eq!(&call.data()[..4], &[0xc6, 0x47, 0x48, 0xc4]);
/// // Question 3 of a three-question market does not exist.
/// assert_eq!(
///     convert_positions(adapter, market, 3, U256::from(0b1001u8), U256::from(1u8)).unwrap_err(),
///     CallError::IndexSetBeyondQuestions { index_set: U256::from(0b1001u8), questions: 3 }
/// );
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// A zero adapter, market id, index set or amount; a market of fewer than two questions; an
/// index set naming a question at or beyond `questions` ([`CallError`]).
pub fn convert_positions(
    adapter: Address,
    market_id: B256,
    questions: u8,
    index_set: U256,
    amount: U256,
) -> Result<Call, CallError> {
    check::address(adapter, "the Neg Risk Adapter")?;
    check::id(market_id, "the neg-risk market id")?;
    if questions < 2 {
        return Err(CallError::TooFewQuestions { questions });
    }
    if index_set.is_zero() {
        return Err(CallError::ZeroIndexSet);
    }
    if !(index_set >> usize::from(questions)).is_zero() {
        return Err(CallError::IndexSetBeyondQuestions {
            index_set,
            questions,
        });
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

/// `redeemPositions(conditionId, amounts)` on the adapter: `amounts` is `[yes, no]` to redeem
/// (the adapter moves both positions in one batch transfer, which reverts on any other
/// length).
///
/// # Errors
/// A zero adapter or condition id, other than two amounts, or amounts that are all zero
/// ([`CallError`]).
pub fn redeem_positions(
    adapter: Address,
    condition_id: B256,
    amounts: &[U256],
) -> Result<Call, CallError> {
    check::address(adapter, "the Neg Risk Adapter")?;
    check::id(condition_id, "the condition id")?;
    if amounts.len() != 2 {
        return Err(CallError::Length {
            what: "the amounts ([yes, no])",
            expected: 2,
            got: amounts.len(),
        });
    }
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
