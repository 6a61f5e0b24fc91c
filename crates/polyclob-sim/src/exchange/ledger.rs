//! The simulator's one book of balances, and its chain's state and execution (calls applied
//! by calldata need feature `onchain`): native balances,
//! the collateral ERC-20, ConditionalTokens' ERC-1155 balances and approvals, conditions and
//! their payouts, Safe nonces, and what the exchange's fills move.
//!
//! Calls are applied by selector to the contract addresses of the V2 contract table (pUSD,
//! ConditionalTokens, the collateral adapters, the Neg Risk Adapter, the exchanges, the proxy
//! factory), so a client configured for Polygon talks to it unchanged. Protocol V2 markets
//! (position-ID markets whose condition is a `bytes31` of the V2 layout) live on the V3
//! table's PositionManager and are split, merged and redeemed through its Router; their fills
//! settle on ExchangeV3. Simplifications: a CTF market's position ids are its configured token
//! ids (not derived by the CTF's collection-id hashing); only the binary partition `[1, 2]`
//! splits and merges; the Neg Risk Adapter's redemption and conversion are modelled without
//! its fee (question `i` of a neg-risk group is the `i`-th market configured with its
//! `negRiskMarketID`); the simulator's own liquidity (the seeded books and simulated traders) is an unlimited
//! counterparty whose side of a fill is minted or burned.

use std::collections::{HashMap, HashSet};

use alloy_primitives::{Address, B256, U256};

use polyclob::fixed::{CostBasis, Notional, Size};
use polyclob::onchain::Call;
use polyclob::onchain::Selector;
use polyclob::onchain::abi::{Reader, Value, encode_args, split_selector};
use polyclob::sign::Signature;
use polyclob::sign::eip712::recover_address;
use polyclob::sign::wallet::{PROXY_FACTORY, derive_proxy_wallet, derive_safe_wallet};
use polyclob::types::{
    Chain, ConditionId, Contracts, ExchangeVersion, PositionId, Protocol, Side, contracts,
};

use super::engine::Fill;
use super::market::MarketSpec;

/// The `bytes32` word of a condition id in any form the simulator is given: 62 hex digits (a
/// V2 `bytes31`, right-padded) or 64 (CTF, or a V2 id already padded: the word is the same).
pub(crate) fn condition_word(text: &str) -> Option<B256> {
    ConditionId::parse_for(text, Protocol::V2)
        .or_else(|_| ConditionId::parse_for(text, Protocol::Ctf))
        .ok()
        .map(|c| B256::from(*c.as_bytes32()))
}

/// Wallet wrappers (Safe `execTransaction`, proxy `proxy(...)`) one call may nest.
const MAX_WRAP_DEPTH: u8 = 4;

/// A binary condition the chain knows: its two position ids and, once resolved, the payouts.
#[derive(Debug, Clone)]
struct Condition {
    tokens: [U256; 2],
    payouts: Option<[u64; 2]>,
    /// A Protocol V2 condition: positions on the PositionManager, Router operations.
    v2: bool,
}

/// The balances a transaction may change; cloned to undo a reverted one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Balances {
    pub(crate) native: HashMap<Address, U256>,
    collateral: HashMap<Address, U256>,
    allowance: HashMap<(Address, Address), U256>,
    tokens: HashMap<(Address, U256), U256>,
    operators: HashSet<(Address, Address)>,
    /// `setApprovalForAll` on the PositionManager (V2), kept apart from ConditionalTokens'.
    pm_operators: HashSet<(Address, Address)>,
    safe_nonces: HashMap<Address, U256>,
}

/// A reverted call: the reason `Error(string)` carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Revert(pub(crate) String);

fn revert<T>(reason: &str) -> Result<T, Revert> {
    Err(Revert(reason.to_owned()))
}

impl From<polyclob::onchain::AbiError> for Revert {
    fn from(e: polyclob::onchain::AbiError) -> Self {
        Self(format!("bad calldata: {e}"))
    }
}

/// The chain's whole state.
#[derive(Debug)]
pub(crate) struct Ledger {
    pub(crate) chain: Chain,
    pub(crate) contracts: Contracts,
    /// The V3 table: ExchangeV3, PositionManager, Router (Protocol V2 markets).
    pub(crate) v2: Contracts,
    pub(crate) balances: Balances,
    conditions: HashMap<B256, Condition>,
    /// Neg-risk groups: the `negRiskMarketID` → its questions' conditions, by question index.
    neg_risk_groups: HashMap<B256, Vec<B256>>,
    /// The simulator's own liquidity: its side of fills is minted/burned.
    house: Address,
    pub(crate) settlement_failures: u64,
    /// Each account's cost basis per outcome token (polyclob's average-cost book, fees
    /// included), moved by settled trades only: a taker's trade is one leg, each maker fill one.
    pub(crate) basis: HashMap<(Address, U256), CostBasis>,
}

fn word(v: U256) -> Vec<u8> {
    v.to_be_bytes::<32>().to_vec()
}

impl Ledger {
    pub(crate) fn new(chain: Chain, markets: &[MarketSpec], house: Address) -> Self {
        let mut conditions = HashMap::new();
        let mut neg_risk_groups: HashMap<B256, Vec<B256>> = HashMap::new();
        for m in markets {
            // A V2 market is one whose condition is a `bytes31` of the V2 layout and whose
            // tokens are that condition's position ids; anything else settles as CTF.
            let v2 = m.position_ids
                && ConditionId::parse_for(&m.condition_id, Protocol::V2).is_ok_and(|c| {
                    (0..2).all(|o| {
                        PositionId::of(c, o).is_ok_and(|p| {
                            m.tokens[usize::from(o)].token_id() == p.as_u256().to_string()
                        })
                    })
                });
            let (Some(id), Ok(a), Ok(b)) = (
                condition_word(&m.condition_id),
                m.tokens[0].token_id().parse::<U256>(),
                m.tokens[1].token_id().parse::<U256>(),
            ) else {
                continue;
            };
            if let (true, false, Ok(group)) = (m.neg_risk, v2, m.neg_risk_market_id.parse::<B256>())
            {
                neg_risk_groups.entry(group).or_default().push(id);
            }
            conditions.insert(
                id,
                Condition {
                    tokens: [a, b],
                    payouts: None,
                    v2,
                },
            );
        }
        Self {
            chain,
            contracts: *contracts(chain, ExchangeVersion::V2),
            v2: *contracts(chain, ExchangeVersion::V3),
            balances: Balances::default(),
            conditions,
            neg_risk_groups,
            house,
            settlement_failures: 0,
            basis: HashMap::new(),
        }
    }

    pub(crate) fn chain_id(&self) -> u64 {
        self.chain.id()
    }

    /// Credits `amount` collateral to `to` (test funding).
    pub(crate) fn mint_collateral(&mut self, to: Address, amount: U256) {
        let b = self.balances.collateral.entry(to).or_default();
        *b = b.saturating_add(amount);
    }

    pub(crate) fn collateral_of(&self, who: Address) -> U256 {
        self.balances
            .collateral
            .get(&who)
            .copied()
            .unwrap_or_default()
    }

    /// How much of `owner`'s collateral `spender` may move.
    pub(crate) fn allowance_of(&self, owner: Address, spender: Address) -> U256 {
        self.balances
            .allowance
            .get(&(owner, spender))
            .copied()
            .unwrap_or_default()
    }

    /// Whether `operator` may move `owner`'s outcome tokens (`setApprovalForAll`).
    pub(crate) fn is_operator(&self, owner: Address, operator: Address) -> bool {
        self.balances.operators.contains(&(owner, operator))
    }

    /// As [`is_operator`](Self::is_operator), on the PositionManager (V2 positions) when
    /// `position_manager`.
    pub(crate) fn is_operator_of(
        &self,
        owner: Address,
        operator: Address,
        position_manager: bool,
    ) -> bool {
        if position_manager {
            self.balances.pm_operators.contains(&(owner, operator))
        } else {
            self.is_operator(owner, operator)
        }
    }

    /// Grants (or revokes) every approval trading needs, as the approval step of Polymarket's
    /// onboarding does: unlimited collateral allowance to each spender and ERC-1155 approval
    /// to each operator of the contract table, and of the V3 table for Protocol V2 markets
    /// (ExchangeV3 and the Router, approved on the PositionManager).
    pub(crate) fn set_approved(&mut self, who: Address, on: bool) {
        let amount = if on { U256::MAX } else { U256::ZERO };
        let spenders = self.contracts.collateral_spenders();
        for spender in spenders.into_iter().chain(self.v2.collateral_spenders()) {
            self.balances.allowance.insert((who, spender), amount);
        }
        let tables = [
            (
                self.contracts.token_operators(),
                &mut self.balances.operators,
            ),
            (self.v2.token_operators(), &mut self.balances.pm_operators),
        ];
        for (ops, set) in tables {
            for op in ops {
                if on {
                    set.insert((who, op));
                } else {
                    set.remove(&(who, op));
                }
            }
        }
    }

    /// Every non-zero outcome-token holding but the simulator's own: `(account, token, amount)`.
    pub(crate) fn holdings(&self) -> impl Iterator<Item = (Address, U256, U256)> + '_ {
        self.balances
            .tokens
            .iter()
            .filter(|((who, _), n)| *who != self.house && !n.is_zero())
            .map(|((who, id), n)| (*who, *id, *n))
    }

    pub(crate) fn token_of(&self, who: Address, id: U256) -> U256 {
        self.balances
            .tokens
            .get(&(who, id))
            .copied()
            .unwrap_or_default()
    }

    /// A condition's payout numerators (`[1, 0]`: outcome 0 won), once resolved; `None` while
    /// open or for an unknown condition.
    pub(crate) fn payouts(&self, condition_id: &str) -> Option<[u64; 2]> {
        self.conditions.get(&condition_word(condition_id)?)?.payouts
    }

    /// Sets a binary condition's payout to `winner`; false when the condition is unknown or
    /// the index is not 0/1.
    pub(crate) fn resolve(&mut self, condition: B256, winner: usize) -> bool {
        match self.conditions.get_mut(&condition) {
            Some(c) if winner < 2 => {
                let mut p = [0, 0];
                p[winner] = 1;
                c.payouts = Some(p);
                true
            }
            _ => false,
        }
    }

    fn is_position_target(&self, to: Address) -> bool {
        let c = &self.contracts;
        to == c.conditional_tokens
            || Some(to) == c.ctf_collateral_adapter
            || Some(to) == c.neg_risk_collateral_adapter
            || Some(to) == c.neg_risk_adapter
    }

    // ---- reads (eth_call) ----

    /// Answers a read-only call; `Err` is a revert.
    pub(crate) fn read(&self, call: &Call) -> Result<Vec<u8>, Revert> {
        let (selector, r) = split_selector(call.data())?;
        let c = &self.contracts;
        let to = call.to();
        if to == c.collateral {
            return match Selector::of(selector) {
                Some(Selector::BalanceOf) => Ok(word(self.collateral_of(r.address(0)?))),
                Some(Selector::Allowance) => Ok(word(
                    self.balances
                        .allowance
                        .get(&(r.address(0)?, r.address(1)?))
                        .copied()
                        .unwrap_or_default(),
                )),
                _ => revert("collateral: unsupported read"),
            };
        }
        if Some(to) == self.v2.position_manager {
            return match Selector::of(selector) {
                Some(Selector::BalanceOf1155) => Ok(word(self.token_of(r.address(0)?, r.uint(1)?))),
                Some(Selector::BalanceOfBatch) => self.balance_of_batch(&r),
                Some(Selector::IsApprovedForAll) => Ok(word(U256::from(u8::from(
                    self.balances
                        .pm_operators
                        .contains(&(r.address(0)?, r.address(1)?)),
                )))),
                Some(Selector::GetPayout) => self.get_payout(r.uint(0)?, r.uint(1)?).map(word),
                _ => revert("PositionManager: unsupported read"),
            };
        }
        if to == c.conditional_tokens {
            return match Selector::of(selector) {
                Some(Selector::BalanceOf1155) => Ok(word(self.token_of(r.address(0)?, r.uint(1)?))),
                Some(Selector::BalanceOfBatch) => self.balance_of_batch(&r),
                Some(Selector::IsApprovedForAll) => Ok(word(U256::from(u8::from(
                    self.balances
                        .operators
                        .contains(&(r.address(0)?, r.address(1)?)),
                )))),
                Some(Selector::PayoutNumerators) => {
                    let cond = self.conditions.get(&r.b256(0)?);
                    let i = usize::try_from(r.small(1)?).unwrap_or(usize::MAX);
                    match cond {
                        Some(cd) if i < 2 => Ok(word(U256::from(cd.payouts.map_or(0, |p| p[i])))),
                        _ => revert("payoutNumerators: index out of range"),
                    }
                }
                Some(Selector::PayoutDenominator) => Ok(word(U256::from(
                    self.conditions
                        .get(&r.b256(0)?)
                        .and_then(|c| c.payouts)
                        .map_or(0, |p| p[0] + p[1]),
                ))),
                Some(Selector::GetOutcomeSlotCount) => Ok(word(U256::from(
                    if self.conditions.contains_key(&r.b256(0)?) {
                        2u8
                    } else {
                        0
                    },
                ))),
                _ => revert("ConditionalTokens: unsupported read"),
            };
        }
        if selector == Selector::SafeNonce.bytes() {
            return Ok(word(
                self.balances
                    .safe_nonces
                    .get(&to)
                    .copied()
                    .unwrap_or_default(),
            ));
        }
        revert("simulator chain: unsupported read")
    }

    /// ERC-1155 `balanceOfBatch(owners, ids)`.
    fn balance_of_batch(&self, r: &Reader<'_>) -> Result<Vec<u8>, Revert> {
        let owners = r.uints(0)?; // addresses decode as words
        let ids = r.uints(1)?;
        if owners.len() != ids.len() {
            return revert("ERC1155: owners and ids length mismatch");
        }
        let vals: Vec<U256> = owners
            .iter()
            .zip(&ids)
            .map(|(o, id)| {
                let who = Address::from_slice(&o.to_be_bytes::<32>()[12..]);
                self.token_of(who, *id)
            })
            .collect();
        Ok(encode_args(&[Value::uints(&vals)]))
    }

    /// The V2 condition of a position id, with the outcome index.
    fn v2_position(&self, position: U256) -> Result<(Condition, usize), Revert> {
        let p = PositionId::from_u256(position).map_err(|e| Revert(e.to_string()))?;
        let key = B256::from(*p.condition_id().as_bytes32());
        match self.conditions.get(&key) {
            Some(c) if c.v2 => Ok((c.clone(), usize::from(p.outcome_index()))),
            _ => revert("ModuleNotRegistered"),
        }
    }

    /// `PositionManager.getPayout(positionId, amount)`: reverts while unresolved.
    fn get_payout(&self, position: U256, amount: U256) -> Result<U256, Revert> {
        let (cond, outcome) = self.v2_position(position)?;
        let Some(p) = cond.payouts else {
            return revert("result for condition not received yet");
        };
        Ok(amount.saturating_mul(U256::from(p[outcome])) / U256::from(p[0] + p[1]))
    }

    // ---- writes ----

    /// Applies `call` sent by `from`; on `Err` the caller restores the balances.
    pub(crate) fn apply(&mut self, from: Address, call: &Call) -> Result<(), Revert> {
        self.apply_at(from, call, 0)
    }

    /// `apply` inside `depth` wallet wrappers (Safe/proxy), bounded so crafted nesting cannot
    /// exhaust the stack.
    fn apply_at(&mut self, from: Address, call: &Call, depth: u8) -> Result<(), Revert> {
        if depth > MAX_WRAP_DEPTH {
            return revert("wallet calls nested too deeply");
        }
        let (selector, r) = split_selector(call.data())?;
        let to = call.to();
        let c = self.contracts;
        if to == c.collateral {
            return match Selector::of(selector) {
                Some(Selector::Approve) => {
                    self.balances
                        .allowance
                        .insert((from, r.address(0)?), r.uint(1)?);
                    Ok(())
                }
                Some(Selector::Transfer) => self.move_collateral(from, r.address(0)?, r.uint(1)?),
                _ => revert("collateral: unsupported call"),
            };
        }
        if to == PROXY_FACTORY && selector == Selector::Proxy.bytes() {
            let Some(proxy) = derive_proxy_wallet(from, self.chain) else {
                return revert("no proxy factory on this chain");
            };
            for item in r.tuples(0)? {
                if item.small(0)? != 1 {
                    return revert("proxy: only CALL is supported");
                }
                let inner =
                    Call::new(item.address(1)?, item.bytes(3)?.to_vec()).with_value(item.uint(2)?);
                self.apply_at(proxy, &inner, depth + 1)?;
            }
            return Ok(());
        }
        if selector == Selector::ExecTransaction.bytes() {
            return self.exec_safe(to, &r, depth);
        }
        if Some(to) == self.v2.position_manager && selector == Selector::SetApprovalForAll.bytes() {
            if r.bool(1)? {
                self.balances.pm_operators.insert((from, r.address(0)?));
            } else {
                self.balances.pm_operators.remove(&(from, r.address(0)?));
            }
            return Ok(());
        }
        if Some(to) == self.v2.router {
            return self.router_op(from, to, selector, &r);
        }
        if to == c.conditional_tokens && selector == Selector::SetApprovalForAll.bytes() {
            if r.bool(1)? {
                self.balances.operators.insert((from, r.address(0)?));
            } else {
                self.balances.operators.remove(&(from, r.address(0)?));
            }
            return Ok(());
        }
        if Some(to) == c.neg_risk_adapter {
            match Selector::of(selector) {
                Some(Selector::NegRiskRedeem) => return self.neg_risk_redeem(from, to, &r),
                Some(Selector::ConvertPositions) => return self.neg_risk_convert(from, to, &r),
                _ => {}
            }
        }
        if self.is_position_target(to) {
            return self.position_op(from, to, selector, &r);
        }
        revert("simulator chain: unsupported call")
    }

    /// The Neg Risk Adapter's `redeemPositions(conditionId, [yes, no])`: burns the amounts
    /// (the adapter pulls them: it needs the ERC-1155 approval) and pays them by the payouts.
    fn neg_risk_redeem(
        &mut self,
        from: Address,
        adapter: Address,
        r: &Reader<'_>,
    ) -> Result<(), Revert> {
        let Some(cond) = self.conditions.get(&r.b256(0)?).cloned() else {
            return revert("condition not prepared or found");
        };
        let amounts = r.uints(1)?;
        if amounts.len() != 2 {
            return revert("LengthMismatch");
        }
        let Some(payouts) = cond.payouts else {
            return revert("result for condition not received yet");
        };
        if !self.balances.operators.contains(&(from, adapter)) {
            return revert("NotApprovedForAll");
        }
        let den = U256::from(payouts[0] + payouts[1]);
        let mut pay = U256::ZERO;
        for (i, amount) in amounts.iter().enumerate() {
            self.burn_token(from, cond.tokens[i], *amount)?;
            pay = pay.saturating_add(amount.saturating_mul(U256::from(payouts[i])) / den);
        }
        self.move_collateral(self.contracts.conditional_tokens, from, pay)
    }

    /// The Neg Risk Adapter's `convertPositions(marketId, indexSet, amount)`, as the adapter
    /// moves positions (its fee is 0 here): `amount` No of every question in the set is
    /// taken (the adapter pulls it: it needs the ERC-1155 approval) and burned, `amount` Yes of
    /// every other question is minted to the caller, and `amount × (m − 1)` collateral, `m`
    /// the questions in the set, is released from the conditional tokens' escrow.
    fn neg_risk_convert(
        &mut self,
        from: Address,
        adapter: Address,
        r: &Reader<'_>,
    ) -> Result<(), Revert> {
        let Some(group) = self.neg_risk_groups.get(&r.b256(0)?).cloned() else {
            return revert("MarketNotPrepared");
        };
        let (set, amount) = (r.uint(1)?, r.uint(2)?);
        let n = group.len();
        if n <= 1 {
            return revert("NoConvertiblePositions");
        }
        if set.is_zero() || !(set >> n).is_zero() {
            return revert("InvalidIndexSet");
        }
        if amount.is_zero() {
            return Ok(());
        }
        if !self.balances.operators.contains(&(from, adapter)) {
            return revert("NotApprovedForAll");
        }
        let mut taken = 0u64;
        for (i, condition) in group.iter().enumerate() {
            let Some(tokens) = self.conditions.get(condition).map(|c| c.tokens) else {
                return revert("condition not prepared or found");
            };
            if set.bit(i) {
                self.burn_token(from, tokens[1], amount)?;
                taken += 1;
            } else {
                self.mint_token(from, tokens[0], amount);
            }
        }
        let released = amount.saturating_mul(U256::from(taken - 1));
        self.move_collateral(self.contracts.conditional_tokens, from, released)
    }

    /// The Router's `split`, `merge` and `redeem` on a V2 condition (`bytes31`, left-aligned
    /// in its word). The Router pulls pUSD (split, on its allowance) or positions (merge and
    /// redeem, as a PositionManager operator) from the caller; the collateral is escrowed at
    /// the PositionManager.
    fn router_op(
        &mut self,
        from: Address,
        router: Address,
        selector: [u8; 4],
        r: &Reader<'_>,
    ) -> Result<(), Revert> {
        let word = r.b256(0)?;
        if word[31] != 0 {
            return revert("Router: not a bytes31 condition");
        }
        let Some(cond) = self.conditions.get(&word).filter(|c| c.v2).cloned() else {
            return revert("Router: condition not found");
        };
        let Some(pm) = self.v2.position_manager else {
            return revert("no PositionManager on this chain");
        };
        let operator_ok = self.balances.pm_operators.contains(&(from, router));
        match Selector::of(selector) {
            Some(Selector::RouterSplit) => {
                let amount = r.uint(1)?;
                self.pull_collateral(from, router, pm, amount)?;
                for id in cond.tokens {
                    self.mint_token(from, id, amount);
                }
                Ok(())
            }
            Some(Selector::RouterMerge) => {
                if !operator_ok {
                    return revert("NotOwnerNorApproved");
                }
                let amount = r.uint(1)?;
                for id in cond.tokens {
                    self.burn_token(from, id, amount)?;
                }
                self.move_collateral(pm, from, amount)
            }
            Some(Selector::RouterRedeem) => {
                let outcome = match r.small(1)? {
                    0 => 0,
                    1 => 1,
                    _ => return revert("Router: outcome index out of range"),
                };
                let Some(payouts) = cond.payouts else {
                    return revert("result for condition not received yet");
                };
                if !operator_ok {
                    return revert("NotOwnerNorApproved");
                }
                let amount = r.uint(2)?;
                self.burn_token(from, cond.tokens[outcome], amount)?;
                let den = U256::from(payouts[0] + payouts[1]);
                let pay = amount.saturating_mul(U256::from(payouts[outcome])) / den;
                self.move_collateral(pm, from, pay)
            }
            _ => revert("Router: unsupported call"),
        }
    }

    /// Where a market's fills settle: its exchange, the contract escrowing the collateral of
    /// its outcome tokens, and whether sellers approve on the PositionManager (V2).
    /// Where `token` trades: (exchange, escrow, whether it is a Protocol V2 position).
    pub(crate) fn venue(&self, token: U256, neg_risk: bool) -> (Address, Address, bool) {
        let v2 = self
            .conditions
            .values()
            .any(|c| c.v2 && c.tokens.contains(&token));
        match (v2, self.v2.position_manager) {
            (true, Some(pm)) => (self.v2.exchange, pm, true),
            _ => (
                self.contracts.exchange_for(neg_risk),
                self.contracts.conditional_tokens,
                false,
            ),
        }
    }

    /// Whether `who` approved `exchange` to move its outcome tokens (on the PositionManager
    /// for V2 positions).
    pub(crate) fn seller_approved(&self, who: Address, exchange: Address, v2: bool) -> bool {
        if v2 {
            self.balances.pm_operators.contains(&(who, exchange))
        } else {
            self.balances.operators.contains(&(who, exchange))
        }
    }

    fn exec_safe(&mut self, safe: Address, r: &Reader<'_>, depth: u8) -> Result<(), Revert> {
        if r.small(3)? != 0 {
            return revert("Safe: only CALL is supported");
        }
        let inner = Call::new(r.address(0)?, r.bytes(2)?.to_vec()).with_value(r.uint(1)?);
        let nonce = self
            .balances
            .safe_nonces
            .get(&safe)
            .copied()
            .unwrap_or_default();
        let sig_bytes: [u8; 65] = r
            .bytes(9)?
            .try_into()
            .map_err(|_| Revert("GS020: signatures too short".into()))?;
        let sig = Signature::from_bytes(sig_bytes).map_err(|_| Revert("GS026: bad v".into()))?;
        let hash = polyclob::onchain::wallet::safe_tx_hash(self.chain_id(), safe, &inner, nonce);
        let owner =
            recover_address(&hash.0, &sig).map_err(|_| Revert("GS026: bad signature".into()))?;
        // A Polymarket Safe is the CREATE2 Safe of its single owner.
        if derive_safe_wallet(owner, self.chain) != safe {
            return revert("GS026: signer is not the Safe's owner");
        }
        self.balances
            .safe_nonces
            .insert(safe, nonce + U256::from(1u8));
        self.apply_at(safe, &inner, depth + 1)
    }

    fn move_collateral(&mut self, from: Address, to: Address, amount: U256) -> Result<(), Revert> {
        let have = self.collateral_of(from);
        let Some(left) = have.checked_sub(amount) else {
            return revert("ERC20: transfer amount exceeds balance");
        };
        self.balances.collateral.insert(from, left);
        self.mint_collateral(to, amount);
        Ok(())
    }

    /// `spender` moves `amount` of `owner`'s collateral to `to`, spending the allowance.
    fn pull_collateral(
        &mut self,
        owner: Address,
        spender: Address,
        to: Address,
        amount: U256,
    ) -> Result<(), Revert> {
        let allowed = self
            .balances
            .allowance
            .get(&(owner, spender))
            .copied()
            .unwrap_or_default();
        if allowed < amount {
            return revert("ERC20: insufficient allowance");
        }
        if allowed != U256::MAX {
            self.balances
                .allowance
                .insert((owner, spender), allowed - amount);
        }
        self.move_collateral(owner, to, amount)
    }

    fn burn_token(&mut self, who: Address, id: U256, amount: U256) -> Result<(), Revert> {
        let have = self.token_of(who, id);
        let Some(left) = have.checked_sub(amount) else {
            return revert("ERC1155: insufficient balance for transfer");
        };
        self.balances.tokens.insert((who, id), left);
        Ok(())
    }

    pub(crate) fn mint_token(&mut self, who: Address, id: U256, amount: U256) {
        let b = self.balances.tokens.entry((who, id)).or_default();
        *b = b.saturating_add(amount);
    }

    fn position_op(
        &mut self,
        from: Address,
        target: Address,
        selector: [u8; 4],
        r: &Reader<'_>,
    ) -> Result<(), Revert> {
        let collateral = r.address(0)?;
        if collateral != self.contracts.collateral {
            return revert("unexpected collateral token");
        }
        if r.b256(1)? != B256::ZERO {
            return revert("only top-level positions (parentCollectionId 0)");
        }
        let Some(cond) = self.conditions.get(&r.b256(2)?).cloned() else {
            return revert("condition not prepared or found");
        };
        if cond.v2 {
            return revert("a Protocol V2 condition settles through the Router");
        }
        let sets = r.uints(3)?;
        let binary = sets == [U256::from(1u8), U256::from(2u8)];
        // An adapter pulls the outcome tokens it merges or redeems: it needs the approval.
        let direct = target == self.contracts.conditional_tokens;
        let operator_ok = direct || self.balances.operators.contains(&(from, target));
        match Selector::of(selector) {
            Some(Selector::SplitPosition | Selector::MergePositions) if !binary => {
                revert("the simulator splits and merges the partition [1, 2] only")
            }
            Some(Selector::SplitPosition) => {
                let amount = r.uint(4)?;
                self.pull_collateral(from, target, self.contracts.conditional_tokens, amount)?;
                for id in cond.tokens {
                    self.mint_token(from, id, amount);
                }
                Ok(())
            }
            Some(Selector::MergePositions) => {
                if !operator_ok {
                    return revert("ERC1155: caller is not owner nor approved");
                }
                let amount = r.uint(4)?;
                for id in cond.tokens {
                    self.burn_token(from, id, amount)?;
                }
                self.move_collateral(self.contracts.conditional_tokens, from, amount)
            }
            Some(Selector::RedeemPositions) => {
                let Some(payouts) = cond.payouts else {
                    return revert("result for condition not received yet");
                };
                if !operator_ok {
                    return revert("ERC1155: caller is not owner nor approved");
                }
                let den = U256::from(payouts[0] + payouts[1]);
                let mut pay = U256::ZERO;
                for set in sets {
                    let i = match u8::try_from(set) {
                        Ok(1) => 0,
                        Ok(2) => 1,
                        _ => return revert("got invalid index set"),
                    };
                    let id = cond.tokens[i];
                    let held = self.token_of(from, id);
                    self.burn_token(from, id, held)?;
                    pay = pay.saturating_add(held.saturating_mul(U256::from(payouts[i])) / den);
                }
                self.move_collateral(self.contracts.conditional_tokens, from, pay)
            }
            _ => revert("unsupported position call"),
        }
    }

    // ---- the exchange's fills ----

    /// Settles one trade's fills: collateral from buyer to seller at each fill's price, outcome
    /// tokens from seller to buyer, through the exchange's allowances. A fill an account cannot
    /// cover (balance or approval) is counted in `settlement_failures` and moves nothing.
    pub(crate) fn settle_fills(
        &mut self,
        taker: Address,
        taker_side: Side,
        makers: &[(Address, Fill)],
        token: U256,
        neg_risk: bool,
    ) {
        let (exchange, escrow, v2) = self.venue(token, neg_risk);
        for (maker, f) in makers {
            let (buyer, seller) = match taker_side {
                Side::Buy => (taker, *maker),
                Side::Sell => (*maker, taker),
            };
            let size = U256::from(f.size);
            let cost = U256::from(u128::from(f.price) * u128::from(f.size) / 1_000_000);
            let snapshot = self.balances.clone();
            if self
                .settle_one((exchange, escrow, v2), buyer, seller, token, size, cost)
                .is_err()
            {
                self.balances = snapshot;
                self.settlement_failures += 1;
            }
        }
    }

    /// Moves `who`'s cost basis for one settled leg: `size` shares of `token` bought or sold
    /// for `notional` (exact), paying `fee` (the simulator's own side has none).
    pub(crate) fn record_leg(
        &mut self,
        who: Address,
        token: U256,
        side: Side,
        (size, notional, fee): (u64, Notional, u64),
    ) {
        if who == self.house {
            return;
        }
        let b = self.basis.entry((who, token)).or_default();
        let (size, fee) = (Size::from_micros(size), Size::from_micros(fee));
        match side {
            Side::Buy => b.buy(size, notional, fee),
            Side::Sell => b.sell(size, notional, fee),
        }
    }

    /// Takes a trading fee from `who` on `exchange`: a buyer's through its collateral
    /// allowance (the fee is on top of the price), a seller's out of the proceeds it has just
    /// received. The fee receiver is not modelled: the fee is burned. The simulator's own side
    /// pays nothing.
    pub(crate) fn charge_fee(
        &mut self,
        who: Address,
        exchange: Address,
        side: Side,
        fee: u64,
    ) -> Result<(), Revert> {
        if who == self.house || fee == 0 {
            return Ok(());
        }
        let fee = U256::from(fee);
        match side {
            Side::Buy => self.pull_collateral(who, exchange, self.house, fee)?,
            Side::Sell => self.move_collateral(who, self.house, fee)?,
        }
        self.burn_collateral(self.house, fee);
        Ok(())
    }

    /// Settles a fill between two orders on the two tokens of one binary market, both on
    /// `side`: buying mints the full set (each buyer pays its price, the sum escrowed at
    /// ConditionalTokens) and selling merges it (the escrow pays each seller its price).
    /// `legs` are `(address, token)` of the taker and the maker; `f.price` is the maker's.
    /// A failed settlement leaves the balances as they were and is counted.
    pub(crate) fn settle_crossed(
        &mut self,
        side: Side,
        legs: [(Address, U256); 2],
        f: &Fill,
        neg_risk: bool,
    ) {
        let venue = self.venue(legs[0].1, neg_risk);
        let size = U256::from(f.size);
        let maker_cost = U256::from(u128::from(f.price) * u128::from(f.size) / 1_000_000);
        let costs = [size.saturating_sub(maker_cost), maker_cost];
        let snapshot = self.balances.clone();
        if self
            .settle_crossed_legs(venue, side, legs, costs, size)
            .is_err()
        {
            self.balances = snapshot;
            self.settlement_failures += 1;
        }
    }

    fn settle_crossed_legs(
        &mut self,
        (exchange, ctf, v2): (Address, Address, bool),
        side: Side,
        legs: [(Address, U256); 2],
        costs: [U256; 2],
        size: U256,
    ) -> Result<(), Revert> {
        for ((who, token), cost) in legs.into_iter().zip(costs) {
            match side {
                Side::Buy => {
                    if who == self.house {
                        self.mint_collateral(ctf, cost);
                    } else {
                        self.pull_collateral(who, exchange, ctf, cost)?;
                    }
                    self.mint_token(who, token, size);
                }
                Side::Sell => {
                    if who != self.house {
                        if !self.seller_approved(who, exchange, v2) {
                            return revert("ERC1155: exchange not approved");
                        }
                        self.burn_token(who, token, size)?;
                    }
                    self.burn_collateral(ctf, cost);
                    if who != self.house {
                        self.mint_collateral(who, cost);
                    }
                }
            }
        }
        Ok(())
    }

    fn settle_one(
        &mut self,
        (exchange, ctf, v2): (Address, Address, bool),
        buyer: Address,
        seller: Address,
        token: U256,
        size: U256,
        cost: U256,
    ) -> Result<(), Revert> {
        // Collateral: buyer → seller (the house's side is minted or burned).
        if buyer == self.house {
            self.mint_collateral(seller, cost);
        } else {
            self.pull_collateral(buyer, exchange, seller, cost)?;
            if seller == self.house {
                self.burn_collateral(seller, cost);
            }
        }
        // Outcome tokens: seller → buyer. Tokens the house sells are minted with one unit of
        // collateral escrowed at ConditionalTokens (the PositionManager on V2) each, so they
        // redeem like split ones.
        if seller == self.house {
            self.mint_collateral(ctf, size);
        } else {
            if !self.seller_approved(seller, exchange, v2) {
                return revert("ERC1155: exchange not approved");
            }
            self.burn_token(seller, token, size)?;
        }
        if buyer == self.house {
            self.burn_collateral(ctf, size);
        } else {
            self.mint_token(buyer, token, size);
        }
        Ok(())
    }

    fn burn_collateral(&mut self, who: Address, amount: U256) {
        let b = self.balances.collateral.entry(who).or_default();
        *b = b.saturating_sub(amount);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polyclob::onchain::{ctf, erc20, erc1155};

    fn ledger() -> (Ledger, B256, [U256; 2]) {
        let markets = MarketSpec::defaults();
        let m = &markets[0];
        let cond: B256 = m.condition_id().parse().unwrap();
        let ids = [
            m.tokens()[0].token_id().parse().unwrap(),
            m.tokens()[1].token_id().parse().unwrap(),
        ];
        (
            Ledger::new(Chain::Polygon, &markets, Address::repeat_byte(0x5e)),
            cond,
            ids,
        )
    }

    #[test]
    fn split_merge_redeem_conserve_collateral() {
        let (mut l, cond, ids) = ledger();
        let me = Address::repeat_byte(1);
        let c = l.contracts;
        let adapter = c.positions_target(false);
        l.mint_collateral(me, U256::from(100u8));
        let split = ctf::split_position(
            adapter,
            c.collateral,
            B256::ZERO,
            cond,
            &ctf::BINARY_PARTITION,
            U256::from(60u8),
        )
        .unwrap();
        assert_eq!(
            l.apply(me, &split),
            Err(Revert("ERC20: insufficient allowance".into()))
        );
        l.apply(
            me,
            &erc20::approve(c.collateral, adapter, U256::MAX).unwrap(),
        )
        .unwrap();
        l.apply(me, &split).unwrap();
        assert_eq!(l.collateral_of(me), U256::from(40u8));
        assert_eq!(l.token_of(me, ids[0]), U256::from(60u8));
        let merge = ctf::merge_positions(
            adapter,
            c.collateral,
            B256::ZERO,
            cond,
            &ctf::BINARY_PARTITION,
            U256::from(10u8),
        )
        .unwrap();
        assert!(
            l.apply(me, &merge).is_err(),
            "adapter needs the ERC-1155 approval"
        );
        l.apply(
            me,
            &erc1155::set_approval_for_all(c.conditional_tokens, adapter, true).unwrap(),
        )
        .unwrap();
        l.apply(me, &merge).unwrap();
        assert_eq!(l.collateral_of(me), U256::from(50u8));
        let redeem = ctf::redeem_positions(
            adapter,
            c.collateral,
            B256::ZERO,
            cond,
            &ctf::BINARY_PARTITION,
        )
        .unwrap();
        assert_eq!(
            l.apply(me, &redeem),
            Err(Revert("result for condition not received yet".into()))
        );
        assert!(l.resolve(cond, 1));
        l.apply(me, &redeem).unwrap();
        // 50 No tokens pay 1 each; the Yes tokens pay nothing; everything is burned.
        assert_eq!(l.collateral_of(me), U256::from(100u8));
        assert_eq!(l.token_of(me, ids[0]), U256::ZERO);
        assert_eq!(l.token_of(me, ids[1]), U256::ZERO);
    }

    #[test]
    fn neg_risk_redeem_pays_by_the_payouts() {
        let (mut l, cond, ids) = ledger();
        let me = Address::repeat_byte(1);
        let c = l.contracts;
        let adapter = c.neg_risk_adapter.unwrap();
        let target = c.positions_target(false);
        l.mint_collateral(me, U256::from(10u8));
        l.apply(
            me,
            &erc20::approve(c.collateral, target, U256::MAX).unwrap(),
        )
        .unwrap();
        let split = ctf::split_position(
            target,
            c.collateral,
            B256::ZERO,
            cond,
            &ctf::BINARY_PARTITION,
            U256::from(10u8),
        )
        .unwrap();
        l.apply(me, &split).unwrap();
        let redeem = polyclob::onchain::neg_risk::redeem_positions(
            adapter,
            cond,
            &[U256::from(4u8), U256::from(10u8)],
        )
        .unwrap();
        assert_eq!(
            l.apply(me, &redeem),
            Err(Revert("result for condition not received yet".into()))
        );
        assert!(l.resolve(cond, 0));
        assert_eq!(
            l.apply(me, &redeem),
            Err(Revert("NotApprovedForAll".into()))
        );
        l.apply(
            me,
            &erc1155::set_approval_for_all(c.conditional_tokens, adapter, true).unwrap(),
        )
        .unwrap();
        l.apply(me, &redeem).unwrap();
        // 4 Yes pay 4; 10 No pay nothing; 6 Yes stay.
        assert_eq!(l.collateral_of(me), U256::from(4u8));
        assert_eq!(l.token_of(me, ids[0]), U256::from(6u8));
        assert_eq!(l.token_of(me, ids[1]), U256::ZERO);
    }

    /// A neg-risk group of four questions (generated markets 6 … 9): converting No of
    /// questions {0, 2} gives Yes of {1, 3} and one unit of collateral per unit converted.
    #[test]
    fn neg_risk_conversion_moves_positions_as_the_adapter_does() {
        let markets = MarketSpec::generate(10);
        let group: Vec<&MarketSpec> = markets.iter().filter(|m| m.is_neg_risk()).collect();
        assert_eq!(group.len(), 4);
        let market_id: B256 = group[0].neg_risk_market_id.parse().unwrap();
        let conds: Vec<B256> = group
            .iter()
            .map(|m| m.condition_id().parse().unwrap())
            .collect();
        let ids: Vec<[U256; 2]> = group
            .iter()
            .map(|m| m.tokens().clone().map(|t| t.token_id().parse().unwrap()))
            .collect();
        let mut l = Ledger::new(Chain::Polygon, &markets, Address::repeat_byte(0x5e));
        let me = Address::repeat_byte(1);
        let c = l.contracts;
        let adapter = c.neg_risk_adapter.unwrap();
        let target = c.positions_target(true);
        l.mint_collateral(me, U256::from(40u8));
        l.apply(
            me,
            &erc20::approve(c.collateral, target, U256::MAX).unwrap(),
        )
        .unwrap();
        for cond in &conds {
            let split = ctf::split_position(
                target,
                c.collateral,
                B256::ZERO,
                *cond,
                &ctf::BINARY_PARTITION,
                U256::from(10u8),
            )
            .unwrap();
            l.apply(me, &split).unwrap();
        }
        assert_eq!(l.collateral_of(me), U256::ZERO);
        // Raw calldata, not the builder: the builder refuses what the adapter would revert
        // on, and the adapter's own refusals are what this tests.
        let convert = |set: u8, amount: u8| {
            Call::new(
                adapter,
                polyclob::onchain::abi::encode_call(
                    polyclob::onchain::Selector::ConvertPositions.bytes(),
                    &[
                        Value::b256(market_id),
                        Value::uint(U256::from(set)),
                        Value::uint(U256::from(amount)),
                    ],
                ),
            )
        };
        assert_eq!(
            l.apply(me, &convert(0b0101, 4)),
            Err(Revert("NotApprovedForAll".into()))
        );
        l.apply(
            me,
            &erc1155::set_approval_for_all(c.conditional_tokens, adapter, true).unwrap(),
        )
        .unwrap();
        // Questions beyond the group, another market id, more No than held: refused whole.
        assert_eq!(
            l.apply(me, &convert(0b1_0000, 4)),
            Err(Revert("InvalidIndexSet".into()))
        );
        let other = polyclob::onchain::neg_risk::convert_positions(
            adapter,
            conds[0],
            4,
            U256::ONE,
            U256::ONE,
        )
        .unwrap();
        assert_eq!(l.apply(me, &other), Err(Revert("MarketNotPrepared".into())));
        let snapshot = l.balances.clone();
        assert!(l.apply(me, &convert(0b0101, 11)).is_err());
        l.balances = snapshot; // the relayer and the chain undo a reverted call this way
        l.apply(me, &convert(0b0101, 4)).unwrap();
        let held = |l: &Ledger, q: usize| [l.token_of(me, ids[q][0]), l.token_of(me, ids[q][1])];
        let u = |n: u8| U256::from(n);
        assert_eq!(held(&l, 0), [u(10), u(6)]);
        assert_eq!(held(&l, 1), [u(14), u(10)]);
        assert_eq!(held(&l, 2), [u(10), u(6)]);
        assert_eq!(held(&l, 3), [u(14), u(10)]);
        assert_eq!(l.collateral_of(me), u(4));
        // Three questions' No: two units of collateral per unit.
        l.apply(me, &convert(0b1011, 5)).unwrap();
        assert_eq!(l.collateral_of(me), u(14));
        assert_eq!(held(&l, 2), [u(15), u(6)]);
        assert_eq!(held(&l, 0)[1], u(1));
        // A zero amount is a no-op, as on the adapter.
        let before: Vec<[U256; 2]> = (0..4).map(|q| held(&l, q)).collect();
        let mut zero = convert(0b1, 1).data().to_vec();
        zero[68..100].fill(0); // the amount word
        l.apply(me, &Call::new(adapter, zero)).unwrap();
        assert_eq!((0..4).map(|q| held(&l, q)).collect::<Vec<_>>(), before);
        assert_eq!(l.collateral_of(me), u(14));
    }

    #[test]
    fn nested_wallet_calls_are_bounded() {
        let (mut l, _, _) = ledger();
        let me = Address::repeat_byte(1);
        let mut call = erc20::approve(l.contracts.collateral, me, U256::from(1u8)).unwrap();
        for _ in 0..4 {
            call = polyclob::onchain::wallet::proxy_calls(&[call]).unwrap();
        }
        l.apply(me, &call).unwrap();
        for _ in 0..200 {
            call = polyclob::onchain::wallet::proxy_calls(&[call]).unwrap();
        }
        assert_eq!(
            l.apply(me, &call),
            Err(Revert("wallet calls nested too deeply".into()))
        );
    }

    #[test]
    fn fills_need_balances_and_approvals() {
        let (mut l, _, ids) = ledger();
        let house = Address::repeat_byte(0x5e);
        let me = Address::repeat_byte(1);
        let fill = Fill {
            maker_seq: 1,
            price: 400_000,
            size: 10_000_000,
            maker_done: true,
        };
        l.mint_collateral(me, U256::from(5_000_000u64));
        l.settle_fills(me, Side::Buy, &[(house, fill)], ids[0], false);
        assert_eq!(
            l.settlement_failures, 1,
            "no allowance for the exchange yet"
        );
        assert_eq!(l.collateral_of(me), U256::from(5_000_000u64));
        let ex = l.contracts.exchange;
        l.apply(
            me,
            &erc20::approve(l.contracts.collateral, ex, U256::MAX).unwrap(),
        )
        .unwrap();
        l.settle_fills(me, Side::Buy, &[(house, fill)], ids[0], false);
        assert_eq!(l.settlement_failures, 1);
        assert_eq!(l.collateral_of(me), U256::from(1_000_000u64));
        assert_eq!(l.token_of(me, ids[0]), U256::from(10_000_000u64));
        // Selling back needs the ERC-1155 approval.
        l.settle_fills(me, Side::Sell, &[(house, fill)], ids[0], false);
        assert_eq!(l.settlement_failures, 2);
        l.apply(
            me,
            &erc1155::set_approval_for_all(l.contracts.conditional_tokens, ex, true).unwrap(),
        )
        .unwrap();
        l.settle_fills(me, Side::Sell, &[(house, fill)], ids[0], false);
        assert_eq!(l.token_of(me, ids[0]), U256::ZERO);
        assert_eq!(l.collateral_of(me), U256::from(5_000_000u64));
    }

    #[test]
    fn crossed_fills_mint_and_merge_the_full_set() {
        let (mut l, _, ids) = ledger();
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let ex = l.contracts.exchange;
        let ctf = l.contracts.conditional_tokens;
        for who in [a, b] {
            l.mint_collateral(who, U256::from(10_000_000u64));
            l.apply(
                who,
                &erc20::approve(l.contracts.collateral, ex, U256::MAX).unwrap(),
            )
            .unwrap();
        }
        let escrow = l.collateral_of(ctf);
        // B (maker) buys 10 NO at 0.40, A (taker) 10 YES at 0.60: a mint.
        let fill = Fill {
            maker_seq: 1,
            price: 400_000,
            size: 10_000_000,
            maker_done: true,
        };
        l.settle_crossed(Side::Buy, [(a, ids[0]), (b, ids[1])], &fill, false);
        assert_eq!(l.settlement_failures, 0);
        assert_eq!(l.collateral_of(a), U256::from(4_000_000u64));
        assert_eq!(l.collateral_of(b), U256::from(6_000_000u64));
        assert_eq!(l.token_of(a, ids[0]), U256::from(10_000_000u64));
        assert_eq!(l.token_of(b, ids[1]), U256::from(10_000_000u64));
        assert_eq!(l.collateral_of(ctf), escrow + U256::from(10_000_000u64));
        // Merging needs both ERC-1155 approvals; a refused merge changes nothing.
        l.apply(a, &erc1155::set_approval_for_all(ctf, ex, true).unwrap())
            .unwrap();
        l.settle_crossed(Side::Sell, [(a, ids[0]), (b, ids[1])], &fill, false);
        assert_eq!(l.settlement_failures, 1);
        assert_eq!(l.token_of(a, ids[0]), U256::from(10_000_000u64));
        l.apply(b, &erc1155::set_approval_for_all(ctf, ex, true).unwrap())
            .unwrap();
        l.settle_crossed(Side::Sell, [(a, ids[0]), (b, ids[1])], &fill, false);
        assert_eq!(l.settlement_failures, 1);
        assert_eq!(l.collateral_of(a), U256::from(10_000_000u64));
        assert_eq!(l.collateral_of(b), U256::from(10_000_000u64));
        assert_eq!(l.token_of(b, ids[1]), U256::ZERO);
        assert_eq!(l.collateral_of(ctf), escrow);
    }

    /// The fixture's position-ID market is a V2 condition: the Router splits, merges and
    /// redeems it on the PositionManager, ExchangeV3 settles its fills, and CTF calls refuse it.
    #[test]
    fn v2_router_and_exchange_v3() {
        let markets = MarketSpec::defaults();
        let m = markets.iter().find(|m| m.is_position_ids()).unwrap();
        let cond = ConditionId::parse_for(m.condition_id(), Protocol::V2).unwrap();
        let ids = [0, 1].map(|o| PositionId::of(cond, o).unwrap().as_u256());
        assert_eq!(ids[0].to_string(), m.tokens()[0].token_id());
        let mut l = Ledger::new(Chain::Polygon, &markets, Address::repeat_byte(0x5e));
        let v2 = l.v2;
        let (router, pm) = (v2.router.unwrap(), v2.position_manager.unwrap());
        let me = Address::repeat_byte(1);
        l.mint_collateral(me, U256::from(100u8));
        let split = polyclob::onchain::router::split(router, cond, U256::from(60u8)).unwrap();
        assert_eq!(
            l.apply(me, &split),
            Err(Revert("ERC20: insufficient allowance".into()))
        );
        l.apply(
            me,
            &erc20::approve(v2.collateral, router, U256::MAX).unwrap(),
        )
        .unwrap();
        l.apply(me, &split).unwrap();
        assert_eq!(l.token_of(me, ids[0]), U256::from(60u8));
        assert_eq!(l.collateral_of(pm), U256::from(60u8));
        let merge = polyclob::onchain::router::merge(router, cond, U256::from(20u8)).unwrap();
        assert_eq!(
            l.apply(me, &merge),
            Err(Revert("NotOwnerNorApproved".into()))
        );
        l.apply(
            me,
            &erc1155::set_approval_for_all(pm, router, true).unwrap(),
        )
        .unwrap();
        l.apply(me, &merge).unwrap();
        assert_eq!(l.collateral_of(me), U256::from(60u8));
        let redeem = polyclob::onchain::router::redeem(router, cond, 1, U256::from(40u8)).unwrap();
        assert_eq!(
            l.apply(me, &redeem),
            Err(Revert("result for condition not received yet".into()))
        );
        assert!(l.resolve(B256::from(*cond.as_bytes32()), 1));
        assert_eq!(l.get_payout(ids[1], U256::from(7u8)), Ok(U256::from(7u8)));
        assert_eq!(l.get_payout(ids[0], U256::from(7u8)), Ok(U256::ZERO));
        l.apply(me, &redeem).unwrap();
        assert_eq!(l.collateral_of(me), U256::from(100u8));
        assert_eq!(l.token_of(me, ids[1]), U256::ZERO);
        assert_eq!(
            l.token_of(me, ids[0]),
            U256::from(40u8),
            "YES is left, unredeemed"
        );
        // ConditionalTokens' calls refuse a V2 condition.
        let c = l.contracts;
        let ctf_split = ctf::split_position(
            c.positions_target(false),
            c.collateral,
            B256::ZERO,
            B256::from(*cond.as_bytes32()),
            &ctf::BINARY_PARTITION,
            U256::from(1u8),
        )
        .unwrap();
        assert!(l.apply(me, &ctf_split).is_err());
        // A fill on a V2 token settles on ExchangeV3 with PositionManager approvals.
        let buyer = Address::repeat_byte(2);
        l.mint_collateral(buyer, U256::from(10_000_000u64));
        let fill = Fill {
            maker_seq: 1,
            price: 500_000,
            size: 2_000_000,
            maker_done: true,
        };
        l.settle_fills(buyer, Side::Buy, &[(l.house, fill)], ids[0], false);
        assert_eq!(l.settlement_failures, 1, "no allowance to ExchangeV3 yet");
        l.apply(
            buyer,
            &erc20::approve(v2.collateral, v2.exchange, U256::MAX).unwrap(),
        )
        .unwrap();
        l.settle_fills(buyer, Side::Buy, &[(l.house, fill)], ids[0], false);
        assert_eq!(l.settlement_failures, 1);
        assert_eq!(l.token_of(buyer, ids[0]), U256::from(2_000_000u64));
    }
}
