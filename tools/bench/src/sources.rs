//! One `fetch-page` call of every source plugin on its replayed fixture: the
//! first page of the (first) fetch its `tests/replay.toml` pages through
//! (`[continuation] request`), with the operator settings that file gives.
//! On the way, the review texts of the recorded pages are collected as the
//! corpus of the sentence benchmark.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::bindings::types::PageRequest;
use gleaner::config::Config;
use gleaner::manifest::{Kind, Manifest};
use gleaner::runtime::LoadedPlugin;
use gleaner::App;
use serde_json::Value;

use crate::tax::Export;
use crate::{first_call, report, root, timed};

#[derive(serde::Deserialize)]
struct Cases {
    #[serde(default)]
    settings: BTreeMap<String, String>,
    continuation: Option<toml::Value>,
}

/// A source plugin with replay cases: its manifest, first-page request and settings.
struct Bench {
    manifest: Manifest,
    request: PageRequest,
    settings: BTreeMap<String, String>,
}

/// The plugins' source directories (`plugins/*`), in name order.
pub fn plugin_dirs() -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("plugins"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn benches() -> anyhow::Result<Vec<Bench>> {
    let mut found = Vec::new();
    for dir in plugin_dirs()? {
        let (Ok(manifest), Ok(cases)) = (
            std::fs::read_to_string(dir.join("manifest.toml")),
            std::fs::read_to_string(dir.join("tests/replay.toml")),
        ) else {
            continue;
        };
        let manifest: Manifest = toml::from_str(&manifest)?;
        let cases: Cases = toml::from_str(&cases)?;
        // The first `[continuation]` (or `[[continuation]]`) fetch.
        let paging = cases.continuation.map(|c| match c {
            toml::Value::Array(list) => list.into_iter().next(),
            table => Some(table),
        });
        let request = paging
            .flatten()
            .and_then(|p| p.get("request")?.as_str().map(str::to_owned));
        let (Kind::Source, Some(request)) = (manifest.kind, request) else {
            continue;
        };
        let body: Value = serde_json::from_str(&request)?;
        let options = manifest
            .source
            .clone()
            .unwrap_or_else(|| panic!("source {} has no [source] table", manifest.name));
        let field = |spec: Option<&gleaner::manifest::FieldSpec>| {
            spec.and_then(|s| body.get(&s.field))
                .filter(|v| !v.is_null())
                .cloned()
        };
        let request = PageRequest {
            query: body["query"].as_str().unwrap_or_default().to_owned(),
            sort: field(options.sort.as_ref()).map(|v| match v {
                Value::String(s) => s,
                other => other.to_string(),
            }),
            filter_json: field(options.filter.as_ref()).map(|v| v.to_string()),
            cursor: None,
        };
        found.push(Bench {
            manifest,
            request,
            settings: cases.settings,
        });
    }
    Ok(found)
}

/// The app serving `bench`'s source, upstream answered from the plugin's own
/// HAR with the settings of its replay cases, and the loaded plugin (none,
/// said on stdout, when it is not built).
async fn loaded(bench: &Bench) -> anyhow::Result<Option<(App, Arc<LoadedPlugin>)>> {
    let name = &bench.manifest.name;
    let config = Config {
        plugin_dir: crate::staged_plugins(),
        cache_dir: Some(root().join("target/gleaner-cache")),
        replay: Some(root().join("plugins").join(name).join("tests")),
        watch: false,
        plugins: BTreeMap::from([(name.clone(), bench.settings.clone())]),
        ..Config::default()
    };
    let app = App::build(config).await?;
    let Some(plugin) = app.state.registry.get(&bench.manifest.route) else {
        println!("{name}: not loaded (make plugins)");
        return Ok(None);
    };
    Ok(Some((app, plugin)))
}

/// Times one `fetch-page` per source, upstream answered from the plugin's own
/// HAR, with its first-call check; returns the distinct review texts of the
/// recorded pages.
pub async fn fetch_page_per_source() -> anyhow::Result<Vec<String>> {
    let mut corpus = Vec::new();
    for bench in benches()? {
        let name = bench.manifest.name.clone();
        let Some((app, plugin)) = loaded(&bench).await? else {
            continue;
        };
        let runtime = app.state.runtime.clone();
        let samples = timed(20, 300, || async {
            let deadline = Instant::now() + Duration::from_secs(5);
            let page = runtime
                .fetch_page(&plugin, "bench", &bench.request, deadline, None)
                .await?
                .map_err(|e| anyhow::anyhow!("{name}: {e:?}"))?;
            anyhow::ensure!(!page.reviews.is_empty(), "{name}: the page has no reviews");
            Ok(())
        })
        .await?;
        report(
            &format!("instantiate+call {name} fetch-page() (replayed first page)"),
            samples,
        );
        first_call::check(&runtime, &plugin, Export::FetchPage(&bench.request), 300).await?;
        corpus.extend(crate::corpus::texts(&runtime, &plugin, &bench.request).await);
    }
    Ok(crate::corpus::distinct(corpus))
}

/// The first-call check alone for every source, or only the one named
/// `only` (`bench --first-call [NAME]`).
pub async fn first_calls(n: usize, only: Option<&str>) -> anyhow::Result<()> {
    for bench in benches()? {
        if only.is_some_and(|name| name != bench.manifest.name) {
            continue;
        }
        if let Some((app, plugin)) = loaded(&bench).await? {
            let runtime = app.state.runtime.clone();
            first_call::check(&runtime, &plugin, Export::FetchPage(&bench.request), n).await?;
        }
    }
    Ok(())
}
