//! A purpose-built misbehaving processor for the host's containment tests.
//! `{"mode": "trap" | "loop" | "memory" | "host-data" | "ok"}`, or
//! `{"mode": "fetch", "url": "...", "headers": {...}}`, which reports what the
//! host's HTTP capability answered, for the sandbox tests.

use gleaner_sdk::PluginInfo;
use serde_json::Value;

wit_bindgen::generate!({
    world: "processor",
    path: "../../wit",
    with: {
        "gleaner:plugin/http@0.1.0": gleaner_sdk::wit::gleaner::plugin::http,
        "gleaner:plugin/config@0.1.0": gleaner_sdk::wit::gleaner::plugin::config,
        "gleaner:plugin/cache@0.1.0": gleaner_sdk::wit::gleaner::plugin::cache,
        "gleaner:plugin/log@0.1.0": gleaner_sdk::wit::gleaner::plugin::log,
        "gleaner:plugin/types@0.1.0": gleaner_sdk::wit::gleaner::plugin::types,
    },
});

use exports::gleaner::plugin::processor_plugin::{Guest, ProcessError};

struct Misbehave;

impl Guest for Misbehave {
    fn info() -> PluginInfo {
        PluginInfo {
            name: "test-misbehave".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    fn process(input: String) -> Result<String, ProcessError> {
        let input: Value = serde_json::from_str(&input).unwrap_or_default();
        match input["mode"].as_str().unwrap_or("ok") {
            "trap" => panic!("deliberate trap"),
            "loop" => {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            "memory" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 16 * 1024 * 1024]);
                    std::hint::black_box(&hoard);
                }
            }
            "host-data" => {
                let line = "x".repeat(1024 * 1024);
                loop {
                    gleaner_sdk::log::debug(&line);
                }
            }
            "fetch" => Ok(fetch(&input).to_string()),
            _ => Ok(r#"{"ok":true}"#.to_owned()),
        }
    }
}

export!(Misbehave);

fn fetch(input: &Value) -> Value {
    let url = input["url"].as_str().unwrap_or_default();
    let headers: Vec<(String, String)> = input["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let borrowed: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    match gleaner_sdk::http::get(url, &borrowed) {
        Ok(r) => serde_json::json!({
            "status": r.status,
            "final_url": r.final_url,
            "body": r.text(),
        }),
        Err(e) => serde_json::json!({ "error": format!("{e:?}") }),
    }
}
