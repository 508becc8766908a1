//! The operator's plugin settings checked against the plugins' manifests at
//! start: a `[plugins.<name>]` key or a `GLEANER_PLUGIN_<NAME>_<KEY>` variable
//! that the plugin does not declare is refused, naming the keys it accepts, so
//! a misspelt secret never goes unnoticed. Settings naming no plugin in the
//! directory are only warned about: that plugin may arrive later by hot swap.

use super::{env_part, plugin_setting_variable, Config};

/// Keys every plugin accepts in its `[plugins.<name>]` table, beside those its
/// manifest declares.
const SERVER_KEYS: [&str; 1] = ["proxies"];

/// A setting the plugin it names does not declare.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnknownSetting {
    /// A key of a `[plugins.<name>]` table.
    #[error(
        "[plugins.{plugin}] {key}: plugin {plugin} has no setting {key:?}; it accepts {accepted}. \
         Correct the key's name, or remove it"
    )]
    Key {
        /// The plugin.
        plugin: String,
        /// The key.
        key: String,
        /// The keys it accepts.
        accepted: String,
    },
    /// A `GLEANER_PLUGIN_<NAME>_<KEY>` variable.
    #[error(
        "{variable}: plugin {plugin} has no setting of that name; it accepts {accepted}. \
         Correct the variable's name, or unset it"
    )]
    Variable {
        /// The variable.
        variable: String,
        /// The plugin its name starts with.
        plugin: String,
        /// The variables it accepts.
        accepted: String,
    },
}

/// One plugin's name and declared setting keys.
pub struct Declared {
    /// The plugin's name.
    pub name: String,
    /// The keys its manifest declares.
    pub keys: Vec<String>,
}

/// Checks the configuration's plugin tables and the `GLEANER_PLUGIN_*`
/// variables of `vars` against the plugins of `declared`. Returns the
/// settings that name no plugin there (to be warned about), or the first
/// setting a plugin does not declare.
pub fn check(
    config: &Config,
    declared: &[Declared],
    vars: impl IntoIterator<Item = String>,
) -> Result<Vec<String>, UnknownSetting> {
    let mut unclaimed = Vec::new();
    for (plugin, table) in &config.plugins {
        let Some(d) = declared.iter().find(|d| &d.name == plugin) else {
            unclaimed.push(format!("[plugins.{plugin}]"));
            continue;
        };
        for key in table.keys() {
            let known = d.keys.contains(key) || SERVER_KEYS.contains(&key.as_str());
            if !known {
                let mut accepted: Vec<String> = d.keys.clone();
                accepted.extend(SERVER_KEYS.iter().map(|k| k.to_string()));
                return Err(UnknownSetting::Key {
                    plugin: plugin.clone(),
                    key: key.clone(),
                    accepted: listed(&accepted),
                });
            }
        }
    }
    for variable in vars {
        let Some(rest) = variable.strip_prefix("GLEANER_PLUGIN_") else {
            continue;
        };
        if rest == "DIR" {
            continue;
        }
        let exact = declared.iter().any(|d| {
            d.keys
                .iter()
                .any(|k| plugin_setting_variable(&d.name, k) == variable)
        });
        if exact {
            continue;
        }
        // The plugin whose name the variable starts with; the longest, as one
        // name may begin another's (`forum` and `forum-site`).
        let owner = declared
            .iter()
            .filter(|d| rest.starts_with(&format!("{}_", env_part(&d.name))))
            .max_by_key(|d| d.name.len());
        match owner {
            Some(d) => {
                let accepted: Vec<String> = d
                    .keys
                    .iter()
                    .map(|k| plugin_setting_variable(&d.name, k))
                    .collect();
                return Err(UnknownSetting::Variable {
                    variable,
                    plugin: d.name.clone(),
                    accepted: listed(&accepted),
                });
            }
            None => unclaimed.push(variable),
        }
    }
    Ok(unclaimed)
}

/// `a`, `b` and `c`; "none (its manifest declares no [[config]] key)" when empty.
fn listed(items: &[String]) -> String {
    match items {
        [] => "none (its manifest declares no [[config]] key)".to_owned(),
        [one] => format!("`{one}`"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(|s| format!("`{s}`")).collect();
            format!("{} and `{last}`", rest.join(", "))
        }
    }
}

impl Config {
    /// The settings the configuration (file and `GLEANER_PLUGIN_<NAME>_<KEY>`
    /// variables) gives the plugin of `manifest`; its secret values are
    /// registered with the server's `secrets`.
    pub fn settings_of(
        &self,
        manifest: &crate::manifest::Manifest,
        secrets: &crate::secrets::Secrets,
    ) -> crate::capabilities::settings::Settings {
        let keys = manifest.config_keys();
        let values = self.plugin_settings(&manifest.name, &keys, |n| std::env::var(n).ok());
        let settings = crate::capabilities::settings::Settings::new(values, &keys);
        let secret = manifest
            .config
            .iter()
            .filter(|k| k.secret)
            .filter_map(|k| settings.get(&k.name))
            .collect::<Vec<_>>();
        secrets.register(
            crate::secrets::Kind::PluginSetting,
            secret.iter().map(String::as_str),
        );
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared() -> Vec<Declared> {
        vec![
            Declared {
                name: "forum".into(),
                keys: vec![],
            },
            Declared {
                name: "forum-site".into(),
                keys: vec!["client_id".into(), "client_secret".into()],
            },
        ]
    }

    fn config(toml: &str) -> Config {
        toml::from_str(toml).unwrap()
    }

    #[test]
    fn declared_keys_and_the_server_keys_pass() {
        let c = config("[plugins.forum-site]\nclient_id = \"x\"\nproxies = [\"http://p:1\"]\n");
        let vars = ["GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRET".to_owned()];
        assert_eq!(check(&c, &declared(), vars), Ok(vec![]));
    }

    #[test]
    fn an_undeclared_key_is_refused_with_the_accepted_keys() {
        let c = config("[plugins.forum-site]\nclient_ld = \"x\"\n");
        let e = check(&c, &declared(), []).unwrap_err().to_string();
        assert_eq!(
            e,
            "[plugins.forum-site] client_ld: plugin forum-site has no setting \"client_ld\"; it accepts \
             `client_id`, `client_secret` and `proxies`. Correct the key's name, or remove it"
        );
    }

    #[test]
    fn an_undeclared_variable_is_refused_naming_the_longest_matching_plugin() {
        let vars = ["GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRT".to_owned()];
        let e = check(&Config::default(), &declared(), vars).unwrap_err();
        assert_eq!(
            e,
            UnknownSetting::Variable {
                variable: "GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRT".into(),
                plugin: "forum-site".into(),
                accepted: "`GLEANER_PLUGIN_FORUM_SITE_CLIENT_ID` and \
                           `GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRET`"
                    .into(),
            }
        );
        let vars = ["GLEANER_PLUGIN_FORUM_TOKEN".to_owned()];
        let e = check(&Config::default(), &declared(), vars).unwrap_err();
        assert!(e.to_string().contains("it accepts none"), "{e}");
    }

    #[test]
    fn settings_of_absent_plugins_are_only_reported() {
        let c = config("[plugins.later]\nkey = \"x\"\n");
        let vars = [
            "GLEANER_PLUGIN_DIR".to_owned(),
            "GLEANER_PLUGIN_LATER_KEY".to_owned(),
            "PATH".to_owned(),
        ];
        assert_eq!(
            check(&c, &declared(), vars),
            Ok(vec![
                "[plugins.later]".to_owned(),
                "GLEANER_PLUGIN_LATER_KEY".to_owned()
            ])
        );
    }
}
