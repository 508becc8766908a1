//! The wasmtime engine's configuration, and the key that names which compiled
//! code an engine can run.
//!
//! The server, `gleaner precompile` and `gleaner plugin check` all build their
//! engine here, so code compiled by one runs on the others.

use std::hash::{Hash, Hasher};

use sha2::{Digest, Sha256};
use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// The largest linear memory any plugin may have (per-plugin caps are lower or equal).
const MAX_MEMORY_BYTES: usize = 512 * 1024 * 1024;

/// Builds the engine with the pooling allocator where the machine allows it, else
/// with on-demand allocation. Returns the engine and whether it pools.
pub fn build() -> anyhow::Result<(Engine, bool)> {
    match Engine::new(&config(true)) {
        Ok(engine) => Ok((engine, true)),
        Err(e) => {
            tracing::warn!(error = %e, "pooling allocator unavailable; using on-demand allocation");
            Ok((
                Engine::new(&config(false)).map_err(anyhow::Error::from)?,
                false,
            ))
        }
    }
}

/// Bytes of the pages a call wrote in each linear memory slot that are reset
/// in place (copied back from the image, or zeroed) instead of being handed
/// back to the kernel. Handing pages back (`madvise`) and faulting them in
/// again flushes every core's TLB: at 64 connections that cost about a third of
/// the server's CPU. With Linux's `PAGEMAP_SCAN` only written pages count, and
/// a processor call writes a few dozen; pages past this are handed back, so a
/// memory-hungry call still returns its memory. After a burst, each slot that
/// served keeps at most this much resident. A slot reset wholly in place
/// queues nothing to hand back, and wasmtime frees such a slot at once, so
/// batching hand-backs (`decommit_batch_size`) would change nothing per call.
pub const KEEP_RESIDENT_MEMORY: usize = 1 << 20;
/// Bytes of each table slot reset in place, as [`KEEP_RESIDENT_MEMORY`].
pub const KEEP_RESIDENT_TABLE: usize = 256 << 10;

/// Component instances the pooling allocator holds slots for.
pub const INSTANCE_SLOTS: u32 = 1024;

/// The engine configuration, with or without the pooling allocator. The allocator
/// does not change how code is compiled: both give the same [`EngineKey`].
pub fn config(pooling: bool) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    config.max_wasm_stack(1024 * 1024);
    // For profiling plugins with `perf` (docs/testing.md#benchmarks):
    // wasmtime writes /tmp/perf-<pid>.map naming each compiled function.
    if std::env::var_os("GLEANER_PERF_MAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    if pooling {
        // Slots for every request the server admits at once (256 by default)
        // times the pages one fetch may have in flight ahead (a source's
        // `upstream_concurrency`, 4 by default): an idle slot costs address
        // space, not memory, and live memory is capped by the memory pool.
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(INSTANCE_SLOTS)
            .total_core_instances(8 * INSTANCE_SLOTS)
            .max_core_instances_per_component(32)
            .total_memories(2 * INSTANCE_SLOTS)
            .total_tables(8 * INSTANCE_SLOTS)
            .total_stacks(INSTANCE_SLOTS)
            .max_memory_size(MAX_MEMORY_BYTES)
            .linear_memory_keep_resident(KEEP_RESIDENT_MEMORY)
            .table_keep_resident(KEEP_RESIDENT_TABLE)
            .pagemap_scan(Enabled::Auto);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

/// Which compiled code an engine can run: 16 hex digits of the SHA-256 of
/// wasmtime's `precompile_compatibility_hash` (target, compiler flags, tunables,
/// wasm features, wasmtime version). Engines with equal keys run each other's
/// code; compiled code is stored and looked up under this key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EngineKey(String);

impl EngineKey {
    /// The key of `engine`.
    pub fn of(engine: &Engine) -> EngineKey {
        let mut hasher = Sha256Hasher(Sha256::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let digest = hasher.0.finalize();
        EngineKey(hex::encode(&digest[..8]))
    }

    /// The key as written in file names and headers.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for EngineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Feeds what a `Hash` impl writes into SHA-256, so the key is the same in every
/// process of this binary (std's `DefaultHasher` promises no such thing).
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        let digest = self.0.clone().finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_does_not_change_the_key() {
        let on_demand = Engine::new(&config(false)).unwrap();
        let key = EngineKey::of(&on_demand);
        assert_eq!(key.as_str().len(), 16);
        assert_eq!(key, EngineKey::of(&Engine::new(&config(false)).unwrap()));
        // Where the machine cannot reserve the pool, there is nothing to compare.
        if let Ok(pooling) = Engine::new(&config(true)) {
            assert_eq!(key, EngineKey::of(&pooling));
        }
    }

    #[test]
    fn compiler_settings_change_the_key() {
        let mut other = config(false);
        other.epoch_interruption(false);
        let other = Engine::new(&other).unwrap();
        assert_ne!(
            EngineKey::of(&other),
            EngineKey::of(&Engine::new(&config(false)).unwrap())
        );
    }
}
