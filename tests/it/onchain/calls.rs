//! Settlement operations as values: every `Settler` write is also a call returned without
//! sending (for a Safe multi-send, a relayer batch or the user's own sender), and the builders
//! refuse arguments the contracts would revert on.
#![cfg(feature = "onchain")]

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use polyclob::fixed::Size;
use polyclob::onchain::{CallError, Settler, ctf, erc20, erc1155, neg_risk};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::ConditionId;
use polyclob_sim::Simulator;

const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const CONDITION: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
const YES: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const NO: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";

#[tokio::test]
async fn the_calls_sent_by_the_users_own_sender_do_what_the_settler_would() {
    let sim = Simulator::builder()
        .seed(3)
        .onchain(true)
        .start()
        .await
        .unwrap();
    let s = Settler::builder(sim.rpc_url(), Signer::from_hex(KEY0).unwrap())
        .wallet(Wallet::Eoa)
        .poll_interval(Duration::from_millis(5))
        .receipt_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let me = s.holder();
    assert!(sim.fund_native(me, U256::from(10u64).pow(U256::from(19u8))));
    assert!(sim.fund_collateral(me, U256::from(100_000_000u64)));

    // The missing approvals as values; sent one by one by "our own sender" (here `send`).
    let approvals = s.approval_calls().await.unwrap();
    let missing = s
        .approvals()
        .await
        .unwrap()
        .iter()
        .filter(|a| !a.granted)
        .count();
    assert_eq!(approvals.len(), missing);
    assert!(!approvals.is_empty());
    for call in approvals {
        s.send(call).await.unwrap();
    }
    assert!(s.approval_calls().await.unwrap().is_empty());

    // Split and merge as values: no I/O to build, the same effect when sent.
    let cond: B256 = CONDITION.parse().unwrap();
    let split = s
        .split_call(
            ConditionId::ctf(cond.0),
            Size::from_micros(30_000_000),
            false,
        )
        .unwrap();
    assert_eq!(split.to(), s.contracts().positions_target(false));
    s.send(split).await.unwrap();
    let ids = [YES.parse().unwrap(), NO.parse().unwrap()];
    assert_eq!(
        s.outcome_balances(me, &ids).await.unwrap(),
        vec![U256::from(30_000_000u64); 2]
    );
    s.send(
        s.merge_call(
            ConditionId::ctf(cond.0),
            Size::from_micros(10_000_000),
            false,
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(
        s.outcome_balances(me, &ids).await.unwrap(),
        vec![U256::from(20_000_000u64); 2]
    );
    // A redeem call before resolution builds (it is a value) and reverts when sent.
    let redeem = s
        .redeem_calls(ConditionId::ctf(cond.0), false)
        .await
        .unwrap();
    assert_eq!(redeem.len(), 1);
    assert!(s.send(redeem[0].clone()).await.unwrap_err().is_revert());

    // Zero amounts are refused before anything is sent.
    let e = s
        .split_call(ConditionId::ctf(cond.0), Size::ZERO, false)
        .unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
    assert!(e.to_string().contains("amount is zero"), "{e}");
    let e = s
        .convert_neg_risk_call(cond, 2, U256::from(1u8), Size::ZERO)
        .unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
}

#[test]
fn builders_refuse_what_the_contracts_would_revert_on() {
    let a = Address::repeat_byte(0xad);
    let c = Address::repeat_byte(0xc0);
    let cond = B256::repeat_byte(7);
    let u = |v: u64| U256::from(v);
    let split = |target, collateral, sets: &[U256], amount| {
        ctf::split_position(target, collateral, B256::ZERO, cond, sets, amount)
    };
    assert!(split(a, c, &ctf::BINARY_PARTITION, u(1)).is_ok());
    assert!(split(a, c, &[u(1), u(2), u(4)], u(1)).is_ok());
    assert_eq!(
        split(a, c, &[], u(1)).unwrap_err(),
        CallError::EmptyPartition
    );
    assert_eq!(
        split(a, c, &[u(1), u(3)], u(1)).unwrap_err(),
        CallError::OverlappingPartition {
            first: u(1),
            second: u(3)
        }
    );
    assert_eq!(
        split(a, c, &[u(0), u(1)], u(1)).unwrap_err(),
        CallError::ZeroIndexSet
    );
    assert_eq!(
        split(a, c, &ctf::BINARY_PARTITION, U256::ZERO).unwrap_err(),
        CallError::ZeroAmount { what: "the amount" }
    );
    assert!(matches!(
        split(Address::ZERO, c, &ctf::BINARY_PARTITION, u(1)),
        Err(CallError::ZeroAddress { .. })
    ));
    assert!(matches!(
        ctf::merge_positions(
            a,
            Address::ZERO,
            B256::ZERO,
            cond,
            &ctf::BINARY_PARTITION,
            u(1)
        ),
        Err(CallError::ZeroAddress { .. })
    ));
    assert_eq!(
        ctf::redeem_positions(a, c, B256::ZERO, cond, &[]).unwrap_err(),
        CallError::EmptyPartition
    );
    assert_eq!(
        neg_risk::convert_positions(a, cond, 2, U256::ZERO, u(1)).unwrap_err(),
        CallError::ZeroIndexSet
    );
    assert!(neg_risk::convert_positions(a, cond, 3, u(0b101), U256::ZERO).is_err());
    assert!(neg_risk::redeem_positions(a, cond, &[U256::ZERO, U256::ZERO]).is_err());
    assert!(neg_risk::redeem_positions(a, cond, &[U256::ZERO, u(1)]).is_ok());
    assert!(erc20::approve(c, Address::ZERO, U256::MAX).is_err());
    assert!(
        erc20::approve(c, a, U256::ZERO).is_ok(),
        "a zero approval revokes"
    );
    assert!(erc20::transfer(c, a, U256::ZERO).is_err());
    assert!(erc1155::set_approval_for_all(Address::ZERO, a, true).is_err());
}
