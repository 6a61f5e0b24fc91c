//! [`Settler`]: reads, approvals, split/merge/redeem and neg-risk conversion for one account,
//! sent as EIP-1559 transactions from the order path's [`Signer`] and [`Wallet`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};

use super::abi::Reader;
use super::call::Call;
use super::error::{Error, Kind};
use super::nonce::NonceManager;
use super::rpc::{Receipt, Rpc};
use super::tx::Eip1559Tx;
use super::{ctf, erc20, erc1155, neg_risk, wallet as wrap};
use crate::fixed::Size;
use crate::sign::Signer;
use crate::sign::wallet::Wallet;
use crate::types::{Chain, Contracts, ExchangeVersion, contracts};

const GWEI: u128 = 1_000_000_000;

/// Builds a [`Settler`]; every setter states its default.
#[derive(Debug)]
#[must_use]
pub struct SettlerBuilder {
    rpc_url: String,
    signer: Signer,
    chain: Chain,
    version: ExchangeVersion,
    wallet: Wallet,
    max_fee_cap: u128,
    priority_fee_cap: u128,
    gas_limit_cap: u64,
    gas_headroom_percent: u64,
    receipt_timeout: Duration,
    poll_interval: Duration,
    http: Option<reqwest::Client>,
    proxy: crate::http::proxy::Setting,
}

impl SettlerBuilder {
    /// The chain. Default is [`Chain::Polygon`]; the node's `eth_chainId` must match.
    pub const fn chain(mut self, chain: Chain) -> Self {
        self.chain = chain;
        self
    }

    /// The exchange generation whose contract table is used. Default is
    /// [`ExchangeVersion::V2`] (pUSD collateral, the collateral adapters).
    pub const fn exchange_version(mut self, version: ExchangeVersion) -> Self {
        self.version = version;
        self
    }

    /// Who holds the funds: the EOA, a Safe or a proxy wallet. Default is [`Wallet::Eoa`].
    /// Deposit wallets are refused when sending (they settle through Polymarket's relayer).
    pub const fn wallet(mut self, wallet: Wallet) -> Self {
        self.wallet = wallet;
        self
    }

    /// The most to pay per gas (`maxFeePerGas`), in wei; a network above it is an
    /// [`Error::is_fee_cap`] error instead of a transaction. Default is 3,000 gwei.
    pub const fn max_fee_cap(mut self, wei: u128) -> Self {
        self.max_fee_cap = wei;
        self
    }

    /// The most tip per gas (`maxPriorityFeePerGas`), in wei; the node's suggestion is clamped
    /// to it. Default is 500 gwei.
    pub const fn priority_fee_cap(mut self, wei: u128) -> Self {
        self.priority_fee_cap = wei;
        self
    }

    /// The most gas one transaction may use; a larger estimate is an error. Default is 3,000,000.
    pub const fn gas_limit_cap(mut self, gas: u64) -> Self {
        self.gas_limit_cap = gas;
        self
    }

    /// Headroom added to `eth_estimateGas`, in percent. Default is 20.
    pub const fn gas_headroom_percent(mut self, percent: u64) -> Self {
        self.gas_headroom_percent = percent;
        self
    }

    /// How long to wait for a receipt. Default is 120 s.
    pub const fn receipt_timeout(mut self, timeout: Duration) -> Self {
        self.receipt_timeout = timeout;
        self
    }

    /// How often to poll for a receipt. Default is 1 s.
    pub const fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// JSON-RPC through `proxy` (loopback nodes too). Default is the proxy environment
    /// variables ([`Proxy`](crate::clob::Proxy#where-it-applies)). Ignored with
    /// [`http_client`](Self::http_client).
    pub fn proxy(mut self, proxy: crate::clob::Proxy) -> Self {
        self.proxy = crate::http::proxy::Setting::Fixed(std::sync::Arc::new(proxy));
        self
    }

    /// JSON-RPC never through a proxy, whatever the environment says. Default is the proxy
    /// environment variables ([`Proxy`](crate::clob::Proxy#where-it-applies)).
    pub fn no_proxy(mut self) -> Self {
        self.proxy = crate::http::proxy::Setting::Direct;
        self
    }

    /// Use this `reqwest::Client` for JSON-RPC. Default is a new client on the crate's rustls
    /// configuration with a 30 s request timeout.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// Builds the settler (no network I/O).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn build(self) -> Result<Settler, Error> {
        let rpc = match self.http {
            Some(h) => Rpc::with_client(h, self.rpc_url),
            None => Rpc::with_proxy(self.rpc_url, self.proxy)?,
        };
        Ok(Settler {
            rpc,
            signer: self.signer,
            chain: self.chain,
            contracts: *contracts(self.chain, self.version),
            wallet: self.wallet,
            nonces: NonceManager::new(),
            max_fee_cap: self.max_fee_cap,
            priority_fee_cap: self.priority_fee_cap,
            gas_limit_cap: self.gas_limit_cap,
            gas_headroom_percent: self.gas_headroom_percent,
            receipt_timeout: self.receipt_timeout,
            poll_interval: self.poll_interval,
            safe_lock: Arc::default(),
        })
    }
}

/// On-chain settlement for one account through a JSON-RPC node.
///
/// Cheap to clone; clones share the nonce counter, so concurrent sends from clones never
/// reuse a nonce.
///
/// ```no_run
/// # async fn f() -> Result<(), Box<dyn std::error::Error>> {
/// use polyclob::fixed::Size;
/// use polyclob::onchain::Settler;
/// use polyclob::sign::Signer;
///
/// let signer = Signer::from_hex(&std::env::var("POLYCLOB_PRIVATE_KEY")?)?;
/// let settler = Settler::builder("https://polygon-rpc.example", signer).build()?;
/// settler.ensure_approvals().await?;            // only the missing ones
/// let condition = "0x5eed…".parse()?;
/// settler.split(condition, Size::from_micros(10_000_000), false).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Settler {
    rpc: Rpc,
    signer: Signer,
    chain: Chain,
    contracts: Contracts,
    wallet: Wallet,
    nonces: NonceManager,
    max_fee_cap: u128,
    priority_fee_cap: u128,
    gas_limit_cap: u64,
    gas_headroom_percent: u64,
    receipt_timeout: Duration,
    poll_interval: Duration,
    /// Serialises Safe executions: each signs the Safe's nonce, which only moves when the
    /// previous one is mined.
    safe_lock: Arc<tokio::sync::Mutex<()>>,
}

/// One approval the account needs, and whether it is in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Approval {
    /// `true` for the collateral's ERC-20 allowance, `false` for the ERC-1155 operator approval.
    pub collateral: bool,
    /// The contract approved (an exchange or adapter).
    pub spender: Address,
    /// Whether it is already granted (allowance ≥ 2¹²⁸, or `isApprovedForAll`).
    pub granted: bool,
}

/// A condition's resolution state on ConditionalTokens.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resolution {
    /// Payout numerator per outcome slot (all zero before resolution).
    pub payout_numerators: Vec<U256>,
    /// The payout denominator: zero until the condition resolves.
    pub payout_denominator: U256,
}

impl Resolution {
    /// Whether the condition has resolved.
    #[must_use]
    pub fn is_resolved(&self) -> bool {
        self.payout_denominator != U256::ZERO
    }
}

/// An allowance at or above this counts as "approved" (approvals grant `U256::MAX` and
/// spending lowers it).
const ALLOWANCE_GRANTED: U256 = U256::from_limbs([0, 0, 1, 0]);

fn word(data: &[u8]) -> Result<U256, Error> {
    Ok(Reader::new(data).uint(0)?)
}

impl Settler {
    /// A builder for `rpc_url` signing with `signer`.
    pub fn builder(rpc_url: impl Into<String>, signer: Signer) -> SettlerBuilder {
        SettlerBuilder {
            rpc_url: rpc_url.into(),
            signer,
            chain: Chain::Polygon,
            version: ExchangeVersion::V2,
            wallet: Wallet::Eoa,
            max_fee_cap: 3_000 * GWEI,
            priority_fee_cap: 500 * GWEI,
            gas_limit_cap: 3_000_000,
            gas_headroom_percent: 20,
            receipt_timeout: Duration::from_secs(120),
            poll_interval: Duration::from_secs(1),
            http: None,
            proxy: crate::http::proxy::Setting::Env,
        }
    }

    /// The JSON-RPC client.
    #[must_use]
    pub const fn rpc(&self) -> &Rpc {
        &self.rpc
    }

    /// The contract table in use.
    #[must_use]
    pub const fn contracts(&self) -> &Contracts {
        &self.contracts
    }

    /// The account that holds the funds: the EOA, or its Safe/proxy wallet.
    #[must_use]
    pub fn holder(&self) -> Address {
        self.wallet.maker(self.signer.address())
    }

    // ---- reads ----

    /// The collateral (pUSD) balance of `owner`, in 10⁻⁶ units.
    ///
    /// # Errors
    /// As [`Rpc::call`], or return data that is not one word.
    pub async fn collateral_balance(&self, owner: Address) -> Result<U256, Error> {
        word(
            &self
                .rpc
                .call(&erc20::balance_of(self.contracts.collateral, owner), None)
                .await?,
        )
    }

    /// How much collateral `spender` may move for `owner`.
    ///
    /// # Errors
    /// As [`collateral_balance`](Self::collateral_balance).
    pub async fn collateral_allowance(
        &self,
        owner: Address,
        spender: Address,
    ) -> Result<U256, Error> {
        let c = erc20::allowance(self.contracts.collateral, owner, spender);
        word(&self.rpc.call(&c, None).await?)
    }

    /// `owner`'s balances of the outcome tokens `ids`, in one `balanceOfBatch` call.
    ///
    /// # Errors
    /// As [`collateral_balance`](Self::collateral_balance), or a result of the wrong length.
    pub async fn outcome_balances(&self, owner: Address, ids: &[U256]) -> Result<Vec<U256>, Error> {
        let owners = vec![owner; ids.len()];
        let c = erc1155::balance_of_batch(self.contracts.conditional_tokens, &owners, ids);
        let data = self.rpc.call(&c, None).await?;
        let out = Reader::new(&data).uints(0)?;
        if out.len() != ids.len() {
            return Err(Error::new(Kind::Decode("balanceOfBatch length")));
        }
        Ok(out)
    }

    /// Whether `operator` may move all of `owner`'s outcome tokens.
    ///
    /// # Errors
    /// As [`collateral_balance`](Self::collateral_balance).
    pub async fn is_approved_for_all(
        &self,
        owner: Address,
        operator: Address,
    ) -> Result<bool, Error> {
        let c = erc1155::is_approved_for_all(self.contracts.conditional_tokens, owner, operator);
        Ok(Reader::new(&self.rpc.call(&c, None).await?).bool(0)?)
    }

    /// The condition's payout vector and denominator (one batch after the slot count).
    ///
    /// # Errors
    /// As [`collateral_balance`](Self::collateral_balance); an unprepared condition has no slots
    /// and is an error.
    pub async fn resolution(&self, condition_id: B256) -> Result<Resolution, Error> {
        let ctf_addr = self.contracts.conditional_tokens;
        let slots = word(
            &self
                .rpc
                .call(&ctf::outcome_slot_count(ctf_addr, condition_id), None)
                .await?,
        )?;
        let slots = u64::try_from(slots)
            .ok()
            .filter(|&n| (1..=256).contains(&n))
            .ok_or(Error::invalid(
                "condition is not prepared (no outcome slots)",
            ))?;
        let mut calls = vec![ctf::payout_denominator(ctf_addr, condition_id)];
        calls.extend((0..slots).map(|i| ctf::payout_numerators(ctf_addr, condition_id, i)));
        let mut results = self.rpc.call_many(&calls).await?.into_iter();
        let den = word(&results.next().ok_or(Error::new(Kind::Decode("batch")))??)?;
        let nums = results.map(|r| word(&r?)).collect::<Result<Vec<_>, _>>()?;
        Ok(Resolution {
            payout_numerators: nums,
            payout_denominator: den,
        })
    }

    /// Every approval the holder needs for trading and settlement, with its state (one batch).
    ///
    /// # Errors
    /// As [`Rpc::call_many`], or an answer that does not decode.
    pub async fn approvals(&self) -> Result<Vec<Approval>, Error> {
        let owner = self.holder();
        let spenders = self.contracts.collateral_spenders();
        let operators = self.contracts.token_operators();
        let mut calls: Vec<Call> = spenders
            .iter()
            .map(|s| erc20::allowance(self.contracts.collateral, owner, *s))
            .collect();
        calls.extend(
            operators.iter().map(|o| {
                erc1155::is_approved_for_all(self.contracts.conditional_tokens, owner, *o)
            }),
        );
        let results = self.rpc.call_many(&calls).await?;
        let mut out = Vec::with_capacity(results.len());
        for (i, r) in results.into_iter().enumerate() {
            let data = r?;
            if let Some(s) = spenders.get(i) {
                out.push(Approval {
                    collateral: true,
                    spender: *s,
                    granted: word(&data)? >= ALLOWANCE_GRANTED,
                });
            } else if let Some(o) = operators.get(i - spenders.len()) {
                out.push(Approval {
                    collateral: false,
                    spender: *o,
                    granted: Reader::new(&data).bool(0)?,
                });
            }
        }
        Ok(out)
    }

    // ---- writes ----

    /// The calls that grant exactly the missing approvals (collateral `approve(spender, MAX)`
    /// and `setApprovalForAll(operator, true)`), in order, without sending them: for a Safe
    /// multi-send, a relayer batch or a sender of the caller's own. Empty when everything is
    /// in place.
    ///
    /// # Errors
    /// As [`approvals`](Self::approvals).
    pub async fn approval_calls(&self) -> Result<Vec<Call>, Error> {
        let mut calls = Vec::new();
        for a in self.approvals().await? {
            if a.granted {
                continue;
            }
            calls.push(if a.collateral {
                erc20::approve(self.contracts.collateral, a.spender, U256::MAX)?
            } else {
                erc1155::set_approval_for_all(self.contracts.conditional_tokens, a.spender, true)?
            });
        }
        Ok(calls)
    }

    /// Sends the [missing approvals](Self::approval_calls), one transaction each, in order;
    /// the receipts of those sent (empty when everything was in place).
    ///
    /// # Errors
    /// As [`approvals`](Self::approvals) and [`send`](Self::send); earlier approvals stay.
    pub async fn ensure_approvals(&self) -> Result<Vec<Receipt>, Error> {
        let mut receipts = Vec::new();
        for call in self.approval_calls().await? {
            receipts.push(self.send(call).await?);
        }
        Ok(receipts)
    }

    /// The call that splits `amount` collateral into `amount` of each outcome of a binary
    /// market, without sending it (no I/O).
    ///
    /// # Errors
    /// A zero amount ([`Error::is_invalid_request`]).
    pub fn split_call(
        &self,
        condition_id: B256,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Call, Error> {
        Ok(ctf::split_position(
            self.contracts.positions_target(neg_risk),
            self.contracts.collateral,
            B256::ZERO,
            condition_id,
            &ctf::BINARY_PARTITION,
            U256::from(amount.as_micros()),
        )?)
    }

    /// Sends [`split_call`](Self::split_call).
    ///
    /// # Errors
    /// As [`split_call`](Self::split_call) and [`send`](Self::send).
    pub async fn split(
        &self,
        condition_id: B256,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Receipt, Error> {
        self.send(self.split_call(condition_id, amount, neg_risk)?)
            .await
    }

    /// The call that merges `amount` of each outcome of a binary market back into collateral,
    /// without sending it (no I/O).
    ///
    /// # Errors
    /// A zero amount ([`Error::is_invalid_request`]).
    pub fn merge_call(
        &self,
        condition_id: B256,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Call, Error> {
        Ok(ctf::merge_positions(
            self.contracts.positions_target(neg_risk),
            self.contracts.collateral,
            B256::ZERO,
            condition_id,
            &ctf::BINARY_PARTITION,
            U256::from(amount.as_micros()),
        )?)
    }

    /// Sends [`merge_call`](Self::merge_call).
    ///
    /// # Errors
    /// As [`merge_call`](Self::merge_call) and [`send`](Self::send).
    pub async fn merge(
        &self,
        condition_id: B256,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Receipt, Error> {
        self.send(self.merge_call(condition_id, amount, neg_risk)?)
            .await
    }

    /// The call that redeems the caller's whole position in a resolved binary market, without
    /// sending it (no I/O).
    ///
    /// # Errors
    /// A contract table with a zero target ([`Error::is_invalid_request`]).
    pub fn redeem_call(&self, condition_id: B256, neg_risk: bool) -> Result<Call, Error> {
        Ok(ctf::redeem_positions(
            self.contracts.positions_target(neg_risk),
            self.contracts.collateral,
            B256::ZERO,
            condition_id,
            &ctf::BINARY_PARTITION,
        )?)
    }

    /// Sends [`redeem_call`](Self::redeem_call).
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn redeem(&self, condition_id: B256, neg_risk: bool) -> Result<Receipt, Error> {
        self.send(self.redeem_call(condition_id, neg_risk)?).await
    }

    fn neg_risk_adapter(&self) -> Result<Address, Error> {
        self.contracts
            .neg_risk_adapter
            .ok_or(Error::invalid("no Neg Risk Adapter on this chain/version"))
    }

    /// The call that converts `amount` NO of each question in `index_set` on the Neg Risk
    /// Adapter, without sending it (no I/O).
    ///
    /// # Errors
    /// No Neg Risk Adapter in the contract table; a zero index set or amount
    /// ([`Error::is_invalid_request`]).
    pub fn convert_neg_risk_call(
        &self,
        market_id: B256,
        index_set: U256,
        amount: Size,
    ) -> Result<Call, Error> {
        Ok(neg_risk::convert_positions(
            self.neg_risk_adapter()?,
            market_id,
            index_set,
            U256::from(amount.as_micros()),
        )?)
    }

    /// Sends [`convert_neg_risk_call`](Self::convert_neg_risk_call).
    ///
    /// # Errors
    /// As [`convert_neg_risk_call`](Self::convert_neg_risk_call) and [`send`](Self::send).
    pub async fn convert_neg_risk(
        &self,
        market_id: B256,
        index_set: U256,
        amount: Size,
    ) -> Result<Receipt, Error> {
        self.send(self.convert_neg_risk_call(market_id, index_set, amount)?)
            .await
    }

    /// The call that redeems `[yes, no]` amounts of a resolved neg-risk question on the Neg
    /// Risk Adapter, without sending it (no I/O).
    ///
    /// # Errors
    /// No Neg Risk Adapter; both amounts zero ([`Error::is_invalid_request`]).
    pub fn redeem_neg_risk_call(
        &self,
        condition_id: B256,
        yes: Size,
        no: Size,
    ) -> Result<Call, Error> {
        let amounts = [U256::from(yes.as_micros()), U256::from(no.as_micros())];
        Ok(neg_risk::redeem_positions(
            self.neg_risk_adapter()?,
            condition_id,
            &amounts,
        )?)
    }

    /// Sends [`redeem_neg_risk_call`](Self::redeem_neg_risk_call).
    ///
    /// # Errors
    /// As [`redeem_neg_risk_call`](Self::redeem_neg_risk_call) and [`send`](Self::send).
    pub async fn redeem_neg_risk(
        &self,
        condition_id: B256,
        yes: Size,
        no: Size,
    ) -> Result<Receipt, Error> {
        self.send(self.redeem_neg_risk_call(condition_id, yes, no)?)
            .await
    }

    /// `call` as the holder would make it: unchanged for an EOA, `execTransaction` for a Safe
    /// (signed with the Safe's current nonce), `proxy(...)` on the factory for a proxy wallet.
    ///
    /// # Errors
    /// Deposit wallets are refused; reading the Safe nonce can fail.
    pub async fn wrap(&self, call: Call) -> Result<Call, Error> {
        match self.wallet {
            Wallet::Eoa => Ok(call),
            Wallet::Safe(safe) => {
                let nonce = word(&self.rpc.call(&wrap::safe_nonce(safe), None).await?)?;
                Ok(wrap::sign_safe_call(
                    &self.signer,
                    self.chain.id(),
                    safe,
                    &call,
                    nonce,
                )?)
            }
            Wallet::Proxy(_) => Ok(wrap::proxy_calls(&[call])),
            _ => Err(Error::invalid(
                "deposit wallets settle through Polymarket's relayer, not a direct transaction",
            )),
        }
    }

    /// Sends `call` as the holder and waits for its receipt.
    ///
    /// # Errors
    /// Reverts (with the decoded reason, at estimation or in the receipt), fee caps,
    /// insufficient funds, nonce too low (after one automatic retry with a re-read nonce),
    /// replacement, and the receipt timeout.
    ///
    /// Sends through a Safe are serialised (on this settler and its clones): each signs the
    /// Safe's current nonce, which moves only when the previous execution is mined.
    pub async fn send(&self, call: Call) -> Result<Receipt, Error> {
        let _safe = match self.wallet {
            Wallet::Safe(_) => Some(self.safe_lock.lock().await),
            _ => None,
        };
        let call = self.wrap(call).await?;
        let (hash, nonce) = self.submit(&call).await?;
        self.wait(hash, nonce).await
    }

    /// Estimates, prices, signs and broadcasts `call` from the EOA as is (no wallet wrapping);
    /// returns the transaction hash and the nonce it used.
    ///
    /// # Errors
    /// As [`send`](Self::send), except the receipt ones.
    pub async fn submit(&self, call: &Call) -> Result<(B256, u64), Error> {
        let from = self.signer.address();
        let node_chain = self.rpc.chain_id().await?;
        if node_chain != self.chain.id() {
            return Err(Error::new(Kind::ChainMismatch {
                expected: self.chain.id(),
                node: node_chain,
            }));
        }
        let estimate = self.rpc.estimate_gas(call, from).await?;
        let gas = estimate.saturating_add(estimate.saturating_mul(self.gas_headroom_percent) / 100);
        if gas > self.gas_limit_cap {
            return Err(Error::new(Kind::FeeCap {
                what: "gas limit",
                needed: u128::from(gas),
                cap: u128::from(self.gas_limit_cap),
            }));
        }
        let (max_fee, tip) = self.fees().await?;
        let mut retried = false;
        loop {
            let nonce = self.nonces.reserve(&self.rpc, from).await?;
            let tx = Eip1559Tx::new(self.chain.id(), nonce, call)
                .gas_limit(gas)
                .fees(max_fee, tip);
            let signed = tx.sign(&self.signer)?;
            match self.rpc.send_raw(signed.raw()).await {
                Ok(_) => return Ok((signed.hash(), nonce)),
                Err(e) if e.is_nonce_too_low() && !retried => {
                    retried = true;
                    self.nonces.resync().await;
                }
                Err(e) => {
                    if e.is_nonce_too_low() {
                        self.nonces.resync().await;
                    } else {
                        self.nonces.release(nonce).await;
                    }
                    return Err(e);
                }
            }
        }
    }

    /// `(maxFeePerGas, maxPriorityFeePerGas)`: tip = the node's suggestion clamped to the cap;
    /// max fee = 2 × base fee + tip clamped to the cap, refused when even base fee + tip is above.
    async fn fees(&self) -> Result<(u128, u128), Error> {
        let base = self.rpc.base_fee().await?;
        let tip = self
            .rpc
            .max_priority_fee()
            .await?
            .min(self.priority_fee_cap);
        let floor = base.saturating_add(tip);
        if floor > self.max_fee_cap {
            return Err(Error::new(Kind::FeeCap {
                what: "base fee + tip",
                needed: floor,
                cap: self.max_fee_cap,
            }));
        }
        let max_fee = base
            .saturating_mul(2)
            .saturating_add(tip)
            .min(self.max_fee_cap);
        Ok((max_fee, tip))
    }

    /// Waits for the receipt of `hash` (sent with `nonce` by this EOA).
    ///
    /// # Errors
    /// [`Error::is_revert`] for status 0; [`Error::is_replaced`] when the account's mined nonce
    /// passed `nonce` without this transaction; [`Error::is_timeout`] after the receipt timeout.
    pub async fn wait(&self, hash: B256, nonce: u64) -> Result<Receipt, Error> {
        let deadline = Instant::now() + self.receipt_timeout;
        let mut passed = 0u32;
        loop {
            if let Some(r) = self.rpc.receipt(hash).await? {
                if r.success {
                    return Ok(r);
                }
                return Err(Error::new(Kind::Revert {
                    reason: None,
                    hash: Some(hash),
                }));
            }
            // Mined nonce past ours and still no receipt (twice, to skip a lagging node): replaced.
            let mined = self
                .rpc
                .transaction_count(self.signer.address(), "latest")
                .await?;
            if mined > nonce {
                passed += 1;
                if passed >= 2 {
                    return Err(Error::new(Kind::Replaced { hash }));
                }
            }
            if Instant::now() >= deadline {
                return Err(Error::new(Kind::Timeout { hash: None }).at_tx(hash));
            }
            tokio::time::sleep(self.poll_interval).await;
        }
    }
}
