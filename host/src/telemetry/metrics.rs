//! The server's Prometheus metrics: every name with its help text and labels in
//! one place, the recorder (installed once per process), and the small
//! functions the rest of the server calls where something happens.
//!
//! Label values are bounded: routes are plugin route patterns (never a raw
//! path), plugins and sources are loaded plugins, upstream hosts are host names
//! only and at most [`MAX_HOSTS`] of them get their own series.
//!
//! Until [`install`] runs (the server does it at start-up) every function here
//! is a no-op, so the command-line tools that share this code record nothing.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use metrics::{counter, gauge, histogram, Counter, Gauge, Histogram, Unit};

use super::prometheus::Recorder;

/// Requests to plugin routes, by `route`, `plugin` and `status`.
pub const REQUESTS: &str = "gleaner_requests_total";
/// Time to answer a request to a plugin route, by `route` and `plugin`.
pub const REQUEST_DURATION: &str = "gleaner_request_duration_seconds";
/// Requests a plugin is serving right now (holding a bulkhead slot), by `plugin`.
pub const IN_FLIGHT: &str = "gleaner_requests_in_flight";
/// Requests refused with 503 because a bulkhead was full, by `plugin` and `pool`.
pub const REFUSED: &str = "gleaner_requests_refused_total";
/// Connections closed to make room at a connection cap.
pub const CONNECTIONS_EVICTED: &str = "gleaner_connections_evicted_total";
/// Requests refused with 429 because their client had its limit in flight, by `limit`.
pub const CLIENT_LIMITED: &str = "gleaner_requests_limited_total";
/// Plugin calls, by `plugin` and `outcome`.
pub const PLUGIN_CALLS: &str = "gleaner_plugin_calls_total";
/// Time a plugin call ran, by `plugin`.
pub const PLUGIN_CALL_DURATION: &str = "gleaner_plugin_call_duration_seconds";
/// Linear memory a plugin call's instance held at its end, by `plugin`.
pub const PLUGIN_MEMORY: &str = "gleaner_plugin_memory_bytes";
/// Outbound requests plugins made, by `host`, `status` and `outcome`.
pub const UPSTREAM_REQUESTS: &str = "gleaner_upstream_requests_total";
/// Time an outbound request took (redirects and retries included), by `host`.
pub const UPSTREAM_DURATION: &str = "gleaner_upstream_request_duration_seconds";
/// Reviews that broke a record rule and were repaired, by `plugin` and `rule`.
pub const RECORDS_REPAIRED: &str = "gleaner_records_repaired_total";
/// Reviews returned to clients, by `source`.
pub const REVIEWS_RETURNED: &str = "gleaner_reviews_returned_total";
/// Review fetches that answered, by `source` and the `reason` they stopped.
pub const FETCH_STOPS: &str = "gleaner_fetch_stops_total";
/// A new version of a plugin swapped in for a serving one, by `plugin`.
pub const PLUGIN_SWAPS: &str = "gleaner_plugin_swaps_total";
/// Plugin loads that failed (the serving version, if any, stayed), by `plugin`.
pub const PLUGIN_LOAD_FAILURES: &str = "gleaner_plugin_load_failures_total";
/// In cluster mode: plugin announcements and deletions in the cluster that
/// did not verify with this replica's cluster key, and were ignored.
pub const ROLLOUT_UNVERIFIED: &str = "gleaner_rollout_unverified_total";
/// Back-offs from a host after a wall, applied on this replica (met here or
/// heard from another), by `host` and `wall`.
pub const UPSTREAM_BACKOFFS: &str = "gleaner_upstream_backoffs_total";
/// Requests not sent because their host was backed off, by `host`.
pub const UPSTREAM_HELD_BACK: &str = "gleaner_upstream_held_back_total";
/// 1 while a cluster replica is connected to NATS and uses shared state, 0 while it serves on local state.
pub const CLUSTER_CONNECTED: &str = "gleaner_cluster_connected";

/// Upstream hosts that get their own series; requests to later hosts are
/// counted under `host="other"` (website processors fetch any public host).
pub const MAX_HOSTS: usize = 500;

/// The `plugin` (and `route`) label of a request no plugin serves.
pub const NONE: &str = "none";

/// Histogram buckets, in seconds, of whole requests and upstream requests.
const REQUEST_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];
/// Histogram buckets, in seconds, of plugin calls (a processor call takes about a millisecond).
const CALL_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Histogram buckets, in bytes, of the memory a plugin call held (64 KiB pages;
/// the default cap is 128 MiB).
const MEMORY_BUCKETS: &[f64] = &[
    1048576.0,
    2097152.0,
    4194304.0,
    8388608.0,
    16777216.0,
    33554432.0,
    67108864.0,
    134217728.0,
    268435456.0,
    536870912.0,
];

/// Every metric: name, kind, unit and help text.
const DESCRIPTIONS: &[(&str, Kind, Unit, &str)] = &[
    (REQUESTS, Kind::Counter, Unit::Count, "Requests to plugin routes, by route pattern, plugin and HTTP status."),
    (REQUEST_DURATION, Kind::Histogram, Unit::Seconds, "Time to answer a request to a plugin route, by route pattern and plugin."),
    (IN_FLIGHT, Kind::Gauge, Unit::Count, "Requests a plugin is serving right now (holding a bulkhead slot)."),
    (REFUSED, Kind::Counter, Unit::Count, "Requests refused with 503 because a bulkhead was full; pool is plugin (max_concurrent_per_plugin), server (max_concurrent_requests) or network (the share of plugins that reach sites)."),
    (RECORDS_REPAIRED, Kind::Counter, Unit::Count, "Reviews a plugin returned that broke a rule of the review record (rule: promoted_in_extra, sub_rating_scale, language_tag, country_not_iso, title_is_country, extra_undeclared), repaired where they can be before they were answered (an extra the source does not declare is answered as it is)."),
    (CONNECTIONS_EVICTED, Kind::Counter, Unit::Count, "Connections that were waiting on their client (a slow request head, or idle) closed to make room for a new one at a connection cap."),
    (CLIENT_LIMITED, Kind::Counter, Unit::Count, "Requests refused with 429 because their client already had its limit in flight; limit is key (max_in_flight_per_key) or address (max_in_flight_per_client)."),
    (PLUGIN_CALLS, Kind::Counter, Unit::Count, "Plugin calls (for requests, and info() at each load) by outcome: ok, trap, timeout, memory_cap, host_data_cap or overloaded."),
    (PLUGIN_CALL_DURATION, Kind::Histogram, Unit::Seconds, "Time a plugin call ran, whatever its outcome."),
    (PLUGIN_MEMORY, Kind::Histogram, Unit::Bytes, "Linear memory a plugin call's instance held when it ended: its initial memory and every growth, under its limits.memory_mib."),
    (UPSTREAM_REQUESTS, Kind::Counter, Unit::Count, "Outbound requests plugins made, by upstream host, final HTTP status (none without an answer) and outcome: ok, bot_wall, blocked (403 or 429), denied (allowlist or SSRF guard), timeout or error."),
    (UPSTREAM_DURATION, Kind::Histogram, Unit::Seconds, "Time an outbound request took, redirects and retries included, by upstream host."),
    (REVIEWS_RETURNED, Kind::Counter, Unit::Count, "Reviews returned to clients, by source."),
    (FETCH_STOPS, Kind::Counter, Unit::Count, "Review fetches that answered, by source and why they stopped (the stop_reason of extra_information)."),
    (PLUGIN_SWAPS, Kind::Counter, Unit::Count, "Plugins (re)loaded in place of a serving version: hot swaps, admin uploads and reloads."),
    (PLUGIN_LOAD_FAILURES, Kind::Counter, Unit::Count, "Plugin loads that failed; the serving version, if any, kept serving."),
    (ROLLOUT_UNVERIFIED, Kind::Counter, Unit::Count, "In cluster mode: plugin announcements and deletions in the cluster that did not verify with this replica's cluster key, and were ignored."),
    (UPSTREAM_BACKOFFS, Kind::Counter, Unit::Count, "In cluster mode: back-offs from a host after a bot wall applied on this replica, whether it met the wall or another replica did, by host and wall."),
    (UPSTREAM_HELD_BACK, Kind::Counter, Unit::Count, "In cluster mode: requests not sent because the cluster was backing off their host after a wall, by host."),
    (CLUSTER_CONNECTED, Kind::Gauge, Unit::Count, "In cluster mode, by replica name: 1 while this replica is connected to NATS and shares jobs and state, 0 while it serves synchronous fetches on local state."),
];

#[derive(Clone, Copy)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// Why the metrics cannot be served.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MetricsError {
    /// Something else in this process installed a metrics recorder first.
    #[error("metrics are unavailable: another metrics recorder was installed in this process first ({0})")]
    Unavailable(String),
}

static RECORDER: OnceLock<Result<Arc<Recorder>, MetricsError>> = OnceLock::new();

/// Installs the process-wide recorder, once; later calls return the same one.
/// Nothing is recorded before the first call.
pub fn install() -> Result<&'static Recorder, MetricsError> {
    RECORDER
        .get_or_init(build_and_install)
        .as_ref()
        .map(|r| &**r)
        .map_err(Clone::clone)
}

fn build_and_install() -> Result<Arc<Recorder>, MetricsError> {
    let recorder = Arc::new(Recorder::new(&[
        (REQUEST_DURATION, REQUEST_BUCKETS),
        (UPSTREAM_DURATION, REQUEST_BUCKETS),
        (PLUGIN_CALL_DURATION, CALL_BUCKETS),
        (PLUGIN_MEMORY, MEMORY_BUCKETS),
    ]));
    metrics::set_global_recorder(recorder.clone()).map_err(|e| {
        tracing::warn!(error = %e, "metrics recorder not installed; GET /metrics will answer 503");
        MetricsError::Unavailable(e.to_string())
    })?;
    for &(name, kind, unit, help) in DESCRIPTIONS {
        match kind {
            Kind::Counter => metrics::describe_counter!(name, unit, help),
            Kind::Gauge => metrics::describe_gauge!(name, unit, help),
            Kind::Histogram => metrics::describe_histogram!(name, unit, help),
        }
    }
    Ok(recorder)
}

/// The metrics in Prometheus text format.
pub fn render() -> Result<String, MetricsError> {
    install().map(Recorder::render)
}

/// A request to a plugin route was answered.
pub fn request(route: &str, plugin: &str, status: u16, elapsed: Duration) {
    counter!(REQUESTS, "route" => route.to_owned(), "plugin" => plugin.to_owned(), "status" => status.to_string())
        .increment(1);
    histogram!(REQUEST_DURATION, "route" => route.to_owned(), "plugin" => plugin.to_owned())
        .record(elapsed.as_secs_f64());
}

/// A request being served by `plugin`; counted in [`IN_FLIGHT`] until dropped.
pub struct InFlight(Gauge);

impl std::fmt::Debug for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InFlight")
    }
}

impl InFlight {
    /// Counts a request to `plugin` as in flight.
    pub fn start(plugin: &str) -> InFlight {
        let gauge = gauge!(IN_FLIGHT, "plugin" => plugin.to_owned());
        gauge.increment(1.0);
        InFlight(gauge)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// Which bulkhead refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// The plugin's own (`max_concurrent_per_plugin`).
    Plugin,
    /// The server-wide one (`max_concurrent_requests`).
    Server,
    /// The share of the server-wide one that plugins reaching the network may hold.
    Network,
}

/// A request to `plugin` was refused with 503 by a full bulkhead.
pub fn refused(plugin: &str, pool: Pool) {
    let pool = match pool {
        Pool::Plugin => "plugin",
        Pool::Server => "server",
        Pool::Network => "network",
    };
    counter!(REFUSED, "plugin" => plugin.to_owned(), "pool" => pool).increment(1);
}

/// A review from `plugin` broke the record's rule `rule` and was repaired.
pub fn record_repaired(plugin: &str, rule: &'static str) {
    counter!(RECORDS_REPAIRED, "plugin" => plugin.to_owned(), "rule" => rule).increment(1);
}

/// A waiting connection was closed to make room for a new one.
pub fn connection_evicted() {
    counter!(CONNECTIONS_EVICTED).increment(1);
}

/// A request was refused with 429: its client (`key` or `address`) had its
/// limit of requests in flight.
pub fn client_refused(limit: &'static str) {
    counter!(CLIENT_LIMITED, "limit" => limit).increment(1);
}

/// How a plugin call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// It returned (a typed error the plugin returned counts as returned).
    Ok,
    /// It trapped or broke the contract.
    Trap,
    /// It ran past its deadline.
    Timeout,
    /// It tried to grow its memory past its cap.
    MemoryCap,
    /// It passed more data through host calls than its cap.
    HostDataCap,
    /// No instance slot or memory was free to run it.
    Overloaded,
}

impl CallOutcome {
    /// How many outcomes there are.
    const COUNT: usize = 6;

    /// The outcome's place among the [`Self::COUNT`] (a new outcome must be
    /// given one here, and counted).
    fn index(self) -> usize {
        match self {
            CallOutcome::Ok => 0,
            CallOutcome::Trap => 1,
            CallOutcome::Timeout => 2,
            CallOutcome::MemoryCap => 3,
            CallOutcome::HostDataCap => 4,
            CallOutcome::Overloaded => 5,
        }
    }

    /// The `outcome` label.
    pub fn code(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Trap => "trap",
            CallOutcome::Timeout => "timeout",
            CallOutcome::MemoryCap => "memory_cap",
            CallOutcome::HostDataCap => "host_data_cap",
            CallOutcome::Overloaded => "overloaded",
        }
    }
}

/// One plugin's call metrics, looked up once when it loads: a call then
/// records without building label strings or searching the registry, which
/// callers on every core would otherwise all do at once.
pub struct PluginMeters {
    plugin: std::sync::Arc<str>,
    /// [`PLUGIN_CALLS`] per outcome, made at its first use so that an outcome
    /// that never happened has no series.
    calls: [OnceLock<Counter>; CallOutcome::COUNT],
    duration: Histogram,
    memory: Histogram,
}

impl PluginMeters {
    /// The meters of `plugin`. Made before [`install`], they record nothing.
    pub fn new(plugin: &str) -> PluginMeters {
        PluginMeters {
            plugin: plugin.into(),
            calls: Default::default(),
            duration: histogram!(PLUGIN_CALL_DURATION, "plugin" => plugin.to_owned()),
            memory: histogram!(PLUGIN_MEMORY, "plugin" => plugin.to_owned()),
        }
    }

    /// The plugin's name.
    pub fn plugin(&self) -> &std::sync::Arc<str> {
        &self.plugin
    }

    /// A call into the plugin ended.
    pub fn call(&self, outcome: CallOutcome, elapsed: Duration) {
        self.calls[outcome.index()]
            .get_or_init(|| {
                counter!(PLUGIN_CALLS, "plugin" => self.plugin.to_string(), "outcome" => outcome.code())
            })
            .increment(1);
        self.duration.record(elapsed.as_secs_f64());
    }

    /// Records the linear memory a call's instance held when it ended.
    pub fn memory(&self, bytes: usize) {
        self.memory.record(bytes as f64);
    }
}

/// How an outbound request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamOutcome {
    /// The site answered with content (any status but those below).
    Ok,
    /// The site answered with a bot wall, CAPTCHA or sign-in page.
    BotWall,
    /// The site refused without a recognised wall: 403 or 429.
    Blocked,
    /// The allowlist or the SSRF guard refused it before it left.
    Denied,
    /// No answer in time.
    Timeout,
    /// Connection, protocol, size cap or replay miss.
    Error,
}

impl UpstreamOutcome {
    /// The `outcome` label.
    pub fn code(self) -> &'static str {
        match self {
            UpstreamOutcome::Ok => "ok",
            UpstreamOutcome::BotWall => "bot_wall",
            UpstreamOutcome::Blocked => "blocked",
            UpstreamOutcome::Denied => "denied",
            UpstreamOutcome::Timeout => "timeout",
            UpstreamOutcome::Error => "error",
        }
    }

    /// The outcome of an answer with `status`, given whether it was a wall.
    pub fn of_answer(status: u16, wall: bool) -> UpstreamOutcome {
        match (wall, status) {
            (true, _) => UpstreamOutcome::BotWall,
            (false, 403 | 429) => UpstreamOutcome::Blocked,
            _ => UpstreamOutcome::Ok,
        }
    }
}

/// An outbound request to the host of `url` ended, with the final `status` if
/// the site answered.
pub fn upstream(url: &str, status: Option<u16>, outcome: UpstreamOutcome, elapsed: Duration) {
    let host = host_label(url);
    let status = status.map_or_else(|| NONE.to_owned(), |s| s.to_string());
    counter!(UPSTREAM_REQUESTS, "host" => host.clone(), "status" => status, "outcome" => outcome.code())
        .increment(1);
    histogram!(UPSTREAM_DURATION, "host" => host).record(elapsed.as_secs_f64());
}

/// The `host` label of `url`: its host name in lower case (no scheme, port,
/// path or credentials), `other` past [`MAX_HOSTS`] distinct hosts, `invalid`
/// when it has none.
fn host_label(url: &str) -> String {
    match url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
    {
        Some(host) => bounded_host(&host),
        None => "invalid".to_owned(),
    }
}

/// The `host` label of a host name: itself in lower case, `other` past
/// [`MAX_HOSTS`] distinct hosts.
fn bounded_host(host: &str) -> String {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let host = host.to_ascii_lowercase();
    let mut seen = SEEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if seen.contains(&host) {
        return host;
    }
    if seen.len() >= MAX_HOSTS {
        return "other".to_owned();
    }
    seen.insert(host.clone());
    host
}

/// A review fetch from `source` answered with `count` reviews, stopping for `reason`.
pub fn fetch_answered(source: &str, count: usize, reason: String) {
    counter!(REVIEWS_RETURNED, "source" => source.to_owned()).increment(count as u64);
    counter!(FETCH_STOPS, "source" => source.to_owned(), "reason" => reason).increment(1);
}

/// A new version of `plugin` replaced the serving one.
pub fn plugin_swapped(plugin: &str) {
    counter!(PLUGIN_SWAPS, "plugin" => plugin.to_owned()).increment(1);
}

/// A load of `plugin` failed.
pub fn plugin_load_failed(plugin: &str) {
    counter!(PLUGIN_LOAD_FAILURES, "plugin" => plugin.to_owned()).increment(1);
}

/// A roll-out record that did not verify was ignored.
pub fn rollout_unverified() {
    counter!(ROLLOUT_UNVERIFIED).increment(1);
}

/// A back-off from `host` after `wall` was applied on this replica.
pub fn upstream_backoff(host: &str, wall: &str) {
    let host = bounded_host(host);
    counter!(UPSTREAM_BACKOFFS, "host" => host, "wall" => wall.to_owned()).increment(1);
}

/// A request to `host` was held back by a back-off.
pub fn upstream_held_back(host: &str) {
    let host = bounded_host(host);
    counter!(UPSTREAM_HELD_BACK, "host" => host).increment(1);
}

/// Records whether cluster replica `replica` is connected to NATS.
pub fn cluster_connected(replica: &str, connected: bool) {
    gauge!(CLUSTER_CONNECTED, "replica" => replica.to_owned()).set(if connected {
        1.0
    } else {
        0.0
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_host_names_only() {
        assert_eq!(
            host_label("https://user:pw@WWW.Example.com:8443/a/b?q=1"),
            "www.example.com"
        );
        assert_eq!(host_label("not a url"), "invalid");
    }

    #[test]
    fn walls_and_refusals_are_told_apart() {
        assert_eq!(
            UpstreamOutcome::of_answer(403, true),
            UpstreamOutcome::BotWall
        );
        assert_eq!(
            UpstreamOutcome::of_answer(429, false),
            UpstreamOutcome::Blocked
        );
        assert_eq!(UpstreamOutcome::of_answer(404, false), UpstreamOutcome::Ok);
    }

    #[test]
    fn every_metric_is_described_once() {
        let names: HashSet<&str> = DESCRIPTIONS.iter().map(|d| d.0).collect();
        assert_eq!(names.len(), DESCRIPTIONS.len());
        assert!(names.iter().all(|n| n.starts_with("gleaner_")));
    }
}
