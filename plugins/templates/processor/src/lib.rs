//! __NAME__: a processor built from the Gleaner template. It counts the sentences
//! and words of `review_text`; replace `process` with the real work.

use gleaner_text::segment;
use serde_json::json;

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The fields this processor reads; the host has validated them against the manifest.
#[derive(serde::Deserialize)]
struct Input {
    review_id: Option<String>,
    review_text: String,
}

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: Input = gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let text = &input.review_text;
    let body = json!({
        "review_id": input.review_id,
        "sentences": segment::sentences(text).len(),
        "words": text.split_whitespace().count(),
    })
    .to_string();
    Ok(Output {
        body,
        engine: "rules".into(),
    })
}

