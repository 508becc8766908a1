//! wol-meta-info: optimised SEO titles (at most 60 characters) and descriptions (at
//! most 155) for a website and for its wall-of-love page, from the site's own
//! title, description, Open Graph tags, JSON-LD and web app manifest.

pub mod seo;

pub use gleaner_sdk::site;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::PluginInfo;
use serde_json::{json, Value};

gleaner_sdk::plugin_bindings!("processor");

use exports::gleaner::plugin::processor_plugin::{Guest, Output, ProcessError};

struct WolMetaInfo;

impl Guest for WolMetaInfo {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!("wol-meta-info")
    }

    fn process(input: String) -> Result<Output, ProcessError> {
        let input: Value =
            serde_json::from_str(&input).map_err(|e| ProcessError::InvalidInput(e.to_string()))?;
        let email = input["email"].as_str().unwrap_or_default().trim();
        if !valid_email(email) {
            return Err(ProcessError::InvalidInput(format!(
                "`email` {email:?} is not an e-mail address; give one like name@example.com"
            )));
        }
        let website = input["website"].as_str().unwrap_or_default();
        let url = site::site_url(website)
            .map_err(|e| ProcessError::InvalidInput(format!("`website`: {e}")))?;
        let response = http::get_html(&url)
            .and_then(|r| r.ensure_success("the website"))
            .map_err(|e| ProcessError::Upstream(http::describe(&e)))?;
        let html = response.text();
        if !response
            .header("content-type")
            .is_none_or(|t| t.contains("html"))
        {
            return Err(ProcessError::Upstream(format!(
                "{} did not answer with an HTML page; give the site's home page",
                response.final_url
            )));
        }
        let base = response.final_url.clone();
        let meta = site::page_meta(&html, &base);
        let manifest = meta.manifest_url.as_deref().and_then(|m| {
            http::get(
                m,
                &[("accept", "application/manifest+json,application/json")],
            )
            .ok()
            .filter(Response::is_success)
            .and_then(|r| site::web_manifest(&r.text(), m))
        });
        let manifest_name = manifest
            .as_ref()
            .and_then(|m| m.name.clone().or_else(|| m.short_name.clone()));
        let domain = base
            .split("://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_default();
        let seo = seo::optimise(&meta, manifest_name.as_deref(), domain);
        let body = json!({
            "status": 200,
            "success": true,
            "message": format!("Extracted titles and descriptions from {base}"),
            "data": {
                "website": base,
                "brand_name": seo.brand,
                "site_title": seo.site_title,
                "site_description": seo.site_description,
                "wol_title": seo.wol_title,
                "wol_description": seo.wol_description,
                "source_title": seo.source_title,
                "source_description": seo.source_description,
            },
        });
        Ok(Output {
            body: body.to_string(),
            engine: "rules".into(),
        })
    }
}

export!(WolMetaInfo);

/// A pragmatic e-mail check: one `@`, a non-empty local part without spaces, and a
/// domain with a dot and valid labels.
pub fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let label_ok = |l: &str| {
        !l.is_empty()
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    !local.is_empty()
        && local.len() <= 64
        && !local.contains(char::is_whitespace)
        && !domain.contains('@')
        && domain.contains('.')
        && domain.split('.').all(label_ok)
}
