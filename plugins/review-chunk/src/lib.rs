//! review-chunk: splits review text into chunks for a widget, packing whole
//! sentences up to the widget type's maximum length.

use gleaner_text::segment;
use serde_json::json;

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// Widget types and the longest chunk (in characters) each shows.
pub const WIDGETS: &[(&str, usize)] = &[
    ("badge", 90),
    ("ticker", 120),
    ("marquee", 120),
    ("popup", 150),
    ("card", 200),
    ("carousel", 280),
    ("slider", 280),
    ("tweet", 280),
    ("list", 400),
    ("grid", 400),
    ("wall", 500),
];

/// The length used for a missing or unknown widget type.
pub const DEFAULT_MAX: usize = 250;

/// How a widget type chunks its text.
#[derive(Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exactly one sentence per chunk (`sentence`).
    Sentences,
    /// Whole sentences packed up to this many characters.
    Packed(usize),
}

/// The mode for a widget type (case-insensitive; unknown gives [`DEFAULT_MAX`]).
pub fn mode(widget_type: Option<&str>) -> Mode {
    let Some(w) = widget_type.map(|w| w.trim().to_ascii_lowercase()) else {
        return Mode::Packed(DEFAULT_MAX);
    };
    if w == "sentence" || w == "sentences" {
        return Mode::Sentences;
    }
    let max = WIDGETS
        .iter()
        .find(|(name, _)| *name == w)
        .map_or(DEFAULT_MAX, |(_, n)| *n);
    Mode::Packed(max)
}

/// Chunks `text` for a widget type.
pub fn chunks(text: &str, widget_type: Option<&str>) -> Vec<String> {
    match mode(widget_type) {
        Mode::Sentences => segment::sentences(text)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        Mode::Packed(max) => segment::chunk(text, max),
    }
}

/// The fields this processor reads.
#[derive(serde::Deserialize)]
struct Input {
    review_text: String,
    widget_type: Option<String>,
}

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    // The host has checked the fields against the manifest (review_text non-empty).
    let input: Input = gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let result = chunks(&input.review_text, input.widget_type.as_deref());
    Ok(Output {
        body: json!({ "review_chunck": result }).to_string(),
        engine: "rules".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widget_modes() {
        assert_eq!(mode(Some("Carousel")), Mode::Packed(280));
        assert_eq!(mode(Some("unknown-kind")), Mode::Packed(DEFAULT_MAX));
        assert_eq!(mode(None), Mode::Packed(DEFAULT_MAX));
        assert_eq!(mode(Some("sentence")), Mode::Sentences);
    }

    #[test]
    fn chunks_respect_limits_and_sentences() {
        let text = "Dr. Smith fixed my tooth in 2.5 hours. Great service! Would recommend to anyone, e.g. my family.";
        assert_eq!(
            chunks(text, Some("sentence")),
            vec![
                "Dr. Smith fixed my tooth in 2.5 hours.",
                "Great service!",
                "Would recommend to anyone, e.g. my family."
            ]
        );
        for c in chunks(text, Some("badge")) {
            assert!(c.chars().count() <= 90, "{c}");
        }
        assert_eq!(chunks(text, Some("wall")), vec![text]);
    }
}
