//! The `gleaner` server binary.

use std::path::PathBuf;

use anyhow::Context;
use gleaner::config::Config;
use gleaner::App;

const USAGE: &str = "usage: gleaner [serve] [--config FILE]\n\n\
Serves the Gleaner API. Settings come from the TOML file (or GLEANER_CONFIG) and\n\
GLEANER_* environment variables; see the README's configuration reference.";

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

async fn run() -> anyhow::Result<()> {
    let mut config_file = std::env::var_os("GLEANER_CONFIG").map(PathBuf::from);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "serve" => {}
            "--config" => {
                config_file = Some(args.next().context("--config needs a file path")?.into())
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => anyhow::bail!("unknown argument {other:?}\n\n{USAGE}"),
        }
    }
    init_logging();
    let config = Config::load(config_file.as_deref())?;
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

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GLEANER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
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
