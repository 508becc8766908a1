//! How deep each plugin's stack goes (`bench --stack`): every replay case of
//! every plugin (its `tests/replay.toml` or `tests/cases.toml`, and its
//! manifest's `[example]`) is called in a fresh instance, and the part of the
//! plugin's stack the call wrote is read from its linear memory.
//!
//! A Rust plugin keeps its stack at the bottom of its linear memory, below its
//! data (`--stack-first`), growing down from the stack pointer's first value.
//! The memory is read through the accessors wasmtime's Wizer adds to a copy of
//! the component (the copy is otherwise the component as served, prepared the
//! same way): once after instantiation and once after the call. The lowest
//! byte below the stack's top that the call changed is the deepest the stack
//! went, give or take the bytes of the deepest frame it reserved but never
//! wrote. Sources follow each case's pages (up to [`PAGES`]) in one session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use gleaner::bindings::types::PageRequest;
use gleaner::capabilities::http::session::Session;
use gleaner::config::Config;
use gleaner::manifest::{Kind, Manifest};
use gleaner::runtime::prepare::{self, Accessed};
use gleaner::runtime::state::{self, CallState};
use gleaner::runtime::{engine, LoadedPlugin, Runtime};
use gleaner::{bindings, App};
use serde_json::Value;
use wasmtime::component::{Component, Instance, InstancePre};
use wasmtime::Store;
use wasmtime_wizer::{ComponentContext, Wizer};

use crate::report::{self, Row};
use crate::root;

/// Pages followed per source case (a processor's case is one call).
const PAGES: usize = 5;

#[derive(serde::Deserialize, Default)]
struct Cases {
    #[serde(default)]
    settings: BTreeMap<String, String>,
    #[serde(default)]
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    request: String,
    settings: Option<BTreeMap<String, String>>,
}

/// What one plugin's calls showed.
#[derive(Default)]
struct Depths {
    calls: usize,
    deepest: usize,
    /// The stack's size: its pointer's first value.
    size: usize,
    failed: usize,
}

/// Measures every plugin with cases or an example, or only the one named
/// `only`.
pub async fn report(only: Option<&str>) -> anyhow::Result<()> {
    report::section(
        "guest stack",
        "How deep each plugin's stack went over its replay cases and its manifest's example, \
         read from its linear memory after each call (stack.rs says how), against the stack \
         it links.",
    );
    for dir in crate::sources::plugin_dirs()? {
        let Ok(text) = std::fs::read_to_string(dir.join("manifest.toml")) else {
            continue;
        };
        let manifest: Manifest = toml::from_str(&text)?;
        if only.is_some_and(|name| name != manifest.name) || manifest.name.starts_with("test-") {
            continue;
        }
        let depths = plugin(&dir, &manifest)
            .await
            .with_context(|| manifest.name.clone())?;
        if depths.calls == 0 {
            report::note(format!("{}: no case ran", manifest.name));
            continue;
        }
        report::row(Row {
            what: format!("{}: deepest stack over its cases", manifest.name),
            n: Some(depths.calls),
            value: Some(format!(
                "{:.1} KiB of a {} KiB stack ({} calls failed as the cases expect or not)",
                depths.deepest as f64 / 1024.0,
                depths.size >> 10,
                depths.failed
            )),
            ..Row::default()
        });
    }
    Ok(())
}

/// The cases of the plugin in `dir`, each with the settings it runs under.
fn cases(
    dir: &Path,
    manifest: &Manifest,
) -> anyhow::Result<Vec<(String, BTreeMap<String, String>)>> {
    let mut found = Vec::new();
    for file in ["replay.toml", "cases.toml"] {
        let Ok(text) = std::fs::read_to_string(dir.join("tests").join(file)) else {
            continue;
        };
        let cases: Cases = toml::from_str(&text).with_context(|| file.to_owned())?;
        for case in cases.case {
            let settings = case.settings.unwrap_or_else(|| cases.settings.clone());
            found.push((case.request, settings));
        }
    }
    if let Some(example) = &manifest.example {
        found.push((Value::Object(example.clone()).to_string(), BTreeMap::new()));
        if manifest.kind == Kind::Processor {
            // The example with a field nested as deep as JSON parsers go
            // (serde_json stops at 128 levels): the deepest input a caller
            // can send, not a case of its own.
            let mut nested = Value::Object(example.clone());
            let deep = format!("{}{}", "[".repeat(126), "]".repeat(126));
            nested["nested"] = serde_json::from_str(&deep)?;
            found.push((nested.to_string(), BTreeMap::new()));
        }
    }
    Ok(found)
}

/// Where the plugin's upstream answers come from: the HAR files beside its
/// cases, else the shared fixtures.
fn replay_dir(dir: &Path) -> PathBuf {
    let own = dir.join("tests");
    let has_har = std::fs::read_dir(&own).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "har"))
    });
    if has_har {
        own
    } else {
        root().join("tests/fixtures/har")
    }
}

async fn plugin(dir: &Path, manifest: &Manifest) -> anyhow::Result<Depths> {
    let mut depths = Depths::default();
    // A server per set of settings the cases run under; one probe for all.
    let mut apps: BTreeMap<String, (App, Arc<LoadedPlugin>)> = BTreeMap::new();
    let mut probe = None;
    for (request, settings) in cases(dir, manifest)? {
        let key = serde_json::to_string(&settings)?;
        if !apps.contains_key(&key) {
            let config = Config {
                plugin_dir: crate::staged_plugins(),
                cache_dir: Some(root().join("target/gleaner-cache")),
                replay: Some(replay_dir(dir)),
                watch: false,
                plugins: BTreeMap::from([(manifest.name.clone(), settings.clone())]),
                ..Config::default()
            };
            let app = App::build(config).await?;
            let Some(loaded) = app.state.registry.get(&manifest.route) else {
                anyhow::bail!("not loaded (make plugins)");
            };
            apps.insert(key.clone(), (app, loaded));
        }
        let Some((app, loaded)) = apps.get(&key) else {
            continue;
        };
        let probe = match &mut probe {
            Some(probe) => probe,
            empty => empty.insert(Probe::new(loaded)?),
        };
        let calls = if manifest.kind == Kind::Source {
            PAGES
        } else {
            1
        };
        let session = Arc::new(Session::default());
        let mut cursor = None;
        for page in 0..calls {
            let (measured, next) = probe
                .call(
                    &app.state.runtime,
                    loaded,
                    &request,
                    cursor.take(),
                    session.clone(),
                )
                .await?;
            depths.calls += 1;
            depths.deepest = depths.deepest.max(measured.depth);
            depths.size = measured.size;
            depths.failed += usize::from(measured.failed);
            match next {
                Some(next) if page + 1 < calls => cursor = Some(next),
                _ => break,
            }
        }
    }
    Ok(depths)
}

/// One call's stack: how deep it went, the stack's size, and whether the
/// call failed.
struct Measured {
    depth: usize,
    size: usize,
    failed: bool,
}

/// A plugin's component with Wizer's accessors, ready to instantiate.
struct Probe {
    bytes: Vec<u8>,
    pre: InstancePre<CallState>,
    kind: Kind,
}

impl Probe {
    fn new(plugin: &LoadedPlugin) -> anyhow::Result<Probe> {
        let name = &plugin.manifest.name;
        let path = crate::staged_plugins().join(format!("{name}.wasm"));
        let wasm = std::fs::read(&path)
            .with_context(|| format!("reading {} (make plugins stages it)", path.display()))?;
        let engine = wasmtime::Engine::new(&engine::config(false))?;
        gleaner::runtime::start_epoch_ticker(&engine)?;
        let (prepared, _) = prepare::to_compile(&engine, &wasm);
        let (_, instrumented) = Wizer::new()
            .instrument_component(&prepared)
            .map_err(|e| anyhow::anyhow!("instrumenting {name}: {e:#}"))?;
        let component = Component::new(&engine, &instrumented)?;
        let mut linker = wasmtime::component::Linker::new(&engine);
        state::link(&mut linker)?;
        Ok(Probe {
            bytes: prepared.into_owned(),
            pre: linker.instantiate_pre(&component)?,
            kind: plugin.manifest.kind,
        })
    }

    /// Calls the plugin's export on `request` (with `cursor`, for a source's
    /// later pages) in a fresh instance: its stack, and the next cursor.
    async fn call(
        &self,
        runtime: &Runtime,
        plugin: &LoadedPlugin,
        request: &str,
        cursor: Option<String>,
        session: Arc<Session>,
    ) -> anyhow::Result<(Measured, Option<String>)> {
        let mut store = crate::tax::call_store(runtime, plugin, self.pre.engine(), Some(session));
        // What Wizer needs to read the instance, found once for both reads.
        let (context, _) = Wizer::new()
            .instrument_component(&self.bytes)
            .map_err(|e| anyhow::anyhow!("{e:#}"))?;
        let instance = self.pre.instantiate_async(&mut store).await?;
        let before = read(&context, &mut store, instance).await?;
        let body: Value = serde_json::from_str(request).unwrap_or_default();
        let (failed, next) = match self.kind {
            Kind::Processor => {
                let exports = bindings::processor::Processor::new(&mut store, &instance)?;
                let out = exports
                    .gleaner_plugin_processor_plugin()
                    .call_process(&mut store, request)
                    .await?;
                (out.is_err(), None)
            }
            Kind::PostSource => {
                let exports = bindings::post::PostSource::new(&mut store, &instance)?;
                let query = body["query"].as_str().unwrap_or_default();
                let out = exports
                    .gleaner_plugin_post_plugin()
                    .call_fetch_post(&mut store, query)
                    .await?;
                (out.is_err(), None)
            }
            Kind::Source => {
                let exports = bindings::source::Source::new(&mut store, &instance)?;
                let page = PageRequest {
                    query: body["query"].as_str().unwrap_or_default().to_owned(),
                    sort: body["sort"].as_str().map(str::to_owned),
                    filter_json: body
                        .get("filter")
                        .filter(|f| !f.is_null())
                        .map(Value::to_string),
                    cursor,
                };
                let out = exports
                    .gleaner_plugin_source_plugin()
                    .call_fetch_page(&mut store, &page)
                    .await?;
                match out {
                    Ok(page) => (false, page.next_cursor),
                    Err(_) => (true, None),
                }
            }
        };
        let after = read(&context, &mut store, instance).await?;
        let size = before.stack_top;
        let changed = before
            .memory
            .iter()
            .zip(&after.memory)
            .take(size)
            .position(|(a, b)| a != b);
        let depth = changed.map_or(0, |lowest| size - lowest);
        Ok((
            Measured {
                depth,
                size,
                failed,
            },
            next,
        ))
    }
}

/// The instance's main memory and its stack's top, through the accessors
/// `context` names.
async fn read(
    context: &ComponentContext<'_>,
    store: &mut Store<CallState>,
    instance: Instance,
) -> anyhow::Result<Snapshot> {
    // Wizer's snapshot reads the instance; the rewritten component it
    // gives is not needed.
    let mut state = Accessed::recording(store, instance);
    Wizer::new()
        .snapshot_component(context, &mut state)
        .await
        .map_err(|e| anyhow::anyhow!("{e:#}"))?;
    if let Some(failed) = state.failed {
        anyhow::bail!("reading the instance failed: {failed}");
    }
    // The main memory is the largest; the stack pointer is the module's
    // first global, its value between calls the stack's top.
    let memory = state
        .memories
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let stack_top = state
        .globals
        .first()
        .and_then(|g| usize::try_from(*g).ok())
        .filter(|top| *top <= memory.len())
        .context("no stack pointer among the globals")?;
    Ok(Snapshot { memory, stack_top })
}

/// What the accessors read.
struct Snapshot {
    memory: Vec<u8>,
    stack_top: usize,
}
