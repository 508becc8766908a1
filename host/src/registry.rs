//! The plugin registry: which loaded plugin serves which route.
//!
//! Plugins are found as `*.toml` manifests in the plugin directory. A plugin that
//! fails to load is logged and left out; the others still serve.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::capabilities::settings::Settings;
use crate::config::Config;
use crate::manifest::SourceOptions;
use crate::runtime::{LoadError, LoadedPlugin, Runtime};

/// A loaded plugin as the API and driver see it.
pub type Plugin = LoadedPlugin;

impl LoadedPlugin {
    /// The source label: the route's first path segment.
    pub fn label(&self) -> String {
        self.manifest
            .route
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    /// Review-source options, for sources.
    pub fn source_options(&self) -> Option<&SourceOptions> {
        self.manifest.source.as_ref()
    }
}

/// A plugin that could not be loaded.
#[derive(Debug, Clone)]
pub struct LoadFailure {
    /// The manifest file.
    pub manifest: PathBuf,
    /// Why.
    pub error: String,
}

/// Routes to plugins.
#[derive(Default)]
pub struct Registry {
    routes: RwLock<HashMap<String, Arc<Plugin>>>,
    failures: RwLock<Vec<LoadFailure>>,
}

impl Registry {
    /// Loads every manifest in `config.plugin_dir`.
    pub async fn load_dir(runtime: &Runtime, config: &Config) -> anyhow::Result<Registry> {
        let registry = Registry::default();
        let manifests = manifest_files(&config.plugin_dir)?;
        if manifests.is_empty() {
            tracing::warn!(dir = %config.plugin_dir.display(), "no plugin manifests found; build them with `make plugins`");
        }
        for path in manifests {
            match load_one(runtime, config, &path).await {
                Ok(plugin) => {
                    if let Err(e) = registry.insert(plugin) {
                        registry.fail(&path, e);
                    }
                }
                Err(e) => registry.fail(&path, e.to_string()),
            }
        }
        Ok(registry)
    }

    fn fail(&self, path: &Path, error: String) {
        tracing::error!(manifest = %path.display(), %error, "plugin not loaded");
        let mut failures = self.failures.write().unwrap_or_else(|p| p.into_inner());
        failures.push(LoadFailure {
            manifest: path.to_owned(),
            error,
        });
    }

    /// Adds a plugin; its route must be free.
    pub fn insert(&self, plugin: Plugin) -> Result<(), String> {
        let mut routes = self.routes.write().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = routes.get(&plugin.manifest.route) {
            return Err(format!(
                "route {} is already served by plugin {}; give each plugin its own route",
                plugin.manifest.route, existing.manifest.name
            ));
        }
        tracing::info!(
            plugin = %plugin.manifest.name,
            version = %plugin.manifest.version,
            route = %plugin.manifest.route,
            compile_ms = plugin.compile_time.as_millis() as u64,
            from_cache = plugin.from_cache,
            "plugin loaded"
        );
        routes.insert(plugin.manifest.route.clone(), Arc::new(plugin));
        Ok(())
    }

    /// The plugin serving `route`.
    pub fn get(&self, route: &str) -> Option<Arc<Plugin>> {
        let routes = self.routes.read().unwrap_or_else(|p| p.into_inner());
        routes.get(route).cloned()
    }

    /// All loaded plugins, sorted by route.
    pub fn plugins(&self) -> Vec<Arc<Plugin>> {
        let routes = self.routes.read().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<_> = routes.values().cloned().collect();
        all.sort_by(|a, b| a.manifest.route.cmp(&b.manifest.route));
        all
    }

    /// Plugins that failed to load.
    pub fn failures(&self) -> Vec<LoadFailure> {
        self.failures
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

async fn load_one(runtime: &Runtime, config: &Config, path: &Path) -> Result<Plugin, LoadError> {
    let manifest = crate::manifest::Manifest::load(path)?;
    let values = config.plugin_settings(&manifest.name, &manifest.config_keys(), |n| {
        std::env::var(n).ok()
    });
    let settings = Settings::new(values, &manifest.config_keys());
    runtime.load(path, manifest, settings).await
}

fn manifest_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read plugin directory {}: {e}", dir.display()),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}
