//! Whether a review's text contradicts its stars (`rating_mismatch`).
//!
//! Real mismatches are rare: about one review in 200 on MARC's test split,
//! read by hand. Every false flag a scorer's error raises counts against that
//! handful, so the rule asks for more than a score past a threshold:
//!
//! - **the language** has two scorers, a trained model and a rule set, that
//!   can agree (English, Spanish, Chinese). Elsewhere a single scorer's
//!   errors were most of the flags (German, French and Japanese, 1 to 4% of
//!   flags right), and the answer is null with a notice;
//! - **the stars** are at most 2 or at least 4 of 5, and the whole text's
//!   score is at least [`CLEAR_SCORE`] the other way;
//! - **both scorers** lean the other way by at least [`AGREEING_SCORE`]
//!   where both read the text;
//! - **no contrast word** ("but", "pero", "但是" ...): praise followed by
//!   the defect that cost the stars is a mixed review, not a contradiction.
//!
//! The rule was chosen on reviews outside the held-out sets, and measured
//! once on 7,200 held-out reviews read beforehand (docs/quality.md).

use crate::sentiment::Scores;

/// The languages `rating_mismatch` is decided in, as BCP 47 primary tags.
pub const LANGUAGES: [&str; 3] = ["en", "es", "zh"];

/// The whole text's score beyond which it clearly contradicts the stars.
pub const CLEAR_SCORE: f64 = 0.7;

/// The score each of the two scorers must reach the same way.
pub const AGREEING_SCORE: f64 = 0.4;

/// English words that turn a review from one verdict to another.
const ENGLISH: [&str; 7] = [
    "but",
    "however",
    "though",
    "although",
    "except",
    "unfortunately",
    "otherwise",
];

/// Spanish words that do the same.
const SPANISH: [&str; 6] = ["pero", "aunque", "lástima", "lastima", "excepto", "salvo"];

/// Spanish pairs of words that do the same.
const SPANISH_PAIRS: [(&str, &str); 4] = [
    ("sin", "embargo"),
    ("lo", "único"),
    ("lo", "unico"),
    ("no", "obstante"),
];

/// Chinese words that do the same.
const CHINESE: [&str; 7] = ["但", "可是", "不过", "就是", "可惜", "只是", "除了"];

/// Whether `rating` of `scale` is contradicted by the text's `scores` in
/// the language `tag`, or none where the language is not decided here.
pub fn contradicts(
    tag: &str,
    rating: f64,
    scale: f64,
    scores: &Scores,
    text: &str,
) -> Option<bool> {
    if !LANGUAGES.contains(&tag) {
        return None;
    }
    Some(against(rating, scale, scores) && !contrast(tag, text))
}

/// Whether the scores lean clearly against the stars: 1 for a low rating
/// with a positive text, -1 for a high one with a negative text.
fn against(rating: f64, scale: f64, scores: &Scores) -> bool {
    let stars = rating / scale * 5.0;
    let way = if stars <= 2.0 {
        1.0
    } else if stars >= 4.0 {
        -1.0
    } else {
        return false;
    };
    let agree = match (scores.model, scores.rules) {
        (Some(model), Some(rules)) => (way * model).min(way * rules) >= AGREEING_SCORE,
        _ => true,
    };
    way * scores.sentiment.score >= CLEAR_SCORE && agree
}

/// Whether `text` holds a word of `tag`'s contrast list.
fn contrast(tag: &str, text: &str) -> bool {
    if tag == "zh" {
        return CHINESE.iter().any(|word| text.contains(word));
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    match tag {
        "en" => words.iter().any(|w| ENGLISH.contains(w)),
        "es" => {
            words.iter().any(|w| SPANISH.contains(w))
                || words
                    .windows(2)
                    .any(|pair| SPANISH_PAIRS.contains(&(pair[0], pair[1])))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sentiment::Sentiment;

    fn scores(score: f64, model: Option<f64>, rules: Option<f64>) -> Scores {
        Scores {
            sentiment: Sentiment::of(score),
            model,
            rules,
        }
    }

    #[test]
    fn a_rating_is_read_on_its_scale() {
        let praise = scores(0.9, Some(0.9), Some(0.9));
        let blame = scores(-0.8, Some(-0.8), Some(-0.8));
        assert_eq!(contradicts("en", 2.0, 10.0, &praise, "Lovely."), Some(true)); // 1 of 5
        assert_eq!(
            contradicts("en", 8.0, 10.0, &praise, "Lovely."),
            Some(false)
        ); // 4 of 5
        assert_eq!(contradicts("en", 9.0, 10.0, &blame, "Awful."), Some(true));
        // 3 stars contradict nothing.
        assert_eq!(contradicts("en", 3.0, 5.0, &blame, "Awful."), Some(false));
    }

    #[test]
    fn both_scorers_must_lean_the_other_way() {
        let one = scores(0.75, Some(0.95), Some(0.3));
        assert_eq!(contradicts("en", 1.0, 5.0, &one, "Lovely."), Some(false));
        let both = scores(0.75, Some(0.95), Some(0.45));
        assert_eq!(contradicts("en", 1.0, 5.0, &both, "Lovely."), Some(true));
        // A text only one of them reads is judged on the answer's score.
        let alone = scores(0.75, None, Some(0.75));
        assert_eq!(contradicts("en", 1.0, 5.0, &alone, "Lovely."), Some(true));
        let mild = scores(0.6, Some(0.6), Some(0.6));
        assert_eq!(contradicts("en", 1.0, 5.0, &mild, "Lovely."), Some(false));
    }

    #[test]
    fn a_contrast_word_makes_a_mixed_review() {
        let praise = scores(0.9, Some(0.9), Some(0.9));
        for (tag, text) in [
            ("en", "Looks great, BUT the strap fell apart."),
            ("en", "Great colour; however: small."),
            ("es", "Muy bonito, sin embargo se rompió."),
            ("es", "Lo único, el precio."),
            ("es", "Bonito, pero caro."),
            ("zh", "很漂亮，但是质量一般。"),
            ("zh", "很好，就是有点贵。"),
        ] {
            assert_eq!(
                contradicts(tag, 1.0, 5.0, &praise, text),
                Some(false),
                "{text}"
            );
        }
        for (tag, text) in [
            ("en", "Buttery soft and a perfect fit."),
            ("es", "Lo compraría otra vez."),
            ("zh", "很漂亮，质量很好。"),
        ] {
            assert_eq!(
                contradicts(tag, 1.0, 5.0, &praise, text),
                Some(true),
                "{text}"
            );
        }
    }

    #[test]
    fn other_languages_are_not_decided() {
        let praise = scores(0.9, None, Some(0.9));
        for tag in ["de", "fr", "it", "pt", "nl", "ja"] {
            assert_eq!(contradicts(tag, 1.0, 5.0, &praise, "Toll."), None, "{tag}");
        }
    }
}
