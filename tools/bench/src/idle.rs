//! The idle section: the CPU a server takes while it holds 10,000 schedules
//! (none due) and 100,000 finished jobs and is asked nothing, on the SQLite
//! store and on a NATS replica (where `nats-server` is installed); and the
//! time to list the first page of `GET /jobs` and `GET /schedules` there.
//!
//! The records go in through the store itself (as the server writes them),
//! owned by `anonymous`, the owner of a server without API keys. The server
//! runs in this process, so the process's CPU time over the window is the
//! server's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::jobs::model::{now_ms, Cadence, JobState, NewJob, NewSchedule};
use gleaner::jobs::store::{JobEnd, Store};
use serde_json::json;

use crate::report::{self, Row};

const SCHEDULES: usize = 10_000;
const FINISHED_JOBS: usize = 100_000;
/// The idle window measured, after the server settles: its start-up work
/// (the retention sweep over every job, a cluster replica's first read of
/// its buckets) is done by then.
const WINDOW: Duration = Duration::from_secs(30);
const SETTLE: Duration = Duration::from_secs(60);

/// The store filled: [`SCHEDULES`] schedules due in a day and
/// [`FINISHED_JOBS`] jobs that ended, `parallel` writes at a time.
async fn fill(store: Arc<dyn Store>, parallel: usize) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let day = now_ms() + 86_400_000;
    let mut work = tokio::task::JoinSet::new();
    for i in 0..SCHEDULES.max(FINISHED_JOBS) {
        while work.len() >= parallel {
            work.join_next().await.expect("a task")??;
        }
        let store = store.clone();
        work.spawn(async move {
            if i < SCHEDULES {
                store
                    .create_schedule(NewSchedule {
                        owner: "anonymous".into(),
                        endpoint: "/customer-feedback-hub/reviews".into(),
                        request: json!({"query": crate::jobs::QUERY}),
                        cadence: Cadence::Every(86_400),
                        webhook: None,
                        next_run_at: day + i as i64,
                        tracking: None,
                        export: None,
                    })
                    .await?;
            }
            if i < FINISHED_JOBS {
                let job = store
                    .create_job(NewJob {
                        owner: "anonymous".into(),
                        endpoint: "/customer-feedback-hub/reviews".into(),
                        request: json!({"query": crate::jobs::QUERY}),
                        total: Some(20),
                        webhook: None,
                        schedule_id: None,
                        export: None,
                    })
                    .await?;
                let end = JobEnd {
                    state: JobState::Succeeded,
                    stop_reason: Some("limit_reached".into()),
                    error: None,
                };
                store.finish_job(&job.job_id, end).await?;
            }
            anyhow::Ok(())
        });
        if i % 10_000 == 0 {
            eprintln!("  idle: {i} records written");
        }
    }
    while let Some(done) = work.join_next().await {
        done??;
    }
    // A worker acks each job it ran; these ended unclaimed, so a worker's
    // claims clear them from the queue, as a replica's would at start.
    while store.unfinished_count("anonymous").await? > 0 {
        let none = std::collections::HashSet::new();
        for claim in store.claim_jobs(64, &none).await? {
            claim.lease.done().await;
        }
    }
    Ok(started.elapsed())
}

/// This process's CPU time (user and system) so far.
fn cpu_time() -> anyhow::Result<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given, or fails and leaves it.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        anyhow::bail!("getrusage failed: {}", std::io::Error::last_os_error());
    }
    // SAFETY: getrusage succeeded, so the struct is filled.
    let usage = unsafe { usage.assume_init() };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1_000);
    Ok(time(usage.ru_utime) + time(usage.ru_stime))
}

/// This process's resident memory now, in bytes.
fn resident() -> anyhow::Result<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm")?;
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("/proc/self/statm has no resident size"))?
        .parse()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Ok(pages * page.max(1) as u64)
}

/// The memory a replica's indexes of the filled buckets take: the resident
/// growth while a second store on `link` reads the buckets through (its
/// jobs, schedules and deliveries indexes) and answers its first lists.
async fn index_memory(link: Arc<gleaner::cluster::Link>) -> anyhow::Result<()> {
    use gleaner::jobs::store::{JobStore, ScheduleStore};
    let before = resident()?;
    let store = gleaner::cluster::jobs::JetStreamStore::new(link);
    store.jobs("nobody", None, None, 1).await?;
    store.schedules("nobody", None, 1).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let grown = resident()?.saturating_sub(before);
    report::row(Row {
        what: format!(
            "NATS: one replica's indexes of {SCHEDULES} schedules and {FINISHED_JOBS} jobs (resident growth)"
        ),
        value: Some(format!("{:.1} MB", grown as f64 / 1e6)),
        ..Row::default()
    });
    drop(store);
    Ok(())
}

/// The share of one core the process took over [`WINDOW`], after [`SETTLE`].
async fn idle_share() -> anyhow::Result<f64> {
    tokio::time::sleep(SETTLE).await;
    let before = cpu_time()?;
    tokio::time::sleep(WINDOW).await;
    let used = cpu_time()? - before;
    Ok(used.as_secs_f64() / WINDOW.as_secs_f64())
}

/// The times of `n` requests for the first page of `path`.
async fn listing(base: &str, path: &str, n: usize) -> anyhow::Result<Vec<Duration>> {
    let client = reqwest::Client::new();
    let url = format!("{base}{path}");
    crate::timed(2, n, || {
        let request = client.get(&url);
        async move {
            let answer = request.send().await?;
            anyhow::ensure!(answer.status().is_success(), "{}", answer.status());
            answer.bytes().await?;
            Ok(())
        }
    })
    .await
}

/// Fills `store`, starts a server on `data` (adjusted by `adjust`) and
/// records its idle CPU and listing times under `label`.
async fn measure(
    label: &str,
    store: Arc<dyn Store>,
    parallel: usize,
    data: &std::path::Path,
    samples: usize,
    adjust: impl FnOnce(&mut gleaner::config::Config),
) -> anyhow::Result<()> {
    let took = fill(store, parallel).await?;
    report::note(format!(
        "{label}: {SCHEDULES} schedules and {FINISHED_JOBS} finished jobs written in {:.0} s.",
        took.as_secs_f64()
    ));
    let upstream = crate::jobs::upstream(1, Duration::ZERO).await?;
    let base = crate::jobs::server(upstream, data, adjust).await?;
    let share = idle_share().await?;
    report::row(Row {
        what: format!("{label}: idle CPU, {SCHEDULES} schedules, {FINISHED_JOBS} finished jobs"),
        value: Some(format!("{:.2}% of a core", share * 100.0)),
        ..Row::default()
    });
    for path in ["/jobs", "/schedules"] {
        let mut times = listing(&base, path, samples).await?;
        report::samples(&format!("{label}: GET {path}, first page"), &times, None);
        times.sort();
        let p95 = times[(times.len() * 95).div_ceil(100).saturating_sub(1)];
        report::row(Row {
            what: format!("{label}: GET {path}, first page, p95 of {}", times.len()),
            value: Some(format!("{:.2} ms", p95.as_secs_f64() * 1e3)),
            ..Row::default()
        });
    }
    Ok(())
}

/// The section.
pub async fn report() -> anyhow::Result<()> {
    report::section(
        "idle",
        "A server holding 10,000 schedules (none due) and 100,000 finished jobs, asked nothing: the \
         share of one core it takes over 30 s (after 60 s for its start-up work, such as the first retention sweep over every job), and the time to list the first \
         page of GET /jobs and GET /schedules; on the SQLite store, then on one NATS replica, with the memory its indexes of the buckets take.",
    );
    let data = tempfile::tempdir()?;
    let seal = gleaner_seal::Seal::new(None, b"bench-idle-token-secret-0123456789");
    let store = gleaner::jobs::sqlite::SqliteStore::open(
        &data.path().join("jobs.sqlite3"),
        Arc::new(seal),
    )?;
    measure("SQLite", Arc::new(store), 1, data.path(), 50, |_| {}).await?;

    let Some(nats) = crate::cluster::Nats::start() else {
        report::note(
            "NATS: skipped, nats-server is not installed (make test-cluster installs it).",
        );
        return Ok(());
    };
    let data = tempfile::tempdir()?;
    let mut config = gleaner::config::Config {
        token_secret: Some("bench-token-secret-of-at-least-32-bytes".into()),
        ..Default::default()
    };
    config.cluster.nats_url = Some(nats.url());
    config.cluster.insecure = true;
    let cluster = gleaner::cluster::Cluster::connect(&config).await?;
    let store = gleaner::cluster::jobs::JetStreamStore::new(cluster.link.clone());
    let url = nats.url();
    measure("NATS", Arc::new(store), 64, data.path(), 50, move |c| {
        c.token_secret = Some("bench-token-secret-of-at-least-32-bytes".into());
        c.cluster.nats_url = Some(url);
        c.cluster.insecure = true;
        c.cluster.replica_name = Some("idle".into());
    })
    .await?;
    index_memory(cluster.link.clone()).await
}
