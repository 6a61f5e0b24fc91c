//! Signing costs: raw ECDSA of each backend (the baseline rows), EIP-712 hashing, L1 ClobAuth,
//! L2 HMAC. Row names follow the nautilus_trader Polymarket adapter's signing bench so the
//! numbers can be compared side by side.

use std::hint::black_box;

use alloy_primitives::U256;
use criterion::{Criterion, criterion_group, criterion_main};
use polyclob::sign::Signer;
use polyclob::sign::clob_auth::sign_clob_auth;
use polyclob::sign::eip712::recover_address;
use polyclob::sign::hmac::HmacKey;

/// Hardhat/Anvil account #0 — a public test key.
const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY_BYTES: [u8; 32] = [
    0xac, 0x09, 0x74, 0xbe, 0xc3, 0x9a, 0x17, 0xe3, 0x6b, 0xa4, 0xa6, 0xb4, 0xd2, 0x38, 0xff, 0x94,
    0x4b, 0xac, 0xb4, 0x78, 0xcb, 0xed, 0x5e, 0xfc, 0xae, 0x78, 0x4d, 0x7b, 0xf4, 0xf2, 0xff, 0x80,
];
const SECRET: &str = "dGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZy12YWx1ZS0wMQ==";

fn raw_ecdsa(c: &mut Criterion) {
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

fn auth(c: &mut Criterion) {
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
}

criterion_group!(benches, raw_ecdsa, auth);
criterion_main!(benches);
