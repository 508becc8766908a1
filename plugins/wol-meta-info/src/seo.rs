//! SEO titles and descriptions for a site and its wall-of-love (testimonials) page,
//! built only from the brand name and the site's own text.
//!
//! Pure logic over [`crate::site`] metadata: no I/O, and no panics on any input.

use crate::webpage::PageMeta;

/// Longest optimised title, in characters.
pub const TITLE_MAX: usize = 60;
/// Longest optimised description, in characters.
pub const DESCRIPTION_MAX: usize = 155;

/// Optimised titles and descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seo {
    /// The brand name, if any could be found.
    pub brand: Option<String>,
    /// The site's title, at most [`TITLE_MAX`] characters.
    pub site_title: String,
    /// The site's description, at most [`DESCRIPTION_MAX`] characters.
    pub site_description: String,
    /// The wall-of-love page title, at most [`TITLE_MAX`] characters.
    pub wol_title: String,
    /// The wall-of-love page description, at most [`DESCRIPTION_MAX`] characters.
    pub wol_description: String,
    /// The site's own title text the site title was made from.
    pub source_title: Option<String>,
    /// The site's own description text the site description was made from.
    pub source_description: Option<String>,
}

/// Title separators, most specific first.
const SEPARATORS: [&str; 11] = [
    " | ", " – ", " — ", " - ", ": ", " · ", " • ", " » ", " :: ", " / ", " ~ ",
];
/// Characters that must not end a cut text.
const DANGLING: &[char] = &[
    '|', '-', '–', '—', ':', ',', ';', '·', '•', '/', '&', '(', '[',
];
/// English words that must not end a cut text.
const DANGLING_WORDS: &str = "and or of in on at to for with from by the a an your our";
/// Title parts that are never a brand.
const GENERIC: &str = "home|homepage|home page|welcome|index|start|official site|official website|\
    blog|about|about us|contact|contact us|pricing|features|login|log in|sign in|sign up";

use gleaner_sdk::html::collapse_whitespace as collapse;

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

/// Cuts `text` to at most `max` characters (Unicode scalar values) at a word boundary
/// (whitespace, or between CJK characters), then removes dangling separators
/// (`| - – — : ,` and similar) and dangling English function words ("and", "of", …)
/// from the end (a text that is a single such word is kept). Nothing is added: no
/// ellipsis. Whitespace is collapsed; text already short enough is returned as is. A
/// first word longer than `max` gives an empty string rather than a split word.
pub fn cut(text: &str, max: usize) -> String {
    let text = collapse(text);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text;
    }
    let end = (1..=max)
        .rev()
        .find(|&i| chars[i].is_whitespace() || is_cjk(chars[i - 1]) || is_cjk(chars[i]))
        .unwrap_or(0);
    let mut out: String = chars[..end].iter().collect();
    loop {
        let trimmed = out.trim_end().trim_end_matches(DANGLING).trim_end();
        let last_word = trimmed.rsplit(' ').next().unwrap_or_default();
        let dangling = DANGLING_WORDS
            .split(' ')
            .any(|w| last_word.eq_ignore_ascii_case(w));
        let trimmed = if dangling && last_word.len() < trimmed.len() {
            &trimmed[..trimmed.len() - last_word.len()]
        } else {
            trimmed
        };
        if trimmed.len() == out.len() {
            return out;
        }
        out.truncate(trimmed.len());
    }
}

fn letters(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The host of `domain` (a bare domain or a URL) without `www.`, lower-cased.
fn host(domain: &str) -> String {
    let d = domain.trim();
    let d = d.split_once("://").map_or(d, |(_, rest)| rest);
    let d = d.split(['/', '?', '#']).next().unwrap_or_default();
    let d = d.rsplit('@').next().unwrap_or_default();
    let d = d
        .split(':')
        .next()
        .unwrap_or_default()
        .trim_end_matches('.');
    let d = d.to_lowercase();
    d.strip_prefix("www.").map(str::to_owned).unwrap_or(d)
}

/// The registrable label of a host: `acme` for `app.acme.co.uk`.
fn main_label(domain: &str) -> Option<String> {
    let host = host(domain);
    if host.is_empty() || host.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let n = labels.len();
    let second_level = [
        "co", "com", "org", "net", "ac", "gov", "edu", "ne", "or", "go",
    ];
    let label = if n >= 3 && labels[n - 1].len() == 2 && second_level.contains(&labels[n - 2]) {
        labels[n - 3]
    } else if n >= 2 {
        labels[n - 2]
    } else {
        labels.first()?
    };
    Some(label.to_owned())
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn split_title(title: &str) -> Vec<(&'static str, &str)> {
    let mut parts = Vec::new();
    let (mut rest, mut before) = (title, "");
    while let Some((i, sep)) = SEPARATORS
        .iter()
        .filter_map(|sep| Some((rest.find(sep)?, *sep)))
        .min()
    {
        parts.push((before, rest[..i].trim()));
        (rest, before) = (&rest[i + sep.len()..], sep);
    }
    parts.push((before, rest.trim()));
    parts.retain(|(_, p)| !p.is_empty());
    parts
}

fn plausible_brand(s: &str) -> Option<String> {
    let s = collapse(s);
    let generic = GENERIC.split('|').any(|g| g == s.to_lowercase());
    (!s.is_empty() && s.chars().count() <= 50 && !generic).then_some(s)
}

/// The brand from the title: the part (split at ` | `, ` - `, ` — `, ` – `, `: `, …) that
/// repeats the domain's label, else the shortest non-generic part; a whole title equal to
/// the label also counts.
fn title_brand(title: &str, label: &str) -> Option<String> {
    let label = letters(label);
    let parts: Vec<&str> = split_title(title).into_iter().map(|(_, p)| p).collect();
    if parts.len() < 2 {
        return (!label.is_empty() && letters(title) == label).then(|| collapse(title));
    }
    let contains = |p: &&str| {
        let l = letters(p);
        l.len() >= 3 && label.len() >= 3 && (label.contains(&l) || l.contains(&label))
    };
    let exact = parts
        .iter()
        .find(|p| !label.is_empty() && letters(p) == label);
    let pick = exact.or_else(|| parts.iter().find(|p| contains(p)));
    pick.copied().and_then(plausible_brand).or_else(|| {
        let mut candidates: Vec<String> = parts.iter().filter_map(|p| plausible_brand(p)).collect();
        candidates.sort_by_key(|p| p.chars().count());
        candidates.into_iter().next()
    })
}

/// The brand name: `og:site_name`, `application-name`, the JSON-LD name, the manifest name
/// (`manifest_name`), the title's part that repeats the domain (or its shortest part),
/// else the domain's main label capitalised (`acme.co.uk` gives `Acme`). Candidates that
/// are empty, generic ("Home") or over 50 characters are skipped.
pub fn brand(meta: &PageMeta, manifest_name: Option<&str>, domain: &str) -> Option<String> {
    let label = main_label(domain);
    [
        meta.og_site_name.as_deref(),
        meta.application_name.as_deref(),
        meta.jsonld_name.as_deref(),
        manifest_name,
    ]
    .into_iter()
    .flatten()
    .find_map(plausible_brand)
    .or_else(|| title_brand(meta.title.as_deref()?, label.as_deref().unwrap_or_default()))
    .or_else(|| {
        label
            .as_deref()
            .map(capitalise)
            .and_then(|l| plausible_brand(&l))
    })
}

/// Whether a title part names the site: equal to one of `names` (letters and digits
/// compared, case-folded), or one containing the other with at most a few letters
/// more (`NYTimes.com` for `NYTimes`, `Mozilla Hacks` for `Mozilla Hacks – the Web
/// developer blog`).
fn names_site(part: &str, names: &[String]) -> bool {
    let p = letters(part);
    names.iter().map(|n| letters(n)).any(|n| {
        !n.is_empty()
            && (p == n
                || (p.len() >= 4 && n.contains(&p) && p.len() * 3 >= n.len())
                || (n.len() >= 3 && p.contains(&n) && p.len() <= n.len() + 6))
    })
}

/// A title without the site's name: a first or last part (split at ` | `, ` - `,
/// ` — `, ` – `, `: `, ` · `, ` » ` …) naming the site ([`names_site`]) or generic
/// ("Home", "Welcome") is removed, from both ends, as long as another part is left. A title with no such part is
/// returned as is.
pub fn strip_site_name(title: &str, names: &[String]) -> String {
    let title = collapse(title);
    let mut parts = split_title(&title);
    let generic = |p: &str| GENERIC.split('|').any(|g| g == p.to_lowercase());
    let site = |p: &str| names_site(p, names) || generic(p);
    while parts.len() >= 2 && parts.last().is_some_and(|(_, p)| site(p)) {
        parts.pop();
    }
    while parts.len() >= 2 && site(parts[0].1) {
        parts.remove(0);
    }
    let mut out = String::new();
    for (i, (sep, part)) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(part);
    }
    if out.is_empty() {
        title
    } else {
        out
    }
}

/// Fits a title into [`TITLE_MAX`]: as is; else its main part with the brand part
/// (`Main | Brand`); else the main part; else cut.
fn fit_title(title: &str, brand: Option<&str>) -> String {
    let title = collapse(title);
    if title.chars().count() <= TITLE_MAX {
        return title;
    }
    let parts = split_title(&title);
    let brand_key = brand.map(letters).unwrap_or_default();
    let is_brand = |p: &str| !brand_key.is_empty() && letters(p) == brand_key;
    let main = parts.iter().position(|(_, p)| !is_brand(p));
    match main {
        Some(m) if parts.len() >= 2 => {
            let main = parts[m].1;
            let brand_at = parts.iter().position(|(_, p)| is_brand(p));
            let joined = brand_at.map(|b| {
                if b < m {
                    format!("{}{}{main}", parts[b].1, parts[m].0)
                } else {
                    format!("{main}{}{}", parts[b].0, parts[b].1)
                }
            });
            let fits = |s: &&String| s.chars().count() <= TITLE_MAX;
            let fitting = joined.iter().chain([&main.to_owned()]).find(fits).cloned();
            fitting.unwrap_or_else(|| match (brand_at, joined) {
                // A leading brand survives cutting the joined form; a trailing one would not.
                (Some(b), Some(joined)) if b < m => cut(&joined, TITLE_MAX),
                _ => cut(main, TITLE_MAX),
            })
        }
        _ => cut(&title, TITLE_MAX),
    }
}

/// Optimised titles (at most [`TITLE_MAX`] characters) and descriptions (at most
/// [`DESCRIPTION_MAX`]) for the page `meta` and its site's wall-of-love page.
///
/// The brand comes from the home page (`home`, when the page read is not the home
/// page and the home page could be read), else from the page. The site title comes
/// from `og:title` unless it is only the site's name (else the page title,
/// `twitter:title`, the h1, the brand) without the site's name
/// ([`strip_site_name`]: the brand, `og:site_name`, `application-name`, the JSON-LD
/// and manifest names, the domain's label); the site
/// description from `og:description` (else the meta description, the Twitter
/// description, else "Brand: h1"). The wall-of-love title is the first form of "Brand
/// Reviews & Testimonials | Wall of Love", "Brand Reviews & Testimonials", "Brand Wall
/// of Love", "Wall of Love" that fits; its description is "See what customers say
/// about Brand." followed by the site's description, cut to fit. Nothing but the
/// brand and the site's own text is used.
pub fn optimise(
    meta: &PageMeta,
    home: Option<&PageMeta>,
    manifest_name: Option<&str>,
    domain: &str,
) -> Seo {
    let brand = home
        .and_then(|h| brand(h, manifest_name, domain))
        .or_else(|| brand(meta, manifest_name, domain));
    let brand_ref = brand.as_deref();
    let first = |fields: &[&Option<String>]| {
        fields
            .iter()
            .filter_map(|f| f.as_deref())
            .map(collapse)
            .find(|s| !s.is_empty())
    };
    let mut names: Vec<String> = [meta, home.unwrap_or(meta)]
        .iter()
        .flat_map(|m| {
            [&m.og_site_name, &m.application_name, &m.jsonld_name]
                .into_iter()
                .flatten()
                .cloned()
        })
        .chain(brand.clone())
        .chain(manifest_name.map(str::to_owned))
        .chain(main_label(domain))
        .collect();
    names.dedup();
    // An `og:title` that is only the site's name (common on home pages) says less
    // than the page title.
    let og_title = meta
        .og_title
        .clone()
        .filter(|t| !names_site(t, &names) || meta.title.is_none());
    let source_title = first(&[&og_title, &meta.title, &meta.twitter_title, &meta.h1]);
    let mut site_title = source_title
        .as_deref()
        .map(|t| fit_title(&strip_site_name(t, &names), None))
        .unwrap_or_default();
    if site_title.is_empty() {
        site_title = brand_ref.map(|b| cut(b, TITLE_MAX)).unwrap_or_default();
    }

    let source_description = first(&[
        &meta.og_description,
        &meta.description,
        &meta.twitter_description,
    ]);
    let h1 = meta.h1.as_deref().map(collapse).filter(|h| !h.is_empty());
    let body = source_description
        .clone()
        .or_else(|| h1.clone())
        .unwrap_or_default();
    let site_description = match (&source_description, &h1, brand_ref) {
        (Some(d), _, _) => cut(d, DESCRIPTION_MAX),
        (None, Some(h), Some(b)) if !letters(h).contains(&letters(b)) => {
            cut(&format!("{b}: {h}"), DESCRIPTION_MAX)
        }
        (None, Some(h), _) => cut(h, DESCRIPTION_MAX),
        (None, None, b) => cut(b.unwrap_or_default(), DESCRIPTION_MAX),
    };

    let wol_title = match brand_ref {
        Some(b) => [
            format!("{b} Reviews & Testimonials | Wall of Love"),
            format!("{b} Reviews & Testimonials"),
            format!("{b} Wall of Love"),
        ]
        .into_iter()
        .find(|t| t.chars().count() <= TITLE_MAX)
        .unwrap_or_else(|| "Wall of Love".to_owned()),
        None => "Reviews & Testimonials | Wall of Love".to_owned(),
    };
    let intro = match brand_ref {
        Some(b) if b.ends_with(['.', '!', '?']) => format!("See what customers say about {b}"),
        Some(b) => format!("See what customers say about {b}."),
        None => "See what customers say.".to_owned(),
    };
    let mut wol_description = cut(&format!("{intro} {body}"), DESCRIPTION_MAX);
    if wol_description.is_empty() {
        wol_description = cut("See what customers say.", DESCRIPTION_MAX);
    }
    Seo {
        brand,
        site_title,
        site_description,
        wol_title,
        wol_description,
        source_title,
        source_description,
    }
}

#[cfg(test)]
mod tests;
