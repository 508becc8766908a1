//! An HTTP load generator: a fixed number of connections, each sending POSTs
//! back to back for a fixed time, bounded in count and time, to loopback only.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a load run saw.
#[derive(Debug, Default)]
pub struct Load {
    /// Latencies of the successful (2xx) requests.
    pub latencies: Vec<Duration>,
    /// Answers by status (0: no answer).
    pub statuses: BTreeMap<u16, usize>,
    /// One body of each failing status, for the report.
    pub failures: BTreeMap<u16, String>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl Load {
    /// Successful requests.
    pub fn ok(&self) -> usize {
        self.latencies.len()
    }

    /// Failed requests (non-2xx or no answer).
    pub fn failed(&self) -> usize {
        self.statuses
            .iter()
            .filter(|(s, _)| !(200..300).contains(*s))
            .map(|(_, n)| n)
            .sum()
    }

    /// Successful requests per second.
    pub fn rate(&self) -> f64 {
        self.ok() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Failures in a few words: "12 × 503 (plugin ... at its limit)".
    pub fn failure_summary(&self) -> String {
        let parts: Vec<String> = self
            .failures
            .iter()
            .map(|(status, body)| {
                let n = self.statuses.get(status).copied().unwrap_or(0);
                let body: String = body.chars().take(160).collect();
                format!("{n} × {status} ({body})")
            })
            .collect();
        parts.join("; ")
    }
}

/// A client for `connections` concurrent connections to one server.
pub fn client(connections: usize) -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .pool_max_idle_per_host(connections)
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()?)
}

/// Sends `bodies` (in turn) to `url` over `connections` connections for `duration`.
pub async fn drive(
    client: &reqwest::Client,
    url: &str,
    bodies: Arc<Vec<String>>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Load> {
    let url = Arc::new(url.to_owned());
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..connections {
        let (client, url, bodies) = (client.clone(), url.clone(), bodies.clone());
        tasks.push(tokio::spawn(async move {
            let mut load = Load::default();
            let mut i = c;
            while started.elapsed() < duration {
                let body = bodies[i % bodies.len()].clone();
                i += 1;
                let t = Instant::now();
                let answer = client
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await;
                let (status, text) = match answer {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        (status, r.text().await.unwrap_or_default())
                    }
                    Err(e) => (0, e.to_string()),
                };
                *load.statuses.entry(status).or_default() += 1;
                if (200..300).contains(&status) {
                    load.latencies.push(t.elapsed());
                } else {
                    load.failures.entry(status).or_insert(text);
                }
            }
            load
        }));
    }
    let mut all = Load::default();
    for t in tasks {
        let load = t.await?;
        all.latencies.extend(load.latencies);
        for (status, n) in load.statuses {
            *all.statuses.entry(status).or_default() += n;
        }
        for (status, body) in load.failures {
            all.failures.entry(status).or_insert(body);
        }
    }
    all.elapsed = started.elapsed();
    Ok(all)
}

/// `--load URL BODY CONNECTIONS SECONDS`: loads a server (loopback only) and prints the outcome.
pub async fn command(args: &[String]) -> anyhow::Result<()> {
    let [url, body, connections, seconds] = args else {
        anyhow::bail!("usage: bench --load URL BODY CONNECTIONS SECONDS");
    };
    let parsed = url::Url::parse(url)?;
    anyhow::ensure!(
        matches!(parsed.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")),
        "--load only drives a server on this machine (127.0.0.1, localhost or [::1])"
    );
    let connections: usize = connections.parse()?;
    let seconds: u64 = seconds.parse()?;
    anyhow::ensure!(seconds <= 600, "--load runs for at most 600 seconds");
    let client = client(connections)?;
    let run = drive(
        &client,
        url,
        Arc::new(vec![body.clone()]),
        connections,
        Duration::from_secs(seconds),
    )
    .await?;
    let s = crate::report::Summary::of(&run.latencies);
    println!(
        "{} ok, {} failed, {:.0} requests/s, median {}, p99 {}",
        run.ok(),
        run.failed(),
        run.rate(),
        crate::report::duration(s.median),
        crate::report::duration(s.p99)
    );
    if run.failed() > 0 {
        println!("{}", run.failure_summary());
    }
    Ok(())
}
