//! ConditionalTokens position calls: split, merge, redeem, and the resolution reads.
//!
//! Polymarket's docs (Trading → CTF → Split/Merge/Redeem) give the parameters: the collateral
//! token, `parentCollectionId` always 32 zero bytes, the market's condition id, the partition
//! `[1, 2]` for a binary market (Yes = index set 1, No = 2) and the amount in 10⁻⁶ units. Since
//! the pUSD migration the docs route these calls through a *collateral adapter* with the same
//! ABI (approve the adapter, call its split/merge/redeem); the legacy USDC.e flow calls
//! ConditionalTokens directly. Either way the calldata is the same, only the target differs:
//! [`Contracts::positions_target`](crate::types::Contracts::positions_target) picks it.

use alloy_primitives::{Address, B256, U256};

use super::abi::{Value, encode_call};
use super::{Call, CallError, Selector, check};

/// The binary partition: Yes (index set `0b01`) and No (`0b10`).
pub const BINARY_PARTITION: [U256; 2] = [
    U256::from_limbs([1, 0, 0, 0]),
    U256::from_limbs([2, 0, 0, 0]),
];

/// `splitPosition(collateral, parent, condition, partition, amount)` on `target`: `amount`
/// collateral becomes `amount` of each outcome in `partition`.
///
/// ```
/// use alloy_primitives::{Address, B256, U256};
/// use polyclob::onchain::ctf;
///
/// let call = ctf::split_position(
///     Address::repeat_byte(0xad), Address::repeat_byte(0xc0), B256::ZERO,
///     B256::repeat_byte(7), &ctf::BINARY_PARTITION, U256::from(1_000_000u64),
/// )?;
/// assert_eq!(call.to(), Address::repeat_byte(0xad));
/// assert_eq!(call.data().len(), 4 + 32 * 8);
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// A zero target, collateral or condition id, a zero amount, or a partition of fewer than two
/// index sets, one holding a zero index set, or overlapping ([`CallError`]).
pub fn split_position(
    target: Address,
    collateral: Address,
    parent_collection: B256,
    condition_id: B256,
    partition: &[U256],
    amount: U256,
) -> Result<Call, CallError> {
    check::amount(amount, "the amount")?;
    position_call(
        Selector::SplitPosition.bytes(),
        target,
        collateral,
        parent_collection,
        condition_id,
        partition,
        Some(amount),
    )
}

/// `mergePositions(collateral, parent, condition, partition, amount)` on `target`: `amount` of
/// each outcome in `partition` becomes `amount` collateral.
///
/// # Errors
/// As [`split_position`].
pub fn merge_positions(
    target: Address,
    collateral: Address,
    parent_collection: B256,
    condition_id: B256,
    partition: &[U256],
    amount: U256,
) -> Result<Call, CallError> {
    check::amount(amount, "the amount")?;
    position_call(
        Selector::MergePositions.bytes(),
        target,
        collateral,
        parent_collection,
        condition_id,
        partition,
        Some(amount),
    )
}

/// `redeemPositions(collateral, parent, condition, indexSets)` on `target`: after resolution,
/// the caller's whole balance of each listed outcome pays out by the payout vector.
///
/// # Errors
/// A zero target, collateral or condition id, or index sets that are empty, hold a zero or
/// overlap ([`CallError`]). One index set is fine here: redeeming only the winning outcome.
pub fn redeem_positions(
    target: Address,
    collateral: Address,
    parent_collection: B256,
    condition_id: B256,
    index_sets: &[U256],
) -> Result<Call, CallError> {
    position_call(
        Selector::RedeemPositions.bytes(),
        target,
        collateral,
        parent_collection,
        condition_id,
        index_sets,
        None,
    )
}

fn position_call(
    selector: [u8; 4],
    target: Address,
    collateral: Address,
    parent: B256,
    condition: B256,
    sets: &[U256],
    amount: Option<U256>,
) -> Result<Call, CallError> {
    check::address(target, "the target contract")?;
    check::address(collateral, "the collateral token")?;
    // An unprepared condition reverts ("condition not prepared yet"); the zero id never is.
    check::id(condition, "the condition id")?;
    // Split and merge (the calls with an amount) need two sets or more; redeem takes any.
    if amount.is_some() {
        check::split_partition(sets)?;
    } else {
        check::partition(sets)?;
    }
    let mut args = vec![
        Value::address(collateral),
        Value::b256(parent),
        Value::b256(condition),
        Value::uints(sets),
    ];
    if let Some(a) = amount {
        args.push(Value::uint(a));
    }
    Ok(Call::new(target, encode_call(selector, &args)))
}

/// `payoutNumerators(condition, index)` on ConditionalTokens (a read): outcome `index`'s share of
/// the payout; all zero until the condition resolves.
#[must_use]
pub fn payout_numerators(ctf: Address, condition_id: B256, index: u64) -> Call {
    Call::new(
        ctf,
        encode_call(
            Selector::PayoutNumerators.bytes(),
            &[Value::b256(condition_id), Value::small(index)],
        ),
    )
}

/// `payoutDenominator(condition)` on ConditionalTokens (a read): non-zero once resolved.
#[must_use]
pub fn payout_denominator(ctf: Address, condition_id: B256) -> Call {
    Call::new(
        ctf,
        encode_call(
            Selector::PayoutDenominator.bytes(),
            &[Value::b256(condition_id)],
        ),
    )
}

/// `getOutcomeSlotCount(condition)` on ConditionalTokens (a read): 0 for an unprepared condition.
#[must_use]
pub fn outcome_slot_count(ctf: Address, condition_id: B256) -> Call {
    Call::new(
        ctf,
        encode_call(
            Selector::GetOutcomeSlotCount.bytes(),
            &[Value::b256(condition_id)],
        ),
    )
}
