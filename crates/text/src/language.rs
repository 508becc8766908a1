//! The language of a text: one detector for the review record (`language`
//! when the site gives none) and for the review-insights processor, so both
//! answer alike. whatlang's trigram detector, its ISO 639-3 answer given as
//! the ISO 639-1 code BCP 47 uses where the language has one (isolang's
//! table); a text mostly in Han, kana or Hangul is placed by its script
//! first, so Latin names inside it do not decide. A text shorter than
//! [`MIN_CHARS`] characters gets no answer rather than a guess; a Han, kana
//! or Hangul character counts as two, as it carries about what two letters
//! of an alphabet do ("很好，物流很快，推荐购买。" is long enough).
//!
//! When whatlang says its answer is not reliable (a confidence of 0.9 or
//! less: a short text, or one in a language close to another), the text is
//! placed again among [`COMMON`], the languages most web content is written
//! in: weak evidence for a rarely written language gives way to a commoner
//! one (an English sentence of five words, read as Estonian or Afrikaans by
//! the trigrams alone, often comes back as English; not always). An unsure
//! text in a language outside that list is then placed in one of it; a site
//! that labels its reviews' language avoids this.
//!
//! Where that unsure answer is one of the sixteen languages whichlang knows,
//! whichlang (a linear model over hashed character n-grams) chooses among
//! those sixteen instead: it tells close languages apart better than
//! trigrams on short texts. An answer outside its sixteen (Polish, Danish)
//! stays whatlang's, as does every answer whatlang is sure of.

use whatlang::Lang;

/// The shortest text whose language is detected, in characters (a Han, kana
/// or Hangul character counts as two).
pub const MIN_CHARS: usize = 20;

/// A detected language: its BCP 47 primary tag and how sure the detector is.
#[derive(Debug, Clone, PartialEq)]
pub struct Detected {
    /// The BCP 47 primary language tag: `en`, `de`, `zh`.
    pub tag: String,
    /// From 0 to 1: whatlang's confidence, or for a text placed by its script
    /// the share of its letters written in that script.
    pub confidence: f64,
}

/// The BCP 47 primary tag of `text`'s language, or none for a text shorter
/// than [`MIN_CHARS`] characters or one the detector places in no language.
pub fn detect(text: &str) -> Option<String> {
    detect_with_confidence(text).map(|found| found.tag)
}

/// [`detect`] with the detector's confidence.
pub fn detect_with_confidence(text: &str) -> Option<Detected> {
    let text = text.trim();
    if length(text) < MIN_CHARS {
        return None;
    }
    if let Some((tag, share)) = east_asian(text) {
        return Some(Detected {
            tag: tag.into(),
            confidence: share,
        });
    }
    let info = whatlang::detect(text)?;
    if info.is_reliable() {
        return Some(Detected {
            tag: tag_of(info.lang().code()).to_owned(),
            confidence: info.confidence(),
        });
    }
    let again = common().detect(text).unwrap_or(info);
    // Both name languages by their ISO 639-3 codes.
    let code = again.lang().code();
    let code = match whichlang::LANGUAGES
        .iter()
        .any(|l| l.three_letter_code() == code)
    {
        true => whichlang::detect_language(text).three_letter_code(),
        false => code,
    };
    let tag = tag_of(code);
    Some(Detected {
        tag: tag.to_owned(),
        confidence: again.confidence(),
    })
}

/// The BCP 47 primary tag of an ISO 639-3 code: its ISO 639-1 code where it
/// has one.
fn tag_of(code: &str) -> &str {
    match code {
        // Individual languages whose macrolanguage has the ISO 639-1 code.
        "cmn" => "zh",
        "pes" => "fa",
        other => isolang::Language::from_639_3(other)
            .and_then(|l| l.to_639_1())
            .unwrap_or(other),
    }
}

/// The languages most web content is written in (W3Techs' survey of
/// content languages, its first twenty, Swedish among them), and the other
/// Nordic languages, whose review sites are among the largest: where an
/// unreliable answer is placed again. Close languages (Danish and Norwegian)
/// leave whatlang unsure even on long texts, so both must be here for
/// their texts to keep their answer.
pub const COMMON: [Lang; 23] = [
    Lang::Eng,
    Lang::Spa,
    Lang::Deu,
    Lang::Jpn,
    Lang::Fra,
    Lang::Rus,
    Lang::Por,
    Lang::Ita,
    Lang::Nld,
    Lang::Pol,
    Lang::Tur,
    Lang::Pes,
    Lang::Cmn,
    Lang::Vie,
    Lang::Ind,
    Lang::Ces,
    Lang::Kor,
    Lang::Ukr,
    Lang::Ara,
    Lang::Swe,
    Lang::Dan,
    Lang::Nob,
    Lang::Fin,
];

fn common() -> &'static whatlang::Detector {
    static COMMON_DETECTOR: std::sync::OnceLock<whatlang::Detector> = std::sync::OnceLock::new();
    COMMON_DETECTOR.get_or_init(|| whatlang::Detector::with_allowlist(COMMON.to_vec()))
}

/// `text`'s length as [`MIN_CHARS`] counts it: characters, a Han, kana or
/// Hangul character as two.
fn length(text: &str) -> usize {
    text.chars()
        .map(|c| if is_east_asian(c) { 2 } else { 1 })
        .sum()
}

fn is_east_asian(c: char) -> bool {
    is_kana(c) || is_hangul(c) || is_han(c)
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9D}')
}

fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}')
}

fn is_han(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
}

/// Japanese, Korean or Chinese, by script, for a text written mostly in
/// them, with the share of its letters in East Asian scripts: one such
/// character carries about what two letters of an alphabet do, so Latin
/// names inside the text (products, brands) do not outweigh it. Kana are
/// written in Japanese only, Hangul in Korean; Han alone is Chinese.
fn east_asian(text: &str) -> Option<(&'static str, f64)> {
    let (mut letters, mut han, mut kana, mut hangul) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars() {
        if is_kana(c) {
            kana += 1;
        } else if is_hangul(c) {
            hangul += 1;
        } else if is_han(c) {
            han += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    let east = han + kana + hangul;
    if east == 0 || east * 2 < letters {
        return None;
    }
    let tag = if kana > 0 {
        "ja"
    } else if hangul >= han {
        "ko"
    } else {
        "zh"
    };
    Some((tag, east as f64 / (east + letters) as f64))
}

/// `tag` in BCP 47's canonical case: `pt-BR`, `zh-Hant`, `en`.
pub fn canonical(tag: &str) -> String {
    tag.split('-')
        .enumerate()
        .map(|(i, part)| match (i, part.len()) {
            (0, _) => part.to_ascii_lowercase(),
            (_, 2) => part.to_ascii_uppercase(),
            (_, 4) => {
                let mut s = part.to_ascii_lowercase();
                s[..1].make_ascii_uppercase();
                s
            }
            _ => part.to_ascii_lowercase(),
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsure_answer_is_placed_again_then_whichlang_chooses_among_its_languages() {
        // whatlang alone: Estonian, unsure; among the common languages: Dutch.
        let text = "My headset works just fine.";
        let alone = whatlang::detect(text).unwrap();
        assert!(!alone.is_reliable());
        assert!(!COMMON.contains(&alone.lang()), "{:?}", alone.lang());
        assert_eq!(common().detect(text).unwrap().lang(), Lang::Nld);
        assert_eq!(detect(text).as_deref(), Some("en"));
        // Swedish among the common languages; whichlang reads German.
        let text = "Das Hotel war sauber und ruhig.";
        assert_eq!(common().detect(text).unwrap().lang(), Lang::Swe);
        assert_eq!(detect(text).as_deref(), Some("de"));
    }

    #[test]
    fn a_han_kana_or_hangul_character_counts_as_two() {
        assert_eq!(length("很好，物流很快，推荐购买。"), 23);
        assert_eq!(detect("很好，物流很快，推荐购买。").as_deref(), Some("zh"));
        assert_eq!(detect("とても良いホテルでした"), Some("ja".into()));
        assert_eq!(detect("很好"), None);
        assert_eq!(detect("Great stay!"), None);
    }

    #[test]
    fn a_reliable_answer_stands_and_nordic_texts_keep_theirs() {
        let text = "Værelset var rent, personalet var meget venligt, og morgenmaden var god.";
        assert_eq!(detect(text).as_deref(), Some("da"));
        let text =
            "Camera a fost curată, iar personalul a fost foarte amabil cu noi toată săptămâna.";
        assert!(!COMMON.contains(&Lang::Ron));
        assert!(whatlang::detect(text).unwrap().is_reliable());
        assert_eq!(detect(text).as_deref(), Some("ro"));
    }
}
