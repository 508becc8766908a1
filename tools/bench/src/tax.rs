//! The WASM tax: the same algorithm compiled natively and called in-process,
//! against the plugin through wasmtime with a fresh store per call, as served;
//! per call, and per HTTP request behind the same kind of axum route.
//!
//! Where the plugin call costs more, the phases of a call are timed apart:
//! store setup (the per-call WASI context and limits), instantiation, the
//! export call itself, and dropping the store (the pooling allocator resets
//! the instance's memory); and the cost of passing a string in and parsing it
//! as JSON is measured on a processor that does nothing else.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::bindings::types::PageRequest;
use gleaner::capabilities::http::profile::Kind;
use gleaner::capabilities::http::session::Session;
use gleaner::capabilities::http::OutboundRequest;
use gleaner::capabilities::CallContext;
use gleaner::config::Config;
use gleaner::runtime::memory::{MemoryBudget, MemoryPool};
use gleaner::runtime::state::CallState;
use gleaner::runtime::LoadedPlugin;
use gleaner::runtime::{Prepared, Runtime};
use gleaner::App;
use serde_json::{json, Value};

use crate::native::{self, timed_sync, TrustpilotPage, TRUSTPILOT_QUERY};
use crate::report::{self, duration, times, Row, Summary};
use crate::{load, memory, root, timed, ServerProcess};

/// The review the processors get, as in the processor section.
pub const REVIEW: &str = "Setup took ten minutes. Since switching, our team closes tickets 3x faster and we saved about $2,000 a month. i recieved great support , the the staff was definately helpful!!";

/// The processor input for a route.
pub fn processor_input(route: &str) -> Value {
    if route.ends_with("review-chunk") {
        json!({"review_text": REVIEW, "widget_type": "card"})
    } else {
        json!({"review_id": "r1", "review_text": REVIEW})
    }
}

/// Per route, the per-call medians: native, plugin.
static PER_CALL: std::sync::Mutex<std::collections::BTreeMap<String, (Duration, Duration)>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn name_of(route: &str) -> &str {
    route.rsplit('/').next().unwrap_or(route)
}

/// The phases of one plugin call, timed apart, and a second call in the same
/// instance (its statics set and its memory touched by the first).
#[derive(Default)]
pub struct Phases {
    setup: Vec<Duration>,
    instantiate: Vec<Duration>,
    /// The export call in a fresh instance.
    pub call: Vec<Duration>,
    /// The same call again in that instance, in a fresh session.
    pub again: Vec<Duration>,
    drop: Vec<Duration>,
    /// Bytes the instance's memory grew by during the first call.
    pub grown: Vec<usize>,
    /// WebAssembly operations the first call and the call again ran, on an
    /// engine that meters fuel (else none).
    pub operations: Vec<(u64, u64)>,
}

impl Phases {
    fn push(&mut self, times: [Duration; 5], grown: usize, operations: Option<(u64, u64)>) {
        let [setup, instantiate, call, again, dropped] = times;
        self.setup.push(setup);
        self.instantiate.push(instantiate);
        self.call.push(call);
        self.again.push(again);
        self.drop.push(dropped);
        self.grown.push(grown);
        self.operations.extend(operations);
    }
}

/// A store as the runtime makes one for a call: the plugin's memory cap under a
/// pool, its grant, the epoch deadline that yields every tick; in `session`,
/// else a session of its own.
pub fn call_store(
    runtime: &Runtime,
    plugin: &LoadedPlugin,
    engine: &wasmtime::Engine,
    session: Option<Arc<Session>>,
) -> wasmtime::Store<CallState> {
    let memory = MemoryBudget::new(
        MemoryPool::new(2048 << 20, 100),
        plugin.grant.name.as_str().into(),
        plugin.grant.memory_bytes,
    );
    let state = CallState::new(
        call_context(plugin, session),
        runtime.services().clone(),
        memory,
    );
    let mut store = wasmtime::Store::new(engine, state);
    store.limiter_async(|s| &mut s.memory);
    // Fuel counts one unit per operation on an engine that meters it (the
    // first-call check's); elsewhere there is no fuel to set.
    let _ = store.set_fuel(u64::MAX);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|_| Ok(wasmtime::UpdateDeadline::Yield(1)));
    store
}

/// A call's context in `session` (else one of its own), ten seconds to run.
fn call_context(plugin: &LoadedPlugin, session: Option<Arc<Session>>) -> CallContext {
    let deadline = Instant::now() + Duration::from_secs(10);
    CallContext::new(plugin.grant.clone(), "bench".into(), deadline, session)
}

/// What runs between the first call in an instance and the call again.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Between {
    /// Nothing: the call again runs right after the first.
    Nothing,
    /// Another instance of the plugin is made and dropped, so the call again
    /// finds the caches as the first call found them after its own
    /// instantiation.
    Instantiation,
}

/// What a phase measurement calls.
#[derive(Clone, Copy)]
pub enum Export<'a> {
    /// A processor's `process(input)`.
    Process(&'a str),
    /// A source's `fetch-page(request)`.
    FetchPage(&'a PageRequest),
    /// A post source's `fetch-post(query)`.
    FetchPost(&'a str),
}

/// Times the phases of a call, `n` times (after 20 unrecorded). The second
/// call in the instance runs in a new session, so it repeats the first one's
/// upstream requests (cookies and tokens are the session's, not the instance's)
/// and differs only by what the instance kept.
pub async fn phases(
    runtime: &Runtime,
    plugin: &LoadedPlugin,
    export: Export<'_>,
    n: usize,
    between: Between,
) -> anyhow::Result<Phases> {
    // Both calls of one export, timed: `$pre` instantiates, `$iface` finds the
    // interface, `$call(args)` calls it.
    macro_rules! timed_pair {
        ($pre:expr, $iface:ident, $call:ident, $($arg:expr),*) => {{
            let t = Instant::now();
            let mut store = call_store(runtime, plugin, $pre.engine(), None);
            let setup = t.elapsed();
            let t = Instant::now();
            let instance = $pre.instantiate_async(&mut store).await?;
            let instantiate = t.elapsed();
            let export = instance.$iface();
            let before = store.data().memory.held();
            let fuel = store.get_fuel().ok();
            let t = Instant::now();
            let out = export.$call(&mut store, $($arg),*).await?;
            let call = t.elapsed();
            let grown = store.data().memory.held() - before;
            let fuel_after_call = store.get_fuel().ok();
            std::hint::black_box(out.map_err(|e| anyhow::anyhow!("{e:?}"))?);
            store.data_mut().call = call_context(plugin, None);
            if between == Between::Instantiation {
                let mut other = call_store(runtime, plugin, $pre.engine(), None);
                std::hint::black_box($pre.instantiate_async(&mut other).await?);
            }
            let t = Instant::now();
            let out = export.$call(&mut store, $($arg),*).await?;
            let again = t.elapsed();
            std::hint::black_box(out.map_err(|e| anyhow::anyhow!("{e:?}"))?);
            let operations = fuel.zip(fuel_after_call).zip(store.get_fuel().ok()).map(
                |((start, between), end)| (start - between, between - end),
            );
            let t = Instant::now();
            drop(store);
            ([setup, instantiate, call, again, t.elapsed()], grown, operations)
        }};
    }
    let mut phases = Phases::default();
    for i in 0..n + 20 {
        let (times, grown, operations) = match (&plugin.prepared, &export) {
            (Prepared::Processor(pre), Export::Process(input)) => {
                timed_pair!(pre, gleaner_plugin_processor_plugin, call_process, input)
            }
            (Prepared::Source(pre), Export::FetchPage(request)) => {
                timed_pair!(pre, gleaner_plugin_source_plugin, call_fetch_page, request)
            }
            (Prepared::Post(pre), Export::FetchPost(query)) => {
                timed_pair!(pre, gleaner_plugin_post_plugin, call_fetch_post, query)
            }
            _ => anyhow::bail!("{}: not that kind of plugin", plugin.manifest.name),
        };
        if i >= 20 {
            phases.push(times, grown, operations);
        }
    }
    Ok(phases)
}

/// Records the phases of a call, each as a share of their sum, the call against `native`.
fn report_phases(name: &str, export: &str, phases: &Phases, native: Duration) {
    let parts = [
        ("store setup (WASI context, limits)", &phases.setup),
        ("instantiation", &phases.instantiate),
        (export, &phases.call),
        ("store drop (instance memory reset)", &phases.drop),
    ];
    let whole: Duration = parts.iter().map(|(_, s)| Summary::of(s).median).sum();
    for (phase, samples) in parts {
        let s = Summary::of(samples);
        report::row(Row {
            what: format!("{name}: plugin phase: {phase}"),
            n: Some(s.n),
            median: Some(duration(s.median)),
            p99: Some(duration(s.p99)),
            value: Some(format!(
                "{:.0}% of the phases' sum",
                100.0 * s.median.as_secs_f64() / whole.as_secs_f64().max(1e-12)
            )),
            ratio: (phase == export).then(|| ratio(s.median, native, "native").unwrap_or_default()),
        });
    }
    let again = Summary::of(&phases.again);
    report::row(Row {
        what: format!(
            "{name}: the same call again in the same instance (statics set, memory touched)"
        ),
        n: Some(again.n),
        median: Some(duration(again.median)),
        p99: Some(duration(again.p99)),
        value: Some(format!(
            "first call in a fresh instance costs {:.1} µs more (median of the pairs' differences)",
            crate::first_call::paired_extra_us(phases)
        )),
        ratio: ratio(again.median, native, "native (guest code vs native code)"),
    });
}

fn ratio(x: Duration, baseline: Duration, name: &str) -> Option<String> {
    (baseline > Duration::ZERO)
        .then(|| format!("{} {name}", times(x.as_secs_f64() / baseline.as_secs_f64())))
}

fn same_json(a: &str, b: &str) -> bool {
    serde_json::from_str::<Value>(a).ok() == serde_json::from_str::<Value>(b).ok()
}

/// Per call: each processor natively and as a plugin, with the phases of the plugin call.
async fn per_call() -> anyhow::Result<()> {
    let app = crate::replay_app().await?;
    let runtime = app.state.runtime.clone();
    for (route, native_process) in native::PROCESSORS {
        let name = name_of(route);
        let plugin = app
            .state
            .registry
            .get(route)
            .ok_or_else(|| anyhow::anyhow!("{route} not loaded (make plugins)"))?;
        let input = processor_input(route).to_string();
        let deadline = || Instant::now() + Duration::from_secs(10);
        let from_plugin = runtime
            .process(&plugin, "bench", &input, deadline())
            .await?
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let from_native = native_process(&input).map_err(anyhow::Error::msg)?;
        if !same_json(&from_plugin.body, &from_native) {
            report::note(format!(
                "{name}: the native and the plugin answers differ; the comparison is not of the same work"
            ));
        }
        let native = report::samples(
            &format!("{name}: native, in-process (JSON in, algorithm, JSON out)"),
            &timed_sync(200, 5_000, || native_process(&input)),
            None,
        );
        let wasm = timed(50, 2_000, || async {
            runtime
                .process(&plugin, "bench", &input, deadline())
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            Ok(())
        })
        .await?;
        let wasm = Summary::of(&wasm);
        report::row(Row {
            what: format!("{name}: plugin, fresh store per call (as served)"),
            n: Some(wasm.n),
            median: Some(duration(wasm.median)),
            p99: Some(duration(wasm.p99)),
            value: None,
            ratio: ratio(wasm.median, native.median, "native"),
        });
        parallel(
            &runtime,
            &plugin,
            &input,
            *native_process,
            native.median,
            wasm.median,
        )
        .await?;
        let phases = phases(
            &runtime,
            &plugin,
            Export::Process(&input),
            1_000,
            Between::Nothing,
        )
        .await?;
        report_phases(name, "process() call", &phases, native.median);
        PER_CALL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(route.to_string(), (native.median, wasm.median));
    }
    boundary().await?;
    source_per_call().await?;
    Ok(())
}

/// Calls per second with one caller per core at once, natively and as a
/// plugin, against one caller: how each scales across the machine's cores.
///
/// Three comparisons: against the median of one call alone (the rows kept
/// from the first reports, so figures stay comparable); against one caller in
/// the same loop over the same window; and the median over [`ROUNDS`] rounds
/// that each run one caller and then all callers, so a burst of noise on a
/// shared machine moves one round's ratio, not the figure. The first flatters
/// one caller, since a median leaves out the slow calls a loop pays for; the
/// last is the scaling.
async fn parallel(
    runtime: &Arc<Runtime>,
    plugin: &Arc<LoadedPlugin>,
    input: &str,
    native_process: native::Process,
    native_one: Duration,
    wasm_one: Duration,
) -> anyhow::Result<()> {
    let callers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let window = Duration::from_secs(2);
    let native_calls = |callers: usize| -> usize {
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..callers)
                .map(|_| {
                    scope.spawn(|| {
                        let started = Instant::now();
                        let mut calls = 0usize;
                        while started.elapsed() < window {
                            std::hint::black_box(native_process(input)).ok();
                            calls += 1;
                        }
                        calls
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap_or(0)).sum()
        })
    };
    let wasm_calls = |callers: usize| async move {
        let mut tasks = Vec::new();
        for _ in 0..callers {
            let (runtime, plugin, input) = (runtime.clone(), plugin.clone(), input.to_owned());
            tasks.push(tokio::spawn(async move {
                let started = Instant::now();
                let mut calls = 0usize;
                while started.elapsed() < window {
                    let deadline = Instant::now() + Duration::from_secs(10);
                    if let Ok(Ok(_)) = runtime.process(&plugin, "bench", &input, deadline).await {
                        calls += 1;
                    }
                }
                calls
            }));
        }
        let mut calls = 0;
        for t in tasks {
            calls += t.await?;
        }
        anyhow::Ok(calls)
    };
    // Round 0 gives the rows kept from earlier reports; every round gives a
    // ratio of all callers to one.
    let (mut native_rounds, mut wasm_rounds) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        native_rounds.push((native_calls(1), native_calls(callers)));
        wasm_rounds.push((wasm_calls(1).await?, wasm_calls(callers).await?));
    }
    let name = name_of(&plugin.manifest.route).to_owned();
    let per_second = |calls: usize| calls as f64 / window.as_secs_f64();
    for (form, rounds, one) in [
        ("native", &native_rounds, native_one),
        ("plugin", &wasm_rounds, wasm_one),
    ] {
        let (one_loop, all) = rounds[0];
        let single = 1.0 / one.as_secs_f64().max(1e-12);
        report::row(Row {
            what: format!("{name}: {form}, {callers} callers at once"),
            n: Some(all),
            value: Some(format!("{:.0} calls/s", per_second(all))),
            ratio: Some(format!("{} one caller", times(per_second(all) / single))),
            ..Row::default()
        });
        report::row(Row {
            what: format!("{name}: {form}, {callers} callers against 1 in the same loop"),
            n: Some(one_loop),
            value: Some(format!("1 caller: {:.0} calls/s", per_second(one_loop))),
            ratio: Some(format!(
                "{} one caller (loop)",
                times(per_second(all) / per_second(one_loop).max(1e-12))
            )),
            ..Row::default()
        });
        let ratios: Vec<f64> = rounds
            .iter()
            .map(|&(one, all)| all as f64 / (one as f64).max(1.0))
            .collect();
        let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        report::row(Row {
            what: format!(
                "{name}: {form}, {callers} callers against 1, median of {ROUNDS} alternating rounds"
            ),
            n: Some(rounds.iter().map(|&(one, all)| one + all).sum()),
            value: Some(format!("rounds: {} to {}", times(low), times(high))),
            ratio: Some(format!(
                "{} one caller (rounds)",
                times(report::median(ratios).unwrap_or(0.0))
            )),
            ..Row::default()
        });
    }
    Ok(())
}

/// Rounds of one caller, then every caller, in the two-caller comparison.
const ROUNDS: usize = 5;

/// What passing a string in and parsing it as JSON costs, on test-misbehave's
/// `ok` mode (it parses its input and answers `{"ok":true}`): the same call
/// with a small and a large input.
async fn boundary() -> anyhow::Result<()> {
    let dir = root().join("target/test-plugins");
    if !dir.join("test-misbehave.wasm").exists() {
        report::note(
            "test-misbehave is not staged (make plugins); the boundary cost was not measured",
        );
        return Ok(());
    }
    let config = Config {
        plugin_dir: dir,
        cache_dir: Some(root().join("target/gleaner-cache")),
        watch: false,
        ..Config::default()
    };
    let app = App::build(config).await?;
    let Some(plugin) = app.state.registry.get("/test/misbehave") else {
        report::note("test-misbehave did not load; the boundary cost was not measured");
        return Ok(());
    };
    let runtime = app.state.runtime.clone();
    let mut medians = Vec::new();
    for size in [0usize, 64 << 10] {
        let input = json!({"mode": "ok", "pad": "x".repeat(size)}).to_string();
        let samples = timed(20, 500, || async {
            runtime
                .process(
                    &plugin,
                    "bench",
                    &input,
                    Instant::now() + Duration::from_secs(10),
                )
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            Ok(())
        })
        .await?;
        let s = report::samples(
            &format!(
                "boundary: a processor that only parses its input, {} KiB in",
                input.len() / 1024
            ),
            &samples,
            None,
        );
        let native = Summary::of(&timed_sync(50, 2_000, || {
            serde_json::from_str::<Value>(&input).map(|v| v.is_object())
        }));
        medians.push((input.len(), s.median, native.median));
    }
    if let &[(small_len, small, _), (big_len, big, native_big)] = medians.as_slice() {
        let per_kib =
            (big.saturating_sub(small)).as_secs_f64() / ((big_len - small_len) as f64 / 1024.0);
        report::row(Row {
            what: "boundary: each KiB of input passed in and parsed as JSON in the guest".into(),
            value: Some(format!("{:.2} µs/KiB", per_kib * 1e6)),
            ratio: Some(format!(
                "{} native JSON parse ({:.2} µs/KiB)",
                times(per_kib / (native_big.as_secs_f64() / (big_len as f64 / 1024.0)).max(1e-12)),
                native_big.as_secs_f64() * 1e6 / (big_len as f64 / 1024.0)
            )),
            ..Row::default()
        });
    }
    Ok(())
}

/// Per call: customer-feedback-hub's parser on its replayed first page.
async fn source_per_call() -> anyhow::Result<()> {
    let tests = root().join("plugins/customer-feedback-hub/tests");
    let app = crate::replay_app_of(&tests).await?;
    let plugin = app
        .state
        .registry
        .get("/customer-feedback-hub/reviews")
        .ok_or_else(|| anyhow::anyhow!("customer-feedback-hub not loaded (make plugins)"))?;
    let runtime = app.state.runtime.clone();
    let session = Arc::new(Session::new());
    let host_fetch = || async {
        runtime
            .services()
            .http
            .send(
                &plugin.grant.policy,
                &session,
                OutboundRequest {
                    method: "GET".into(),
                    url: TrustpilotPage::url(),
                    headers: Vec::new(),
                    body: None,
                    profile: Some(Kind::Document),
                },
                Instant::now() + Duration::from_secs(10),
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
    };
    let page = TrustpilotPage::new(host_fetch().await?)?;
    let native_page = page.parse().map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let request = PageRequest {
        query: TRUSTPILOT_QUERY.into(),
        sort: None,
        filter_json: None,
        cursor: None,
    };
    let deadline = || Instant::now() + Duration::from_secs(10);
    let wasm_page = runtime
        .fetch_page(&plugin, "bench", &request, deadline(), None)
        .await?
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let ids = |ids: Vec<&String>| ids.into_iter().cloned().collect::<Vec<_>>();
    if ids(wasm_page.reviews.iter().map(|r| &r.id).collect())
        != ids(native_page.reviews.iter().map(|r| &r.id).collect())
    {
        report::note("customer-feedback-hub: the native and the plugin pages differ; the comparison is not of the same work");
    }
    let native = report::samples(
        "customer-feedback-hub page parser: native, in-process (bot-wall check, __NEXT_DATA__, 20 reviews)",
        &timed_sync(50, 1_000, || page.parse()),
        None,
    );
    let fetch = timed(50, 1_000, || async {
        std::hint::black_box(host_fetch().await?);
        Ok(())
    })
    .await?;
    let fetch = report::samples(
        "customer-feedback-hub page: the host's HTTP service answering from the recording (both forms pay it)",
        &fetch,
        None,
    );
    let wasm = Summary::of(
        &timed(50, 1_000, || async {
            runtime
                .fetch_page(&plugin, "bench", &request, deadline(), None)
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            Ok(())
        })
        .await?,
    );
    let both = native.median + fetch.median;
    report::row(Row {
        what: "customer-feedback-hub fetch-page: plugin, fresh store per call (fetch + parse)"
            .into(),
        n: Some(wasm.n),
        median: Some(duration(wasm.median)),
        p99: Some(duration(wasm.p99)),
        value: Some(format!("native fetch + parse: {}", duration(both))),
        ratio: ratio(wasm.median, both, "native fetch + parse"),
    });
    let phases = phases(
        &runtime,
        &plugin,
        Export::FetchPage(&request),
        500,
        Between::Nothing,
    )
    .await?;
    report_phases(
        "customer-feedback-hub",
        "fetch-page() call (host fetch + parse in the guest)",
        &phases,
        both,
    );
    PER_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert("/customer-feedback-hub/reviews".into(), (both, wasm.median));
    Ok(())
}

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
async fn per_request(connections: usize, seconds: u64, runs: usize) -> anyhow::Result<String> {
    let replay = root().join("plugins/customer-feedback-hub/tests");
    let (plugin_port, native_port) = (crate::free_port(), crate::free_port());
    let cache = root().join("target/gleaner-cache");
    let plugin_server = crate::spawn_server_env(
        plugin_port,
        &cache,
        &crate::staged_plugins(),
        &[("GLEANER_REPLAY", replay.to_string_lossy().as_ref())],
    );
    let native_server = spawn_native(native_port, &replay)?;
    let client = load::client(connections)?;
    crate::wait_ready(&client, plugin_port).await;
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
    // Per route, per run: (native requests/s, plugin requests/s), and the
    // servers' CPU time per request in µs (native, plugin).
    let mut rates: Vec<Vec<(f64, f64)>> = vec![Vec::new(); cases.len()];
    let mut cpu: Vec<Vec<(f64, f64)>> = vec![Vec::new(); cases.len()];
    for round in 1..=runs {
        for (case, (route, body)) in cases.iter().enumerate() {
            let bodies = Arc::new(vec![body.clone()]);
            let mut pair = Vec::new();
            let mut cpu_pair = Vec::new();
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
                cpu_pair.push(server_cpu);
                let s = Summary::of(&run.latencies);
                let baseline: Option<f64> = pair.first().copied();
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
                pair.push(run.rate());
            }
            if let &[native_rate, plugin_rate] = pair.as_slice() {
                rates[case].push((native_rate, plugin_rate));
            }
            if let &[native_cpu, plugin_cpu] = cpu_pair.as_slice() {
                cpu[case].push((native_cpu, plugin_cpu));
            }
            if round == runs {
                per_call_note(route, cpu[case].last().copied());
            }
        }
    }
    Ok(summary_table(&cases, &rates, &cpu, connections, seconds))
}

/// The note comparing the server CPU a plugin request costs over a native
/// one (µs, from the last run) with what the in-process calls measured.
fn per_call_note(route: &str, cpu: Option<(f64, f64)>) {
    let per_call = PER_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(route)
        .copied();
    if let (Some((native_cpu, plugin_cpu)), Some((native, wasm))) = (cpu, per_call) {
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
    rates: &[Vec<(f64, f64)>],
    cpu: &[Vec<(f64, f64)>],
    connections: usize,
    seconds: u64,
) -> String {
    let median = |v: Vec<f64>| report::median(v).unwrap_or(0.0);
    let runs = rates.iter().map(Vec::len).max().unwrap_or(0);
    let mut table = format!(
        "Per HTTP request, {connections} connections, {seconds} s per form and run, {runs} runs \
         (medians; the spread is the lowest and highest ratio of the runs). The load generator \
         shares the machine's cores, so the last columns give the server's own CPU time per \
         request (from /proc, median of the runs):\n\n\
         | route | native req/s | plugin req/s | ratio | spread over {runs} runs | goal ≤ {ROUTE_GOAL}× \
         | server CPU per request: native | plugin | ratio |\n\
         |---|---:|---:|---:|---:|---|---:|---:|---:|\n"
    );
    for (((route, _), runs), cpu) in cases.iter().zip(rates).zip(cpu) {
        let ratios: Vec<f64> = runs.iter().map(|(n, p)| n / p.max(1e-9)).collect();
        let lowest = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = ratios.iter().copied().fold(0.0, f64::max);
        let ratio = median(ratios.clone());
        let native_cpu = median(cpu.iter().map(|c| c.0).collect());
        let plugin_cpu = median(cpu.iter().map(|c| c.1).collect());
        let _ = std::fmt::Write::write_fmt(
            &mut table,
            format_args!(
                "| {route} | {:.0} | {:.0} | {ratio:.2}× | {lowest:.2}–{highest:.2}× | {} \
                 | {native_cpu:.1} µs | {plugin_cpu:.1} µs | {:.2}× |\n",
                median(runs.iter().map(|r| r.0).collect()),
                median(runs.iter().map(|r| r.1).collect()),
                if ratio <= ROUTE_GOAL { "met" } else { "missed" },
                plugin_cpu / native_cpu.max(1e-9),
            ),
        );
    }
    report::table(table.clone());
    table
}

/// The WASM tax per call and per request, its table kept in
/// `docs/wasm-tax.md` with the machine and `command` that measured it.
pub async fn measure_and_keep(command: &str) -> anyhow::Result<()> {
    per_call().await?;
    let table = per_request(64, 8, 3).await?;
    write_summary(
        &root().join("docs/wasm-tax.md"),
        &table,
        &crate::machine(),
        command,
    )
}

/// Writes `table` (from [`per_request`]) to `path` (kept in `docs/`), with
/// the machine it was measured on and the command.
fn write_summary(path: &Path, table: &str, machine: &str, command: &str) -> anyhow::Result<()> {
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
