//! highlight-review-text: wraps the most quotable short span of a review in
//! `<mark>`…`</mark>`, leaving every other byte unchanged. Deterministic rules by
//! default; with the optional LLM, its span is used only if it passes the same checks.

pub mod highlight;
pub mod lexicon;

pub use gleaner_text::segment;

use gleaner_sdk::llm;
use gleaner_sdk::request::ReviewTextInput;
use serde_json::json;

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: ReviewTextInput =
        gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let text = input.review_text.as_str();
    let (marked, engine) = match llm_span(text) {
        Some(range) => (mark(text, range), "llm"),
        None => (highlight::highlight(text), "rules"),
    };
    Ok(Output {
        body: json!({ "review_id": input.review_id.unwrap_or_default(), "review_text": marked })
            .to_string(),
        engine: engine.into(),
    })
}

fn mark(text: &str, range: std::ops::Range<usize>) -> String {
    format!(
        "{}<mark>{}</mark>{}",
        &text[..range.start],
        &text[range.clone()],
        &text[range.end..]
    )
}

/// The LLM's span, when one is configured and its answer is a verbatim span of the
/// text within the length rules that the rules engine would also accept.
fn llm_span(text: &str) -> Option<std::ops::Range<usize>> {
    if !llm::enabled() {
        return None;
    }
    let system = "You pick the single most quotable short span of a customer review for a testimonial widget. \
        Prefer specific positive statements: outcomes, numbers, praise. Avoid negated or hedged statements, wishes and requests. \
        Answer with the span copied exactly from the review, 5 to 25 words, nothing else. \
        If nothing is worth quoting, answer NONE.";
    let answer = llm::ask(system, text, 120).ok()?;
    let span = answer.trim().trim_matches('"');
    if span == "NONE" || span.is_empty() {
        return None;
    }
    let start = text.find(span)?;
    let range = start..start + span.len();
    highlight::acceptable(text, range.clone()).then_some(range)
}
