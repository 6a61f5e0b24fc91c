//! Signing costs: raw ECDSA of each backend (the baseline rows), EIP-712 order hashing, order
//! signing, L1 ClobAuth, L2 HMAC, and the prepared execution pipeline (build → sign → serialise
//! → HMAC into a reused buffer). Row names follow the nautilus_trader Polymarket adapter's
//! benches so the numbers can be compared side by side; every row checks its result.

use std::hint::black_box;

use alloy_primitives::{B256, U256};
use std::time::Duration;

use criterion::Criterion;
use criterion::measurement::Measurement;
use polyclob::fixed::{Price, Size};
use polyclob::http::{Bucket, Governor, Limit};
use polyclob::order::{
    LimitOrder, MarketContext, MarketOrder, Order, OrderSigner, market_price, write_cancel_body,
};
use polyclob::sign::Signer;
use polyclob::sign::clob_auth::sign_clob_auth;
use polyclob::sign::eip712::{order_hash, recover_address};
use polyclob::sign::hmac::HmacKey;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ExchangeVersion, OrderType, Side, SignatureType, TickSize};

const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const OWNER: &str = "00000000-0000-0000-0000-000000000001";

/// Hardhat/Anvil account #0 — a public test key.
const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY_BYTES: [u8; 32] = [
    0xac, 0x09, 0x74, 0xbe, 0xc3, 0x9a, 0x17, 0xe3, 0x6b, 0xa4, 0xa6, 0xb4, 0xd2, 0x38, 0xff, 0x94,
    0x4b, 0xac, 0xb4, 0x78, 0xcb, 0xed, 0x5e, 0xfc, 0xae, 0x78, 0x4d, 0x7b, 0xf4, 0xf2, 0xff, 0x80,
];
const SECRET: &str = "dGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZy12YWx1ZS0wMQ==";

fn raw_ecdsa<M: Measurement<Value = Duration> + 'static>(c: &mut Criterion<M>) {
    let digest = [0x5au8; 32];
    let mut g = c.benchmark_group("raw_ecdsa_sign");
    #[cfg(feature = "libsecp256k1")]
    {
        let key = polyclob::sign::ecdsa::Libsecp256k1::from_bytes(&KEY_BYTES).unwrap();
        let sig = key.sign_prehash(&digest).unwrap();
        assert_eq!(recover_address(&digest, &sig).unwrap(), key.address());
        g.bench_function("libsecp256k1", |b| {
            b.iter(|| key.sign_prehash(black_box(&digest)).unwrap())
        });
    }
    #[cfg(feature = "k256")]
    {
        let key = polyclob::sign::ecdsa::K256::from_bytes(&KEY_BYTES).unwrap();
        let sig = key.sign_prehash(&digest).unwrap();
        assert_eq!(recover_address(&digest, &sig).unwrap(), key.address());
        g.bench_function("k256", |b| {
            b.iter(|| key.sign_prehash(black_box(&digest)).unwrap())
        });
    }
    g.finish();
}

fn auth<M: Measurement<Value = Duration> + 'static>(c: &mut Criterion<M>) {
    c.bench_function("signer_construction", |b| {
        b.iter(|| Signer::from_hex(black_box(KEY)).unwrap())
    });
    let signer = Signer::from_hex(KEY).unwrap();
    let want = "0xb83e6407df605cacd39032130987f4fb6e6a7187056cd88c8051c92f43ed50ae27174838d08318611d76cbf80110a9b39868b1e02c515268ab3e31073c4512fa1b";
    assert_eq!(
        sign_clob_auth(&signer, 137, 1_713_398_400, U256::ZERO)
            .unwrap()
            .to_string(),
        want
    );
    c.bench_function("sign_clob_auth", |b| {
        b.iter(|| sign_clob_auth(&signer, 137, black_box(1_713_398_400), U256::ZERO).unwrap())
    });

    let key = HmacKey::from_base64url(SECRET).unwrap();
    let body = br#"{"order":{"salt":123},"owner":"00000000-0000-0000-0000-000000000001","orderType":"GTC"}"#;
    assert_eq!(
        key.sign(1_713_398_400, "POST", "/order", body).as_str(),
        "JKlC4SMmYN-7y5Ti8hXOWX_E90Cu5WpI-Gk0eF9rW28="
    );
    c.bench_function("hmac_l2_sign", |b| {
        b.iter(|| key.sign(black_box(1_713_398_400), "POST", "/order", black_box(body)))
    });
    // Floor of the HMAC above: its three SHA-256 compressions (2 inner + 1 outer), as one
    // plain hash of 128 bytes (2 blocks + the padding block).
    c.bench_function("baseline_sha256_3_blocks", |b| {
        use sha2::Digest;
        let data = [0x5au8; 128];
        b.iter(|| sha2::Sha256::digest(black_box(&data)))
    });
}

/// nautilus' `sample_order`: BUY, maker 50 pUSD / taker 100 shares, EOA, V2 standard exchange.
fn sample_order(signer: &Signer) -> Order {
    let mut o = Order::zeroed(ExchangeVersion::V2);
    o.salt = 123_456_789;
    o.maker = signer.address();
    o.signer = signer.address();
    o.token_id = TOKEN.parse().unwrap();
    o.maker_amount = 50_000_000;
    o.taker_amount = 100_000_000;
    o.side = Side::Buy;
    o.signature_type = SignatureType::Eoa;
    o.timestamp_ms = 1_713_398_400_000;
    o
}

fn orders<M: Measurement<Value = Duration> + 'static>(c: &mut Criterion<M>) {
    let signer = Signer::from_hex(KEY).unwrap();
    let market = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        TOKEN.parse().unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let domain = *market.domain_separator();
    let order = sample_order(&signer);
    let want_hash: B256 = "0xa4a1cf1f2e87f4fa127c754aaa84dcb3e82089c874adb54812e8ef8987306cb0"
        .parse()
        .unwrap();
    assert_eq!(order_hash(&domain, &order), want_hash);
    c.bench_function("order_hash", |b| {
        b.iter(|| order_hash(black_box(&domain), black_box(&order)))
    });
    // Floor of the order hash: it is 4 Keccak-f[1600] permutations (a 384-byte struct = 3
    // blocks of 136 bytes, then the 66-byte signing hash = 1 block); this row is one of them.
    c.bench_function("baseline_keccak256_1_block", |b| {
        let data = [0x5au8; 66];
        b.iter(|| alloy_primitives::keccak256(black_box(data)))
    });
    // The same one-block hash with the crate's Keccak (AVX-512 where detected; the backend is
    // printed so a portable fallback cannot pass unnoticed).
    eprintln!(
        "sign::keccak backend: {}",
        polyclob::sign::keccak::backend()
    );
    assert_eq!(
        polyclob::sign::keccak::keccak256(&[0x5au8; 66]),
        alloy_primitives::keccak256([0x5au8; 66])
    );
    c.bench_function("keccak256_1_block", |b| {
        let data = [0x5au8; 66];
        b.iter(|| polyclob::sign::keccak::keccak256(black_box(&data)))
    });
    let want_sig = "0x6fd689d2f8bace3a3ebee15d79484c752cfbc9afbbf7bd7e202dc75c50a035a70e734b8fd9fd8a70395779c91e024c27f361e9107aa85568043ae7059f97e6791c";
    assert_eq!(
        signer.sign_prehash(&want_hash.0).unwrap().to_string(),
        want_sig
    );
    c.bench_function("sign_order", |b| {
        b.iter(|| {
            let h = order_hash(black_box(&domain), black_box(&order));
            signer.sign_prehash(&h.0).unwrap()
        })
    });

    // The prepared pipeline: market context and signer prepared once, buffers reused.
    let prepared = OrderSigner::new(signer.clone(), Chain::Polygon, Wallet::Eoa).unwrap();
    let hmac = HmacKey::from_base64url(SECRET).unwrap();
    let mut body = Vec::with_capacity(2048);
    let limit = LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "21.04".parse().unwrap());
    {
        let signed = prepared.limit_order(&market, &limit).unwrap();
        assert_eq!(signed.order().maker_amount, 11_782_400);
        let sig = polyclob::sign::Signature::from_bytes(signed.signature().ecdsa_part()).unwrap();
        assert_eq!(
            recover_address(&signed.hash().0, &sig).unwrap(),
            signer.address()
        );
    }
    // A production-shaped ask side as REST delivers it: worst first, 40 levels.
    let asks: Vec<(Price, Size)> = (0..40u32)
        .map(|i| {
            (
                Price::new(990_000 - i * 10_000).unwrap(),
                Size::from_micros(25_000_000 + u64::from(i) * 1_000_000),
            )
        })
        .collect();
    let amount: Size = "100".parse().unwrap();
    assert_eq!(
        market_price(
            Side::Buy,
            amount,
            OrderType::Fok,
            asks.iter().rev().copied()
        )
        .unwrap(),
        Price::new(620_000).unwrap()
    );
    let mut g = c.benchmark_group("exec_pipeline");
    g.bench_function("submit_limit", |b| {
        b.iter(|| {
            body.clear();
            let signed = prepared.limit_order(&market, black_box(&limit)).unwrap();
            signed.write_json(OWNER, &mut body);
            hmac.sign(1_713_398_400, "POST", "/order", &body)
        })
    });
    // The same pipeline behind the client's rate-limit governor (one GCRA compare-and-swap
    // and a clock read). Limits no benchmark can exhaust (1e9 tokens/s), so every iteration
    // takes the admitting path; `governor_try_acquire` is the governor alone.
    let governor = Governor::with_limits(
        Limit::new(1_000_000_000, 1_000_000),
        Limit::new(1_000_000_000, 1_000_000),
    );
    g.bench_function("submit_limit_governed", |b| {
        b.iter(|| {
            governor.try_acquire(Bucket::Order, 1).unwrap();
            body.clear();
            let signed = prepared.limit_order(&market, black_box(&limit)).unwrap();
            signed.write_json(OWNER, &mut body);
            hmac.sign(1_713_398_400, "POST", "/order", &body)
        })
    });
    g.bench_function("governor_try_acquire", |b| {
        b.iter(|| governor.try_acquire(Bucket::Order, black_box(1)).unwrap())
    });
    // Its baseline: the clock read every acquisition starts with.
    g.bench_function("baseline_instant_now", |b| b.iter(std::time::Instant::now));
    g.bench_function("submit_market", |b| {
        b.iter(|| {
            body.clear();
            let price = market_price(
                Side::Buy,
                black_box(amount),
                OrderType::Fok,
                asks.iter().rev().copied(),
            )
            .unwrap();
            let req = MarketOrder::new(
                Side::Buy,
                polyclob::order::MarketAmount::Usdc(amount),
                price,
            );
            let signed = prepared.market_order(&market, &req).unwrap();
            signed.write_json(OWNER, &mut body);
            hmac.sign(1_713_398_400, "POST", "/order", &body)
        })
    });
    let order_id: B256 = "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef"
        .parse()
        .unwrap();
    g.bench_function("cancel", |b| {
        b.iter(|| {
            body.clear();
            write_cancel_body(black_box(&order_id), &mut body);
            hmac.sign(1_713_398_400, "DELETE", "/order", &body)
        })
    });
    g.finish();

    // The `submit_limit` / raw-sign ratio measured pairwise: on this shared VM the ECDSA rows
    // drift by 10-40% between rows seconds apart, more than the ratio the target bounds. So
    // batches of raw signatures and of `submit_limit` alternate (which goes first alternates
    // too), each pair gives one ratio, and the median of the pairs is printed.
    #[cfg(feature = "libsecp256k1")]
    {
        let raw = polyclob::sign::ecdsa::Libsecp256k1::from_bytes(&KEY_BYTES).unwrap();
        let digest = [0x5au8; 32];
        const PAIRS: usize = 41;
        const BATCH: u32 = 200;
        let mut ratios = Vec::with_capacity(PAIRS);
        let timed_raw = |n: u32| {
            let start = clock::now();
            for _ in 0..n {
                black_box(raw.sign_prehash(black_box(&digest)).unwrap());
            }
            clock::elapsed(start)
        };
        let mut timed_pipeline = |n: u32| {
            let start = clock::now();
            for _ in 0..n {
                body.clear();
                let signed = prepared.limit_order(&market, black_box(&limit)).unwrap();
                signed.write_json(OWNER, &mut body);
                black_box(hmac.sign(1_713_398_400, "POST", "/order", &body));
            }
            clock::elapsed(start)
        };
        timed_raw(BATCH);
        timed_pipeline(BATCH);
        for i in 0..PAIRS {
            let (r, p) = if i % 2 == 0 {
                let r = timed_raw(BATCH);
                (r, timed_pipeline(BATCH))
            } else {
                let p = timed_pipeline(BATCH);
                (timed_raw(BATCH), p)
            };
            ratios.push(p.as_secs_f64() / r.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "paired submit_limit / raw_ecdsa_sign/libsecp256k1: median {:.4} (quartiles {:.4} .. {:.4}; {PAIRS} pairs of {BATCH})",
            ratios[PAIRS / 2],
            ratios[PAIRS / 4],
            ratios[3 * PAIRS / 4]
        );
    }
}

/// Precomputed-nonce rows (feature `presign`), beside the RFC 6979 rows of the same run.
///
/// Criterion may run millions of iterations, so the pool is topped up in `iter_batched`'s
/// untimed setup; every timed signature comes from the pool (asserted: zero fallbacks).
#[cfg(feature = "presign")]
fn presigned<M: Measurement<Value = Duration> + 'static>(c: &mut Criterion<M>) {
    use criterion::BatchSize;
    use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};

    const BATCH: u64 = 64;
    let pool = NoncePool::new(
        PoolConfig::new()
            .depth(2 * BATCH as usize)
            .refill(Refill::Manual),
    );
    let signer = Signer::from_hex(KEY)
        .unwrap()
        .with_nonce_pool(pool.clone())
        .unwrap();
    let top_up = || {
        if pool.stats().available < BATCH as usize {
            pool.refill();
        }
    };
    let market = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        TOKEN.parse().unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let domain = *market.domain_separator();
    let order = sample_order(&signer);
    top_up();
    let h = order_hash(&domain, &order);
    let sig = signer.sign_prehash(&h.0).unwrap();
    assert_eq!(recover_address(&h.0, &sig).unwrap(), signer.address());

    c.bench_function("sign_order_presigned", |b| {
        b.iter_batched(
            top_up,
            |()| {
                let h = order_hash(black_box(&domain), black_box(&order));
                signer.sign_prehash(&h.0).unwrap()
            },
            BatchSize::NumIterations(BATCH),
        )
    });

    let prepared = OrderSigner::new(signer.clone(), Chain::Polygon, Wallet::Eoa).unwrap();
    let hmac = HmacKey::from_base64url(SECRET).unwrap();
    let mut body = Vec::with_capacity(2048);
    let limit = LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "21.04".parse().unwrap());
    let mut g = c.benchmark_group("exec_pipeline");
    g.bench_function("submit_limit_presigned", |b| {
        b.iter_batched(
            top_up,
            |()| {
                body.clear();
                let signed = prepared.limit_order(&market, black_box(&limit)).unwrap();
                signed.write_json(OWNER, &mut body);
                hmac.sign(1_713_398_400, "POST", "/order", &body)
            },
            BatchSize::NumIterations(BATCH),
        )
    });
    // The two halves of the pipeline after signing, on the same order: the POST body writer
    // and the L2 HMAC over that body (~760 bytes = 13 SHA-256 blocks + the outer one; the
    // HMAC itself is checked against the `sha2` hasher for every length in `sign::hmac`).
    body.clear();
    let signed = prepared.limit_order(&market, &limit).unwrap();
    signed.write_json(OWNER, &mut body);
    let want_body = body.clone();
    g.bench_function("write_body", |b| {
        b.iter(|| {
            body.clear();
            black_box(&signed).write_json(OWNER, &mut body);
        })
    });
    assert_eq!(body, want_body);
    g.bench_function("hmac_body", |b| {
        b.iter(|| hmac.sign(1_713_398_400, "POST", "/order", black_box(&want_body)))
    });
    g.finish();
    assert_eq!(
        pool.stats().fallbacks,
        0,
        "a timed signature fell back to RFC 6979"
    );

    // Cost of producing one pool entry (k·G, inversion, OS entropy), per entry.
    c.bench_function("nonce_pool_refill", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut left = iters;
            while left > 0 {
                let chunk = left.min(256);
                let pool = NoncePool::new(
                    PoolConfig::new()
                        .depth(chunk as usize)
                        .refill(Refill::Manual),
                );
                let start = clock::now();
                let made = pool.refill();
                total += clock::elapsed(start);
                assert_eq!(made as u64, chunk);
                left -= chunk;
            }
            total
        })
    });
}

#[cfg(not(feature = "presign"))]
fn presigned<M: Measurement<Value = Duration> + 'static>(_: &mut Criterion<M>) {}

fn run_all<M: Measurement<Value = Duration> + 'static>(c: &mut Criterion<M>) {
    raw_ecdsa(c);
    auth(c);
    orders(c);
    presigned(c);
}

/// Instruction counting (`scripts/instructions.py`): `SIGNING_COUNT=submit_limit:<n>` runs the
/// prepared pipeline's `submit_limit` row (build → sign → serialise → HMAC) `n` times and exits.
fn count_mode(spec: &str) {
    let (row, n) = spec
        .rsplit_once(':')
        .expect("SIGNING_COUNT=submit_limit:<n>");
    assert_eq!(row, "submit_limit", "the one counted row");
    let n: u32 = n.parse().unwrap();
    let market = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        TOKEN.parse().unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let prepared =
        OrderSigner::new(Signer::from_hex(KEY).unwrap(), Chain::Polygon, Wallet::Eoa).unwrap();
    let hmac = HmacKey::from_base64url(SECRET).unwrap();
    let limit = LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "21.04".parse().unwrap());
    let mut body = Vec::with_capacity(2048);
    for _ in 0..n {
        body.clear();
        let signed = prepared.limit_order(&market, black_box(&limit)).unwrap();
        signed.write_json(OWNER, &mut body);
        black_box(hmac.sign(1_713_398_400, "POST", "/order", &body));
    }
}

/// `POLYCLOB_BENCH_CLOCK=thread-cpu` measures the CPU time of the benchmark thread instead of
/// wall-clock time: on a shared VM, time slices given to other processes then do not count.
fn main() {
    if let Ok(spec) = std::env::var("SIGNING_COUNT") {
        count_mode(&spec);
        return;
    }
    if std::env::var("POLYCLOB_BENCH_CLOCK").as_deref() == Ok("thread-cpu") {
        clock::select_thread_cpu();
        let mut c = Criterion::default()
            .with_measurement(clock::ThreadCpu)
            .configure_from_args();
        run_all(&mut c);
        c.final_summary();
    } else {
        let mut c = Criterion::default().configure_from_args();
        run_all(&mut c);
        c.final_summary();
    }
}

/// The thread-CPU-time clock (Linux `CLOCK_THREAD_CPUTIME_ID`).
mod clock {
    #![allow(unsafe_code)]

    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use criterion::measurement::{Measurement, ValueFormatter, WallTime};

    static THREAD_CPU: AtomicBool = AtomicBool::new(false);
    static WALL: WallTime = WallTime;

    pub(crate) fn select_thread_cpu() {
        THREAD_CPU.store(true, Ordering::Relaxed);
    }

    fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec on the stack and CLOCK_THREAD_CPUTIME_ID
        // is a clock id Linux supports; clock_gettime writes only into `ts`.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    /// A timestamp on the selected clock (for `iter_custom` rows).
    #[derive(Clone, Copy)]
    pub(crate) enum Stamp {
        Wall(Instant),
        Cpu(u64),
    }

    pub(crate) fn now() -> Stamp {
        if THREAD_CPU.load(Ordering::Relaxed) {
            Stamp::Cpu(thread_cpu_ns())
        } else {
            Stamp::Wall(Instant::now())
        }
    }

    pub(crate) fn elapsed(since: Stamp) -> Duration {
        match since {
            Stamp::Wall(t) => t.elapsed(),
            Stamp::Cpu(t) => Duration::from_nanos(thread_cpu_ns() - t),
        }
    }

    /// Criterion measurement reading the thread's CPU time.
    pub(crate) struct ThreadCpu;

    impl Measurement for ThreadCpu {
        type Intermediate = u64;
        type Value = Duration;

        fn start(&self) -> u64 {
            thread_cpu_ns()
        }

        fn end(&self, i: u64) -> Duration {
            Duration::from_nanos(thread_cpu_ns() - i)
        }

        fn add(&self, a: &Duration, b: &Duration) -> Duration {
            *a + *b
        }

        fn zero(&self) -> Duration {
            Duration::ZERO
        }

        fn to_f64(&self, v: &Duration) -> f64 {
            v.as_nanos() as f64
        }

        fn formatter(&self) -> &dyn ValueFormatter {
            WALL.formatter()
        }
    }
}
