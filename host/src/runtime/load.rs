//! Loading a plugin, in three steps so that start-up can serve the plugins whose
//! compiled code is at hand while the others compile: [`Runtime::locate`] reads
//! and hashes the component and finds its artifact or cache entry,
//! [`Runtime::compile`] compiles it when neither was there, and
//! [`Runtime::prepare`] checks it against this host, pre-instantiates it and asks
//! its `info()`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::code::{self, Artifacts, CodeSource, Found};
use super::{compat, LoadError, LoadedPlugin, Prepared, Runtime};
use crate::capabilities::settings::Settings;
use crate::capabilities::PluginGrant;
use crate::manifest::Manifest;
use crate::telemetry::metrics::PluginMeters;

/// A plugin's component, read and hashed, with its compiled code once there is some.
pub struct Located {
    plugin: String,
    found: Found,
    elapsed: Duration,
}

impl Located {
    /// Whether the compiled code is at hand (from an artifact or the cache).
    pub fn is_ready(&self) -> bool {
        self.found.code.is_some()
    }

    /// The component's size in bytes.
    pub fn size(&self) -> usize {
        self.found.size
    }

    /// The plugin's name.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }
}

impl Runtime {
    /// Loads, compiles (or takes the code from an artifact or the cache), checks
    /// and pre-instantiates one plugin.
    pub async fn load(
        &self,
        manifest_path: &Path,
        manifest: Manifest,
        settings: Settings,
    ) -> Result<LoadedPlugin, LoadError> {
        self.load_with(manifest_path, manifest, settings, Artifacts::Use)
            .await
    }

    /// [`Runtime::load`], saying whether an artifact beside the component may be used.
    pub async fn load_with(
        &self,
        manifest_path: &Path,
        manifest: Manifest,
        settings: Settings,
        artifacts: Artifacts,
    ) -> Result<LoadedPlugin, LoadError> {
        let located = self.locate(manifest_path, &manifest, artifacts).await?;
        let located = self.compile(located).await?;
        self.prepare(manifest, settings, located).await
    }

    /// Reads the plugin's component and looks for its compiled code: the artifact
    /// beside it (when `artifacts` allows), then the compile cache.
    pub async fn locate(
        &self,
        manifest_path: &Path,
        manifest: &Manifest,
        artifacts: Artifacts,
    ) -> Result<Located, LoadError> {
        let path = manifest.component_path(manifest_path);
        let started = Instant::now();
        let (engine, key, cache_dir, file) = (
            self.engine.clone(),
            self.key.clone(),
            self.cache_dir.clone(),
            path.clone(),
        );
        let found = tokio::task::spawn_blocking(move || {
            code::find(&engine, &key, &file, cache_dir.as_deref(), artifacts)
        })
        .await
        .map_err(|e| LoadError::Component {
            plugin: manifest.name.clone(),
            message: format!("reading the component failed: {e}"),
        })?
        .map_err(|source| LoadError::Read { path, source })?;
        Ok(Located {
            plugin: manifest.name.clone(),
            found,
            elapsed: started.elapsed(),
        })
    }

    /// Compiles the component unless its code is at hand, and caches the code.
    pub async fn compile(&self, located: Located) -> Result<Located, LoadError> {
        if located.is_ready() {
            return Ok(located);
        }
        let started = Instant::now();
        let plugin = located.plugin.clone();
        let fail = |message: String| LoadError::Component {
            plugin: plugin.clone(),
            message,
        };
        let (engine, key, cache_dir, hook) = (
            self.engine.clone(),
            self.key.clone(),
            self.cache_dir.clone(),
            self.compile_hook.clone(),
        );
        let (mut located, result) = tokio::task::spawn_blocking(move || {
            if let Some(hook) = &hook {
                hook.call(&located.plugin);
            }
            let result = code::compile(&engine, &key, &located.found, cache_dir.as_deref());
            (located, result)
        })
        .await
        .map_err(|e| fail(format!("compilation failed: {e}")))?;
        located.found.code = Some((result.map_err(&fail)?, CodeSource::Compiled));
        located.elapsed += started.elapsed();
        Ok(located)
    }

    /// Checks compiled code against this host and the manifest, pre-instantiates
    /// it and checks what its `info()` reports.
    pub async fn prepare(
        &self,
        manifest: Manifest,
        settings: Settings,
        located: Located,
    ) -> Result<LoadedPlugin, LoadError> {
        let name = manifest.name.clone();
        let fail = |message: String| LoadError::Component {
            plugin: name.clone(),
            message,
        };
        let Located { found, elapsed, .. } = located;
        let Some((component, source)) = found.code else {
            return Err(fail(
                "the component was not compiled; this is a bug in the host".into(),
            ));
        };
        compat::check(&self.engine, &component, manifest.kind).map_err(&fail)?;
        let pre = self.linker.instantiate_pre(&component).map_err(|e| {
            fail(format!(
                "the component's imports do not match this host: {e:#}"
            ))
        })?;
        let prepared = Prepared::new(manifest.kind, pre).map_err(|e| fail(format!("{e:#}")))?;
        let policy = crate::capabilities::http::policy::Policy::new(
            &manifest.name,
            &manifest.network,
            &manifest.limits,
        )
        .map_err(&fail)?;
        let grant = Arc::new(PluginGrant {
            name: manifest.name.clone(),
            version: manifest.version.clone(),
            policy,
            settings,
            uses_llm: manifest.uses_llm,
            uses_browser: manifest.uses_browser,
            memory_bytes: manifest.limits.memory_mib.saturating_mul(1 << 20),
            max_host_data_bytes: manifest.limits.max_host_data_bytes,
        });
        let plugin = LoadedPlugin {
            meters: Arc::new(PluginMeters::new(&manifest.name)),
            memory_held: self.memory.held_by(&manifest.name),
            manifest,
            sha256: found.sha256,
            prepared,
            grant,
            compile_time: elapsed,
            from_cache: source == CodeSource::Cache,
            from_artifact: source == CodeSource::Artifact,
            artifact_note: found.artifact_note,
        };
        let info = self
            .info(&plugin)
            .await
            .map_err(|e| fail(format!("calling info() failed: {e}")))?;
        if info.name != plugin.manifest.name || info.version != plugin.manifest.version {
            return Err(fail(format!(
                "the component reports {} {} but its manifest says {} {}; make them agree",
                info.name, info.version, plugin.manifest.name, plugin.manifest.version
            )));
        }
        Ok(plugin)
    }
}
