//! Pre-initialisation. What a plugin builds that is the same for every call
//! (the HTML sources' parsed CSS selectors) it may build in a top-level
//! `gleaner-prepare` export (the SDK's `prepare = …`). Before the component is
//! compiled, the host runs that export once, in a throwaway instance, and
//! writes the memory it leaves into the component's data (wasmtime's Wizer),
//! so every call's fresh instance starts with it built.
//!
//! Every import of that instance traps but one: `wasi:random/insecure-seed`,
//! from which Rust's `HashMap` seeds its hasher, so tables built with std's
//! hash maps can be prepared too. It answers one seed drawn from the system
//! for this preparation. The seed, and the hasher keys derived from it, are
//! then the same in every instance of the prepared component instead of new
//! in each call: a secret kept in the compiled code (in memory and in the
//! artifact files `gleaner precompile` and the compile cache write), never
//! sent anywhere, and drawn anew by each compile. Hash flooding a plugin's
//! maps needs those keys.
//!
//! A component without the export is compiled as it is. One whose preparation
//! fails (it traps, calls the host, or runs past [`DEADLINE`]) is too, with a
//! warning: the SDK then builds what the plugin needs during each call.

use std::borrow::Cow;
use std::time::Duration;

use wasmtime::component::{Component, ComponentExportIndex, Instance, Lift, Linker, WasmList};
use wasmtime::{Engine, Store};
use wasmtime_wizer::{ComponentInstanceState, Wizer};

/// The top-level function a plugin prepares itself in.
pub const EXPORT: &str = "gleaner-prepare";

/// How long preparation may run.
pub const DEADLINE: Duration = Duration::from_secs(5);

/// Whether a component was prepared before compiling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preparation {
    /// It exports no `gleaner-prepare`.
    NotAsked,
    /// Its `gleaner-prepare` ran and its memory is in the compiled code.
    Prepared,
    /// Its `gleaner-prepare` failed, for this reason; it was compiled as it is.
    Failed(String),
}

/// The component to compile: `bytes` prepared when it exports
/// `gleaner-prepare` and preparing works, else `bytes` as they are, and which
/// of these it was (the caller reports a failure).
pub fn to_compile<'a>(engine: &Engine, bytes: &'a [u8]) -> (Cow<'a, [u8]>, Preparation) {
    match prepared(engine, bytes) {
        Ok(Some(prepared)) => (Cow::Owned(prepared), Preparation::Prepared),
        Ok(None) => (Cow::Borrowed(bytes), Preparation::NotAsked),
        Err(e) => (Cow::Borrowed(bytes), Preparation::Failed(e)),
    }
}

/// `bytes` with the memory its `gleaner-prepare` leaves written into it, or
/// `None` when it has no such export. The error says why preparing failed.
/// The [`DEADLINE`] holds while `engine`'s epoch ticker runs
/// (`runtime::start_epoch_ticker`).
pub fn prepared(engine: &Engine, bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    if !exports_prepare(bytes) {
        return Ok(None);
    }
    // Its own thread and executor: the callers are blocking code, some of it
    // inside the server's runtime and some not.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .build()
                    .map_err(|e| format!("no executor to prepare the plugin on: {e}"))?
                    .block_on(snapshot(engine, bytes))
            })
            .join()
            .map_err(|_| "preparing the plugin panicked".to_owned())?
    })
    .map(Some)
}

/// Whether the component exports a top-level `gleaner-prepare`.
fn exports_prepare(bytes: &[u8]) -> bool {
    use wasmparser::{Parser, Payload};
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload {
            Ok(Payload::ModuleSection { .. } | Payload::ComponentSection { .. }) => depth += 1,
            Ok(Payload::End(_)) => depth = depth.saturating_sub(1),
            Ok(Payload::ComponentExportSection(exports)) if depth == 0 => {
                let mut names = exports.into_iter().flatten().map(|e| e.name.name);
                if names.any(|name| name == EXPORT) {
                    return true;
                }
            }
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

/// Runs the export in an instrumented copy of the component and rewrites the
/// component with the memory and globals it left.
async fn snapshot(engine: &Engine, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut wizer = Wizer::new();
    // Kept: the component's lifted export still refers to it (the host never
    // calls it again).
    wizer.init_func(EXPORT).keep_init_func(true);
    let (context, instrumented) = wizer
        .instrument_component(bytes)
        .map_err(|e| format!("the component cannot be prepared: {e:#}"))?;
    let component = Component::new(engine, &instrumented)
        .map_err(|e| format!("the prepared component does not compile: {e:#}"))?;
    let mut linker = Linker::<()>::new(engine);
    link_seed(engine, &component, &mut linker)?;
    linker
        .define_unknown_imports_as_traps(&component)
        .map_err(|e| format!("{e:#}"))?;
    let mut store = Store::new(engine, ());
    // An engine that meters fuel (the bench's, to count operations) gives the
    // preparation all it may want; elsewhere there is no fuel to set.
    let _ = store.set_fuel(u64::MAX);
    let ticks = DEADLINE.as_millis() / super::EPOCH_TICK.as_millis().max(1);
    store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
    let instance = linker
        .instantiate_async(&mut store, &component)
        .await
        .map_err(|e| format!("instantiating it to prepare it failed: {e:#}"))?;
    instance
        .get_typed_func::<(), ()>(&mut store, EXPORT)
        .map_err(|e| format!("its {EXPORT} export is not a function without arguments: {e:#}"))?
        .call_async(&mut store, ())
        .await
        .map_err(|e| {
            format!("its {EXPORT} failed (it may not call the host, and has {DEADLINE:?}): {e:#}")
        })?;
    let mut state = Accessed::new(&mut store, instance);
    let rewritten = wizer
        .snapshot_component(&context, &mut state)
        .await
        .map_err(|e| format!("snapshotting its memory failed: {e:#}"))?;
    match state.failed {
        Some(failed) => Err(format!("reading its memory failed: {failed}")),
        None => Ok(rewritten),
    }
}

/// The interface preparation answers (any 0.2 version the component imports).
const SEED_INTERFACE: &str = "wasi:random/insecure-seed@0.2.";

/// Defines `insecure-seed` for every version of [`SEED_INTERFACE`] the
/// component imports, answering one seed drawn from the system.
fn link_seed(
    engine: &Engine,
    component: &Component,
    linker: &mut Linker<()>,
) -> Result<(), String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| format!("no randomness from the system to seed its hash maps: {e}"))?;
    let drawn = u128::from_le_bytes(bytes);
    let seed = (drawn as u64, (drawn >> 64) as u64);
    let imports = component.component_type();
    for (name, _) in imports.imports(engine) {
        if !name.starts_with(SEED_INTERFACE) {
            continue;
        }
        linker
            .instance(name)
            .and_then(|mut instance| {
                instance.func_wrap("insecure-seed", move |_, (): ()| Ok((seed,)))
            })
            .map_err(|e| format!("linking {name} for preparation failed: {e:#}"))?;
    }
    Ok(())
}

/// A live instance as Wizer's snapshot reads it: through the accessor
/// functions its instrumentation exported. Preparation reads the instance it
/// snapshots; with [`Accessed::recording`], what was read is kept too (the
/// bench reads a plugin's stack from it).
pub struct Accessed<'a, T: Send + 'static> {
    store: &'a mut Store<T>,
    instance: Instance,
    /// The first accessor call that failed (the snapshot is then not used).
    pub failed: Option<String>,
    record: bool,
    /// Every memory read, in the order read (when recording).
    pub memories: Vec<Vec<u8>>,
    /// Every 32-bit global read, in the order read (when recording).
    pub globals: Vec<i32>,
}

impl<'a, T: Send + 'static> Accessed<'a, T> {
    /// `instance` of an instrumented component, in `store`.
    pub fn new(store: &'a mut Store<T>, instance: Instance) -> Self {
        Accessed {
            store,
            instance,
            failed: None,
            record: false,
            memories: Vec::new(),
            globals: Vec::new(),
        }
    }

    /// The same, keeping every memory and 32-bit global it reads.
    pub fn recording(store: &'a mut Store<T>, instance: Instance) -> Self {
        Accessed {
            record: true,
            ..Accessed::new(store, instance)
        }
    }

    async fn call<R: Lift + Send + Sync + 'static>(
        &mut self,
        instance: &str,
        func: &str,
    ) -> Option<R> {
        let result = self.try_call(instance, func).await;
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.failed
                    .get_or_insert_with(|| format!("{instance}#{func}: {e:#}"));
                None
            }
        }
    }

    async fn try_call<R: Lift + Send + Sync + 'static>(
        &mut self,
        instance: &str,
        func: &str,
    ) -> wasmtime::Result<R> {
        let missing = || wasmtime::format_err!("no such export");
        let outer = self
            .instance
            .get_export_index(&mut *self.store, None, instance)
            .ok_or_else(missing)?;
        let inner: ComponentExportIndex = self
            .instance
            .get_export_index(&mut *self.store, Some(&outer), func)
            .ok_or_else(missing)?;
        let typed = self
            .instance
            .get_typed_func::<(), (R,)>(&mut *self.store, &inner)?;
        Ok(typed.call_async(&mut *self.store, ()).await?.0)
    }
}

impl<T: Send + 'static> ComponentInstanceState for Accessed<'_, T> {
    async fn call_func_ret_list_u8(
        &mut self,
        instance: &str,
        func: &str,
        contents: impl FnOnce(&[u8]) + Send,
    ) {
        match self.call::<WasmList<u8>>(instance, func).await {
            Some(list) => {
                let bytes = list.as_le_slice(&*self.store);
                if self.record {
                    self.memories.push(bytes.to_vec());
                }
                contents(bytes);
            }
            None => contents(&[]),
        }
    }

    async fn call_func_ret_s32(&mut self, instance: &str, func: &str) -> i32 {
        let value = self.call(instance, func).await.unwrap_or_default();
        if self.record {
            self.globals.push(value);
        }
        value
    }

    async fn call_func_ret_s64(&mut self, instance: &str, func: &str) -> i64 {
        self.call(instance, func).await.unwrap_or_default()
    }

    async fn call_func_ret_f32(&mut self, instance: &str, func: &str) -> u32 {
        self.call::<f32>(instance, func)
            .await
            .map_or(0, f32::to_bits)
    }

    async fn call_func_ret_f64(&mut self, instance: &str, func: &str) -> u64 {
        self.call::<f64>(instance, func)
            .await
            .map_or(0, f64::to_bits)
    }
}
