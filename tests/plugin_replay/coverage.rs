//! Fill rates measured over a plugin's replay answers: per field of the
//! review record, the share of the distinct reviews the answers held that
//! fill it (a value that is not null, not empty text and not an empty list).
//! With `GLEANER_BLESS=1` they are written into the plugin's manifest
//! (`[coverage]`) and its guide (`docs/sources/<name>.md`, between the
//! `fill-rates` markers); otherwise both must say what was measured.

use std::collections::BTreeMap;
use std::path::Path;

use gleaner::manifest::coverage::{fields, Coverage};
use serde_json::Value;

/// The comment above a manifest's generated table; where it starts.
const MANIFEST_HEAD: &str = "# Fill rates: the share of the distinct reviews of the replay cases'";
const GUIDE_START: &str = "<!-- fill-rates: written by the replay tests (GLEANER_BLESS=1) -->";
const GUIDE_END: &str = "<!-- /fill-rates -->";

/// The distinct reviews a plugin's answers held, by id.
#[derive(Default)]
pub struct Fill {
    reviews: BTreeMap<String, Value>,
}

impl Fill {
    /// Adds the reviews of one answer.
    pub fn add(&mut self, answer: &Value) {
        for review in answer["all_reviews"].as_array().into_iter().flatten() {
            if let Some(id) = review["review_id"].as_str() {
                self.reviews
                    .entry(id.to_owned())
                    .or_insert_with(|| review.clone());
            }
        }
    }

    /// The rates, each rounded to three decimals.
    pub fn coverage(&self) -> Coverage {
        let n = self.reviews.len();
        let fields = fields()
            .map(|field| {
                let filled = self.reviews.values().filter(|r| filled(&r[field])).count();
                let rate = if n == 0 {
                    0.0
                } else {
                    filled as f64 / n as f64
                };
                (field.to_owned(), (rate * 1000.0).round() / 1000.0)
            })
            .collect();
        Coverage {
            reviews: n as u64,
            fields,
        }
    }
}

fn filled(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => true,
    }
}

/// The manifest's table, as written.
fn manifest_table(c: &Coverage) -> String {
    let mut out = format!(
        "{MANIFEST_HEAD}\n# answers that fill each record field, written by the replay tests\n\
         # (GLEANER_BLESS=1 make test); GET /sources serves it.\n[coverage]\nreviews = {}\n",
        c.reviews
    );
    for field in fields() {
        out.push_str(&format!("{field} = {:?}\n", c.fields[field]));
    }
    out
}

/// The guide's table, as written.
fn guide_table(c: &Coverage) -> String {
    let mut out = format!(
        "{GUIDE_START}\nOver the {} distinct reviews of the replay cases (recorded responses):\n\n\
         | field | filled |\n|---|---:|\n",
        c.reviews
    );
    for field in fields() {
        out.push_str(&format!(
            "| `{field}` | {:.0}% |\n",
            c.fields[field] * 100.0
        ));
    }
    out.push_str(GUIDE_END);
    out
}

/// Checks (or, blessing, writes) the plugin's manifest and guide against
/// `measured`; the problems found.
pub fn check(plugin_dir: &Path, guide: &Path, measured: &Coverage) -> Vec<String> {
    let bless = std::env::var_os("GLEANER_BLESS").is_some();
    let mut problems = Vec::new();
    let manifest_path = plugin_dir.join("manifest.toml");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let kept = manifest
        .find(MANIFEST_HEAD)
        .map_or(manifest.as_str(), |at| &manifest[..at]);
    let wanted = format!("{}\n\n{}", kept.trim_end(), manifest_table(measured));
    if manifest != wanted {
        if bless {
            std::fs::write(&manifest_path, &wanted).unwrap();
        } else {
            problems.push(format!(
                "{}'s [coverage] is not what the replay cases measure ({measured:?}); \
                 run the test with GLEANER_BLESS=1 to write it",
                manifest_path.display()
            ));
        }
    }
    if let Ok(text) = std::fs::read_to_string(guide) {
        let table = guide_table(measured);
        let wanted = match (text.find(GUIDE_START), text.find(GUIDE_END)) {
            (Some(start), Some(end)) if end > start => {
                format!(
                    "{}{table}{}",
                    &text[..start],
                    &text[end + GUIDE_END.len()..]
                )
            }
            _ => format!("{}\n\n## Fill rates\n\n{table}\n", text.trim_end()),
        };
        if text != wanted {
            if bless {
                std::fs::write(guide, &wanted).unwrap();
            } else {
                problems.push(format!(
                    "{}'s fill-rate table is not what the replay cases measure; \
                     run the test with GLEANER_BLESS=1 to write it",
                    guide.display()
                ));
            }
        }
    }
    problems
}
