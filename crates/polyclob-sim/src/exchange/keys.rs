//! API keys: the L2 credentials the exchange issues (`POST /auth/api-key`, derived again by
//! `GET /auth/derive-api-key`), registers (the handle's fixed credentials, builder keys) and
//! looks up on every authenticated request.

use std::collections::HashMap;

use super::rng;

/// Credentials issued by `POST /auth/api-key`.
#[derive(Clone)]
pub(crate) struct ApiKeyRec {
    pub(crate) key: String,
    pub(crate) secret: String,
    pub(crate) passphrase: String,
    /// Lowercase 0x address.
    pub(crate) address: String,
}

impl std::fmt::Debug for ApiKeyRec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyRec")
            .field("key", &self.key)
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// Every API key the exchange knows, by key and by (address, nonce).
#[derive(Debug)]
pub(crate) struct Keys {
    /// The simulator's seed: the same seed, address and nonce always give the same key.
    seed: u64,
    by_key: HashMap<String, ApiKeyRec>,
    by_owner: HashMap<(String, u64), String>,
}

impl Keys {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            seed,
            by_key: HashMap::new(),
            by_owner: HashMap::new(),
        }
    }

    /// The deterministic credentials for (address, nonce): the same seed, address and nonce
    /// always give the same key, so `derive` can recompute what `create` issued.
    fn credentials_for(&self, address: &str, nonce: u64) -> ApiKeyRec {
        let mut material = Vec::with_capacity(64);
        material.extend_from_slice(b"polyclob-sim api key");
        material.extend_from_slice(&self.seed.to_be_bytes());
        material.extend_from_slice(address.as_bytes());
        material.extend_from_slice(&nonce.to_be_bytes());
        let k = alloy_primitives::keccak256(&material);
        material.push(1);
        let s = alloy_primitives::keccak256(&material);
        material.push(2);
        let p = alloy_primitives::keccak256(&material);
        use base64::Engine as _;
        ApiKeyRec {
            key: rng::uuid_from(k.as_slice()),
            secret: base64::engine::general_purpose::URL_SAFE.encode(s.as_slice()),
            passphrase: alloy_primitives::hex::encode(&p.as_slice()[..32]),
            address: address.to_owned(),
        }
    }

    /// `POST /auth/api-key`: issues the key for (address, nonce); an existing key is an error.
    pub(crate) fn create(&mut self, address: &str, nonce: u64) -> Result<ApiKeyRec, &'static str> {
        let owner = (address.to_owned(), nonce);
        if self.by_owner.contains_key(&owner) {
            return Err("Could not create api key");
        }
        let rec = self.credentials_for(address, nonce);
        self.by_owner.insert(owner, rec.key.clone());
        self.by_key.insert(rec.key.clone(), rec.clone());
        Ok(rec)
    }

    /// `GET /auth/derive-api-key`: returns the key already issued for (address, nonce).
    pub(crate) fn derive(&self, address: &str, nonce: u64) -> Result<ApiKeyRec, &'static str> {
        self.by_owner
            .get(&(address.to_owned(), nonce))
            .and_then(|k| self.by_key.get(k))
            .cloned()
            .ok_or("Could not derive api key!")
    }

    /// Every API key issued to `address`.
    pub(crate) fn of(&self, address: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .by_key
            .values()
            .filter(|k| k.address == address)
            .map(|k| k.key.clone())
            .collect();
        v.sort_unstable();
        v
    }

    pub(crate) fn get(&self, key: &str) -> Option<&ApiKeyRec> {
        self.by_key.get(key)
    }

    /// Registers given credentials for (address, nonce), replacing any issued before.
    pub(crate) fn insert(&mut self, rec: ApiKeyRec, nonce: u64) {
        if let Some(old) = self
            .by_owner
            .insert((rec.address.clone(), nonce), rec.key.clone())
        {
            self.by_key.remove(&old);
        }
        self.by_key.insert(rec.key.clone(), rec);
    }

    /// Removes an API key (a revoked builder key stops authenticating).
    pub(crate) fn remove(&mut self, key: &str) {
        self.by_key.remove(key);
        self.by_owner.retain(|_, k| k != key);
    }
}
