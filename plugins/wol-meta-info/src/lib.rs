//! wol-meta-info: optimised SEO titles (at most 60 characters) and descriptions (at
//! most 155) for a website and for its wall-of-love page, from the site's own
//! title, description, Open Graph tags, JSON-LD and web app manifest.
//!
//! The page given is read as given (a bare domain is its home page) for the title
//! and description; when it is not the home page, the home page is read too for
//! the brand (a home page that cannot be read leaves the brand to the page).

pub mod seo;

pub use gleaner_sdk::webpage;

use gleaner_sdk::website::{self, WebsiteError};
use serde_json::json;

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The fields this processor reads; the host has validated them against the manifest.
#[derive(serde::Deserialize)]
struct Input {
    email: String,
    website: String,
}

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: Input = gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let email = input.email.trim();
    if !valid_email(email) {
        return Err(ProcessError::InvalidInput(format!(
            "`email` {email:?} is not an e-mail address; give one like name@example.com"
        )));
    }
    let site_error = |e| match e {
        WebsiteError::Input(m) => ProcessError::InvalidInput(format!("`website`: {m}")),
        WebsiteError::Site(m) => ProcessError::Upstream(m),
    };
    let (base, html) = website::page(&input.website).map_err(site_error)?;
    let meta = webpage::page_meta(&html, &base);
    let home_meta = if website::is_home(&base) {
        None
    } else {
        website::home_of(&base)
            .and_then(|home| website::html_at(&home).ok())
            .map(|(home, html)| webpage::page_meta(&html, &home))
    };
    let manifest = website::manifest(home_meta.as_ref().unwrap_or(&meta))
        .or_else(|| home_meta.as_ref().and_then(|_| website::manifest(&meta)));
    let manifest_name = manifest
        .as_ref()
        .and_then(|m| m.name.clone().or_else(|| m.short_name.clone()));
    let domain = base
        .split("://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_default();
    let seo = seo::optimise(&meta, home_meta.as_ref(), manifest_name.as_deref(), domain);
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
