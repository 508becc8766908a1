//! The WebAssembly runtime: one [`Engine`], one pre-instantiated component per
//! plugin, a fresh [`Store`](wasmtime::Store) per call.
//!
//! Each call has a wall-clock deadline enforced by epoch interruption, a memory
//! cap, and a cap on data passed through host calls. Compiled components are
//! cached on disk, keyed by the component's hash and the engine's compatibility hash.

pub mod bindings;
mod call;
pub mod compat;
pub mod memory;
pub mod state;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::capabilities::{PluginGrant, Services};
pub use call::CallError;
use state::CallState;

use crate::manifest::{Kind, Manifest};

/// How often the epoch advances; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);
/// The largest linear memory any plugin may have (per-plugin caps are lower or equal).
const MAX_MEMORY_BYTES: usize = 512 * 1024 * 1024;

/// Errors loading a plugin, each saying what to fix.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The manifest is unusable.
    #[error(transparent)]
    Manifest(#[from] crate::manifest::ManifestError),
    /// The component file is missing or unreadable.
    #[error("cannot read component {path}: {source}; build the plugins with `make plugins`")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The component is invalid or does not fit this host.
    #[error("plugin {plugin}: {message}")]
    Component {
        /// Plugin name.
        plugin: String,
        /// What is wrong.
        message: String,
    },
}

/// A plugin's component, ready to instantiate for its world.
pub enum Prepared {
    /// A review source.
    Source(bindings::source::SourcePre<CallState>),
    /// A single-post source.
    Post(bindings::post::PostSourcePre<CallState>),
    /// A processor.
    Processor(bindings::processor::ProcessorPre<CallState>),
}

/// A loaded, validated plugin.
pub struct LoadedPlugin {
    /// Its manifest.
    pub manifest: Manifest,
    /// Hex sha256 of the component bytes.
    pub sha256: String,
    /// Pre-instantiated component.
    pub prepared: Prepared,
    /// Policy and settings granted to it.
    pub grant: Arc<PluginGrant>,
    /// How long compiling (or loading from the cache) took.
    pub compile_time: Duration,
    /// Whether the compiled code came from the disk cache.
    pub from_cache: bool,
}

/// The engine, the linker and the server-wide services.
pub struct Runtime {
    engine: Engine,
    linker: Linker<CallState>,
    services: Services,
    cache_dir: Option<PathBuf>,
    memory: Arc<memory::MemoryPool>,
    /// Whether the pooling allocator is in use (else on-demand).
    pub pooling: bool,
}

impl Runtime {
    /// Builds the engine (pooling allocator where the machine allows it) and starts
    /// the epoch ticker. Live instances together hold at most `memory_cap_mib` MiB.
    pub fn new(
        services: Services,
        cache_dir: Option<PathBuf>,
        memory_cap_mib: usize,
    ) -> anyhow::Result<Runtime> {
        let (engine, pooling) = match Engine::new(&engine_config(true)) {
            Ok(engine) => (engine, true),
            Err(e) => {
                tracing::warn!(error = %e, "pooling allocator unavailable; using on-demand allocation");
                (
                    Engine::new(&engine_config(false)).map_err(anyhow::Error::from)?,
                    false,
                )
            }
        };
        let mut linker = Linker::new(&engine);
        state::link(&mut linker).map_err(anyhow::Error::from)?;
        let weak = engine.weak();
        std::thread::Builder::new()
            .name("gleaner-epoch".into())
            .spawn(move || {
                while let Some(engine) = weak.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })?;
        Ok(Runtime {
            engine,
            linker,
            services,
            cache_dir,
            memory: memory::MemoryPool::new(memory_cap_mib.saturating_mul(1 << 20)),
            pooling,
        })
    }

    /// The shared services.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// Loads, compiles (or reads from the cache), checks and pre-instantiates one plugin.
    pub async fn load(
        &self,
        manifest_path: &Path,
        manifest: Manifest,
        settings: crate::capabilities::settings::Settings,
    ) -> Result<LoadedPlugin, LoadError> {
        let path = manifest.component_path(manifest_path);
        let bytes = std::fs::read(&path).map_err(|source| LoadError::Read {
            path: path.clone(),
            source,
        })?;
        let name = manifest.name.clone();
        let fail = |message: String| LoadError::Component {
            plugin: name.clone(),
            message,
        };
        let sha256 = hex::encode(Sha256::digest(&bytes));
        let started = std::time::Instant::now();
        let (engine, cache_dir, key) =
            (self.engine.clone(), self.cache_dir.clone(), sha256.clone());
        let (component, from_cache) = tokio::task::spawn_blocking(move || {
            compile(&engine, cache_dir.as_deref(), &bytes, &key)
        })
        .await
        .map_err(|e| fail(format!("compilation panicked: {e}")))?
        .map_err(&fail)?;
        let compile_time = started.elapsed();
        compat::check(&self.engine, &component, manifest.kind).map_err(&fail)?;
        let pre = self.linker.instantiate_pre(&component).map_err(|e| {
            fail(format!(
                "the component's imports do not match this host: {e:#}"
            ))
        })?;
        let prepared = match manifest.kind {
            Kind::Source => Prepared::Source(
                bindings::source::SourcePre::new(pre).map_err(|e| fail(format!("{e:#}")))?,
            ),
            Kind::PostSource => Prepared::Post(
                bindings::post::PostSourcePre::new(pre).map_err(|e| fail(format!("{e:#}")))?,
            ),
            Kind::Processor => Prepared::Processor(
                bindings::processor::ProcessorPre::new(pre).map_err(|e| fail(format!("{e:#}")))?,
            ),
        };
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
            memory_bytes: manifest.limits.memory_mib.saturating_mul(1 << 20),
            max_host_data_bytes: manifest.limits.max_host_data_bytes,
        });
        let plugin = LoadedPlugin {
            manifest,
            sha256,
            prepared,
            grant,
            compile_time,
            from_cache,
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

/// Compiles a component, or loads it from the disk cache keyed by its hash and the
/// engine's compatibility hash. Runs on a blocking thread, off the request path.
fn compile(
    engine: &Engine,
    cache_dir: Option<&Path>,
    bytes: &[u8],
    sha256: &str,
) -> Result<(Component, bool), String> {
    let Some(dir) = cache_dir else {
        return Component::new(engine, bytes)
            .map(|c| (c, false))
            .map_err(|e| format!("{e:#}"));
    };
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
    let engine_key = std::hash::Hasher::finish(&hasher);
    let file = dir.join(format!("{sha256}-{engine_key:016x}.cwasm"));
    if file.exists() {
        // SAFETY: the file was written by `precompile_component` of an engine with the
        // same compatibility hash (part of its name), in the host's own cache directory.
        match unsafe { Component::deserialize_file(engine, &file) } {
            Ok(component) => return Ok((component, true)),
            Err(e) => {
                tracing::warn!(file = %file.display(), error = %e, "ignoring unusable cache entry")
            }
        }
    }
    let compiled = engine
        .precompile_component(bytes)
        .map_err(|e| format!("{e:#}"))?;
    if std::fs::create_dir_all(dir).is_ok() {
        let tmp = file.with_extension(format!("tmp-{}", uuid::Uuid::new_v4()));
        if std::fs::write(&tmp, &compiled)
            .and_then(|_| std::fs::rename(&tmp, &file))
            .is_err()
        {
            tracing::warn!(dir = %dir.display(), "could not write the compile cache");
        }
    }
    // SAFETY: the bytes were just produced by `precompile_component` of this engine.
    let component =
        unsafe { Component::deserialize(engine, &compiled) }.map_err(|e| format!("{e:#}"))?;
    Ok((component, false))
}

fn engine_config(pooling: bool) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    config.max_wasm_stack(1024 * 1024);
    if pooling {
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(256)
            .total_core_instances(2048)
            .max_core_instances_per_component(32)
            .total_memories(512)
            .total_tables(2048)
            .total_stacks(256)
            .max_memory_size(MAX_MEMORY_BYTES);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}
