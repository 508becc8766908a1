//! Page metadata shared by the site plugins: titles and descriptions, Open Graph and
//! Twitter tags, icons, the web app manifest, JSON-LD organisation data, header logos
//! and brand colours declared in CSS.
//!
//! Everything here is pure string logic: no I/O, and no panics on any input.

use std::collections::HashMap;

use scraper::{ElementRef, Html};
use serde_json::Value;

/// The home page URL for a domain or URL given by a user: `example.com`,
/// `https://example.com/x`, `www.example.com/`. Errors say what is accepted.
pub fn site_url(input: &str) -> Result<String, String> {
    let t = input.trim();
    let with_scheme = if t.contains("://") {
        t.to_owned()
    } else {
        format!("https://{t}")
    };
    let (scheme, rest) = with_scheme.split_once("://").unwrap_or(("https", ""));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_ok = !host.is_empty()
        && host.contains(['.', ':', '['])
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") || !host_ok {
        return Err(format!(
            "{t:?} is not a website; give a domain such as example.com or an http(s) URL"
        ));
    }
    Ok(format!(
        "{}://{}/",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    ))
}

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

/// Fields of a web app manifest; colours are normalised to `#rrggbb`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
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

const MAX_CSS: usize = 1 << 20;
const MAX_COLORS: usize = 64;

/// Resolves `href` against `base` to an absolute http(s) URL.
///
/// Handles absolute, protocol-relative (`//host/x`), root-relative (`/x`), relative
/// (`x`, `../x`), query-only and fragment-only references. Returns `None` for other
/// schemes (`javascript:`, `data:`, `mailto:`, …), an empty `href`, or a `base` that is
/// not an absolute http(s) URL. Dot segments are removed, the host is lower-cased,
/// unsafe characters are percent-encoded and the fragment is dropped.
pub fn resolve(base: &str, href: &str) -> Option<String> {
    let href: String = href
        .trim()
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if href.is_empty() {
        return None;
    }
    if let Some(scheme) = scheme_of(&href) {
        let rest = href[scheme.len() + 1..].replace('\\', "/");
        return assemble(&scheme, rest.trim_start_matches('/'));
    }
    let canon = absolute(base)?;
    let (scheme, after) = canon.split_once("://")?;
    let slash = after.find('/').unwrap_or(after.len());
    let (authority, base_rest) = after.split_at(slash);
    let href = href.replace('\\', "/");
    if let Some(rest) = href.strip_prefix("//") {
        return assemble(scheme, rest);
    }
    let base_path = &base_rest[..base_rest.find('?').unwrap_or(base_rest.len())];
    let merged = if href.starts_with('/') {
        href
    } else if href.starts_with('?') {
        format!("{base_path}{href}")
    } else if href.starts_with('#') {
        base_rest.to_owned()
    } else {
        let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
        format!("{dir}{href}")
    };
    finish(scheme, authority, &merged)
}

fn absolute(url: &str) -> Option<String> {
    let url = url.trim();
    let scheme = scheme_of(url)?;
    assemble(
        &scheme,
        url[scheme.len() + 1..].trim_start_matches(['/', '\\']),
    )
}

fn scheme_of(s: &str) -> Option<String> {
    let scheme = &s[..s.find(':')?];
    let mut chars = scheme.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| scheme.to_ascii_lowercase())
}

/// Builds a URL from a scheme and `authority[/path][?query][#fragment]`.
fn assemble(scheme: &str, rest: &str) -> Option<String> {
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = match host_port.find(']').filter(|_| host_port.starts_with('[')) {
        Some(end) => {
            let (h, p) = host_port.split_at(end + 1);
            (h, p.strip_prefix(':'))
        }
        None => match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        },
    };
    let bad = |c: char| c.is_whitespace() || c.is_control() || "<>\"'`{}|^%".contains(c);
    if host.is_empty() || host.chars().any(bad) {
        return None;
    }
    let mut auth = host.to_lowercase();
    match port {
        Some(p) if !p.chars().all(|c| c.is_ascii_digit()) => return None,
        Some("") | None => {}
        Some(p) if (scheme, p) == ("http", "80") || (scheme, p) == ("https", "443") => {}
        Some(p) => auth = format!("{auth}:{p}"),
    }
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    finish(scheme, &auth, &path)
}

fn finish(scheme: &str, authority: &str, rest: &str) -> Option<String> {
    let rest = &rest[..rest.find('#').unwrap_or(rest.len())];
    let (path, query) = match rest.find('?') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match seg.to_ascii_lowercase().as_str() {
            "." | "%2e" => {}
            ".." | ".%2e" | "%2e." | "%2e%2e" => {
                out.pop();
            }
            _ => {
                out.push(seg);
                continue;
            }
        }
        if last {
            out.push("");
        }
    }
    let mut url = format!("{scheme}://{authority}/");
    encode_into(&mut url, &out.join("/"));
    encode_into(&mut url, query);
    Some(url)
}

fn encode_into(out: &mut String, s: &str) {
    for c in s.chars() {
        if c.is_ascii_graphic() && !"\"<>`{}".contains(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn non_empty(s: &str) -> Option<String> {
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
    jsonld(&scripts, &base, &mut meta);
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
fn largest_size(sizes: &str) -> Option<(u32, u32)> {
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

fn parse_jsonld(text: &str) -> Option<Value> {
    let mut t = text.trim();
    for (start, end) in [
        ("<!--", "-->"),
        ("//<![CDATA[", "//]]>"),
        ("<![CDATA[", "]]>"),
    ] {
        t = t.strip_prefix(start).unwrap_or(t).trim();
        t = t.strip_suffix(end).unwrap_or(t).trim();
    }
    serde_json::from_str(t).ok().or_else(|| {
        let cleaned: String = t
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        serde_json::from_str(&cleaned).ok()
    })
}

fn collect_objects<'a>(v: &'a Value, depth: usize, out: &mut Vec<(&'a Value, usize)>) {
    if depth > 24 {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| collect_objects(i, depth, out)),
        Value::Object(map) => {
            out.push((v, depth));
            for (k, child) in map {
                let next = if k == "@graph" { depth } else { depth + 1 };
                collect_objects(child, next, out);
            }
        }
        _ => {}
    }
}

const ORG_TYPES: &str = "Organization Corporation LocalBusiness OnlineBusiness OnlineStore NGO \
    EducationalOrganization NewsMediaOrganization Store ProfessionalService";

/// 0 for organisations, 1 for web sites, 2 for brands; `None` for other types.
fn org_rank(v: &Value) -> Option<u8> {
    let types: Vec<&str> = match v.get("@type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let rank = |t: &&str| match t.rsplit(['/', ':', '#']).next().unwrap_or_default() {
        "WebSite" => Some(1),
        "Brand" => Some(2),
        t if ORG_TYPES.split(' ').any(|o| o == t) => Some(0),
        _ => None,
    };
    types.iter().filter_map(rank).min()
}

fn logo_url(v: &Value, ids: &HashMap<&str, &Value>, base: &str, depth: u8) -> Option<String> {
    match v {
        Value::String(s) => resolve(base, s),
        Value::Array(a) => a.iter().find_map(|i| logo_url(i, ids, base, depth)),
        Value::Object(o) if depth < 4 => ["url", "contentUrl"]
            .iter()
            .filter_map(|k| o.get(*k))
            .find_map(|u| logo_url(u, ids, base, depth + 1))
            .or_else(|| {
                let target = ids.get(o.get("@id")?.as_str()?)?;
                (*target != v).then(|| logo_url(target, ids, base, depth + 1))?
            }),
        _ => None,
    }
}

fn jsonld(scripts: &[String], base: &str, meta: &mut PageMeta) {
    let docs: Vec<Value> = scripts.iter().filter_map(|s| parse_jsonld(s)).collect();
    let mut objects = Vec::new();
    docs.iter()
        .for_each(|d| collect_objects(d, 0, &mut objects));
    let ids: HashMap<&str, &Value> = objects
        .iter()
        .filter(|(o, _)| o.as_object().is_some_and(|m| m.len() > 1))
        .filter_map(|(o, _)| Some((o.get("@id")?.as_str()?, *o)))
        .collect();
    let mut orgs: Vec<(u8, usize, &Value)> = objects
        .iter()
        .filter_map(|&(o, d)| Some((org_rank(o)?, d, o)))
        .collect();
    orgs.sort_by_key(|&(rank, depth, _)| (rank, depth));
    meta.jsonld_name = orgs
        .iter()
        .find_map(|(_, _, o)| non_empty(o.get("name")?.as_str()?));
    meta.jsonld_logo = orgs
        .iter()
        .find_map(|(_, _, o)| logo_url(o.get("logo")?, &ids, base, 0));
}

fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .find("*/")
            .map_or("", |e| &rest[start + 4 + e..]);
    }
    out.push_str(rest);
    out
}

/// (selector, declarations) pairs of a style sheet; at-rule blocks are flattened.
fn css_rules(css: &str) -> Vec<(String, String)> {
    let css = strip_comments(css);
    let mut rules = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < css.len() {
        match css.as_bytes()[i] {
            b'{' => {
                let prelude = css[start..i].trim();
                if prelude.starts_with('@') {
                    start = i + 1;
                } else {
                    let end = css[i + 1..].find('}').map_or(css.len(), |p| i + 1 + p);
                    rules.push((prelude.to_owned(), css[i + 1..end].to_owned()));
                    i = end;
                    start = end + 1;
                }
            }
            b'}' | b';' => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    rules
}

fn declarations(block: &str) -> impl Iterator<Item = (String, String)> + '_ {
    block.split(';').filter_map(|d| {
        let (prop, value) = d.split_once(':')?;
        let value = value.trim();
        let lower = value.to_ascii_lowercase();
        let value = lower
            .find("!important")
            .map_or(value, |i| &value[..i])
            .trim();
        Some((prop.trim().to_ascii_lowercase(), value.to_owned()))
    })
}

/// Replaces `var(--x, fallback)` references by their values.
fn substitute(value: &str, vars: &HashMap<String, String>, depth: u8) -> String {
    let Some(start) = value.find("var(") else {
        return value.to_owned();
    };
    if depth > 8 {
        return String::new();
    }
    let inner_start = start + 4;
    let mut level = 1;
    let mut end = value.len();
    for (i, c) in value[inner_start..].char_indices() {
        level += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if level == 0 {
            end = inner_start + i;
            break;
        }
    }
    let inner = &value[inner_start..end];
    let (name, fallback) = inner.split_once(',').unwrap_or((inner, ""));
    let replaced = match vars.get(&name.trim().to_ascii_lowercase()) {
        Some(v) => substitute(v, vars, depth + 1),
        None => substitute(fallback.trim(), vars, depth + 1),
    };
    let tail = value.get(end + 1..).unwrap_or_default();
    format!(
        "{}{replaced}{}",
        &value[..start],
        substitute(tail, vars, depth + 1)
    )
}

/// A colour from a custom property value, including bare channel lists such as
/// `222 47% 11%` (hsl) or `37 99 235` (rgb) used by utility frameworks.
fn var_color(value: &str) -> Option<String> {
    parse_color(value).or_else(|| {
        let parts: Vec<&str> = value.split([' ', ',']).filter(|p| !p.is_empty()).collect();
        if parts.len() != 3 {
            return None;
        }
        if parts[1].ends_with('%') && parts[2].ends_with('%') {
            parse_color(&format!("hsl({})", parts.join(" ")))
        } else if parts
            .iter()
            .all(|p| p.parse::<f64>().is_ok_and(|n| (0.0..=255.0).contains(&n)))
        {
            parse_color(&format!("rgb({})", parts.join(" ")))
        } else {
            None
        }
    })
}

fn first_color(value: &str) -> Option<String> {
    let (mut level, mut start) = (0i32, 0);
    let mut tokens = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '(' => level += 1,
            ')' => level -= 1,
            ' ' | ',' if level == 0 => {
                tokens.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    tokens.push(&value[start..]);
    tokens.into_iter().find_map(parse_color)
}

fn var_label(name: &str) -> Option<&'static str> {
    let skip = "foreground -fg text contrast shadow border ring on- hover";
    if skip.split(' ').any(|s| name.contains(s)) {
        return None;
    }
    let labels = [
        ("primary", "primary-var"),
        ("brand", "brand-var"),
        ("accent", "accent-var"),
    ];
    labels
        .into_iter()
        .find(|(k, _)| name.contains(k))
        .map(|(_, label)| label)
}

fn selector_label(selector: &str) -> Option<&'static str> {
    let skip = ":hover :focus :active :disabled :: secondary outline ghost light white close \
        toggle menu nav link tertiary cancel";
    let button = "button .btn .cta [type=submit] [type=\"submit\"]";
    selector.to_ascii_lowercase().split(',').find_map(|part| {
        let last = part.split_whitespace().last().unwrap_or_default();
        if skip.split_whitespace().any(|s| part.contains(s)) {
            None
        } else if button.split(' ').any(|b| last.contains(b)) {
            Some("button")
        } else if last.starts_with("body") || last.starts_with("html") {
            Some("background")
        } else {
            None
        }
    })
}

fn css_colors(rules: &[(String, String)]) -> Vec<(String, String)> {
    let mut vars = HashMap::new();
    for (_, block) in rules {
        for (prop, value) in declarations(block) {
            if prop.starts_with("--") {
                vars.entry(prop).or_insert(value);
            }
        }
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (selector, block) in rules {
        for (prop, value) in declarations(block) {
            let found = if prop.starts_with("--") {
                var_label(&prop).zip(var_color(&substitute(&value, &vars, 0)))
            } else if prop == "background" || prop == "background-color" {
                selector_label(selector).zip(first_color(&substitute(&value, &vars, 0)))
            } else {
                None
            };
            if let Some((label, color)) = found {
                let pair = (label.to_owned(), color);
                if out.len() < MAX_COLORS && !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// Reads a web app manifest (JSON) fetched from `manifest_url`; `None` unless it is a
/// JSON object. Colours are normalised with [`parse_color`].
pub fn web_manifest(json: &str, manifest_url: &str) -> Option<Manifest> {
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
    Some(Manifest {
        name: text("name"),
        short_name: text("short_name"),
        theme_color: color("theme_color"),
        background_color: color("background_color"),
        icons,
    })
}

/// Common named colours as `name rrggbb` pairs.
const NAMED: &str = "black 000000 white ffffff red ff0000 green 008000 blue 0000ff yellow ffff00 \
    orange ffa500 purple 800080 gray 808080 grey 808080 silver c0c0c0 navy 000080 teal 008080 \
    maroon 800000 olive 808000 lime 00ff00 aqua 00ffff cyan 00ffff fuchsia ff00ff magenta ff00ff \
    pink ffc0cb brown a52a2a gold ffd700 indigo 4b0082 violet ee82ee crimson dc143c coral ff7f50 \
    tomato ff6347 orangered ff4500 royalblue 4169e1 dodgerblue 1e90ff darkblue 00008b \
    lightgray d3d3d3 lightgrey d3d3d3 darkgray a9a9a9 darkgrey a9a9a9 whitesmoke f5f5f5";

/// Parses a CSS colour to lower-case `#rrggbb`: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`
/// (alpha dropped), `rgb()`/`rgba()` (comma or space syntax, numbers or percentages),
/// `hsl()`/`hsla()` (deg, turn, rad, grad hues) and common named colours. Fully
/// transparent colours (`transparent`, alpha 0) and anything else give `None`.
pub fn parse_color(s: &str) -> Option<String> {
    let s = s.trim().to_ascii_lowercase();
    let s = s.strip_suffix("!important").unwrap_or(&s).trim();
    let hex = |r: f64, g: f64, b: f64| {
        let c = |v: f64| (v.clamp(0.0, 255.0)).round() as u8;
        format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
    };
    if let Some(h) = s.strip_prefix('#') {
        let full: String = match h.len() {
            _ if !h.chars().all(|c| c.is_ascii_hexdigit()) => return None,
            3 | 4 => h.chars().flat_map(|c| [c, c]).collect(),
            6 | 8 => h.to_owned(),
            _ => return None,
        };
        let byte = |i: usize| {
            u8::from_str_radix(full.get(i..i + 2)?, 16)
                .ok()
                .map(f64::from)
        };
        if full.len() == 8 && byte(6)? == 0.0 {
            return None;
        }
        return Some(hex(byte(0)?, byte(2)?, byte(4)?));
    }
    if let Some((func, rest)) = s.split_once('(') {
        let args: Vec<&str> = rest
            .strip_suffix(')')?
            .split([',', ' ', '/'])
            .filter(|a| !a.is_empty())
            .collect();
        if !(3..=4).contains(&args.len()) {
            return None;
        }
        let num = |a: &str, percent_scale: f64| -> Option<f64> {
            let v = match a.strip_suffix('%') {
                Some(p) => p.parse::<f64>().ok()? * percent_scale / 100.0,
                None if a == "none" => 0.0,
                None => a.parse::<f64>().ok()?,
            };
            v.is_finite().then_some(v)
        };
        if args
            .get(3)
            .is_some_and(|a| num(a, 1.0).is_none_or(|v| v <= 0.0))
        {
            return None;
        }
        return match func.trim() {
            "rgb" | "rgba" => Some(hex(
                num(args[0], 255.0)?,
                num(args[1], 255.0)?,
                num(args[2], 255.0)?,
            )),
            "hsl" | "hsla" => {
                let (hue, factor) = [
                    ("deg", 1.0),
                    ("grad", 0.9),
                    ("rad", 180.0 / std::f64::consts::PI),
                    ("turn", 360.0),
                ]
                .iter()
                .find_map(|(u, f)| Some((args[0].strip_suffix(u)?, *f)))
                .unwrap_or((args[0], 1.0));
                let hue = (num(hue, 1.0)? * factor).rem_euclid(360.0);
                let frac = |a: &str| {
                    num(a.trim_end_matches('%'), 1.0).map(|v| v.clamp(0.0, 100.0) / 100.0)
                };
                let (sat, light) = (frac(args[1])?, frac(args[2])?);
                let a = sat * light.min(1.0 - light);
                let f = |n: f64| {
                    let k = (n + hue / 30.0) % 12.0;
                    255.0 * (light - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0))
                };
                Some(hex(f(0.0), f(8.0), f(4.0)))
            }
            _ => None,
        };
    }
    let words: Vec<&str> = NAMED.split_whitespace().collect();
    let pair = words.chunks(2).find(|pair| pair[0] == s)?;
    Some(format!("#{}", pair.get(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAAS: &str = r##"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Acme — Customer feedback &amp; reviews for SaaS teams | Acme</title>
<meta name="description" content="Collect, manage and share   customer reviews.&#10;Acme turns happy customers into social proof.">
<meta property="og:title" content="Acme: Social proof on autopilot">
<meta property="og:description" content="Turn customer love into growth.">
<meta property="og:site_name" content="Acme">
<meta property="og:image" content="/static/og-card.png">
<meta property="og:logo" content="https://cdn.acme.io/brand/logo.svg">
<meta name="twitter:title" content="Acme on Twitter">
<meta name="application-name" content="Acme App">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#0b1020">
<meta name="theme-color" content="#4F46E5">
<meta name="msapplication-TileColor" content="#da532c">
<link rel="icon" type="image/x-icon" href="/favicon.ico">
<link rel="icon" type="image/png" sizes="32x32" href="/favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="/favicon-16x16.png">
<link rel="apple-touch-icon" sizes="180x180" href="/apple-touch-icon.png">
<link rel="mask-icon" href="/safari-pinned-tab.svg" color="#5bbad5">
<link rel="manifest" href="/site.webmanifest">
<script type="application/ld+json">
{"@context":"https://schema.org","@type":"Organization","name":"Acme Inc.","url":"https://acme.io",
 "logo":{"@type":"ImageObject","url":"https://acme.io/images/acme-logo.png","width":512}}
</script>
<style>
:root { --brand-hue: 243; --color-primary: #4f46e5; --color-primary-foreground: #fff; --accent: var(--pink, #ec4899); }
/* .btn { background: red } */
@media (min-width: 640px) { .btn-primary { background-color: var(--color-primary) !important; } }
.btn-primary:hover { background: #4338ca; }
body { background: #FAFAFA url(/bg.png) no-repeat; }
</style></head><body>
<header class="site-header"><a href="https://acme.io/"><img src="/img/acme-wordmark.svg" alt="Acme"></a>
<nav><a href="/pricing">Pricing</a></nav></header>
<main><h1>  Social proof,
 on autopilot </h1>
<section class="customer-logos"><img src="/logos/stripe.svg" alt="Stripe logo"></section>
<button style="background-color: rgb(79, 70, 229)">Start free</button></main>
<footer><img class="footer-logo" src="/img/acme-mono.png"></footer>
</body></html>"##;

    const SMALL: &str = r#"<html><head><title>Joe&#39;s Plumbing - Reliable plumbers in Springfield</title>
<link rel="shortcut icon" href="favicon.ico"></head>
<body><div class="top"><a href="/"><img src="images/joes.jpg" width="200"></a></div>
<p>Call us</p><img src="images/van.jpg"></body></html>"#;

    const GRAPH: &str = r#"<html><head><base href="https://static.shop.example/assets/">
<meta property="og:image" content="img/og.png">
<link rel="icon" href="//cdn.shop.example/fav.png" sizes="192x192 any">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"WebPage","@id":"https://shop.example/#webpage","name":"Home"},
 {"@type":"WebSite","@id":"https://shop.example/#website","name":"Example Shop",
  "publisher":{"@id":"https://shop.example/#organization"}},
 {"@type":["Organization","Brand"],"@id":"https://shop.example/#organization",
  "name":"Example Shop GmbH","logo":{"@id":"https://shop.example/#logo"}},
 {"@type":"ImageObject","@id":"https://shop.example/#logo","contentUrl":"/wp-content/uploads/logo.png"}]}</script>
<script type="application/ld+json">{ not json</script>
<style>:root{--background:0 0% 100%;--primary:222.2 47.4% 11.2%;--primary-foreground:210 40% 98%;
--bs-primary-rgb: 13, 110, 253; --tw-ring-color: #f00}.dark{--primary:210 40% 98%}</style>
</head><body><div role="banner"><svg><title>Menu</title><image xlink:href="/img/mark.png"/></svg></div>
</body></html>"#;

    /// Runs `f` on the left side of each `input => want` line; `-` means `None`.
    fn table(cases: &str, f: impl Fn(&str) -> Option<String>) {
        for line in cases.lines().filter(|l| l.contains(" => ")) {
            let (input, want) = line.split_once(" => ").unwrap();
            let want = Some(want.trim()).filter(|w| *w != "-");
            assert_eq!(f(input.trim()).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn resolves_urls() {
        table(
            "logo.png => https://example.com/a/b/logo.png
            ./logo.png => https://example.com/a/b/logo.png
            ../img/logo.png => https://example.com/a/img/logo.png
            ../../../../x => https://example.com/x
            /favicon.ico => https://example.com/favicon.ico
            //cdn.example.net/i.png => https://cdn.example.net/i.png
            ?page=2 => https://example.com/a/b/page.html?page=2
            #top => https://example.com/a/b/page.html?x=1
            HTTPS://CDN.X.com:443/a/./b/../c.png?q=1#z => https://cdn.x.com/a/c.png?q=1
            http://x.com:8080 => http://x.com:8080/
            /my logo é.png => https://example.com/my%20logo%20%C3%A9.png
            /a/b/.. => https://example.com/a/
            \\img\\x.png => https://example.com/img/x.png
            javascript:alert(1) => -
            data:image/png;base64,AAAA => -
            mailto:a@b.c => -
            https:// => -
            ftp://x/y => -",
            |href| resolve("https://Example.com/a/b/page.html?x=1#f", href),
        );
        let pairs = [
            (
                "https://example.com",
                "logo.svg",
                Some("https://example.com/logo.svg"),
            ),
            (
                "http://localhost:8080/app/",
                "x",
                Some("http://localhost:8080/app/x"),
            ),
            ("http://[::1]:81/a", "b", Some("http://[::1]:81/b")),
            ("https://example.com/", " \n ", None),
            ("not a url", "/x", None),
            ("ftp://example.com/", "/x", None),
        ];
        for (base, href, want) in pairs {
            assert_eq!(resolve(base, href).as_deref(), want, "{base} {href}");
        }
    }

    /// One `field: value` line per extracted value.
    fn dump(m: &PageMeta) -> String {
        let fields = [
            ("title", &m.title),
            ("description", &m.description),
            ("og_title", &m.og_title),
            ("og_description", &m.og_description),
            ("og_site_name", &m.og_site_name),
            ("og_image", &m.og_image),
            ("og_logo", &m.og_logo),
            ("twitter_title", &m.twitter_title),
            ("twitter_description", &m.twitter_description),
            ("application_name", &m.application_name),
            ("theme_color", &m.theme_color),
            ("tile_color", &m.tile_color),
            ("manifest_url", &m.manifest_url),
            ("jsonld_logo", &m.jsonld_logo),
            ("jsonld_name", &m.jsonld_name),
            ("h1", &m.h1),
        ];
        let mut lines: Vec<String> = fields
            .iter()
            .filter_map(|(k, v)| Some(format!("{k}: {}", v.as_ref()?)))
            .collect();
        for i in &m.icons {
            lines.push(format!(
                "icon: {} {} {:?} {:?}",
                i.rel, i.url, i.sizes, i.mime
            ));
        }
        lines.extend(m.header_logos.iter().map(|l| format!("logo: {l}")));
        lines.extend(m.css_colors.iter().map(|(k, c)| format!("css: {k} {c}")));
        lines.join("\n")
    }

    fn expect(html: &str, base: &str, want: &str) {
        let want: Vec<&str> = want
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(dump(&page_meta(html, base)), want.join("\n"));
    }

    #[test]
    fn reads_a_saas_landing_page() {
        expect(
            SAAS,
            "https://acme.io/",
            r##"
            title: Acme — Customer feedback & reviews for SaaS teams | Acme
            description: Collect, manage and share customer reviews. Acme turns happy customers into social proof.
            og_title: Acme: Social proof on autopilot
            og_description: Turn customer love into growth.
            og_site_name: Acme
            og_image: https://acme.io/static/og-card.png
            og_logo: https://cdn.acme.io/brand/logo.svg
            twitter_title: Acme on Twitter
            application_name: Acme App
            theme_color: #4f46e5
            tile_color: #da532c
            manifest_url: https://acme.io/site.webmanifest
            jsonld_logo: https://acme.io/images/acme-logo.png
            jsonld_name: Acme Inc.
            h1: Social proof, on autopilot
            icon: icon https://acme.io/favicon.ico None Some("image/x-icon")
            icon: icon https://acme.io/favicon-32x32.png Some((32, 32)) Some("image/png")
            icon: icon https://acme.io/favicon-16x16.png Some((16, 16)) Some("image/png")
            icon: apple-touch-icon https://acme.io/apple-touch-icon.png Some((180, 180)) None
            icon: mask-icon https://acme.io/safari-pinned-tab.svg None None
            logo: https://acme.io/img/acme-wordmark.svg
            logo: https://acme.io/img/acme-mono.png
            css: primary-var #4f46e5
            css: accent-var #ec4899
            css: button #4f46e5
            css: background #fafafa"##,
        );
    }

    #[test]
    fn reads_a_small_business_page() {
        expect(
            SMALL,
            "http://www.joesplumbing.com/index.html",
            "title: Joe's Plumbing - Reliable plumbers in Springfield
            icon: shortcut icon http://www.joesplumbing.com/favicon.ico None None
            logo: http://www.joesplumbing.com/images/joes.jpg",
        );
    }

    #[test]
    fn reads_json_ld_graphs_base_and_channel_variables() {
        // No title: an SVG <title> is not the page's; <base href> applies to relative URLs.
        expect(
            GRAPH,
            "https://shop.example/",
            "og_image: https://static.shop.example/assets/img/og.png
            jsonld_logo: https://static.shop.example/wp-content/uploads/logo.png
            jsonld_name: Example Shop GmbH
            icon: icon https://cdn.shop.example/fav.png Some((192, 192)) None
            logo: https://static.shop.example/img/mark.png
            css: primary-var #0f172a
            css: primary-var #0d6efd
            css: primary-var #f8fafc",
        );
        let arr = r#"<script type="application/ld+json">[{"@type":"WebSite","name":"Site"},
            {"@type":"http://schema.org/LocalBusiness","name":" Bob's  Bakery ","logo":["", "/logo.jpg"]}]</script>"#;
        expect(
            arr,
            "https://bob.example/menu/",
            "jsonld_logo: https://bob.example/logo.jpg
            jsonld_name: Bob's Bakery",
        );
    }

    #[test]
    fn reads_manifests() {
        let json = r##"{"name":"Acme Reviews","short_name":"Acme","theme_color":"#4F46E5","background_color":"white",
          "icons":[{"src":"icons/192.png","sizes":"192x192","type":"image/png"},
                   {"src":"/icons/512.png","sizes":"512x512","type":"image/png","purpose":"maskable"},
                   {"src":"javascript:x"},{"sizes":"1x1"},{"src":"icons/192.png"}]}"##;
        let m = web_manifest(json, "https://acme.io/static/site.webmanifest").unwrap();
        assert_eq!(m.name.as_deref(), Some("Acme Reviews"));
        assert_eq!(m.short_name.as_deref(), Some("Acme"));
        assert_eq!(m.theme_color.as_deref(), Some("#4f46e5"));
        assert_eq!(m.background_color.as_deref(), Some("#ffffff"));
        assert_eq!(m.icons.len(), 2);
        assert_eq!(m.icons[0].url, "https://acme.io/static/icons/192.png");
        assert_eq!(
            (m.icons[0].rel.as_str(), m.icons[0].sizes),
            ("manifest", Some((192, 192)))
        );
        assert_eq!(m.icons[1].url, "https://acme.io/icons/512.png");
        assert_eq!(m.icons[1].rel, "manifest maskable");
        assert_eq!(web_manifest("[]", "https://a.b/"), None);
        assert_eq!(web_manifest("<html>", "https://a.b/"), None);
        assert_eq!(
            web_manifest("\u{feff}{}", "https://a.b/"),
            Some(Manifest::default())
        );
    }

    #[test]
    fn parses_colors() {
        table(
            "#abc => #aabbcc
            #ABCDEF => #abcdef
            #11223344 => #112233
            #1234 => #112233
            #11223300 => -
            #12345 => -
            #ggg => -
            rgb(0,128,255) => #0080ff
            RGBA(0, 128, 255, 0.5) => #0080ff
            rgb(0 128 255 / 50%) => #0080ff
            rgb(100%, 0%, 0%) => #ff0000
            rgb(300,-5,0) => #ff0000
            rgba(0,0,0,0) => -
            rgb(1,2) => -
            rgb(NaN,0,0) => -
            hsl(120, 100%, 50%) => #00ff00
            hsl(240deg 100% 50%) => #0000ff
            hsl(0.5turn 100% 25%) => #008080
            hsla(-120, 100%, 50%, 1) => #0000ff
            hsl(0, 0%, 100%) => #ffffff
            Navy !important => #000080
            white => #ffffff
            grey => #808080
            whitesmoke => #f5f5f5
            transparent => -
            currentColor => -
            # => -
            rgb( => -
            hsl(10,20%) => -",
            parse_color,
        );
        assert_eq!(parse_color(""), None);
    }

    fn fuzz_inputs() -> Vec<String> {
        let tokens: Vec<&str> = "<¦>¦</¦<a href=\"/\">¦<img src=¦\"¦'¦<header>¦<style>¦{¦}¦;¦--primary:¦var(--¦)¦(¦\
            <script type=application/ld+json>¦[¦]¦{\"@type\":¦\"Organization\"¦\"logo\":¦é¦日本¦🚀¦\
            <meta name=theme-color content=¦#¦rgb(¦/*¦*/¦<link rel=icon href=¦//¦../¦?¦:¦@graph¦x¦ ¦\n¦\
            <svg><image href=¦<title>¦!important¦body{background:¦.btn{background:¦%"
            .split('¦')
            .collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut out = vec![String::new(), "[".repeat(5000), "{\"a\":".repeat(3000)];
        for _ in 0..300 {
            let mut s = String::new();
            for _ in 0..(seed % 60) {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                s.push_str(tokens[(seed >> 33) as usize % tokens.len()]);
            }
            seed = seed.wrapping_add(7);
            out.push(s);
        }
        out
    }

    #[test]
    fn never_panics() {
        for input in fuzz_inputs() {
            let _ = page_meta(&input, "https://example.com/");
            let _ = page_meta(&input, &input);
            let _ = web_manifest(&input, "https://example.com/m.json");
            let _ = parse_color(&input);
            let _ = resolve("https://example.com/a/", &input);
            let _ = resolve(&input, "x");
            let _ = css_colors(&css_rules(&input));
        }
    }
}
