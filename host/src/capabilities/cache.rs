//! The per-plugin cache: small values with a TTL that outlive one request
//! (OAuth tokens, API keys scraped from pages). Each plugin sees only its own keys.

use crate::capabilities::{view_link, CallContext};
use crate::runtime::bindings::sdk::gleaner::plugin::cache;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
}

impl CacheStore {
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
        let value = self.store.get(&self.call.grant.name, &key);
        self.call.charge(value.as_ref().map_or(0, String::len))?;
        Ok(value)
    }

    async fn set(&mut self, key: String, value: String, ttl_seconds: u32) -> wasmtime::Result<()> {
        self.call.charge(key.len() + value.len())?;
        let ttl = Duration::from_secs(ttl_seconds.into());
        self.store.set(&self.call.grant.name, &key, value, ttl);
        Ok(())
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        self.store.delete(&self.call.grant.name, &key);
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
