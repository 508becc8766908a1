//! Memory of the server process: resident memory idle with every plugin
//! loaded, and under 64 and 256 concurrent review fetches that each hold a
//! plugin instance for the upstream's delay; the virtual memory the pooling
//! allocator reserves; and whether 256 concurrent requests find an instance
//! slot each. Read from `/proc/<pid>` (Linux).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::native::TRUSTPILOT_QUERY;
use crate::report::{self, bytes, Row};
use crate::upstream::{self, Upstream};
use crate::{load, root};

/// The upstream's delay: every fetch holds its instance at least this long.
const UPSTREAM_DELAY: Duration = Duration::from_millis(100);
/// Smallest mapping counted as a pooling allocator reservation.
const RESERVATION: u64 = 1 << 30;

/// Fields of `/proc/<pid>/status`, in bytes.
fn status(pid: u32) -> anyhow::Result<BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let (key, rest) = line.split_once(':')?;
            let kib: u64 = rest.trim().strip_suffix(" kB")?.trim().parse().ok()?;
            Some((key.to_owned(), kib * 1024))
        })
        .collect())
}

fn field(pid: u32, key: &str) -> u64 {
    status(pid)
        .ok()
        .and_then(|s| s.get(key).copied())
        .unwrap_or(0)
}

/// Fields `numbers` of `/proc/<pid>/stat` (numbered from 1, as proc(5) does),
/// read at once; 0 for any that cannot be read.
fn stat_fields<const N: usize>(pid: u32, numbers: [usize; N]) -> [u64; N] {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (field 2, in parentheses).
    let rest: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    numbers.map(|n| {
        rest.get(n - 3)
            .and_then(|field| field.parse().ok())
            .unwrap_or(0)
    })
}

/// Minor page faults of a process so far (`/proc/<pid>/stat`, field 10).
pub fn minor_faults(pid: u32) -> u64 {
    stat_fields(pid, [10])[0]
}

/// CPU time a process has used so far, in user and kernel mode, every thread
/// together (`/proc/<pid>/stat`, fields 14 and 15, in clock ticks).
pub fn cpu_time(pid: u32) -> Duration {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let [user, kernel] = stat_fields(pid, [14, 15]);
    Duration::from_secs_f64((user + kernel) as f64 / ticks)
}

/// TLB shootdown interrupts so far, every core together (`/proc/interrupts`):
/// machine-wide, so other processes' count too.
pub fn tlb_shootdowns() -> u64 {
    std::fs::read_to_string("/proc/interrupts")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.trim_start().starts_with("TLB:"))?;
            Some(
                line.split_whitespace()
                    .skip(1)
                    .map_while(|n| n.parse::<u64>().ok())
                    .sum(),
            )
        })
        .unwrap_or(0)
}

/// Resets the process's peak resident set (`VmHWM`) to its current size.
fn reset_peak(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// The mappings of at least [`RESERVATION`] bytes: count and total size.
fn reservations(pid: u32) -> (usize, u64) {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return (0, 0);
    };
    let sizes: Vec<u64> = maps
        .lines()
        .filter_map(|line| {
            let range = line.split_whitespace().next()?;
            let (a, b) = range.split_once('-')?;
            let (a, b) = (
                u64::from_str_radix(a, 16).ok()?,
                u64::from_str_radix(b, 16).ok()?,
            );
            Some(b - a)
        })
        .filter(|size| *size >= RESERVATION)
        .collect();
    (sizes.len(), sizes.iter().sum())
}

/// Samples `VmRSS` every 10 ms until `stop` is set.
fn sampler(pid: u32, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<u64>> {
    std::thread::spawn(move || {
        let mut samples = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            samples.push(field(pid, "VmRSS"));
            std::thread::sleep(Duration::from_millis(10));
        }
        samples
    })
}

/// The instance needs of the plugins: memories and tables one instance takes.
async fn instance_needs() -> anyhow::Result<()> {
    let app = crate::replay_app().await?;
    let mut needs: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for p in app.state.registry.plugins() {
        let pre = match &p.prepared {
            gleaner::runtime::Prepared::Source(pre) => pre.instance_pre().component().clone(),
            gleaner::runtime::Prepared::Post(pre) => pre.instance_pre().component().clone(),
            gleaner::runtime::Prepared::Processor(pre) => pre.instance_pre().component().clone(),
        };
        if let Some(r) = pre.resources_required() {
            needs
                .entry((r.num_memories as usize, r.num_tables as usize))
                .or_default()
                .push(p.manifest.name.clone());
        }
    }
    for ((memories, tables), names) in needs {
        report::note(format!(
            "one instance takes {memories} linear memor{} and {tables} table{} from the pool: {}",
            if memories == 1 { "y" } else { "ies" },
            if tables == 1 { "" } else { "s" },
            names.join(", ")
        ));
    }
    Ok(())
}

/// The largest upstream_concurrency of the staged review sources, and whose it is.
fn app_widest() -> anyhow::Result<(usize, String)> {
    let mut widest = (0usize, String::new());
    for entry in std::fs::read_dir(crate::staged_plugins())? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "toml") {
            let m = gleaner::manifest::Manifest::load(&path)?;
            let source = m.kind == gleaner::manifest::Kind::Source;
            if source && m.limits.upstream_concurrency > widest.0 {
                widest = (m.limits.upstream_concurrency, m.name);
            }
        }
    }
    Ok(widest)
}

/// The whole section.
pub async fn report(seconds: u64) -> anyhow::Result<()> {
    instance_needs().await?;
    let tests = root().join("plugins/customer-feedback-hub/tests");
    let upstream = Upstream::start(UPSTREAM_DELAY, upstream::har(&tests)?).await?;
    let port = crate::server::free_port();
    let overrides = format!(
        "customer-feedback-hub:www.trustpilot.com={}",
        upstream.base()
    );
    // Connection caps and the per-plugin bulkhead are lifted so that only the
    // instance pool and the memory cap can refuse a request.
    let server = crate::server::spawn_server_env(
        port,
        &root().join("target/gleaner-cache"),
        &crate::staged_plugins(),
        &[
            ("GLEANER_UPSTREAM_OVERRIDE", overrides.as_str()),
            ("GLEANER_MAX_CONCURRENT_PER_PLUGIN", "1024"),
            ("GLEANER_MAX_CONCURRENT_REQUESTS", "1024"),
            ("GLEANER_MAX_CONNECTIONS_PER_CLIENT", "4096"),
        ],
    );
    let pid = server.0.id();
    let client = load::client(256)?;
    crate::server::wait_ready(&client, port).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = field(pid, "VmRSS");
    let (count, reserved) = reservations(pid);
    report::row(Row {
        what: "server idle, every plugin loaded: resident memory (VmRSS)".into(),
        value: Some(bytes(idle)),
        ..Row::default()
    });
    report::row(Row {
        what: "server idle: virtual memory (VmSize)".into(),
        value: Some(bytes(field(pid, "VmSize"))),
        ..Row::default()
    });
    report::row(Row {
        what: "pooling allocator: reserved address space (mappings of 1 GiB or more)".into(),
        value: Some(format!("{} in {count} mapping(s)", bytes(reserved))),
        ..Row::default()
    });
    let url = format!("http://127.0.0.1:{port}/customer-feedback-hub/reviews");
    let cases = [
        (64, 20, "one page each"),
        (256, 20, "one page each"),
        (256, 60, "three pages each, fetched ahead at once"),
    ];
    for (connections, reviews, pages) in cases {
        let body = json!({"query": TRUSTPILOT_QUERY, "reviews_to_fetch": reviews}).to_string();
        let peak_reset = reset_peak(pid);
        let stop = Arc::new(AtomicBool::new(false));
        let sampling = sampler(pid, stop.clone());
        let run = load::drive(
            &client,
            &url,
            Arc::new(vec![body]),
            connections,
            Duration::from_secs(seconds),
        )
        .await?;
        stop.store(true, Ordering::Relaxed);
        let mut samples = sampling.join().unwrap_or_default();
        samples.sort_unstable();
        let peak = if peak_reset {
            field(pid, "VmHWM")
        } else {
            samples.last().copied().unwrap_or(0)
        };
        let (median, p99) = if samples.is_empty() {
            (0, 0)
        } else {
            (
                report::percentile(&samples, 0.5),
                report::percentile(&samples, 0.99),
            )
        };
        report::row(Row {
            what: format!(
                "{connections} concurrent review fetches ({reviews} reviews, {pages}; upstream {} ms): resident memory",
                UPSTREAM_DELAY.as_millis()
            ),
            n: Some(samples.len()),
            median: Some(bytes(median)),
            p99: Some(bytes(p99)),
            value: Some(format!(
                "peak {}; {:.0} requests/s, {} ok, {} refused or failed",
                bytes(peak),
                run.rate(),
                run.ok(),
                run.failed()
            )),
            ratio: Some(format!(
                "{} idle (peak)",
                report::times(peak as f64 / idle.max(1) as f64)
            )),
        });
        if run.failed() > 0 {
            report::note(format!(
                "{connections} concurrent fetches of {reviews} reviews: {}",
                run.failure_summary()
            ));
        } else {
            report::note(format!(
                "{connections} concurrent fetches of {reviews} reviews: none refused"
            ));
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let manifest = gleaner::manifest::Manifest::load(
        &root().join("plugins/customer-feedback-hub/manifest.toml"),
    )?;
    let width = manifest.limits.upstream_concurrency;
    let widest = app_widest()?;
    let defaults = gleaner::config::Config::default();
    report::note(format!(
        "the host sends customer-feedback-hub at most {width} requests at once to one site (its upstream_concurrency), \
         so most of these fetches wait for their turn holding their instance: the loads above keep that many instances alive"
    ));
    report::note(format!(
        "a review fetch that fetches pages ahead holds up to its plugin's upstream_concurrency instances at once \
         ({width} here, {} for the widest source, {}); so {} concurrent requests (max_concurrent_requests) \
         can need {} instances, and more than the pool's instance slots are refused with 503",
        widest.0,
        widest.1,
        defaults.max_concurrent_requests,
        defaults.max_concurrent_requests * widest.0
    ));
    report::row(Row {
        what: "after the load, 2 s idle: resident memory".into(),
        value: Some(bytes(field(pid, "VmRSS"))),
        ..Row::default()
    });
    drop(server);
    Ok(())
}
