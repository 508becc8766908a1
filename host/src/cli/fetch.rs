//! `gleaner fetch`: runs a source locally without a server, the plugin author's
//! inner loop. Progress on stderr; on stdout the response JSON, or the reviews
//! as JSON Lines or CSV (`--format`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use serde_json::json;

use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::capabilities::settings::Settings;
use crate::config::Config;
use crate::manifest::Manifest;
use crate::{driver, validate};

/// Arguments of `gleaner fetch`.
#[derive(Debug, Default)]
pub struct FetchArgs {
    /// Source label, e.g. `customer-feedback-hub`.
    pub label: String,
    /// The query (URL or identifier).
    pub query: String,
    /// Sort value.
    pub sort: Option<String>,
    /// Filter value (JSON, or a bare string).
    pub filter: Option<String>,
    /// reviews_to_fetch.
    pub max: Option<u64>,
    /// Record exchanges into this HAR file.
    pub record: Option<PathBuf>,
    /// Answer from this HAR file or directory.
    pub replay: Option<PathBuf>,
    /// How the answer is written to stdout.
    pub format: super::output::Format,
}

/// Runs the fetch and prints the response body.
pub async fn fetch(config: &Config, args: FetchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.record.is_none() || args.replay.is_none(),
        "--record and --replay exclude each other: record against the live site, then replay offline"
    );
    let replay = match &args.replay {
        Some(p) => Some(HarReplay::load_list(p)?),
        None => None,
    };
    let recorder = args.record.clone().map(HarRecorder::new);
    let Source {
        runtime,
        plugin,
        options,
    } = load_source(config, &args.label, replay, recorder).await?;

    let mut body = json!({ "query": args.query });
    if let Some(n) = args.max {
        body["reviews_to_fetch"] = json!(n);
    }
    if let (Some(sort), Some(spec)) = (&args.sort, &options.sort) {
        body[spec.field.as_str()] = json!(sort);
    }
    if let Some(filter) = &args.filter {
        let spec = options
            .filter
            .as_ref()
            .context("this source has no filter")?;
        body[spec.field.as_str()] = serde_json::from_str(filter).unwrap_or_else(|_| json!(filter));
    }
    let key = config.token_key()?;
    let request = validate::source_request(
        &key,
        &plugin.manifest.route,
        &options,
        body.to_string().as_bytes(),
    )
    .map_err(anyhow::Error::msg)?;

    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(100));
    bar.set_message(format!("fetching {} ...", args.query));
    let on_page =
        |pages: u32, reviews: usize| bar.set_message(format!("page {pages}, {reviews} reviews"));
    let outcome = driver::fetch(
        &runtime,
        &plugin,
        &request,
        &key,
        config.fetch_budget(),
        "cli",
        &on_page,
    )
    .await;
    bar.finish_and_clear();
    let outcome = outcome.map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!("{}", outcome.message);
    let body = outcome.into_body(options.continuation);
    if args.format != super::output::Format::Json {
        if let Some(more) = super::output::continuation(&body) {
            eprintln!("{more}");
        }
    }
    super::output::write(&body, args.format, &mut std::io::stdout().lock())
}

/// A source plugin loaded for one-off CLI work.
pub(super) struct Source {
    /// Its runtime (with the replay or recorder it was given).
    pub runtime: crate::runtime::Runtime,
    /// The plugin.
    pub plugin: crate::registry::Plugin,
    /// Its request options.
    pub options: crate::manifest::SourceOptions,
}

/// Loads the source labelled `label` from the plugin directory, with its settings.
pub(super) async fn load_source(
    config: &Config,
    label: &str,
    replay: Option<HarReplay>,
    recorder: Option<HarRecorder>,
) -> anyhow::Result<Source> {
    let manifest_path = find_source(config, label)?;
    let manifest = Manifest::load(&manifest_path)?;
    let options = manifest.source.clone().with_context(|| {
        format!(
            "{} is a {} plugin, not a review source",
            manifest.name,
            manifest.kind.world()
        )
    })?;
    let runtime = super::runtime(config, replay, recorder)?;
    let settings = Settings::from_config(config, &manifest);
    let plugin = runtime.load(&manifest_path, manifest, settings).await?;
    Ok(Source {
        runtime,
        plugin,
        options,
    })
}

/// The manifest of the source whose route starts with `/<label>/`.
fn find_source(config: &Config, label: &str) -> anyhow::Result<PathBuf> {
    let files = crate::registry::manifest_files(&config.plugin_dir)?;
    let mut labels = Vec::new();
    for file in files {
        if let Ok(m) = Manifest::load(&file) {
            let this = m
                .route
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            if this == label {
                return Ok(file);
            }
            labels.push(this);
        }
    }
    anyhow::bail!(
        "no plugin with label {label:?} in {}; available: {}. Build plugins with `make plugins` or set GLEANER_PLUGIN_DIR",
        config.plugin_dir.display(),
        labels.join(", ")
    )
}
