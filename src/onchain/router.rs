//! Protocol V2 position calls: the Router's split, merge and redeem, and the PositionManager's
//! payout read.
//!
//! ABI (docs.polymarket.com `/migrate/polymarket-v2/contract-integrations`, "Router ABI" and
//! "PositionManager ABI"; Polymarket's ts-sdk `ROUTER_*_FUNCTION`; PositionManager.sol in
//! Polymarket/polymarket-v2-external):
//!
//! ```text
//! Router.split(bytes31 conditionId, uint256 amount)
//! Router.merge(bytes31 conditionId, uint256 amount)
//! Router.redeem(bytes31 conditionId, uint256 outcomeIndex, uint256 amount)
//! PositionManager.getPayout(uint256 positionId, uint256 amount) view returns (uint256)
//! ```
//!
//! The Router pulls pUSD (split) or positions (merge, redeem) from the caller and returns the
//! outputs to the caller in the same transaction: approve pUSD to it for splits, and make it
//! a PositionManager operator (`setApprovalForAll`) for merges and redemptions. `amount` is in
//! 10⁻⁶ units (one pUSD = one share); a merge spends `amount` of each outcome; a redemption
//! burns exactly `amount` of one outcome (0 = YES, 1 = NO), unlike CTF's whole-balance
//! redemption. A `bytes31` argument fills the left 31 bytes of its ABI word.

use alloy_primitives::{Address, U256};

use super::abi::{Value, encode_call};
use super::{Call, CallError, Selector, check};
use crate::types::{ConditionId, PositionId};

/// `split(conditionId, amount)` on the Router: `amount` pUSD becomes `amount` of each outcome.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::{CallError, router};
/// use polyclob::types::{ConditionId, Protocol};
///
/// let cond: ConditionId = format!("0x01{}", "ab".repeat(30)).parse()?;
/// let call = router::split(Address::repeat_byte(0x12), cond, U256::from(1_000_000u64))?;
/// assert_eq!(&call.data()[..4], &[0x82, 0xd3, 0xb9, 0xf1]);
/// assert_eq!(call.data()[4 + 31], 0, "bytes31 is left-aligned");
/// // A CTF condition says why it has no Router call.
/// let ctf = ConditionId::ctf([7; 32]);
/// assert_eq!(
///     router::split(Address::repeat_byte(0x12), ctf, U256::from(1u8)).unwrap_err(),
///     CallError::WrongProtocol { expected: Protocol::V2 }
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A zero Router or amount, a CTF condition, or a V2 condition of no known module
/// ([`CallError`]).
pub fn split(router: Address, condition: ConditionId, amount: U256) -> Result<Call, CallError> {
    let c = binary_args(router, condition, amount)?;
    Ok(Call::new(
        router,
        encode_call(
            Selector::RouterSplit.bytes(),
            &[Value::b256(c), Value::uint(amount)],
        ),
    ))
}

/// `merge(conditionId, amount)` on the Router: `amount` of each outcome becomes `amount` pUSD.
///
/// # Errors
/// As [`split`].
pub fn merge(router: Address, condition: ConditionId, amount: U256) -> Result<Call, CallError> {
    let c = binary_args(router, condition, amount)?;
    Ok(Call::new(
        router,
        encode_call(
            Selector::RouterMerge.bytes(),
            &[Value::b256(c), Value::uint(amount)],
        ),
    ))
}

/// The checks every Router call shares; the condition's word.
fn binary_args(
    router: Address,
    condition: ConditionId,
    amount: U256,
) -> Result<alloy_primitives::B256, CallError> {
    check::address(router, "the Router")?;
    let c = check::v2_condition(condition)?;
    check::amount(amount, "the amount")?;
    Ok(c)
}

/// `redeem(conditionId, outcomeIndex, amount)` on the Router: after resolution, `amount` of
/// outcome `outcome` (0 = YES, 1 = NO) pays out.
///
/// # Errors
/// As [`split`], and an outcome other than 0 or 1.
pub fn redeem(
    router: Address,
    condition: ConditionId,
    outcome: u8,
    amount: U256,
) -> Result<Call, CallError> {
    let c = binary_args(router, condition, amount)?;
    check::outcome(outcome)?;
    Ok(Call::new(
        router,
        encode_call(
            Selector::RouterRedeem.bytes(),
            &[
                Value::b256(c),
                Value::small(u64::from(outcome)),
                Value::uint(amount),
            ],
        ),
    ))
}

/// `getPayout(positionId, amount)` on the PositionManager (a read): the pUSD, in 10⁻⁶ units,
/// that redeeming `amount` of the position pays. Unresolved positions may revert; zero is a
/// losing position's valid answer.
#[must_use]
pub fn get_payout(position_manager: Address, position: PositionId, amount: U256) -> Call {
    Call::new(
        position_manager,
        encode_call(
            Selector::GetPayout.bytes(),
            &[Value::uint(position.as_u256()), Value::uint(amount)],
        ),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ctf_conditions_have_no_router_call_and_say_why() {
        let ctf = ConditionId::ctf([7; 32]);
        let r = Address::repeat_byte(1);
        let why = Err(CallError::WrongProtocol {
            expected: crate::types::Protocol::V2,
        });
        assert_eq!(split(r, ctf, U256::from(1u8)), why);
        assert_eq!(merge(r, ctf, U256::from(1u8)), why);
        assert_eq!(redeem(r, ctf, 0, U256::from(1u8)), why);
    }

    #[test]
    fn redeem_layout() {
        let mut bytes = [0xab; 31];
        bytes[0] = 1; // the binary module
        let cond = ConditionId::v2(bytes);
        let call = redeem(Address::repeat_byte(1), cond, 1, U256::from(5u8)).unwrap();
        let d = call.data();
        assert_eq!(d.len(), 4 + 96);
        assert_eq!(&d[4..35], &bytes);
        assert_eq!(d[35], 0);
        assert_eq!(d[4 + 63], 1);
        assert_eq!(d[4 + 95], 5);
    }
}
