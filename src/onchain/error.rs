//! [`Error`]: what can go wrong talking to a chain, queried by predicates.

use core::fmt;

use alloy_primitives::B256;

use super::abi::AbiError;
use super::tx::TxDecodeError;
use crate::sign::SignError;

/// An on-chain operation failed: transport, node, contract, or the transaction's fate.
///
/// One word wide, `Send + Sync`; ask it with the predicates. Node error messages are kept as
/// the node sent them (they never contain key material: only signed bytes leave this crate).
///
/// ```
/// use polyclob::onchain::Error;
///
/// fn retry_later(e: &Error) -> bool {
///     e.is_timeout() || e.is_nonce_too_low() || e.is_replaced()
/// }
/// # let _ = retry_later;
/// ```
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: Kind,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// The HTTP request failed or timed out.
    Http,
    /// The node answered with a non-success HTTP status.
    Status(u16),
    /// The node's answer was not the JSON-RPC we expected.
    Decode(&'static str),
    /// A JSON-RPC error the other kinds do not cover.
    Rpc { code: i64, message: String },
    /// The call or transaction reverted (in `eth_call`/`eth_estimateGas`, or mined with status 0).
    Revert {
        reason: Option<String>,
        hash: Option<B256>,
    },
    /// The sender cannot pay for gas (and value).
    InsufficientFunds(String),
    /// The nonce was already used.
    NonceTooLow(String),
    /// Another transaction with the same nonce was mined instead of ours.
    Replaced { hash: B256 },
    /// No receipt within the wait timeout.
    Timeout { hash: Option<B256> },
    /// The node's fees exceed a cap the user set.
    FeeCap {
        what: &'static str,
        needed: u128,
        cap: u128,
    },
    /// The node is on another chain than the client was built for.
    ChainMismatch { expected: u64, node: u64 },
    /// A value that does not ABI-decode.
    Abi(AbiError),
    /// Signing failed.
    Sign(SignError),
    /// Raw transaction bytes that do not decode.
    Tx(TxDecodeError),
    /// The client configuration or the arguments cannot do this.
    Invalid(&'static str),
    /// A calldata builder refused its arguments.
    Call(super::CallError),
}

impl Error {
    pub(crate) fn new(kind: Kind) -> Self {
        Self {
            inner: Box::new(Inner { kind, source: None }),
        }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.inner.source = Some(Box::new(source));
        self
    }

    pub(crate) fn http(e: crate::http::Error) -> Self {
        let timeout = e.is_timeout();
        let err = Self::new(Kind::Http).with_source(e);
        if timeout {
            return Self::new(Kind::Timeout { hash: None }).with_source(err);
        }
        err
    }

    pub(crate) fn invalid(what: &'static str) -> Self {
        Self::new(Kind::Invalid(what))
    }

    /// Classifies a JSON-RPC error object by its code and message (geth, erigon, bor and the
    /// hosted providers word these alike).
    pub(crate) fn from_rpc(code: i64, message: &str, data: Option<&[u8]>) -> Self {
        let lower = message.to_ascii_lowercase();
        if code == 3 || lower.contains("execution reverted") || lower.contains("revert") {
            let reason = data.and_then(super::abi::decode_revert_reason).or_else(|| {
                lower
                    .strip_prefix("execution reverted: ")
                    .map(|_| message["execution reverted: ".len()..].to_owned())
            });
            return Self::new(Kind::Revert { reason, hash: None });
        }
        if lower.contains("insufficient funds") {
            return Self::new(Kind::InsufficientFunds(message.to_owned()));
        }
        if lower.contains("nonce too low") || lower.contains("nonce has already been used") {
            return Self::new(Kind::NonceTooLow(message.to_owned()));
        }
        Self::new(Kind::Rpc {
            code,
            message: message.to_owned(),
        })
    }

    /// The call or transaction reverted.
    #[must_use]
    pub fn is_revert(&self) -> bool {
        matches!(self.inner.kind, Kind::Revert { .. })
    }

    /// The decoded revert reason (`Error(string)` or `Panic(..)`), when the node returned one.
    #[must_use]
    pub fn revert_reason(&self) -> Option<&str> {
        match &self.inner.kind {
            Kind::Revert { reason, .. } => reason.as_deref(),
            _ => None,
        }
    }

    /// The sender lacks the native token for gas (or the value).
    #[must_use]
    pub fn is_insufficient_funds(&self) -> bool {
        matches!(self.inner.kind, Kind::InsufficientFunds(_))
    }

    /// The nonce was already used; the client resynchronises its nonce on this error.
    #[must_use]
    pub fn is_nonce_too_low(&self) -> bool {
        matches!(self.inner.kind, Kind::NonceTooLow(_))
    }

    /// Another transaction took this one's nonce (it will never be mined).
    #[must_use]
    pub fn is_replaced(&self) -> bool {
        matches!(self.inner.kind, Kind::Replaced { .. })
    }

    /// The request, or the wait for a receipt, timed out.
    #[must_use]
    pub fn is_timeout(&self) -> bool {
        matches!(self.inner.kind, Kind::Timeout { .. })
    }

    /// The network's fees are above a cap set on the client builder.
    #[must_use]
    pub fn is_fee_cap(&self) -> bool {
        matches!(self.inner.kind, Kind::FeeCap { .. })
    }

    /// The node is on another chain than the settler was built for.
    #[must_use]
    pub fn is_chain_mismatch(&self) -> bool {
        matches!(self.inner.kind, Kind::ChainMismatch { .. })
    }

    /// The request cannot be made with this configuration or these arguments (for example a
    /// deposit wallet, which settles through Polymarket's relayer); nothing was sent.
    #[must_use]
    pub fn is_invalid_request(&self) -> bool {
        matches!(self.inner.kind, Kind::Invalid(_) | Kind::Call(_))
    }

    /// The node answered a JSON-RPC error not covered by the other predicates.
    #[must_use]
    pub fn is_rpc(&self) -> bool {
        matches!(self.inner.kind, Kind::Rpc { .. })
    }

    /// The JSON-RPC error code, for [`is_rpc`](Self::is_rpc) errors.
    #[must_use]
    pub fn rpc_code(&self) -> Option<i64> {
        match &self.inner.kind {
            Kind::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The transaction this error is about, when it had been sent.
    #[must_use]
    pub fn tx_hash(&self) -> Option<B256> {
        match &self.inner.kind {
            Kind::Revert { hash, .. } | Kind::Timeout { hash } => *hash,
            Kind::Replaced { hash } => Some(*hash),
            _ => None,
        }
    }

    pub(crate) fn at_tx(mut self, tx: B256) -> Self {
        match &mut self.inner.kind {
            Kind::Revert { hash, .. } | Kind::Timeout { hash } => *hash = Some(tx),
            _ => {}
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.kind {
            Kind::Http => f.write_str("JSON-RPC request failed"),
            Kind::Status(s) => write!(f, "JSON-RPC endpoint answered HTTP {s}"),
            Kind::Decode(what) => write!(f, "unexpected JSON-RPC answer: {what}"),
            Kind::Rpc { code, message } => write!(f, "JSON-RPC error {code}: {message}"),
            Kind::Revert { reason, hash } => {
                f.write_str("execution reverted")?;
                if let Some(r) = reason {
                    write!(f, ": {r}")?;
                }
                if let Some(h) = hash {
                    write!(f, " (tx {h})")?;
                }
                Ok(())
            }
            Kind::InsufficientFunds(m) => write!(f, "insufficient funds for gas: {m}"),
            Kind::NonceTooLow(m) => write!(f, "nonce too low: {m}"),
            Kind::Replaced { hash } => {
                write!(
                    f,
                    "transaction {hash} was replaced by another with its nonce"
                )
            }
            Kind::Timeout { hash: Some(h) } => write!(f, "no receipt for {h} before the timeout"),
            Kind::Timeout { hash: None } => f.write_str("JSON-RPC request timed out"),
            Kind::FeeCap { what, needed, cap } => {
                write!(f, "{what} {needed} wei is above the cap of {cap} wei")
            }
            Kind::ChainMismatch { expected, node } => {
                write!(f, "node is on chain {node}, expected {expected}")
            }
            // Transparent: this layer adds no words, so it shows the cause's and `source()`
            // skips to the cause's own source.
            Kind::Abi(e) => fmt::Display::fmt(e, f),
            // The cause is `source()`, not repeated here.
            Kind::Sign(_) => f.write_str("signing failed"),
            Kind::Tx(e) => fmt::Display::fmt(e, f),
            Kind::Invalid(what) => write!(f, "invalid on-chain request: {what}"),
            Kind::Call(e) => write!(f, "invalid on-chain request: {e}"),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("onchain::Error")
            .field("kind", &self.inner.kind)
            .field("source", &self.inner.source)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            Kind::Abi(e) => std::error::Error::source(e),
            Kind::Sign(e) => Some(e),
            Kind::Tx(e) => std::error::Error::source(e),
            _ => self
                .inner
                .source
                .as_deref()
                .map(|e| e as &(dyn std::error::Error + 'static)),
        }
    }
}

impl From<super::CallError> for Error {
    fn from(e: super::CallError) -> Self {
        Self::new(Kind::Call(e))
    }
}

impl From<AbiError> for Error {
    fn from(e: AbiError) -> Self {
        Self::new(Kind::Abi(e))
    }
}

impl From<SignError> for Error {
    fn from(e: SignError) -> Self {
        Self::new(Kind::Sign(e))
    }
}

impl From<TxDecodeError> for Error {
    fn from(e: TxDecodeError) -> Self {
        Self::new(Kind::Tx(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_node_messages() {
        let revert = super::super::abi::encode_revert_reason("not enough");
        let e = Error::from_rpc(3, "execution reverted: not enough", Some(&revert));
        assert!(e.is_revert());
        assert_eq!(e.revert_reason(), Some("not enough"));
        let e = Error::from_rpc(-32000, "execution reverted: no data here", None);
        assert_eq!(e.revert_reason(), Some("no data here"));
        let e = Error::from_rpc(
            -32000,
            "insufficient funds for gas * price + value: have 0 want 1",
            None,
        );
        assert!(e.is_insufficient_funds());
        assert!(
            Error::from_rpc(-32000, "nonce too low: next nonce 5, tx nonce 3", None)
                .is_nonce_too_low()
        );
        let e = Error::from_rpc(-32601, "method not found", None);
        assert!(e.is_rpc() && e.rpc_code() == Some(-32601));
        assert!(e.to_string().contains("method not found"));
    }

    #[test]
    fn one_word_and_thread_safe() {
        fn assert_traits<T: Send + Sync + std::error::Error>() {}
        assert_traits::<Error>();
        assert_eq!(size_of::<Error>(), size_of::<usize>());
    }
}
