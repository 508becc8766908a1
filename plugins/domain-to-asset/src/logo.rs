//! Logo candidates of a page, best first, with placeholders left out.
//!
//! A logo is marked as the organisation's (`og:logo`, `itemprop="logo"` in any
//! case, the JSON-LD organisation's `logo`) or is an image in the page header or in
//! the link to the home page (or named like a logo). Never a logo: `data:` URIs,
//! lazy-load stand-ins (the real image is read from `data-src`, `data-lazy-src`,
//! `srcset` and their kin), 1×1 and tracking pixels, and badges ("as seen on",
//! "featured in", award and review-site badges). `og:image` is the last resort on
//! a home page only: on an article it is the article's photo.
//!
//! Pure logic: no I/O, and no panics on any input.

use gleaner_sdk::html::{ElementRef, Html};
use gleaner_sdk::webpage::{resolve, PageMeta, WebAppManifest};

use crate::assets::manifest_logo;

/// Attributes lazy-loading scripts keep the real image in, most specific first.
const LAZY_SRC: [&str; 6] = [
    "data-src",
    "data-lazy-src",
    "data-original",
    "data-lazy",
    "data-url",
    "data-fallback-src",
];
const LAZY_SRCSET: [&str; 3] = ["data-srcset", "data-lazy-srcset", "srcset"];

/// Words of a URL that mark a spacer, a loading stand-in or a tracking pixel.
const PLACEHOLDER_WORDS: [&str; 12] = [
    "blank.",
    "spacer",
    "placeholder",
    "transparent.",
    "pixel.",
    "1x1",
    "lazy.",
    "loading.",
    "loader.",
    "clear.gif",
    "empty.",
    "grey.gif",
];
/// Hosts and paths of tracking pixels.
const TRACKERS: [&str; 8] = [
    "facebook.com/tr",
    "google-analytics.com",
    "doubleclick.net",
    "bat.bing.com",
    "scorecardresearch.com",
    "quantserve.com",
    "/pixel?",
    "/beacon",
];
/// Phrases next to a badge or a third party's logo ("as seen on" …).
const BADGE_TEXT: [&str; 8] = [
    "as seen",
    "seen on",
    "featured in",
    "featured on",
    "as featured",
    "trusted by",
    "award",
    "rated on",
];
/// Words of an image's own class, id, alt, title or file name that mark a badge.
const BADGE_OWN: [&str; 6] = [
    "badge",
    "as-seen",
    "featured",
    "trustpilot",
    "capterra",
    "g2-",
];
/// Words of the class or id of an area of other organisations' logos or badges.
const BADGE_AREA: [&str; 13] = [
    "badge",
    "as-seen",
    "seen-on",
    "featured",
    "award",
    "partner",
    "customer",
    "client",
    "trusted",
    "testimonial",
    "logos",
    "brands",
    "marquee",
];

/// Whether an image URL is a placeholder or tracking pixel rather than an image.
pub fn is_placeholder(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let name = lower.split(['?', '#']).next().unwrap_or_default();
    let file = name.rsplit('/').next().unwrap_or_default();
    lower.starts_with("data:")
        || PLACEHOLDER_WORDS.iter().any(|w| file.contains(w))
        || TRACKERS.iter().any(|t| lower.contains(t))
}

/// The URL of the largest candidate of a `srcset` (by its `w` or `x` descriptor;
/// the first on a tie).
fn srcset_best(srcset: &str) -> Option<&str> {
    let mut best: Option<(f64, &str)> = None;
    for item in srcset.split(", ").flat_map(|i| i.split(",\n")) {
        let mut parts = item.split_whitespace();
        let Some(url) = parts.next() else { continue };
        let size = parts
            .next()
            .and_then(|d| d.trim_end_matches(['w', 'x', 'W', 'X']).parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .unwrap_or(1.0);
        if best.is_none_or(|(b, _)| size > b) {
            best = Some((size, url.trim_end_matches(',')));
        }
    }
    best.map(|(_, u)| u)
}

/// The real image of an `<img>` (or SVG `<image>`): a lazy-load attribute first,
/// then `src` unless it is a placeholder, then `srcset`. `None` for 1×1 or hidden
/// images and when only placeholders are left.
pub fn image_url(el: ElementRef<'_>, base: &str) -> Option<String> {
    let tiny = |k: &str| {
        el.attr(k)
            .is_some_and(|v| matches!(v.trim().trim_end_matches("px"), "0" | "1"))
    };
    if tiny("width") || tiny("height") {
        return None;
    }
    let usable = |h: &str| resolve(base, h).filter(|u| !is_placeholder(u) && !is_placeholder(h));
    if el.value().name() == "image" {
        let href = el
            .value()
            .attrs()
            .find(|(k, _)| *k == "href" || k.ends_with(":href"))?;
        return usable(href.1);
    }
    LAZY_SRC
        .iter()
        .filter_map(|k| el.attr(k))
        .chain(el.attr("src"))
        .chain(
            LAZY_SRCSET
                .iter()
                .filter_map(|k| el.attr(k))
                .filter_map(srcset_best),
        )
        .find_map(usable)
}

fn ancestors<'a>(el: ElementRef<'a>) -> impl Iterator<Item = ElementRef<'a>> {
    el.ancestors().filter_map(ElementRef::wrap)
}

fn words_of(el: ElementRef<'_>, keys: &[&str]) -> String {
    keys.iter()
        .filter_map(|k| el.attr(k))
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// Whether an image is a badge or someone else's logo: its own class, id, alt, title
/// or file name, its near ancestors' class and id, or the short text of its
/// container (below the header).
fn is_badge(el: ElementRef<'_>) -> bool {
    let has = |s: &str, words: &[&str]| words.iter().any(|w| s.contains(w));
    let own = words_of(el, &["class", "id", "alt", "title"]);
    let file = el.attr("src").unwrap_or_default().to_ascii_lowercase();
    let file = file.rsplit('/').next().unwrap_or_default();
    if has(&own, &BADGE_OWN) || has(&own, &BADGE_TEXT) || has(file, &BADGE_OWN) {
        return true;
    }
    let near_text = ancestors(el)
        .take(2)
        .take_while(|a| !matches!(a.value().name(), "header" | "body" | "html"))
        .any(|a| {
            let text: String = a.text().collect::<Vec<_>>().join(" ");
            text.len() <= 300 && has(&text.to_lowercase(), &BADGE_TEXT)
        });
    near_text
        || ancestors(el)
            .take(4)
            .any(|a| has(&words_of(a, &["class", "id"]), &BADGE_AREA))
}

/// An image in the header or in a link to the home page (`homes`), or named like a
/// logo: `Some(true)` when both in such a place and named like a logo.
fn placed_like_logo(el: ElementRef<'_>, base: &str, homes: &[String]) -> Option<bool> {
    let named = |e: ElementRef<'_>, keys: &[&str]| words_of(e, keys).contains("logo");
    let in_header = ancestors(el).any(|a| {
        let name = a.value().name();
        name == "header"
            || a.attr("role") == Some("banner")
            || (name == "a"
                && a.attr("href")
                    .and_then(|h| resolve(base, h))
                    .is_some_and(|h| homes.contains(&h)))
    });
    let logo_like = named(el, &["class", "id", "alt", "src"])
        || ancestors(el).take(3).any(|a| named(a, &["class", "id"]));
    (in_header || logo_like).then_some(in_header && logo_like)
}

/// The URL an `itemprop="logo"` element gives: its `content`, `href` or image, or
/// the image or `url` inside it.
fn itemprop_logo(el: ElementRef<'_>, base: &str) -> Option<String> {
    match el.value().name() {
        "img" | "image" => return image_url(el, base),
        "meta" => return resolve(base, el.attr("content")?),
        "link" | "a" => return resolve(base, el.attr("href")?),
        _ => {}
    }
    el.descendent_elements()
        .skip(1)
        .find_map(|d| match d.value().name() {
            "img" | "image" => image_url(d, base),
            "meta" | "link"
                if d.attr("itemprop").is_some_and(|p| {
                    p.eq_ignore_ascii_case("url") || p.eq_ignore_ascii_case("contenturl")
                }) =>
            {
                resolve(base, d.attr("content").or_else(|| d.attr("href"))?)
            }
            _ => None,
        })
}

fn push(list: &mut Vec<String>, url: Option<String>) {
    if let Some(url) = url.filter(|u| !is_placeholder(u)) {
        if !list.contains(&url) {
            list.push(url);
        }
    }
}

/// Logo candidates of the page at `base` (its final URL), best first: `og:logo`,
/// `itemprop="logo"`, the JSON-LD organisation logo, header and home-link images
/// (those also named like a logo first), the manifest's largest icon, and `og:image`
/// when the page is the home page (`is_home`).
pub fn candidates(
    html: &str,
    base: &str,
    meta: &PageMeta,
    manifest: Option<&WebAppManifest>,
    is_home: bool,
) -> Vec<String> {
    let doc = Html::parse_document(html);
    let root = doc.root_element();
    let homes: Vec<String> = [resolve(base, "/")].into_iter().flatten().collect();
    let mut marked = Vec::new();
    let (mut named, mut placed) = (Vec::new(), Vec::new());
    for el in root.descendent_elements() {
        if el
            .attr("itemprop")
            .is_some_and(|p| p.split_whitespace().any(|t| t.eq_ignore_ascii_case("logo")))
        {
            push(&mut marked, itemprop_logo(el, base));
            continue;
        }
        if !matches!(el.value().name(), "img" | "image") || is_badge(el) {
            continue;
        }
        let Some(both) = placed_like_logo(el, base, &homes) else {
            continue;
        };
        let list = if both { &mut named } else { &mut placed };
        push(list, image_url(el, base));
    }
    let mut out = Vec::new();
    push(&mut out, meta.og_logo.clone());
    marked.into_iter().for_each(|u| push(&mut out, Some(u)));
    push(&mut out, meta.jsonld_logo.clone());
    named.into_iter().for_each(|u| push(&mut out, Some(u)));
    placed.into_iter().for_each(|u| push(&mut out, Some(u)));
    push(&mut out, manifest.and_then(manifest_logo));
    if is_home {
        push(&mut out, meta.og_image.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::webpage::page_meta;

    fn logos(html: &str, base: &str, home: bool) -> Vec<String> {
        let meta = page_meta(html, base);
        candidates(html, base, &meta, None, home)
    }

    #[test]
    fn logo_is_never_a_placeholder() {
        let html = r#"<html><head>
            <noscript><img height="1" width="1" src="https://www.facebook.com/tr?id=1&ev=PageView"></noscript></head>
            <body><header>
            <img src="/img/spacer.gif" class="logo">
            <a href="/"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/brand.svg" alt="Shop"></a>
            <img class="site-logo lazyload" src="/img/placeholder.png" data-lazy-srcset="/img/logo-1x.png 1x, /img/logo-2x.png 2x">
            <img src="https://stats.example.net/pixel?id=3" alt="">
            </header></body></html>"#;
        assert_eq!(
            logos(html, "https://shop.example/", true),
            [
                "https://shop.example/img/logo-2x.png",
                "https://shop.example/img/brand.svg"
            ]
        );
        assert!(is_placeholder("data:image/png;base64,AAAA"));
        assert!(is_placeholder("https://x.example/assets/blank.gif"));
        assert!(!is_placeholder("https://x.example/assets/logo.png"));
        assert!(!is_placeholder(
            "https://www.bluefin-analytics.com/brand/logo.svg"
        ));
    }

    #[test]
    fn logo_is_marked_or_placed_as_the_sites() {
        let html = r#"<html><head><meta property="og:image" content="/photos/storm.jpg"></head><body>
            <div ITEMPROP="Logo" itemscope itemtype="https://schema.org/ImageObject">
              <meta itemprop="url" content="/brand/mark.png"></div>
            <main><img src="/photos/storm.jpg" alt="The storm"></main></body></html>"#;
        assert_eq!(
            logos(html, "https://news.example/2024/storm", false),
            ["https://news.example/brand/mark.png"],
            "itemprop is matched in any case; og:image on an article is its photo"
        );
        assert_eq!(
            logos(html, "https://news.example/", true),
            [
                "https://news.example/brand/mark.png",
                "https://news.example/photos/storm.jpg"
            ]
        );
        let jsonld = r#"<script type="application/ld+json">{"@type":"Organization","logo":"/org.png"}</script>
            <header><a href="/"><img src="/header.png"></a></header>"#;
        assert_eq!(
            logos(jsonld, "https://a.example/x", false),
            ["https://a.example/org.png", "https://a.example/header.png"]
        );
    }

    #[test]
    fn badges_are_not_the_sites_logo() {
        let html = r#"<body><header><a href="/"><img src="/logo.svg" alt="Acme"></a></header>
            <section class="press"><p>As seen on</p><img src="/img/techcrunch-logo.png" alt="TechCrunch logo"></section>
            <div><span>Featured in</span><img class="logo" src="/img/forbes.png"></div>
            <footer><img src="/img/g2-badge-logo.svg" alt="G2 Leader badge"></footer></body>"#;
        assert_eq!(
            logos(html, "https://acme.example/", true),
            ["https://acme.example/logo.svg"]
        );
    }

    #[test]
    fn never_panics() {
        let mut rng = fastrand::Rng::with_seed(3);
        let pieces = [
            "<img ",
            "src=",
            "\"",
            "data-src=/a.png ",
            "srcset=\"a 2x, b",
            "<header>",
            "<a href=/>",
            "itemprop=logo ",
            ">",
            "<div ",
            "1x1",
            "</a>",
        ];
        for _ in 0..300 {
            let html: String = (0..20).map(|_| pieces[rng.usize(..pieces.len())]).collect();
            let _ = logos(&html, "https://r.example/", true);
            let _ = logos(&html, "garbage", false);
        }
    }
}
