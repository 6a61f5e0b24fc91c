//! Asset-id interning: each 77-digit token id is copied once, when first seen, and later
//! lookups hash the borrowed frame slice without allocating.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast multiplicative hash over 8-byte words (the last two, for ids of 16 bytes or more).
///
/// Asset ids come from the exchange, not from an adversary choosing keys, so a DoS-resistant
/// SipHash buys nothing here and costs several times as much on 77-byte keys.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Token ids are 77 random-looking digits: their last 16 bytes and the length tell
        // them apart as well as every byte would, and hashing only those keeps the lookup
        // from waiting on a chain of ten multiplies. Equal ends only share a bucket: the
        // index compares whole ids.
        if let Some(end) = bytes.len().checked_sub(16) {
            let word = |at: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&bytes[at..at + 8]);
                u64::from_le_bytes(w)
            };
            self.add(word(end) ^ (bytes.len() as u64).rotate_left(56));
            self.add(word(end + 8));
            return;
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Maps asset ids to dense slots. Registration allocates (once per asset); lookups never do.
#[derive(Clone, Debug, Default)]
pub(crate) struct AssetIndex {
    map: HashMap<Box<str>, u32, BuildHasherDefault<IdHasher>>,
}

impl AssetIndex {
    #[inline]
    pub(crate) fn get(&self, id: &str) -> Option<u32> {
        self.map.get(id).copied()
    }

    /// The slot of `id`, registering it as `next` when unknown. Returns `(slot, is_new)`.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, id: &str, next: u32) -> (u32, bool) {
        if let Some(&slot) = self.map.get(id) {
            return (slot, false);
        }
        self.map.insert(id.into(), next);
        (next, true)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_distinguishes_prefixes() {
        let mut idx = AssetIndex::default();
        let a = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
        let b = "71321045679252212594626385532706912750332728571942532289631379312455583992564";
        assert_eq!(idx.get_or_insert(a, 0), (0, true));
        assert_eq!(idx.get_or_insert(b, 1), (1, true));
        assert_eq!(idx.get_or_insert(a, 2), (0, false));
        assert_eq!(idx.get(&b[..76]), None);
        assert_eq!(idx.get(b), Some(1));
        assert_eq!(idx.len(), 2);
        // Same last 16 bytes and length (so the same hash): still two assets.
        let c = "81321045679252212594626385532706912750332728571942532289631379312455583992563";
        assert_eq!(idx.get(c), None);
        assert_eq!(idx.get_or_insert(c, 2), (2, true));
        assert_eq!((idx.get(a), idx.get(c)), (Some(0), Some(2)));
    }
}
