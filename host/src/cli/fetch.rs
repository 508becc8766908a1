//! `gleaner fetch`: runs a source locally without a server, the plugin author's
//! inner loop and an operator's quick look. Every request field is a flag
//! (the source's own come from its manifest: [`super::flags`]); `--all`
//! follows the continuation to the end. Progress goes to stderr; on stdout
//! the response JSON, or the reviews as JSON Lines or CSV (`--format`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::plugins::{self, Source};
use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::capabilities::http::session::Session;
use crate::config::Config;
use crate::manifest::{Continuation, SourceOptions};
use crate::record::PostRecord;
use crate::secrets::Secrets;
use crate::{driver, validate};

/// Arguments of `gleaner fetch`.
#[derive(Debug, Default)]
pub struct FetchArgs {
    /// Source label, e.g. `customer-feedback-hub`.
    pub label: String,
    /// The query (URL or identifier).
    pub query: String,
    /// The other request fields, as the flags gave them.
    pub fields: Map<String, Value>,
    /// The source's sort, by its short flag `--sort`.
    pub sort: Option<String>,
    /// The source's filter, by its short flag `--filter` (JSON, or a bare string).
    pub filter: Option<String>,
    /// Follow the continuation until the source has no more.
    pub all: bool,
    /// Record exchanges into this HAR file.
    pub record: Option<PathBuf>,
    /// Answer from this HAR file or directory.
    pub replay: Option<PathBuf>,
    /// How the answer is written to stdout.
    pub format: super::output::Format,
}

/// Runs the fetch and prints the response body.
pub async fn fetch(config: &Config, secrets: &Arc<Secrets>, args: FetchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.record.is_none() || args.replay.is_none(),
        "--record and --replay exclude each other: record against the live site, then replay offline"
    );
    let replay = match &args.replay {
        Some(p) => Some(HarReplay::load_list(p)?),
        None => None,
    };
    let recorder = args
        .record
        .clone()
        .map(|path| HarRecorder::new(path, secrets.clone()));
    let source = plugins::load(config, secrets, &args.label, replay, recorder).await?;
    let body = match source.options() {
        Some(options) => {
            let request = request_body(&args, options)?;
            reviews(config, &source, options, request, args.all, &args.query).await?
        }
        None => post(config, &source, &args).await?,
    };
    if args.format != super::output::Format::Json {
        if let Some(more) = super::output::continuation(&body) {
            eprintln!("{more}");
        }
    }
    super::output::write(&body, args.format, &mut std::io::stdout().lock())
}

/// The request body the flags describe.
fn request_body(args: &FetchArgs, options: &SourceOptions) -> anyhow::Result<Value> {
    let mut body = Map::new();
    body.insert("query".into(), json!(args.query));
    if let (Some(sort), Some(spec)) = (&args.sort, &options.sort) {
        body.insert(spec.field.clone(), json!(sort));
    }
    if let Some(filter) = &args.filter {
        let Some(spec) = &options.filter else {
            anyhow::bail!("this source has no filter; drop --filter");
        };
        let value = serde_json::from_str(filter).unwrap_or_else(|_| json!(filter));
        body.insert(spec.field.clone(), value);
    }
    body.extend(args.fields.clone());
    Ok(Value::Object(body))
}

/// The continuation field of a response, and its value, when it has one.
fn continuation_of(body: &Value, continuation: Continuation) -> Option<(&'static str, Value)> {
    match continuation {
        Continuation::PaginationToken => body["next_page"]
            .as_str()
            .map(|t| ("pagination_token", json!(t))),
        Continuation::PaginationData => body["pagination_data"]
            .is_object()
            .then(|| ("pagination_data", body["pagination_data"].clone())),
        Continuation::None => None,
    }
}

/// Fetches reviews as the server would, following the continuation when
/// `all` is set; the answer, or with `all` one answer with every review.
async fn reviews(
    config: &Config,
    source: &Source,
    options: &SourceOptions,
    mut request: Value,
    all: bool,
    query: &str,
) -> anyhow::Result<Value> {
    let key = config.token_key()?;
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(100));
    bar.set_message(format!("fetching {query} ..."));
    let started = Instant::now();
    let mut collected: Vec<Value> = Vec::new();
    let mut requests = 0u32;
    let mut pages_before = 0u32;
    loop {
        requests += 1;
        let parsed = validate::source_request(
            &key,
            &source.plugin.manifest.route,
            options,
            request.to_string().as_bytes(),
        )
        .map_err(anyhow::Error::msg)?;
        let so_far = collected.len();
        let on_page = |pages: u32, reviews: usize| {
            bar.set_message(format!(
                "request {requests}, page {}, {} reviews",
                pages_before + pages,
                so_far + reviews
            ))
        };
        let outcome = driver::fetch(
            &source.runtime,
            &source.plugin,
            &parsed,
            &key,
            config.fetch_budget(),
            "cli",
            &on_page,
        )
        .await;
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) if requests > 1 => {
                bar.finish_and_clear();
                eprintln!("request {requests} failed ({e}); the reviews so far follow, with the token to resume");
                // The token of the request that failed resumes where it would have.
                let mut resume = json!({});
                match options.continuation {
                    Continuation::PaginationToken => {
                        resume["next_page"] = request["pagination_token"].clone()
                    }
                    Continuation::PaginationData => {
                        resume["pagination_data"] = request["pagination_data"].clone()
                    }
                    Continuation::None => {}
                }
                break Ok(combined(collected, resume, requests, started, query));
            }
            Err(e) => {
                bar.finish_and_clear();
                return Err(anyhow::anyhow!("{e}"));
            }
        };
        let pages = outcome.extra_information["pages_fetched"]
            .as_u64()
            .unwrap_or(0) as u32;
        pages_before += pages;
        eprintln!("{}", outcome.message);
        let mut body = outcome.into_body(options.continuation);
        let next = continuation_of(&body, options.continuation);
        if !all {
            bar.finish_and_clear();
            return Ok(body);
        }
        if let Some(list) = body["all_reviews"].as_array_mut() {
            collected.append(list);
        }
        match next {
            Some((field, token)) => {
                request[field] = token;
            }
            None => {
                bar.finish_and_clear();
                break Ok(combined(collected, body, requests, started, query));
            }
        }
    }
}

/// One answer of every review a followed fetch collected: the last answer
/// (its `extra_information`, and its continuation, if it stopped early) with
/// every review, and a message that counts all.
fn combined(
    reviews: Vec<Value>,
    mut body: Value,
    requests: u32,
    started: Instant,
    query: &str,
) -> Value {
    let message = format!(
        "Fetched {} reviews of {query} in {requests} requests ({:.1} s), following the continuation{}",
        reviews.len(),
        started.elapsed().as_secs_f64(),
        if body["all_reviews"].is_array() {
            " to the end."
        } else {
            "; a request failed, so it stopped early: send the token back to resume."
        }
    );
    body["all_reviews"] = Value::Array(reviews);
    body["message"] = json!(message);
    body
}

/// Fetches one forum post.
pub(super) async fn post(
    config: &Config,
    source: &Source,
    args: &FetchArgs,
) -> anyhow::Result<Value> {
    let mut body = Map::new();
    body.insert("query".into(), json!(args.query));
    body.extend(args.fields.clone());
    let request = validate::post_request(Value::Object(body).to_string().as_bytes())
        .map_err(anyhow::Error::msg)?;
    let deadline = Instant::now() + config.fetch_budget();
    let json = source
        .runtime
        .fetch_post(
            &source.plugin,
            "cli",
            &request.query,
            deadline,
            std::sync::Arc::new(Session::new()),
        )
        .await?
        .map_err(|e| {
            anyhow::anyhow!(
                "{}",
                crate::error::ApiError::from_fetch(&source.plugin.label(), e)
            )
        })?;
    let record = PostRecord::from_plugin_json(&json, request.is_text_formatted)
        .map_err(|e| anyhow::anyhow!("plugin {}: {e}", source.plugin.manifest.name))?;
    Ok(json!({ "all_reviews": [record] }))
}
