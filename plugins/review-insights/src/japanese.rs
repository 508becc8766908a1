//! The Japanese sentiment model: the classifier PyPI's `asari` 0.2.0 ships
//! (MIT, `models/LICENSE-ja.txt`), written to `models/ja.tsv` by
//! `scripts/insights/japanese-model.py`. It weighs TF-IDF features, word
//! unigrams and bigrams, L2-normalised, by a linear SVM whose decision value
//! a sigmoid turns into the probability of positive.
//!
//! asari splits words with a morphological analyser whose dictionary is
//! several MB. Here, at each character, the longest word of the model's own
//! vocabulary that starts there is taken (2 to [`LONGEST`] characters, as
//! its words are), and a character that starts none is passed over, as the
//! one-character words asari's vectorizer drops. On 2,400 MARC Japanese
//! reviews the evaluation does not score, asari itself (the analyser's
//! words, every pair, five SVMs) placed 75.0% right; this model (these
//! words, the 20,000 pairs kept, the SVMs folded into one) 74.3%.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::lexicon::Fixed;

/// The longest word looked for, in characters (a few dozen of the model's
/// 28,792 words are longer: product names, runs of letters).
pub const LONGEST: usize = 12;

/// The model: its words, its word pairs, and the decision's constants.
pub struct Japanese {
    /// Each word's weight and IDF.
    words: HashMap<&'static str, (f64, f64), Fixed>,
    /// Each kept pair's weight and IDF, keyed by its two words joined by a space.
    pairs: HashMap<&'static str, (f64, f64), Fixed>,
    /// Per first character, the length of the longest word it starts (at
    /// most [`LONGEST`]), so a text is searched only for lengths that exist.
    longest: HashMap<char, usize, Fixed>,
    intercept: f64,
    /// The calibration: the probability of positive is 1 / (1 + exp(a·f + b)).
    a: f64,
    b: f64,
}

impl Japanese {
    fn parse(table: &'static str) -> Japanese {
        let mut model = Japanese {
            words: HashMap::default(),
            pairs: HashMap::default(),
            longest: HashMap::default(),
            intercept: 0.0,
            a: 0.0,
            b: 0.0,
        };
        for line in table.lines() {
            let mut columns = line.split('\t');
            let (Some(feature), Some(Ok(weight))) =
                (columns.next(), columns.next().map(str::parse::<f64>))
            else {
                continue;
            };
            match feature {
                "#intercept" => model.intercept = weight,
                "#a" => model.a = weight,
                "#b" => model.b = weight,
                _ => {
                    let Some(Ok(idf)) = columns.next().map(str::parse::<f64>) else {
                        continue;
                    };
                    if feature.contains(' ') {
                        model.pairs.insert(feature, (weight, idf));
                        continue;
                    }
                    model.words.insert(feature, (weight, idf));
                    if let Some(first) = feature.chars().next() {
                        let length = feature.chars().count().min(LONGEST);
                        let longest = model.longest.entry(first).or_insert(0);
                        *longest = (*longest).max(length);
                    }
                }
            }
        }
        model
    }

    /// The number of words and of word pairs the model knows.
    pub fn features(&self) -> (usize, usize) {
        (self.words.len(), self.pairs.len())
    }

    /// The words of `text` as the model reads them: lowercased, at each
    /// character the longest known word starting there.
    pub fn words(&self, text: &str) -> Vec<&'static str> {
        let lower = text.to_lowercase();
        let (bounds, firsts): (Vec<usize>, Vec<char>) = lower.char_indices().unzip();
        let bounds: Vec<usize> = bounds
            .into_iter()
            .chain(std::iter::once(lower.len()))
            .collect();
        let chars = firsts.len();
        let mut out = Vec::new();
        let mut at = 0;
        while at < chars {
            let known = self.longest.get(&firsts[at]).copied().unwrap_or(0);
            let longest = known.min(chars - at);
            let found = (2..=longest).rev().find_map(|n| {
                let (&word, _) = self
                    .words
                    .get_key_value(&lower[bounds[at]..bounds[at + n]])?;
                Some((word, n))
            });
            match found {
                Some((word, n)) => {
                    out.push(word);
                    at += n;
                }
                None => at += 1,
            }
        }
        out
    }

    /// The score of `text` from -1 to 1 (twice the probability of positive,
    /// less one), or none when it holds no known word.
    pub fn score(&self, text: &str) -> Option<f64> {
        let words = self.words(text);
        // Each feature's weight and IDF, and how often it occurs.
        let mut counts: HashMap<&'static str, (f64, f64, f64), Fixed> = HashMap::default();
        let mut count = |feature: &'static str, (weight, idf): (f64, f64)| {
            counts.entry(feature).or_insert((weight, idf, 0.0)).2 += 1.0;
        };
        for word in &words {
            count(word, self.words[word]);
        }
        let mut pair = String::new();
        for two in words.windows(2) {
            pair.clear();
            pair.push_str(two[0]);
            pair.push(' ');
            pair.push_str(two[1]);
            if let Some((&key, &known)) = self.pairs.get_key_value(pair.as_str()) {
                count(key, known);
            }
        }
        if counts.is_empty() {
            return None;
        }
        let norm = counts
            .values()
            .map(|(_, idf, n)| (n * idf).powi(2))
            .sum::<f64>()
            .sqrt();
        let decision = counts
            .values()
            .map(|(weight, idf, n)| weight * n * idf / norm)
            .sum::<f64>()
            + self.intercept;
        let positive = 1.0 / (1.0 + (self.a * decision + self.b).exp());
        Some(2.0 * positive - 1.0)
    }
}

static JAPANESE: OnceLock<Japanese> = OnceLock::new();

/// The Japanese model.
pub fn japanese() -> &'static Japanese {
    JAPANESE.get_or_init(|| Japanese::parse(include_str!("../models/ja.tsv")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_read_whole() {
        assert_eq!(japanese().features(), (28_792, 20_000));
        assert!(japanese().intercept != 0.0 && japanese().a < 0.0);
    }

    #[test]
    fn words_are_the_longest_known_at_each_character() {
        // 商品 and 良い are words of the vocabulary; を is not (no word of
        // one character is), so it is passed over.
        assert_eq!(japanese().words("商品を良い"), ["商品", "良い"]);
        assert_eq!(japanese().words("Sonyの製品"), ["sony", "製品"]);
        assert!(japanese().words("。、！").is_empty());
    }

    #[test]
    fn the_score_follows_the_model() {
        // The same rule in Python over asari's own weights (before they were
        // rounded to four digits) gives these scores.
        for (text, expected) in [
            ("値段の割には悪くないが、少し重い。", 0.1904),
            ("デザインは好きですが、電池の持ちが悪いです。", -0.10865),
            ("すぐに壊れました。最悪です。二度と買いません。", -0.99850),
        ] {
            let found = japanese().score(text).unwrap();
            assert!((found - expected).abs() < 2e-3, "{text}: {found}");
        }
        assert_eq!(japanese().score("。"), None);
    }
}
