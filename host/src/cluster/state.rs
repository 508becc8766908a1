//! The plugin cache and fetch sessions in the cluster's buckets, sealed
//! ([`gleaner_seal`]): cached tokens and session cookies are secrets.
//!
//! - The cache: `<plugin>.<key digest>` → the value and its expiry. NATS 2.9
//!   has no per-message time to live, so each entry carries its own and a
//!   read past it finds nothing; the bucket's age limit removes it later.
//! - Sessions: `<session id>` → the session's profile, proxy and cookies,
//!   put after each fetch; the bucket keeps an entry for the session time
//!   to live after its last put.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::records;
use crate::capabilities::cache::SharedCache;
use crate::capabilities::http::session::{SessionState, SharedSessions};
use gleaner_jobs::clock::now_ms;
use gleaner_seal::Seal;

/// A cached value and when it expires (wall-clock ms).
#[derive(Serialize, Deserialize)]
struct Cached {
    value: String,
    expires_ms: i64,
}

/// The cache bucket, as every replica's shared cache.
pub struct CacheBucket {
    client: async_nats::Client,
    bucket: kv::Store,
    seal: Arc<Seal>,
}

impl CacheBucket {
    /// The cache in `bucket`, sealed with `seal`.
    pub fn new(client: async_nats::Client, bucket: kv::Store, seal: Arc<Seal>) -> Arc<CacheBucket> {
        Arc::new(CacheBucket {
            client,
            bucket,
            seal,
        })
    }

    fn key(plugin: &str, key: &str) -> String {
        let digest = hex::encode(&sha2::Sha256::digest(key.as_bytes())[..16]);
        format!("{}.{digest}", super::records::safe_key(plugin))
    }
}

#[async_trait]
impl SharedCache for CacheBucket {
    fn available(&self) -> bool {
        super::is_connected(&self.client)
    }

    async fn get(&self, plugin: &str, key: &str) -> Result<Option<String>, String> {
        let cached = records::Records::sealed(&self.bucket, &self.seal)
            .get::<Cached>(&Self::key(plugin, key))
            .await
            .map_err(|e| e.to_string())?;
        Ok(cached
            .map(|(c, _)| c)
            .filter(|c| c.expires_ms > now_ms())
            .map(|c| c.value))
    }

    async fn set(&self, plugin: &str, key: &str, value: &str, ttl: Duration) -> Result<(), String> {
        let cached = Cached {
            value: value.to_owned(),
            expires_ms: now_ms() + ttl.as_millis() as i64,
        };
        records::Records::sealed(&self.bucket, &self.seal)
            .put(&Self::key(plugin, key), &cached)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }

    async fn delete(&self, plugin: &str, key: &str) -> Result<(), String> {
        records::delete(&self.bucket, &Self::key(plugin, key))
            .await
            .map_err(|e| e.to_string())
    }
}

/// The sessions bucket, as every replica's shared sessions.
pub struct SessionBucket {
    client: async_nats::Client,
    bucket: kv::Store,
    seal: Arc<Seal>,
}

impl SessionBucket {
    /// Sessions in `bucket`, sealed with `seal`.
    pub fn new(
        client: async_nats::Client,
        bucket: kv::Store,
        seal: Arc<Seal>,
    ) -> Arc<SessionBucket> {
        Arc::new(SessionBucket {
            client,
            bucket,
            seal,
        })
    }
}

#[async_trait]
impl SharedSessions for SessionBucket {
    fn available(&self) -> bool {
        super::is_connected(&self.client)
    }

    async fn load(&self, id: &str) -> Result<Option<SessionState>, String> {
        let key = super::records::safe_key(id);
        records::Records::sealed(&self.bucket, &self.seal)
            .get(&key)
            .await
            .map(|found| found.map(|(state, _)| state))
            .map_err(|e| e.to_string())
    }

    async fn save(&self, state: &SessionState) -> Result<(), String> {
        let key = super::records::safe_key(&state.id);
        records::Records::sealed(&self.bucket, &self.seal)
            .put(&key, state)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }
}
