//! ApiKeyAuth: the key comes in `x-api-key` or `Authorization: Bearer`. Keys are
//! compared in constant time (over their SHA-256 digests, so length leaks nothing)
//! and never logged.

use axum::http::HeaderMap;
use sha2::{Digest, Sha256};
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// The accepted keys, kept only as digests, and the owner id each stands for.
#[derive(Clone, Default)]
pub struct ApiKeys {
    digests: Vec<[u8; 32]>,
    owners: Vec<String>,
}

impl ApiKeys {
    /// Accepts these keys; each owns what it creates under a digest of it.
    pub fn new(keys: &[String]) -> ApiKeys {
        ApiKeys::with_owners(keys, |key| {
            hex::encode(&Sha256::digest(key.as_bytes())[..12])
        })
    }

    /// Accepts these keys; `owner` names the owner id of each. In cluster
    /// mode it is an HMAC under the cluster's key, so that what the buckets
    /// hold names no key anyone could guess and hash.
    pub fn with_owners(keys: &[String], owner: impl Fn(&str) -> String) -> ApiKeys {
        let keys: Vec<&String> = keys.iter().filter(|k| !k.is_empty()).collect();
        ApiKeys {
            digests: keys
                .iter()
                .map(|k| Sha256::digest(k.as_bytes()).into())
                .collect(),
            owners: keys.iter().map(|k| owner(k)).collect(),
        }
    }

    /// Whether no key is configured (then the server listens only on loopback).
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    /// Whether the request carries a valid key. Always true when none is configured.
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        self.which(headers).is_ok()
    }

    /// Which key the request carries: `Ok(Some(index))` among the configured
    /// keys, `Ok(None)` when none is configured, `Err(())` when it carries none
    /// of them. Every key is compared, whichever matches.
    #[allow(clippy::result_unit_err)]
    pub fn which(&self, headers: &HeaderMap) -> Result<Option<usize>, ()> {
        if self.is_empty() {
            return Ok(None);
        }
        let key = presented_key(headers).ok_or(())?;
        let digest: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let mut found = subtle::Choice::from(0);
        let mut index = 0u64;
        for (i, known) in self.digests.iter().enumerate() {
            let hit = known.ct_eq(&digest);
            index.conditional_assign(&(i as u64), hit);
            found |= hit;
        }
        if bool::from(found) {
            Ok(Some(index as usize))
        } else {
            Err(())
        }
    }
}

impl ApiKeys {
    /// Who the request is, for what it owns (jobs, schedules): a digest of
    /// the key it carries (never the key), or `anonymous` when no key is
    /// configured; `Err(())` when it carries none of the keys.
    #[allow(clippy::result_unit_err)]
    pub fn owner(&self, headers: &HeaderMap) -> Result<String, ()> {
        match self.which(headers)? {
            Some(index) => Ok(self.owners[index].clone()),
            None => Ok("anonymous".to_owned()),
        }
    }
}

fn presented_key(headers: &HeaderMap) -> Option<String> {
    if let Some(v) = headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
        return Some(v.trim().to_owned());
    }
    let auth = headers.get("authorization")?.to_str().ok()?;
    let (scheme, token) = auth.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: &'static str, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, value.parse().unwrap());
        h
    }

    #[test]
    fn accepts_header_or_bearer_and_refuses_others() {
        let keys = ApiKeys::new(&["secret-1".into(), "secret-2".into()]);
        assert!(keys.allows(&headers("x-api-key", "secret-2")));
        assert!(keys.allows(&headers("authorization", "Bearer secret-1")));
        assert!(!keys.allows(&headers("authorization", "Basic secret-1")));
        assert!(!keys.allows(&headers("x-api-key", "secret")));
        assert!(!keys.allows(&HeaderMap::new()));
        assert!(ApiKeys::new(&[]).allows(&HeaderMap::new()));
        assert_eq!(keys.which(&headers("x-api-key", "secret-2")), Ok(Some(1)));
        assert_eq!(keys.which(&headers("x-api-key", "secret-1")), Ok(Some(0)));
        assert_eq!(ApiKeys::new(&[]).which(&HeaderMap::new()), Ok(None));
    }
}
