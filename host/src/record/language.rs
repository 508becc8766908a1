//! The language of a review: the site's own label (`language_source: site`),
//! else, for a text of at least [`MIN_CHARS`] characters, what one shared
//! detector finds (`detected`): whatlang's trigram detector, its ISO 639-3
//! answer given as the ISO 639-1 code BCP 47 uses where the language has
//! one (isolang's table); a text mostly in Han, kana or Hangul is placed by
//! its script first, so Latin names inside it do not decide.
//! docs/quality.md gives its measured accuracy.

use super::Review;

/// The shortest text whose language is detected, in characters.
pub const MIN_CHARS: usize = 20;

/// Sets the record's `language` and `language_source`: the site's label,
/// in canonical case, or the detected language of its text.
pub fn settle(record: &mut Review) {
    if let Some(tag) = record.language.take() {
        record.language = Some(canonical(&tag));
        record.language_source = Some("site");
        return;
    }
    if let Some(tag) = record.review_text.as_deref().and_then(detect) {
        record.language = Some(tag);
        record.language_source = Some("detected");
    }
}

/// The BCP 47 primary tag of `text`'s language, or none for a text shorter
/// than [`MIN_CHARS`] characters or one the detector places in no language.
pub fn detect(text: &str) -> Option<String> {
    let text = text.trim();
    if text.chars().count() < MIN_CHARS {
        return None;
    }
    if let Some(tag) = east_asian(text) {
        return Some(tag.into());
    }
    let code = whatlang::detect(text)?.lang().code();
    let tag = match code {
        // Individual languages whose macrolanguage has the ISO 639-1 code.
        "cmn" => "zh",
        "pes" => "fa",
        other => isolang::Language::from_639_3(other)
            .and_then(|l| l.to_639_1())
            .unwrap_or(other),
    };
    Some(tag.to_owned())
}

/// Japanese, Korean or Chinese, by script, for a text written mostly in
/// them: one such character carries about what two letters of an alphabet
/// do, so
/// Latin names inside the text (products, brands) do not outweigh it. Kana
/// are written in Japanese only, Hangul in Korean; Han alone is Chinese.
fn east_asian(text: &str) -> Option<&'static str> {
    let (mut letters, mut han, mut kana, mut hangul) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars() {
        match c {
            '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9D}' => {
                kana += 1
            }
            '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' => {
                hangul += 1
            }
            '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' => han += 1,
            c if c.is_alphabetic() => letters += 1,
            _ => {}
        }
    }
    let east = han + kana + hangul;
    if east == 0 || east * 2 < letters {
        return None;
    }
    Some(if kana > 0 {
        "ja"
    } else if hangul >= han {
        "ko"
    } else {
        "zh"
    })
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
    fn texts_long_enough_are_placed_in_their_language() {
        for (text, tag) in [
            ("The room was clean and the staff were very helpful.", "en"),
            (
                "Das Zimmer war sauber, das Frühstück gut und das Personal immer freundlich.",
                "de",
            ),
            ("房间很干净，工作人员也非常友好，早餐很丰富。", "zh"),
            (
                "La chambre était propre et le personnel très serviable.",
                "fr",
            ),
            (
                "La habitación estaba limpia y el personal fue muy amable.",
                "es",
            ),
            (
                "部屋はとても清潔で、スタッフの対応も素晴らしかったです。",
                "ja",
            ),
        ] {
            assert_eq!(detect(text).as_deref(), Some(tag), "{text}");
        }
    }

    #[test]
    fn short_texts_get_no_guess() {
        assert_eq!(detect("Great stay!"), None);
        assert_eq!(detect("   "), None);
    }

    #[test]
    fn site_labels_keep_their_meaning_in_canonical_case() {
        assert_eq!(canonical("PT-br"), "pt-BR");
        assert_eq!(canonical("zh-hant"), "zh-Hant");
        assert_eq!(canonical("EN"), "en");
    }
}
