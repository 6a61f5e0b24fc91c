//! Per-token caches (tick size, neg-risk, fee rate) and the `/version` cache, with a TTL,
//! and the single-flight table that coalesces concurrent misses: a cold burst of orders on one
//! token sends one `GET /tick-size`, one `/neg-risk` and one `/version`, not one per order.
//! Beside them, what never expires: the tokens known to be position IDs and each token's
//! market (condition id), for the open-orders filter rule.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, RwLock};
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

/// Which cache a flight fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fill {
    Tick,
    NegRisk,
    FeeRate,
    Version,
}

type FlightKey = (Fill, String);

/// In-flight lookups: the first caller of a key fetches, later callers wait for it and then
/// read the cache it filled. If the first fails, the next waiter fetches in turn.
#[derive(Debug, Default)]
pub(crate) struct Flights {
    map: Mutex<HashMap<FlightKey, Arc<tokio::sync::Mutex<()>>>>,
}

/// Held while fetching one key; dropping it lets the next waiter in and, when none is left,
/// forgets the key.
#[derive(Debug)]
pub(crate) struct Flight<'a> {
    flights: &'a Flights,
    key: Option<FlightKey>,
    lock: Arc<tokio::sync::Mutex<()>>,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Flights {
    /// Waits for the key's flight, if one is under way, and becomes it.
    pub(crate) async fn join(&self, fill: Fill, key: &str) -> Flight<'_> {
        let lock = {
            let mut map = self
                .map
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(map.entry((fill, key.to_owned())).or_default())
        };
        let guard = Arc::clone(&lock).lock_owned().await;
        Flight {
            flights: self,
            key: Some((fill, key.to_owned())),
            lock,
            guard: Some(guard),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        self.guard.take();
        let mut map = self
            .flights
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The map holds one reference and this flight one; any more are waiters, which clone
        // under the map lock, so the count is exact here.
        if Arc::strong_count(&self.lock) <= 2 {
            if let Some(k) = self.key.take() {
                map.remove(&k);
            }
        }
    }
}

/// Everything a client caches.
#[derive(Debug)]
pub(crate) struct Caches {
    pub(crate) tick: TtlMap<String, TickSize>,
    pub(crate) neg_risk: TtlMap<String, bool>,
    pub(crate) fee_bps: TtlMap<String, u32>,
    pub(crate) version: TtlMap<(), ExchangeVersion>,
    /// Tokens known to be position IDs (Gamma `version` `"v2"` markets), signed for
    /// ExchangeV3 whatever `/version` says. A token never changes kind, so no TTL.
    pub(crate) positions: RwLock<std::collections::HashSet<String>>,
    /// Token → condition id, for the open-orders filter rule
    /// ([`Client::set_token_market`](super::Client::set_token_market)).
    pub(crate) token_markets: TokenMarkets,
    pub(crate) flights: Flights,
}

impl Caches {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            tick: TtlMap::new(ttl),
            neg_risk: TtlMap::new(ttl),
            fee_bps: TtlMap::new(ttl),
            version: TtlMap::new(ttl),
            positions: RwLock::default(),
            token_markets: TokenMarkets::default(),
            flights: Flights::default(),
        }
    }
}

/// Token id → condition id. Grows with the tokens the caller touches (two per market), so it
/// is not evicted.
#[derive(Debug, Default)]
pub(crate) struct TokenMarkets(RwLock<HashMap<String, String>>);

impl TokenMarkets {
    pub(crate) fn insert(&self, token_id: &str, condition_id: &str) {
        if token_id.is_empty() || condition_id.is_empty() {
            return;
        }
        let mut map = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.get(token_id).map(String::as_str) != Some(condition_id) {
            map.insert(token_id.to_owned(), condition_id.to_owned());
        }
    }

    pub(crate) fn get(&self, token_id: &str) -> Option<String> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(token_id)
            .cloned()
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

    #[tokio::test]
    async fn concurrent_misses_share_one_flight() {
        let caches = Arc::new(Caches::new(Duration::from_secs(60)));
        let fetches = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let mut tasks = Vec::new();
        for _ in 0..50 {
            let (c, f) = (Arc::clone(&caches), Arc::clone(&fetches));
            tasks.push(tokio::spawn(async move {
                if let Some(t) = c.tick.get("tok", Instant::now()) {
                    return t;
                }
                let _flight = c.flights.join(Fill::Tick, "tok").await;
                if let Some(t) = c.tick.get("tok", Instant::now()) {
                    return t;
                }
                f.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                c.tick
                    .insert("tok".to_owned(), TickSize::Hundredth, Instant::now());
                TickSize::Hundredth
            }));
        }
        for t in tasks {
            assert_eq!(t.await.ok(), Some(TickSize::Hundredth));
        }
        assert_eq!(fetches.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(caches.flights.len(), 0, "finished flights are forgotten");
    }
}
