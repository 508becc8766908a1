//! review-enhancement: fixes spelling (a table and a frequency word list),
//! contractions without apostrophes, homophones decided by context,
//! capitalisation, punctuation spacing, repeated words and punctuation, and
//! common agreement errors in English reviews, preserving meaning; URLs,
//! e-mails, domains, code, hashtags and handles are never edited. Other languages come back unchanged. With the optional LLM,
//! its rewrite is used only if it keeps every number, negation and name, adds no
//! content, and is already a fixed point of the rules.

mod chars;
mod coded;
mod context;
pub mod enhance;
mod lexicon;
mod protect;
#[cfg(test)]
mod restarts;
mod text;
mod words;

#[cfg(test)]
mod regressions;

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
    let rules = enhance::enhance(text);
    let (enhanced, engine) = match llm_rewrite(text, &rules) {
        Some(t) => (t, "llm"),
        None => (rules.text, "rules"),
    };
    Ok(Output {
        body: json!({ "review_id": input.review_id.unwrap_or_default(), "review_text": enhanced })
            .to_string(),
        engine: engine.into(),
    })
}

fn llm_rewrite(original: &str, rules: &enhance::Enhanced) -> Option<String> {
    if rules.language != "en" || !llm::enabled() {
        return None;
    }
    let system = "Correct spelling, capitalisation, punctuation spacing, repeated words and subject-verb agreement \
        in this customer review. Do not change its meaning, numbers, negations or names, and do not add anything. \
        Keep line breaks. Answer with the corrected review only.";
    let answer = llm::ask(system, original, 800).ok()?;
    enhance::preserves_meaning(original, &answer).then_some(answer)
}
