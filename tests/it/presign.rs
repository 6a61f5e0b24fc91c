//! Precomputed-nonce signing (feature `presign`): every pooled signature is valid for the
//! signer over the right EIP-712 digest, no two signatures ever share a nonce, and an empty
//! pool falls back to RFC 6979 visibly.
#![cfg(feature = "presign")]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256, keccak256};
use polyclob::order::{Order, TokenId};
use polyclob::sign::eip712::{exchange_domain, order_hash, recover_address};
use polyclob::sign::presign::{NoRuntime, NoncePool, PoolConfig, Refill};
use polyclob::sign::{Signature, Signer};
use polyclob::types::{Chain, ExchangeVersion, Side};

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/// A small deterministic generator for order fields (the nonces themselves come from the OS).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn b256(&mut self) -> B256 {
        let mut out = [0u8; 32];
        for chunk in out.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_be_bytes());
        }
        B256::from(out)
    }
}

fn random_order(rng: &mut Rng, version: ExchangeVersion, signer: Address) -> Order {
    let mut order = Order::zeroed(version);
    order.salt = rng.next() & ((1 << 53) - 1);
    order.maker = signer;
    order.signer = signer;
    order.token_id = TokenId::from_u256(U256::from_be_bytes(rng.b256().0));
    order.maker_amount = rng.next() % 10_000_000_000;
    order.taker_amount = rng.next() % 10_000_000_000;
    order.side = if rng.next() % 2 == 0 {
        Side::Buy
    } else {
        Side::Sell
    };
    order.timestamp_ms = 1_767_225_600_000 + rng.next() % 1_000_000;
    order.expiration = rng.next() % 2_000_000_000;
    if rng.next() % 3 == 0 {
        order.metadata = rng.b256();
        order.builder = rng.b256();
    }
    order
}

fn r_of(sig: &Signature) -> [u8; 32] {
    let mut r = [0u8; 32];
    r.copy_from_slice(&sig.as_bytes()[..32]);
    r
}

#[test]
fn pooled_signatures_recover_on_every_exchange_and_version() {
    let pool = NoncePool::new(PoolConfig::new().depth(512).refill(Refill::Manual));
    let signer = Signer::from_hex(KEY)
        .unwrap()
        .with_nonce_pool(pool.clone())
        .unwrap();
    let deterministic = Signer::from_hex(KEY).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut count = 0u64;
    let mut seen_r = HashSet::new();
    for chain in [Chain::Polygon, Chain::Amoy] {
        for version in [
            ExchangeVersion::V1,
            ExchangeVersion::V2,
            ExchangeVersion::V3,
        ] {
            for neg_risk in [false, true] {
                let domain = exchange_domain(chain, version, neg_risk);
                for _ in 0..250 {
                    if pool.stats().available == 0 {
                        pool.refill();
                    }
                    let order = random_order(&mut rng, version, signer.address());
                    let digest = order_hash(&domain, &order).0;
                    let sig = signer.sign_prehash(&digest).unwrap();
                    assert_eq!(recover_address(&digest, &sig).unwrap(), signer.address());
                    // Valid but not the RFC 6979 signature: it really came from the pool.
                    assert_ne!(sig, deterministic.sign_prehash(&digest).unwrap());
                    assert!(seen_r.insert(r_of(&sig)), "nonce reused");
                    count += 1;
                }
            }
        }
    }
    let stats = pool.stats();
    assert_eq!(stats.taken, count);
    assert_eq!(stats.fallbacks, 0);
}

#[test]
fn no_two_signatures_share_r_across_threads_and_clones() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 1_500;
    let pool = NoncePool::new(PoolConfig::new().depth(256).low_water(128));
    let signer = Signer::from_hex(KEY)
        .unwrap()
        .with_nonce_pool(pool.clone())
        .unwrap();
    let all_r = Arc::new(Mutex::new(Vec::with_capacity(THREADS * PER_THREAD)));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let signer = signer.clone();
            let all_r = Arc::clone(&all_r);
            std::thread::spawn(move || {
                let mut local = Vec::with_capacity(PER_THREAD);
                for i in 0..PER_THREAD {
                    let digest = keccak256(((t * PER_THREAD + i) as u64).to_be_bytes()).0;
                    let sig = signer.sign_prehash(&digest).unwrap();
                    assert_eq!(recover_address(&digest, &sig).unwrap(), signer.address());
                    local.push(r_of(&sig));
                }
                all_r.lock().unwrap().extend(local);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let all_r = all_r.lock().unwrap();
    let distinct: HashSet<_> = all_r.iter().collect();
    assert_eq!(all_r.len(), THREADS * PER_THREAD);
    assert_eq!(distinct.len(), all_r.len(), "two signatures shared a nonce");
    // Some signatures may have fallen back (the refill thread is slower than the takers), but
    // every one is accounted for.
    let stats = pool.stats();
    assert_eq!(stats.taken + stats.fallbacks, (THREADS * PER_THREAD) as u64);
    assert!(stats.taken > 0, "the pool was never used");
}

#[test]
fn exhausted_pool_falls_back_to_rfc6979_and_counts() {
    let pool = NoncePool::new(PoolConfig::new().depth(3).refill(Refill::Manual));
    let signer = Signer::from_hex(KEY)
        .unwrap()
        .with_nonce_pool(pool.clone())
        .unwrap();
    let deterministic = Signer::from_hex(KEY).unwrap();
    assert_eq!(pool.refill(), 3);
    let digest = [0x42u8; 32];
    for _ in 0..3 {
        let sig = signer.sign_prehash(&digest).unwrap();
        assert_ne!(sig, deterministic.sign_prehash(&digest).unwrap());
    }
    // Empty now: the next signatures are exactly RFC 6979 and never block.
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(
            signer.sign_prehash(&digest).unwrap(),
            deterministic.sign_prehash(&digest).unwrap()
        );
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let stats = signer.nonce_pool().unwrap().stats();
    assert_eq!((stats.taken, stats.fallbacks, stats.available), (3, 5, 0));
}

#[test]
fn a_tokio_pool_outside_a_runtime_is_an_error_not_a_panic() {
    let config = PoolConfig::new().depth(4).refill(Refill::Tokio);
    let err = NoncePool::try_new(config).err();
    assert_eq!(err, Some(NoRuntime));
    assert!(err.unwrap().to_string().contains("within a Tokio runtime"));
    // The same configuration within a runtime: accepted, and filled before it returns.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let pool = rt
        .block_on(async { NoncePool::try_new(config) })
        .expect("within a runtime");
    assert_eq!(pool.stats().available, 4);
}

#[test]
fn tokio_refill_task_keeps_the_pool_full() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let pool = NoncePool::new(
            PoolConfig::new()
                .depth(32)
                .low_water(16)
                .refill(Refill::Tokio),
        );
        let signer = Signer::from_hex(KEY)
            .unwrap()
            .with_nonce_pool(pool.clone())
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while pool.stats().available < 32 {
            assert!(
                Instant::now() < deadline,
                "refill task never filled the pool"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for i in 0u64..24 {
            let digest = keccak256(i.to_be_bytes()).0;
            let sig = signer.sign_prehash(&digest).unwrap();
            assert_eq!(recover_address(&digest, &sig).unwrap(), signer.address());
        }
        // Taking below the low-water mark woke the task, which tops the pool up again.
        while pool.stats().available < 32 {
            assert!(
                Instant::now() < deadline,
                "refill task did not wake below low water"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(pool.stats().fallbacks, 0);
    });
}
