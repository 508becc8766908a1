//! The web app manifest a page links to.

use serde_json::Value;

use super::{collapse, largest_size, non_empty, parse_color, resolve, Icon};

/// Fields of a web app manifest; colours are normalised to `#rrggbb`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebAppManifest {
    /// `name`.
    pub name: Option<String>,
    /// `short_name`.
    pub short_name: Option<String>,
    /// `theme_color`.
    pub theme_color: Option<String>,
    /// `background_color`.
    pub background_color: Option<String>,
    /// `icons`, resolved against the manifest URL.
    pub icons: Vec<Icon>,
}

/// Reads a web app manifest (JSON) fetched from `manifest_url`; `None` unless it is a
/// JSON object. Colours are normalised with [`parse_color`].
pub fn web_manifest(json: &str, manifest_url: &str) -> Option<WebAppManifest> {
    let value: Value = serde_json::from_str(json.trim_start_matches('\u{feff}')).ok()?;
    let obj = value.as_object()?;
    let text = |k: &str| obj.get(k).and_then(Value::as_str).and_then(non_empty);
    let color = |k: &str| obj.get(k).and_then(Value::as_str).and_then(parse_color);
    let mut icons: Vec<Icon> = Vec::new();
    for icon in obj
        .get("icons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let field = |k: &str| icon.get(k).and_then(Value::as_str);
        let Some(url) = field("src").and_then(|s| resolve(manifest_url, s)) else {
            continue;
        };
        if icons.iter().any(|i| i.url == url) {
            continue;
        }
        let purpose = collapse(&field("purpose").unwrap_or_default().to_ascii_lowercase());
        icons.push(Icon {
            url,
            rel: format!("manifest {purpose}").trim().to_owned(),
            sizes: field("sizes").and_then(largest_size),
            mime: field("type")
                .and_then(non_empty)
                .map(|m| m.to_ascii_lowercase()),
        });
    }
    Some(WebAppManifest {
        name: text("name"),
        short_name: text("short_name"),
        theme_color: color("theme_color"),
        background_color: color("background_color"),
        icons,
    })
}
