//! Benchmarks (`make bench`), written to `target/bench/report.md` as they
//! are printed: instantiate + call time per plugin call, one `fetch-page` of
//! every source on its replayed fixture, the processors, the WASM tax (each
//! algorithm natively against the plugin, per call and per HTTP request),
//! peers (pySBD, PRAW), the server's memory, compile and start-up times, hot
//! swap, and requests/s of /features/review-chunk at 64 concurrent connections.
//!
//! Expects `make plugins host` to have run (make bench does). `make bench-peers`
//! installs the Python peers once. A section is added by writing one async
//! function that opens it with `report::section` and records its figures, and
//! calling it from `main` (see `paging.rs`).
//!
//! `bench --native-server PORT REPLAY` is the native server the WASM tax loads
//! (see `native_server.rs`); the benchmark starts it itself. `bench --load URL
//! BODY CONNECTIONS SECONDS` loads a running server and prints what it saw, for
//! profiling a server by hand (`perf record -p <pid>` meanwhile).
//! `bench --paging` runs the paging section alone (`target/bench/paging.md`);
//! `--jobs`, `--changes`, `--cluster`, `--idle` and `--stack` likewise.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::config::Config;
use gleaner::App;

mod changes;
mod chart;
mod cluster;
mod corpus;
mod export;
mod first_call;
mod idle;
mod jobs;
mod load;
mod memory;
mod native;
mod native_server;
mod paging;
mod peers;
mod proxy;
mod report;
mod session;
mod sources;
mod stack;
mod tax;
mod upstream;
mod web_page;

/// jemalloc, as the server uses, so the native server allocates as it does.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings, as the server's.
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Where `make plugins` stages the plugins: `target/plugins`.
fn staged_plugins() -> PathBuf {
    root().join("target/plugins")
}

/// Where the report, its charts and the peers' virtualenv live: `target/bench`.
fn bench_dir() -> PathBuf {
    root().join("target/bench")
}

/// An app serving the built plugins, with upstream traffic replayed from the fixtures.
async fn replay_app() -> anyhow::Result<App> {
    replay_app_of(&root().join("tests/fixtures/har")).await
}

/// The staged plugins, their upstream answered from the recordings in `replay`.
async fn replay_app_of(replay: &std::path::Path) -> anyhow::Result<App> {
    let config = Config {
        plugin_dir: staged_plugins(),
        cache_dir: Some(root().join("target/gleaner-cache")),
        replay: Some(replay.to_owned()),
        watch: false,
        ..Config::default()
    };
    App::build(config).await
}

/// Builds the app of `config` and serves it on a loopback port in this
/// process, its Trustpilot traffic sent to `upstream`; its base URL.
/// A server's settings for a benchmark: the staged plugins, the shared
/// compilation cache, its data in `data`, no watcher, a loopback port.
fn local_config(data: &Path) -> Config {
    Config {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        plugin_dir: staged_plugins(),
        cache_dir: Some(root().join("target/gleaner-cache")),
        data_dir: data.to_owned(),
        watch: false,
        ..Config::default()
    }
}

async fn serve_local(mut config: Config, upstream: std::net::SocketAddr) -> anyhow::Result<String> {
    config
        .upstream_override
        .insert("www.trustpilot.com".into(), format!("http://{upstream}"));
    let app = App::build(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { app.serve(listener, std::future::pending()).await });
    Ok(base)
}

/// Runs `call` `warmup + n` times and returns the durations of the last `n`.
async fn timed<F, Fut>(warmup: usize, n: usize, mut call: F) -> anyhow::Result<Vec<Duration>>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let mut samples = Vec::with_capacity(n);
    for i in 0..warmup + n {
        let started = Instant::now();
        call().await?;
        if i >= warmup {
            samples.push(started.elapsed());
        }
    }
    Ok(samples)
}

/// Prints and records durations (n, median, p99) in the open report section.
fn report(name: &str, samples: Vec<Duration>) {
    report::samples(name, &samples, None);
}

async fn instantiate_and_call() -> anyhow::Result<()> {
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    report::note(format!(
        "instance allocator: {}",
        if runtime.pooling {
            "pooling"
        } else {
            "on-demand"
        }
    ));
    let chunk = app
        .state
        .registry
        .get("/features/review-chunk")
        .expect("review-chunk loaded");
    let input = r#"{"review_text":"Dr. Patel explained everything clearly, e.g. the 2.5 hour recovery. The staff at Smile Inc. were kind! I paid $120.50 and would go back.","widget_type":"card"}"#;
    let samples = timed(50, 2000, || async {
        let deadline = Instant::now() + Duration::from_secs(5);
        runtime
            .process(&chunk, "bench", input, deadline)
            .await?
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        Ok(())
    })
    .await?;
    report("instantiate+call review-chunk process()", samples);

    Ok(())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server process, stopped when dropped.
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_server(port: u16, cache: &Path) -> ServerProcess {
    spawn_server_with(port, cache, &staged_plugins())
}

fn spawn_server_with(port: u16, cache: &Path, plugins: &Path) -> ServerProcess {
    spawn_server_env(port, cache, plugins, &[])
}

/// Starts `target/release/gleaner` on `port` with the plugins in `plugins`
/// and the extra environment `env`.
fn spawn_server_env(
    port: u16,
    cache: &Path,
    plugins: &Path,
    env: &[(&str, &str)],
) -> ServerProcess {
    let mut command = Command::new(root().join("target/release/gleaner"));
    command
        .env("GLEANER_ADDR", format!("127.0.0.1:{port}"))
        .env("GLEANER_PLUGIN_DIR", plugins)
        .env("GLEANER_ADMIN_KEYS", "bench-admin")
        .env("GLEANER_CACHE_DIR", cache)
        .env("GLEANER_LOG", "warn")
        // Every load comes from one loopback address: the per-client limit
        // would measure itself, not the server.
        .env("GLEANER_MAX_IN_FLIGHT_PER_CLIENT", "4096")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let child = command
        .spawn()
        .expect("target/release/gleaner exists (make host)");
    ServerProcess(child)
}

async fn wait_ready(client: &reqwest::Client, port: u16) {
    loop {
        if let Ok(r) = client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
        {
            if r.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A server process on `port` serving `plugins` with compile cache `cache`, for
/// the start-up figures.
fn spawn_startup_server(port: u16, cache: &Path, plugins: &Path) -> ServerProcess {
    let child = Command::new(root().join("target/release/gleaner"))
        .env("GLEANER_ADDR", format!("127.0.0.1:{port}"))
        .env("GLEANER_PLUGIN_DIR", plugins)
        .env("GLEANER_CACHE_DIR", cache)
        .env("GLEANER_WATCH", "false")
        .env("GLEANER_LOG", "warn")
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_REPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("target/release/gleaner exists (make host)");
    ServerProcess(child)
}

/// Polls /healthz every 2 ms until `done` accepts its answer.
async fn wait_health(
    client: &reqwest::Client,
    port: u16,
    done: impl Fn(&serde_json::Value) -> bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        if let Ok(r) = client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
        {
            if let Ok(health) = r.json::<serde_json::Value>().await {
                if done(&health) {
                    return Ok(());
                }
            }
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(300),
            "the server never reached the awaited state"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Start-up of the `gleaner` binary, from spawning it, each run with a fresh
/// compile cache: to a healthy /healthz with every plugin ready from the
/// artifacts `make plugins` staged; with no artifact and an empty cache, to the
/// first route ready and to every plugin ready; and from a warm cache alone.
async fn startup() -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let staged = staged_plugins();
    let files = |ext: &str| -> anyhow::Result<Vec<PathBuf>> {
        Ok(std::fs::read_dir(&staged)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect())
    };
    let expected = files("toml")?.len();
    anyhow::ensure!(
        files("cwasm")?.len() >= expected,
        "target/plugins holds no artifacts; run `make plugins`"
    );
    // The same manifests and components, without their artifacts.
    let bare = tempfile::tempdir()?;
    for file in files("toml")?.into_iter().chain(files("wasm")?) {
        std::fs::copy(
            &file,
            bare.path().join(file.file_name().unwrap_or_default()),
        )?;
    }
    let all_ready = move |h: &serde_json::Value| {
        h["status"] == "ok" && h["plugins"].as_u64() == Some(expected as u64)
    };

    let mut from_artifacts = Vec::new();
    for _ in 0..20 {
        let cache = tempfile::tempdir()?;
        let port = free_port();
        let started = Instant::now();
        let server = spawn_startup_server(port, cache.path(), &staged);
        wait_health(&client, port, all_ready).await?;
        from_artifacts.push(started.elapsed());
        drop(server);
        anyhow::ensure!(
            std::fs::read_dir(cache.path())?.next().is_none(),
            "a plugin was compiled although its artifact was staged"
        );
    }

    let warm = tempfile::tempdir()?;
    let (mut first_route, mut cold_all) = (Vec::new(), Vec::new());
    for run in 0..5 {
        let cache = tempfile::tempdir()?;
        let cache = if run == 4 { warm.path() } else { cache.path() };
        let port = free_port();
        let started = Instant::now();
        let server = spawn_startup_server(port, cache, bare.path());
        wait_health(&client, port, |h| h["plugins"].as_u64() >= Some(1)).await?;
        first_route.push(started.elapsed());
        wait_health(&client, port, all_ready).await?;
        cold_all.push(started.elapsed());
        drop(server);
    }

    let mut from_cache = Vec::new();
    for _ in 0..10 {
        let port = free_port();
        let started = Instant::now();
        let server = spawn_startup_server(port, warm.path(), bare.path());
        wait_health(&client, port, all_ready).await?;
        from_cache.push(started.elapsed());
        drop(server);
    }

    report::note(format!(
        "{expected} plugins; each run a fresh compile cache; goals: every plugin ready from artifacts ≤ 100 ms, \
         first route ready with no artifact and no cache < 1 s"
    ));
    report(
        "start-up to every plugin ready, from staged artifacts (make plugins), empty cache",
        from_artifacts,
    );
    report(
        "start-up to the first route ready, no artifact, empty cache",
        first_route,
    );
    report(
        "start-up to every plugin ready, no artifact, empty cache (all compiled)",
        cold_all,
    );
    report(
        "start-up to every plugin ready, no artifact, warm compile cache",
        from_cache,
    );
    Ok(())
}

async fn throughput() -> anyhow::Result<()> {
    let port = free_port();
    let cache = root().join("target/gleaner-cache");
    let _server = spawn_server(port, &cache);
    let client = load::client(64)?;
    wait_ready(&client, port).await;
    let url = format!("http://127.0.0.1:{port}/features/review-chunk");
    let body = r#"{"review_id":"r1","review_text":"Dr. Patel explained everything clearly, e.g. the 2.5 hour recovery. The staff at Smile Inc. were kind! I paid $120.50 and would go back.","widget_type":"card"}"#;
    let run = load::drive(
        &client,
        &url,
        Arc::new(vec![body.to_owned()]),
        64,
        Duration::from_secs(10),
    )
    .await?;
    let s = report::Summary::of(&run.latencies);
    report::row(report::Row {
        what: format!(
            "review-chunk at 64 concurrent connections for {:.0} s: latency",
            run.elapsed.as_secs_f64()
        ),
        n: Some(run.ok()),
        median: Some(report::duration(s.median)),
        p99: Some(report::duration(s.p99)),
        value: Some(format!(
            "{:.0} requests/s, {} failed",
            run.rate(),
            run.failed()
        )),
        ratio: None,
    });
    if run.failed() > 0 {
        report::note(run.failure_summary());
    }
    Ok(())
}

/// Swap latency: from the manifest rename to the first response served by the new
/// version, against a server process watching its plugin directory.
async fn swap_latency() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let cache = tempfile::tempdir()?;
    let staged = |f: &str| std::fs::read(root().join("target/test-plugins").join(f));
    for f in ["test-swap-v1.wasm", "test-swap-v2.wasm"] {
        std::fs::write(dir.path().join(f), staged(f)?)?;
    }
    std::fs::write(
        dir.path().join("test-swap.toml"),
        staged("test-swap-v1.toml")?,
    )?;
    let port = free_port();
    let _server = spawn_server_with(port, cache.path(), dir.path());
    let client = reqwest::Client::new();
    wait_ready(&client, port).await;
    let url = format!("http://127.0.0.1:{port}/test/swap");
    let mut latencies = Vec::new();
    let mut compile = Vec::new();
    for round in 0..10 {
        let (manifest, version) = if round % 2 == 0 {
            ("test-swap-v2.toml", "2.0.0")
        } else {
            ("test-swap-v1.toml", "1.0.0")
        };
        let tmp = dir.path().join(".test-swap.toml.tmp");
        std::fs::write(&tmp, staged(manifest)?)?;
        let swapped = Instant::now();
        std::fs::rename(&tmp, dir.path().join("test-swap.toml"))?;
        loop {
            let r = client
                .post(&url)
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await?;
            if r.headers()
                .get("x-gleaner-plugin-version")
                .is_some_and(|v| v == version)
            {
                latencies.push(swapped.elapsed());
                break;
            }
            anyhow::ensure!(
                swapped.elapsed() < Duration::from_secs(30),
                "version {version} never served"
            );
        }
        let list: serde_json::Value = client
            .get(format!("http://127.0.0.1:{port}/admin/plugins"))
            .header("x-api-key", "bench-admin")
            .send()
            .await?
            .json()
            .await?;
        let ms = list["plugins"][0]["compile_ms"].as_u64().unwrap_or(0);
        compile.push(Duration::from_millis(ms));
    }
    report(
        "swap: manifest rename to first response from the new version (compile included)",
        latencies.clone(),
    );
    report(
        "swap: compile or cache load of the new version",
        compile.clone(),
    );
    let net: Vec<Duration> = latencies
        .iter()
        .zip(&compile)
        .map(|(l, c)| l.saturating_sub(*c))
        .collect();
    report("swap latency not counting compile time", net);
    Ok(())
}

/// `--loop ROUTE BODY SECONDS`: calls the processor at ROUTE with BODY
/// in-process, one call after another, for SECONDS, and prints the calls
/// made: a steady load on the call path alone (no HTTP) for `perf record`.
async fn call_loop(args: &[String]) -> anyhow::Result<()> {
    let [route, body, seconds] = args else {
        anyhow::bail!("usage: bench --loop ROUTE BODY SECONDS (e.g. /features/review-chunk '{{\"review_text\":\"…\"}}' 10)");
    };
    let seconds: u64 = seconds
        .parse()
        .map_err(|_| anyhow::anyhow!("SECONDS is {seconds:?}; give a whole number of seconds"))?;
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    let plugin = app.state.registry.get(route).ok_or_else(|| {
        anyhow::anyhow!(
            "no plugin serves {route}; give a processor's route, such as /features/review-chunk"
        )
    })?;
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut calls = 0u64;
    while Instant::now() < until {
        let deadline = Instant::now() + Duration::from_secs(10);
        runtime
            .process(&plugin, "bench", body, deadline)
            .await?
            .map_err(|e| anyhow::anyhow!("{route} answered an error: {e:?}"))?;
        calls += 1;
    }
    println!(
        "{calls} calls in {seconds} s: {:.1} µs a call",
        seconds as f64 * 1e6 / calls.max(1) as f64
    );
    Ok(())
}

/// Latency of every processor's instantiate + call, with realistic inputs (the
/// website processors answered from the HAR fixtures).
async fn processor_latency() -> anyhow::Result<()> {
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    let transcript = "um hi so my name is sarah jones and i'm the head of marketing at bluefin analytics uh before we used to spend like two days every month building reports by hand it was really painful and then we started using acme crm and honestly it cut our reporting time by 40 percent so yeah i would recommend it";
    let review = "Setup took ten minutes. Since switching, our team closes tickets 3x faster and we saved about $2,000 a month. i recieved great support , the the staff was definately helpful!!";
    let cases = [
        (
            "/features/review-chunk",
            serde_json::json!({"review_text": review, "widget_type": "card"}),
        ),
        (
            "/features/highlight-review-text",
            serde_json::json!({"review_id": "r1", "review_text": review}),
        ),
        (
            "/features/review-enhancement",
            serde_json::json!({"review_id": "r1", "review_text": review}),
        ),
        (
            "/features/review-insights",
            serde_json::json!({"review_id": "r1", "review_text": thousand_characters(), "review_rating": 4}),
        ),
        (
            "/features/video-metadata-extraction",
            serde_json::json!({"query": transcript}),
        ),
        (
            "/features/video-to-casestudy",
            serde_json::json!({"query": transcript}),
        ),
        (
            "/features/domain-to-asset",
            serde_json::json!({"query": "https://www.bluefin-analytics.com"}),
        ),
        (
            "/public/v1/wol-meta-info",
            serde_json::json!({"email": "a@bluefin-analytics.com", "website": "https://www.bluefin-analytics.com"}),
        ),
    ];
    for (route, input) in cases {
        let plugin = app
            .state
            .registry
            .get(route)
            .ok_or_else(|| anyhow::anyhow!("{route} not loaded"))?;
        let input = input.to_string();
        let samples = timed(20, 200, || async {
            let deadline = Instant::now() + Duration::from_secs(10);
            runtime
                .process(&plugin, "bench", &input, deadline)
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            Ok(())
        })
        .await?;
        report(&format!("processor {route} (instantiate + call)"), samples);
    }
    near_duplicate_check(10_000);
    Ok(())
}

/// What `insights: true` adds per review for `duplicate_of`, in the host: the
/// near-duplicate check of a 1,000-character review against a job's earlier
/// ones, `n` reviews in all (each a seeded shuffle of the same words, so
/// most pairs share many shingles and bands: more candidates to compare than
/// unrelated reviews give).
fn near_duplicate_check(n: usize) {
    use gleaner_text::near_duplicate::NearDuplicates;
    let words: Vec<String> = thousand_characters()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut rng = fastrand::Rng::with_seed(1);
    let texts: Vec<String> = (0..n)
        .map(|_| {
            let mut shuffled = words.clone();
            rng.shuffle(&mut shuffled);
            shuffled.join(" ")
        })
        .collect();
    let mut index = NearDuplicates::default();
    let mut samples = Vec::with_capacity(n);
    let mut found = 0;
    for (i, text) in texts.iter().enumerate() {
        let started = Instant::now();
        found += usize::from(index.check(&i.to_string(), text).is_some());
        samples.push(started.elapsed());
    }
    report(
        &format!(
            "near-duplicate check per 1,000-character review, {n} in one job ({found} flagged)"
        ),
        samples,
    );
}

/// A review of exactly 1,000 characters: a real one (the replayed Trustpilot
/// fixture's longest English reviews, joined) cut at the thousandth.
fn thousand_characters() -> String {
    let path =
        root().join("plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json");
    let reviews: Vec<serde_json::Value> = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut texts: Vec<&str> = reviews
        .iter()
        .filter(|r| r["language"] == "en")
        .filter_map(|r| r["text"].as_str())
        .collect();
    texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let joined = texts.join(" ");
    joined.chars().take(1_000).collect()
}

/// Compile time of each plugin component: the staged manifests and components
/// copied without their precompiled artifacts, loaded with an empty cache.
async fn compile_times() -> anyhow::Result<()> {
    let staged = staged_plugins();
    let plugins = tempfile::tempdir()?;
    let cache = tempfile::tempdir()?;
    for entry in std::fs::read_dir(&staged)? {
        let path = entry?.path();
        let keep = path.extension().is_some_and(|e| e == "toml" || e == "wasm");
        if let (true, Some(name)) = (keep, path.file_name()) {
            std::fs::copy(&path, plugins.path().join(name))?;
        }
    }
    let config = Config {
        plugin_dir: plugins.path().to_owned(),
        cache_dir: Some(cache.path().to_owned()),
        watch: false,
        ..Config::default()
    };
    let started = Instant::now();
    let app = App::build(config).await?;
    let all = started.elapsed();
    for p in app.state.registry.plugins() {
        let size = std::fs::metadata(
            p.manifest
                .component_path(&plugins.path().join(format!("{}.toml", p.manifest.name))),
        )
        .map(|m| m.len())
        .unwrap_or(0);
        report::row(report::Row {
            what: format!("compile {}", p.manifest.name),
            n: Some(1),
            value: Some(format!(
                "{} ({} KiB component{})",
                report::duration(p.compile_time),
                size / 1024,
                if p.from_artifact || p.from_cache {
                    "; not compiled: loaded"
                } else {
                    ""
                }
            )),
            ..report::Row::default()
        });
    }
    report::row(report::Row {
        what: "every plugin loaded, all compiled".into(),
        value: Some(report::duration(all)),
        ..report::Row::default()
    });
    Ok(())
}

fn machine() -> String {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into());
    format!("machine: {cores} cores ({model}); load average at the start: {load}")
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--native-server") {
        let (Some(port), Some(replay)) = (args.get(2), args.get(3)) else {
            anyhow::bail!("usage: bench --native-server PORT REPLAY");
        };
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port.parse()?));
        return native_server::run(addr, Path::new(replay)).await;
    }
    if args.get(1).map(String::as_str) == Some("--loop") {
        return call_loop(&args[2..]).await;
    }
    if args.get(1).map(String::as_str) == Some("--load") {
        return load::command(&args[2..]).await;
    }
    if args.get(1).map(String::as_str) == Some("--paging") {
        // The paging section alone, written to target/bench/paging.md.
        report::header(machine());
        paging::report().await?;
        return report::write(&bench_dir().join("paging.md"));
    }
    if args.get(1).map(String::as_str) == Some("--cluster") {
        // The cluster section alone, written to target/bench/cluster.md.
        report::header(machine());
        cluster::report().await?;
        return report::write(&bench_dir().join("cluster.md"));
    }
    if args.get(1).map(String::as_str) == Some("--idle") {
        // The idle section alone, written to target/bench/idle.md.
        report::header(machine());
        idle::report().await?;
        return report::write(&bench_dir().join("idle.md"));
    }
    if args.get(1).map(String::as_str) == Some("--changes") {
        // The changes section alone, written to target/bench/changes.md.
        report::header(machine());
        changes::report().await?;
        return report::write(&bench_dir().join("changes.md"));
    }
    if args.get(1).map(String::as_str) == Some("--export") {
        // Streamed exports of a 100,000-review job, written to target/bench/export.md.
        report::header(machine());
        export::report().await?;
        return report::write(&bench_dir().join("export.md"));
    }
    if args.get(1).map(String::as_str) == Some("--web-page") {
        // The web-page source on a 1 MiB page, written to target/bench/web-page.md.
        report::header(machine());
        web_page::report().await?;
        return report::write(&bench_dir().join("web-page.md"));
    }
    if args.get(1).map(String::as_str) == Some("--jobs") {
        // The jobs section alone, written to target/bench/jobs.md.
        report::header(machine());
        jobs::report().await?;
        return report::write(&bench_dir().join("jobs.md"));
    }
    if args.get(1).map(String::as_str) == Some("--sources") {
        // Every source's fetch-page, with its first-call cost, written to
        // target/bench/sources.md.
        report::header(machine());
        sources::fetch_page_per_source().await?;
        return report::write(&bench_dir().join("sources.md"));
    }
    if args.get(1).map(String::as_str) == Some("--first-call") {
        // The first-call check of every plugin (or only the one named after
        // it, to profile it alone), written to target/bench/first-call.md.
        let only = args.get(2).map(String::as_str);
        report::header(machine());
        report::section(
            "first call",
            "Every plugin's first call in a fresh instance against the same call again in it.",
        );
        sources::first_calls(300, only).await?;
        first_call::every_other_plugin(100, only).await?;
        return report::write(&bench_dir().join("first-call.md"));
    }
    if args.get(1).map(String::as_str) == Some("--processors") {
        // The processors section alone, written to target/bench/processors.md.
        report::header(machine());
        processor_latency().await?;
        return report::write(&bench_dir().join("processors.md"));
    }
    if args.get(1).map(String::as_str) == Some("--stack") {
        // How deep each plugin's stack goes over its cases (or only the one
        // named after it), written to target/bench/stack.md.
        report::header(machine());
        stack::report(args.get(2).map(String::as_str)).await?;
        return report::write(&bench_dir().join("stack.md"));
    }
    if args.get(1).map(String::as_str) == Some("--tax") {
        // The WASM tax section alone, written to target/bench/tax.md.
        report::header(machine());
        tax::measure_and_keep("bench --tax").await?;
        return report::write(&bench_dir().join("tax.md"));
    }
    let started = Instant::now();
    report::header(machine());
    report::header(format!(
        "written by `make bench` at {} (UTC); every figure below was measured in this run",
        time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default()
    ));

    report::section(
        "instantiate+call",
        "One review-chunk `process()` through wasmtime: a fresh store, instantiation, the call.",
    );
    instantiate_and_call().await?;

    report::section(
        "sources fetch-page",
        "One `fetch-page` of every source on the first page of its replayed fixture, instantiation included.",
    );
    let corpus = sources::fetch_page_per_source().await?;

    report::section(
        "host HTTP overheads",
        "What the host adds to each upstream request.",
    );
    session::overhead_per_request(10_000);
    proxy::overhead_per_request(2_000).await?;

    report::section(
        "processors",
        "Every processor, instantiation included, on realistic inputs (website processors answered from the HAR fixtures).",
    );
    processor_latency().await?;
    first_call::every_other_plugin(100, None).await?;

    report::section(
        "WASM tax",
        "The same algorithm compiled natively and called in-process, against the plugin through wasmtime \
         with a fresh store per call, as served; then per HTTP request, at 64 connections, the native call \
         behind the same kind of axum route (`bench --native-server`, its own process, as the server is) \
         against the plugin route of `target/release/gleaner`. Goal: per HTTP request, plugin ≤ 1.5× native.",
    );
    tax::measure_and_keep("make bench").await?;

    report::section(
        "peers",
        "review-chunk's sentence mode against pySBD over the same real review texts; forum-site against \
         PRAW fetching the same post, its community and its author from one local upstream.",
    );
    peers::report(&corpus).await?;

    report::section(
        "memory",
        "The server process (`target/release/gleaner`, every plugin loaded), read from /proc: resident \
         memory sampled every 10 ms during each load (median, p99, peak), and the address space the \
         pooling allocator reserves. Each review fetch holds a plugin instance for at least the upstream's delay.",
    );
    memory::report(8).await?;

    report::section(
        "compile",
        "Compile time of each plugin component, without artifact or cache, the plugins compiling \
         side by side on the machine's cores.",
    );
    compile_times().await?;

    report::section(
        "start-up",
        "From spawning `target/release/gleaner` to its first healthy `/healthz`.",
    );
    startup().await?;

    report::section(
        "swap",
        "Hot swap against a server process watching its plugin directory.",
    );
    swap_latency().await?;

    report::section(
        "throughput",
        "requests/s of /features/review-chunk through `target/release/gleaner`.",
    );
    throughput().await?;

    paging::report().await?;

    jobs::report().await?;

    changes::report().await?;

    cluster::report().await?;

    idle::report().await?;

    report::header(format!(
        "the run took {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    report::write(&bench_dir().join("report.md"))?;
    Ok(())
}
