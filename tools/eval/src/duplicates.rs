//! Near-duplicate reviews (`duplicate_of`): precision on real review corpora,
//! each read as one job, against the pairs labelled by reading in
//! `eval/duplicates/labels.tsv` (see `eval/duplicates/README.md`).
//!
//! The detector is the server's own ([`gleaner_text::near_duplicate`]), the
//! code a fetch or job with `insights: true` runs. Pairs flagged but not
//! labelled are counted and written, with their texts, to
//! `target/eval/duplicates-unlabelled.jsonl` for labelling (one object per
//! pair: `set`, `earlier`, `later` and the two texts).

use std::collections::HashMap;
use std::path::Path;

use serde_json::json;

use gleaner_text::near_duplicate::NearDuplicates;

use crate::data::Data;
use crate::score;

/// The most flagged pairs of one corpus that are labelled.
const LABELLED_PER_SET: usize = 40;

/// The sampling seed (fixed, so the drawn pairs stay the same).
const SEED: u64 = 1;

/// Runs the detector on every corpus and scores the labelled pairs.
pub fn run(data: &Data) -> anyhow::Result<()> {
    score::section(
        "near-duplicates (duplicate_of)",
        "Pairs a job with insights flags as near-duplicates, labelled by reading: precision. Sets: eval/duplicates/README.md",
    );
    let Some(dir) = data.third_party(&crate::insights::SETS) else {
        return Ok(());
    };
    let labels = labels(&crate::root().join("eval/duplicates/labels.tsv"))?;
    let mut unlabelled = String::new();
    let (mut all_sample, mut all_edited) = (Tally::default(), Tally::default());
    for corpus in crate::insights::corpora(&dir)? {
        let set = corpus.key;
        let texts: Vec<String> = corpus.rows.into_iter().map(|(text, _)| text).collect();
        let pairs = flagged(&texts);
        let identical = |(a, b): &(usize, usize)| texts[*a] == texts[*b];
        let sample = drawn(&pairs);
        let edited: Vec<(usize, usize)> = pairs.iter().copied().filter(|p| !identical(p)).collect();
        let label = |pair: &(usize, usize)| labels.get(&(set.to_owned(), pair.0, pair.1));
        let (mut in_sample, mut in_edited) = (Tally::default(), Tally::default());
        for pair in &sample {
            in_sample.add(label(pair));
        }
        for pair in &edited {
            in_edited.add(label(pair));
        }
        let mut missing: Vec<&(usize, usize)> = sample
            .iter()
            .chain(&edited)
            .filter(|p| label(p).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        for &&(earlier, later) in &missing {
            let pair = json!({
                "set": set, "earlier": earlier, "later": later,
                "earlier_text": texts[earlier], "later_text": texts[later],
            });
            unlabelled.push_str(&pair.to_string());
            unlabelled.push('\n');
        }
        for pair in sample.iter().chain(&edited) {
            if label(pair) == Some(&false) {
                score::note(format!(
                    "duplicates {}: {} and {} flagged, labelled not",
                    set, pair.0, pair.1
                ));
            }
        }
        let name = format!("{} ({} texts)", set, texts.len());
        score::value(&name, "pairs flagged", pairs.len(), pairs.len().to_string());
        let same = pairs.iter().filter(|p| identical(p)).count();
        score::value(
            &name,
            "of them, the same text",
            pairs.len(),
            same.to_string(),
        );
        score::rate(
            &name,
            "precision (drawn pairs)",
            in_sample.dup,
            in_sample.labelled,
        );
        score::rate(
            &name,
            "precision (pairs of different texts)",
            in_edited.dup,
            in_edited.labelled,
        );
        if !missing.is_empty() {
            score::note(format!(
                "duplicates {}: {} pairs to label have no label; see target/eval/duplicates-unlabelled.jsonl",
                set,
                missing.len()
            ));
        }
        all_sample.merge(&in_sample);
        all_edited.merge(&in_edited);
    }
    score::rate(
        "all corpora",
        "precision (drawn pairs)",
        all_sample.dup,
        all_sample.labelled,
    );
    score::rate(
        "all corpora",
        "precision (pairs of different texts)",
        all_edited.dup,
        all_edited.labelled,
    );
    let out = crate::root().join("target/eval/duplicates-unlabelled.jsonl");
    std::fs::create_dir_all(out.parent().unwrap_or(Path::new(".")))?;
    std::fs::write(out, unlabelled)?;
    Ok(())
}

/// Labelled pairs, and how many of them a reader called near-duplicates.
#[derive(Default)]
struct Tally {
    labelled: usize,
    dup: usize,
}

impl Tally {
    fn add(&mut self, label: Option<&bool>) {
        if let Some(dup) = label {
            self.labelled += 1;
            self.dup += usize::from(*dup);
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.labelled += other.labelled;
        self.dup += other.dup;
    }
}

/// Every pair the detector flags in `texts` read as one job: (the earlier
/// text's position, the later's).
fn flagged(texts: &[String]) -> Vec<(usize, usize)> {
    let mut index = NearDuplicates::default();
    let mut pairs = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        if let Some(earlier) = index.check(&i.to_string(), text) {
            if let Ok(earlier) = earlier.parse() {
                pairs.push((earlier, i));
            }
        }
    }
    pairs
}

/// The pairs to label: all of them, or [`LABELLED_PER_SET`] drawn at random.
fn drawn(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    if pairs.len() <= LABELLED_PER_SET {
        return pairs.to_vec();
    }
    // A partial Fisher-Yates shuffle with SplitMix64, then back in order.
    let mut state = SEED;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut all = pairs.to_vec();
    for i in 0..LABELLED_PER_SET {
        let j = i + (next() % (all.len() - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(LABELLED_PER_SET);
    all.sort_unstable();
    all
}

/// `labels.tsv`: (set, earlier, later) to whether a reader called the pair
/// near-duplicates.
fn labels(path: &Path) -> anyhow::Result<HashMap<(String, usize, usize), bool>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let mut labels = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let bad = || {
            anyhow::anyhow!(
                "{}:{}: not `set earlier later dup|not note`",
                path.display(),
                n + 1
            )
        };
        let [set, earlier, later, label, ..] = fields[..] else {
            return Err(bad());
        };
        let dup = match label {
            "dup" => true,
            "not" => false,
            _ => return Err(bad()),
        };
        labels.insert(
            (
                set.to_owned(),
                earlier.parse().map_err(|_| bad())?,
                later.parse().map_err(|_| bad())?,
            ),
            dup,
        );
    }
    Ok(labels)
}
