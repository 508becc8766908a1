//! `gleaner jobs` and `gleaner schedules`: the jobs API from the command
//! line, against a running server (`--server`, `--api-key`). A submitted
//! job can be followed with progress until it ends; its reviews come out
//! as JSON, JSON Lines or CSV (`--format`).

use crate::jobs::model::JobState;
use std::time::Duration;

use anyhow::Context;
use serde_json::{json, Value};

/// Where the server is, and the key to show it.
#[derive(Debug, Clone)]
pub struct Client {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    pub server: String,
    /// The API key, if the server takes one.
    pub api_key: Option<String>,
}

impl Client {
    pub(crate) async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let url = format!("{}{path}", self.server.trim_end_matches('/'));
        let mut request = reqwest::Client::new().request(method.clone(), &url);
        if let Some(key) = &self.api_key {
            request = request.header("x-api-key", key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request.send().await.with_context(|| {
            format!(
                "cannot reach the server at {}; start it (gleaner serve) or give --server",
                self.server
            )
        })?;
        let status = answer.status();
        let value: Value = answer.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let why = value["error"].as_str().unwrap_or("no reason given");
            anyhow::bail!("{method} {path}: {status}: {why}");
        }
        Ok(value)
    }
}

/// A job or schedule request from the flags: `--request` JSON, or `--query`
/// with `--max`.
pub fn request_of(
    request: Option<&str>,
    query: Option<&str>,
    max: Option<u64>,
) -> anyhow::Result<Value> {
    let mut body = match (request, query) {
        (Some(text), None) => serde_json::from_str::<Value>(text).context(
            "--request is not JSON; give the body the endpoint takes, e.g. '{\"query\": \"...\"}'",
        )?,
        (None, Some(q)) => json!({ "query": q }),
        _ => anyhow::bail!("give --query, or the whole body with --request"),
    };
    if let Some(n) = max {
        body["reviews_to_fetch"] = json!(n);
    }
    Ok(body)
}

/// The webhook the flags give.
pub fn webhook_of(url: Option<String>, secret: Option<String>) -> anyhow::Result<Option<Value>> {
    match (url, secret) {
        (None, None) => Ok(None),
        (Some(url), Some(secret)) => Ok(Some(json!({ "url": url, "secret": secret }))),
        _ => anyhow::bail!("--webhook-url and --webhook-secret go together"),
    }
}

/// Submits a job, with `extra` fields of its body (`webhook`, `export`);
/// with `wait`, follows it to its end with progress on stderr. Prints the
/// status; true unless the job failed.
pub async fn submit(
    client: &Client,
    endpoint: &str,
    request: Value,
    extra: serde_json::Map<String, Value>,
    wait: bool,
) -> anyhow::Result<bool> {
    let mut body = json!({ "endpoint": endpoint, "request": request });
    if let Some(fields) = body.as_object_mut() {
        fields.extend(extra);
    }
    let job = client
        .call(reqwest::Method::POST, "/jobs", Some(body))
        .await?;
    let id = job["job_id"].as_str().unwrap_or_default().to_owned();
    eprintln!("job {id} queued");
    if !wait {
        println!("{}", serde_json::to_string_pretty(&job)?);
        return Ok(true);
    }
    follow(client, &id).await
}

/// Polls a job until it ends, showing its progress.
pub async fn follow(client: &Client, id: &str) -> anyhow::Result<bool> {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(100));
    loop {
        let job = client
            .call(reqwest::Method::GET, &format!("/jobs/{id}"), None)
            .await?;
        // The state in the server's own type; a word this build does not
        // know (a newer server's) is shown and waited past.
        let known = serde_json::from_value::<JobState>(job["state"].clone()).ok();
        let state = job["state"].as_str().unwrap_or("?").to_owned();
        bar.set_message(format!(
            "{state}: {} reviews, {} pages",
            job["reviews_collected"], job["pages_fetched"]
        ));
        if known.is_some_and(JobState::is_final) {
            bar.finish_and_clear();
            eprintln!(
                "job {id} {state}: {} reviews{}",
                job["reviews_collected"],
                job["error"]
                    .as_str()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            );
            println!("{}", serde_json::to_string_pretty(&job)?);
            return Ok(known != Some(JobState::Failed));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Prints a job's status.
pub async fn status(client: &Client, id: &str) -> anyhow::Result<()> {
    let job = client
        .call(reqwest::Method::GET, &format!("/jobs/{id}"), None)
        .await?;
    println!("{}", serde_json::to_string_pretty(&job)?);
    Ok(())
}

/// Lists jobs, newest first.
pub async fn list(client: &Client, state: Option<&str>) -> anyhow::Result<()> {
    let path = match state {
        Some(s) => format!("/jobs?state={s}"),
        None => "/jobs".into(),
    };
    let jobs = client.call(reqwest::Method::GET, &path, None).await?;
    println!("{}", serde_json::to_string_pretty(&jobs)?);
    Ok(())
}

/// Cancels a job.
pub async fn cancel(client: &Client, id: &str) -> anyhow::Result<()> {
    let job = client
        .call(reqwest::Method::DELETE, &format!("/jobs/{id}"), None)
        .await?;
    println!("{}", serde_json::to_string_pretty(&job)?);
    Ok(())
}

/// Writes every review of a job in `format`, a page at a time as it
/// arrives (JSON is one array), with the count so far on a terminal's stderr.
pub async fn reviews(client: &Client, id: &str, format: super::Format) -> anyhow::Result<()> {
    use std::io::{IsTerminal, Write};
    let mut encoder = crate::export::Format::from(format).encoder();
    let mut out = std::io::stdout().lock();
    out.write_all(&encoder.begin()?)?;
    let progress = std::io::stderr().is_terminal();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/jobs/{id}/reviews?limit=1000&cursor={c}"),
            None => format!("/jobs/{id}/reviews?limit=1000"),
        };
        let page = client.call(reqwest::Method::GET, &path, None).await?;
        let list = page["reviews"].as_array().map_or(&[][..], Vec::as_slice);
        out.write_all(&encoder.batch(list)?)?;
        if progress {
            eprint!("\r{} reviews", encoder.written());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    out.write_all(&encoder.end()?)?;
    out.flush()?;
    if progress {
        eprintln!();
    }
    eprintln!("{} reviews", encoder.written());
    Ok(())
}

/// Adds a schedule.
pub async fn add_schedule(client: &Client, mut body: Value) -> anyhow::Result<()> {
    if body["webhook"].is_null() {
        body.as_object_mut().map(|o| o.remove("webhook"));
    }
    let schedule = client
        .call(reqwest::Method::POST, "/schedules", Some(body))
        .await?;
    println!("{}", serde_json::to_string_pretty(&schedule)?);
    Ok(())
}

/// Lists every schedule, following the pages.
pub async fn list_schedules(client: &Client) -> anyhow::Result<()> {
    let mut all = Vec::new();
    let mut path = "/schedules?limit=500".to_owned();
    loop {
        let page = client.call(reqwest::Method::GET, &path, None).await?;
        if let Some(schedules) = page["schedules"].as_array() {
            all.extend(schedules.iter().cloned());
        }
        match page["next_after"].as_str() {
            Some(after) => path = format!("/schedules?limit=500&after={after}"),
            None => break,
        }
    }
    let all = serde_json::json!({ "schedules": all });
    println!("{}", serde_json::to_string_pretty(&all)?);
    Ok(())
}

/// A `--change-window` as the API takes it: a number, or `"all"` (and
/// anything else as given, for the server to refuse with its reason).
pub fn window_of(text: &str) -> Value {
    match text.trim().parse::<u64>() {
        Ok(n) => json!(n),
        Err(_) => json!(text.trim()),
    }
}

/// Prints every change a schedule's runs found, following the pages, with
/// the count on stderr.
pub async fn schedule_changes(
    client: &Client,
    id: &str,
    since: Option<&str>,
) -> anyhow::Result<()> {
    let base = format!("/schedules/{id}/changes?limit=1000");
    let base = match since {
        Some(since) => format!(
            "{base}&since={}",
            url::form_urlencoded::byte_serialize(since.as_bytes()).collect::<String>()
        ),
        None => base,
    };
    let mut all = Vec::new();
    let mut path = base.clone();
    loop {
        let page = client.call(reqwest::Method::GET, &path, None).await?;
        if let Some(list) = page["changes"].as_array() {
            all.extend(list.iter().cloned());
        }
        match page["next_cursor"].as_str() {
            Some(next) => path = format!("{base}&cursor={next}"),
            None => break,
        }
    }
    eprintln!("{} changes", all.len());
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({ "changes": all }))?
    );
    Ok(())
}

/// Removes a schedule.
pub async fn remove_schedule(client: &Client, id: &str) -> anyhow::Result<()> {
    let done = client
        .call(reqwest::Method::DELETE, &format!("/schedules/{id}"), None)
        .await?;
    println!("{}", serde_json::to_string_pretty(&done)?);
    Ok(())
}

/// Runs a schedule now; with `wait`, follows the run to its end.
pub async fn run_schedule(client: &Client, id: &str, wait: bool) -> anyhow::Result<bool> {
    let job = client
        .call(reqwest::Method::POST, &format!("/schedules/{id}/run"), None)
        .await?;
    let job_id = job["job_id"].as_str().unwrap_or_default().to_owned();
    eprintln!("run started as job {job_id}");
    if wait {
        return follow(client, &job_id).await;
    }
    println!("{}", serde_json::to_string_pretty(&job)?);
    Ok(true)
}
