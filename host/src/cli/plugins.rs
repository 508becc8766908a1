//! Finding and loading one review source for command-line work, by its label
//! (the first segment of its route, e.g. `customer-feedback-hub`) in the
//! plugin directory.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::config::Config;
use crate::manifest::{Kind, Manifest};
use crate::secrets::Secrets;

/// A source loaded for one-off work: a review source, or the forum post.
pub(super) struct Source {
    /// Its runtime (with the replay or recorder it was given).
    pub runtime: crate::runtime::Runtime,
    /// The plugin.
    pub plugin: crate::runtime::LoadedPlugin,
}

impl Source {
    /// Its request options, for a review source; none for the forum post.
    pub fn options(&self) -> Option<&crate::manifest::SourceOptions> {
        self.plugin.manifest.source.as_ref()
    }
}

/// The label of a route: its first segment.
fn label_of(route: &str) -> &str {
    route
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
}

/// The manifest of the source labelled `label`; an error naming the sources
/// there are (and saying so when `label` is a processor).
pub(super) fn find(config: &Config, label: &str) -> anyhow::Result<(PathBuf, Manifest)> {
    let files = crate::registry::manifest_files(&config.plugin_dir).with_context(|| {
        format!(
            "cannot read the plugin directory {}; {}",
            config.plugin_dir.display(),
            config.plugin_dir_hint()
        )
    })?;
    let mut sources = Vec::new();
    let mut processor = None;
    for file in files {
        let Ok(manifest) = Manifest::load(&file) else {
            continue;
        };
        let is_source = manifest.kind != Kind::Processor;
        if is_source && label_of(&manifest.route) == label {
            return Ok((file, manifest));
        }
        if is_source {
            sources.push(format!(
                "{} (POST {})",
                label_of(&manifest.route),
                manifest.route
            ));
        } else if manifest.name == label || label_of(&manifest.route) == label {
            processor = Some(manifest);
        }
    }
    sources.sort();
    let listed = if sources.is_empty() {
        format!(
            "there is none in {}; {}",
            config.plugin_dir.display(),
            config.plugin_dir_hint()
        )
    } else {
        sources.join(", ")
    };
    match processor {
        Some(p) => anyhow::bail!(
            "{} is a processor (POST {}): send it a request through the server (`gleaner`, then \
             POST to its route); `gleaner fetch` runs review sources: {listed}",
            p.name,
            p.route
        ),
        None => anyhow::bail!("no review source labelled {label:?}; the sources: {listed}"),
    }
}

/// Loads the source labelled `label` with its settings (from the
/// configuration, with `config`'s plugin settings as given).
pub(super) async fn load(
    config: &Config,
    secrets: &Arc<Secrets>,
    label: &str,
    replay: Option<HarReplay>,
    recorder: Option<HarRecorder>,
) -> anyhow::Result<Source> {
    let (path, manifest) = find(config, label)?;
    let runtime = super::runtime(config, secrets.clone(), replay, recorder)?;
    let settings = config.settings_of(&manifest, secrets);
    let plugin = runtime.load(&path, manifest, settings).await?;
    Ok(Source { runtime, plugin })
}

/// `config` with the settings `extra` gives plugin `name`, where the
/// configuration sets none of its own (a fixture's test credentials never
/// replace an operator's).
pub fn with_settings(
    config: &Config,
    name: &str,
    extra: &std::collections::BTreeMap<String, String>,
) -> Config {
    let mut config = config.clone();
    let env = |key: &str| std::env::var(crate::config::plugin_setting_variable(name, key)).is_ok();
    let settings = config.plugins.entry(name.to_owned()).or_default();
    for (key, value) in extra {
        if !settings.contains_key(key) && !env(key) {
            settings.insert(key.clone(), value.clone());
        }
    }
    config
}
