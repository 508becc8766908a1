//! __NAME__: a processor built from the Gleaner template. It counts the sentences
//! and words of `review_text`; replace `process` with the real work.

use gleaner_sdk::{segment, PluginInfo};
use serde_json::json;

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

struct Processor;

/// The fields this processor reads; the host has validated them against the manifest.
#[derive(serde::Deserialize)]
struct Input {
    review_id: Option<String>,
    review_text: String,
}

impl Guest for Processor {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

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
}

export!(Processor);
