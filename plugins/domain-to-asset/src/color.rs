//! Colours: contrast as WCAG defines it, widget colours that always reach
//! [`MIN_CONTRAST`] against their background, and the dominant colour of
//! decoded pixels.

use crate::webpage::parse_color;

/// The minimum contrast between the widget button and its background.
const MIN_CONTRAST: f64 = 3.0;

/// The channels of a colour [`parse_color`] accepts, 0 to 255.
pub(crate) fn rgb(color: &str) -> Option<[f64; 3]> {
    let hex = parse_color(color)?;
    let channel = |i: usize| {
        u8::from_str_radix(hex.get(i..i + 2)?, 16)
            .ok()
            .map(f64::from)
    };
    Some([channel(1)?, channel(3)?, channel(5)?])
}

/// `#rrggbb` of channels, each clamped to 0..=255 and rounded.
pub(crate) fn to_hex([r, g, b]: [f64; 3]) -> String {
    let c = |v: f64| v.clamp(0.0, 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
}

/// WCAG 2 relative luminance of an sRGB colour.
pub(crate) fn luminance(c: [f64; 3]) -> f64 {
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
pub(crate) fn chroma(c: [f64; 3]) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
