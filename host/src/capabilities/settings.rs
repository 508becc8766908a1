//! Per-plugin configuration: operator-provided settings and secrets, limited to
//! the keys the manifest declares. Secret values never appear in Debug output,
//! and the values of keys the manifest marks `secret` join the secrets the
//! host scrubs from everything that leaves it.

use crate::bindings::sdk::gleaner::plugin::config;
use crate::capabilities::{view_link, CallContext};

use std::collections::BTreeMap;

/// The settings one plugin may read.
#[derive(Clone, Default)]
pub struct Settings {
    values: BTreeMap<String, String>,
}

impl Settings {
    /// Keeps only the declared keys of `values`.
    pub fn new(values: BTreeMap<String, String>, declared: &[String]) -> Settings {
        let values = values
            .into_iter()
            .filter(|(k, _)| declared.iter().any(|d| d == k))
            .collect();
        Settings { values }
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<String> {
        self.values.get(key).cloned()
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.values.keys()).finish()
    }
}

/// What the config import sees of a call.
pub struct SettingsView<'a> {
    /// The call.
    pub call: &'a CallContext,
}

view_link!(SettingsLink, SettingsView, config);

impl config::Host for SettingsView<'_> {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        Ok(self.call.grant.settings.get(&key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_keys_are_hidden_and_values_not_printed() {
        let values = BTreeMap::from([
            ("client_secret".to_owned(), "hunter2".to_owned()),
            ("other".to_owned(), "x".to_owned()),
        ]);
        let s = Settings::new(values, &["client_secret".to_owned()]);
        assert_eq!(s.get("client_secret").as_deref(), Some("hunter2"));
        assert_eq!(s.get("other"), None);
        assert!(!format!("{s:?}").contains("hunter2"));
    }
}
