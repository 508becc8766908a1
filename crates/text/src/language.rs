//! The language of a text: one detector for the review record (`language`
//! when the site gives none) and for the review-insights processor, so both
//! answer alike. whatlang's trigram detector, its ISO 639-3 answer given as
//! the ISO 639-1 code BCP 47 uses where the language has one (isolang's
//! table); a text mostly in Han, kana or Hangul is placed by its script
//! first, so Latin names inside it do not decide. A text shorter than
//! [`MIN_CHARS`] characters gets no answer rather than a guess.

/// The shortest text whose language is detected, in characters.
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
    if text.chars().count() < MIN_CHARS {
        return None;
    }
    if let Some((tag, share)) = east_asian(text) {
        return Some(Detected {
            tag: tag.into(),
            confidence: share,
        });
    }
    let info = whatlang::detect(text)?;
    let tag = match info.lang().code() {
        // Individual languages whose macrolanguage has the ISO 639-1 code.
        "cmn" => "zh",
        "pes" => "fa",
        other => isolang::Language::from_639_3(other)
            .and_then(|l| l.to_639_1())
            .unwrap_or(other),
    };
    Some(Detected {
        tag: tag.to_owned(),
        confidence: info.confidence(),
    })
}

/// Japanese, Korean or Chinese, by script, for a text written mostly in
/// them, with the share of its letters in East Asian scripts: one such
/// character carries about what two letters of an alphabet do, so Latin
/// names inside the text (products, brands) do not outweigh it. Kana are
/// written in Japanese only, Hangul in Korean; Han alone is Chinese.
fn east_asian(text: &str) -> Option<(&'static str, f64)> {
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
