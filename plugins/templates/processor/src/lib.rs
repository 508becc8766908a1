//! __NAME__: a processor built from the Gleaner template. It counts the sentences
//! and words of `review_text`; replace `process` with the real work.

use gleaner_sdk::{segment, PluginInfo};
use serde_json::{json, Value};

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

struct Processor;

impl Guest for Processor {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!("__NAME__")
    }

    fn process(input: String) -> Result<Output, ProcessError> {
        let input: Value =
            serde_json::from_str(&input).map_err(|e| ProcessError::InvalidInput(format!("invalid JSON: {e}")))?;
        let text = input["review_text"].as_str().unwrap_or_default();
        let body = json!({
            "review_id": input["review_id"],
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
