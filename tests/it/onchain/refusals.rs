//! Issue 47, item 4: every settlement and transaction builder refuses what the contract would
//! revert on or the official clients refuse, with a typed error naming the argument, on the
//! CTF and the V2 paths alike: one test per category, then property tests over random inputs
//! against a naive oracle of the contracts' rules (ConditionalTokens.sol's `require`s,
//! NegRiskAdapter.sol's reverts, the Router's binary outcomes, EIP-1559's fee rule).
#![cfg(feature = "onchain")]

use alloy_primitives::{Address, B256, U256};
use polyclob::fixed::Size;
use polyclob::onchain::{Call, CallError, Eip1559Tx, Settler, abi, ctf, neg_risk, router, wallet};
use polyclob::sign::Signer;
use polyclob::types::{ConditionId, Protocol};
use proptest::prelude::*;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

fn u(v: u64) -> U256 {
    U256::from(v)
}

/// A V2 condition whose module byte is `module`.
fn v2(module: u8) -> ConditionId {
    let mut b = [0x5a; 31];
    b[0] = module;
    ConditionId::v2(b)
}

/// A settler whose RPC is unreachable: the `*_call` builders do no I/O, and a refusal before
/// I/O is an invalid request, never a transport error.
fn offline() -> Settler {
    Settler::builder("http://127.0.0.1:9/rpc", Signer::from_hex(KEY).unwrap())
        .build()
        .unwrap()
}

const A: Address = Address::repeat_byte(0xad);
const C: Address = Address::repeat_byte(0xc0);

#[test]
fn ctf_split_and_merge_refuse_singleton_partitions() {
    let cond = B256::repeat_byte(7);
    for sets in [[u(1)], [u(3)], [u(2)]] {
        let split = ctf::split_position(A, C, B256::ZERO, cond, &sets, u(1));
        assert_eq!(
            split.unwrap_err(),
            CallError::SingletonPartition,
            "{sets:?}"
        );
        let merge = ctf::merge_positions(A, C, B256::ZERO, cond, &sets, u(1));
        assert_eq!(
            merge.unwrap_err(),
            CallError::SingletonPartition,
            "{sets:?}"
        );
    }
    // Redeeming one index set (the winning one) is what ConditionalTokens allows.
    assert!(ctf::redeem_positions(A, C, B256::ZERO, cond, &[u(1)]).is_ok());
    assert!(ctf::split_position(A, C, B256::ZERO, cond, &ctf::BINARY_PARTITION, u(1)).is_ok());
    assert!(
        CallError::SingletonPartition
            .to_string()
            .contains("at least two")
    );
}

#[test]
fn ctf_calls_refuse_the_zero_condition() {
    let z = B256::ZERO;
    let p = &ctf::BINARY_PARTITION;
    let want = CallError::ZeroId {
        what: "the condition id",
    };
    assert_eq!(ctf::split_position(A, C, z, z, p, u(1)).unwrap_err(), want);
    assert_eq!(ctf::merge_positions(A, C, z, z, p, u(1)).unwrap_err(), want);
    assert_eq!(ctf::redeem_positions(A, C, z, z, p).unwrap_err(), want);
    assert_eq!(
        neg_risk::redeem_positions(A, z, &[u(1), u(0)]).unwrap_err(),
        want
    );
    let e = offline()
        .split_call(ConditionId::ctf(z.0), Size::from_micros(1), false)
        .unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
    assert!(e.to_string().contains("condition id is zero"), "{e}");
}

#[test]
fn neg_risk_redemptions_take_exactly_two_amounts() {
    let cond = B256::repeat_byte(7);
    for amounts in [vec![], vec![u(1)], vec![u(1), u(2), u(3)]] {
        assert_eq!(
            neg_risk::redeem_positions(A, cond, &amounts).unwrap_err(),
            CallError::Length {
                what: "the amounts ([yes, no])",
                expected: 2,
                got: amounts.len()
            }
        );
    }
    assert!(neg_risk::redeem_positions(A, cond, &[u(0), u(1)]).is_ok());
}

#[test]
fn neg_risk_conversions_stay_within_the_market() {
    let m = B256::repeat_byte(1);
    assert_eq!(
        neg_risk::convert_positions(A, m, 3, u(0b1000), u(1)).unwrap_err(),
        CallError::IndexSetBeyondQuestions {
            index_set: u(0b1000),
            questions: 3
        }
    );
    for questions in [0, 1] {
        assert_eq!(
            neg_risk::convert_positions(A, m, questions, u(1), u(1)).unwrap_err(),
            CallError::TooFewQuestions { questions }
        );
    }
    assert!(neg_risk::convert_positions(A, m, 3, u(0b111), u(1)).is_ok());
    assert!(neg_risk::convert_positions(A, m, 255, U256::MAX >> 1, u(1)).is_ok());
    assert!(neg_risk::convert_positions(A, m, 255, U256::MAX, u(1)).is_err());
    assert_eq!(
        neg_risk::convert_positions(A, B256::ZERO, 3, u(1), u(1)).unwrap_err(),
        CallError::ZeroId {
            what: "the neg-risk market id"
        }
    );
    let e = offline()
        .convert_neg_risk_call(m, 2, u(0b100), Size::from_micros(1))
        .unwrap_err();
    assert!(
        e.is_invalid_request() && e.to_string().contains("beyond"),
        "{e}"
    );
}

/// The V2 path refuses what the CTF path refuses: a zero amount, a zero address, an outcome
/// other than 0/1, a condition of no V2 module; a CTF condition says why it has no Router call.
#[test]
fn the_v2_path_refuses_what_the_ctf_path_refuses() {
    let r = Address::repeat_byte(0x12);
    let good = v2(1);
    assert!(router::split(r, good, u(1)).is_ok());
    assert!(router::merge(r, good, u(1)).is_ok());
    assert!(router::redeem(r, good, 1, u(1)).is_ok());
    for (name, e) in [
        ("split 0", router::split(r, good, U256::ZERO)),
        ("merge 0", router::merge(r, good, U256::ZERO)),
        ("redeem 0", router::redeem(r, good, 0, U256::ZERO)),
    ] {
        assert_eq!(
            e.unwrap_err(),
            CallError::ZeroAmount { what: "the amount" },
            "{name}"
        );
    }
    let zero_router = CallError::ZeroAddress { what: "the Router" };
    assert_eq!(
        router::split(Address::ZERO, good, u(1)).unwrap_err(),
        zero_router
    );
    assert_eq!(
        router::merge(Address::ZERO, good, u(1)).unwrap_err(),
        zero_router
    );
    assert_eq!(
        router::redeem(Address::ZERO, good, 0, u(1)).unwrap_err(),
        zero_router
    );
    for outcome in [2, 3, 255] {
        assert_eq!(
            router::redeem(r, good, outcome, u(1)).unwrap_err(),
            CallError::OutcomeIndex { outcome }
        );
    }
    for module in [0u8, 5, 0x7f, 0xff] {
        let c = v2(module);
        let want = CallError::UnknownModule { module };
        assert_eq!(router::split(r, c, u(1)).unwrap_err(), want);
        assert_eq!(router::merge(r, c, u(1)).unwrap_err(), want);
        assert_eq!(router::redeem(r, c, 0, u(1)).unwrap_err(), want);
    }
    let ctf = ConditionId::ctf([7; 32]);
    let why = CallError::WrongProtocol {
        expected: Protocol::V2,
    };
    assert_eq!(router::split(r, ctf, u(1)).unwrap_err(), why);
    assert!(why.to_string().contains("CTF"), "{why}");

    // The Settler, CTF and V2 alike, before any I/O.
    let s = offline();
    let ctf64 = ConditionId::ctf([7; 32]);
    for cond in [ctf64, good] {
        for e in [
            s.split_call(cond, Size::ZERO, false).unwrap_err(),
            s.merge_call(cond, Size::ZERO, true).unwrap_err(),
        ] {
            assert!(e.is_invalid_request(), "{cond:?}: {e}");
            assert!(e.to_string().contains("amount is zero"), "{e}");
        }
    }
    for module in [0u8, 0xff] {
        let e = s
            .split_call(v2(module), Size::from_micros(1), false)
            .unwrap_err();
        assert!(
            e.is_invalid_request() && e.to_string().contains("module"),
            "{e}"
        );
        let e = s.redeem_outcome_call(v2(module), 0, u(1)).unwrap_err();
        assert!(e.is_invalid_request(), "{e}");
    }
    for (outcome, amount) in [(2u8, u(1)), (0, U256::ZERO)] {
        let e = s.redeem_outcome_call(good, outcome, amount).unwrap_err();
        assert!(e.is_invalid_request(), "{e}");
    }
    let e = s.redeem_outcome_call(ctf64, 0, u(1)).unwrap_err();
    assert!(
        e.is_invalid_request() && e.to_string().contains("CTF"),
        "{e}"
    );
}

/// `redeem_calls` of a V2 condition of no known module is refused before it reads balances.
#[tokio::test]
async fn v2_redeem_calls_refuse_before_any_io() {
    let e = offline().redeem_calls(v2(0xff), false).await.unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
}

#[test]
fn transactions_refuse_chain_zero_and_a_tip_above_the_max_fee() {
    let signer = Signer::from_hex(KEY).unwrap();
    let call = Call::new(Address::repeat_byte(1), vec![1]);
    let tx = |chain, max, tip| {
        Eip1559Tx::new(chain, 0, &call)
            .gas_limit(21_000)
            .fees(max, tip)
    };
    assert!(
        tx(137, 100, 100).sign(&signer).is_ok(),
        "tip = max fee is fine"
    );
    let e = tx(0, 100, 1).sign(&signer).unwrap_err();
    assert!(
        e.is_invalid_request() && e.to_string().contains("chain id is zero"),
        "{e}"
    );
    let e = tx(137, 100, 101).sign(&signer).unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
    assert!(
        e.to_string()
            .contains("tip of 101 wei is above the max fee of 100"),
        "{e}"
    );

    let safe = Address::repeat_byte(2);
    assert!(wallet::sign_safe_call(&signer, 137, safe, &call, U256::ZERO).is_ok());
    let e = wallet::sign_safe_call(&signer, 0, safe, &call, U256::ZERO).unwrap_err();
    assert!(
        e.is_invalid_request() && e.to_string().contains("chain id"),
        "{e}"
    );
    let e = wallet::sign_safe_call(&signer, 137, Address::ZERO, &call, U256::ZERO).unwrap_err();
    assert!(
        e.is_invalid_request() && e.to_string().contains("Safe"),
        "{e}"
    );

    assert_eq!(wallet::proxy_calls(&[]).unwrap_err(), CallError::EmptyBatch);
    assert!(wallet::proxy_calls(std::slice::from_ref(&call)).is_ok());
}

// ---- property tests: builder accepts exactly what the oracle says the contract takes ----

fn addr() -> impl Strategy<Value = Address> {
    prop_oneof![1 => Just(Address::ZERO), 4 => any::<[u8; 20]>().prop_map(Address::from)]
}

fn small() -> impl Strategy<Value = U256> {
    prop_oneof![2 => Just(U256::ZERO), 5 => (1u64..16).prop_map(U256::from), 1 => Just(U256::MAX)]
}

fn word() -> impl Strategy<Value = B256> {
    prop_oneof![1 => Just(B256::ZERO), 4 => any::<[u8; 32]>().prop_map(B256::from)]
}

/// ConditionalTokens' `splitPosition`/`mergePositions` argument rules, plus the builder's
/// own zero checks, written out one by one.
fn split_oracle(target: Address, coll: Address, cond: B256, sets: &[U256], amount: U256) -> bool {
    if target == Address::ZERO || coll == Address::ZERO || cond == B256::ZERO {
        return false;
    }
    if amount == U256::ZERO || sets.len() < 2 {
        return false;
    }
    let mut seen = U256::ZERO;
    for s in sets {
        if *s == U256::ZERO || (seen & *s) != U256::ZERO {
            return false;
        }
        seen |= *s;
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn ctf_split_and_merge_match_the_contract(
        target in addr(), coll in addr(), cond in word(),
        sets in prop::collection::vec(small(), 0..5), amount in small(),
    ) {
        let want = split_oracle(target, coll, cond, &sets, amount);
        let split = ctf::split_position(target, coll, B256::ZERO, cond, &sets, amount);
        let merge = ctf::merge_positions(target, coll, B256::ZERO, cond, &sets, amount);
        prop_assert_eq!(split.is_ok(), want, "{:?}", split);
        prop_assert_eq!(merge.is_ok(), want);
        if let Ok(call) = split {
            // What was accepted is encoded as given.
            let (_, r) = abi::split_selector(call.data()).unwrap();
            prop_assert_eq!(r.address(0).unwrap(), coll);
            prop_assert_eq!(r.b256(2).unwrap(), cond);
            prop_assert_eq!(r.uints(3).unwrap(), sets);
            prop_assert_eq!(r.uint(4).unwrap(), amount);
        }
    }

    #[test]
    fn router_calls_match_the_contract(
        router_addr in addr(), module in prop_oneof![Just(0u8), 1u8..=4, Just(5u8), Just(0xffu8)],
        is_v2 in any::<bool>(), rest in any::<[u8; 30]>(), outcome in 0u8..4, amount in small(),
    ) {
        let cond = if is_v2 {
            let mut b = [0u8; 31];
            b[0] = module;
            b[1..].copy_from_slice(&rest);
            ConditionId::v2(b)
        } else {
            let mut b = [0u8; 32];
            b[0] = module;
            b[1..31].copy_from_slice(&rest);
            b[31] = 1;
            ConditionId::ctf(b)
        };
        let common = router_addr != Address::ZERO && is_v2 && (1..=4).contains(&module)
            && amount != U256::ZERO;
        prop_assert_eq!(router::split(router_addr, cond, amount).is_ok(), common);
        prop_assert_eq!(router::merge(router_addr, cond, amount).is_ok(), common);
        let redeem = router::redeem(router_addr, cond, outcome, amount);
        prop_assert_eq!(redeem.is_ok(), common && outcome <= 1);
        if let Ok(call) = redeem {
            let (_, r) = abi::split_selector(call.data()).unwrap();
            prop_assert_eq!(&r.b256(0).unwrap().0, cond.as_bytes32());
            prop_assert_eq!(r.small(1).unwrap(), u64::from(outcome));
            prop_assert_eq!(r.uint(2).unwrap(), amount);
        }
    }

    #[test]
    fn neg_risk_calls_match_the_adapter(
        adapter in addr(), market in word(), questions in 0u8..12,
        index_set in prop_oneof![Just(U256::ZERO), (1u64..1 << 14).prop_map(U256::from)],
        amount in small(), amounts in prop::collection::vec(small(), 0..4),
    ) {
        // NegRiskAdapter.convertPositions: questionCount <= 1 → NoConvertiblePositions;
        // indexSet == 0 or (indexSet >> questionCount) > 0 → InvalidIndexSet.
        let fits = (index_set >> usize::from(questions)) == U256::ZERO;
        let want = adapter != Address::ZERO && market != B256::ZERO && questions >= 2
            && index_set != U256::ZERO && fits && amount != U256::ZERO;
        let got = neg_risk::convert_positions(adapter, market, questions, index_set, amount);
        prop_assert_eq!(got.is_ok(), want, "{:?}", got);
        // redeemPositions moves [yes, no] in one batch transfer: two amounts, not both zero.
        let want = adapter != Address::ZERO && market != B256::ZERO && amounts.len() == 2
            && amounts.iter().any(|a| *a != U256::ZERO);
        prop_assert_eq!(neg_risk::redeem_positions(adapter, market, &amounts).is_ok(), want);
    }

    #[test]
    fn transactions_match_the_fee_rule(chain in 0u64..3, max in 0u128..50, tip in 0u128..50) {
        let signer = Signer::from_hex(KEY).unwrap();
        let call = Call::new(Address::repeat_byte(1), vec![]);
        let signed = Eip1559Tx::new(chain, 0, &call).gas_limit(21_000).fees(max, tip).sign(&signer);
        prop_assert_eq!(signed.is_ok(), chain != 0 && tip <= max);
    }
}
