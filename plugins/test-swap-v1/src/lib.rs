//! A processor that answers with its own version, built twice (test-swap-v1 and
//! test-swap-v2, from this one file) for the hot-swap tests.

use gleaner_sdk::PluginInfo;

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

struct Swap;

impl Guest for Swap {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!("test-swap")
    }

    fn process(_input: String) -> Result<Output, ProcessError> {
        Ok(Output {
            body: serde_json::json!({ "version": env!("CARGO_PKG_VERSION") }).to_string(),
            engine: "rules".into(),
        })
    }
}

export!(Swap);
