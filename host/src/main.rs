//! The `gleaner` server binary.

use std::path::PathBuf;

use anyhow::Context;
use gleaner::cli::FetchArgs;
use gleaner::config::Config;
use gleaner::App;

/// jemalloc, with a background thread that gives freed pages back to the system
/// within about a second: the system allocator kept what a burst of slow
/// connections had used.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings: purge dirty pages after 1 s, from a background thread.
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

const USAGE: &str = "usage:
  gleaner [serve] [--config FILE]
      Serves the Gleaner API. Settings come from the TOML file (or GLEANER_CONFIG)
      and GLEANER_* environment variables; see the README's configuration reference.
  gleaner plugin check PATH
      Validates a plugin's manifest and component (world, package version,
      manifest, allowlist) without a server. PATH: the manifest, or the component.
  gleaner fetch LABEL QUERY [--sort S] [--filter F] [--max N] [--record OUT.har | --replay IN.har]
      Runs a source locally: progress on stderr, the response JSON on stdout.";

#[tokio::main]
async fn main() {
    match run().await {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

async fn run() -> anyhow::Result<i32> {
    let mut config_file = std::env::var_os("GLEANER_CONFIG").map(PathBuf::from);
    let mut positional = Vec::new();
    let mut fetch = FetchArgs::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value\n\n{USAGE}"))
        };
        match arg.as_str() {
            "--config" => config_file = Some(value("--config")?.into()),
            "--sort" => fetch.sort = Some(value("--sort")?),
            "--filter" => fetch.filter = Some(value("--filter")?),
            "--max" => {
                fetch.max = Some(
                    value("--max")?
                        .parse()
                        .context("--max takes a positive whole number")?,
                )
            }
            "--record" => fetch.record = Some(value("--record")?.into()),
            "--replay" => fetch.replay = Some(value("--replay")?.into()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(0);
            }
            flag if flag.starts_with("--") => anyhow::bail!("unknown option {flag:?}\n\n{USAGE}"),
            _ => positional.push(arg),
        }
    }
    let config = Config::load(config_file.as_deref())?;
    match positional
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["serve"] => serve(config).await.map(|_| 0),
        ["plugin", "check", path] => {
            init_logging("warn");
            let problems = gleaner::cli::check(&config, std::path::Path::new(path)).await?;
            Ok(if problems == 0 { 0 } else { 1 })
        }
        ["fetch", label, query] => {
            init_logging("warn");
            fetch.label = (*label).to_owned();
            fetch.query = (*query).to_owned();
            gleaner::cli::fetch(&config, fetch).await.map(|_| 0)
        }
        other => anyhow::bail!("unknown command {:?}\n\n{USAGE}", other.join(" ")),
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    init_logging("info");
    let started = std::time::Instant::now();
    let app = App::build(config).await?;
    app.check_bind()?;
    let addr = app.state.config.addr;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr}; is another server using it? set GLEANER_ADDR")
    })?;
    let plugins = app.state.registry.plugins();
    tracing::info!(
        %addr,
        plugins = plugins.len(),
        failed = app.state.registry.failures().len(),
        pooling = app.state.runtime.pooling,
        startup_ms = started.elapsed().as_millis() as u64,
        "gleaner listening"
    );
    if app.state.keys.is_empty() {
        tracing::warn!(%addr, "no API keys configured: listening on loopback only, without authentication");
    }
    for p in &plugins {
        eprintln!(
            "  POST {}  ({} {})",
            p.manifest.route, p.manifest.name, p.manifest.version
        );
    }
    app.serve(listener, shutdown_signal()).await
}

fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GLEANER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if std::env::var("GLEANER_LOG_FORMAT").is_ok_and(|v| v == "json") {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
