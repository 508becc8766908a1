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
mod tests {
    use super::*;
    use crate::webpage::page_meta;

    const SAAS: &str = r#"<html><head>
<title>Acme — Customer feedback &amp; reviews for SaaS teams | Acme</title>
<meta name="description" content="Collect, manage and share customer reviews in one place. Acme turns happy customers into social proof with embeddable widgets, a wall of love and review imports from every major platform.">
<meta property="og:site_name" content="Acme"></head><body><h1>Social proof on autopilot</h1></body></html>"#;

    const SMALL: &str = "<title>Joe&#39;s Plumbing - Reliable plumbers in Springfield</title><h1>Plumbing done right</h1>";

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn cuts_at_word_boundaries() {
        assert_eq!(cut("Hello world foo", 11), "Hello world");
        assert_eq!(cut("Hello world foo", 10), "Hello");
        assert_eq!(cut("Hello, world", 8), "Hello");
        assert_eq!(cut("Acme | Reviews", 7), "Acme");
        assert_eq!(cut("Acme — the best - of all", 8), "Acme");
        assert_eq!(cut("Tools & more", 8), "Tools");
        assert_eq!(cut("Collect and share reviews", 12), "Collect");
        assert_eq!(cut("Proof in minutes, or at once", 14), "Proof");
        assert_eq!(cut("and more", 4), "and");
        assert_eq!(cut("  short \n text ", 60), "short text");
        assert_eq!(cut("ends with a pipe |", 60), "ends with a pipe |");
        assert_eq!(cut("Supercalifragilistic", 5), "");
        assert_eq!(cut("anything", 0), "");
        assert_eq!(cut("Café crème brûlée à la carte", 12), "Café crème");
        assert_eq!(cut("日本語のテキストです", 5), "日本語のテ");
        assert_eq!(cut("🚀 Launch faster today", 8), "🚀 Launch");
    }

    #[test]
    fn cut_respects_max_and_words() {
        let text =
            "Ünïcode wörds, with – dashes | pipes: colons, and 日本語 mixed-in 🚀 emoji text here";
        let collapsed = collapse(text);
        for max in 0..=chars(text) + 2 {
            let out = cut(text, max);
            assert!(chars(&out) <= max, "{max}: {out}");
            assert!(collapsed.starts_with(&out), "{max}: {out}");
            let next = collapsed[out.len()..].chars().next();
            let last = out.chars().last();
            let boundary = out.is_empty()
                || next
                    .is_none_or(|c| !c.is_alphanumeric() || is_cjk(c) || last.is_some_and(is_cjk));
            assert!(boundary, "mid-word at {max}: {out:?}");
            assert!(
                !out.ends_with(DANGLING) && out == out.trim(),
                "{max}: {out:?}"
            );
        }
    }

    #[test]
    fn finds_brands() {
        let meta = page_meta(SAAS, "https://acme.io/");
        assert_eq!(brand(&meta, None, "acme.io").as_deref(), Some("Acme"));
        let small = page_meta(SMALL, "https://joesplumbing.com/");
        assert_eq!(
            brand(&small, None, "www.joesplumbing.com").as_deref(),
            Some("Joe's Plumbing")
        );
        assert_eq!(
            brand(&small, Some("Joe's App"), "joesplumbing.com").as_deref(),
            Some("Joe's App")
        );
        let titled = |t: &str| PageMeta {
            title: Some(t.to_owned()),
            ..PageMeta::default()
        };
        assert_eq!(
            brand(&titled("Pricing – Zapp"), None, "example.com").as_deref(),
            Some("Zapp")
        );
        assert_eq!(
            brand(&titled("Home | Zed Editor"), None, "example.com").as_deref(),
            Some("Zed Editor")
        );
        assert_eq!(
            brand(&titled("Get started: GetAcme CRM"), None, "getacme.com").as_deref(),
            Some("GetAcme CRM")
        );
        assert_eq!(
            brand(&titled("Linear"), None, "linear.app").as_deref(),
            Some("Linear")
        );
        assert_eq!(
            brand(&titled("Welcome"), None, "https://www.shop-kit.co.uk/x").as_deref(),
            Some("Shop-kit")
        );
        let site_name = PageMeta {
            og_site_name: Some(" Home ".into()),
            jsonld_name: Some("Acme GmbH".into()),
            ..PageMeta::default()
        };
        assert_eq!(
            brand(&site_name, None, "acme.de").as_deref(),
            Some("Acme GmbH")
        );
        assert_eq!(brand(&PageMeta::default(), None, "127.0.0.1"), None);
        assert_eq!(brand(&PageMeta::default(), None, ""), None);
    }

    #[test]
    fn optimises_a_saas_site() {
        let seo = optimise(&page_meta(SAAS, "https://acme.io/"), None, None, "acme.io");
        assert_eq!(seo.brand.as_deref(), Some("Acme"));
        assert_eq!(seo.site_title, "Customer feedback & reviews for SaaS teams");
        assert!(chars(&seo.site_description) <= DESCRIPTION_MAX);
        assert!(seo
            .site_description
            .starts_with("Collect, manage and share customer reviews in one place."));
        assert_eq!(seo.wol_title, "Acme Reviews & Testimonials | Wall of Love");
        assert!(seo
            .wol_description
            .starts_with("See what customers say about Acme. Collect, manage"));
        assert!(chars(&seo.wol_description) <= DESCRIPTION_MAX);
        assert!(seo
            .source_description
            .unwrap()
            .ends_with("every major platform."));
        assert_eq!(
            seo.source_title.as_deref(),
            Some("Acme — Customer feedback & reviews for SaaS teams | Acme"),
            "the source text is kept beside the result"
        );
    }

    #[test]
    fn optimises_sparse_and_long_pages() {
        let seo = optimise(
            &page_meta(SMALL, "https://joesplumbing.com/"),
            None,
            None,
            "joesplumbing.com",
        );
        assert_eq!(seo.site_title, "Reliable plumbers in Springfield");
        assert_eq!(seo.site_description, "Joe's Plumbing: Plumbing done right");
        assert_eq!(seo.source_description, None);
        assert_eq!(
            seo.wol_title,
            "Joe's Plumbing Reviews & Testimonials | Wall of Love"
        );
        assert_eq!(
            seo.wol_description,
            "See what customers say about Joe's Plumbing. Plumbing done right"
        );

        let long = PageMeta {
            title: Some(
                "The all-in-one platform to collect, manage and publish testimonials - Acme".into(),
            ),
            og_site_name: Some("Acme".into()),
            ..PageMeta::default()
        };
        let seo = optimise(&long, None, None, "acme.io");
        assert_eq!(
            seo.site_title,
            "The all-in-one platform to collect, manage and publish"
        );
        let long = PageMeta {
            title: Some("Testimonials made simple and beautiful for teams | Acme | Home".into()),
            ..long
        };
        assert_eq!(
            optimise(&long, None, None, "acme.io").site_title,
            "Testimonials made simple and beautiful for teams"
        );

        let first = PageMeta {
            title: Some(
                "Acme | Collect testimonials and turn them into social proof in minutes".into(),
            ),
            ..long.clone()
        };
        let seo = optimise(&first, None, None, "acme.io");
        assert_eq!(
            seo.site_title,
            "Collect testimonials and turn them into social proof"
        );
        let b45 = "A".repeat(40) + " Corp";
        let seo = optimise(
            &PageMeta {
                og_site_name: Some(b45.clone()),
                ..PageMeta::default()
            },
            None,
            None,
            "",
        );
        assert_eq!(seo.wol_title, format!("{b45} Wall of Love"));
        assert_eq!(seo.site_title, b45);
        let b50 = "B".repeat(45) + " Corp";
        let seo = optimise(
            &PageMeta {
                og_site_name: Some(b50),
                ..PageMeta::default()
            },
            None,
            None,
            "",
        );
        assert_eq!(seo.wol_title, "Wall of Love");

        let seo = optimise(&PageMeta::default(), None, None, "");
        assert_eq!(
            (
                seo.brand,
                seo.site_title.as_str(),
                seo.site_description.as_str()
            ),
            (None, "", "")
        );
        assert_eq!(seo.wol_title, "Reviews & Testimonials | Wall of Love");
        assert_eq!(seo.wol_description, "See what customers say.");
        let dotted = PageMeta {
            og_site_name: Some("Acme Inc.".into()),
            ..PageMeta::default()
        };
        assert_eq!(
            optimise(&dotted, None, None, "").wol_description,
            "See what customers say about Acme Inc."
        );
    }

    #[test]
    fn title_prefers_og_title_and_strips_the_site_name() {
        let html = r#"<title>Why we rebuilt our search | The Acme Blog</title>
            <meta property="og:title" content="Why we rebuilt our search - Acme">
            <meta property="og:site_name" content="The Acme Blog">"#;
        let seo = optimise(
            &page_meta(html, "https://acme.io/blog/search"),
            None,
            None,
            "acme.io",
        );
        assert_eq!(seo.site_title, "Why we rebuilt our search");
        assert_eq!(
            seo.source_title.as_deref(),
            Some("Why we rebuilt our search - Acme")
        );
        let strip = |t: &str, names: &[&str]| {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            strip_site_name(t, &names)
        };
        assert_eq!(strip("Home | Zed Editor", &["Zed"]), "Home");
        assert_eq!(
            strip("NYTimes.com: Sanctions lifted", &["nytimes"]),
            "Sanctions lifted"
        );
        assert_eq!(
            strip(
                "Fetch API » Mozilla Hacks",
                &["Mozilla Hacks – the Web developer blog"]
            ),
            "Fetch API"
        );
        assert_eq!(
            strip("Acme: the story of a name", &["Unrelated"]),
            "Acme: the story of a name",
            "no part names the site: kept whole"
        );
        assert_eq!(
            strip("Acme", &["Acme"]),
            "Acme",
            "a title that is only the name stays"
        );
        let home = r#"<title>Acme | Customer reviews on autopilot</title>
            <meta property="og:title" content="Acme"><meta property="og:site_name" content="Acme">"#;
        let seo = optimise(&page_meta(home, "https://acme.io/"), None, None, "acme.io");
        assert_eq!(
            seo.site_title, "Customer reviews on autopilot",
            "an og:title that only names the site gives way to the title"
        );
    }

    #[test]
    fn description_prefers_og_description() {
        let html = r#"<meta name="description" content="Acme blog: news, tips and more.">
            <meta property="og:description" content="How we cut search latency by 80% with a new index.">"#;
        let seo = optimise(
            &page_meta(html, "https://acme.io/blog/search"),
            None,
            None,
            "acme.io",
        );
        assert_eq!(
            seo.site_description,
            "How we cut search latency by 80% with a new index."
        );
        assert_eq!(
            seo.source_description.as_deref(),
            Some(seo.site_description.as_str())
        );
    }

    #[test]
    fn brand_comes_from_the_home_page_when_the_page_differs() {
        let article = page_meta(
            "<title>Ten tips for better reviews | Tips</title>",
            "https://acme.io/blog/tips",
        );
        let home = page_meta(
            r#"<title>Acme</title><meta property="og:site_name" content="Acme Reviews">"#,
            "https://acme.io/",
        );
        let seo = optimise(&article, Some(&home), None, "acme.io");
        assert_eq!(seo.brand.as_deref(), Some("Acme Reviews"));
        assert_eq!(seo.site_title, "Ten tips for better reviews | Tips");
        assert_eq!(
            optimise(&article, None, None, "acme.io").brand.as_deref(),
            Some("Tips"),
            "without the home page the brand comes from the page"
        );
    }

    #[test]
    fn limits_hold_for_any_input() {
        let words = [
            "Acme",
            "|",
            "-",
            "—",
            ":",
            "reviews",
            "日本語",
            "🚀",
            "Supercalifragilisticexpialidocious",
            "&amp;",
            "",
            " ",
        ];
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..400 {
            let mut pick = |n: usize| {
                (0..rng.usize(..16) * n)
                    .map(|_| words[rng.usize(..words.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let meta = PageMeta {
                title: Some(pick(4)),
                description: Some(pick(8)),
                og_site_name: Some(pick(1)),
                h1: Some(pick(2)),
                ..PageMeta::default()
            };
            let domain = pick(1);
            let seo = optimise(&meta, None, Some(&domain), &domain);
            assert!(
                chars(&seo.site_title) <= TITLE_MAX && chars(&seo.wol_title) <= TITLE_MAX,
                "{seo:?}"
            );
            assert!(chars(&seo.site_description) <= DESCRIPTION_MAX, "{seo:?}");
            assert!(chars(&seo.wol_description) <= DESCRIPTION_MAX, "{seo:?}");
        }
    }
}
