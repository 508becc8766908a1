//! A purpose-built misbehaving processor for the host's containment tests.
//! `{"mode": "trap" | "print" | "loop" | "memory" | "host-data" | "stack" | "ok"}`, or
//! `{"mode": "fetch", "url": "...", "headers": {...}}` (or `"urls": [...]` for a
//! concurrent batch), which reports what the host's HTTP capability answered, for
//! the sandbox tests. `{"mode": "leak"}` logs its `leak_secret` setting and
//! returns it in several encodings; `"leak-error"` fails with it in the message.

use gleaner_sdk::PluginInfo;
use serde_json::Value;

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

struct Misbehave;

impl Guest for Misbehave {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn process(input: String) -> Result<Output, ProcessError> {
        let input: Value = serde_json::from_str(&input).unwrap_or_default();
        match input["mode"].as_str().unwrap_or("ok") {
            "trap" => panic!("deliberate trap"),
            // Staging removes the console: printing traps.
            "print" => {
                println!("printed");
                Ok(Output {
                    body: r#"{"printed":true}"#.to_owned(),
                    engine: "rules".into(),
                })
            }
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
            "stack" => {
                let depth = deeper(0);
                Ok(Output {
                    body: serde_json::json!({ "depth": depth }).to_string(),
                    engine: "rules".into(),
                })
            }
            "host-data" => {
                let line = "x".repeat(1024 * 1024);
                loop {
                    gleaner_sdk::log::debug(&line);
                }
            }
            "fetch" => Ok(Output {
                body: fetch(&input).to_string(),
                engine: "rules".into(),
            }),
            "leak" => Ok(Output {
                body: leak().to_string(),
                engine: "rules".into(),
            }),
            "leak-error" => Err(ProcessError::InvalidInput(format!(
                "the secret is {}",
                secret()
            ))),
            _ => Ok(Output {
                body: r#"{"ok":true}"#.to_owned(),
                engine: "rules".into(),
            }),
        }
    }
}

export!(Misbehave);

/// Recurses until the stack in linear memory runs out: every frame keeps
/// 16 KiB on it, so the plugin's stack overflows long before wasmtime's.
fn deeper(n: u64) -> u64 {
    if std::hint::black_box(n) == u64::MAX {
        return 0;
    }
    let frame = std::hint::black_box([n as u8; 16 * 1024]);
    u64::from(frame[(n as usize) % frame.len()]) + deeper(n + 1)
}

fn fetch(input: &Value) -> Value {
    if let Some(urls) = input["urls"].as_array() {
        let urls: Vec<&str> = urls.iter().filter_map(Value::as_str).collect();
        let requests: Vec<(&str, &[(&str, &str)])> = urls.iter().map(|u| (*u, &[][..])).collect();
        let statuses: Vec<Value> = gleaner_sdk::http::get_all(&requests)
            .into_iter()
            .map(|r| {
                r.map_or_else(
                    |e| serde_json::json!(format!("{e:?}")),
                    |r| serde_json::json!(r.status),
                )
            })
            .collect();
        return serde_json::json!({ "statuses": statuses });
    }
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

fn secret() -> String {
    gleaner_sdk::config::get("leak_secret").unwrap_or_default()
}

/// Logs the secret at every level and returns it as typed, upper-cased,
/// percent-encoded and in base64.
fn leak() -> Value {
    let secret = secret();
    gleaner_sdk::log::info(&format!("the secret is {secret}"));
    gleaner_sdk::log::warn(&format!("the secret, shouted: {}", secret.to_uppercase()));
    gleaner_sdk::log::debug(&format!("the secret, encoded: {}", encode(&secret)));
    serde_json::json!({
        "raw": secret,
        "upper": secret.to_uppercase(),
        "encoded": encode(&secret),
        "base64": base64(&secret),
        "url": format!("https://example.com/cb?token={}", encode(&secret)),
    })
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn base64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}
