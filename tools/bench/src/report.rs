//! The benchmark report: every figure the run measures, grouped in sections,
//! printed as it is measured and written at the end to `target/bench/report.md`.
//!
//! A section is opened with [`section`]; figures go into the open section with
//! [`samples`] (durations: n, median, p99, max), [`row`] (any other figure) and
//! [`note`] (a finding, in prose). [`image`] links a file written next to the
//! report, such as a chart from [`crate::chart`]. Adding a section to the report
//! is writing one async function that does exactly this and calling it from
//! `main` in the place the section should appear (see `paging.rs`).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// One row of a section's table.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// What was measured.
    pub what: String,
    /// How many samples.
    pub n: Option<usize>,
    /// The median, formatted with its unit.
    pub median: Option<String>,
    /// The 99th percentile, formatted with its unit.
    pub p99: Option<String>,
    /// Another figure (a rate, a size, a count), formatted with its unit.
    pub value: Option<String>,
    /// The ratio to this row's baseline, with the baseline named.
    pub ratio: Option<String>,
}

/// One section: a title, a table and notes.
#[derive(Debug, Clone, Default)]
struct Section {
    title: String,
    intro: String,
    rows: Vec<Row>,
    notes: Vec<String>,
    images: Vec<(String, String)>,
    tables: Vec<String>,
}

/// Every section measured so far, in order.
#[derive(Debug, Default)]
struct Report {
    header: Vec<String>,
    sections: Vec<Section>,
}

static REPORT: Mutex<Report> = Mutex::new(Report {
    header: Vec::new(),
    sections: Vec::new(),
});

fn with<R>(f: impl FnOnce(&mut Report) -> R) -> R {
    f(&mut REPORT.lock().unwrap_or_else(PoisonError::into_inner))
}

fn current(report: &mut Report) -> &mut Section {
    if report.sections.is_empty() {
        report.sections.push(Section {
            title: "other".into(),
            ..Section::default()
        });
    }
    report.sections.last_mut().expect("a section exists")
}

/// A line at the top of the report (the machine, the date).
pub fn header(line: impl Into<String>) {
    let line = line.into();
    println!("{line}");
    with(|r| r.header.push(line));
}

/// Opens a section: the figures recorded after this go into it.
pub fn section(title: &str, intro: &str) {
    println!("\n== {title}");
    with(|r| {
        r.sections.push(Section {
            title: title.to_owned(),
            intro: intro.to_owned(),
            ..Section::default()
        })
    });
}

/// Median, 99th percentile and maximum of some durations.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median.
    pub median: Duration,
    /// 99th percentile (nearest rank).
    pub p99: Duration,
    /// Largest sample.
    pub max: Duration,
}

impl Summary {
    /// Summarises `samples` (none gives zeros).
    pub fn of(samples: &[Duration]) -> Summary {
        let mut sorted = samples.to_vec();
        sorted.sort();
        if sorted.is_empty() {
            return Summary {
                n: 0,
                median: Duration::ZERO,
                p99: Duration::ZERO,
                max: Duration::ZERO,
            };
        }
        Summary {
            n: sorted.len(),
            median: percentile(&sorted, 0.5),
            p99: percentile(&sorted, 0.99),
            max: *sorted.last().expect("not empty"),
        }
    }
}

/// The value at fraction `p` of sorted samples (nearest rank).
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> T {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

/// The median of `values` (nearest rank, as [`percentile`]); `None` when empty.
pub fn median<T: Copy + PartialOrd>(mut values: Vec<T>) -> Option<T> {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    (!values.is_empty()).then(|| percentile(&values, 0.5))
}

/// A duration with a unit that suits it.
pub fn duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else if us < 10_000_000.0 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// `x` as a ratio "N.NN×".
pub fn times(x: f64) -> String {
    format!("{x:.2}×")
}

/// A byte count in MiB (or GiB when large).
pub fn bytes(b: u64) -> String {
    let mib = b as f64 / (1024.0 * 1024.0);
    if mib >= 10.0 * 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// Records durations as a row (n, median, p99) and prints them; returns their summary.
pub fn samples(what: &str, samples: &[Duration], ratio: Option<String>) -> Summary {
    let s = Summary::of(samples);
    println!(
        "{what}: n={} median={} p99={} max={}{}",
        s.n,
        duration(s.median),
        duration(s.p99),
        duration(s.max),
        ratio
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default()
    );
    push(Row {
        what: what.to_owned(),
        n: Some(s.n),
        median: Some(duration(s.median)),
        p99: Some(duration(s.p99)),
        value: None,
        ratio,
    });
    s
}

/// Records a row as given and prints it.
pub fn row(row: Row) {
    let fields = [
        row.n.map(|n| format!("n={n}")),
        row.median.as_ref().map(|m| format!("median={m}")),
        row.p99.as_ref().map(|p| format!("p99={p}")),
        row.value.clone(),
        row.ratio.as_ref().map(|r| format!("({r})")),
    ];
    let line: Vec<String> = fields.into_iter().flatten().collect();
    println!("{}: {}", row.what, line.join(" "));
    push(row);
}

fn push(row: Row) {
    with(|r| current(r).rows.push(row));
}

/// Adds a finding in prose to the open section, and prints it.
pub fn note(text: impl Into<String>) {
    let text = text.into();
    println!("  note: {text}");
    with(|r| current(r).notes.push(text));
}

/// Adds a table of its own (Markdown, header row first) to the open section,
/// after its rows, and prints it.
pub fn table(markdown: impl Into<String>) {
    let markdown = markdown.into();
    println!("{markdown}");
    with(|r| current(r).tables.push(markdown));
}

/// Links an image (a file beside the report) from the open section.
#[allow(dead_code)]
pub fn image(alt: &str, file: &str) {
    println!("  chart: {file}");
    with(|r| current(r).images.push((alt.to_owned(), file.to_owned())));
}

fn cell(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// The report as Markdown.
pub fn markdown() -> String {
    with(|r| {
        let mut out = String::from("# Gleaner benchmarks\n\n");
        for line in &r.header {
            let _ = writeln!(out, "{line}  ");
        }
        out.push('\n');
        for s in &r.sections {
            let _ = writeln!(out, "## {}\n", s.title);
            if !s.intro.is_empty() {
                let _ = writeln!(out, "{}\n", s.intro);
            }
            if !s.rows.is_empty() {
                out.push_str("| what | n | median | p99 | figure | vs baseline |\n");
                out.push_str("|---|---:|---:|---:|---:|---:|\n");
                for row in &s.rows {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} | {} | {} |",
                        row.what.replace('|', "\\|"),
                        row.n.map(|n| n.to_string()).unwrap_or_default(),
                        cell(&row.median),
                        cell(&row.p99),
                        cell(&row.value),
                        cell(&row.ratio),
                    );
                }
                out.push('\n');
            }
            for table in &s.tables {
                let _ = writeln!(out, "{table}");
            }
            for (alt, file) in &s.images {
                let _ = writeln!(out, "![{alt}]({file})\n");
            }
            for n in &s.notes {
                let _ = writeln!(out, "- {n}");
            }
            if !s.notes.is_empty() {
                out.push('\n');
            }
        }
        out
    })
}

/// Writes the report to `path`, creating its directory.
pub fn write(path: &Path) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, markdown())?;
    println!("\nreport written to {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_units() {
        let s: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let sum = Summary::of(&s);
        assert_eq!(sum.n, 100);
        assert_eq!(sum.median, Duration::from_millis(51));
        assert_eq!(sum.p99, Duration::from_millis(99));
        assert_eq!(duration(Duration::from_micros(12)), "12.0 µs");
        assert_eq!(duration(Duration::from_millis(3)), "3.000 ms");
        assert_eq!(bytes(3 << 20), "3.0 MiB");
        assert_eq!(Summary::of(&[]).n, 0);
    }
}
