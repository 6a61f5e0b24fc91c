//! Which protocol a market lives on — CTF (token ids, ConditionalTokens) or Polymarket
//! Protocol V2 (position ids, PositionManager, ExchangeV3) — and the ids whose shape depends on
//! it: condition ids (`bytes32` or `bytes31`) and V2 position ids.
//!
//! Facts (docs.polymarket.com `/migrate/polymarket-v2/api-integrations`, `…/contract-integrations`,
//! `/resources/onchain-position-data`): Gamma `version` `"v2"` markets trade `positionIds`, sign
//! for ExchangeV3 (domain version `"3"`), read balances as `CONDITIONAL-V2` and settle through
//! the Router; `"v1"` markets keep CTF token ids. A V2 condition id is `bytes31`; the CLOB and
//! the Data API want it right-padded to 64 hex digits. A V2 position id is
//! `[moduleId 8 | baseHash 128 | arity 16 | reserved 64 | resolutionChain 16 | conditionIndex 16 |
//! outcomeIndex 8]` bits, its condition id the top 31 bytes.
//!
//! ```
//! use polyclob::types::{ConditionId, Protocol, ProtocolError};
//!
//! assert_eq!(Protocol::parse("v2")?, Protocol::V2);
//! assert!(Protocol::parse("v3").is_err());
//!
//! let v2: ConditionId = "0x0100000000000000000000000000000000000000000000000000000000000a".parse()?;
//! assert_eq!(v2.protocol(), Protocol::V2);
//! // Every endpoint gets the 64-hex form.
//! let padded = "0x0100000000000000000000000000000000000000000000000000000000000a00";
//! assert_eq!(v2.to_string(), padded);
//! // Read back, the padded form could be either protocol: the caller (or the market, or a
//! // position id) says which; it is never guessed.
//! assert_eq!(padded.parse::<ConditionId>(), Err(ProtocolError::AmbiguousConditionId));
//! assert_eq!(ConditionId::parse_for(padded, Protocol::V2)?, v2);
//! # Ok::<(), polyclob::types::ProtocolError>(())
//! ```

use core::fmt;
use core::str::FromStr;

use alloy_primitives::U256;

use super::{ExchangeVersion, TokenId};

/// The protocol a market, book or token belongs to.
///
/// ```
/// use polyclob::types::{ExchangeVersion, Protocol};
/// assert_eq!(Protocol::V2.exchange_version(ExchangeVersion::V2), ExchangeVersion::V3);
/// assert_eq!(Protocol::Ctf.exchange_version(ExchangeVersion::V2), ExchangeVersion::V2);
/// assert_eq!(Protocol::V2.as_str(), "v2");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// CTF markets (Gamma `version` `"v1"`): token ids on ConditionalTokens, CTF Exchange V2.
    #[default]
    Ctf,
    /// Polymarket Protocol V2 (`"v2"`): position ids on the PositionManager, ExchangeV3.
    V2,
}

impl Protocol {
    /// The wire name: `"v1"` or `"v2"` (Gamma `version`, CLOB `v`, the books' `version`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Ctf => "v1",
            Self::V2 => "v2",
        }
    }

    /// The protocol a wire `version` names: `"v1"` or `"v2"` (ASCII case-insensitive).
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for anything else, the empty string included.
    pub fn parse(version: &str) -> Result<Self, ProtocolError> {
        let v = version.trim();
        if v.eq_ignore_ascii_case("v1") {
            Ok(Self::Ctf)
        } else if v.eq_ignore_ascii_case("v2") {
            Ok(Self::V2)
        } else {
            Err(ProtocolError::UnknownVersion(truncated(v)))
        }
    }

    /// The exchange an order on this protocol is signed for: ExchangeV3 on V2, otherwise
    /// `token_exchange` (what the CLOB's `GET /version` says for token-ID markets).
    #[must_use]
    pub const fn exchange_version(self, token_exchange: ExchangeVersion) -> ExchangeVersion {
        match self {
            Self::V2 => ExchangeVersion::V3,
            Self::Ctf => token_exchange,
        }
    }

    /// The protocol of a book from its `version` member (REST `GET /book`, WS `book`): V2
    /// books carry `"v2"`, CTF books omit it.
    ///
    /// ```
    /// use polyclob::types::Protocol;
    /// assert_eq!(Protocol::of_book(Some("v2")), Ok(Protocol::V2));
    /// assert_eq!(Protocol::of_book(None), Ok(Protocol::Ctf));
    /// assert!(Protocol::of_book(Some("v9")).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ProtocolError::UnknownVersion`] for a `version` other than `"v1"`/`"v2"`.
    pub fn of_book(version: Option<&str>) -> Result<Self, ProtocolError> {
        version.map_or(Ok(Self::Ctf), Self::parse)
    }

    /// The protocol of an order-signing generation: V2 for ExchangeV3, CTF otherwise.
    #[must_use]
    pub const fn of_exchange(version: ExchangeVersion) -> Self {
        match version {
            ExchangeVersion::V3 => Self::V2,
            _ => Self::Ctf,
        }
    }

    /// The protocol an outcome id's layout says: V2 when it decodes as a V2 position id
    /// ([`PositionId::parse`]), CTF otherwise (a CTF token id is a hash and has no layout).
    ///
    /// Use it only where nothing better is known: the market's own `version` wins.
    #[must_use]
    pub fn of_id(id: &TokenId) -> Self {
        if PositionId::parse(id).is_ok() {
            Self::V2
        } else {
            Self::Ctf
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Protocol {
    type Err = ProtocolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Keeps an error's copy of bad input short.
fn truncated(s: &str) -> String {
    s.chars().take(80).collect()
}

/// A protocol fact that does not hold: an unknown `version`, a condition id of the wrong width,
/// a position id whose layout does not parse.
///
/// ```
/// use polyclob::types::{ConditionId, ProtocolError};
/// let e = format!("0x{}", "a".repeat(63)).parse::<ConditionId>().unwrap_err();
/// assert!(matches!(e, ProtocolError::BadConditionId { .. }));
/// assert!(e.to_string().contains("63"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A `version` that is neither `"v1"` nor `"v2"` (kept, truncated to 80 characters).
    UnknownVersion(String),
    /// A condition id that is not `0x` + 64 hex digits (`bytes32`, or a right-padded `bytes31`)
    /// or `0x` + 62 (`bytes31`).
    BadConditionId {
        /// Hex digits after the `0x`.
        digits: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A position id that is not a V2 layout.
    BadPositionId {
        /// What was wrong.
        reason: &'static str,
    },
    /// A 64-hex condition id that may be either protocol: its last byte is zero and its first
    /// is a V2 module, so it may be a right-padded V2 (`bytes31`) id as well as a CTF one.
    /// Say which ([`ConditionId::parse_for`]: from the market's `version`, or the caller), or
    /// derive it from the row's token ([`ConditionId::parse_with_token`]).
    AmbiguousConditionId,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownVersion(v) => {
                write!(f, "unknown market version {v:?}: expected \"v1\" or \"v2\"")
            }
            Self::BadConditionId { digits, reason } => {
                write!(f, "invalid condition id ({digits} hex digits): {reason}")
            }
            Self::BadPositionId { reason } => write!(f, "not a Protocol V2 position id: {reason}"),
            Self::AmbiguousConditionId => f.write_str(
                "ambiguous condition id: 64 hex digits ending in a zero byte may be a padded \
                 Protocol V2 id or a CTF id; give its protocol (from the market or a position id)",
            ),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// A condition id of either width: `bytes32` (CTF) or `bytes31` (V2), held as 32 bytes with
/// the V2 id right-padded by one zero byte.
///
/// Every endpoint takes the 64-hex form ([`Display`](fmt::Display), [`Self::write_hex`]):
/// the CLOB answers `/clob-markets/{62-hex}` with 404 and the Data API `/v2/resolutions` with
/// 400, so no request should carry the 62-digit form.
///
/// ```
/// use polyclob::types::{ConditionId, Protocol};
///
/// // 64 hex digits not ending in a zero byte: only CTF has those.
/// let ctf: ConditionId = "0xd9b1ad3d4c1b2e95a54e3b77de0e6a16a1ba8e1b7bac56c0ec4c7e8a0c7f3c6a".parse()?;
/// assert_eq!(ctf.protocol(), Protocol::Ctf);
/// assert!(ctf.as_bytes31().is_none());
/// // A padded V2 id is read as V2 when the market says so.
/// let padded = format!("0x01{}00", "0".repeat(60));
/// let v2 = ConditionId::parse_for(&padded, Protocol::V2)?;
/// assert_eq!(v2.to_string(), padded);
/// assert_eq!(v2.as_bytes31().map(|b| b.len()), Some(31));
/// # Ok::<(), polyclob::types::ProtocolError>(())
/// ```
///
/// A bare `bytes32` says nothing of its protocol (a padded V2 id is 32 bytes too), so it does
/// not convert: name the protocol with [`ConditionId::ctf`], [`ConditionId::parse_for`] or
/// [`ConditionId::parse_with_token`].
///
/// ```compile_fail
/// let padded_v2 = polyclob::types::B256::repeat_byte(1);
/// let c: polyclob::types::ConditionId = padded_v2.into(); // no silent CTF path
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConditionId {
    bytes: [u8; 32],
    protocol: Protocol,
}

impl ConditionId {
    /// A CTF (`bytes32`) condition id.
    #[must_use]
    pub const fn ctf(bytes: [u8; 32]) -> Self {
        Self {
            bytes,
            protocol: Protocol::Ctf,
        }
    }

    /// A V2 (`bytes31`) condition id.
    #[must_use]
    pub const fn v2(bytes: [u8; 31]) -> Self {
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < 31 {
            out[i] = bytes[i];
            i += 1;
        }
        Self {
            bytes: out,
            protocol: Protocol::V2,
        }
    }

    /// Parses a condition id whose width says its protocol: 62 hex digits is V2; 64 is CTF
    /// unless it could also be a right-padded V2 id (last byte zero, first byte a V2 module),
    /// which is refused rather than guessed. The `0x` is optional.
    ///
    /// # Errors
    /// [`ProtocolError::AmbiguousConditionId`] for a 64-hex id that may be either protocol
    /// (use [`parse_for`](Self::parse_for) or [`parse_with_token`](Self::parse_with_token));
    /// [`ProtocolError::BadConditionId`] for any other length or a non-hex digit.
    pub fn parse(text: &str) -> Result<Self, ProtocolError> {
        if strip(text).len() == 62 {
            return Self::parse_for(text, Protocol::V2);
        }
        let c = Self::parse_for(text, Protocol::Ctf)?;
        if c.bytes[31] == 0 && is_module(c.bytes[0]) {
            return Err(ProtocolError::AmbiguousConditionId);
        }
        Ok(c)
    }

    /// Parses the condition of a row that also names its outcome token (Data API positions,
    /// trades and activity): V2 when `token` is a V2 position id of this very condition (a
    /// position id carries its condition in its top 31 bytes), CTF otherwise.
    ///
    /// ```
    /// use polyclob::types::{ConditionId, PositionId, Protocol, TokenId};
    ///
    /// // A binary-module (1) condition: module byte, 16-byte base hash, the rest zero.
    /// let mut bytes = [0u8; 31];
    /// bytes[0] = 1;
    /// bytes[1..17].copy_from_slice(&[0xab; 16]);
    /// let v2 = ConditionId::v2(bytes);
    /// let yes = PositionId::of(v2, 0)?.as_u256().to_string();
    /// let token = TokenId::parse(yes.as_bytes()).unwrap();
    /// let padded = v2.to_string(); // what the Data API sends
    /// assert_eq!(ConditionId::parse_with_token(&padded, &token)?.protocol(), Protocol::V2);
    /// // A CTF token id (a hash) says CTF, even for a 64-hex id ending in a zero byte.
    /// let ctf_token = TokenId::parse(b"71321045679252212594626385532706912750332728571942532289631379312455583992563").unwrap();
    /// assert_eq!(ConditionId::parse_with_token(&padded, &ctf_token)?.protocol(), Protocol::Ctf);
    /// # Ok::<(), polyclob::types::ProtocolError>(())
    /// ```
    ///
    /// # Errors
    /// [`ProtocolError::BadConditionId`] when `text` is not a condition id of the protocol
    /// the token says.
    pub fn parse_with_token(text: &str, token: &TokenId) -> Result<Self, ProtocolError> {
        if let Ok(position) = PositionId::parse(token) {
            let c = position.condition_id();
            if Self::parse_for(text, Protocol::V2) == Ok(c) {
                return Ok(c);
            }
        }
        Self::parse_for(text, Protocol::Ctf)
    }

    /// The module byte of a V2 condition (its first byte): 1 binary, 2 neg-risk,
    /// 3 combinatorial, 4 directional; `None` for a CTF condition.
    #[must_use]
    pub const fn module_id(&self) -> Option<u8> {
        match self.protocol {
            Protocol::V2 => Some(self.bytes[0]),
            Protocol::Ctf => None,
        }
    }

    /// Parses a condition id of a market whose protocol is known: a CTF id is 64 hex digits; a
    /// V2 id is 62, or 64 whose last byte is zero (the padded form endpoints answer with).
    ///
    /// # Errors
    /// [`ProtocolError::BadConditionId`] for a length the protocol does not allow, a padded V2
    /// id whose last byte is not zero, or a non-hex digit.
    pub fn parse_for(text: &str, protocol: Protocol) -> Result<Self, ProtocolError> {
        let hex = strip(text).as_bytes();
        let bad = |reason| ProtocolError::BadConditionId {
            digits: hex.len(),
            reason,
        };
        let want: &[usize] = match protocol {
            Protocol::Ctf => &[64],
            Protocol::V2 => &[62, 64],
        };
        if !want.contains(&hex.len()) {
            return Err(bad(match protocol {
                Protocol::Ctf => "a CTF condition id is bytes32 (64 hex digits)",
                Protocol::V2 => "a V2 condition id is bytes31 (62 hex digits, or 64 right-padded)",
            }));
        }
        let mut bytes = [0u8; 32];
        for (i, pair) in hex.chunks(2).enumerate() {
            let (Some(hi), Some(lo)) = (nibble(pair[0]), pair.get(1).copied().and_then(nibble))
            else {
                return Err(bad("not a hex digit"));
            };
            bytes[i] = hi << 4 | lo;
        }
        if protocol == Protocol::V2 && bytes[31] != 0 {
            return Err(bad("a padded V2 condition id must end in a zero byte"));
        }
        Ok(Self { bytes, protocol })
    }

    /// The protocol (width) of this id.
    #[must_use]
    pub const fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The 32 bytes as every endpoint and `bytes32` ABI slot wants them (V2 right-padded).
    #[must_use]
    pub const fn as_bytes32(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The 31 bytes of a V2 id (`None` for a CTF id).
    #[must_use]
    pub fn as_bytes31(&self) -> Option<[u8; 31]> {
        (self.protocol == Protocol::V2).then(|| {
            let mut out = [0u8; 31];
            out.copy_from_slice(&self.bytes[..31]);
            out
        })
    }

    /// `0x` + 64 lowercase hex digits, on the stack.
    #[must_use]
    pub fn to_hex(&self) -> [u8; 66] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 66];
        out[0] = b'0';
        out[1] = b'x';
        for (i, b) in self.bytes.iter().enumerate() {
            out[2 + 2 * i] = HEX[usize::from(b >> 4)];
            out[3 + 2 * i] = HEX[usize::from(b & 15)];
        }
        out
    }

    /// Appends the 64-hex form to `out`.
    pub fn write_hex(&self, out: &mut String) {
        let hex = self.to_hex();
        // Hex digits are ASCII.
        out.extend(hex.iter().map(|&b| char::from(b)));
    }
}

fn strip(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t)
}

const fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for ConditionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_hex();
        f.write_str(core::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for ConditionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConditionId({:?}, {self})", self.protocol)
    }
}

impl FromStr for ConditionId {
    type Err = ProtocolError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A condition id as an endpoint wants it: the 64-hex form of `text` (a 62-hex V2 id is
/// right-padded), or `text` unchanged when it is not a condition id at all (a slug, a test
/// name), so a caller's odd id still reaches the server and gets the server's answer.
pub(crate) fn padded_condition(text: &str) -> std::borrow::Cow<'_, str> {
    match ConditionId::parse_for(text, Protocol::V2) {
        Ok(c) if strip(text).len() == 62 => std::borrow::Cow::Owned(c.to_string()),
        _ => std::borrow::Cow::Borrowed(text),
    }
}

/// Whether `module` is a V2 position-id module.
pub(crate) const fn is_module(module: u8) -> bool {
    matches!(
        module,
        MODULE_BINARY | MODULE_NEG_RISK | MODULE_COMBINATORIAL | MODULE_DIRECTIONAL
    )
}

/// A Protocol V2 position id, decoded from its layout.
///
/// ```
/// use polyclob::types::{PositionId, Protocol, TokenId};
///
/// // Binary module (1), base hash 0xab…, outcome 1.
/// use polyclob::U256;
/// let id = (U256::from(1u8) << 248usize) | (U256::from(0xabu8) << 200usize) | U256::from(1u8);
/// let token = TokenId::parse(id.to_string().as_bytes()).unwrap();
/// let p = PositionId::parse(&token)?;
/// assert_eq!((p.module_id(), p.outcome_index()), (1, 1));
/// assert_eq!(p.condition_id().protocol(), Protocol::V2);
/// assert_eq!(PositionId::of(p.condition_id(), 1)?.as_u256(), id);
/// # Ok::<(), polyclob::types::ProtocolError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PositionId {
    value: U256,
}

/// The position-ID modules (`ProtocolModule` in Polymarket's SDK bindings).
const MODULE_BINARY: u8 = 1;
const MODULE_NEG_RISK: u8 = 2;
const MODULE_COMBINATORIAL: u8 = 3;
const MODULE_DIRECTIONAL: u8 = 4;

impl PositionId {
    /// Decodes a V2 position id.
    ///
    /// # Errors
    /// [`ProtocolError::BadPositionId`] when the module, arity, condition index or outcome
    /// index is not one the V2 layout allows.
    pub fn parse(id: &TokenId) -> Result<Self, ProtocolError> {
        Self::from_u256(id.as_u256())
    }

    /// Decodes a V2 position id from its integer.
    ///
    /// # Errors
    /// As [`Self::parse`].
    pub fn from_u256(value: U256) -> Result<Self, ProtocolError> {
        let p = Self { value };
        let bad = |reason| Err(ProtocolError::BadPositionId { reason });
        if p.outcome_index() > 1 {
            return bad("outcome index above 1");
        }
        let (module, arity, index) = (p.module_id(), p.arity(), p.condition_index());
        match module {
            MODULE_BINARY | MODULE_COMBINATORIAL if arity == 0 && index == 0 => Ok(p),
            MODULE_BINARY | MODULE_COMBINATORIAL => {
                bad("binary and combinatorial positions have arity 0 and condition index 0")
            }
            MODULE_NEG_RISK if arity >= 2 && index <= arity => Ok(p),
            MODULE_NEG_RISK => bad("neg-risk positions need arity ≥ 2 and condition index ≤ arity"),
            MODULE_DIRECTIONAL if (2..=0x7fff).contains(&arity) => {
                let ok = if index & 0x8000 == 0 {
                    index <= arity
                } else {
                    (1..arity).contains(&(index & 0x7fff))
                };
                if ok {
                    Ok(p)
                } else {
                    bad("directional condition index out of range")
                }
            }
            MODULE_DIRECTIONAL => bad("directional positions need arity in 2..=32767"),
            _ => bad("unknown module id (top byte)"),
        }
    }

    /// The position of `outcome` (0 = YES/first, 1 = NO/second) of a V2 condition.
    ///
    /// # Errors
    /// [`ProtocolError::BadPositionId`] for a CTF condition, an outcome above 1, or a condition
    /// whose layout is not V2.
    pub fn of(condition: ConditionId, outcome: u8) -> Result<Self, ProtocolError> {
        if condition.protocol() != Protocol::V2 {
            return Err(ProtocolError::BadPositionId {
                reason: "a CTF condition has no V2 position ids",
            });
        }
        let mut bytes = *condition.as_bytes32();
        bytes[31] = outcome;
        Self::from_u256(U256::from_be_bytes(bytes))
    }

    /// The integer.
    #[must_use]
    pub const fn as_u256(&self) -> U256 {
        self.value
    }

    fn bits(&self, shift: usize, width: usize) -> u128 {
        let mask = (U256::from(1u8) << width) - U256::from(1u8);
        ((self.value >> shift) & mask).to::<u128>()
    }

    /// The module (top byte): 1 binary, 2 neg-risk, 3 combinatorial, 4 directional.
    #[must_use]
    pub fn module_id(&self) -> u8 {
        self.bits(248, 8) as u8
    }

    /// The 128-bit base hash.
    #[must_use]
    pub fn base_hash(&self) -> u128 {
        self.bits(120, 128)
    }

    /// The number of conditions of a multi-outcome event (0 for binary).
    #[must_use]
    pub fn arity(&self) -> u16 {
        self.bits(104, 16) as u16
    }

    /// The resolution-chain field, kept as is.
    #[must_use]
    pub fn resolution_chain(&self) -> u16 {
        self.bits(24, 16) as u16
    }

    /// The condition's index in its event.
    #[must_use]
    pub fn condition_index(&self) -> u16 {
        self.bits(8, 16) as u16
    }

    /// The outcome index: 0 (YES) or 1 (NO), what the Router's `redeem` takes.
    #[must_use]
    pub fn outcome_index(&self) -> u8 {
        self.bits(0, 8) as u8
    }

    /// The `bytes31` condition: the id with its outcome byte cleared.
    #[must_use]
    pub fn condition_id(&self) -> ConditionId {
        let mut bytes = self.value.to_be_bytes::<32>();
        bytes[31] = 0;
        ConditionId {
            bytes,
            protocol: Protocol::V2,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn pos(module: u8, arity: u16, index: u16, outcome: u8) -> U256 {
        (U256::from(module) << 248)
            | (U256::from(0x1234_5678u32) << 130)
            | (U256::from(arity) << 104)
            | (U256::from(index) << 8)
            | U256::from(outcome)
    }

    #[test]
    fn versions() {
        for (s, p) in [
            ("v1", Protocol::Ctf),
            ("V2", Protocol::V2),
            (" v2 ", Protocol::V2),
        ] {
            assert_eq!(Protocol::parse(s), Ok(p));
        }
        for s in ["", "v3", "2", "version"] {
            assert!(matches!(
                Protocol::parse(s),
                Err(ProtocolError::UnknownVersion(_))
            ));
        }
        assert_eq!(Protocol::of_exchange(ExchangeVersion::V3), Protocol::V2);
        assert_eq!(Protocol::of_exchange(ExchangeVersion::V2), Protocol::Ctf);
    }

    #[test]
    fn condition_widths() {
        let v2 = format!("0x{}", "ab".repeat(31));
        let c = ConditionId::parse(&v2).unwrap();
        assert_eq!(c.protocol(), Protocol::V2);
        assert_eq!(c.to_string(), format!("{v2}00"));
        assert_eq!(c.to_string().len(), 66);
        assert_eq!(
            ConditionId::parse_for(&format!("{v2}00"), Protocol::V2),
            Ok(c)
        );
        // A padded V2 id whose last byte is not zero is refused, not truncated.
        assert!(ConditionId::parse_for(&format!("{v2}01"), Protocol::V2).is_err());
        let ctf = format!("0x{}", "cd".repeat(32));
        let c = ConditionId::parse(&ctf).unwrap();
        assert_eq!((c.protocol(), c.to_string()), (Protocol::Ctf, ctf.clone()));
        assert!(ConditionId::parse_for(&v2, Protocol::Ctf).is_err());
        for bad in [
            format!("0x{}", "a".repeat(63)),
            format!("0x{}", "a".repeat(60)),
            format!("0x{}", "g".repeat(64)),
            String::new(),
        ] {
            assert!(
                matches!(
                    ConditionId::parse(&bad),
                    Err(ProtocolError::BadConditionId { .. })
                ),
                "{bad}"
            );
        }
        assert_eq!(padded_condition(&v2), format!("{v2}00"));
        assert_eq!(padded_condition(&ctf), ctf);
        assert_eq!(padded_condition("0xabc"), "0xabc");
    }

    /// A 64-hex id is read as CTF only when it cannot be a padded V2 id; otherwise the
    /// protocol must come from the caller, the market or the row's token.
    #[test]
    fn padded_v2_ids_are_never_guessed_ctf() {
        for module in 0..=255u8 {
            for last in [0u8, 1, 0xff] {
                let mut b = [0x5a; 32];
                b[0] = module;
                b[31] = last;
                let text = alloy_primitives::hex::encode_prefixed(b);
                let got = ConditionId::parse(&text);
                if last == 0 && is_module(module) {
                    assert_eq!(got, Err(ProtocolError::AmbiguousConditionId), "{text}");
                    assert_eq!(
                        ConditionId::parse_for(&text, Protocol::V2)
                            .unwrap()
                            .protocol(),
                        Protocol::V2
                    );
                    assert_eq!(
                        ConditionId::parse_for(&text, Protocol::Ctf)
                            .unwrap()
                            .protocol(),
                        Protocol::Ctf
                    );
                } else {
                    assert_eq!(got.unwrap().protocol(), Protocol::Ctf, "{text}");
                }
            }
        }
        // The row's token decides: a position of this condition is V2, anything else CTF.
        let v2 = PositionId::from_u256(pos(1, 0, 0, 1)).unwrap();
        let cond = v2.condition_id();
        let token = TokenId::parse(v2.as_u256().to_string().as_bytes()).unwrap();
        let text = cond.to_string();
        assert_eq!(ConditionId::parse_with_token(&text, &token), Ok(cond));
        let other = TokenId::parse(
            pos(1, 0, 0, 1)
                .wrapping_add(U256::from(1u8) << 200)
                .to_string()
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            ConditionId::parse_with_token(&text, &other)
                .unwrap()
                .protocol(),
            Protocol::Ctf
        );
        assert!(
            ConditionId::parse_with_token(&text[..64], &token).is_ok(),
            "62 hex"
        );
        assert!(
            ConditionId::parse_with_token(&text[..64], &other).is_err(),
            "62 hex is not CTF"
        );
        assert_eq!(cond.module_id(), Some(1));
        assert_eq!(ConditionId::ctf([1; 32]).module_id(), None);
    }

    #[test]
    fn position_layout() {
        let v = pos(2, 5, 3, 1);
        let p = PositionId::from_u256(v).unwrap();
        assert_eq!(
            (
                p.module_id(),
                p.arity(),
                p.condition_index(),
                p.outcome_index()
            ),
            (2, 5, 3, 1)
        );
        assert_eq!(p.base_hash(), 0x1234_5678u128 << 10);
        let c = p.condition_id();
        assert_eq!(c.as_bytes32()[31], 0);
        assert_eq!(PositionId::of(c, 1).unwrap(), p);
        assert_eq!(PositionId::of(c, 0).unwrap().outcome_index(), 0);
        for bad in [
            pos(1, 0, 0, 2),
            pos(1, 2, 0, 0),
            pos(2, 1, 0, 0),
            pos(2, 3, 4, 0),
            pos(9, 0, 0, 0),
            pos(0, 0, 0, 0),
            pos(4, 3, 0x8000 | 3, 0),
        ] {
            assert!(PositionId::from_u256(bad).is_err(), "{bad:x}");
        }
        assert!(PositionId::from_u256(pos(4, 3, 0x8000 | 2, 1)).is_ok());
        let ctf = TokenId::parse(
            b"71321045679252212594626385532706912750332728571942532289631379312455583992563",
        )
        .unwrap();
        assert_eq!(Protocol::of_id(&ctf), Protocol::Ctf);
        assert!(PositionId::of(ConditionId::ctf([1; 32]), 0).is_err());
    }
}
