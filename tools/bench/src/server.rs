//! The server binary as the benchmarks run it: a free port, a process
//! stopped when dropped, started with the staged plugins (or others, and more
//! environment), and waits for it to answer.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{root, staged_plugins};

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server process, stopped when dropped.
pub(crate) struct ServerProcess(pub(crate) Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn spawn_server(port: u16, cache: &Path) -> ServerProcess {
    spawn_server_with(port, cache, &staged_plugins())
}

pub(crate) fn spawn_server_with(port: u16, cache: &Path, plugins: &Path) -> ServerProcess {
    spawn_server_env(port, cache, plugins, &[])
}

/// Starts `target/release/gleaner` on `port` with the plugins in `plugins`
/// and the extra environment `env`.
pub(crate) fn spawn_server_env(
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

pub(crate) async fn wait_ready(client: &reqwest::Client, port: u16) {
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
pub(crate) fn spawn_startup_server(port: u16, cache: &Path, plugins: &Path) -> ServerProcess {
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
pub(crate) async fn wait_health(
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
