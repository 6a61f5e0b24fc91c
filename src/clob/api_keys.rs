//! API keys: create or derive (L1), list and delete (L2), read-only keys, and the account's
//! closed-only status.

use alloy_primitives::U256;
use serde::Deserialize;

use super::auth::{ApiKeyNonce, Credentials, Level};
use super::client::Client;
use super::request::Req;
use super::types::ApiKeyRaw;
use crate::http::{Error, lenient};

impl Client {
    /// `POST /auth/api-key` (L1): creates API credentials for `nonce`. Not retried.
    ///
    /// # Errors
    ///
    /// No signer, transport, status or decode.
    pub async fn create_api_key(&self, nonce: ApiKeyNonce) -> Result<Credentials, Error> {
        self.create_api_key_at(nonce.into()).await
    }

    /// [`create_api_key`](Self::create_api_key) for any ClobAuth nonce (the compat surface's
    /// `U256`).
    pub(crate) async fn create_api_key_at(&self, nonce: U256) -> Result<Credentials, Error> {
        let raw: ApiKeyRaw = self
            .json(&Req::post_empty("/auth/api-key").auth(Level::L1(nonce)))
            .await?;
        Ok(Credentials::new(raw.api_key, raw.secret, raw.passphrase))
    }

    /// `GET /auth/derive-api-key` (L1): the existing credentials for `nonce`.
    ///
    /// # Errors
    ///
    /// No signer, transport, status or decode.
    pub async fn derive_api_key(&self, nonce: ApiKeyNonce) -> Result<Credentials, Error> {
        self.derive_api_key_at(nonce.into()).await
    }

    /// [`derive_api_key`](Self::derive_api_key) for any ClobAuth nonce.
    pub(crate) async fn derive_api_key_at(&self, nonce: U256) -> Result<Credentials, Error> {
        let raw: ApiKeyRaw = self
            .json(&Req::get("/auth/derive-api-key").auth(Level::L1(nonce)))
            .await?;
        Ok(Credentials::new(raw.api_key, raw.secret, raw.passphrase))
    }

    /// Creates credentials, or derives the existing ones when the server refuses to create
    /// (the key already exists). Auth and transport failures are returned, not papered over.
    ///
    /// # Errors
    ///
    /// As [`derive_api_key`](Self::derive_api_key).
    pub async fn create_or_derive_api_key(&self, nonce: ApiKeyNonce) -> Result<Credentials, Error> {
        self.create_or_derive_api_key_at(nonce.into()).await
    }

    /// [`create_or_derive_api_key`](Self::create_or_derive_api_key) for any ClobAuth nonce.
    pub(crate) async fn create_or_derive_api_key_at(
        &self,
        nonce: U256,
    ) -> Result<Credentials, Error> {
        match self.create_api_key_at(nonce).await {
            Ok(c) => Ok(c),
            Err(e) if e.is_auth() => Err(e),
            Err(_) => self.derive_api_key_at(nonce).await,
        }
    }

    /// Replaces the L2 credentials used by this client (and its clones).
    pub fn set_credentials(&self, creds: Credentials) {
        self.inner.auth.set_creds(Some(creds));
    }

    /// The L2 credentials, if set.
    #[must_use]
    pub fn credentials(&self) -> Option<Credentials> {
        self.inner.auth.creds().map(|c| c.creds.clone())
    }

    /// `GET /auth/api-keys` (L2).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn api_keys(&self) -> Result<Vec<String>, Error> {
        #[derive(Deserialize)]
        struct K {
            #[serde(rename = "apiKeys", default)]
            api_keys: Vec<String>,
        }
        let k: K = self
            .json(&Req::get("/auth/api-keys").auth(Level::L2))
            .await?;
        Ok(k.api_keys)
    }

    /// `DELETE /auth/api-key` (L2): deletes the client's API key. Returns the raw body.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport or status.
    pub async fn delete_api_key(&self) -> Result<String, Error> {
        let b = self
            .send(&Req::delete("/auth/api-key", None).auth(Level::L2))
            .await?;
        Ok(String::from_utf8_lossy(&b).into_owned())
    }

    /// `GET /auth/ban-status/closed-only` (L2): whether the account may only close positions.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn closed_only(&self) -> Result<bool, Error> {
        #[derive(Deserialize)]
        struct C {
            #[serde(deserialize_with = "lenient::bool_lenient", default)]
            closed_only: bool,
        }
        let c: C = self
            .json(&Req::get("/auth/ban-status/closed-only").auth(Level::L2))
            .await?;
        Ok(c.closed_only)
    }

    /// `POST /auth/readonly-api-key` (L2): creates a read-only key. Not retried.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn create_readonly_api_key(&self) -> Result<String, Error> {
        #[derive(Deserialize)]
        struct K {
            #[serde(rename = "apiKey")]
            api_key: String,
        }
        let k: K = self
            .json(&Req::post_empty("/auth/readonly-api-key").auth(Level::L2))
            .await?;
        Ok(k.api_key)
    }

    /// `GET /auth/readonly-api-keys` (L2).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn readonly_api_keys(&self) -> Result<Vec<String>, Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Keys {
            List(Vec<String>),
            Wrapped {
                #[serde(rename = "apiKeys")]
                api_keys: Vec<String>,
            },
        }
        let k: Keys = self
            .json(&Req::get("/auth/readonly-api-keys").auth(Level::L2))
            .await?;
        Ok(match k {
            Keys::List(v) | Keys::Wrapped { api_keys: v } => v,
        })
    }

    /// `DELETE /auth/readonly-api-key` (L2) with body `{"key": …}`.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport or status.
    pub async fn delete_readonly_api_key(&self, key: &str) -> Result<(), Error> {
        #[derive(serde::Serialize)]
        struct B<'a> {
            key: &'a str,
        }
        let body = serde_json::to_vec(&B { key }).unwrap_or_default();
        self.send(&Req::delete("/auth/readonly-api-key", Some(body)).auth(Level::L2))
            .await
            .map(drop)
    }
}
