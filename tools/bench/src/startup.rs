//! The server binary's start-up (from staged artifacts, a cold and a warm
//! compile cache), its requests/s on /features/review-chunk, and the latency
//! of a hot swap.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::server::{
    free_port, spawn_server, spawn_server_with, spawn_startup_server, wait_health, wait_ready,
};
use crate::{load, report, root, staged_plugins};

/// The start-up and hot-swap sections.
pub(crate) async fn sections() -> anyhow::Result<()> {
    report::section(
        "start-up",
        "From spawning `target/release/gleaner` to its first healthy `/healthz`.",
    );
    startup().await?;
    report::section(
        "swap",
        "Hot swap against a server process watching its plugin directory.",
    );
    swap_latency().await
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

pub(crate) async fn throughput() -> anyhow::Result<()> {
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
