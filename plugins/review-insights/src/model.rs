//! English sentiment from a trained linear model: logistic regression over
//! the presence of word unigrams and bigrams, trained on public review and
//! sentence corpora by `scripts/insights/train-sentiment.py`, which says
//! what it was trained on and what was held out. The weights are
//! `models/en.tsv`: the bias on a `#bias` line, then one feature and its
//! weight per line.
//!
//! [`tokens`] repeats the training script's tokenizer, so a text has the
//! same features here as in training: lowercased ASCII words, `n't` split
//! off its verb, and the words after a negation, up to the next
//! punctuation, marked `NOT_`.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::lexicon::{rows, Fixed};

const TABLE: &str = include_str!("../models/en.tsv");

/// Words that open a negation's reach (besides any word ending in `n't`).
const NEGATIONS: [&str; 12] = [
    "not", "no", "never", "cannot", "nothing", "nobody", "none", "nor", "neither", "without",
    "hardly", "barely",
];

/// The model: the bias and each feature's weight.
pub struct Model {
    bias: f64,
    weights: HashMap<&'static str, f64, Fixed>,
}

static MODEL: OnceLock<Model> = OnceLock::new();

fn model() -> &'static Model {
    MODEL.get_or_init(|| {
        let mut weights: HashMap<_, _, Fixed> = rows(TABLE).collect();
        let bias = weights.remove("#bias").unwrap_or(0.0);
        Model { bias, weights }
    })
}

/// Parses the weights ahead of every call.
pub fn prepare() {
    model();
}

/// The number of features the model knows.
pub fn features() -> usize {
    model().weights.len()
}

/// The model's score of `text` from -1 to 1 (twice the probability of
/// positive, less one), or none when no feature of the text is known.
pub fn score(text: &str) -> Option<f64> {
    let model = model();
    let words = tokens(text);
    // Each known feature counts once (the model reads presence), keyed by
    // the table's own string.
    let mut seen: HashSet<&'static str, Fixed> = HashSet::default();
    let mut sum = 0.0;
    let mut bigram = String::new();
    let bigrams = words.windows(2).map(|pair| {
        bigram.clear();
        bigram.push_str(&pair[0]);
        bigram.push(' ');
        bigram.push_str(&pair[1]);
        model.weights.get_key_value(bigram.as_str())
    });
    let unigrams = words
        .iter()
        .map(|w| model.weights.get_key_value(w.as_str()));
    for (&feature, weight) in unigrams.chain(bigrams).flatten() {
        if seen.insert(feature) {
            sum += weight;
        }
    }
    if seen.is_empty() {
        return None;
    }
    let logit = sum / (seen.len() as f64).sqrt() + model.bias;
    let positive = 1.0 / (1.0 + (-logit).exp());
    Some(2.0 * positive - 1.0)
}

/// The training script's tokens of `text`.
pub fn tokens(text: &str) -> Vec<String> {
    let text = split_nt(&text.to_lowercase().replace('\u{2019}', "'"));
    let mut out = Vec::new();
    let mut negated = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>, negated: &mut bool| {
        let trimmed = word.trim_matches('\'');
        if !trimmed.is_empty() {
            if NEGATIONS.contains(&trimmed) || trimmed.ends_with("n't") {
                *negated = true;
                out.push(trimmed.to_owned());
            } else if *negated {
                out.push(format!("NOT_{trimmed}"));
            } else {
                out.push(trimmed.to_owned());
            }
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '\'' {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out, &mut negated);
        if ".,;:!?".contains(c) {
            negated = false;
            if c == '!' || c == '?' {
                out.push(c.to_string());
            }
        }
    }
    flush(&mut word, &mut out, &mut negated);
    out
}

/// `n't` set apart from the letter or digit before it, where a word ends
/// after it: "don't" becomes "do n't".
fn split_nt(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let opens = c == 'n'
            && i > 0
            && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit())
            && chars.get(i + 1) == Some(&'\'')
            && chars.get(i + 2) == Some(&'t')
            && !chars
                .get(i + 3)
                .is_some_and(|&next| next.is_alphanumeric() || next == '_');
        if opens {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_the_training_script() {
        assert_eq!(
            tokens("I don't like it, but the screen is GREAT!"),
            ["i", "do", "n't", "NOT_like", "NOT_it", "but", "the", "screen", "is", "great", "!"]
        );
        assert_eq!(
            tokens("Won’t buy again."),
            ["wo", "n't", "NOT_buy", "NOT_again"]
        );
        assert_eq!(tokens("'quoted' café"), ["quoted", "caf"]);
        assert_eq!(tokens("no. good"), ["no", "good"]);
    }

    #[test]
    fn the_table_is_read_whole() {
        assert_eq!(features(), 30_000);
        assert!(model().bias != 0.0);
    }

    #[test]
    fn clear_texts_score_their_way() {
        assert!(score("Great phone, works perfectly. Highly recommend it.").unwrap() > 0.5);
        assert!(score("Broke after two days. Waste of money, do not buy.").unwrap() < -0.5);
        assert!(score("not good").unwrap() < 0.0);
        assert_eq!(score("zzzz qqqq"), None);
    }
}
