//! What a plugin builds on its first call: the first call in a fresh
//! instance against the same call again in that instance, for every plugin,
//! with the goal that the difference stays under 10 µs.
//!
//! Sources are checked on their replayed first page (from `sources.rs`);
//! processors on their manifest's `[example]` body, website processors
//! answered from the HAR fixtures; the post source on its example under its
//! own recording. The difference is the median of the pairwise differences
//! (each pair measured back to back), so slow drift in a long call cancels.
//!
//! Two more measures tell building from running cold: the same pairs with an
//! instantiation before the call again too, and the WebAssembly operations of
//! each call, counted as fuel on an engine that meters it.

use std::time::Duration;

use anyhow::Context;
use gleaner::manifest::{Kind, Manifest};
use gleaner::runtime::{engine, prepare, state, LoadedPlugin, Prepared, Runtime};
use gleaner::App;

use crate::report::{self, duration, Row, Summary};
use crate::root;
use crate::tax::{phases, Between, Export, Phases};

/// The goal for what a plugin may build on its first call in a fresh
/// instance that a second call in the same instance finds ready.
pub const GOAL: Duration = Duration::from_micros(10);

/// The median of `first[i] - again[i]`, in µs (negative when the first call
/// was the faster).
pub fn paired_extra_us(phases: &Phases) -> f64 {
    let differences: Vec<f64> = phases
        .call
        .iter()
        .zip(&phases.again)
        .map(|(first, again)| (first.as_secs_f64() - again.as_secs_f64()) * 1e6)
        .collect();
    report::median(differences).unwrap_or(0.0)
}

/// Measures `n` pairs of `export` calls of `plugin` and records its rows: the
/// time the first call takes more (the goal's measure), the same with an
/// instantiation before the call again too, and the operations each runs.
pub async fn check(
    runtime: &Runtime,
    plugin: &LoadedPlugin,
    export: Export<'_>,
    n: usize,
) -> anyhow::Result<()> {
    let name = &plugin.manifest.name;
    let timed = phases(runtime, plugin, export, n, Between::Nothing).await?;
    let (first, again) = (Summary::of(&timed.call), Summary::of(&timed.again));
    let extra = paired_extra_us(&timed);
    let verdict = if extra < GOAL.as_secs_f64() * 1e6 {
        "within"
    } else {
        "over"
    };
    let grown_kib = report::median(timed.grown.clone()).unwrap_or(0) >> 10;
    report::row(Row {
        what: format!("{name}: first call in a fresh instance against the same call again in it"),
        n: Some(first.n),
        median: Some(duration(first.median)),
        p99: Some(duration(first.p99)),
        value: Some(format!(
            "{extra:.1} µs more than again ({}; median of the pairs' differences); \
             memory grown by the first call: {grown_kib} KiB; {verdict} the {} goal",
            duration(again.median),
            duration(GOAL)
        )),
        ratio: None,
    });
    let disturbed = phases(runtime, plugin, export, n, Between::Instantiation).await?;
    report::row(Row {
        what: format!(
            "{name}: the same, with another instance made just before the call again too"
        ),
        n: Some(disturbed.call.len()),
        median: None,
        p99: None,
        value: Some(format!(
            "{:.1} µs more than again (what an instantiation leaves in the caches is in both)",
            paired_extra_us(&disturbed)
        )),
        ratio: None,
    });
    let counted = phases(
        runtime,
        &metered(plugin)?,
        export,
        OPERATION_PAIRS,
        Between::Nothing,
    )
    .await?;
    let extra_operations = counted
        .operations
        .iter()
        .map(|(first, again)| first.saturating_sub(*again))
        .max()
        .unwrap_or(0);
    let (first_operations, again_operations) =
        counted.operations.last().copied().unwrap_or_default();
    report::row(Row {
        what: format!(
            "{name}: WebAssembly operations of the first call in a fresh instance against the same call again in it"
        ),
        n: Some(counted.operations.len()),
        median: None,
        p99: None,
        value: Some(format!(
            "{first_operations} against {again_operations}: at most {extra_operations} more \
             (counted as fuel, on the same component compiled and prepared for an engine that meters it)"
        )),
        ratio: None,
    });
    Ok(())
}

/// Pairs of calls whose operations are counted (after the warm-up pairs): the
/// count of a call on the same input does not vary, so a few show it.
const OPERATION_PAIRS: usize = 3;

/// `plugin`'s staged component again, compiled and prepared as the server
/// does for an engine that also meters fuel (one unit per WebAssembly
/// operation), linked to the same host, so its calls can be counted.
fn metered(plugin: &LoadedPlugin) -> anyhow::Result<LoadedPlugin> {
    let name = &plugin.manifest.name;
    let path = crate::staged_plugins().join(format!("{name}.wasm"));
    let wasm = std::fs::read(&path)
        .with_context(|| format!("reading {} (make plugins stages it)", path.display()))?;
    let mut config = engine::config(false);
    config.consume_fuel(true);
    let engine = wasmtime::Engine::new(&config)?;
    let (bytes, _) = prepare::to_compile(&engine, &wasm);
    let component = wasmtime::component::Component::new(&engine, &bytes)?;
    let mut linker = wasmtime::component::Linker::new(&engine);
    state::link(&mut linker)?;
    Ok(LoadedPlugin {
        manifest: plugin.manifest.clone(),
        sha256: plugin.sha256.clone(),
        prepared: Prepared::new(plugin.manifest.kind, linker.instantiate_pre(&component)?)?,
        grant: plugin.grant.clone(),
        compile_time: Duration::ZERO,
        from_cache: false,
        from_artifact: false,
        artifact_note: None,
        meters: plugin.meters.clone(),
        memory_held: plugin.memory_held.clone(),
    })
}

/// The non-source plugins (processors and the post source) with an
/// `[example]` in their manifest: manifest, and the example as JSON.
fn examples() -> anyhow::Result<Vec<(Manifest, serde_json::Value)>> {
    let mut found = Vec::new();
    for dir in crate::sources::plugin_dirs()? {
        let Ok(text) = std::fs::read_to_string(dir.join("manifest.toml")) else {
            continue;
        };
        let manifest: Manifest = toml::from_str(&text)?;
        if manifest.kind == Kind::Source {
            continue;
        }
        if let Some(example) = manifest.example.clone() {
            found.push((manifest, serde_json::Value::Object(example)));
        }
    }
    // Processors first, so those sharing the fixtures share one app.
    found.sort_by_key(|(manifest, _)| manifest.kind == Kind::PostSource);
    Ok(found)
}

/// The check for every processor and post source (or only the one named
/// `only`), on its example: one app for the processors (website processors
/// answered from the HAR fixtures), one per post source (its own recording).
pub async fn every_other_plugin(n: usize, only: Option<&str>) -> anyhow::Result<()> {
    let mut app: Option<(std::path::PathBuf, App)> = None;
    for (manifest, example) in examples()? {
        if only.is_some_and(|name| name != manifest.name) {
            continue;
        }
        let name = manifest.name.clone();
        let replay = match manifest.kind {
            Kind::PostSource => root().join("plugins").join(&name).join("tests"),
            _ => root().join("tests/fixtures/har"),
        };
        if app.as_ref().is_none_or(|(dir, _)| *dir != replay) {
            let built = crate::replay_app_of(&replay).await?;
            app = Some((replay, built));
        }
        let Some((_, app)) = &app else { continue };
        let Some(plugin) = app.state.registry.get(&manifest.route) else {
            report::note(format!("{name}: not loaded (make plugins)"));
            continue;
        };
        let input = example.to_string();
        let query = example["query"].as_str().unwrap_or_default();
        let export = match manifest.kind {
            Kind::PostSource => Export::FetchPost(query),
            _ => Export::Process(&input),
        };
        if let Err(e) = check(&app.state.runtime, &plugin, export, n).await {
            report::note(format!(
                "{name}: its example fails under replay, so its first call was not measured: {e:#}"
            ));
        }
    }
    Ok(())
}
