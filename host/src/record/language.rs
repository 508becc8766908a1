//! The language of a review: the site's own label (`language_source: site`),
//! else, for a text of at least [`MIN_CHARS`] characters, what the shared
//! detector finds (`detected`, [`gleaner_text::language`]: whatlang's
//! trigram detector, placed by script first for Han, kana and Hangul, an
//! answer it is unsure of placed again among the most used languages). The
//! review-insights processor uses the same detector.
//! docs/quality.md gives its measured accuracy.

use super::Review;

pub use gleaner_text::language::{canonical, detect, MIN_CHARS};

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
