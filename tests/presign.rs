//! The precomputed-nonce pool (opt-in): every pooled signature is a valid low-s signature by
//! the signer over the right EIP-712 digest, no nonce is ever used twice, and an empty pool
//! falls back to RFC 6979 visibly.
#![cfg(feature = "libsecp256k1")]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use alloy_primitives::{Address, U256, keccak256};
use polyclob::fixed::{Price, Size};
use polyclob::order::{LimitOrder, MarketContext, MarketOrder, OrderSigner, TokenId};
use polyclob::sign::eip712::{
    order_hash, order_struct_hash, recover_address, signing_hash, typed_data_sign_struct_hash,
};
use polyclob::sign::wallet::Wallet;
use polyclob::sign::{Signature, Signer};
use polyclob::types::{Chain, ExchangeVersion, OrderType, Side, TickSize};

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const HALF_N: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn thousands_of_pooled_orders_recover_to_the_signer() {
    let signer = Signer::from_hex(KEY).unwrap();
    let pool = signer.enable_nonce_pool(4096);
    assert_eq!(pool.refill(), 4096);
    let deposit: Address = "0x1111111111111111111111111111111111111111"
        .parse()
        .unwrap();
    let eoa = OrderSigner::new(signer.clone(), Chain::Polygon, Wallet::Eoa)
        .unwrap()
        .presigned(true);
    let dw = OrderSigner::new(
        signer.clone(),
        Chain::Polygon,
        Wallet::DepositWallet(deposit),
    )
    .unwrap()
    .presigned(true);
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut seen_r = HashSet::new();
    let n = 3000;
    for i in 0..n {
        let version = [
            ExchangeVersion::V1,
            ExchangeVersion::V2,
            ExchangeVersion::V3,
        ][i % 3];
        let tick = if version == ExchangeVersion::V1 {
            TickSize::Hundredth
        } else {
            TickSize::ALL[(rng.next() % 6) as usize]
        };
        let market = MarketContext::new(
            Chain::Polygon,
            version,
            TokenId::from_u256(U256::from_be_bytes(keccak256(rng.next().to_be_bytes()).0)),
            tick,
            i % 2 == 0,
        )
        .unwrap();
        let steps = 1_000_000 / tick.as_micros() - 1;
        let price = Price::new((1 + rng.next() as u32 % steps) * tick.as_micros()).unwrap();
        let side = if rng.next() % 2 == 0 {
            Side::Buy
        } else {
            Side::Sell
        };
        let use_1271 = version != ExchangeVersion::V1 && i % 5 == 0;
        let orders = if use_1271 { &dw } else { &eoa };
        let signed = if i % 4 == 0 {
            let req = MarketOrder::new(
                side,
                Size::from_micros(1_000_000 + rng.next() % 1_000_000_000),
                price,
            )
            .order_type(OrderType::Fak);
            orders.market_order(&market, &req).unwrap()
        } else {
            let req = LimitOrder::new(
                side,
                price,
                Size::from_micros(10_000 + rng.next() % 1_000_000_000),
            );
            orders.limit_order(&market, &req).unwrap()
        };
        let digest = order_hash(market.domain_separator(), signed.order());
        assert_eq!(*signed.hash(), digest);
        let sig = Signature::from_bytes(signed.signature().ecdsa_part()).unwrap();
        assert!(sig.s() <= HALF_N, "high s");
        let signed_digest = if use_1271 {
            let sh = order_struct_hash(signed.order());
            signing_hash(
                market.domain_separator(),
                &typed_data_sign_struct_hash(&sh, 137, deposit),
            )
        } else {
            digest
        };
        assert_eq!(
            recover_address(&signed_digest.0, &sig).unwrap(),
            signer.address(),
            "order {i}"
        );
        // Pooled, so not the RFC 6979 signature.
        assert_ne!(sig, signer.sign_prehash(&signed_digest.0).unwrap());
        assert!(seen_r.insert(sig.r()), "r reused at order {i}");
    }
    assert_eq!(pool.pooled(), n as u64);
    assert_eq!(pool.fallbacks(), 0);
}

#[test]
fn no_r_is_ever_shared_across_clones_and_threads() {
    let signer = Signer::from_hex(KEY).unwrap();
    let pool = signer.enable_nonce_pool(256);
    let _refill = pool.spawn_refill_thread();
    let all_r = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let signer = signer.clone();
            let all_r = Arc::clone(&all_r);
            std::thread::spawn(move || {
                let mut local = Vec::with_capacity(1500);
                for i in 0..1500u64 {
                    let digest = keccak256((t << 32 | i).to_be_bytes()).0;
                    let sig = signer.sign_prehash_presigned(&digest).unwrap();
                    assert_eq!(recover_address(&digest, &sig).unwrap(), signer.address());
                    local.push(sig.r());
                }
                all_r.lock().unwrap().extend(local);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = all_r.lock().unwrap();
    let distinct: HashSet<_> = all.iter().collect();
    assert_eq!(all.len(), 6000);
    assert_eq!(distinct.len(), 6000, "a nonce was used twice");
    assert_eq!(pool.pooled() + pool.fallbacks(), 6000);
    assert!(pool.pooled() > 0);
}

#[test]
fn an_exhausted_pool_falls_back_to_rfc6979_and_counts_it() {
    let signer = Signer::from_hex(KEY).unwrap();
    // Without a pool: plain RFC 6979.
    let digest = [0x11u8; 32];
    assert_eq!(
        signer.sign_prehash_presigned(&digest).unwrap(),
        signer.sign_prehash(&digest).unwrap()
    );
    let pool = signer.enable_nonce_pool(4);
    assert!(
        Arc::ptr_eq(&pool, &signer.clone().enable_nonce_pool(99)),
        "one pool per key"
    );
    assert_eq!(pool.refill(), 4);
    assert_eq!(pool.refill(), 0, "already full");
    let mut pooled = Vec::new();
    for i in 0..10u8 {
        let digest = [i; 32];
        let sig = signer.clone().sign_prehash_presigned(&digest).unwrap();
        assert_eq!(recover_address(&digest, &sig).unwrap(), signer.address());
        if i < 4 {
            assert_ne!(sig, signer.sign_prehash(&digest).unwrap());
            pooled.push(sig);
        } else {
            assert_eq!(
                sig,
                signer.sign_prehash(&digest).unwrap(),
                "fallback is RFC 6979"
            );
        }
    }
    assert_eq!((pool.pooled(), pool.fallbacks(), pool.len()), (4, 6, 0));
    assert!(pool.is_empty());
    assert!(format!("{pool:?}").contains("fallbacks: 6"));
}
