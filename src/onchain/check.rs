//! [`CallError`]: the argument checks of the calldata builders, so a call the contract would
//! revert (an empty or overlapping partition, a zero amount, the zero address) is refused
//! before any gas is spent.

use core::fmt;

use alloy_primitives::{Address, U256};

/// Arguments a calldata builder refuses; nothing was encoded or sent.
///
/// ```
/// use alloy_primitives::{Address, B256, U256};
/// use polyclob::onchain::{CallError, ctf};
///
/// let overlapping = [U256::from(1u8), U256::from(3u8)]; // both hold outcome 0
/// let e = ctf::split_position(
///     Address::repeat_byte(0xad), Address::repeat_byte(0xc0), B256::ZERO,
///     B256::repeat_byte(7), &overlapping, U256::from(1_000_000u64),
/// ).unwrap_err();
/// assert_eq!(e, CallError::OverlappingPartition { first: U256::from(1u8), second: U256::from(3u8) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// An address argument is the zero address.
    ZeroAddress {
        /// Which argument.
        what: &'static str,
    },
    /// An amount that must move something is zero.
    ZeroAmount {
        /// Which argument.
        what: &'static str,
    },
    /// A partition or list of index sets with no element.
    EmptyPartition,
    /// An index set of zero (it names no outcome).
    ZeroIndexSet,
    /// Two index sets of a partition share an outcome.
    OverlappingPartition {
        /// The earlier index set.
        first: U256,
        /// The later one, sharing a bit with `first`.
        second: U256,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroAddress { what } => write!(f, "{what} is the zero address"),
            Self::ZeroAmount { what } => write!(f, "{what} is zero"),
            Self::EmptyPartition => f.write_str("the partition (index sets) is empty"),
            Self::ZeroIndexSet => f.write_str("an index set is 0 (it names no outcome)"),
            Self::OverlappingPartition { first, second } => write!(
                f,
                "index sets {first:#x} and {second:#x} overlap (a partition's sets are disjoint)"
            ),
        }
    }
}

impl std::error::Error for CallError {}

pub(crate) fn address(a: Address, what: &'static str) -> Result<(), CallError> {
    if a == Address::ZERO {
        return Err(CallError::ZeroAddress { what });
    }
    Ok(())
}

pub(crate) fn amount(a: U256, what: &'static str) -> Result<(), CallError> {
    if a.is_zero() {
        return Err(CallError::ZeroAmount { what });
    }
    Ok(())
}

/// Non-empty, no zero set, pairwise disjoint (quadratic: partitions have a few sets).
pub(crate) fn partition(sets: &[U256]) -> Result<(), CallError> {
    if sets.is_empty() {
        return Err(CallError::EmptyPartition);
    }
    for (i, a) in sets.iter().enumerate() {
        if a.is_zero() {
            return Err(CallError::ZeroIndexSet);
        }
        if let Some(b) = sets[..i].iter().find(|b| !(**b & *a).is_zero()) {
            return Err(CallError::OverlappingPartition {
                first: *b,
                second: *a,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions() {
        let u = |v: u64| U256::from(v);
        assert_eq!(partition(&[u(1), u(2)]), Ok(()));
        assert_eq!(partition(&[u(1), u(2), u(4)]), Ok(()));
        assert_eq!(partition(&[u(3), u(4)]), Ok(()));
        assert_eq!(partition(&[]), Err(CallError::EmptyPartition));
        assert_eq!(partition(&[u(1), u(0)]), Err(CallError::ZeroIndexSet));
        assert_eq!(
            partition(&[u(1), u(2), u(6)]),
            Err(CallError::OverlappingPartition {
                first: u(2),
                second: u(6)
            })
        );
        assert_eq!(
            partition(&[u(5), u(5)]),
            Err(CallError::OverlappingPartition {
                first: u(5),
                second: u(5)
            })
        );
        assert!(address(Address::ZERO, "spender").is_err());
        assert_eq!(
            amount(U256::ZERO, "amount").unwrap_err().to_string(),
            "amount is zero"
        );
    }
}
