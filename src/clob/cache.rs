//! Per-token caches (tick size, neg-risk, fee rate) and the `/version` cache, with a TTL.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use crate::types::{ExchangeVersion, TickSize};

/// A small TTL map. Reads take a shared lock; entries expire lazily.
#[derive(Debug)]
pub(crate) struct TtlMap<K, V> {
    ttl: Duration,
    map: RwLock<HashMap<K, (V, Instant)>>,
}

impl<K: Eq + Hash, V: Copy> TtlMap<K, V> {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            map: RwLock::new(HashMap::new()),
        }
    }

    pub(crate) fn get<Q>(&self, key: &Q, now: Instant) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        let map = self
            .map
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(key)
            .and_then(|&(v, at)| (now.duration_since(at) < self.ttl).then_some(v))
    }

    pub(crate) fn insert(&self, key: K, value: V, now: Instant) {
        let mut map = self
            .map
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Keep the map bounded by dropping expired entries when it grows.
        if map.len() >= 4096 {
            let ttl = self.ttl;
            map.retain(|_, (_, at)| now.duration_since(*at) < ttl);
        }
        map.insert(key, (value, now));
    }

    pub(crate) fn remove<Q>(&self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.map
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(key);
    }

    pub(crate) fn clear(&self) {
        self.map
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }
}

/// Everything a client caches.
#[derive(Debug)]
pub(crate) struct Caches {
    pub(crate) tick: TtlMap<String, TickSize>,
    pub(crate) neg_risk: TtlMap<String, bool>,
    pub(crate) fee_bps: TtlMap<String, u32>,
    pub(crate) version: TtlMap<(), ExchangeVersion>,
}

impl Caches {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            tick: TtlMap::new(ttl),
            neg_risk: TtlMap::new(ttl),
            fee_bps: TtlMap::new(ttl),
            version: TtlMap::new(ttl),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire() {
        let m = TtlMap::new(Duration::from_secs(10));
        let t = Instant::now();
        m.insert("a".to_owned(), 1u32, t);
        assert_eq!(m.get("a", t + Duration::from_secs(9)), Some(1));
        assert_eq!(m.get("a", t + Duration::from_secs(10)), None);
        m.insert("a".to_owned(), 2, t);
        m.remove("a");
        assert_eq!(m.get("a", t), None);
    }
}
