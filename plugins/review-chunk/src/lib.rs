//! review-chunk: splits review text into chunks for a widget, packing whole
//! sentences up to the widget type's maximum length.

use gleaner_sdk::segment;
use gleaner_sdk::PluginInfo;
use serde_json::{json, Value};

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

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

struct ReviewChunk;

impl Guest for ReviewChunk {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!("review-chunk")
    }

    fn process(input: String) -> Result<Output, ProcessError> {
        let input: Value = serde_json::from_str(&input).map_err(|e| {
            ProcessError::InvalidInput(format!("the body is not a JSON object: {e}"))
        })?;
        let text = input["review_text"].as_str().unwrap_or_default();
        if text.trim().is_empty() {
            return Err(ProcessError::InvalidInput(
                "`review_text` is empty; give the review text to chunk".into(),
            ));
        }
        let result = chunks(text, input["widget_type"].as_str());
        Ok(Output {
            body: json!({ "review_chunck": result }).to_string(),
            engine: "rules".into(),
        })
    }
}

export!(ReviewChunk);

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
