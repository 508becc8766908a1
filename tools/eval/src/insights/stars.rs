//! review-insights on held-out star-rated reviews: real reviews in seven
//! languages, each with its reviewer's stars (`GLEANER_EVAL_DATA/insights/stars`,
//! one `<language>.jsonl` per language). Nothing was tuned on these sets.
//!
//! Polarity counts 1–2 stars as negative and 4–5 as positive; 3 stars are
//! left out. Each set is scored as the labelled sets are (see the parent
//! module): the language, the polarity and label sent without `language`,
//! and the polarity with the set's language given.

use std::path::Path;

use serde_json::Value;

use super::{report, score_set, Sample, Set, Tally};
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
    let (mut all, mut macro_polarity, mut languages) = (Tally::default(), 0.0, 0);
    for set in load(&dir)? {
        let tally = score_set(server, &set).await?;
        report(set.name, &tally);
        if tally.n > 0 {
            macro_polarity += tally.polarity_right as f64 / tally.n as f64;
            languages += 1;
        }
        all.n += tally.n;
        all.language_right += tally.language_right;
        all.polarity_right += tally.polarity_right;
        all.label_right += tally.label_right;
        all.answered += tally.answered;
        all.polarity_given += tally.polarity_given;
    }
    report("held out: every set", &all);
    if languages > 0 {
        score::value(
            "held out: every language",
            "polarity, mean over languages",
            languages,
            format!("{:.1}%", 100.0 * macro_polarity / languages as f64),
        );
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
