//! The per-plugin cache: small values with a TTL that outlive one request
//! (OAuth tokens, API keys scraped from pages). Each plugin sees only its own keys.
//! In a cluster the values live in a shared bucket ([`SharedCache`]), so a key
//! one replica scraped serves all; each replica keeps its own copy too, and
//! serves from it alone while the cluster is away.

use crate::bindings::sdk::gleaner::plugin::cache;
use crate::capabilities::{view_link, CallContext};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;

/// A cache kept outside this process and shared with others.
#[async_trait]
pub trait SharedCache: Send + Sync {
    /// Whether it can be reached now.
    fn available(&self) -> bool;
    /// The live value of `plugin`'s `key`.
    async fn get(&self, plugin: &str, key: &str) -> Result<Option<String>, String>;
    /// Stores `plugin`'s `key` for `ttl`.
    async fn set(&self, plugin: &str, key: &str, value: &str, ttl: Duration) -> Result<(), String>;
    /// Removes `plugin`'s `key`.
    async fn delete(&self, plugin: &str, key: &str) -> Result<(), String>;
}

/// Entries kept per plugin before the oldest-expiring are evicted.
const MAX_ENTRIES_PER_PLUGIN: usize = 1024;
/// Largest value stored.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// One plugin's entries: key → (value, expiry).
type Space = HashMap<String, (String, Instant)>;

/// Server-wide cache storage, partitioned by plugin name.
#[derive(Default)]
pub struct CacheStore {
    entries: Mutex<HashMap<String, Space>>,
    shared: OnceLock<Arc<dyn SharedCache>>,
}

impl CacheStore {
    /// Keeps values in `shared` too from now on (a cluster replica's).
    pub fn share(&self, shared: Arc<dyn SharedCache>) {
        let _ = self.shared.set(shared);
    }

    fn reachable(&self) -> Option<&Arc<dyn SharedCache>> {
        self.shared.get().filter(|s| s.available())
    }

    /// The live value of `key` for `plugin`: the cluster's, else this process's.
    pub async fn lookup(&self, plugin: &str, key: &str) -> Option<String> {
        if let Some(shared) = self.reachable() {
            match shared.get(plugin, key).await {
                Ok(value) => return value,
                Err(e) => {
                    tracing::warn!(plugin, error = %e, "the cluster's cache failed; using this replica's")
                }
            }
        }
        self.get(plugin, key)
    }

    /// Stores `value` here and in the cluster; false when it is too large.
    pub async fn store(&self, plugin: &str, key: &str, value: String, ttl: Duration) -> bool {
        if let Some(shared) = self.reachable() {
            if value.len() <= MAX_VALUE_BYTES {
                if let Err(e) = shared.set(plugin, key, &value, ttl).await {
                    tracing::warn!(plugin, error = %e, "cannot share a cached value; kept on this replica");
                }
            }
        }
        self.set(plugin, key, value, ttl)
    }

    /// Removes `key` here and in the cluster.
    pub async fn remove(&self, plugin: &str, key: &str) {
        if let Some(shared) = self.reachable() {
            if let Err(e) = shared.delete(plugin, key).await {
                tracing::warn!(plugin, error = %e, "cannot remove a cached value from the cluster");
            }
        }
        self.delete(plugin, key)
    }

    /// The live value of `key` for `plugin`.
    pub fn get(&self, plugin: &str, key: &str) -> Option<String> {
        let mut all = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let space = all.get_mut(plugin)?;
        match space.get(key) {
            Some((value, expires)) if *expires > Instant::now() => Some(value.clone()),
            Some(_) => {
                space.remove(key);
                None
            }
            None => None,
        }
    }

    /// Stores `value` for `ttl`; values over [`MAX_VALUE_BYTES`] are refused.
    pub fn set(&self, plugin: &str, key: &str, value: String, ttl: Duration) -> bool {
        if value.len() > MAX_VALUE_BYTES {
            return false;
        }
        let now = Instant::now();
        let mut all = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let space = all.entry(plugin.to_owned()).or_default();
        space.retain(|_, (_, expires)| *expires > now);
        if space.len() >= MAX_ENTRIES_PER_PLUGIN {
            if let Some(oldest) = space
                .iter()
                .min_by_key(|(_, (_, e))| *e)
                .map(|(k, _)| k.clone())
            {
                space.remove(&oldest);
            }
        }
        space.insert(key.to_owned(), (value, now + ttl));
        true
    }

    /// Removes `key`.
    pub fn delete(&self, plugin: &str, key: &str) {
        let mut all = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(space) = all.get_mut(plugin) {
            space.remove(key);
        }
    }
}

/// What the cache import sees of a call.
pub struct CacheView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
    /// The server-wide store.
    pub store: &'a CacheStore,
}

view_link!(CacheLink, CacheView, cache);

impl cache::Host for CacheView<'_> {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        let value = self.store.lookup(&self.call.grant.name, &key).await;
        self.call.charge(value.as_ref().map_or(0, String::len))?;
        Ok(value)
    }

    async fn set(&mut self, key: String, value: String, ttl_seconds: u32) -> wasmtime::Result<()> {
        self.call.charge(key.len() + value.len())?;
        let ttl = Duration::from_secs(ttl_seconds.into());
        self.store
            .store(&self.call.grant.name, &key, value, ttl)
            .await;
        Ok(())
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        self.store.remove(&self.call.grant.name, &key).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_expire_and_are_per_plugin() {
        let c = CacheStore::default();
        assert!(c.set("a", "k", "v".into(), Duration::from_secs(60)));
        assert_eq!(c.get("a", "k").as_deref(), Some("v"));
        assert_eq!(c.get("b", "k"), None);
        c.set("a", "gone", "v".into(), Duration::ZERO);
        assert_eq!(c.get("a", "gone"), None);
        c.delete("a", "k");
        assert_eq!(c.get("a", "k"), None);
        assert!(!c.set(
            "a",
            "big",
            "x".repeat(MAX_VALUE_BYTES + 1),
            Duration::from_secs(1)
        ));
    }
}
