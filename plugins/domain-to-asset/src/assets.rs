//! Ranking of favicon candidates (by declared size to fetch, by real size to pick)
//! and brand colour selection, its widget colours from [`crate::color`].
//!
//! Pure logic over [`crate::site`] metadata: no I/O, and no panics on any input.

use crate::color::{chroma, luminance, rgb, to_hex, widget_colors};
use crate::sniff::sniff_image;
use crate::webpage::{Icon, PageMeta, WebAppManifest};
use gleaner_sdk::image_size::image_size;

/// Ranked assets of a site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assets {
    /// Favicon URLs in the order to fetch them; the site's [`PROBED_ICONS`] are always
    /// among them.
    pub favicon_candidates: Vec<String>,
    /// Widget background colour (`#rrggbb`), when a brand colour was found.
    pub background: Option<String>,
    /// Widget button colour (`#rrggbb`), at least 3:1 against `background`.
    pub button: Option<String>,
    /// Where the brand colour came from: `"theme-color"`, `"manifest"`, `"tile-color"`
    /// (`msapplication-TileColor`), `"css"` or `"none"`.
    pub color_source: &'static str,
}

fn path_of(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.to_ascii_lowercase()
}

fn is_svg_icon(icon: &Icon) -> bool {
    icon.mime.as_deref().is_some_and(|m| m.contains("svg")) || path_of(&icon.url).ends_with(".svg")
}

/// The larger dimension from a file name such as `favicon-32x32.png`.
fn size_in_name(url: &str) -> Option<u32> {
    let path = path_of(url);
    let name = path.rsplit('/').next()?;
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|part| {
            let (w, h) = part.split_once('x')?;
            Some(w.parse::<u32>().ok()?.max(h.parse().ok()?))
        })
        .max()
}

/// The icon's size in pixels: declared, from its name, 512 for SVG, 180 for Apple
/// touch icons, else 32.
fn icon_size(icon: &Icon) -> u32 {
    if let Some((w, h)) = icon.sizes {
        return w.max(h).min(4096);
    }
    if is_svg_icon(icon) {
        return 512;
    }
    size_in_name(&icon.url).map(|n| n.min(4096)).unwrap_or(
        if icon.rel.contains("apple-touch-icon") {
            180
        } else {
            32
        },
    )
}

/// Favicon score: size weighted by format (PNG/SVG/WebP 4, other 3, ICO 2); mask icons
/// (monochrome) and monochrome manifest icons score lowest.
fn favicon_score(icon: &Icon) -> u64 {
    if icon
        .rel
        .split(' ')
        .any(|r| r == "mask-icon" || r == "monochrome")
    {
        return 0;
    }
    let mime = icon.mime.clone().unwrap_or_default();
    let path = path_of(&icon.url);
    let is = |ext: &str, m: &str| path.ends_with(ext) || mime.contains(m);
    let weight = if is_svg_icon(icon) || is(".png", "png") || is(".webp", "webp") {
        4
    } else if is(".ico", "icon") {
        2
    } else {
        3
    };
    u64::from(icon_size(icon)) * weight + 1
}

fn push_unique(list: &mut Vec<String>, url: Option<String>) {
    if let Some(url) = url {
        if !list.contains(&url) {
            list.push(url);
        }
    }
}

/// The icons every site may have without declaring them, at its root: Apple
/// touch icons and `/favicon.ico`, as browsers and besticon look for them.
pub const PROBED_ICONS: [&str; 3] = [
    "/apple-touch-icon.png",
    "/apple-touch-icon-precomposed.png",
    "/favicon.ico",
];

/// Whether an icon is a Safari pinned-tab mask or a monochrome manifest icon:
/// a one-colour silhouette, not a favicon.
fn is_mask(icon: &Icon) -> bool {
    icon.rel
        .split(' ')
        .any(|r| r == "mask-icon" || r == "monochrome")
}

/// The manifest's largest icon of at least 192px (SVG counts as large; not
/// monochrome), the manifest's stand-in for a logo.
pub fn manifest_logo(manifest: &WebAppManifest) -> Option<String> {
    manifest
        .icons
        .iter()
        .filter(|i| !i.rel.contains("monochrome") && (is_svg_icon(i) || icon_size(i) >= 192))
        .max_by_key(|i| (icon_size(i), i.rel == "manifest" || i.rel.contains("any")))
        .map(|i| i.url.clone())
}

/// Ranks favicon candidates and colours from a page's metadata and, when fetched, its
/// web app manifest.
///
/// Favicon candidates, in the order they are fetched: the page's icon links (largest
/// declared first, PNG/SVG before ICO), the site's [`PROBED_ICONS`], then manifest
/// icons (same order). Mask icons are not favicons and are left out. The winner is
/// chosen by real size once fetched ([`best_favicon`]). Colours, in order:
/// theme-color, manifest theme then background colour, tile colour, CSS (primary and
/// brand variables, buttons, accent variables); the first colourful one (chroma >= 0.15)
/// wins, failing that the first one that is not near-white (e.g. black), else none. The
/// widget pair comes from [`widget_colors`] with the manifest background colour or the
/// page background as the background hint.
pub fn rank(meta: &PageMeta, manifest: Option<&WebAppManifest>, base_url: &str) -> Assets {
    let by_score = |icons: &[Icon]| {
        let mut icons: Vec<&Icon> = icons.iter().filter(|i| !is_mask(i)).collect();
        icons.sort_by_key(|i| std::cmp::Reverse(favicon_score(i)));
        icons.into_iter().map(|i| i.url.clone()).collect::<Vec<_>>()
    };
    let manifest_icons = manifest.map(|m| m.icons.as_slice()).unwrap_or_default();
    let mut favicons = Vec::new();
    for url in by_score(&meta.icons) {
        push_unique(&mut favicons, Some(url));
    }
    for path in PROBED_ICONS {
        push_unique(&mut favicons, crate::webpage::resolve(base_url, path));
    }
    for url in by_score(manifest_icons) {
        push_unique(&mut favicons, Some(url));
    }

    let mut colors: Vec<(&'static str, &str)> = Vec::new();
    colors.extend(meta.theme_color.as_deref().map(|c| ("theme-color", c)));
    if let Some(m) = manifest {
        colors.extend(m.theme_color.as_deref().map(|c| ("manifest", c)));
        colors.extend(m.background_color.as_deref().map(|c| ("manifest", c)));
    }
    colors.extend(meta.tile_color.as_deref().map(|c| ("tile-color", c)));
    for label in ["primary-var", "brand-var", "button", "accent-var"] {
        let css = meta.css_colors.iter().filter(|(l, _)| l == label);
        colors.extend(css.map(|(_, c)| ("css", c.as_str())));
    }
    let parsed: Vec<(&'static str, [f64; 3])> = colors
        .iter()
        .filter_map(|(s, c)| Some((*s, rgb(c)?)))
        .collect();
    let brand = parsed
        .iter()
        .find(|(_, c)| chroma(*c) >= 0.15)
        .or_else(|| parsed.iter().find(|(_, c)| luminance(*c) < 0.85));

    let background_hint = manifest
        .and_then(|m| m.background_color.clone())
        .or_else(|| {
            meta.css_colors
                .iter()
                .find(|(l, _)| l == "background")
                .map(|(_, c)| c.clone())
        });
    let (background, button, color_source) = match brand {
        Some((source, color)) => {
            let brand = to_hex(*color);
            let hint = background_hint.filter(|h| *h != brand);
            let (bg, button) = widget_colors(&brand, hint.as_deref());
            (Some(bg), Some(button), *source)
        }
        None => (None, None, "none"),
    };
    Assets {
        favicon_candidates: favicons,
        background,
        button,
        color_source,
    }
}

/// A favicon candidate after fetching it.
#[derive(Debug, Clone, Copy)]
pub struct Fetched<'a> {
    /// The URL asked for.
    pub url: &'a str,
    /// The URL that answered, after redirects.
    pub final_url: &'a str,
    /// The final status.
    pub status: u16,
    /// The body.
    pub body: &'a [u8],
}

/// The side an SVG icon counts as when ranking: it is drawn at any size.
const SVG_SIDE: u32 = 512;

/// The real size of a fetched favicon (its larger side in pixels; an SVG counts as
/// 512), or `None` when it is not a usable favicon: not 2xx, redirected elsewhere,
/// not an image by its bytes, of unknown size, or a 1-pixel image.
pub fn favicon_size(f: &Fetched<'_>) -> Option<u32> {
    if !(200..300).contains(&f.status) || f.final_url != f.url {
        return None;
    }
    sniff_image(f.body)?;
    let size = image_size(f.body)?;
    (!size.is_pixel()).then(|| size.largest_side(SVG_SIDE))
}

/// The largest usable favicon by real size ([`favicon_size`]); the first fetched wins
/// a tie.
pub fn best_favicon(fetched: &[Fetched<'_>]) -> Option<String> {
    let mut best: Option<(u32, &str)> = None;
    for f in fetched {
        if let Some(size) = favicon_size(f) {
            if best.is_none_or(|(b, _)| size > b) {
                best = Some((size, f.url));
            }
        }
    }
    best.map(|(_, url)| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::{contrast, dominant_color};
    use crate::webpage::{page_meta, web_manifest};

    const SAAS: &str = r##"<html><head><title>Acme</title>
<meta property="og:image" content="/og.png"><meta property="og:logo" content="https://cdn.acme.io/logo.svg">
<meta name="theme-color" content="#4F46E5">
<link rel="icon" type="image/x-icon" href="/favicon.ico">
<link rel="icon" type="image/png" sizes="32x32" href="/favicon-32x32.png">
<link rel="icon" type="image/png" href="/favicon-16x16.png">
<link rel="apple-touch-icon" href="/apple-touch-icon.png">
<link rel="mask-icon" href="/safari-pinned-tab.svg" color="#5bbad5">
<script type="application/ld+json">{"@type":"Organization","logo":{"@type":"ImageObject","url":"/images/logo.png"}}</script>
<style>:root{--color-primary:#0ea5e9}</style></head>
<body><header><a href="/"><img src="/img/wordmark.svg" alt="Acme"></a></header></body></html>"##;

    const MANIFEST: &str = r##"{"name":"Acme","theme_color":"#ffffff","background_color":"#ffffff","icons":[
        {"src":"/icons/192.png","sizes":"192x192","type":"image/png"},
        {"src":"/icons/512.png","sizes":"512x512","type":"image/png","purpose":"maskable"},
        {"src":"/icons/96.png","sizes":"96x96","type":"image/png"}]}"##;

    fn urls(list: &[String]) -> Vec<&str> {
        list.iter()
            .map(|u| u.trim_start_matches("https://acme.io"))
            .collect()
    }

    #[test]
    fn ranks_a_saas_page() {
        let meta = page_meta(SAAS, "https://acme.io/");
        let manifest = web_manifest(MANIFEST, "https://acme.io/site.webmanifest").unwrap();
        let a = rank(&meta, Some(&manifest), "https://acme.io/pricing");
        assert_eq!(
            urls(&a.favicon_candidates),
            [
                "/apple-touch-icon.png",
                "/favicon-32x32.png",
                "/favicon.ico",
                "/favicon-16x16.png",
                "/apple-touch-icon-precomposed.png",
                "/icons/512.png",
                "/icons/192.png",
                "/icons/96.png",
            ]
        );
        assert_eq!(a.color_source, "theme-color");
        assert_eq!(
            (a.background.as_deref(), a.button.as_deref()),
            (Some("#ffffff"), Some("#4f46e5"))
        );

        let no_manifest = rank(&meta, None, "https://acme.io/");
        assert_eq!(no_manifest.favicon_candidates.len(), 5);
    }

    #[test]
    fn ranks_a_small_business_page() {
        let html = r#"<title>Joe's</title><link rel="shortcut icon" href="/img/fav.ico">
            <div><a href="/"><img src="images/joes.jpg"></a></div>"#;
        let meta = page_meta(html, "http://joes.example/about/");
        let a = rank(&meta, None, "http://joes.example/about/");
        assert_eq!(
            a.favicon_candidates,
            [
                "http://joes.example/img/fav.ico",
                "http://joes.example/apple-touch-icon.png",
                "http://joes.example/apple-touch-icon-precomposed.png",
                "http://joes.example/favicon.ico"
            ]
        );
        assert_eq!(
            (a.background, a.button, a.color_source),
            (None, None, "none")
        );
        let empty = rank(&PageMeta::default(), None, "https://x.example/a/b");
        assert_eq!(
            empty.favicon_candidates,
            [
                "https://x.example/apple-touch-icon.png",
                "https://x.example/apple-touch-icon-precomposed.png",
                "https://x.example/favicon.ico"
            ]
        );
        assert!(rank(&PageMeta::default(), None, "garbage")
            .favicon_candidates
            .is_empty());
    }

    fn png(side: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend(side.to_be_bytes());
        b.extend(side.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    fn ico(side: u8) -> Vec<u8> {
        let mut b = b"\0\0\x01\0\x01\0".to_vec();
        b.extend([side, side, 0, 0, 1, 0, 32, 0, 40, 0, 0, 0, 22, 0, 0, 0]);
        b
    }

    fn fetched<'a>(url: &'a str, body: &'a [u8]) -> Fetched<'a> {
        Fetched {
            url,
            final_url: url,
            status: 200,
            body,
        }
    }

    #[test]
    fn favicon_is_ranked_by_real_size_not_declared_sizes() {
        let html = r#"<link rel="apple-touch-icon" sizes="180x180" href="/touch.png">
            <link rel="icon" sizes="16x16" href="/small.png">"#;
        let meta = page_meta(html, "https://a.example/");
        let a = rank(&meta, None, "https://a.example/");
        assert_eq!(a.favicon_candidates[0], "https://a.example/touch.png");
        let (touch, small, ico48) = (png(16), png(64), ico(48));
        let got = best_favicon(&[
            fetched("https://a.example/touch.png", &touch),
            fetched("https://a.example/small.png", &small),
            fetched("https://a.example/favicon.ico", &ico48),
        ]);
        assert_eq!(got.as_deref(), Some("https://a.example/small.png"));
        let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\"></svg>";
        let got = best_favicon(&[
            fetched("https://a.example/favicon.ico", &ico48),
            fetched("https://a.example/icon.svg", svg),
        ]);
        assert_eq!(
            got.as_deref(),
            Some("https://a.example/icon.svg"),
            "SVG scales"
        );
        let tie = best_favicon(&[
            fetched("https://a.example/a.png", &small),
            fetched("https://a.example/b.png", &small),
        ]);
        assert_eq!(tie.as_deref(), Some("https://a.example/a.png"));
    }

    #[test]
    fn favicon_probes_apple_touch_icons_and_favicon_ico() {
        let meta = page_meta("<title>x</title>", "https://b.example/blog/post");
        let a = rank(&meta, None, "https://b.example/blog/post");
        let probed: Vec<String> = PROBED_ICONS
            .iter()
            .map(|p| format!("https://b.example{p}"))
            .collect();
        assert_eq!(a.favicon_candidates, probed);
    }

    #[test]
    fn mask_icon_is_not_a_favicon() {
        let html = r##"<link rel="mask-icon" href="/pinned.svg" color="#000">
            <link rel="icon" href="/favicon.png">"##;
        let meta = page_meta(html, "https://c.example/");
        let manifest = WebAppManifest {
            icons: vec![Icon {
                url: "https://c.example/mono.png".into(),
                rel: "manifest monochrome".into(),
                sizes: Some((512, 512)),
                mime: None,
            }],
            ..WebAppManifest::default()
        };
        let a = rank(&meta, Some(&manifest), "https://c.example/");
        assert!(!a
            .favicon_candidates
            .iter()
            .any(|u| u.contains("pinned") || u.contains("mono")));
        assert_eq!(a.favicon_candidates[0], "https://c.example/favicon.png");
    }

    #[test]
    fn redirected_and_one_pixel_favicons_are_discarded() {
        let (big, pixel, gif) = (png(32), png(1), b"GIF89a\x01\0\x01\0\x80\0\0".to_vec());
        let redirected = Fetched {
            url: "https://d.example/apple-touch-icon.png",
            final_url: "https://d.example/",
            status: 200,
            body: &big,
        };
        let missing = Fetched {
            status: 404,
            ..fetched("https://d.example/apple-touch-icon-precomposed.png", &big)
        };
        let html_page = fetched("https://d.example/icon", b"<!doctype html><html>");
        let got = best_favicon(&[
            redirected,
            missing,
            html_page,
            fetched("https://d.example/pixel.png", &pixel),
            fetched("https://d.example/spacer.gif", &gif),
            fetched("https://d.example/favicon.ico", &ico(16)),
        ]);
        assert_eq!(got.as_deref(), Some("https://d.example/favicon.ico"));
        assert_eq!(
            best_favicon(&[fetched("https://d.example/p.png", &pixel)]),
            None
        );
    }

    #[test]
    fn picks_colors_by_source() {
        let mut meta = page_meta(SAAS, "https://acme.io/");
        meta.theme_color = Some("#ffffff".into());
        let manifest = web_manifest(MANIFEST, "https://acme.io/m.json").unwrap();
        let a = rank(&meta, Some(&manifest), "https://acme.io/");
        assert_eq!(
            a.color_source, "css",
            "white theme and manifest colours are not brand colours"
        );
        let (bg, button) = (a.background.unwrap(), a.button.unwrap());
        assert_eq!(bg, "#ffffff");
        assert_ne!(
            button, "#0ea5e9",
            "sky-500 is under 3:1 on white and gets darkened"
        );
        assert!(contrast(&bg, &button) >= 3.0);

        let mut manifest = manifest;
        manifest.theme_color = Some("#16a34a".into());
        assert_eq!(
            rank(&meta, Some(&manifest), "https://acme.io/").color_source,
            "manifest"
        );
        meta.tile_color = Some("#da532c".into());
        manifest.theme_color = None;
        assert_eq!(
            rank(&meta, Some(&manifest), "https://acme.io/").color_source,
            "tile-color"
        );

        let yellow = PageMeta {
            theme_color: Some("#ffff00".into()),
            ..PageMeta::default()
        };
        let a = rank(&yellow, None, "https://y.example/");
        assert_eq!(a.color_source, "theme-color");
        assert!(
            contrast(
                a.background.as_deref().unwrap(),
                a.button.as_deref().unwrap()
            ) >= 3.0
        );
        let black = PageMeta {
            theme_color: Some("#000000".into()),
            ..PageMeta::default()
        };
        let a = rank(&black, None, "https://b.example/");
        assert_eq!(
            (a.color_source, a.button.as_deref()),
            ("theme-color", Some("#000000"))
        );
        let dark_page = PageMeta {
            css_colors: vec![
                ("background".into(), "#0a0a0a".into()),
                ("button".into(), "#7c3aed".into()),
            ],
            ..PageMeta::default()
        };
        let a = rank(&dark_page, None, "https://d.example/");
        assert_eq!(
            (a.color_source, a.background.as_deref()),
            ("css", Some("#0a0a0a"))
        );
        assert!(
            contrast(
                a.background.as_deref().unwrap(),
                a.button.as_deref().unwrap()
            ) >= 3.0
        );
    }

    #[test]
    fn never_panics() {
        let mut rng = fastrand::Rng::with_seed(42);
        for len in 0..400usize {
            let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            let text = String::from_utf8_lossy(&bytes);
            let _ = (
                sniff_image(&bytes),
                dominant_color(&bytes),
                contrast(&text, "#fff"),
            );
            let _ = widget_colors(&text, Some(&text));
            let icon = Icon {
                url: text.to_string(),
                rel: text.to_string(),
                sizes: Some((u32::MAX, 0)),
                mime: None,
            };
            let meta = PageMeta {
                icons: vec![icon.clone()],
                theme_color: Some(text.to_string()),
                ..PageMeta::default()
            };
            let manifest = WebAppManifest {
                icons: vec![icon],
                background_color: Some(text.to_string()),
                ..WebAppManifest::default()
            };
            let _ = rank(&meta, Some(&manifest), &text);
        }
    }
}
