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

use alloy_primitives::{Address, B256, U256};

use super::Call;
use super::Selector;
use super::abi::{Value, encode_call};
use crate::types::{ConditionId, PositionId, Protocol};

/// The `bytes31` word of a V2 condition; `None` for a CTF condition.
fn word(condition: ConditionId) -> Option<B256> {
    (condition.protocol() == Protocol::V2).then(|| B256::from(*condition.as_bytes32()))
}

/// `split(conditionId, amount)` on the Router: `amount` pUSD becomes `amount` of each outcome.
/// `None` for a CTF condition (those split through the collateral adapters, [`ctf`](super::ctf)).
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::router;
/// use polyclob::types::ConditionId;
///
/// let cond: ConditionId = format!("0x01{}", "ab".repeat(30)).parse()?;
/// let call = router::split(Address::repeat_byte(0x12), cond, U256::from(1_000_000u64)).unwrap();
/// assert_eq!(&call.data()[..4], &[0x82, 0xd3, 0xb9, 0xf1]);
/// assert_eq!(call.data()[4 + 31], 0, "bytes31 is left-aligned");
/// # Ok::<(), polyclob::types::ProtocolError>(())
/// ```
#[must_use]
pub fn split(router: Address, condition: ConditionId, amount: U256) -> Option<Call> {
    let c = word(condition)?;
    Some(Call::new(
        router,
        encode_call(
            Selector::RouterSplit.bytes(),
            &[Value::b256(c), Value::uint(amount)],
        ),
    ))
}

/// `merge(conditionId, amount)` on the Router: `amount` of each outcome becomes `amount` pUSD.
/// `None` for a CTF condition.
#[must_use]
pub fn merge(router: Address, condition: ConditionId, amount: U256) -> Option<Call> {
    let c = word(condition)?;
    Some(Call::new(
        router,
        encode_call(
            Selector::RouterMerge.bytes(),
            &[Value::b256(c), Value::uint(amount)],
        ),
    ))
}

/// `redeem(conditionId, outcomeIndex, amount)` on the Router: after resolution, `amount` of
/// outcome `outcome` (0 = YES, 1 = NO) pays out. `None` for a CTF condition.
#[must_use]
pub fn redeem(router: Address, condition: ConditionId, outcome: u8, amount: U256) -> Option<Call> {
    let c = word(condition)?;
    Some(Call::new(
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
    fn ctf_conditions_have_no_router_call() {
        let ctf = ConditionId::ctf([7; 32]);
        let r = Address::repeat_byte(1);
        assert!(split(r, ctf, U256::from(1u8)).is_none());
        assert!(merge(r, ctf, U256::from(1u8)).is_none());
        assert!(redeem(r, ctf, 0, U256::from(1u8)).is_none());
    }

    #[test]
    fn redeem_layout() {
        let cond = ConditionId::v2([0xab; 31]);
        let call = redeem(Address::repeat_byte(1), cond, 1, U256::from(5u8)).unwrap();
        let d = call.data();
        assert_eq!(d.len(), 4 + 96);
        assert_eq!(&d[4..35], &[0xab; 31]);
        assert_eq!(d[35], 0);
        assert_eq!(d[4 + 63], 1);
        assert_eq!(d[4 + 95], 5);
    }
}
