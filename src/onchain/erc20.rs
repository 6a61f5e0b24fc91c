//! ERC-20 calls on the collateral token (pUSD, or USDC.e on the legacy exchange).

use alloy_primitives::{Address, U256};

use super::abi::{Value, encode_call};
use super::{Call, CallError, Selector, check};

/// `approve(spender, amount)` on `token`: lets `spender` move up to `amount` of the caller's
/// tokens. Polymarket's approvals use `U256::MAX`.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// let call = polyclob::onchain::erc20::approve(Address::repeat_byte(1), Address::repeat_byte(2), U256::MAX)?;
/// assert_eq!(&call.data()[36..], &[0xff; 32]);
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// A zero token or spender ([`CallError`]). A zero amount is allowed: it revokes.
pub fn approve(token: Address, spender: Address, amount: U256) -> Result<Call, CallError> {
    check::address(token, "the token")?;
    check::address(spender, "the spender")?;
    Ok(Call::new(
        token,
        encode_call(
            Selector::Approve.bytes(),
            &[Value::address(spender), Value::uint(amount)],
        ),
    ))
}

/// `transfer(to, amount)` on `token`.
///
/// # Errors
/// A zero token or recipient, or a zero amount ([`CallError`]).
pub fn transfer(token: Address, to: Address, amount: U256) -> Result<Call, CallError> {
    check::address(token, "the token")?;
    check::address(to, "the recipient")?;
    check::amount(amount, "the amount")?;
    Ok(Call::new(
        token,
        encode_call(
            Selector::Transfer.bytes(),
            &[Value::address(to), Value::uint(amount)],
        ),
    ))
}

/// `balanceOf(owner)` on `token` (a read: send it with `eth_call`).
#[must_use]
pub fn balance_of(token: Address, owner: Address) -> Call {
    Call::new(
        token,
        encode_call(Selector::BalanceOf.bytes(), &[Value::address(owner)]),
    )
}

/// `allowance(owner, spender)` on `token` (a read).
#[must_use]
pub fn allowance(token: Address, owner: Address, spender: Address) -> Call {
    Call::new(
        token,
        encode_call(
            Selector::Allowance.bytes(),
            &[Value::address(owner), Value::address(spender)],
        ),
    )
}
