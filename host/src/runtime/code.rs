//! A plugin's compiled code: from the artifact staged beside its component, from
//! the compile cache, or compiled now (and then cached). These functions block;
//! the runtime calls them on blocking threads, off the request path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::Engine;

use super::artifact::{self, ArtifactError};
use super::engine::EngineKey;
use super::mapped::Mapped;

/// Where a plugin's compiled code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeSource {
    /// The artifact `gleaner precompile` staged beside the component.
    Artifact,
    /// The host's compile cache.
    Cache,
    /// Compiled at load.
    Compiled,
}

/// Whether a load may use an artifact staged beside the component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Artifacts {
    /// Use a verified artifact when there is one.
    Use,
    /// Never: the component alone counts (admin uploads).
    Ignore,
}

/// A function called with the plugin's name on the compiling thread just before
/// a component is compiled (never for code from an artifact or the cache). Tests
/// use it to hold a compile; the configuration file and environment cannot set it.
#[derive(Clone)]
pub struct CompileHook(Arc<dyn Fn(&str) + Send + Sync>);

impl CompileHook {
    /// A hook that runs `f`.
    pub fn new(f: impl Fn(&str) + Send + Sync + 'static) -> CompileHook {
        CompileHook(Arc::new(f))
    }

    pub(super) fn call(&self, plugin: &str) {
        (self.0)(plugin)
    }
}

impl std::fmt::Debug for CompileHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompileHook")
    }
}

/// A component read from disk, and its compiled code where that was at hand.
pub struct Found {
    /// The component file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: usize,
    /// The component bytes, kept only when there is no code (for compiling).
    pub bytes: Vec<u8>,
    /// Hex SHA-256 of the bytes.
    pub sha256: String,
    /// The compiled code, unless it must be compiled.
    pub code: Option<(Component, CodeSource)>,
    /// Why an artifact beside the component was not used, if one was there.
    pub artifact_note: Option<String>,
}

/// Reads the component at `path` and looks for its compiled code: the artifact
/// beside it (when `artifacts` allows), then the compile cache in `cache_dir`.
pub fn find(
    engine: &Engine,
    key: &EngineKey,
    path: &Path,
    cache_dir: Option<&Path>,
    artifacts: Artifacts,
) -> std::io::Result<Found> {
    let component = Mapped::of(&std::fs::File::open(path)?)?;
    let mut found = Found {
        path: path.to_owned(),
        size: component.len(),
        bytes: Vec::new(),
        sha256: hex::encode(Sha256::digest(&component[..])),
        code: None,
        artifact_note: None,
    };
    look_up(engine, key, &mut found, cache_dir, artifacts);
    if found.code.is_none() {
        found.bytes = component.to_vec();
    }
    Ok(found)
}

/// Fills in `found.code` from the artifact or the cache, where one fits.
fn look_up(
    engine: &Engine,
    key: &EngineKey,
    found: &mut Found,
    cache_dir: Option<&Path>,
    artifacts: Artifacts,
) {
    if artifacts == Artifacts::Use {
        let staged = artifact::artifact_path(&found.path, &found.sha256, key);
        match artifact::load(engine, key, &staged, &found.sha256) {
            Ok(component) => {
                found.code = Some((component, CodeSource::Artifact));
                return;
            }
            Err(ArtifactError::Missing { .. }) => {
                found.artifact_note = artifact::why_none_fits(&found.path, &found.sha256, key);
            }
            Err(e) => found.artifact_note = Some(e.to_string()),
        }
        if let Some(note) = &found.artifact_note {
            tracing::warn!(component = %found.path.display(), "{note}");
        }
    }
    if let Some(dir) = cache_dir {
        let entry = dir.join(artifact::cache_name(&found.sha256, key));
        match artifact::load(engine, key, &entry, &found.sha256) {
            Ok(component) => found.code = Some((component, CodeSource::Cache)),
            Err(ArtifactError::Missing { .. }) => {}
            Err(e) => tracing::warn!(error = %e, "ignoring a compile cache entry"),
        }
    }
}

/// Compiles a component (prepared first when it asks to be: `prepare.rs`) and,
/// with a `cache_dir`, writes the code to the cache.
pub fn compile(
    engine: &Engine,
    key: &EngineKey,
    found: &Found,
    cache_dir: Option<&Path>,
) -> Result<Component, String> {
    let (bytes, preparation) = super::prepare::to_compile(engine, &found.bytes);
    if let super::prepare::Preparation::Failed(why) = preparation {
        tracing::warn!(
            component = %found.path.display(),
            "{why}; it is compiled unprepared and builds what it needs in each call"
        );
    }
    let code = engine
        .precompile_component(&bytes)
        .map_err(|e| format!("{e:#}"))?;
    if let Some(dir) = cache_dir {
        let entry = dir.join(artifact::cache_name(&found.sha256, key));
        let component = found.path.file_name().unwrap_or_default().to_string_lossy();
        if let Err(e) = std::fs::create_dir_all(dir)
            .and_then(|_| artifact::write(&entry, &component, &found.sha256, key, &code))
        {
            tracing::warn!(dir = %dir.display(), error = %e, "could not write the compile cache; check that the directory is writable");
        }
    }
    // SAFETY: the bytes were just produced by `precompile_component` of this engine.
    unsafe { Component::deserialize(engine, &code) }.map_err(|e| format!("{e:#}"))
}
