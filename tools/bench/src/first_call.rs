//! What a plugin builds on its first call: the first call in a fresh
//! instance against the same call again in that instance, for every plugin,
//! with the goal that the difference stays under 10 µs.
//!
//! Sources are checked on their replayed first page (from `sources.rs`);
//! processors on their manifest's `[example]` body, website processors
//! answered from the HAR fixtures; the post source on its example under its
//! own recording. The difference is the median of the pairwise differences
//! (each pair measured back to back), so slow drift in a long call cancels.

use std::time::Duration;

use gleaner::manifest::{Kind, Manifest};
use gleaner::runtime::{LoadedPlugin, Runtime};
use gleaner::App;

use crate::report::{self, duration, Row, Summary};
use crate::root;
use crate::tax::{phases, Export, Phases};

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

/// Measures `n` pairs of `export` calls of `plugin` and records the row.
pub async fn check(
    runtime: &Runtime,
    plugin: &LoadedPlugin,
    export: Export<'_>,
    n: usize,
) -> anyhow::Result<()> {
    let phases = phases(runtime, plugin, export, n).await?;
    let (first, again) = (Summary::of(&phases.call), Summary::of(&phases.again));
    let extra = paired_extra_us(&phases);
    let verdict = if extra < GOAL.as_secs_f64() * 1e6 {
        "within"
    } else {
        "over"
    };
    let grown_kib = report::median(phases.grown.clone()).unwrap_or(0) >> 10;
    report::row(Row {
        what: format!(
            "{}: first call in a fresh instance against the same call again in it",
            plugin.manifest.name
        ),
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
    Ok(())
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
