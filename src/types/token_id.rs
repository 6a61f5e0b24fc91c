//! Token (CTF) and position ids: a `uint256` kept with its decimal text.

use core::fmt;
use core::str::FromStr;

use alloy_primitives::U256;

/// The largest number of decimal digits a `uint256` has (2²⁵⁶ − 1 has 78).
const MAX_DIGITS: usize = 78;

/// A token id (V1/V2) or position id (V3), parsed once.
///
/// The order hash needs the 256-bit integer and the JSON body needs the decimal string; both
/// are kept, on the stack, so the order path neither re-parses nor formats the 77-digit id.
///
/// ```
/// use polyclob::order::TokenId;
///
/// let id: TokenId = "71321045679252212594626385532706912750332728571942532289631379312455583992563".parse()?;
/// assert_eq!(id.as_str().len(), 77);
/// assert_eq!(id.as_u256().to_string(), id.as_str());
/// assert!("0x12".parse::<TokenId>().is_err());
/// # Ok::<(), polyclob::order::TokenIdError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenId {
    value: U256,
    digits: [u8; MAX_DIGITS],
    len: u8,
}

/// A token id that is not a canonical decimal `uint256`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenIdError {
    reason: &'static str,
    offset: usize,
}

impl TokenIdError {
    /// What was wrong.
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        self.reason
    }

    /// Byte offset of the problem in the input.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for TokenIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid token id: {} at byte {}",
            self.reason, self.offset
        )
    }
}

impl std::error::Error for TokenIdError {}

impl TokenId {
    /// Token id 0 (the upstream SDKs' default order).
    pub const ZERO: Self = {
        let mut digits = [0u8; MAX_DIGITS];
        digits[0] = b'0';
        Self {
            value: U256::ZERO,
            digits,
            len: 1,
        }
    };

    /// Parses decimal digits (no sign, no leading zeros except `"0"`, at most 2²⁵⁶ − 1).
    ///
    /// # Errors
    /// [`TokenIdError`] naming the offending byte.
    pub fn parse(bytes: &[u8]) -> Result<Self, TokenIdError> {
        if bytes.is_empty() {
            return Err(TokenIdError {
                reason: "empty",
                offset: 0,
            });
        }
        if bytes.len() > MAX_DIGITS {
            return Err(TokenIdError {
                reason: "too long for uint256",
                offset: MAX_DIGITS,
            });
        }
        if bytes.len() > 1 && bytes[0] == b'0' {
            return Err(TokenIdError {
                reason: "leading zero",
                offset: 0,
            });
        }
        let mut value = U256::ZERO;
        let ten = U256::from(10u8);
        for (i, &b) in bytes.iter().enumerate() {
            if !b.is_ascii_digit() {
                return Err(TokenIdError {
                    reason: "not a decimal digit",
                    offset: i,
                });
            }
            value = value
                .checked_mul(ten)
                .and_then(|v| v.checked_add(U256::from(b - b'0')))
                .ok_or(TokenIdError {
                    reason: "too large for uint256",
                    offset: i,
                })?;
        }
        let mut digits = [0u8; MAX_DIGITS];
        digits[..bytes.len()].copy_from_slice(bytes);
        Ok(Self {
            value,
            digits,
            // At most 78, checked above.
            len: bytes.len() as u8,
        })
    }

    /// The id for a `uint256`.
    #[must_use]
    pub fn from_u256(value: U256) -> Self {
        let mut digits = [0u8; MAX_DIGITS];
        let mut tmp = [0u8; MAX_DIGITS];
        let mut n = 0;
        let mut v = value;
        let ten = U256::from(10u8);
        loop {
            let (q, r) = v.div_rem(ten);
            // r < 10.
            tmp[n] = b'0' + r.to::<u8>();
            n += 1;
            v = q;
            if v.is_zero() {
                break;
            }
        }
        for i in 0..n {
            digits[i] = tmp[n - 1 - i];
        }
        Self {
            value,
            digits,
            len: n as u8,
        }
    }

    /// The id as an integer (what the order struct hashes).
    #[must_use]
    pub const fn as_u256(&self) -> U256 {
        self.value
    }

    /// The decimal digits as bytes (the JSON body writer's view: no UTF-8 check).
    #[must_use]
    pub(crate) fn as_digits(&self) -> &[u8] {
        &self.digits[..usize::from(self.len)]
    }

    /// The decimal text (what the JSON body sends).
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored.
        core::str::from_utf8(&self.digits[..usize::from(self.len)]).unwrap_or("0")
    }
}

impl FromStr for TokenId {
    type Err = TokenIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes())
    }
}

impl From<U256> for TokenId {
    fn from(v: U256) -> Self {
        Self::from_u256(v)
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenId({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format_agree() {
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        for s in [
            "0",
            "1",
            "456",
            "71321045679252212594626385532706912750332728571942532289631379312455583992563",
            max,
        ] {
            let id: TokenId = s.parse().unwrap();
            assert_eq!(id.as_str(), s);
            assert_eq!(id.as_u256().to_string(), s);
            assert_eq!(TokenId::from_u256(id.as_u256()), id);
        }
        let over = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        assert_eq!(
            over.parse::<TokenId>().unwrap_err().reason(),
            "too large for uint256"
        );
        assert_eq!("".parse::<TokenId>().unwrap_err().reason(), "empty");
        assert_eq!(
            "012".parse::<TokenId>().unwrap_err().reason(),
            "leading zero"
        );
        assert_eq!("12a".parse::<TokenId>().unwrap_err().offset(), 2);
        assert_eq!("-1".parse::<TokenId>().unwrap_err().offset(), 0);
        assert!(format!("1{max}").parse::<TokenId>().is_err());
    }
}
