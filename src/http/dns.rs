//! A DNS cache over the system resolver: a new pooled connection (after an idle timeout or a
//! server-side close) does not pay a `getaddrinfo` round trip while the entry is fresh.
//!
//! With the `hickory-dns` feature reqwest uses hickory-resolver instead, which caches by the
//! records' own TTLs.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

type Cache = Arc<Mutex<HashMap<String, (Vec<SocketAddr>, Instant)>>>;

/// Resolves through the OS (`tokio::net::lookup_host`) and keeps answers for `ttl`.
#[derive(Debug)]
pub(crate) struct CachingResolver {
    ttl: Duration,
    cache: Cache,
    lookups: Arc<AtomicU64>,
}

impl CachingResolver {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            cache: Arc::default(),
            lookups: Arc::default(),
        }
    }

    #[cfg(test)]
    fn lookups(&self) -> u64 {
        self.lookups.load(Ordering::Relaxed)
    }
}

impl Resolve for CachingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let ttl = self.ttl;
        let cache = Arc::clone(&self.cache);
        let lookups = Arc::clone(&self.lookups);
        Box::pin(async move {
            let now = Instant::now();
            let hit = {
                let c = cache
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                c.get(&host)
                    .filter(|(_, at)| now.duration_since(*at) < ttl)
                    .map(|(a, _)| a.clone())
            };
            let addrs = match hit {
                Some(a) => a,
                None => {
                    lookups.fetch_add(1, Ordering::Relaxed);
                    let addrs: Vec<SocketAddr> =
                        tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
                    if !addrs.is_empty() {
                        let mut c = cache
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        if c.len() >= 256 {
                            c.retain(|_, (_, at)| now.duration_since(*at) < ttl);
                        }
                        c.insert(host, (addrs.clone(), now));
                    }
                    addrs
                }
            };
            let it: Addrs = Box::new(addrs.into_iter());
            Ok(it)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_are_cached_for_the_ttl() {
        let r = CachingResolver::new(Duration::from_millis(50));
        let name = || "localhost".parse::<Name>().unwrap();
        let a: Vec<_> = r.resolve(name()).await.unwrap().collect();
        assert!(a.iter().all(|s| s.ip().is_loopback()) && !a.is_empty());
        let b: Vec<_> = r.resolve(name()).await.unwrap().collect();
        assert_eq!(a, b);
        assert_eq!(r.lookups(), 1);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(r.resolve(name()).await.unwrap().count(), a.len());
        assert_eq!(r.lookups(), 2);
    }
}
