//! The WASM tax per HTTP request: each plugin route of the server loaded
//! against the native server (`bench --native-server`), interleaved over
//! runs, and the summary table kept in `docs/wasm-tax.md`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{processor_input, PER_CALL};
use crate::native::{self, TRUSTPILOT_QUERY};
use crate::report::{self, duration, times, Row, Summary};
use crate::server::ServerProcess;
use crate::{load, memory, root};

/// Spawns the native server (this benchmark binary in its server mode).
fn spawn_native(port: u16, replay: &Path) -> anyhow::Result<ServerProcess> {
    let child = std::process::Command::new(std::env::current_exe()?)
        .arg("--native-server")
        .arg(port.to_string())
        .arg(replay)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .spawn()?;
    Ok(ServerProcess(child))
}

/// The ratio goal per HTTP request: plugin route at most this × native.
pub const ROUTE_GOAL: f64 = 1.5;

/// Per HTTP request at `connections` connections, `seconds` each: every
/// route natively and as a plugin, `runs` times (the routes interleaved, so
/// drift in the machine reaches every route alike); then the table of
/// medians with the spread of the ratio, returned for [`write_summary`].
pub(super) async fn per_request(
    connections: usize,
    seconds: u64,
    runs: usize,
) -> anyhow::Result<String> {
    let replay = root().join("plugins/customer-feedback-hub/tests");
    let (plugin_port, native_port) = (crate::server::free_port(), crate::server::free_port());
    let cache = root().join("target/gleaner-cache");
    let plugin_server = crate::server::spawn_server_env(
        plugin_port,
        &cache,
        &crate::staged_plugins(),
        &[("GLEANER_REPLAY", replay.to_string_lossy().as_ref())],
    );
    let native_server = spawn_native(native_port, &replay)?;
    let client = load::client(connections)?;
    crate::server::wait_ready(&client, plugin_port).await;
    wait_native(&client, native_port).await?;
    let mut cases: Vec<(String, String)> = native::PROCESSORS
        .iter()
        .map(|(route, _)| (route.to_string(), processor_input(route).to_string()))
        .collect();
    cases.push((
        "/customer-feedback-hub/reviews".into(),
        json!({"query": TRUSTPILOT_QUERY, "reviews_to_fetch": 20}).to_string(),
    ));
    let run_for = Duration::from_secs(seconds);
    // Per route, per run: the native form, then the plugin form.
    let mut measured: Vec<Vec<[Form; 2]>> = vec![Vec::new(); cases.len()];
    for round in 1..=runs {
        for (case, (route, body)) in cases.iter().enumerate() {
            let bodies = Arc::new(vec![body.clone()]);
            let mut pair: Vec<Form> = Vec::new();
            let servers = [
                ("native route", native_port, native_server.0.id()),
                ("plugin route", plugin_port, plugin_server.0.id()),
            ];
            for (form, port, pid) in servers {
                let url = format!("http://127.0.0.1:{port}{route}");
                load::drive(
                    &client,
                    &url,
                    bodies.clone(),
                    connections,
                    Duration::from_secs(1),
                )
                .await?;
                let (faults, tlb) = (memory::minor_faults(pid), memory::tlb_shootdowns());
                let cpu_before = memory::cpu_time(pid);
                let run = load::drive(&client, &url, bodies.clone(), connections, run_for).await?;
                let per_request = |n: u64| n as f64 / run.ok().max(1) as f64;
                let faults = per_request(memory::minor_faults(pid).saturating_sub(faults));
                let tlb = per_request(memory::tlb_shootdowns().saturating_sub(tlb));
                let server_cpu = per_request(1)
                    * memory::cpu_time(pid)
                        .saturating_sub(cpu_before)
                        .as_secs_f64()
                    * 1e6;
                let s = Summary::of(&run.latencies);
                let baseline = pair.first().map(|native| native.rate);
                report::row(Row {
                    what: format!("{route}: {form}, {connections} connections, {seconds} s"),
                    n: Some(run.ok()),
                    median: Some(duration_or_dash(s)),
                    p99: Some(duration(s.p99)),
                    value: Some(format!(
                        "{:.0} requests/s, {} failed; per request {server_cpu:.1} µs of the server's CPU, \
                         {faults:.1} page faults in the server, {tlb:.1} TLB shootdowns (machine-wide)",
                        run.rate(),
                        run.failed()
                    )),
                    ratio: baseline.map(|b| {
                        format!(
                            "{} native (time per request)",
                            times(b / run.rate().max(1e-9))
                        )
                    }),
                });
                if run.failed() > 0 {
                    report::note(format!("{route} {form}: {}", run.failure_summary()));
                }
                pair.push(Form {
                    rate: run.rate(),
                    cpu_us: server_cpu,
                });
            }
            if let &[native, plugin] = pair.as_slice() {
                measured[case].push([native, plugin]);
            }
            if round == runs {
                per_call_note(route, measured[case].last().copied());
            }
        }
    }
    Ok(summary_table(&cases, &measured, connections, seconds))
}

/// One form of a route in one run.
#[derive(Debug, Clone, Copy)]
struct Form {
    /// Requests per second.
    rate: f64,
    /// The server's CPU time per request, in µs.
    cpu_us: f64,
}

/// The note comparing the server CPU a plugin request costs over a native
/// one (µs, from the last run) with what the in-process calls measured.
fn per_call_note(route: &str, forms: Option<[Form; 2]>) {
    let per_call = PER_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(route)
        .copied();
    if let (Some([native_form, plugin_form]), Some((native, wasm))) = (forms, per_call) {
        let (native_cpu, plugin_cpu) = (native_form.cpu_us, plugin_form.cpu_us);
        report::note(format!(
            "{route}: the plugin server spends {:.0} µs more CPU per request than the native one \
             ({plugin_cpu:.0} against {native_cpu:.0} µs, read from /proc); in-process, one call at a time, \
             the plugin call costs {:.0} µs more than the native one",
            plugin_cpu - native_cpu,
            wasm.saturating_sub(native).as_secs_f64() * 1e6
        ));
    }
}

/// Records and returns the table of the runs: per route the median
/// requests/s of each form, the median ratio of time per request, and the
/// ratio's spread.
fn summary_table(
    cases: &[(String, String)],
    measured: &[Vec<[Form; 2]>],
    connections: usize,
    seconds: u64,
) -> String {
    let median = |v: Vec<f64>| report::median(v).unwrap_or(0.0);
    let runs = measured.iter().map(Vec::len).max().unwrap_or(0);
    let mut table = format!(
        "Per HTTP request, {connections} connections, {seconds} s per form and run, {runs} runs \
         (medians; the spread is the lowest and highest ratio of the runs). The load generator \
         shares the machine's cores, so the last columns give the server's own CPU time per \
         request (from /proc, median of the runs):\n\n\
         | route | native req/s | plugin req/s | ratio | spread over {runs} runs | goal ≤ {ROUTE_GOAL}× \
         | server CPU per request: native | plugin | ratio |\n\
         |---|---:|---:|---:|---:|---|---:|---:|---:|\n"
    );
    for ((route, _), runs) in cases.iter().zip(measured) {
        let of = |pick: fn(&[Form; 2]) -> f64| median(runs.iter().map(pick).collect());
        let ratios: Vec<f64> = runs
            .iter()
            .map(|[n, p]| n.rate / p.rate.max(1e-9))
            .collect();
        let lowest = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = ratios.iter().copied().fold(0.0, f64::max);
        let ratio = median(ratios.clone());
        let native_cpu = of(|[n, _]| n.cpu_us);
        let plugin_cpu = of(|[_, p]| p.cpu_us);
        let _ = std::fmt::Write::write_fmt(
            &mut table,
            format_args!(
                "| {route} | {:.0} | {:.0} | {ratio:.2}× | {lowest:.2}–{highest:.2}× | {} \
                 | {native_cpu:.1} µs | {plugin_cpu:.1} µs | {:.2}× |\n",
                of(|[n, _]| n.rate),
                of(|[_, p]| p.rate),
                if ratio <= ROUTE_GOAL { "met" } else { "missed" },
                plugin_cpu / native_cpu.max(1e-9),
            ),
        );
    }
    report::table(table.clone());
    table
}

/// Writes `table` (from [`per_request`]) to `path` (kept in `docs/`), with
/// the machine it was measured on and the command.
pub(super) fn write_summary(
    path: &Path,
    table: &str,
    machine: &str,
    command: &str,
) -> anyhow::Result<()> {
    let written = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let text = format!(
        "# The WASM tax: the last report\n\n\
         Written by `{command}` at {written} (UTC). The {machine}.\n\n\
         Each plugin route of \
         `target/release/gleaner` is loaded against the same algorithm called natively behind the \
         host's own server code: the same answer layer and secrets scrubbing, request span and \
         metrics, client limits, validation and session (`bench --native-server`, its own \
         process), so the difference is what running as a component costs. The whole report, with \
         the per-call phases and each run's rows, is `target/bench/tax.md` (or `report.md`); how the \
         figures are read is in [testing.md](testing.md#benchmarks).\n\n{table}"
    );
    std::fs::write(path, text)?;
    println!("wrote {}", path.display());
    Ok(())
}

fn duration_or_dash(s: Summary) -> String {
    if s.n == 0 {
        "-".into()
    } else {
        duration(s.median)
    }
}

async fn wait_native(client: &reqwest::Client, port: u16) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        let answer = client
            .post(format!("http://127.0.0.1:{port}/features/review-chunk"))
            .header("content-type", "application/json")
            .body(processor_input("/features/review-chunk").to_string())
            .send()
            .await;
        if answer.is_ok_and(|r| r.status().is_success()) {
            return Ok(());
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(30),
            "the native server did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
