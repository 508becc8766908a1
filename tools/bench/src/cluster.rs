//! The cluster section: jobs through one and three replicas sharing a real
//! NATS server with JetStream (Debian's `nats-server`, on a random loopback
//! port), against a local upstream that answers each page after 100 ms, with
//! a cluster-wide pace on the upstream host high enough not to bind; and the
//! time from an admin upload on one replica to every replica serving it.
//! Skipped, saying so, where `nats-server` is not installed.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use gleaner::capabilities::http::pacing::Pace;
use serde_json::{json, Value};

use crate::report::{self, Row};
use crate::root;

/// Jobs submitted at once, and the pages of each.
const JOBS: usize = 12;
const PAGES: usize = 25;

/// A `nats-server -js` on a free loopback port, killed when dropped; its
/// store lives in the directory, removed with it.
pub(crate) struct Nats(Child, u16, #[allow(dead_code)] tempfile::TempDir);

impl Nats {
    /// Starts one; none when `nats-server` is missing or never listens.
    pub(crate) fn start() -> Option<Nats> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let dir = tempfile::tempdir().ok()?;
        let child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(20) {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Nats(child, port, dir))
    }
}

impl Nats {
    /// Its client URL.
    pub(crate) fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.1)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A replica of the cluster at `nats`, serving the plugins in `plugins`.
async fn replica(
    nats: &Nats,
    name: &str,
    plugins: &std::path::Path,
    upstream: std::net::SocketAddr,
) -> anyhow::Result<(String, tempfile::TempDir)> {
    let data = tempfile::tempdir()?;
    let url = nats.url();
    let base = crate::jobs::server(upstream, data.path(), |config| {
        config.plugin_dir = plugins.to_owned();
        config.token_secret = Some("bench-token-secret-of-at-least-32-bytes".into());
        config.admin_keys = vec!["bench-admin".into()];
        config.cluster.nats_url = Some(url);
        // A NATS of its own on loopback, for this run only.
        config.cluster.insecure = true;
        config.cluster.replica_name = Some(name.into());
        // A cluster-wide pace on the upstream host that never binds here: a
        // turn every 2 ms, taken by compare-and-set like any other.
        config.pacing.insert(
            "www.trustpilot.com".into(),
            Pace {
                requests_per_minute: 30_000,
                ..Pace::default()
            },
        );
    })
    .await?;
    Ok((base, data))
}

/// Submits [`JOBS`] jobs spread over `bases` and waits for all: the reviews
/// collected and the time taken.
async fn jobs(client: &reqwest::Client, bases: &[String]) -> anyhow::Result<(u64, Duration)> {
    let started = Instant::now();
    let mut ids = Vec::new();
    for i in 0..JOBS {
        let base = &bases[i % bases.len()];
        let query = format!("https://www.trustpilot.com/review/bench{i}.example");
        let job: Value = client
            .post(format!("{base}/jobs"))
            .json(
                &json!({"endpoint": "/customer-feedback-hub/reviews", "request": {"query": query}}),
            )
            .send()
            .await?
            .json()
            .await?;
        ids.push(job["job_id"].as_str().unwrap_or_default().to_owned());
    }
    let mut total = 0;
    for id in ids {
        total += crate::jobs::wait(client, &bases[0], &id).await?;
    }
    Ok((total, started.elapsed()))
}

/// Uploads test-swap 2.0.0 to the first replica: the time until every
/// replica serves it.
async fn rollout(client: &reqwest::Client, bases: &[String]) -> anyhow::Result<Duration> {
    let staged = |f: &str| std::fs::read(root().join("target/test-plugins").join(f));
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let upload = json!({
        "manifest": String::from_utf8(staged("test-swap-v2.toml")?)?,
        "component": b64(&staged("test-swap-v2.wasm")?),
    });
    let started = Instant::now();
    let r = client
        .put(format!("{}/admin/plugins/test-swap", bases[0]))
        .header("x-api-key", "bench-admin")
        .json(&upload)
        .send()
        .await?;
    anyhow::ensure!(
        r.status() == 200,
        "the upload was refused: {}",
        r.text().await?
    );
    for base in bases {
        loop {
            let r = client
                .post(format!("{base}/test/swap"))
                .json(&json!({}))
                .send()
                .await?;
            let version = r.headers().get("x-gleaner-plugin-version").cloned();
            if version.as_ref().and_then(|v| v.to_str().ok()) == Some("2.0.0") {
                break;
            }
            anyhow::ensure!(
                started.elapsed() < Duration::from_secs(30),
                "{base} never served 2.0.0"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    Ok(started.elapsed())
}

/// A plugin directory with the hub and test-swap 1.0.0.
fn plugin_dir() -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    for name in ["customer-feedback-hub.toml", "customer-feedback-hub.wasm"] {
        std::fs::copy(crate::staged_plugins().join(name), dir.path().join(name))?;
    }
    for (from, to) in [
        ("test-swap-v1.toml", "test-swap.toml"),
        ("test-swap-v1.wasm", "test-swap-v1.wasm"),
    ] {
        std::fs::copy(
            root().join("target/test-plugins").join(from),
            dir.path().join(to),
        )?;
    }
    Ok(dir)
}

/// The section.
pub async fn report() -> anyhow::Result<()> {
    report::section(
        "cluster",
        &format!(
            "{JOBS} jobs of {PAGES} pages (20 reviews a page, each answered after 100 ms by a local \
             upstream) submitted round-robin to one replica, then to three, all in cluster mode on one \
             real nats-server with JetStream; a cluster-wide pace on the upstream host of a turn every \
             2 ms, which never binds. Each replica runs 4 jobs at once (jobs_concurrency). Then the time \
             from an admin upload on one of three replicas to all three serving it."
        ),
    );
    let Some(nats) = Nats::start() else {
        report::row(Row {
            what: "skipped: nats-server is not installed (make test-cluster installs it)".into(),
            ..Row::default()
        });
        return Ok(());
    };
    let client = reqwest::Client::new();
    let upstream = crate::jobs::upstream(PAGES, Duration::from_millis(100)).await?;
    let mut rates = Vec::new();
    for replicas in [1, 3] {
        let plugins = plugin_dir()?;
        let mut bases = Vec::new();
        let mut keep = Vec::new();
        for i in 0..replicas {
            let (base, data) = replica(
                &nats,
                &format!("bench-{replicas}-{i}"),
                plugins.path(),
                upstream,
            )
            .await?;
            bases.push(base);
            keep.push(data);
        }
        let (reviews, took) = jobs(&client, &bases).await?;
        let rate = reviews as f64 / took.as_secs_f64();
        rates.push(rate);
        report::row(Row {
            what: format!("{replicas} replica(s): {JOBS} jobs, {reviews} reviews"),
            value: Some(format!("{:.1} s, {rate:.0} reviews/s", took.as_secs_f64())),
            ratio: (replicas == 3).then(|| format!("{:.2}x one replica", rate / rates[0])),
            ..Row::default()
        });
        if replicas == 3 {
            let took = rollout(&client, &bases).await?;
            report::row(Row {
                what: "admin upload on one replica → all three serving it".into(),
                value: Some(format!("{:.0} ms", took.as_secs_f64() * 1000.0)),
                ..Row::default()
            });
        }
    }
    Ok(())
}
