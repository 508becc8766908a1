//! Benchmarks (`make bench`): instantiate + call time per plugin call (one
//! `fetch-page` of every source on its replayed fixture), requests/s
//! of /features/review-chunk at 64 concurrent connections, and start-up time of
//! the `gleaner` binary with and without the compile cache.
//!
//! Expects `make plugins host` to have run (make bench does).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::config::Config;
use gleaner::App;

mod proxy;
mod session;
mod sources;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// An app serving the built plugins, with upstream traffic replayed from the fixtures.
async fn replay_app() -> anyhow::Result<App> {
    let config = Config {
        plugin_dir: root().join("target/plugins"),
        cache_dir: Some(root().join("target/gleaner-cache")),
        replay: Some(root().join("tests/fixtures/har")),
        watch: false,
        ..Config::default()
    };
    App::build(config).await
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{name}: n={} median={:.3} ms p99={:.3} ms max={:.3} ms",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.99).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3
    );
}

async fn instantiate_and_call() -> anyhow::Result<()> {
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    println!(
        "allocator: {}",
        if runtime.pooling {
            "pooling"
        } else {
            "on-demand"
        }
    );
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
    spawn_server_with(port, cache, &root().join("target/plugins"))
}

fn spawn_server_with(port: u16, cache: &Path, plugins: &Path) -> ServerProcess {
    let child = Command::new(root().join("target/release/gleaner"))
        .env("GLEANER_ADDR", format!("127.0.0.1:{port}"))
        .env("GLEANER_PLUGIN_DIR", plugins)
        .env("GLEANER_ADMIN_KEYS", "bench-admin")
        .env("GLEANER_CACHE_DIR", cache)
        .env("GLEANER_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
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

async fn startup() -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for _ in 0..3 {
        let cache = tempfile::tempdir()?;
        for samples in [&mut cold, &mut warm] {
            let port = free_port();
            let started = Instant::now();
            let server = spawn_server(port, cache.path());
            wait_ready(&client, port).await;
            samples.push(started.elapsed());
            drop(server);
        }
    }
    report("start-up to first /healthz, empty compile cache", cold);
    report("start-up to first /healthz, warm compile cache", warm);
    Ok(())
}

async fn throughput() -> anyhow::Result<()> {
    let port = free_port();
    let cache = root().join("target/gleaner-cache");
    let _server = spawn_server(port, &cache);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()?;
    wait_ready(&client, port).await;
    let url = Arc::new(format!("http://127.0.0.1:{port}/features/review-chunk"));
    let body = r#"{"review_id":"r1","review_text":"Dr. Patel explained everything clearly, e.g. the 2.5 hour recovery. The staff at Smile Inc. were kind! I paid $120.50 and would go back.","widget_type":"card"}"#;
    let duration = Duration::from_secs(10);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..64 {
        let (client, url) = (client.clone(), url.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            while started.elapsed() < duration {
                let t = Instant::now();
                let ok = client
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .map(|r| r.status().is_success())
                    .unwrap_or(false);
                if ok {
                    latencies.push(t.elapsed());
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (l, e) = t.await?;
        all.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "review-chunk at 64 concurrent connections for {:.0} s: {} ok, {errors} failed, {:.0} requests/s",
        elapsed,
        all.len(),
        all.len() as f64 / elapsed
    );
    report("review-chunk latency under that load", all);
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
    Ok(())
}

/// Compile time of each plugin component, without the cache.
async fn compile_times() -> anyhow::Result<()> {
    let cache = tempfile::tempdir()?;
    let config = Config {
        plugin_dir: root().join("target/plugins"),
        cache_dir: Some(cache.path().to_owned()),
        watch: false,
        ..Config::default()
    };
    let app = App::build(config).await?;
    for p in app.state.registry.plugins() {
        let size = std::fs::metadata(
            p.manifest.component_path(
                &root()
                    .join("target/plugins")
                    .join(format!("{}.toml", p.manifest.name)),
            ),
        )
        .map(|m| m.len())
        .unwrap_or(0);
        println!(
            "compile {}: {} ms ({} KiB component)",
            p.manifest.name,
            p.compile_time.as_millis(),
            size / 1024
        );
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!(
        "machine: {} cores",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0)
    );
    instantiate_and_call().await?;
    sources::fetch_page_per_source().await?;
    session::overhead_per_request(10_000);
    proxy::overhead_per_request(2_000).await?;
    processor_latency().await?;
    compile_times().await?;
    startup().await?;
    swap_latency().await?;
    throughput().await?;
    Ok(())
}
