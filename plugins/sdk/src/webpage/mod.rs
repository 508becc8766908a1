//! Parsing a web page: titles and descriptions, Open Graph and Twitter tags,
//! icons, header logos, JSON-LD organisation data ([`jsonld`]), brand colours
//! declared in CSS ([`css`]), the web app manifest ([`web_app_manifest`]) and
//! URL resolution ([`url`]). Fetching lives in [`crate::website`].
//!
//! Everything here is pure string logic: no I/O, and no panics on any input.

pub mod css;
pub mod jsonld;
pub mod url;
pub mod web_app_manifest;

#[cfg(test)]
mod tests;

use scraper::{ElementRef, Html};

pub use css::parse_color;
pub use url::{resolve, site_url};
pub use web_app_manifest::{web_manifest, WebAppManifest};

use css::{css_colors, css_rules, MAX_CSS};
use url::absolute;

/// An icon declared by a page (`<link rel="icon">` and friends) or a web app manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Icon {
    /// Absolute http(s) URL of the icon.
    pub url: String,
    /// The lower-cased `rel` (`"icon"`, `"shortcut icon"`, `"apple-touch-icon"`,
    /// `"mask-icon"`, …);
    /// manifest icons use `"manifest"` followed by their `purpose`, if any.
    pub rel: String,
    /// The largest `WxH` of the `sizes` attribute (`None` for `any` or when absent).
    pub sizes: Option<(u32, u32)>,
    /// The declared MIME type (`type` attribute), if any.
    pub mime: Option<String>,
}

/// Metadata extracted from a page by [`page_meta`]. Text is whitespace-collapsed and
/// entity-decoded; URLs are absolute; colours are `#rrggbb`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMeta {
    /// The document `<title>`.
    pub title: Option<String>,
    /// `<meta name="description">`.
    pub description: Option<String>,
    /// `og:title`.
    pub og_title: Option<String>,
    /// `og:description`.
    pub og_description: Option<String>,
    /// `og:site_name`.
    pub og_site_name: Option<String>,
    /// `og:image` (or `og:image:url` / `og:image:secure_url`), resolved.
    pub og_image: Option<String>,
    /// `og:logo`, resolved.
    pub og_logo: Option<String>,
    /// `twitter:title`.
    pub twitter_title: Option<String>,
    /// `twitter:description`.
    pub twitter_description: Option<String>,
    /// `application-name` (or `apple-mobile-web-app-title`).
    pub application_name: Option<String>,
    /// `theme-color`, preferring the one without a dark-scheme media query.
    pub theme_color: Option<String>,
    /// `msapplication-TileColor`.
    pub tile_color: Option<String>,
    /// Icons in document order, de-duplicated by URL.
    pub icons: Vec<Icon>,
    /// `<link rel="manifest">`, resolved.
    pub manifest_url: Option<String>,
    /// The organisation logo from JSON-LD, resolved.
    pub jsonld_logo: Option<String>,
    /// The organisation (or web site) name from JSON-LD.
    pub jsonld_name: Option<String>,
    /// Likely logo images: in `<header>`, in a link to the home page, or named like a logo.
    pub header_logos: Vec<String>,
    /// Colours declared in CSS: (`"button"`, `"primary-var"`, `"brand-var"`, `"accent-var"` or
    /// `"background"`, `#rrggbb`), de-duplicated, style blocks before `style` attributes.
    pub css_colors: Vec<(String, String)>,
    /// The first `<h1>`.
    pub h1: Option<String>,
}

pub(crate) use crate::html::collapse_whitespace as collapse;

pub(crate) fn non_empty(s: &str) -> Option<String> {
    let s = collapse(s);
    (!s.is_empty()).then_some(s)
}

fn text_of(el: ElementRef<'_>) -> Option<String> {
    non_empty(&el.text().collect::<Vec<_>>().join(" "))
}

fn set(slot: &mut Option<String>, value: Option<String>) {
    if slot.is_none() {
        *slot = value;
    }
}

fn lower_attr(el: ElementRef<'_>, name: &str) -> String {
    el.attr(name).unwrap_or_default().to_ascii_lowercase()
}

fn ancestors<'a>(el: ElementRef<'a>) -> impl Iterator<Item = ElementRef<'a>> {
    el.ancestors().filter_map(ElementRef::wrap)
}

/// Extracts [`PageMeta`] from an HTML document fetched from `base_url` (a `<base href>`
/// in the document takes precedence for resolving URLs).
pub fn page_meta(html: &str, base_url: &str) -> PageMeta {
    let doc = Html::parse_document(html);
    let root = doc.root_element();
    let base = root
        .descendent_elements()
        .find(|e| e.value().name() == "base" && e.attr("href").is_some())
        .and_then(|e| resolve(base_url, e.attr("href")?))
        .unwrap_or_else(|| base_url.to_owned());
    let homes: Vec<String> = [resolve(&base, "/"), absolute(base_url)]
        .into_iter()
        .flatten()
        .collect();
    let mut meta = PageMeta::default();
    let mut dark_theme = None;
    let mut scripts = Vec::new();
    let mut css = String::new();
    let mut inline = Vec::new();
    for el in root.descendent_elements() {
        let name = el.value().name();
        match name {
            "title"
                if meta.title.is_none() && !ancestors(el).any(|a| a.value().name() == "svg") =>
            {
                meta.title = text_of(el)
            }
            "meta" => meta_tag(el, &base, &mut meta, &mut dark_theme),
            "link" => link_tag(el, &base, &mut meta),
            "script"
                if lower_attr(el, "type")
                    .trim()
                    .starts_with("application/ld+json") =>
            {
                scripts.push(el.text().collect::<String>())
            }
            "style" if css.len() < MAX_CSS => {
                css.extend(el.text());
                css.push('\n');
            }
            "h1" if meta.h1.is_none() => meta.h1 = text_of(el),
            "img" | "image" => {
                if let Some(url) = logo_image(el, &base, &homes) {
                    if !meta.header_logos.contains(&url) {
                        meta.header_logos.push(url);
                    }
                }
            }
            _ => {}
        }
        if let Some(style) = el.attr("style") {
            let mut selector = name.to_owned();
            for class in el.value().classes() {
                selector.push('.');
                selector.push_str(class);
            }
            if lower_attr(el, "type") == "submit" {
                selector.push_str("[type=submit]");
            }
            inline.push((selector, style.to_owned()));
        }
    }
    set(&mut meta.theme_color, dark_theme);
    jsonld::jsonld(&scripts, &base, &mut meta);
    let mut rules = css_rules(&css);
    rules.extend(inline);
    meta.css_colors = css_colors(&rules);
    meta
}

fn meta_tag(el: ElementRef<'_>, base: &str, meta: &mut PageMeta, dark: &mut Option<String>) {
    let Some(content) = el.attr("content") else {
        return;
    };
    let keys = ["name", "property", "itemprop"].map(|k| el.attr(k).map(str::to_ascii_lowercase));
    for key in keys.iter().flatten() {
        let text = || non_empty(content);
        let url = || resolve(base, content);
        match key.trim() {
            "description" => set(&mut meta.description, text()),
            "og:title" => set(&mut meta.og_title, text()),
            "og:description" => set(&mut meta.og_description, text()),
            "og:site_name" => set(&mut meta.og_site_name, text()),
            "og:image" | "og:image:url" | "og:image:secure_url" => set(&mut meta.og_image, url()),
            "og:logo" => set(&mut meta.og_logo, url()),
            "twitter:title" => set(&mut meta.twitter_title, text()),
            "twitter:description" => set(&mut meta.twitter_description, text()),
            "application-name" | "apple-mobile-web-app-title" => {
                set(&mut meta.application_name, text())
            }
            "msapplication-tilecolor" => set(&mut meta.tile_color, parse_color(content)),
            "theme-color" => {
                if lower_attr(el, "media").contains("dark") {
                    set(dark, parse_color(content));
                } else {
                    set(&mut meta.theme_color, parse_color(content));
                }
            }
            _ => {}
        }
    }
}

fn link_tag(el: ElementRef<'_>, base: &str, meta: &mut PageMeta) {
    let rel = collapse(&lower_attr(el, "rel"));
    let Some(url) = el.attr("href").and_then(|h| resolve(base, h)) else {
        return;
    };
    let tokens: Vec<&str> = rel.split(' ').collect();
    if tokens.contains(&"manifest") {
        set(&mut meta.manifest_url, Some(url));
        return;
    }
    let icon_rels = "icon apple-touch-icon apple-touch-icon-precomposed mask-icon";
    if tokens.iter().any(|t| icon_rels.split(' ').any(|r| r == *t))
        && !meta.icons.iter().any(|i| i.url == url)
    {
        meta.icons.push(Icon {
            url,
            rel,
            sizes: el.attr("sizes").and_then(largest_size),
            mime: el
                .attr("type")
                .and_then(non_empty)
                .map(|m| m.to_ascii_lowercase()),
        });
    }
}

/// The largest `WxH` of a `sizes` value such as `"16x16 32x32"`.
pub(crate) fn largest_size(sizes: &str) -> Option<(u32, u32)> {
    sizes
        .split_whitespace()
        .filter_map(|s| {
            let lower = s.to_ascii_lowercase();
            let (w, h) = lower.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .filter(|&(w, h): &(u32, u32)| w > 0 && h > 0)
        .max_by_key(|&(w, h)| u64::from(w) * u64::from(h))
}

fn logo_image(el: ElementRef<'_>, base: &str, homes: &[String]) -> Option<String> {
    let url = if el.value().name() == "image" {
        let href = el.value().attrs().find(|(k, _)| *k == "href")?.1;
        resolve(base, href)?
    } else {
        let srcset = el.attr("srcset").and_then(|s| s.split_whitespace().next());
        let srcset = srcset.map(|s| s.trim_end_matches(','));
        ["src", "data-src", "data-lazy-src", "data-original"]
            .iter()
            .filter_map(|k| el.attr(k))
            .chain(srcset)
            .find_map(|h| resolve(base, h))?
    };
    if el.attr("width") == Some("1") || el.attr("height") == Some("1") {
        return None;
    }
    let named = |e: ElementRef<'_>, keys: &[&str]| {
        keys.iter()
            .filter_map(|k| e.attr(k))
            .any(|v| v.to_ascii_lowercase().contains("logo"))
    };
    let excluded = "logos customer client partner brands trusted marquee testimonial";
    let elsewhere = ancestors(el).any(|a| {
        let tag = format!(
            "{} {}",
            a.attr("class").unwrap_or_default(),
            a.attr("id").unwrap_or_default()
        );
        let tag = tag.to_ascii_lowercase();
        excluded.split(' ').any(|x| tag.contains(x))
    });
    let in_header = ancestors(el).any(|a| {
        a.value().name() == "header"
            || a.attr("role") == Some("banner")
            || (a.value().name() == "a"
                && a.attr("href")
                    .and_then(|h| resolve(base, h))
                    .is_some_and(|h| homes.contains(&h)))
    });
    let logo_like = named(el, &["class", "id", "alt"])
        || ancestors(el).take(3).any(|a| named(a, &["class", "id"]));
    ((in_header || logo_like) && !elsewhere).then_some(url)
}
