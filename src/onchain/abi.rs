//! Solidity ABI encoding and decoding, enough for the calls of [`onchain`](super): static
//! words, `bytes`, arrays and tuples.
//!
//! Hand-written rather than generated (`alloy-sol-types`' `sol!` macro would add ~20 crates of
//! proc-macro machinery to the feature for about twenty function signatures). The encoder is the
//! [ABI specification]'s head/tail layout over a tiny value tree ([`Value`]); every call this
//! module builds is checked byte for byte against Python `eth-abi`. The decoder ([`Reader`]) is
//! bounds-checked: malformed calldata or return data is an [`AbiError`], never a panic. Both
//! serve whoever stands on the other side of a [`Call`](super::Call) too: a test node that
//! decodes calldata and encodes return values or revert reasons.
//!
//! ```
//! use alloy_primitives::{Address, U256};
//! use polyclob::onchain::abi::{Value, encode_args, split_selector};
//! use polyclob::onchain::{Selector, erc20};
//!
//! let (spender, amount) = (Address::repeat_byte(2), U256::from(5u8));
//! let call = erc20::approve(Address::repeat_byte(1), spender, amount).unwrap();
//! let (sel, args) = split_selector(call.data())?;
//! assert_eq!(sel, Selector::Approve.bytes());
//! assert_eq!((args.address(0)?, args.uint(1)?), (spender, amount));
//!
//! let returned = encode_args(&[Value::bool(true)]); // what `approve` returns
//! assert_eq!(returned.len(), 32);
//! # Ok::<(), polyclob::onchain::AbiError>(())
//! ```
//!
//! [ABI specification]: https://docs.soliditylang.org/en/latest/abi-spec.html

use core::fmt;

use alloy_primitives::{Address, B256, U256};

/// One ABI value to encode: enough of the type system for the calls in [`onchain`](super).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// Any static 32-byte value: `uint*`, `address`, `bool`, `bytes32`.
    Word([u8; 32]),
    /// Dynamic `bytes`.
    Bytes(&'a [u8]),
    /// A dynamic array `T[]`.
    Array(Vec<Value<'a>>),
    /// A tuple `(T1, T2, …)`.
    Tuple(Vec<Value<'a>>),
}

impl Value<'_> {
    /// An `address`, left-padded to a word.
    #[must_use]
    pub fn address(a: Address) -> Self {
        let mut w = [0u8; 32];
        w[12..].copy_from_slice(a.as_slice());
        Self::Word(w)
    }

    /// A `uint256` (or any narrower `uint*`).
    #[must_use]
    pub fn uint(v: U256) -> Self {
        Self::Word(v.to_be_bytes())
    }

    /// A `uint*` from a `u64`.
    #[must_use]
    pub fn small(v: u64) -> Self {
        Self::uint(U256::from(v))
    }

    /// A `bool`: the word 0 or 1.
    #[must_use]
    pub fn bool(b: bool) -> Self {
        Self::small(u64::from(b))
    }

    /// A `bytes32`.
    #[must_use]
    pub fn b256(b: B256) -> Self {
        Self::Word(b.0)
    }

    /// A `uint256[]`.
    #[must_use]
    pub fn uints(values: &[U256]) -> Self {
        Self::Array(values.iter().map(|v| Self::uint(*v)).collect())
    }

    fn is_dynamic(&self) -> bool {
        match self {
            Self::Word(_) => false,
            Self::Bytes(_) | Self::Array(_) => true,
            Self::Tuple(items) => items.iter().any(Value::is_dynamic),
        }
    }

    /// Size in the head of the enclosing sequence.
    fn head_len(&self) -> usize {
        match self {
            Self::Tuple(items) if !self.is_dynamic() => items.iter().map(Value::head_len).sum(),
            _ => 32,
        }
    }
}

fn push_usize(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&U256::from(n).to_be_bytes::<32>());
}

/// Appends the encoding of a sequence (a tuple's body, or function arguments).
fn encode_seq(items: &[Value<'_>], out: &mut Vec<u8>) {
    let head_len: usize = items.iter().map(Value::head_len).sum();
    let mut tail = Vec::new();
    for item in items {
        if item.is_dynamic() {
            push_usize(out, head_len + tail.len());
            encode_value(item, &mut tail);
        } else {
            encode_value(item, out);
        }
    }
    out.extend_from_slice(&tail);
}

fn encode_value(value: &Value<'_>, out: &mut Vec<u8>) {
    match value {
        Value::Word(w) => out.extend_from_slice(w),
        Value::Bytes(b) => {
            push_usize(out, b.len());
            out.extend_from_slice(b);
            let pad = (32 - b.len() % 32) % 32;
            out.resize(out.len() + pad, 0);
        }
        Value::Array(items) => {
            push_usize(out, items.len());
            encode_seq(items, out);
        }
        Value::Tuple(items) => encode_seq(items, out),
    }
}

/// Calldata: `selector ‖ abi.encode(args…)`.
///
/// ```
/// use alloy_primitives::U256;
/// use polyclob::onchain::{Selector, abi::{Value, encode_call}};
///
/// let data = encode_call(Selector::PayoutDenominator.bytes(), &[Value::uint(U256::ZERO)]);
/// assert_eq!((&data[..4], data.len()), (&Selector::PayoutDenominator.bytes()[..], 4 + 32));
/// ```
#[must_use]
pub fn encode_call(selector: [u8; 4], args: &[Value<'_>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 32 * args.len());
    out.extend_from_slice(&selector);
    encode_seq(args, &mut out);
    out
}

/// `abi.encode(args…)` without a selector: return values, hashing inputs.
///
/// ```
/// use alloy_primitives::U256;
/// use polyclob::onchain::abi::{Reader, Value, encode_args};
///
/// let data = encode_args(&[Value::uints(&[U256::from(1u8), U256::from(2u8)])]);
/// assert_eq!(Reader::new(&data).uints(0)?, [U256::from(1u8), U256::from(2u8)]);
/// # Ok::<(), polyclob::onchain::AbiError>(())
/// ```
#[must_use]
pub fn encode_args(args: &[Value<'_>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 * args.len());
    encode_seq(args, &mut out);
    out
}

/// Calldata or return data that does not decode as the expected ABI types.
///
/// ```
/// use polyclob::onchain::{AbiError, decode_revert_reason};
///
/// assert_eq!(decode_revert_reason(&[0x08, 0xc3]), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbiError {
    what: &'static str,
    offset: usize,
}

impl AbiError {
    pub(crate) const fn new(what: &'static str, offset: usize) -> Self {
        Self { what, offset }
    }

    /// What was wrong.
    #[must_use]
    pub const fn what(&self) -> &'static str {
        self.what
    }

    /// The byte offset (into the arguments, after any selector) where it was found.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for AbiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ABI decoding: {} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for AbiError {}

/// A bounds-checked reader over ABI-encoded arguments or return data (no selector).
///
/// Head slot `i` is the `i`-th value of the sequence (the `i`-th argument); dynamic values
/// (`bytes`, arrays, dynamic tuples) are read through the offset in their slot. Every read
/// checks its bounds and its type's range, and says where it failed.
///
/// ```
/// use polyclob::onchain::abi::Reader;
///
/// let r = Reader::new(&[0u8; 32]);
/// assert_eq!(r.bool(0), Ok(false));
/// assert_eq!(r.uint(1).unwrap_err().offset(), 32); // past the end
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
}

/// Largest length or offset accepted: far beyond any real call, small enough for `usize` math.
const MAX_LEN: u64 = 1 << 24;

impl<'a> Reader<'a> {
    /// A reader over `data`, the encoded sequence without a selector.
    #[must_use]
    pub const fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    /// The 32-byte word at byte `at`.
    fn word_at(&self, at: usize) -> Result<&'a [u8; 32], AbiError> {
        at.checked_add(32)
            .and_then(|end| self.data.get(at..end))
            .and_then(|s| <&[u8; 32]>::try_from(s).ok())
            .ok_or(AbiError::new("data too short", at))
    }

    /// Head slot `i` as a raw word.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot.
    pub fn word(&self, i: usize) -> Result<&'a [u8; 32], AbiError> {
        self.word_at(i.saturating_mul(32))
    }

    /// Head slot `i` as a `uint256`.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot.
    pub fn uint(&self, i: usize) -> Result<U256, AbiError> {
        Ok(U256::from_be_bytes(*self.word(i)?))
    }

    /// Head slot `i` as a `bytes32`.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot.
    pub fn b256(&self, i: usize) -> Result<B256, AbiError> {
        Ok(B256::new(*self.word(i)?))
    }

    /// Head slot `i` as an `address`.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot or the 12 high bytes are not zero.
    pub fn address(&self, i: usize) -> Result<Address, AbiError> {
        let w = self.word(i)?;
        if w[..12].iter().any(|&b| b != 0) {
            return Err(AbiError::new("address with dirty high bytes", i * 32));
        }
        Ok(Address::from_slice(&w[12..]))
    }

    /// Head slot `i` as a `bool`.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot or the word is neither 0 nor 1.
    pub fn bool(&self, i: usize) -> Result<bool, AbiError> {
        match self.uint(i)? {
            v if v == U256::ZERO => Ok(false),
            v if v == U256::from(1u8) => Ok(true),
            _ => Err(AbiError::new("bool not 0 or 1", i * 32)),
        }
    }

    /// Head slot `i` as a small integer (at most 2²⁴): a length, offset, count or index.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the data ends before the slot or the value is larger.
    pub fn small(&self, i: usize) -> Result<u64, AbiError> {
        let v = self.uint(i)?;
        u64::try_from(v)
            .ok()
            .filter(|&n| n <= MAX_LEN)
            .ok_or(AbiError::new("length or offset too large", i * 32))
    }

    /// The dynamic value whose offset is in head slot `i`: a reader positioned at it.
    fn tail(&self, i: usize) -> Result<Self, AbiError> {
        let off = usize::try_from(self.small(i)?).map_err(|_| AbiError::new("offset", i * 32))?;
        let data = self
            .data
            .get(off..)
            .ok_or(AbiError::new("offset past the end", i * 32))?;
        Ok(Self { data })
    }

    /// Dynamic `bytes` at head slot `i`, borrowed from the data.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the offset or the length points past the data.
    pub fn bytes(&self, i: usize) -> Result<&'a [u8], AbiError> {
        let t = self.tail(i)?;
        let len = usize::try_from(t.small(0)?).map_err(|_| AbiError::new("length", 0))?;
        t.data
            .get(32..32 + len)
            .ok_or(AbiError::new("bytes longer than the data", i * 32))
    }

    /// `uint256[]` at head slot `i`.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when the offset or the length points past the data.
    pub fn uints(&self, i: usize) -> Result<Vec<U256>, AbiError> {
        let t = self.tail(i)?;
        let len = usize::try_from(t.small(0)?).map_err(|_| AbiError::new("length", 0))?;
        let body = Self {
            data: t.data.get(32..).unwrap_or_default(),
        };
        if body.data.len() / 32 < len {
            return Err(AbiError::new("array longer than the data", i * 32));
        }
        (0..len).map(|k| body.uint(k)).collect()
    }

    /// An array of dynamic tuples at head slot `i`: one reader per element, positioned at it.
    ///
    /// # Errors
    ///
    /// [`AbiError`] when an offset or the length points past the data.
    pub fn tuples(&self, i: usize) -> Result<Vec<Self>, AbiError> {
        let t = self.tail(i)?;
        let len = usize::try_from(t.small(0)?).map_err(|_| AbiError::new("length", 0))?;
        let body = Self {
            data: t.data.get(32..).unwrap_or_default(),
        };
        if body.data.len() / 32 < len {
            return Err(AbiError::new("array longer than the data", i * 32));
        }
        (0..len).map(|k| body.tail(k)).collect()
    }
}

/// Splits calldata into its selector and a [`Reader`] over its arguments.
///
/// # Errors
///
/// [`AbiError`] when the data is shorter than a selector.
pub fn split_selector(data: &[u8]) -> Result<([u8; 4], Reader<'_>), AbiError> {
    let sel: [u8; 4] = data
        .get(..4)
        .and_then(|s| s.try_into().ok())
        .ok_or(AbiError::new("calldata shorter than a selector", 0))?;
    Ok((sel, Reader::new(&data[4..])))
}

/// `Error(string)`: the selector Solidity's `require`/`revert` reasons carry.
pub(crate) const ERROR_STRING: [u8; 4] = [0x08, 0xc3, 0x79, 0xa0];
/// `Panic(uint256)`: assertion failures and arithmetic errors.
pub(crate) const PANIC_UINT: [u8; 4] = [0x4e, 0x48, 0x7b, 0x71];

/// The human reason in revert data: `Error(string)`'s message, or `Panic(0x..)` with its code;
/// `None` for empty or custom-error data.
///
/// ```
/// use polyclob::onchain::decode_revert_reason;
///
/// // Error("no") as Solidity encodes it.
/// let mut data = vec![0x08, 0xc3, 0x79, 0xa0];
/// data.extend_from_slice(&[0u8; 31]); data.push(0x20);
/// data.extend_from_slice(&[0u8; 31]); data.push(2);
/// data.extend_from_slice(b"no"); data.extend_from_slice(&[0u8; 30]);
/// assert_eq!(decode_revert_reason(&data).as_deref(), Some("no"));
/// ```
#[must_use]
pub fn decode_revert_reason(data: &[u8]) -> Option<String> {
    let (sel, args) = split_selector(data).ok()?;
    match sel {
        ERROR_STRING => {
            let bytes = args.bytes(0).ok()?;
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        PANIC_UINT => Some(format!("Panic({:#x})", args.uint(0).ok()?)),
        _ => None,
    }
}

/// `Error(string)` revert data for `reason`, as Solidity's `require`/`revert` produce it: the
/// inverse of [`decode_revert_reason`].
///
/// ```
/// use polyclob::onchain::abi::{decode_revert_reason, encode_revert_reason};
///
/// assert_eq!(decode_revert_reason(&encode_revert_reason("no")).as_deref(), Some("no"));
/// ```
#[must_use]
pub fn encode_revert_reason(reason: &str) -> Vec<u8> {
    encode_call(ERROR_STRING, &[Value::Bytes(reason.as_bytes())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_and_dynamic_layout() {
        // f(uint256 7, bytes "ab", uint256[] [1, 2])
        let data = encode_args(&[
            Value::small(7),
            Value::Bytes(b"ab"),
            Value::uints(&[U256::from(1u8), U256::from(2u8)]),
        ]);
        let r = Reader::new(&data);
        assert_eq!(r.uint(0).unwrap(), U256::from(7u8));
        assert_eq!(r.small(1).unwrap(), 96);
        assert_eq!(r.bytes(1).unwrap(), b"ab");
        assert_eq!(r.small(2).unwrap(), 160);
        assert_eq!(r.uints(2).unwrap(), vec![U256::from(1u8), U256::from(2u8)]);
        assert_eq!(data.len(), 32 * 3 + 64 + 96);
    }

    #[test]
    fn reader_rejects_malformed_input_without_panicking() {
        let mut huge = [0u8; 64];
        huge[..32].copy_from_slice(&U256::MAX.to_be_bytes::<32>());
        for data in [&[][..], &[1u8; 31][..], &huge[..]] {
            let r = Reader::new(data);
            assert!(r.bytes(0).is_err());
            assert!(r.uints(0).is_err());
            assert!(r.tuples(0).is_err());
        }
        // An offset pointing at a length larger than the data.
        let mut d = vec![0u8; 64];
        d[31] = 32;
        d[63] = 200;
        assert!(Reader::new(&d).bytes(0).is_err());
        assert!(Reader::new(&d).uints(0).is_err());
        let mut dirty = [0u8; 32];
        dirty[0] = 1;
        assert!(Reader::new(&dirty).address(0).is_err());
        assert!(Reader::new(&[2u8; 32]).bool(0).is_err());
        assert!(split_selector(&[1, 2, 3]).is_err());
    }

    #[test]
    fn revert_reasons_round_trip() {
        assert_eq!(
            decode_revert_reason(&encode_revert_reason("nope")).as_deref(),
            Some("nope")
        );
        let panic = encode_call(PANIC_UINT, &[Value::small(0x11)]);
        assert_eq!(decode_revert_reason(&panic).as_deref(), Some("Panic(0x11)"));
        assert_eq!(decode_revert_reason(&[1, 2, 3, 4]), None);
    }
}
