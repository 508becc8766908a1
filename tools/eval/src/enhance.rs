//! review-enhancement: GLEU on the JFLEG dev set (four human references per
//! sentence) and the false-edit rate on already-correct review sentences.
//!
//! JFLEG is tokenised (`do n't`, `word .`), while the processor reads and
//! writes ordinary text. Each source sentence is therefore detokenised before
//! it is posted, and the answer, the source and the references are all
//! tokenised by the same [`tokenize`] before scoring, so spacing conventions
//! never count as edits. The "no edits" row scores the detokenised and
//! re-tokenised source itself: the reference point for the processor's row.

use std::collections::HashMap;

use serde_json::json;

use crate::data::{Data, ThirdParty};
use crate::score;
use crate::server::Server;

const ROUTE: &str = "/features/review-enhancement";

const JFLEG: ThirdParty = ThirdParty {
    dir: "jfleg",
    source: "JFLEG (Napoles, Sakaguchi and Tetreault, EACL 2017), https://github.com/keisks/jfleg, \
             the dev/ directory (754 sentences, 4 references each); licence CC BY-NC-SA 4.0, so not committed",
    place: "git clone https://github.com/keisks/jfleg /tmp/jfleg\n\
            mkdir -p \"$GLEANER_EVAL_DATA/jfleg\" && cp /tmp/jfleg/dev/* \"$GLEANER_EVAL_DATA/jfleg/\"",
};

/// Random reference draws averaged by GLEU (as in the JFLEG scorer).
const GLEU_ITERATIONS: usize = 500;

/// Runs the benchmark and records its scores.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "review-enhancement",
        "GLEU (Napoles et al. 2016 definition, corpus level, one of the four references drawn at \
         random per sentence, averaged over 500 draws) on JFLEG dev; false-edit rate on \
         `eval/enhance/correct.txt`, already-correct review sentences (URLs, e-mails, domains, \
         code, hashtags, handles, numbers, names, negations) that must come back unchanged.",
    );
    for set in ["correct.txt", "correct-holdout.txt"] {
        correct_set(server, data, set).await?;
    }
    if let Some(dir) = data.third_party(&JFLEG) {
        jfleg(server, &dir).await?;
    }
    Ok(())
}

/// Posts one text; the enhanced text, or the error as a note and `None`.
async fn enhance(server: &Server, text: &str) -> anyhow::Result<Option<String>> {
    let (status, body) = server.post(ROUTE, &json!({ "review_text": text })).await?;
    match body.get("review_text").and_then(|t| t.as_str()) {
        Some(t) if status == 200 => Ok(Some(t.to_owned())),
        _ => {
            score::note(format!("HTTP {status} for {text:?}: {body}"));
            Ok(None)
        }
    }
}

/// The share of an already-correct set's sentences the processor changes.
async fn correct_set(server: &Server, data: &Data, set: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(data.own(&format!("enhance/{set}")))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut changed = Vec::new();
    for line in &lines {
        let out = enhance(server, line).await?;
        if out.as_deref() != Some(*line) {
            changed.push(format!("{line:?} → {:?}", out.unwrap_or_default()));
        }
    }
    score::rate(
        set,
        "false-edit rate (lower is better)",
        changed.len(),
        lines.len(),
    );
    for c in changed {
        score::note(format!("changed: {c}"));
    }
    Ok(())
}

async fn jfleg(server: &Server, dir: &std::path::Path) -> anyhow::Result<()> {
    let read = |name: &str| -> anyhow::Result<Vec<String>> {
        Ok(std::fs::read_to_string(dir.join(name))?
            .lines()
            .map(str::to_owned)
            .collect())
    };
    let src = read("dev.src")?;
    let refs: Vec<Vec<String>> = (0..4)
        .map(|k| read(&format!("dev.ref{k}")))
        .collect::<anyhow::Result<_>>()?;
    if refs.iter().any(|r| r.len() != src.len()) {
        anyhow::bail!("JFLEG dev: references and source differ in length");
    }
    let mut sentences = Vec::with_capacity(src.len());
    let (mut outputs, mut baseline, mut edited) = (Vec::new(), Vec::new(), 0);
    for (i, s) in src.iter().enumerate() {
        let plain = detokenize(s);
        let out = enhance(server, &plain)
            .await?
            .unwrap_or_else(|| plain.clone());
        if out != plain {
            edited += 1;
        }
        outputs.push(tokenize(&out));
        baseline.push(tokenize(&plain));
        sentences.push(Sentence {
            source: tokenize(&plain),
            refs: refs.iter().map(|r| tokenize(&r[i])).collect(),
        });
    }
    let n = src.len();
    score::value(
        "JFLEG dev",
        "GLEU, no edits (source as output)",
        n,
        format!("{:.2}", 100.0 * gleu(&sentences, &baseline)),
    );
    score::value(
        "JFLEG dev",
        "GLEU, review-enhancement",
        n,
        format!("{:.2}", 100.0 * gleu(&sentences, &outputs)),
    );
    score::rate("JFLEG dev", "sentences edited", edited, n);
    Ok(())
}

/// One scored sentence: its tokenised source and references.
struct Sentence {
    source: Vec<String>,
    refs: Vec<Vec<String>>,
}

/// Undoes JFLEG's tokenisation: no space before closing punctuation or
/// split-off contractions, none after an opening bracket.
fn detokenize(s: &str) -> String {
    let mut out = String::new();
    for tok in s.split_whitespace() {
        let glue = matches!(tok, "." | "," | "!" | "?" | ";" | ":" | ")" | "%")
            || tok == "n't"
            || ["'s", "'m", "'re", "'ve", "'ll", "'d"].contains(&tok);
        if !out.is_empty() && !glue && !out.ends_with('(') {
            out.push(' ');
        }
        out.push_str(tok);
    }
    out
}

/// Splits text into tokens in JFLEG's style: punctuation apart from words,
/// contractions split (`do n't`, `it 's`).
fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in s.split_whitespace() {
        let mut w = word;
        let mut lead = Vec::new();
        while let Some(c) = w.chars().next().filter(|c| "(\"'[".contains(*c)) {
            if w.len() == c.len_utf8() {
                break;
            }
            lead.push(c.to_string());
            w = &w[c.len_utf8()..];
        }
        let mut trail = Vec::new();
        while let Some(c) = w.chars().last().filter(|c| ".,!?;:)\"]".contains(*c)) {
            let stem = &w[..w.len() - c.len_utf8()];
            // A dotted abbreviation (`U.S.`) keeps its final period.
            if stem.is_empty() || (c == '.' && stem.contains('.')) {
                break;
            }
            trail.push(c.to_string());
            w = stem;
        }
        out.extend(lead);
        let lower = w.to_lowercase();
        let suffix = ["n't", "'s", "'m", "'re", "'ve", "'ll", "'d"]
            .into_iter()
            .find(|x| lower.ends_with(x) && lower.len() > x.len());
        match suffix {
            Some(x) => {
                let cut = w.len() - x.len();
                out.push(w[..cut].to_owned());
                out.push(w[cut..].to_owned());
            }
            None => out.push(w.to_owned()),
        }
        out.extend(trail.into_iter().rev());
    }
    out
}

/// The n-grams of `tokens` with their counts.
fn ngrams(tokens: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut m = HashMap::new();
    if n > 0 && tokens.len() >= n {
        for g in tokens.windows(n) {
            *m.entry(g).or_insert(0) += 1;
        }
    }
    m
}

/// The clipped overlap of two n-gram multisets.
fn overlap(a: &HashMap<&[String], usize>, b: &HashMap<&[String], usize>) -> usize {
    a.iter()
        .map(|(g, &c)| c.min(b.get(g).copied().unwrap_or(0)))
        .sum()
}

/// GLEU sufficient statistics of `hyp` against one reference: hypothesis and
/// reference lengths, then for n = 1..4 the n-grams matching the reference
/// minus those matching source n-grams absent from the reference (at least
/// zero), and the number of hypothesis n-grams.
fn stats(hyp: &[String], source: &[String], reference: &[String]) -> [usize; 10] {
    let mut s = [0; 10];
    s[0] = hyp.len();
    s[1] = reference.len();
    for n in 1..=4 {
        let (h, r, src) = (ngrams(hyp, n), ngrams(reference, n), ngrams(source, n));
        let src_not_ref: HashMap<&[String], usize> = src
            .into_iter()
            .filter(|(g, _)| !r.contains_key(g))
            .collect();
        s[2 * n] = overlap(&h, &r).saturating_sub(overlap(&h, &src_not_ref));
        s[2 * n + 1] = (hyp.len() + 1).saturating_sub(n);
    }
    s
}

/// GLEU of summed statistics: brevity penalty times the geometric mean of the
/// four n-gram precisions; 0 when any statistic is 0.
fn gleu_of(s: &[usize; 10]) -> f64 {
    if s.contains(&0) {
        return 0.0;
    }
    let (c, r) = (s[0] as f64, s[1] as f64);
    let log_prec: f64 = (1..=4)
        .map(|n| (s[2 * n] as f64 / s[2 * n + 1] as f64).ln())
        .sum::<f64>()
        / 4.0;
    ((1.0 - r / c).min(0.0) + log_prec).exp()
}

/// Corpus GLEU of `hyps`, averaged over [`GLEU_ITERATIONS`] draws of one
/// reference per sentence (a fixed pseudo-random sequence, so runs repeat).
fn gleu(sentences: &[Sentence], hyps: &[Vec<String>]) -> f64 {
    let per_ref: Vec<Vec<[usize; 10]>> = sentences
        .iter()
        .zip(hyps)
        .map(|(s, h)| s.refs.iter().map(|r| stats(h, &s.source, r)).collect())
        .collect();
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut total = 0.0;
    for _ in 0..GLEU_ITERATIONS {
        let mut sum = [0usize; 10];
        for refs in &per_ref {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let Some(pick) = refs.get((state >> 33) as usize % refs.len().max(1)) else {
                continue;
            };
            for (a, b) in sum.iter_mut().zip(pick) {
                *a += b;
            }
        }
        total += gleu_of(&sum);
    }
    total / GLEU_ITERATIONS as f64
}
