//! Ranking of favicon candidates (by declared size to fetch, by real size to pick),
//! brand colour selection and widget colours with a guaranteed contrast, plus image
//! sniffing and a dominant-colour fallback.
//!
//! Pure logic over [`crate::site`] metadata: no I/O, and no panics on any input.

use crate::webpage::{parse_color, Icon, PageMeta, WebAppManifest};
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

/// The minimum contrast between the widget button and its background.
const MIN_CONTRAST: f64 = 3.0;

fn rgb(color: &str) -> Option<[f64; 3]> {
    let hex = parse_color(color)?;
    let channel = |i: usize| {
        u8::from_str_radix(hex.get(i..i + 2)?, 16)
            .ok()
            .map(f64::from)
    };
    Some([channel(1)?, channel(3)?, channel(5)?])
}

fn to_hex([r, g, b]: [f64; 3]) -> String {
    let c = |v: f64| v.clamp(0.0, 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
}

/// WCAG 2 relative luminance of an sRGB colour.
fn luminance(c: [f64; 3]) -> f64 {
    let lin = |v: f64| {
        let v = v / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
}

fn ratio(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// WCAG 2 contrast ratio (1 to 21) of two colours (anything [`parse_color`] accepts);
/// 1.0 when either cannot be parsed.
pub fn contrast(a: &str, b: &str) -> f64 {
    match (rgb(a), rgb(b)) {
        (Some(a), Some(b)) => ratio(a, b),
        _ => 1.0,
    }
}

/// Chroma (0 to 1): the spread between the strongest and weakest channel. Unlike HSL
/// saturation it stays low for near-white tints and near-black shades.
fn chroma(c: [f64; 3]) -> f64 {
    (c[0].max(c[1]).max(c[2]) - c[0].min(c[1]).min(c[2])) / 255.0
}

/// Picks the widget `(background, button)` colours, both `#rrggbb`.
///
/// The background is `background` when it parses and is clearly light (relative
/// luminance >= 0.7) or clearly dark (<= 0.03), else white. The button starts as the
/// brand colour (black if `brand` does not parse); while its contrast against the
/// background is under 3:1 it is mixed towards black (light backgrounds) or white (dark
/// backgrounds) in steps of 5%. Pure black or white reaches at least 4.5:1 against such a
/// background, so the result is always at least 3:1.
pub fn widget_colors(brand: &str, background: Option<&str>) -> (String, String) {
    let white = [255.0; 3];
    let bg = background
        .and_then(rgb)
        .filter(|c| {
            let l = luminance(*c);
            l >= 0.7 || l <= 0.03
        })
        .unwrap_or(white);
    let start = rgb(brand).unwrap_or([0.0; 3]);
    let target = if luminance(bg) > 0.179 {
        [0.0; 3]
    } else {
        white
    };
    let mut button = to_hex(start);
    for step in 0..=20 {
        let t = f64::from(step) / 20.0;
        let mixed = [0, 1, 2].map(|i| start[i] + (target[i] - start[i]) * t);
        button = to_hex(mixed);
        if rgb(&button).is_some_and(|b| ratio(b, bg) >= MIN_CONTRAST) {
            break;
        }
    }
    (to_hex(bg), button)
}

/// The dominant colour of decoded RGBA pixels (4 bytes each; a trailing partial pixel is
/// ignored): transparent (alpha < 128), near-white (all channels >= 240) and near-black
/// (all <= 16) pixels are skipped, the rest are quantised to 4 bits per channel and the
/// average of the most frequent bucket is returned. `None` when nothing is left.
pub fn dominant_color(rgba: &[u8]) -> Option<String> {
    let mut buckets = vec![(0u64, [0u64; 3]); 4096];
    for px in rgba.chunks_exact(4) {
        let (r, g, b, a) = (px[0], px[1], px[2], px[3]);
        if a < 128 || (r >= 240 && g >= 240 && b >= 240) || (r <= 16 && g <= 16 && b <= 16) {
            continue;
        }
        let bucket =
            &mut buckets[usize::from(r >> 4) << 8 | usize::from(g >> 4) << 4 | usize::from(b >> 4)];
        bucket.0 += 1;
        for (sum, v) in bucket.1.iter_mut().zip([r, g, b]) {
            *sum += u64::from(v);
        }
    }
    let (count, sums) = buckets
        .iter()
        .rev()
        .max_by_key(|(count, _)| *count)
        .filter(|(count, _)| *count > 0)?;
    Some(to_hex(sums.map(|s| s as f64 / *count as f64)))
}

/// The MIME type of image bytes by magic number: PNG, JPEG, GIF, WebP, ICO, BMP, or SVG
/// (text whose first element, after an optional BOM, XML declaration, comments and
/// doctype, is `<svg`). `None` for anything else, including HTML.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if starts(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        Some("image/gif")
    } else if starts(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if starts(b"\0\0\x01\0") && bytes.get(4..6).is_some_and(|n| n != [0, 0]) {
        Some("image/x-icon")
    } else if starts(b"BM") && bytes.len() >= 26 && bytes[6..10] == [0; 4] {
        Some("image/bmp")
    } else if is_svg(bytes) {
        Some("image/svg+xml")
    } else {
        None
    }
}

fn is_svg(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    let mut rest = head.trim_start_matches('\u{feff}').trim_start();
    loop {
        let skip = if rest.starts_with("<?") {
            rest.find("?>").map(|i| i + 2)
        } else if rest.starts_with("<!--") {
            rest.find("-->").map(|i| i + 3)
        } else if rest
            .get(..9)
            .is_some_and(|d| d.eq_ignore_ascii_case("<!doctype"))
        {
            let end = if rest.contains('[') {
                rest.find("]>").map(|i| i + 1)
            } else {
                rest.find('>')
            };
            end.map(|i| i + 1)
        } else {
            return rest.starts_with("<svg")
                && rest[4..].starts_with([' ', '>', '\n', '\r', '\t', '/']);
        };
        match skip {
            Some(i) => rest = rest[i..].trim_start(),
            None => return false,
        }
    }
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
    fn computes_contrast() {
        assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!((contrast("#ffffff", "black") - 21.0).abs() < 1e-9);
        assert!((contrast("#777", "#777777") - 1.0).abs() < 1e-9);
        assert!((contrast("#767676", "#ffffff") - 4.54).abs() < 0.01);
        assert_eq!(contrast("nope", "#fff"), 1.0);
    }

    #[test]
    fn widget_colors_always_reach_three_to_one() {
        let brands = [
            "#ffff00",
            "#d3d3d3",
            "#ffffff",
            "#000080",
            "#000000",
            "#ff0000",
            "#00ff00",
            "#0ea5e9",
            "#777777",
            "#f0f0f0",
            "not-a-colour",
            "",
        ];
        let backgrounds = [
            None,
            Some("#ffffff"),
            Some("#000000"),
            Some("#111827"),
            Some("#ff0000"),
            Some("#fafafa"),
            Some("garbage"),
            Some("#808080"),
        ];
        let check = |brand: &str, bg: Option<&str>| {
            let (b, button) = widget_colors(brand, bg);
            assert!(
                parse_color(&b) == Some(b.clone()) && parse_color(&button) == Some(button.clone())
            );
            assert!(
                contrast(&b, &button) >= 3.0,
                "{brand} on {bg:?}: {button} on {b}"
            );
        };
        for brand in brands {
            for bg in backgrounds {
                check(brand, bg);
            }
        }
        for r in (0..=255).step_by(17) {
            for g in (0..=255).step_by(17) {
                for b in (0..=255).step_by(51) {
                    let c = format!("#{r:02x}{g:02x}{b:02x}");
                    check(&c, None);
                    check(&c, Some("#000000"));
                    check(&c, Some(&c));
                }
            }
        }
        assert_eq!(
            widget_colors("#000080", None),
            ("#ffffff".into(), "#000080".into())
        );
        assert_eq!(
            widget_colors("#ff0000", Some("#ff0000")).0,
            "#ffffff",
            "a mid-tone background is replaced"
        );
        let (_, yellow) = widget_colors("#ffff00", None);
        let c = rgb(&yellow).unwrap();
        assert!(
            c[0] == c[1] && c[2] == 0.0,
            "darkening keeps the hue: {yellow}"
        );
        let (bg, grey) = widget_colors("#333333", Some("#000000"));
        assert_eq!(bg, "#000000");
        assert!(
            luminance(rgb(&grey).unwrap()) > luminance([51.0; 3]),
            "lightened on dark backgrounds"
        );
    }

    #[test]
    fn finds_the_dominant_color() {
        let mut px = Vec::new();
        let mut add = |rgba: [u8; 4], n: usize| (0..n).for_each(|_| px.extend_from_slice(&rgba));
        add([240, 20, 20, 255], 50);
        add([250, 30, 30, 255], 50);
        add([20, 40, 200, 255], 80);
        add([255, 255, 255, 255], 500);
        add([5, 5, 5, 255], 500);
        add([0, 200, 0, 0], 500);
        px.extend_from_slice(&[1, 2]);
        assert_eq!(dominant_color(&px).as_deref(), Some("#f51919"));
        assert_eq!(dominant_color(&[]), None);
        assert_eq!(
            dominant_color(&[255, 255, 255, 255, 0, 0, 0, 255, 9, 9, 9]),
            None
        );
    }

    #[test]
    fn sniffs_images() {
        let cases: [(&[u8], Option<&str>); 17] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("image/png")),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some("image/jpeg")),
            (b"GIF89a\x01\0\x01\0", Some("image/gif")),
            (b"RIFF\x24\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"\0\0\x01\0\x02\0\x10\x10", Some("image/x-icon")),
            (b"\0\0\x01\0\0\0", None),
            (b"BM\x36\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\x01\0\0\0\x01\0\0\0", Some("image/bmp")),
            (b"BMW is a car brand", None),
            (b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>", Some("image/svg+xml")),
            (b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n<svg>", Some("image/svg+xml")),
            (b"<!DOCTYPE svg [ <!ENTITY a \"b\"> ]>\n<svg\n>", Some("image/svg+xml")),
            (b"<!DOCTYPE html><html><body><svg></svg>", None),
            (b"<?xml version=\"1.0\"?><rss>", None),
            (b"<svgfoo>", None),
            (b"<!-- unterminated", None),
            (b"RIFF", None),
            (b"", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                sniff_image(bytes),
                want,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
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
