//! A review's key phrases: YAKE (`yake-rust`), an unsupervised extractor
//! that scores one- to three-word phrases by where and how their words occur,
//! with the stop words of the review's language.

use std::collections::HashMap;
use std::sync::OnceLock;

use yake_rust::{Config, StopWords};

/// The languages with stop words here, as BCP 47 primary tags.
pub const LANGUAGES: [&str; 7] = ["en", "de", "fr", "es", "it", "pt", "nl"];

/// The most key phrases an answer carries.
pub const MOST: usize = 5;

static STOP_WORDS: OnceLock<HashMap<&'static str, StopWords>> = OnceLock::new();

/// The stop words of every language in [`LANGUAGES`], read once.
fn stop_words() -> &'static HashMap<&'static str, StopWords> {
    STOP_WORDS.get_or_init(|| {
        LANGUAGES
            .iter()
            .filter_map(|&tag| Some((tag, StopWords::predefined(tag)?)))
            .collect()
    })
}

/// A text read once before any call (see [`prepare`]): sentences, words,
/// numbers, a URL, an e-mail address, quotes and brackets.
const WARM_UP: &str = "The first order arrived on 3 May (two days late). \
    It costs $1,200, or 20% less than at https://example.com/shop! \
    Ask \"support\" at help@example.com: they answered in 5 minutes. \
    Great value... would buy again?";

/// Reads every language's stop words, and extracts the key phrases of one
/// text, so that a call starts with them and with what yake-rust's sentence
/// splitter builds on first use: it compiles its patterns lazily, and in a
/// fresh instance per call that compilation took more than half of every
/// call's time.
pub fn prepare() {
    stop_words();
    extract("en", WARM_UP);
}

/// Up to [`MOST`] key phrases of `text`, best first, as they are written in
/// it; none for a language without stop words here.
pub fn extract(tag: &str, text: &str) -> Option<Vec<String>> {
    let stop_words = stop_words().get(tag)?;
    let config = Config {
        ngrams: 3,
        ..Config::default()
    };
    let mut phrases: Vec<String> = Vec::new();
    for item in yake_rust::get_n_best(MOST, text, stop_words, &config) {
        let phrase = item.raw.trim().to_owned();
        let duplicate = phrases
            .iter()
            .any(|p| p.to_lowercase() == phrase.to_lowercase());
        if !phrase.is_empty() && !duplicate {
            phrases.push(phrase);
        }
    }
    Some(phrases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_phrases_come_from_the_text() {
        let text = "The battery lasts two full days and the screen is gorgeous. \
                    The battery is the best I have had in a phone.";
        let found = extract("en", text).unwrap();
        assert!(!found.is_empty() && found.len() <= MOST, "{found:?}");
        assert!(found.iter().all(|p| text.contains(p.as_str())), "{found:?}");
        assert!(
            found.iter().any(|p| p.to_lowercase().contains("battery")),
            "{found:?}"
        );
    }

    #[test]
    fn a_language_without_stop_words_has_none() {
        assert_eq!(extract("ja", "とても良いホテルでした"), None);
    }
}
