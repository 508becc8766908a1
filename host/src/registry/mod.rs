//! The plugin registry: which loaded plugin serves which route, and the status of
//! every plugin found in the plugin directory.
//!
//! Plugins are `*.toml` manifests with their components in the plugin directory.
//! Swaps are atomic: a request holds an `Arc` of the plugin it started with, so
//! requests in flight finish on their version while new requests get the new one.
//! A plugin that fails to load never replaces a working one.
//!
//! Every load is begun ([`Registry::begin`]) before it runs and recorded when it
//! ends; until then the manifest's plugin is *loading*: its route answers 503
//! and `/healthz` lists it. Only the latest load begun for a manifest may record
//! its result, so a slow start-up compile never overwrites a newer hot swap.

pub mod directory;
mod startup;
pub mod upload;
mod watch;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use serde::Serialize;

pub use startup::start;
pub use watch::{manifest_files, watch, Fingerprint};

use crate::config::Config;
use crate::manifest::{ErrorShape, Kind, Manifest, SourceOptions};
use crate::runtime::{Artifacts, CodeSource, LoadError, LoadedPlugin, Runtime};
use crate::telemetry::metrics;

/// What the API and the driver ask of a loaded plugin.
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
    /// `active` (serving, last load fine), `degraded` (serving an older version; the newest failed),
    /// `loading` (nothing serving yet; its first load is under way) or `failed`.
    pub status: &'static str,
    /// Why the most recent load failed.
    pub last_error: Option<String>,
    /// Compile (or artifact or cache load) time of the serving version, ms.
    pub compile_ms: Option<u64>,
    /// Where the serving version's compiled code came from: `artifact`, `cache` or `compiled`.
    pub code: Option<CodeSource>,
    /// Why an artifact beside the serving version's component was not used.
    pub artifact_note: Option<String>,
}

/// What `/healthz` shows: how many plugins serve, and which are loading or failed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Health {
    /// Plugins serving.
    pub ready: usize,
    /// Plugins whose first load is under way (their routes answer 503), by name.
    pub loading: Vec<String>,
    /// Plugins whose latest load failed, by name.
    pub failed: Vec<String>,
}

/// A plugin whose first load is under way, as its route's callers see it.
#[derive(Debug, Clone)]
pub struct Loading {
    /// The plugin's name (the manifest file's stem when the manifest is unreadable).
    pub name: String,
    /// Its route, when the manifest was readable.
    pub route: Option<String>,
    /// Its kind, when the manifest was readable.
    pub kind: Option<Kind>,
    /// The shape of its route's errors, when the manifest was readable.
    pub error_shape: Option<ErrorShape>,
}

impl Loading {
    fn of(path: &Path, manifest: Option<&Manifest>) -> Loading {
        match manifest {
            Some(m) => Loading {
                name: m.name.clone(),
                route: Some(m.route.clone()),
                kind: Some(m.kind),
                error_shape: Some(m.error_shape()),
            },
            None => Loading {
                name: stem(path),
                route: None,
                kind: None,
                error_shape: None,
            },
        }
    }
}

/// One manifest file's state.
#[derive(Default)]
struct Entry {
    plugin: Option<Arc<LoadedPlugin>>,
    loaded_at: Option<SystemTime>,
    fingerprint: Option<Fingerprint>,
    last_error: Option<String>,
    /// The load under way, if any.
    loading: Option<Loading>,
    /// Loads begun so far; only the latest may record its result.
    generation: u64,
}

/// A load begun for one manifest: only the latest ticket of a manifest records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    path: PathBuf,
    generation: u64,
}

/// Routes to plugins, and per-manifest status.
pub struct Registry {
    routes: RwLock<HashMap<String, Arc<LoadedPlugin>>>,
    entries: RwLock<BTreeMap<PathBuf, Entry>>,
    /// Serialises hot swaps, so the watcher and the admin API never interleave them.
    loading: tokio::sync::Mutex<()>,
    /// Ticks whenever a load begins or ends.
    changed: tokio::sync::watch::Sender<()>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            routes: RwLock::default(),
            entries: RwLock::default(),
            loading: tokio::sync::Mutex::default(),
            changed: tokio::sync::watch::Sender::new(()),
        }
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|p| p.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|p| p.into_inner())
}

impl Registry {
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
        let manifest = read_manifest(path);
        let ticket = self.begin(path, fingerprint, manifest.as_ref().ok());
        let result = match manifest {
            Ok(manifest) => load_one(runtime, config, path, manifest, Artifacts::Use)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        self.finish(&ticket, result)
    }

    /// Validates the plugin at `staged` (outside the plugin directory) without
    /// installing it. Only its component counts: no artifact is ever used.
    pub async fn validate(
        runtime: &Runtime,
        config: &Config,
        staged: &Path,
    ) -> Result<LoadedPlugin, String> {
        let manifest = read_manifest(staged).map_err(|e| e.to_string())?;
        load_one(runtime, config, staged, manifest, Artifacts::Ignore)
            .await
            .map_err(|e| e.to_string())
    }

    /// Installs an already validated plugin for the manifest at `path`.
    pub async fn install_validated(&self, path: &Path, plugin: LoadedPlugin) -> Option<String> {
        let _serial = self.loading.lock().await;
        let ticket = self.begin(path, Fingerprint::of(path), Some(&plugin.manifest));
        self.finish(&ticket, Ok(plugin))
    }

    /// Marks a load of the manifest at `path` as under way: until it ends, a
    /// manifest with nothing serving is `loading`. Returns the load's ticket.
    pub fn begin(
        &self,
        path: &Path,
        fingerprint: Fingerprint,
        manifest: Option<&Manifest>,
    ) -> Ticket {
        let generation = {
            let mut entries = write(&self.entries);
            let entry = entries.entry(path.to_owned()).or_default();
            entry.generation += 1;
            entry.fingerprint = Some(fingerprint);
            entry.loading = Some(Loading::of(path, manifest));
            entry.generation
        };
        self.changed.send_replace(());
        Ticket {
            path: path.to_owned(),
            generation,
        }
    }

    /// Whether `ticket` is still the latest load of its manifest (none newer was
    /// begun, and the manifest was not removed).
    pub fn is_current(&self, ticket: &Ticket) -> bool {
        read(&self.entries)
            .get(&ticket.path)
            .is_some_and(|e| e.generation == ticket.generation)
    }

    /// Records the result of the load `ticket` began: swaps the plugin in, or keeps
    /// the serving version and the error. A load that a newer one superseded, or
    /// whose manifest was removed meanwhile, records nothing. Returns the error, if any.
    pub fn finish(&self, ticket: &Ticket, result: Result<LoadedPlugin, String>) -> Option<String> {
        let outcome = self.record(ticket, result);
        self.changed.send_replace(());
        outcome
    }

    fn record(&self, ticket: &Ticket, result: Result<LoadedPlugin, String>) -> Option<String> {
        let path = ticket.path.as_path();
        let mut entries = write(&self.entries);
        if entries
            .get(path)
            .is_none_or(|e| e.generation != ticket.generation)
        {
            tracing::debug!(manifest = %path.display(), "a newer load of this manifest superseded this one");
            return None;
        }
        let result = match result {
            Ok(plugin) => self.install(&entries, path, plugin),
            Err(e) => Err(e),
        };
        let entry = entries.entry(path.to_owned()).or_default();
        let loading = entry.loading.take();
        match result {
            Ok(plugin) => {
                if entry.plugin.is_some() {
                    metrics::plugin_swapped(&plugin.manifest.name);
                }
                tracing::info!(
                    plugin = %plugin.manifest.name,
                    version = %plugin.manifest.version,
                    route = %plugin.manifest.route,
                    sha256 = %plugin.sha256,
                    compile_ms = plugin.compile_time.as_millis() as u64,
                    from_artifact = plugin.from_artifact,
                    from_cache = plugin.from_cache,
                    "plugin loaded"
                );
                entry.plugin = Some(plugin);
                entry.loaded_at = Some(SystemTime::now());
                entry.last_error = None;
                None
            }
            Err(error) => {
                let name = entry
                    .plugin
                    .as_ref()
                    .map(|p| p.manifest.name.clone())
                    .or(loading.map(|l| l.name))
                    .unwrap_or_else(|| stem(path));
                metrics::plugin_load_failed(&name);
                let serving = entry.plugin.as_ref().map(|p| p.manifest.version.clone());
                tracing::error!(manifest = %path.display(), %error, serving = ?serving, "plugin not loaded; any previous version keeps serving");
                entry.last_error = Some(error.clone());
                Some(error)
            }
        }
    }

    /// Swaps a loaded plugin in for the manifest at `path`, atomically. Its route
    /// and name must be free: not served by another manifest's plugin, nor claimed
    /// by a manifest that sorts before it and is still loading (so which of two
    /// clashing manifests wins does not depend on which compiles first).
    fn install(
        &self,
        entries: &BTreeMap<PathBuf, Entry>,
        path: &Path,
        plugin: LoadedPlugin,
    ) -> Result<Arc<LoadedPlugin>, String> {
        let plugin = Arc::new(plugin);
        if let Some(clash) = clash(entries, path, &plugin.manifest) {
            return Err(clash);
        }
        let previous = entries.get(path).and_then(|e| e.plugin.clone());
        let mut routes = write(&self.routes);
        if let Some(previous) = previous {
            routes.remove(&previous.manifest.route);
        }
        routes.insert(plugin.manifest.route.clone(), plugin.clone());
        Ok(plugin)
    }

    /// Why `manifest` could not be installed for the manifest at `path` now:
    /// its name or route is another plugin's. The admin upload asks before it
    /// touches the plugin directory.
    pub fn clash(&self, path: &Path, manifest: &Manifest) -> Option<String> {
        clash(&read(&self.entries), path, manifest)
    }

    /// Waits until no load is under way.
    pub async fn wait_ready(&self) {
        let mut changed = self.changed.subscribe();
        while read(&self.entries).values().any(|e| e.loading.is_some()) {
            if changed.changed().await.is_err() {
                return;
            }
        }
    }

    /// The plugin loading for `route`, when nothing serves it yet.
    pub fn loading(&self, route: &str) -> Option<Loading> {
        read(&self.entries)
            .values()
            .filter(|e| e.plugin.is_none())
            .filter_map(|e| e.loading.as_ref())
            .find(|l| l.route.as_deref() == Some(route))
            .cloned()
    }

    /// What `/healthz` shows.
    pub fn health(&self) -> Health {
        let ready = read(&self.routes).len();
        let entries = read(&self.entries);
        let name = |path: &Path, e: &Entry| {
            e.plugin
                .as_ref()
                .map(|p| p.manifest.name.clone())
                .or_else(|| e.loading.as_ref().map(|l| l.name.clone()))
                .unwrap_or_else(|| stem(path))
        };
        let loading = entries
            .iter()
            .filter(|(_, e)| e.plugin.is_none() && e.loading.is_some())
            .map(|(p, e)| name(p, e))
            .collect();
        let failed = entries
            .iter()
            .filter(|(_, e)| e.last_error.is_some() && e.loading.is_none())
            .map(|(p, e)| name(p, e))
            .collect();
        Health {
            ready,
            loading,
            failed,
        }
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
        self.changed.send_replace(());
        true
    }

    /// The error shape the routes beside `path` declare: that of the plugins
    /// whose routes share its first segment, when they all declare the same;
    /// how a path nothing serves answers.
    pub fn neighbours_error_shape(&self, path: &str) -> Option<ErrorShape> {
        let first = |p: &str| {
            p.trim_start_matches('/')
                .split('/')
                .next()
                .map(str::to_owned)
        };
        let segment = first(path)?;
        let mut shapes = self
            .plugins()
            .into_iter()
            .filter(|p| first(&p.manifest.route).as_ref() == Some(&segment))
            .map(|p| p.manifest.error_shape());
        let shape = shapes.next()?;
        shapes.all(|s| s == shape).then_some(shape)
    }

    /// The plugin serving `route`.
    pub fn get(&self, route: &str) -> Option<Arc<LoadedPlugin>> {
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
    pub fn plugins(&self) -> Vec<Arc<LoadedPlugin>> {
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
                let status = match (p, &e.last_error, &e.loading) {
                    (Some(_), None, _) => "active",
                    (Some(_), Some(_), _) => "degraded",
                    (None, _, Some(_)) => "loading",
                    (None, _, None) => "failed",
                };
                PluginStatus {
                    manifest: path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    name: p
                        .map(|p| p.manifest.name.clone())
                        .or_else(|| e.loading.as_ref().map(|l| l.name.clone()))
                        .unwrap_or_else(|| stem(path)),
                    kind: p.map(|p| p.manifest.kind.world().to_owned()),
                    route: p.map(|p| p.manifest.route.clone()),
                    version: p.map(|p| p.manifest.version.clone()),
                    sha256: p.map(|p| p.sha256.clone()),
                    loaded_at: e.loaded_at.map(rfc3339),
                    status,
                    last_error: e.last_error.clone(),
                    compile_ms: p.map(|p| p.compile_time.as_millis() as u64),
                    code: p.map(|p| p.code_source()),
                    artifact_note: p.and_then(|p| p.artifact_note.clone()),
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

/// The manifest file's stem: the plugin's name when its manifest is unreadable.
/// Whether `manifest`'s route or name is taken by another manifest's plugin,
/// serving or (for a manifest that sorts before `path`) still loading, so
/// which of two clashing manifests wins does not depend on which compiles first.
fn clash(entries: &BTreeMap<PathBuf, Entry>, path: &Path, manifest: &Manifest) -> Option<String> {
    for (other_path, other) in entries.iter() {
        if other_path == path {
            continue;
        }
        let serving = other.plugin.as_ref().map(|p| {
            (
                p.manifest.name.as_str(),
                p.manifest.route.as_str(),
                "served",
            )
        });
        let claim = other
            .loading
            .as_ref()
            .filter(|_| other_path.as_path() < path)
            .and_then(|l| {
                Some((
                    l.name.as_str(),
                    l.route.as_deref()?,
                    "claimed (still loading)",
                ))
            });
        for (name, route, state) in serving.into_iter().chain(claim) {
            if route == manifest.route || name == manifest.name {
                return Some(format!(
                    "route {} or name {} is already {state} by plugin {name} ({}); give each plugin its own name and route",
                    manifest.route,
                    manifest.name,
                    other_path.display()
                ));
            }
        }
    }
    None
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Reads and checks the manifest of a plugin to load: its own rules
/// ([`Manifest::load`]), then its `[example]` against the validation every
/// request of its route meets.
pub fn read_manifest(path: &Path) -> Result<Manifest, crate::manifest::ManifestError> {
    let manifest = Manifest::load(path)?;
    if let Some(example) = &manifest.example {
        crate::validate::manifest_example(&manifest, example).map_err(|e| {
            crate::manifest::ManifestError::Invalid {
                path: path.to_owned(),
                message: format!(
                    "[example] is not a request this route accepts: {e}; fix the example or the field declarations"
                ),
            }
        })?;
    }
    Ok(manifest)
}

async fn load_one(
    runtime: &Runtime,
    config: &Config,
    path: &Path,
    manifest: Manifest,
    artifacts: Artifacts,
) -> Result<LoadedPlugin, LoadError> {
    let settings = config.settings_of(&manifest, &runtime.services().secrets);
    runtime.load_with(path, manifest, settings, artifacts).await
}
