//! The WASM tax: the same algorithm compiled natively and called in-process,
//! against the plugin through wasmtime with a fresh store per call, as served;
//! per call, and per HTTP request behind the same kind of axum route.
//!
//! Where the plugin call costs more, the phases of a call are timed apart:
//! store setup (the per-call WASI context and limits), instantiation, the
//! export call itself, and dropping the store (the pooling allocator resets
//! the instance's memory); and the cost of passing a string in and parsing it
//! as JSON is measured on a processor that does nothing else.

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
use crate::{root, timed};

mod requests;
mod scaling;

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
    let pool = MemoryPool::new(2048 << 20, 100);
    let memory = MemoryBudget::new(
        pool.clone(),
        plugin.meters.clone(),
        pool.held_by(&plugin.manifest.name),
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
        scaling::parallel(
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

/// The WASM tax per call and per request, its table kept in
/// `docs/wasm-tax.md` with the machine and `command` that measured it.
pub async fn measure_and_keep(command: &str) -> anyhow::Result<()> {
    per_call().await?;
    let table = requests::per_request(64, 8, 3).await?;
    requests::write_summary(
        &root().join("docs/wasm-tax.md"),
        &table,
        &crate::machine(),
        command,
    )
}
