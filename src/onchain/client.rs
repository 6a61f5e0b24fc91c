//! [`Settler`]: reads, approvals, split/merge/redeem and neg-risk conversion for one account,
//! sent as EIP-1559 transactions from the order path's [`Signer`] and [`Wallet`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};

use super::abi::Reader;
use super::call::Call;
use super::check::CallError;
use super::error::{Error, Kind};
use super::nonce::NonceManager;
use super::rpc::{Receipt, Rpc};
use super::tx::Eip1559Tx;
use super::{ctf, erc20, erc1155, neg_risk, router, wallet as wrap};
use crate::fixed::Size;
use crate::sign::Signer;
use crate::sign::wallet::Wallet;
use crate::types::{
    Chain, ConditionId, Contracts, ExchangeVersion, PositionId, Protocol, contracts,
};

/// `ctf::split_position` and `ctf::merge_positions`: target, collateral, parent collection,
/// condition, partition, amount.
type CtfPositionCall = fn(Address, Address, B256, B256, &[U256], U256) -> Result<Call, CallError>;

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

    /// The exchange generation whose contract table is used for CTF markets. Default is
    /// [`ExchangeVersion::V2`] (pUSD collateral, the collateral adapters). Protocol V2 markets
    /// always use the chain's ExchangeV3 table (PositionManager, Router).
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
    /// variables ([`Proxy`](crate::http::Proxy#where-it-applies)). Ignored with
    /// [`http_client`](Self::http_client).
    pub fn proxy(mut self, proxy: crate::http::Proxy) -> Self {
        self.proxy = crate::http::proxy::Setting::Fixed(std::sync::Arc::new(proxy));
        self
    }

    /// JSON-RPC never through a proxy, whatever the environment says. Default is the proxy
    /// environment variables ([`Proxy`](crate::http::Proxy#where-it-applies)).
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
            v2: *contracts(self.chain, ExchangeVersion::V3),
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
/// settler.ensure_approvals().await?;            // only the missing ones (CTF markets)
/// // 62 hex digits: V2; 64: CTF, unless it may be a padded V2 id (then say which, with
/// // `ConditionId::parse_for` and the market's protocol).
/// let condition: polyclob::types::ConditionId = "0x5eed…".parse()?;
/// settler.split(condition, Size::from_micros(10_000_000), false).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Settler {
    rpc: Rpc,
    signer: Signer,
    chain: Chain,
    contracts: Contracts,
    /// The chain's Protocol V2 table (ExchangeV3, PositionManager, Router).
    v2: Contracts,
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
pub struct Payouts {
    /// Payout numerator per outcome slot (all zero before resolution).
    pub payout_numerators: Vec<U256>,
    /// The payout denominator: zero until the condition resolves.
    pub payout_denominator: U256,
}

impl Payouts {
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

/// The YES and NO position ids of a V2 condition.
fn v2_positions(condition: ConditionId) -> Result<[PositionId; 2], Error> {
    let p = |o| {
        PositionId::of(condition, o).map_err(|e| match e {
            crate::types::ProtocolError::BadPositionId { reason } => Error::invalid(reason),
            _ => Error::invalid("not a V2 condition"),
        })
    };
    Ok([p(0)?, p(1)?])
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

    /// The contract table in use for CTF markets.
    #[must_use]
    pub const fn contracts(&self) -> &Contracts {
        &self.contracts
    }

    /// The contract table of a protocol: the CTF table ([`contracts`](Self::contracts)) or the
    /// chain's Protocol V2 one.
    #[must_use]
    pub const fn contracts_for(&self, protocol: Protocol) -> &Contracts {
        match protocol {
            Protocol::V2 => &self.v2,
            _ => &self.contracts,
        }
    }

    /// The V2 table, when the chain has a Router (V2 settlement needs it).
    fn v2_table(&self) -> Result<&Contracts, Error> {
        match (self.v2.router, self.v2.position_manager) {
            (Some(_), Some(_)) => Ok(&self.v2),
            _ => Err(Error::invalid(
                "no Protocol V2 Router/PositionManager is published for this chain",
            )),
        }
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
    pub async fn resolution(&self, condition_id: B256) -> Result<Payouts, Error> {
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
        Ok(Payouts {
            payout_numerators: nums,
            payout_denominator: den,
        })
    }

    /// Every approval the holder needs for trading and settling CTF markets, with its state
    /// (one batch): [`approvals_for`](Self::approvals_for) `(Protocol::Ctf)`.
    ///
    /// # Errors
    /// As [`Rpc::call_many`], or an answer that does not decode.
    pub async fn approvals(&self) -> Result<Vec<Approval>, Error> {
        self.approvals_for(Protocol::Ctf).await
    }

    /// Every approval the holder needs for one protocol's markets, with its state (one batch).
    /// Protocol V2 (docs `/migrate/polymarket-v2/contract-integrations`; CTF approvals do not
    /// carry over): pUSD `approve` to ExchangeV3 (buy) and the Router (split), and
    /// PositionManager `setApprovalForAll` for ExchangeV3 (sell) and the Router (merge, redeem).
    ///
    /// # Errors
    /// As [`Rpc::call_many`], or an answer that does not decode; V2 on a chain without a
    /// published Router.
    pub async fn approvals_for(&self, protocol: Protocol) -> Result<Vec<Approval>, Error> {
        let c = match protocol {
            Protocol::V2 => self.v2_table()?,
            _ => &self.contracts,
        };
        let owner = self.holder();
        let spenders = c.collateral_spenders();
        let operators = c.token_operators();
        let mut calls: Vec<Call> = spenders
            .iter()
            .map(|s| erc20::allowance(c.collateral, owner, *s))
            .collect();
        calls.extend(
            operators
                .iter()
                .map(|o| erc1155::is_approved_for_all(c.outcome_tokens(), owner, *o)),
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

    /// The calls that grant exactly the missing CTF approvals, unsent:
    /// [`approval_calls_for`](Self::approval_calls_for) `(Protocol::Ctf)`.
    ///
    /// # Errors
    /// As [`approval_calls_for`](Self::approval_calls_for).
    pub async fn approval_calls(&self) -> Result<Vec<Call>, Error> {
        self.approval_calls_for(Protocol::Ctf).await
    }

    /// The calls that grant exactly the missing approvals of one protocol (collateral
    /// `approve(spender, MAX)` and `setApprovalForAll(operator, true)` on the outcome-token
    /// contract), in order, without sending them: for a Safe multi-send, a relayer batch or a
    /// sender of the caller's own. Empty when everything is in place.
    ///
    /// # Errors
    /// As [`approvals_for`](Self::approvals_for).
    pub async fn approval_calls_for(&self, protocol: Protocol) -> Result<Vec<Call>, Error> {
        let c = *self.contracts_for(protocol);
        let mut calls = Vec::new();
        for a in self.approvals_for(protocol).await? {
            if a.granted {
                continue;
            }
            calls.push(if a.collateral {
                erc20::approve(c.collateral, a.spender, U256::MAX)?
            } else {
                erc1155::set_approval_for_all(c.outcome_tokens(), a.spender, true)?
            });
        }
        Ok(calls)
    }

    /// Grants exactly the missing CTF approvals:
    /// [`ensure_approvals_for`](Self::ensure_approvals_for) `(Protocol::Ctf)`.
    ///
    /// # Errors
    /// As [`ensure_approvals_for`](Self::ensure_approvals_for).
    pub async fn ensure_approvals(&self) -> Result<Vec<Receipt>, Error> {
        self.ensure_approvals_for(Protocol::Ctf).await
    }

    /// Sends the [missing approvals](Self::approval_calls_for) of one protocol, one
    /// transaction each, in order; the receipts of those sent (empty when everything was in
    /// place).
    ///
    /// # Errors
    /// As [`approvals_for`](Self::approvals_for) and [`send`](Self::send); earlier approvals stay.
    pub async fn ensure_approvals_for(&self, protocol: Protocol) -> Result<Vec<Receipt>, Error> {
        let mut receipts = Vec::new();
        for call in self.approval_calls_for(protocol).await? {
            receipts.push(self.send(call).await?);
        }
        Ok(receipts)
    }

    /// The call that splits `amount` collateral into `amount` of each outcome of a binary
    /// market, without sending it (no I/O). The condition's protocol picks the path: a CTF
    /// (`bytes32`) condition through the collateral adapter of its market type, a V2
    /// (`bytes31`) one through the Router (`neg_risk` is then irrelevant: one Router serves
    /// both).
    ///
    /// # Errors
    /// What the contracts would revert on, refused before anything is signed
    /// ([`Error::is_invalid_request`], with the [`CallError`](super::CallError) naming the
    /// argument): a zero amount, a zero condition id, a V2 condition of no known module; V2 on
    /// a chain without a published Router.
    pub fn split_call(
        &self,
        condition: ConditionId,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Call, Error> {
        self.binary_call(
            condition,
            amount,
            neg_risk,
            router::split,
            ctf::split_position,
        )
    }

    /// Sends [`split_call`](Self::split_call).
    ///
    /// # Errors
    /// As [`split_call`](Self::split_call) and [`send`](Self::send).
    pub async fn split(
        &self,
        condition: ConditionId,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Receipt, Error> {
        self.send(self.split_call(condition, amount, neg_risk)?)
            .await
    }

    /// The call that merges `amount` of each outcome of a binary market back into collateral
    /// (CTF: the collateral adapter; V2: the Router), without sending it (no I/O).
    ///
    /// # Errors
    /// As [`split_call`](Self::split_call).
    pub fn merge_call(
        &self,
        condition: ConditionId,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Call, Error> {
        self.binary_call(
            condition,
            amount,
            neg_risk,
            router::merge,
            ctf::merge_positions,
        )
    }

    /// A split or a merge of a binary market: the Router's call for a V2 condition, the CTF
    /// call on the collateral adapter of the market type otherwise.
    fn binary_call(
        &self,
        condition: ConditionId,
        amount: Size,
        neg_risk: bool,
        v2: fn(Address, ConditionId, U256) -> Result<Call, super::CallError>,
        ctf_call: CtfPositionCall,
    ) -> Result<Call, Error> {
        let amount = U256::from(amount.as_micros());
        Ok(match condition.protocol() {
            Protocol::V2 => v2(self.router()?, condition, amount)?,
            _ => ctf_call(
                self.contracts.positions_target(neg_risk),
                self.contracts.collateral,
                B256::ZERO,
                B256::from(*condition.as_bytes32()),
                &ctf::BINARY_PARTITION,
                amount,
            )?,
        })
    }

    /// Sends [`merge_call`](Self::merge_call).
    ///
    /// # Errors
    /// As [`merge_call`](Self::merge_call) and [`send`](Self::send).
    pub async fn merge(
        &self,
        condition: ConditionId,
        amount: Size,
        neg_risk: bool,
    ) -> Result<Receipt, Error> {
        self.send(self.merge_call(condition, amount, neg_risk)?)
            .await
    }

    /// The calls that redeem the holder's whole position in a resolved binary market, unsent.
    /// CTF: one `redeemPositions` on the collateral adapter (it burns every outcome's balance;
    /// no I/O). V2: the Router redeems one outcome and an explicit amount at a time, so this
    /// reads both positions' balances on the PositionManager and returns one `redeem` per
    /// outcome held (the loser's pays nothing but clears it).
    ///
    /// # Errors
    /// A V2 redemption with nothing held, or a condition whose position ids do not have the V2
    /// layout; the balance read.
    pub async fn redeem_calls(
        &self,
        condition: ConditionId,
        neg_risk: bool,
    ) -> Result<Vec<Call>, Error> {
        if condition.protocol() == Protocol::V2 {
            // Refused before the balance read, with the reason a builder gives.
            super::check::v2_condition(condition)?;
            let held = self.position_balances(self.holder(), condition).await?;
            let mut calls = Vec::new();
            for (outcome, amount) in (0u8..).zip(held) {
                if amount != U256::ZERO {
                    calls.push(self.redeem_outcome_call(condition, outcome, amount)?);
                }
            }
            if calls.is_empty() {
                return Err(Error::invalid("no position of this V2 condition is held"));
            }
            return Ok(calls);
        }
        Ok(vec![ctf::redeem_positions(
            self.contracts.positions_target(neg_risk),
            self.contracts.collateral,
            B256::ZERO,
            B256::from(*condition.as_bytes32()),
            &ctf::BINARY_PARTITION,
        )?])
    }

    /// Sends the [redeem calls](Self::redeem_calls) in order; the receipt is the last one's.
    ///
    /// # Errors
    /// As [`redeem_calls`](Self::redeem_calls) and [`send`](Self::send).
    pub async fn redeem(&self, condition: ConditionId, neg_risk: bool) -> Result<Receipt, Error> {
        let mut last = None;
        for call in self.redeem_calls(condition, neg_risk).await? {
            last = Some(self.send(call).await?);
        }
        last.ok_or(Error::invalid("nothing to redeem"))
    }

    /// The call that redeems `amount` (10⁻⁶ units) of outcome `outcome` (0 = YES, 1 = NO) of
    /// a resolved V2 market through the Router, unsent (no I/O).
    ///
    /// # Errors
    /// A CTF condition (those redeem whole balances: [`redeem_calls`](Self::redeem_calls)),
    /// a V2 condition of no known module, an outcome above 1, a zero amount (each
    /// [`Error::is_invalid_request`]); no Router on this chain.
    pub fn redeem_outcome_call(
        &self,
        condition: ConditionId,
        outcome: u8,
        amount: U256,
    ) -> Result<Call, Error> {
        Ok(router::redeem(self.router()?, condition, outcome, amount)?)
    }

    /// Sends [`redeem_outcome_call`](Self::redeem_outcome_call).
    ///
    /// # Errors
    /// As [`redeem_outcome_call`](Self::redeem_outcome_call) and [`send`](Self::send).
    pub async fn redeem_outcome(
        &self,
        condition: ConditionId,
        outcome: u8,
        amount: U256,
    ) -> Result<Receipt, Error> {
        self.send(self.redeem_outcome_call(condition, outcome, amount)?)
            .await
    }

    /// `owner`'s balances of a V2 condition's two positions (YES, NO) on the PositionManager.
    ///
    /// # Errors
    /// A CTF condition, or one whose position ids do not have the V2 layout; else as
    /// [`collateral_balance`](Self::collateral_balance).
    pub async fn position_balances(
        &self,
        owner: Address,
        condition: ConditionId,
    ) -> Result<[U256; 2], Error> {
        let pm = self.v2_table()?.outcome_tokens();
        let ids = v2_positions(condition)?.map(|p| p.as_u256());
        let c = erc1155::balance_of_batch(pm, &[owner, owner], &ids);
        let out = Reader::new(&self.rpc.call(&c, None).await?).uints(0)?;
        match out[..] {
            [yes, no] => Ok([yes, no]),
            _ => Err(Error::new(Kind::Decode("balanceOfBatch length"))),
        }
    }

    /// What redeeming `amount` of a V2 position pays, in pUSD 10⁻⁶ units
    /// (`PositionManager.getPayout`; zero for a losing position, a revert while unresolved).
    ///
    /// # Errors
    /// As [`collateral_balance`](Self::collateral_balance).
    pub async fn payout(&self, position: PositionId, amount: U256) -> Result<U256, Error> {
        let pm = self.v2_table()?.outcome_tokens();
        word(
            &self
                .rpc
                .call(&router::get_payout(pm, position, amount), None)
                .await?,
        )
    }

    fn router(&self) -> Result<Address, Error> {
        self.v2_table()?
            .router
            .ok_or(Error::invalid("no Protocol V2 Router on this chain"))
    }

    /// The call that converts `amount` NO of each question in `index_set` on the Neg Risk
    /// Adapter, unsent (no I/O). The docs list that adapter as deprecated (neg-risk
    /// split/merge/redeem moved to the NegRiskCtfCollateralAdapter, which
    /// [`split`](Self::split) and friends use) and name no successor for conversion, so
    /// conversion still targets it. The adapter pulls the No positions: the holder needs
    /// `setApprovalForAll(adapter)` on the conditional tokens
    /// ([`erc1155::set_approval_for_all`]), which [`approval_calls`](Self::approval_calls)
    /// leaves out (it never approves the deprecated adapter); batch the two.
    ///
    /// `questions` is the neg-risk market's question count (Gamma lists the event's markets;
    /// the adapter's `getQuestionCount`): an index set naming a question beyond it would
    /// revert, so it is refused here.
    ///
    /// # Errors
    /// No Neg Risk Adapter in the contract table; a zero market id, index set or amount, a
    /// market of fewer than two questions, an index set beyond `questions`
    /// ([`Error::is_invalid_request`]).
    pub fn convert_neg_risk_call(
        &self,
        market_id: B256,
        questions: u8,
        index_set: U256,
        amount: Size,
    ) -> Result<Call, Error> {
        let adapter = self
            .contracts
            .neg_risk_adapter
            .ok_or(Error::invalid("no Neg Risk Adapter on this chain/version"))?;
        Ok(neg_risk::convert_positions(
            adapter,
            market_id,
            questions,
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
        questions: u8,
        index_set: U256,
        amount: Size,
    ) -> Result<Receipt, Error> {
        self.send(self.convert_neg_risk_call(market_id, questions, index_set, amount)?)
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
                wrap::sign_safe_call(&self.signer, self.chain.id(), safe, &call, nonce)
            }
            Wallet::Proxy(_) => Ok(wrap::proxy_calls(&[call])?),
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
                Ok(_) => {
                    crate::telemetry::event!(
                        INFO,
                        "polyclob.settle.sent",
                        tx_hash = %signed.hash(),
                        nonce,
                        chain_id = self.chain.id(),
                    );
                    return Ok((signed.hash(), nonce));
                }
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
