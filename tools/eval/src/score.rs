//! The report: one table row per score, printed as it is recorded and written
//! to `target/eval/report.md` at the end.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn push(line: String) {
    println!("{line}");
    LINES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(line);
}

/// The report's first lines: when it ran and which third-party data it saw.
pub fn header(data: &crate::data::Data) {
    let when = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    push("# Gleaner quality benchmarks".into());
    push(String::new());
    push(format!("written by `make eval` at {when} (UTC)  "));
    push(format!(
        "third-party data: {}",
        data.third_party
            .as_ref()
            .map_or("GLEANER_EVAL_DATA not set".to_owned(), |d| d
                .display()
                .to_string())
    ));
}

/// Opens a benchmark's section with what it measures and on which data.
pub fn section(title: &str, about: &str) {
    push(String::new());
    push(format!("## {title}"));
    push(String::new());
    push(about.to_owned());
    push(String::new());
    push("| set | metric | n | score |".into());
    push("|---|---|---:|---:|".into());
}

/// A score: `hits` of `n` as a percentage.
pub fn rate(set: &str, metric: &str, hits: usize, n: usize) {
    let pct = if n == 0 {
        "—".to_owned()
    } else {
        format!("{:.1}% ({hits}/{n})", 100.0 * hits as f64 / n as f64)
    };
    push(format!("| {set} | {metric} | {n} | {pct} |"));
}

/// A score that is not a rate (e.g. GLEU), with its number of items.
pub fn value(set: &str, metric: &str, n: usize, value: String) {
    push(format!("| {set} | {metric} | {n} | {value} |"));
}

/// A line under the open table: a skipped set, a failure worth reading.
pub fn note(text: String) {
    push(format!("- {text}"));
}

/// Writes the report.
pub fn write(path: &Path) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let lines = LINES.lock().unwrap_or_else(PoisonError::into_inner);
    std::fs::write(path, lines.join("\n") + "\n")?;
    println!("\nreport written to {}", path.display());
    Ok(())
}
