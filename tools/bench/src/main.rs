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
//! `--startup` (start-up and hot swap), `--jobs`, `--changes`, `--cluster`,
//! `--idle` and `--stack` likewise.

use std::path::{Path, PathBuf};
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
mod processors;
mod proxy;
mod report;
mod server;
mod session;
mod sources;
mod stack;
mod startup;
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
        return processors::call_loop(&args[2..]).await;
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
    if args.get(1).map(String::as_str) == Some("--startup") {
        // The start-up and hot-swap sections alone, written to target/bench/startup.md.
        report::header(machine());
        startup::sections().await?;
        return report::write(&bench_dir().join("startup.md"));
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
        processors::processor_latency().await?;
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
    processors::processor_latency().await?;
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

    startup::sections().await?;

    report::section(
        "throughput",
        "requests/s of /features/review-chunk through `target/release/gleaner`.",
    );
    startup::throughput().await?;

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
