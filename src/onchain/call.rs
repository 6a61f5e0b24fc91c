//! [`Call`]: one contract call (target, value, calldata), and the function selectors used.

use core::fmt;

use alloy_primitives::{Address, U256};

/// One contract call: the target, the native value sent with it, and the ABI calldata.
///
/// Every write in this module is built as a `Call` first, so it can be inspected, sent from an
/// EOA, or wrapped for a Safe or proxy wallet ([`wallet`](super::wallet)).
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::erc20;
///
/// let call = erc20::approve(Address::repeat_byte(1), Address::repeat_byte(2), U256::MAX).unwrap();
/// assert_eq!(call.to(), Address::repeat_byte(1));
/// assert_eq!(&call.data()[..4], &[0x09, 0x5e, 0xa7, 0xb3]);
/// assert_eq!(call.data().len(), 4 + 64);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Call {
    to: Address,
    value: U256,
    data: Vec<u8>,
}

impl Call {
    /// A call of `data` on `to`, sending no native value.
    #[must_use]
    pub const fn new(to: Address, data: Vec<u8>) -> Self {
        Self {
            to,
            value: U256::ZERO,
            data,
        }
    }

    /// The same call sending `value` wei of the native token. Default is zero.
    #[must_use]
    pub const fn with_value(mut self, value: U256) -> Self {
        self.value = value;
        self
    }

    /// The contract called.
    #[must_use]
    pub const fn to(&self) -> Address {
        self.to
    }

    /// The native value sent, in wei.
    #[must_use]
    pub const fn value(&self) -> U256 {
        self.value
    }

    /// The calldata: selector and ABI-encoded arguments.
    #[must_use]
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The calldata, consuming the call.
    #[must_use]
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// The 4-byte function selector, if the calldata has one.
    #[must_use]
    pub fn selector(&self) -> Option<[u8; 4]> {
        self.data.get(..4).and_then(|s| s.try_into().ok())
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("to", &self.to)
            .field("value", &self.value)
            .field("data", &alloy_primitives::hex::encode_prefixed(&self.data))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_and_debug() {
        let c = Call::new(Address::repeat_byte(3), vec![1, 2, 3, 4, 5]).with_value(U256::from(9u8));
        assert_eq!(c.selector(), Some([1, 2, 3, 4]));
        assert_eq!(c.value(), U256::from(9u8));
        assert!(format!("{c:?}").contains("0x0102030405"));
        assert_eq!(Call::new(Address::ZERO, vec![1]).selector(), None);
    }
}
