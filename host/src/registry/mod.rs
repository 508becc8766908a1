//! The plugin registry: which loaded plugin serves which route, and the status of
//! every plugin found in the plugin directory.
//!
//! Plugins are `*.toml` manifests with their components in the plugin directory.
//! Swaps are atomic: a request holds an `Arc` of the plugin it started with, so
//! requests in flight finish on their version while new requests get the new one.
//! A plugin that fails to load never replaces a working one.

mod watch;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use serde::Serialize;

pub use watch::{manifest_files, watch, Fingerprint};

use crate::capabilities::settings::Settings;
use crate::config::Config;
use crate::manifest::{Manifest, SourceOptions};
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

/// What the admin API shows about one plugin.
#[derive(Debug, Clone, Serialize)]
pub struct PluginStatus {
    /// Manifest file name.
    pub manifest: String,
    /// Plugin name (from the serving version, else from the manifest file name).
    pub name: String,
    /// Kind of the serving version.
    pub kind: Option<String>,
    /// Route of the serving version.
    pub route: Option<String>,
    /// Version serving.
    pub version: Option<String>,
    /// SHA-256 of the serving component.
    pub sha256: Option<String>,
    /// When the serving version was loaded (RFC 3339).
    pub loaded_at: Option<String>,
    /// `active` (serving, last load fine), `degraded` (serving an older version; the newest failed) or `failed`.
    pub status: &'static str,
    /// Why the most recent load failed.
    pub last_error: Option<String>,
    /// Compile (or cache load) time of the serving version, ms.
    pub compile_ms: Option<u64>,
}

/// One manifest file's state.
#[derive(Default)]
struct Entry {
    plugin: Option<Arc<Plugin>>,
    loaded_at: Option<SystemTime>,
    fingerprint: Option<Fingerprint>,
    last_error: Option<String>,
}

/// Routes to plugins, and per-manifest status.
#[derive(Default)]
pub struct Registry {
    routes: RwLock<HashMap<String, Arc<Plugin>>>,
    entries: RwLock<BTreeMap<PathBuf, Entry>>,
    /// Serialises loads, so the watcher and the admin API never interleave swaps.
    loading: tokio::sync::Mutex<()>,
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|p| p.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|p| p.into_inner())
}

impl Registry {
    /// Loads every manifest in `config.plugin_dir`.
    pub async fn load_dir(runtime: &Runtime, config: &Config) -> anyhow::Result<Registry> {
        let registry = Registry::default();
        let manifests = watch::manifest_files(&config.plugin_dir)?;
        if manifests.is_empty() {
            tracing::warn!(dir = %config.plugin_dir.display(), "no plugin manifests found; build them with `make plugins`");
        }
        for path in manifests {
            let fingerprint = Fingerprint::of(&path);
            registry.load(runtime, config, &path, fingerprint).await;
        }
        Ok(registry)
    }

    /// Loads (or reloads) the plugin of one manifest and swaps it in; on failure the
    /// serving version, if any, stays. Returns the error, if any.
    pub async fn load(
        &self,
        runtime: &Runtime,
        config: &Config,
        path: &Path,
        fingerprint: Fingerprint,
    ) -> Option<String> {
        let _serial = self.loading.lock().await;
        let result = load_one(runtime, config, path)
            .await
            .map_err(|e| e.to_string());
        self.record(path, fingerprint, result)
    }

    /// Validates the plugin at `staged` (outside the plugin directory) without installing it.
    pub async fn validate(
        runtime: &Runtime,
        config: &Config,
        staged: &Path,
    ) -> Result<Plugin, String> {
        load_one(runtime, config, staged)
            .await
            .map_err(|e| e.to_string())
    }

    /// Installs an already validated plugin for the manifest at `path`.
    pub async fn install_validated(&self, path: &Path, plugin: Plugin) -> Option<String> {
        let _serial = self.loading.lock().await;
        self.record(path, Fingerprint::of(path), Ok(plugin))
    }

    fn record(
        &self,
        path: &Path,
        fingerprint: Fingerprint,
        result: Result<Plugin, String>,
    ) -> Option<String> {
        let result = match result {
            Ok(plugin) => self.install(path, plugin),
            Err(e) => Err(e),
        };
        let mut entries = write(&self.entries);
        let entry = entries.entry(path.to_owned()).or_default();
        entry.fingerprint = Some(fingerprint);
        match result {
            Ok(plugin) => {
                tracing::info!(
                    plugin = %plugin.manifest.name,
                    version = %plugin.manifest.version,
                    route = %plugin.manifest.route,
                    sha256 = %plugin.sha256,
                    compile_ms = plugin.compile_time.as_millis() as u64,
                    from_cache = plugin.from_cache,
                    "plugin loaded"
                );
                entry.plugin = Some(plugin);
                entry.loaded_at = Some(SystemTime::now());
                entry.last_error = None;
                None
            }
            Err(error) => {
                let serving = entry.plugin.as_ref().map(|p| p.manifest.version.clone());
                tracing::error!(manifest = %path.display(), %error, serving = ?serving, "plugin not loaded; any previous version keeps serving");
                entry.last_error = Some(error.clone());
                Some(error)
            }
        }
    }

    /// Swaps a loaded plugin in for the manifest at `path`, atomically.
    fn install(&self, path: &Path, plugin: Plugin) -> Result<Arc<Plugin>, String> {
        let plugin = Arc::new(plugin);
        let entries = read(&self.entries);
        for (other_path, other) in entries.iter() {
            if other_path == path {
                continue;
            }
            if let Some(other) = &other.plugin {
                if other.manifest.route == plugin.manifest.route
                    || other.manifest.name == plugin.manifest.name
                {
                    return Err(format!(
                        "route {} or name {} is already served by plugin {} ({}); give each plugin its own name and route",
                        plugin.manifest.route,
                        plugin.manifest.name,
                        other.manifest.name,
                        other_path.display()
                    ));
                }
            }
        }
        let previous = entries.get(path).and_then(|e| e.plugin.clone());
        let mut routes = write(&self.routes);
        if let Some(previous) = previous {
            routes.remove(&previous.manifest.route);
        }
        routes.insert(plugin.manifest.route.clone(), plugin.clone());
        Ok(plugin)
    }

    /// Removes the plugin of the manifest at `path` and its route.
    pub fn remove(&self, path: &Path) -> bool {
        let entry = write(&self.entries).remove(path);
        let Some(entry) = entry else { return false };
        if let Some(plugin) = entry.plugin {
            let mut routes = write(&self.routes);
            if routes
                .get(&plugin.manifest.route)
                .is_some_and(|p| Arc::ptr_eq(p, &plugin))
            {
                routes.remove(&plugin.manifest.route);
            }
            tracing::info!(plugin = %plugin.manifest.name, route = %plugin.manifest.route, "plugin removed");
        }
        true
    }

    /// The plugin serving `route`.
    pub fn get(&self, route: &str) -> Option<Arc<Plugin>> {
        read(&self.routes).get(route).cloned()
    }

    /// The manifest path of the plugin named `name`.
    pub fn path_of(&self, name: &str) -> Option<PathBuf> {
        read(&self.entries)
            .iter()
            .find(|(path, e)| {
                e.plugin.as_ref().is_some_and(|p| p.manifest.name == name)
                    || path.file_stem().is_some_and(|s| s == name)
            })
            .map(|(path, _)| path.clone())
    }

    /// All serving plugins, sorted by route.
    pub fn plugins(&self) -> Vec<Arc<Plugin>> {
        let mut all: Vec<_> = read(&self.routes).values().cloned().collect();
        all.sort_by(|a, b| a.manifest.route.cmp(&b.manifest.route));
        all
    }

    /// Known manifest paths and the fingerprints they were last loaded with.
    pub fn fingerprints(&self) -> BTreeMap<PathBuf, Option<Fingerprint>> {
        read(&self.entries)
            .iter()
            .map(|(p, e)| (p.clone(), e.fingerprint.clone()))
            .collect()
    }

    /// The status of every manifest seen.
    pub fn statuses(&self) -> Vec<PluginStatus> {
        read(&self.entries)
            .iter()
            .map(|(path, e)| {
                let p = e.plugin.as_ref();
                let status = match (p, &e.last_error) {
                    (Some(_), None) => "active",
                    (Some(_), Some(_)) => "degraded",
                    (None, _) => "failed",
                };
                PluginStatus {
                    manifest: path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    name: p.map(|p| p.manifest.name.clone()).unwrap_or_else(|| {
                        path.file_stem()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned()
                    }),
                    kind: p.map(|p| p.manifest.kind.world().to_owned()),
                    route: p.map(|p| p.manifest.route.clone()),
                    version: p.map(|p| p.manifest.version.clone()),
                    sha256: p.map(|p| p.sha256.clone()),
                    loaded_at: e.loaded_at.map(rfc3339),
                    status,
                    last_error: e.last_error.clone(),
                    compile_ms: p.map(|p| p.compile_time.as_millis() as u64),
                }
            })
            .collect()
    }

    /// Manifests whose latest load failed, with the error.
    pub fn failures(&self) -> Vec<(PathBuf, String)> {
        read(&self.entries)
            .iter()
            .filter_map(|(p, e)| e.last_error.clone().map(|err| (p.clone(), err)))
            .collect()
    }
}

fn rfc3339(t: SystemTime) -> String {
    time::OffsetDateTime::from(t)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

async fn load_one(runtime: &Runtime, config: &Config, path: &Path) -> Result<Plugin, LoadError> {
    let manifest = Manifest::load(path)?;
    let values = config.plugin_settings(&manifest.name, &manifest.config_keys(), |n| {
        std::env::var(n).ok()
    });
    let settings = Settings::new(values, &manifest.config_keys());
    runtime.load(path, manifest, settings).await
}
