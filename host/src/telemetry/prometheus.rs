//! The recorder behind the `metrics` macros: counters, gauges and histograms
//! held in atomics, rendered in Prometheus' text exposition format (0.0.4) when
//! `GET /metrics` is scraped.
//!
//! Histograms count into fixed buckets as they record, so a scrape reads them
//! as they are and nothing has to fold samples in between scrapes. Building the
//! recorder costs nothing measurable: the server makes it before it loads its
//! first plugin, so its start-up waits for it.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use metrics::{
    Counter, CounterFn, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, SharedString, Unit,
};
use metrics_util::registry::{Registry, Storage};

/// Prometheus' default buckets, for a histogram given none.
const DEFAULT_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How many copies of each counter and histogram are kept. A thread records
/// into its own copy and a scrape adds them up, so calls on different cores do
/// not write the same cache line every time: with one copy, two callers of a
/// short processor spent 1.6% to 4% of their time on the plugin's call
/// counter and histograms and the memory pool's lock, together.
const SHARDS: usize = 8;

/// Counters on a cache line pair of their own (128 bytes: the unit that
/// adjacent-line prefetching moves on x86).
#[repr(align(128))]
struct Line([AtomicU64; 16]);

impl Line {
    fn new() -> Line {
        Line(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// The copy the calling thread records into: threads take copies in turn.
fn shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    std::thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
    }
    SHARD.with(|shard| *shard)
}

/// `SHARDS` copies of `slots` counters, each copy on lines of its own.
struct Sharded {
    lines_per_shard: usize,
    lines: Box<[Line]>,
}

impl Sharded {
    fn new(slots: usize) -> Sharded {
        let lines_per_shard = slots.div_ceil(16).max(1);
        Sharded {
            lines_per_shard,
            lines: (0..SHARDS * lines_per_shard).map(|_| Line::new()).collect(),
        }
    }

    /// Counter `slot` of copy `shard`.
    fn at(&self, shard: usize, slot: usize) -> &AtomicU64 {
        let index = shard * self.lines_per_shard * 16 + slot;
        &self.lines[index / 16].0[index % 16]
    }

    /// Counter `slot` of the calling thread's copy.
    fn mine(&self, slot: usize) -> &AtomicU64 {
        self.at(shard(), slot)
    }

    /// Counter `slot` added up over the copies.
    fn total(&self, slot: usize) -> u64 {
        (0..SHARDS)
            .map(|s| self.at(s, slot).load(Ordering::Relaxed))
            .sum()
    }
}

/// A counter kept in [`SHARDS`] copies.
pub struct ShardedCounter(Sharded);

impl ShardedCounter {
    fn new() -> ShardedCounter {
        ShardedCounter(Sharded::new(1))
    }

    /// The counter's value.
    pub fn value(&self) -> u64 {
        self.0.total(0)
    }
}

impl CounterFn for ShardedCounter {
    fn increment(&self, value: u64) {
        self.0.mine(0).fetch_add(value, Ordering::Relaxed);
    }

    fn absolute(&self, value: u64) {
        let now = self.value();
        if value > now {
            self.increment(value - now);
        }
    }
}

/// A histogram's counts, in [`SHARDS`] copies: one per bucket bound, one above
/// the last bound, then the sum of every value recorded (as `f64` bits).
pub struct Buckets {
    bounds: &'static [f64],
    counts: Sharded,
}

impl Buckets {
    fn new(bounds: &'static [f64]) -> Buckets {
        Buckets {
            bounds,
            counts: Sharded::new(bounds.len() + 2),
        }
    }

    /// How many values fell in bucket `slot` (`bounds.len()` is above the last bound).
    fn count(&self, slot: usize) -> u64 {
        self.counts.total(slot)
    }

    /// The sum of every value recorded.
    fn sum(&self) -> f64 {
        let slot = self.bounds.len() + 1;
        (0..SHARDS)
            .map(|s| f64::from_bits(self.counts.at(s, slot).load(Ordering::Relaxed)))
            .sum()
    }
}

impl HistogramFn for Buckets {
    fn record(&self, value: f64) {
        // The first bucket whose bound is at least the value (NaN goes above all).
        let slot = self
            .bounds
            .partition_point(|&bound| bound < value || value.is_nan());
        let shard = shard();
        self.counts.at(shard, slot).fetch_add(1, Ordering::Relaxed);
        let _ = self.counts.at(shard, self.bounds.len() + 1).fetch_update(
            Ordering::Relaxed,
            Ordering::Relaxed,
            |bits| Some((f64::from_bits(bits) + value).to_bits()),
        );
    }
}

/// What each new series is made of; histograms get the buckets named for them.
struct Handles {
    buckets: HashMap<&'static str, &'static [f64]>,
}

impl Storage<Key> for Handles {
    type Counter = Arc<ShardedCounter>;
    type Gauge = Arc<AtomicU64>;
    type Histogram = Arc<Buckets>;

    fn counter(&self, _: &Key) -> Self::Counter {
        Arc::new(ShardedCounter::new())
    }

    fn gauge(&self, _: &Key) -> Self::Gauge {
        Arc::new(AtomicU64::new(0f64.to_bits()))
    }

    fn histogram(&self, key: &Key) -> Self::Histogram {
        let bounds = self.buckets.get(key.name()).copied();
        Arc::new(Buckets::new(bounds.unwrap_or(DEFAULT_BUCKETS)))
    }
}

/// The process's metrics, installed as the `metrics` crate's global recorder.
pub struct Recorder {
    registry: Registry<Key, Handles>,
    help: RwLock<HashMap<String, SharedString>>,
}

impl Recorder {
    /// A recorder whose histograms named in `buckets` count into those bounds
    /// (ascending); any other histogram gets Prometheus' default buckets.
    pub fn new(buckets: &[(&'static str, &'static [f64])]) -> Recorder {
        Recorder {
            registry: Registry::new(Handles {
                buckets: buckets.iter().copied().collect(),
            }),
            help: RwLock::default(),
        }
    }

    fn describe(&self, key: KeyName, description: SharedString) {
        self.help
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.as_str().to_owned(), description);
    }

    /// Every series in the text exposition format: metrics by name, each with
    /// its help text and type, then its series ordered by their labels.
    pub fn render(&self) -> String {
        let mut families: BTreeMap<String, Family> = BTreeMap::new();
        self.registry.visit_counters(|key, counter| {
            let value = counter.value().to_string();
            single(&mut families, key, "counter", &value);
        });
        self.registry.visit_gauges(|key, gauge| {
            let value = number(f64::from_bits(gauge.load(Ordering::Relaxed)));
            single(&mut families, key, "gauge", &value);
        });
        self.registry.visit_histograms(|key, histogram| {
            let labels = labels(key);
            let name = key.name();
            let mut lines = Vec::with_capacity(histogram.bounds.len() + 3);
            let mut cumulative = 0u64;
            for slot in 0..=histogram.bounds.len() {
                cumulative += histogram.count(slot);
                let bound = histogram
                    .bounds
                    .get(slot)
                    .map_or_else(|| "+Inf".to_owned(), |b| number(*b));
                lines.push(series(
                    name,
                    "_bucket",
                    &labels,
                    Some(&bound),
                    &cumulative.to_string(),
                ));
            }
            let sum = number(histogram.sum());
            lines.push(series(name, "_sum", &labels, None, &sum));
            lines.push(series(
                name,
                "_count",
                &labels,
                None,
                &cumulative.to_string(),
            ));
            family(&mut families, key, "histogram")
                .series
                .insert(labels, lines);
        });
        let help = self.help.read().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        for (name, family) in families {
            if let Some(text) = help.get(&name) {
                let _ = writeln!(out, "# HELP {name} {}", escape(text, false));
            }
            let _ = writeln!(out, "# TYPE {name} {}", family.kind);
            for line in family.series.into_values().flatten() {
                out.push_str(&line);
            }
            out.push('\n');
        }
        out
    }
}

/// One metric name's type and its series' lines, by their labels.
struct Family {
    kind: &'static str,
    series: BTreeMap<String, Vec<String>>,
}

/// The family of `key`'s name, made with `kind` if it is new.
fn family<'a>(
    families: &'a mut BTreeMap<String, Family>,
    key: &Key,
    kind: &'static str,
) -> &'a mut Family {
    families
        .entry(key.name().to_owned())
        .or_insert_with(|| Family {
            kind,
            series: BTreeMap::new(),
        })
}

/// Adds `key`'s one-line series (a counter or a gauge) of `value`.
fn single(families: &mut BTreeMap<String, Family>, key: &Key, kind: &'static str, value: &str) {
    let labels = labels(key);
    let line = series(key.name(), "", &labels, None, value);
    family(families, key, kind)
        .series
        .insert(labels, vec![line]);
}

/// `text` with `\`, line feeds and, in a label value, `"` escaped.
fn escape(text: &str, quotes: bool) -> String {
    let text = text.replace('\\', "\\\\").replace('\n', "\\n");
    match quotes {
        true => text.replace('"', "\\\""),
        false => text,
    }
}

/// A key's labels as `k="v",…`, values escaped, in the order they were given.
fn labels(key: &Key) -> String {
    let mut out = String::new();
    for label in key.labels() {
        if !out.is_empty() {
            out.push(',');
        }
        let _ = write!(out, "{}=\"{}\"", label.key(), escape(label.value(), true));
    }
    out
}

/// One sample line: `name<suffix>{labels[,le="bound"]} value`.
fn series(name: &str, suffix: &str, labels: &str, le: Option<&str>, value: &str) -> String {
    let mut all = labels.to_owned();
    if let Some(le) = le {
        if !all.is_empty() {
            all.push(',');
        }
        let _ = write!(all, "le=\"{le}\"");
    }
    match all.is_empty() {
        true => format!("{name}{suffix} {value}\n"),
        false => format!("{name}{suffix}{{{all}}} {value}\n"),
    }
}

/// A number as the format writes it (`+Inf`, `-Inf` and `NaN` included).
fn number(value: f64) -> String {
    match value {
        v if v.is_nan() => "NaN".to_owned(),
        v if v == f64::INFINITY => "+Inf".to_owned(),
        v if v == f64::NEG_INFINITY => "-Inf".to_owned(),
        v => v.to_string(),
    }
}

impl metrics::Recorder for Recorder {
    fn describe_counter(&self, key: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(key, description);
    }

    fn describe_gauge(&self, key: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(key, description);
    }

    fn describe_histogram(&self, key: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(key, description);
    }

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        self.registry
            .get_or_create_counter(key, |c| Counter::from_arc(c.clone()))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        self.registry
            .get_or_create_gauge(key, |g| Gauge::from_arc(g.clone()))
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        self.registry
            .get_or_create_histogram(key, |h| Histogram::from_arc(h.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics::Recorder as _;

    const META: Metadata<'static> = Metadata::new("test", metrics::Level::INFO, None);

    #[test]
    fn series_render_with_help_type_and_escaped_labels() {
        let r = Recorder::new(&[("t_seconds", &[0.1, 1.0])]);
        r.describe_counter("t_total".into(), None, "Things.\nMore".into());
        let key = Key::from_parts("t_total", vec![metrics::Label::new("who", "a\"b\\c")]);
        r.register_counter(&key, &META).increment(3);
        r.register_gauge(&Key::from_name("t_gauge"), &META).set(0.5);
        let h = r.register_histogram(
            &Key::from_parts("t_seconds", vec![metrics::Label::new("p", "x")]),
            &META,
        );
        for v in [0.0625, 0.25, 0.5, 7.0] {
            h.record(v);
        }
        let text = r.render();
        for line in [
            "# HELP t_total Things.\\nMore\n# TYPE t_total counter\nt_total{who=\"a\\\"b\\\\c\"} 3\n",
            "# TYPE t_gauge gauge\nt_gauge 0.5\n",
            "# TYPE t_seconds histogram\n",
            "t_seconds_bucket{p=\"x\",le=\"0.1\"} 1\n",
            "t_seconds_bucket{p=\"x\",le=\"1\"} 3\n",
            "t_seconds_bucket{p=\"x\",le=\"+Inf\"} 4\n",
            "t_seconds_sum{p=\"x\"} 7.8125\n",
            "t_seconds_count{p=\"x\"} 4\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn counts_recorded_on_many_threads_add_up() {
        let r = Recorder::new(&[("m_seconds", &[1.0])]);
        let counter = r.register_counter(&Key::from_name("m_total"), &META);
        let histogram = r.register_histogram(&Key::from_name("m_seconds"), &META);
        std::thread::scope(|scope| {
            for _ in 0..12 {
                scope.spawn(|| {
                    for _ in 0..1000 {
                        counter.increment(1);
                        histogram.record(0.5);
                        histogram.record(2.0);
                    }
                });
            }
        });
        let text = r.render();
        for line in [
            "m_total 12000\n",
            "m_seconds_bucket{le=\"1\"} 12000\n",
            "m_seconds_bucket{le=\"+Inf\"} 24000\n",
            "m_seconds_sum 30000\n",
            "m_seconds_count 24000\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        counter.absolute(20000);
        assert!(r.render().contains("m_total 20000\n"));
    }

    #[test]
    fn a_histogram_named_nowhere_gets_the_default_buckets() {
        let r = Recorder::new(&[]);
        r.register_histogram(&Key::from_name("d"), &META)
            .record(f64::NAN);
        let text = r.render();
        assert!(text.contains("d_bucket{le=\"10\"} 0\n"), "{text}");
        assert!(text.contains("d_bucket{le=\"+Inf\"} 1\n"), "{text}");
        assert!(text.contains("d_sum NaN\n"), "{text}");
    }
}
