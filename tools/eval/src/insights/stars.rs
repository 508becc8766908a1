//! review-insights on held-out star-rated reviews: real reviews in seven
//! languages, each with its reviewer's stars (`GLEANER_EVAL_DATA/insights/stars`,
//! one `<language>.jsonl` per language). Nothing was tuned on these sets.
//!
//! Polarity counts 1–2 stars as negative and 4–5 as positive; 3 stars are
//! left out. Each set is scored as the labelled sets are (see the parent
//! module): the language, the polarity and label sent without `language`,
//! and the polarity with the set's language given.

use std::path::Path;

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::{mean_over_languages, report, score_set, Mismatches, Sample, Set, Tally};
use crate::data::{Data, ThirdParty};
use crate::score;
use crate::server::Server;

pub const SETS: ThirdParty = ThirdParty {
    dir: "insights/stars",
    source: "the Multilingual Amazon Reviews Corpus's test split (en, de, fr, es, ja, zh; \
             academic research only) and Olist's order reviews (pt; CC BY-NC-SA 4.0), as \
             JSON lines {\"id\", \"text\", \"stars\"}; docs/quality.md says which rows",
    place:
        "by hand: one <language>.jsonl per language (docs/quality.md#held-out-star-rated-reviews)",
};

/// The reviews the third mismatch selection reads: rows 700 to 999 of the
/// 1-, 2-, 4- and 5-star reviews of each MARC language's test split, every
/// one labelled by reading before the rule was run on them.
pub const MISMATCH_ROWS: ThirdParty = ThirdParty {
    dir: "insights/stars-mismatch",
    source: "the Multilingual Amazon Reviews Corpus's test split (en, de, fr, es, ja, zh; \
             academic research only), as JSON lines {\"id\", \"text\", \"stars\"}; \
             docs/quality.md says which rows",
    place: "by hand: one <language>.jsonl per language (docs/quality.md#rating_mismatch-measured-on-every-review)",
};

/// The files, the name each set prints under, and its language.
const FILES: [(&str, &str, &str); 7] = [
    ("en.jsonl", "held out: MARC amazon.com (en)", "en"),
    ("de.jsonl", "held out: MARC amazon.de (de)", "de"),
    ("fr.jsonl", "held out: MARC amazon.fr (fr)", "fr"),
    ("es.jsonl", "held out: MARC amazon.es (es)", "es"),
    ("ja.jsonl", "held out: MARC amazon.co.jp (ja)", "ja"),
    ("zh.jsonl", "held out: MARC amazon.cn (zh)", "zh"),
    ("pt.jsonl", "held out: Olist (pt)", "pt"),
];

/// Scores every set that is there, then all of them together.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    let Some(dir) = data.third_party(&SETS) else {
        return Ok(());
    };
    let mut all = Tally::default();
    let mut tallies = Vec::new();
    for set in load(&dir)? {
        let tally = score_set(server, &set).await?;
        report(set.name, &tally);
        all.add(&tally);
        tallies.push(tally);
    }
    report("held out: every set", &all);
    mean_over_languages("held out: every language", tallies.iter());
    // The first selection was read for changes to the mismatch rule; the
    // second was labelled after that, and read only for the figures.
    let texts = texts_by_id(&dir, &["en", "de", "fr", "es"])?;
    for (labels, name) in [
        (
            "insights/mismatch-marc.tsv",
            "held out: MARC, labelled by reading",
        ),
        (
            "insights/mismatch-marc-2.tsv",
            "held out: MARC second selection, labelled by reading",
        ),
    ] {
        mismatch(server, data, &texts, &dir, labels, name).await?;
    }
    // The third was read whole, every review of its rows, before the rule
    // it measures was run on them.
    if let Some(rows) = data.third_party(&MISMATCH_ROWS) {
        let texts = texts_by_id(&rows, &["en", "de", "fr", "es", "ja", "zh"])?;
        let labels = "insights/mismatch-marc-3.tsv";
        let name = "held out: MARC rows 700-999, every review read";
        mismatch(server, data, &texts, &rows, labels, name).await?;
    }
    Ok(())
}

/// The sets present under `dir`, each without its 3-star reviews.
fn load(dir: &Path) -> anyhow::Result<Vec<Set>> {
    let mut sets = Vec::new();
    for (file, name, language) in FILES {
        let path = dir.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            score::note(format!("{name}: no {} (skipped)", path.display()));
            continue;
        };
        let mut samples = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let row: Value = serde_json::from_str(line).map_err(|e| {
                anyhow::anyhow!("{}:{}: not a JSON object: {e}", path.display(), i + 1)
            })?;
            let (Some(text), Some(stars)) = (row["text"].as_str(), row["stars"].as_u64()) else {
                anyhow::bail!(
                    "{}:{}: each line needs a string \"text\" and whole \"stars\" 1 to 5",
                    path.display(),
                    i + 1
                );
            };
            let positive = match stars {
                1 | 2 => false,
                4 | 5 => true,
                3 => continue,
                other => anyhow::bail!(
                    "{}:{}: \"stars\" is {other}; give 1 to 5",
                    path.display(),
                    i + 1
                ),
            };
            samples.push(Sample {
                text: text.to_owned(),
                positive,
            });
        }
        sets.push(Set {
            name,
            language,
            samples,
        });
    }
    Ok(sets)
}

/// The texts of `languages`, by id, as read from `dir`.
fn texts_by_id(dir: &Path, languages: &[&str]) -> anyhow::Result<HashMap<String, String>> {
    let mut texts = HashMap::new();
    for language in languages {
        let path = dir.join(format!("{language}.jsonl"));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: Value = serde_json::from_str(line)?;
            if let (Some(id), Some(text)) = (row["id"].as_str(), row["text"].as_str()) {
                texts.insert(id.to_owned(), text.to_owned());
            }
        }
    }
    Ok(texts)
}

/// `rating_mismatch` on `labels` (under `eval/`): reviews of these sets
/// labelled by reading, by id (`texts`, read from `dir`), each sent with its
/// stars and its set's language, scored as `name`.
async fn mismatch(
    server: &Server,
    data: &Data,
    texts: &HashMap<String, String>,
    dir: &Path,
    labels: &str,
    name: &str,
) -> anyhow::Result<()> {
    let labels_path = data.own(labels);
    let labels = std::fs::read_to_string(&labels_path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", labels_path.display()))?;
    let mut tally = Mismatches::default();
    let mut by_language: BTreeMap<&str, Mismatches> = BTreeMap::new();
    for line in labels.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [id, stars, label, ..] = fields[..] else {
            anyhow::bail!(
                "{}: {line:?} is not id, stars, mismatch, why",
                labels_path.display()
            );
        };
        let text = texts
            .get(id)
            .ok_or_else(|| anyhow::anyhow!("{id} is labelled but not in {}", dir.display()))?;
        let language = id.split('-').nth(1).unwrap_or_default();
        let body = json!({
            "review_text": text,
            "review_rating": stars.parse::<u32>()?,
            "rating_scale_max": 5,
            "language": language,
        });
        let shown = format!("{id} ({stars} stars)");
        let truth = label == "true";
        if let Some(flag) = tally.check(server, name, &shown, &body, truth).await? {
            by_language.entry(language).or_default().count(flag, truth);
        }
    }
    tally.report(name);
    if by_language.len() > 1 {
        for (language, tally) in &by_language {
            tally.report(&format!("{name} ({language})"));
        }
    }
    Ok(())
}
