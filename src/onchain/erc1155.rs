//! ERC-1155 calls on ConditionalTokens, which holds the outcome tokens.

use alloy_primitives::{Address, U256};

use super::abi::{Value, encode_call};
use super::{Call, CallError, Selector, check};

/// `setApprovalForAll(operator, approved)` on `tokens` (the ConditionalTokens contract): lets
/// `operator` (an exchange or adapter) move every outcome token of the caller.
///
/// ```
/// use alloy_primitives::Address;
/// let call = polyclob::onchain::erc1155::set_approval_for_all(Address::repeat_byte(1), Address::repeat_byte(2), true)?;
/// assert_eq!(call.data()[67], 1);
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// A zero token contract or operator ([`CallError`]).
pub fn set_approval_for_all(
    tokens: Address,
    operator: Address,
    approved: bool,
) -> Result<Call, CallError> {
    check::address(tokens, "the token contract")?;
    check::address(operator, "the operator")?;
    Ok(Call::new(
        tokens,
        encode_call(
            Selector::SetApprovalForAll.bytes(),
            &[Value::address(operator), Value::bool(approved)],
        ),
    ))
}

/// `isApprovedForAll(owner, operator)` on `tokens` (a read).
#[must_use]
pub fn is_approved_for_all(tokens: Address, owner: Address, operator: Address) -> Call {
    Call::new(
        tokens,
        encode_call(
            Selector::IsApprovedForAll.bytes(),
            &[Value::address(owner), Value::address(operator)],
        ),
    )
}

/// `balanceOf(owner, id)` on `tokens`: the owner's balance of one outcome token (a read).
#[must_use]
pub fn balance_of(tokens: Address, owner: Address, id: U256) -> Call {
    Call::new(
        tokens,
        encode_call(
            Selector::BalanceOf1155.bytes(),
            &[Value::address(owner), Value::uint(id)],
        ),
    )
}

/// `balanceOfBatch(owners, ids)` on `tokens`: `owners[i]`'s balance of `ids[i]` (a read).
#[must_use]
pub fn balance_of_batch(tokens: Address, owners: &[Address], ids: &[U256]) -> Call {
    let owners = Value::Array(owners.iter().map(|a| Value::address(*a)).collect());
    Call::new(
        tokens,
        encode_call(
            Selector::BalanceOfBatch.bytes(),
            &[owners, Value::uints(ids)],
        ),
    )
}
