//! Deposit-wallet `WALLET` batches: the EIP-712 `Batch` digest the owner signs (domain
//! `DepositWallet`, version `1`, the wallet as verifying contract;
//! `Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)` with
//! `Call(address target,uint256 value,bytes data)`), the signed [`WalletBatch`] and its exact
//! relayer body (feature `onchain`: its calls are [`Call`](crate::onchain::Call)s), and the
//! `WALLET-CREATE` body that deploys a deposit wallet.

use alloy_primitives::{Address, B256, U256};

use crate::http::Error;
use crate::sign::keccak::keccak256;
use crate::sign::wallet::DEPOSIT_WALLET_FACTORY;
use crate::types::Chain;

/// The longest `metadata` the relayer takes, in characters.
pub const MAX_METADATA_LEN: usize = 500;
/// How long a batch the client signs stays valid, seconds (as the official client).
pub(crate) const BATCH_LIFETIME: u64 = 600;

pub(crate) fn word_address(a: &Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

/// The EIP-712 digest of a deposit wallet's `Batch` of `calls` (target, value, calldata).
pub(crate) fn batch_digest<'a>(
    chain: Chain,
    wallet: Address,
    nonce: U256,
    deadline: u64,
    calls: impl Iterator<Item = (Address, U256, &'a [u8])>,
) -> B256 {
    let domain_type = keccak256(
        b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
    );
    let mut d = Vec::with_capacity(160);
    d.extend_from_slice(domain_type.as_slice());
    d.extend_from_slice(keccak256(b"DepositWallet").as_slice());
    d.extend_from_slice(keccak256(b"1").as_slice());
    d.extend_from_slice(&U256::from(chain.id()).to_be_bytes::<32>());
    d.extend_from_slice(&word_address(&wallet));
    let domain = keccak256(&d);

    const CALL: &[u8] = b"Call(address target,uint256 value,bytes data)";
    let call_type = keccak256(CALL);
    // An array hashes as keccak of its elements' struct hashes, concatenated.
    let mut elements = Vec::new();
    for (target, value, data) in calls {
        let mut c = Vec::with_capacity(128);
        c.extend_from_slice(call_type.as_slice());
        c.extend_from_slice(&word_address(&target));
        c.extend_from_slice(&value.to_be_bytes::<32>());
        c.extend_from_slice(keccak256(data).as_slice());
        elements.extend_from_slice(keccak256(&c).as_slice());
    }
    let calls = keccak256(&elements);

    let mut batch_type =
        b"Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)".to_vec();
    batch_type.extend_from_slice(CALL);
    let mut s = Vec::with_capacity(160);
    s.extend_from_slice(keccak256(&batch_type).as_slice());
    s.extend_from_slice(&word_address(&wallet));
    s.extend_from_slice(&nonce.to_be_bytes::<32>());
    s.extend_from_slice(&U256::from(deadline).to_be_bytes::<32>());
    s.extend_from_slice(calls.as_slice());
    let st = keccak256(&s);

    let mut m = Vec::with_capacity(66);
    m.extend_from_slice(b"\x19\x01");
    m.extend_from_slice(domain.as_slice());
    m.extend_from_slice(st.as_slice());
    keccak256(&m)
}

/// The `WALLET-CREATE` body for `owner`: compact JSON, keys in the official client's order
/// (`type`, `from`, `to`, `metadata`).
///
/// # Errors
///
/// ([`Error::is_argument`]) metadata over [`MAX_METADATA_LEN`] characters.
pub fn wallet_create_body(owner: Address, metadata: &str) -> Result<Vec<u8>, Error> {
    if metadata.chars().count() > MAX_METADATA_LEN {
        return Err(Error::argument(format!(
            "relayer metadata is longer than {MAX_METADATA_LEN} characters"
        )));
    }
    let mut o = String::with_capacity(160 + metadata.len());
    o.push_str(r#"{"type":"WALLET-CREATE","from":""#);
    o.push_str(&owner.to_checksum(None));
    o.push_str(r#"","to":""#);
    o.push_str(&DEPOSIT_WALLET_FACTORY.to_checksum(None));
    o.push_str(r#"","metadata":"#);
    crate::json::escape::push_string(&mut o, metadata);
    o.push('}');
    Ok(o.into_bytes())
}

#[cfg(feature = "onchain")]
pub use batch::{SignedWalletBatch, WalletBatch};

#[cfg(feature = "onchain")]
mod batch {
    use alloy_primitives::{Address, B256, U256};

    use super::{DEPOSIT_WALLET_FACTORY, MAX_METADATA_LEN, batch_digest};
    use crate::http::Error;
    use crate::onchain::Call;
    use crate::sign::{Signature, Signer};
    use crate::types::Chain;

    /// An owner-signed batch of calls of one deposit wallet, as the relayer executes it.
    ///
    /// ```
    /// use polyclob::U256;
    /// use polyclob::relayer::WalletBatch;
    /// use polyclob::onchain::erc20;
    /// use polyclob::sign::Signer;
    /// use polyclob::types::{Chain, ExchangeVersion, contracts};
    ///
    /// let owner = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
    /// let wallet = "0xdf8b9E8f9AB23f261F6e1B171B7454ae6E46Ba76".parse()?; // the owner's deposit wallet
    /// let c = contracts(Chain::Polygon, ExchangeVersion::V2);
    /// let approve = erc20::approve(c.collateral, c.exchange, U256::MAX)?;
    /// let batch = WalletBatch::new(wallet, vec![approve], U256::ZERO, 1_800_000_000);
    /// let signed = batch.sign(&owner, Chain::Polygon)?;
    /// assert!(String::from_utf8(signed.body)?.starts_with(r#"{"type":"WALLET","#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Clone, Debug, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct WalletBatch {
        /// The deposit wallet that makes the calls.
        pub wallet: Address,
        /// The calls, in order; all or none execute.
        pub calls: Vec<Call>,
        /// The owner's `WALLET` nonce at the relayer.
        pub nonce: U256,
        /// Unix seconds after which the batch is void.
        pub deadline: u64,
        /// A note the relayer keeps with the transaction (≤ [`MAX_METADATA_LEN`] characters).
        /// Default is empty.
        pub metadata: String,
    }

    /// A signed [`WalletBatch`]: the exact `POST /submit` body and what it was signed with.
    #[derive(Clone, Debug, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct SignedWalletBatch {
        /// The owner that signed (the body's `from`).
        pub owner: Address,
        /// The batch's nonce.
        pub nonce: U256,
        /// The JSON body, compact, keys in the official client's order.
        pub body: Vec<u8>,
        /// The owner's signature over [`WalletBatch::digest`].
        pub signature: Signature,
    }

    impl SignedWalletBatch {
        /// The `Idempotency-Key` its post carries: `wallet-batch-` and the hex keccak-256 of
        /// the body, so the same signed batch always sends the same key and another batch
        /// never does.
        #[must_use]
        pub fn idempotency_key(&self) -> String {
            format!(
                "wallet-batch-{}",
                alloy_primitives::hex::encode(crate::sign::keccak::keccak256(&self.body))
            )
        }
    }

    impl WalletBatch {
        /// A batch of `calls` by `wallet` with the relayer's `nonce` and a `deadline` in Unix
        /// seconds, without metadata.
        #[must_use]
        pub fn new(wallet: Address, calls: Vec<Call>, nonce: U256, deadline: u64) -> Self {
            Self {
                wallet,
                calls,
                nonce,
                deadline,
                metadata: String::new(),
            }
        }

        /// The same batch with `metadata`. Default is empty.
        #[must_use]
        pub fn metadata(mut self, metadata: impl Into<String>) -> Self {
            self.metadata = metadata.into();
            self
        }

        /// The EIP-712 digest the owner signs on `chain`.
        #[must_use]
        pub fn digest(&self, chain: Chain) -> B256 {
            batch_digest(
                chain,
                self.wallet,
                self.nonce,
                self.deadline,
                self.calls.iter().map(|c| (c.to(), c.value(), c.data())),
            )
        }

        fn check(&self) -> Result<(), Error> {
            if self.wallet == Address::ZERO {
                return Err(Error::argument(
                    "the deposit wallet must not be the zero address",
                ));
            }
            if self.calls.is_empty() {
                return Err(Error::argument("a wallet batch needs at least one call"));
            }
            if let Some(i) = self.calls.iter().position(|c| c.to() == Address::ZERO) {
                return Err(Error::argument(format!(
                    "wallet batch call {i} targets the zero address"
                )));
            }
            if self.metadata.chars().count() > MAX_METADATA_LEN {
                return Err(Error::argument(format!(
                    "wallet batch metadata is longer than {MAX_METADATA_LEN} characters"
                )));
            }
            if self.deadline == 0 {
                return Err(Error::argument("the wallet batch deadline must be set"));
            }
            Ok(())
        }

        /// The relayer body for `signature` by `owner`: compact JSON with the keys in the
        /// official client's order (`type`, `from`, `to`, `nonce`, `signature`, `metadata`,
        /// `depositWalletParams` {`depositWallet`, `deadline`, `calls` [{`target`, `value`,
        /// `data`}]}), addresses EIP-55, numbers as decimal strings, calldata lower-case hex.
        #[must_use]
        pub fn body(&self, owner: Address, signature: &Signature) -> Vec<u8> {
            let mut o = String::with_capacity(512 + self.calls.len() * 400);
            o.push_str(r#"{"type":"WALLET","from":""#);
            o.push_str(&owner.to_checksum(None));
            o.push_str(r#"","to":""#);
            o.push_str(&DEPOSIT_WALLET_FACTORY.to_checksum(None));
            o.push_str(r#"","nonce":""#);
            o.push_str(&self.nonce.to_string());
            o.push_str(r#"","signature":""#);
            o.push_str(&signature.to_hex_string());
            o.push_str(r#"","metadata":"#);
            crate::json::escape::push_string(&mut o, &self.metadata);
            o.push_str(r#","depositWalletParams":{"depositWallet":""#);
            o.push_str(&self.wallet.to_checksum(None));
            o.push_str(r#"","deadline":""#);
            o.push_str(&self.deadline.to_string());
            o.push_str(r#"","calls":["#);
            for (i, c) in self.calls.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                o.push_str(r#"{"target":""#);
                o.push_str(&c.to().to_checksum(None));
                o.push_str(r#"","value":""#);
                o.push_str(&c.value().to_string());
                o.push_str(r#"","data":""#);
                o.push_str(&alloy_primitives::hex::encode_prefixed(c.data()));
                o.push_str(r#""}"#);
            }
            o.push_str("]}}");
            o.into_bytes()
        }

        /// Signs the batch with the wallet owner's key on `chain`.
        ///
        /// # Errors
        ///
        /// ([`Error::is_argument`]) a zero wallet, no calls, a call to the zero address,
        /// metadata over [`MAX_METADATA_LEN`] characters, a zero deadline; a signing failure.
        pub fn sign(&self, owner: &Signer, chain: Chain) -> Result<SignedWalletBatch, Error> {
            self.check()?;
            let signature = owner
                .sign_prehash(&self.digest(chain).0)
                .map_err(|_| Error::argument("the wallet batch could not be signed"))?;
            Ok(SignedWalletBatch {
                owner: owner.address(),
                nonce: self.nonce,
                body: self.body(owner.address(), &signature),
                signature,
            })
        }
    }
}
