//! The review language detector (`gleaner::record::language`, what the
//! record's `language` is when the site gives none) on Debian's package
//! descriptions and their translations by the Debian Description
//! Translation Project: a labelled set in 14 languages that no detector we
//! use was built or tuned on. `scripts/langid/` fetches it from Debian's
//! archive and splits it by original, so a translation of a test paragraph
//! is never in `dev`; only `test.tsv` and `test-short.tsv` are scored here.
//!
//! A sample is right when the detector answers its language's primary tag;
//! no answer counts as wrong. Scores per language, for paragraphs (`full`)
//! and for their first sentence cut to 80 characters (`short`, like a short
//! review), with the macro average over languages.

use std::collections::BTreeMap;

use crate::data::{Data, ThirdParty};
use crate::score;

const DDTP: ThirdParty = ThirdParty {
    dir: "ddtp",
    source: "Debian 12 (bookworm) main package descriptions and their translations by the \
             Debian Description Translation Project, from Debian's archive",
    place: "scripts/langid/fetch-ddtp.sh target/langid/ddtp\n\
            scripts/langid/build-set.py target/langid/ddtp/txt \"$GLEANER_EVAL_DATA/ddtp\"",
};

/// Scores the detector on the test split, full and short.
pub fn run(data: &Data) -> anyhow::Result<()> {
    score::section(
        "Review language (record `language`)",
        "The detector as the server runs it (whatlang; whichlang where whatlang is unsure), \
         on DDTP's held-out paragraphs \
         (`full`) and their first sentences cut to 80 characters (`short`): the share \
         placed in the right language.",
    );
    let Some(dir) = data.third_party(&DDTP) else {
        return Ok(());
    };
    for (set, file) in [("full", "test.tsv"), ("short", "test-short.tsv")] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        // label -> (samples, right)
        let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for line in text.lines() {
            let mut cols = line.splitn(3, '\t');
            let (Some(label), Some(_group), Some(sample)) = (cols.next(), cols.next(), cols.next())
            else {
                anyhow::bail!("{}: a line is not label<TAB>group<TAB>text", path.display());
            };
            let found = gleaner::record::language::detect(sample);
            let entry = tally.entry(label).or_default();
            entry.0 += 1;
            entry.1 += usize::from(found.as_deref() == Some(label));
        }
        let mut macro_sum = 0.0;
        for (label, (n, right)) in &tally {
            score::rate(&format!("{set} {label}"), "accuracy", *right, *n);
            macro_sum += *right as f64 / *n as f64;
        }
        let (n, right) = tally
            .values()
            .fold((0, 0), |(n, r), (n1, r1)| (n + n1, r + r1));
        score::rate(&format!("{set} all"), "accuracy", right, n);
        score::value(
            &format!("{set} all"),
            "macro accuracy",
            tally.len(),
            format!("{:.1}%", macro_sum / tally.len().max(1) as f64 * 100.0),
        );
    }
    Ok(())
}
