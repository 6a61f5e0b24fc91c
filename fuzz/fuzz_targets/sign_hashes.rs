//! The crate's hashing (alloy's Keccak, the pre-keyed HMAC on `sha2`'s compression) agrees
//! with the reference crates on any input: Keccak-256 with alloy's, the EIP-712 hash with two
//! alloy hashes, the L2 HMAC with one built from `sha2`.
#![no_main]

use alloy_primitives::B256;
use libfuzzer_sys::fuzz_target;
use polyclob::sign::hmac::HmacKey;
use polyclob::sign::keccak::{eip712_hash, keccak256};
use sha2::{Digest, Sha256};

const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for k in 0..4 {
            out.push(if k <= c.len() {
                URL[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    assert_eq!(keccak256(data), alloy_primitives::keccak256(data));

    let domain = alloy_primitives::keccak256(&data[..data.len().min(8)]);
    let mut outer = vec![0x19, 0x01];
    outer.extend_from_slice(domain.as_slice());
    outer.extend_from_slice(alloy_primitives::keccak256(data).as_slice());
    let want: B256 = alloy_primitives::keccak256(&outer);
    assert_eq!(eip712_hash(&domain, data), want);

    // Key = first byte's worth of bytes, path = a slice of the input, body = the rest.
    let k = usize::from(data.first().copied().unwrap_or(0)) % 80;
    let (key, rest) = data.split_at(k.min(data.len()));
    let p = rest.len().min(usize::from(rest.first().copied().unwrap_or(0) % 40));
    let (path, body) = rest.split_at(p);
    let path = String::from_utf8_lossy(path);
    let ts = u64::from_le_bytes(core::array::from_fn(|i| key.get(i).copied().unwrap_or(0)));
    let hmac = HmacKey::from_key_bytes(key);
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let ipad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&ipad)
        .chain_update(ts.to_string())
        .chain_update("DELETE")
        .chain_update(path.as_bytes())
        .chain_update(body)
        .finalize();
    let tag = Sha256::new().chain_update(&opad).chain_update(inner).finalize();
    assert_eq!(
        hmac.sign(ts, "DELETE", &path, body).as_str(),
        base64url(&tag)
    );
});
