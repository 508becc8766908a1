//! Serving: logging and traces, the listener, the start-up report, and the
//! shutdown signal.

use std::sync::Arc;

use anyhow::Context;

use crate::config::Config;
use crate::secrets::Secrets;
use crate::telemetry::logging::LogSettings;
use crate::App;

pub async fn serve(config: Config) -> anyhow::Result<()> {
    // Logging, and trace export when otlp_endpoint is set; dropped last, sending the last spans.
    let logs = LogSettings::from_env("info")?;
    let json_logs = logs.json;
    let secrets = Arc::new(Secrets::default());
    let _telemetry =
        crate::telemetry::otlp::init(logs, config.otlp_endpoint.as_deref(), secrets.clone())?;
    if config.webhook_allow_private {
        tracing::warn!(
            "webhooks may go to loopback and private addresses (GLEANER_WEBHOOK_ALLOW_PRIVATE): \
             meant for a receiver on this machine or network, not for a public server"
        );
    }
    if let Some(replay) = &config.replay {
        tracing::info!(
            replay = %replay.display(),
            "every site is answered from recorded traffic; nothing reaches the internet"
        );
    }
    let started = std::time::Instant::now();
    let app = App::start_with(config, secrets).await?;
    app.check_bind()?;
    let addr = app.state.config.addr;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr}; is another server using it? set GLEANER_ADDR")
    })?;
    let plugins = app.state.registry.plugins();
    let health = app.state.registry.health();
    tracing::info!(
        %addr,
        plugins = plugins.len(),
        loading = health.loading.len(),
        failed = health.failed.len(),
        pooling = app.state.runtime.pooling,
        startup_ms = started.elapsed().as_millis() as u64,
        "gleaner listening"
    );
    if app.state.keys.is_empty() {
        tracing::warn!(%addr, "no API keys configured: listening on loopback only, without authentication");
    }
    // The routes: a plain list for a person reading text logs, events in
    // JSON mode, where every line is JSON.
    for p in &plugins {
        let m = &p.manifest;
        match json_logs {
            true => {
                tracing::info!(route = %m.route, plugin = %m.name, version = %m.version, "serving")
            }
            false => eprintln!("  POST {}  ({} {})", m.route, m.name, m.version),
        }
    }
    for name in &health.loading {
        match json_logs {
            true => {
                tracing::info!(plugin = %name, "compiling: its route answers 503 until it is ready")
            }
            false => eprintln!("  (compiling) {name}: its route answers 503 until it is ready"),
        }
    }
    if plugins.is_empty() && health.loading.is_empty() {
        let dir = &app.state.config.plugin_dir;
        let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        tracing::error!(
            plugin_dir = %shown.display(),
            "no plugins found: nothing but /healthz, /openapi.json and /docs is served. Build them with \
             `make plugins` in the repository, or point GLEANER_PLUGIN_DIR (relative paths are taken from \
             the directory the server starts in) at a directory of plugin manifests and components; \
             plugins put there later are picked up without a restart"
        );
    }
    if !health.loading.is_empty() {
        let registry = app.state.registry.clone();
        tokio::spawn(async move {
            registry.wait_ready().await;
            let health = registry.health();
            tracing::info!(
                plugins = health.ready,
                failed = health.failed.len(),
                ready_ms = started.elapsed().as_millis() as u64,
                "every plugin loaded"
            );
        });
    }
    app.serve(listener, shutdown_signal()).await
}

/// Logs to stderr with the settings of the environment (`GLEANER_LOG`,
/// `GLEANER_LOG_FORMAT`, `NO_COLOR`), or says which one cannot be used. The
/// secrets the log keeps out: the command registers its own with them.
pub fn init_logging(default: &str) -> Result<Arc<Secrets>, crate::telemetry::logging::LogError> {
    let secrets = Arc::new(Secrets::default());
    LogSettings::from_env(default)?.init(secrets.clone());
    Ok(secrets)
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
