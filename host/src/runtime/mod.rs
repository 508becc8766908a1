//! The WebAssembly runtime: one [`Engine`], one pre-instantiated component per
//! plugin, a fresh [`Store`](wasmtime::Store) per call.
//!
//! Each call has a wall-clock deadline enforced by epoch interruption, a memory
//! cap, and a cap on data passed through host calls. Compiled code comes from an
//! artifact staged beside the component (`gleaner precompile`), from the compile
//! cache, or from compiling the component (then cached); see [`code`] and
//! [`artifact`].

pub mod artifact;
pub mod bulkhead;
mod call;
pub mod code;
pub mod compat;
pub mod engine;
mod load;
mod mapped;
pub mod memory;
pub mod prepare;
pub mod state;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::Linker;
use wasmtime::Engine;

use crate::capabilities::{PluginGrant, Services};
pub use call::CallError;
pub use code::{Artifacts, CodeSource, CompileHook};
pub use engine::EngineKey;
pub use load::Located;
use state::CallState;

use crate::bindings;
use crate::manifest::Manifest;

/// How often the epoch advances; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

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

impl Prepared {
    /// `pre` checked against the world of a plugin of `kind`.
    pub fn new(
        kind: crate::manifest::Kind,
        pre: wasmtime::component::InstancePre<CallState>,
    ) -> wasmtime::Result<Prepared> {
        use crate::manifest::Kind;
        Ok(match kind {
            Kind::Source => Prepared::Source(bindings::source::SourcePre::new(pre)?),
            Kind::PostSource => Prepared::Post(bindings::post::PostSourcePre::new(pre)?),
            Kind::Processor => Prepared::Processor(bindings::processor::ProcessorPre::new(pre)?),
        })
    }
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
    /// How long reading the component and getting its compiled code took
    /// (compiling, or loading an artifact or cache entry).
    pub compile_time: Duration,
    /// Whether the compiled code came from the compile cache.
    pub from_cache: bool,
    /// Whether the compiled code came from the artifact staged beside the
    /// component (no compile, no cache).
    pub from_artifact: bool,
    /// Why an artifact beside the component was not used, when one was there.
    pub artifact_note: Option<String>,
    /// Its call metrics, looked up once.
    pub meters: Arc<crate::telemetry::metrics::PluginMeters>,
    /// What its instances hold of the memory pool, looked up once.
    pub memory_held: Arc<std::sync::atomic::AtomicUsize>,
}

impl LoadedPlugin {
    /// Where the compiled code came from.
    pub fn code_source(&self) -> CodeSource {
        match (self.from_artifact, self.from_cache) {
            (true, _) => CodeSource::Artifact,
            (false, true) => CodeSource::Cache,
            (false, false) => CodeSource::Compiled,
        }
    }
}

/// The engine, the linker and the server-wide services.
pub struct Runtime {
    engine: Engine,
    key: EngineKey,
    linker: Linker<CallState>,
    services: Services,
    cache_dir: Option<PathBuf>,
    memory: Arc<memory::MemoryPool>,
    compile_hook: Option<CompileHook>,
    /// Whether the pooling allocator is in use (else on-demand).
    pub pooling: bool,
    /// What becomes of a review that breaks a rule of the record.
    pub records: crate::record::repair::Policy,
}

/// Advances `engine`'s epoch every [`EPOCH_TICK`] on a thread of its own,
/// until the engine is dropped: call deadlines (and a preparation's) count in
/// these ticks.
pub fn start_epoch_ticker(engine: &Engine) -> std::io::Result<()> {
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
    Ok(())
}

impl Runtime {
    /// Builds the engine (pooling allocator where the machine allows it) and starts
    /// the epoch ticker. Live instances together hold at most `memory_cap_mib` MiB.
    pub fn new(
        services: Services,
        cache_dir: Option<PathBuf>,
        memory_cap_mib: usize,
    ) -> anyhow::Result<Runtime> {
        let (engine, pooling) = engine::build()?;
        let mut linker = Linker::new(&engine);
        state::link(&mut linker).map_err(anyhow::Error::from)?;
        start_epoch_ticker(&engine)?;
        Ok(Runtime {
            key: EngineKey::of(&engine),
            engine,
            linker,
            services,
            cache_dir,
            memory: memory::MemoryPool::new(memory_cap_mib.saturating_mul(1 << 20), 100),
            compile_hook: None,
            pooling,
            records: Default::default(),
        })
    }

    /// Treats reviews that break a rule of the record by `policy`.
    pub fn with_record_policy(mut self, policy: crate::record::repair::Policy) -> Runtime {
        self.records = policy;
        self
    }

    /// Calls `hook` before every compile (see [`CompileHook`]).
    pub fn with_compile_hook(mut self, hook: Option<CompileHook>) -> Runtime {
        self.compile_hook = hook;
        self
    }

    /// Lets the instances of one plugin hold at most `percent` of the memory
    /// pool (all of it until this is called).
    pub fn with_plugin_memory_share(mut self, percent: usize) -> Runtime {
        self.memory = memory::MemoryPool::new(self.memory.cap(), percent);
        self
    }

    /// The shared services.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// The key of this runtime's engine: which compiled code it runs.
    pub fn engine_key(&self) -> &EngineKey {
        &self.key
    }
}
