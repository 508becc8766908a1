//! The real pixel size of an image, read from its header bytes: PNG, GIF, JPEG,
//! WebP, ICO/CUR, BMP and SVG. No decoding, no I/O and no panics on any input.

/// What an image's bytes say about its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageSize {
    /// A raster image (or an ICO's largest entry) of `width` × `height` pixels.
    Pixels(u32, u32),
    /// An SVG: drawn at any size. Its declared `width`/`height` (or `viewBox`)
    /// when it has them.
    Scalable(Option<(u32, u32)>),
}

impl ImageSize {
    /// The larger side in pixels; an SVG counts as `scalable_as`.
    pub fn largest_side(self, scalable_as: u32) -> u32 {
        match self {
            ImageSize::Pixels(w, h) => w.max(h),
            ImageSize::Scalable(_) => scalable_as,
        }
    }

    /// A raster image no larger than 1×1 in either side (a tracking pixel or
    /// spacer). An SVG declaring a 1×1 size counts too.
    pub fn is_pixel(self) -> bool {
        match self {
            ImageSize::Pixels(w, h) | ImageSize::Scalable(Some((w, h))) => w <= 1 || h <= 1,
            ImageSize::Scalable(None) => false,
        }
    }
}

fn be16(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?])))
}

fn le16(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?])))
}

fn be32(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?))
}

fn le24(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        0,
    ]))
}

fn le32(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?))
}

/// The size of an image from its bytes; `None` when they are not a known image
/// format or are cut before the size.
pub fn image_size(bytes: &[u8]) -> Option<ImageSize> {
    let px = |w: u32, h: u32| Some(ImageSize::Pixels(w, h));
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        px(be32(bytes, 16)?, be32(bytes, 20)?)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        px(le16(bytes, 6)?, le16(bytes, 8)?)
    } else if bytes.starts_with(b"\xff\xd8") {
        jpeg(bytes)
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        webp(bytes)
    } else if bytes.starts_with(b"\0\0\x01\0") || bytes.starts_with(b"\0\0\x02\0") {
        ico(bytes)
    } else if bytes.starts_with(b"BM") && bytes.len() >= 26 {
        px(
            le32(bytes, 18)?,
            le32(bytes, 22)?.cast_signed().unsigned_abs(),
        )
    } else {
        svg(bytes)
    }
}

fn jpeg(b: &[u8]) -> Option<ImageSize> {
    let mut i = 2;
    while i + 4 <= b.len() {
        if b[i] != 0xff {
            i += 1;
            continue;
        }
        let marker = b[i + 1];
        if marker == 0xff {
            i += 1;
            continue;
        }
        if matches!(marker, 0xd0..=0xd9 | 0x01) {
            i += 2;
            continue;
        }
        let len = usize::try_from(be16(b, i + 2)?).ok()?;
        let sof = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if sof {
            return Some(ImageSize::Pixels(be16(b, i + 7)?, be16(b, i + 5)?));
        }
        i += 2 + len.max(2);
    }
    None
}

fn webp(b: &[u8]) -> Option<ImageSize> {
    match b.get(12..16)? {
        b"VP8 " => Some(ImageSize::Pixels(
            le16(b, 26)? & 0x3fff,
            le16(b, 28)? & 0x3fff,
        )),
        b"VP8L" => {
            let bits = le32(b, 21)?;
            Some(ImageSize::Pixels(
                (bits & 0x3fff) + 1,
                ((bits >> 14) & 0x3fff) + 1,
            ))
        }
        b"VP8X" => Some(ImageSize::Pixels(le24(b, 24)? + 1, le24(b, 27)? + 1)),
        _ => None,
    }
}

/// The largest entry of an ICO directory (a 0 byte means 256); an entry that is
/// an embedded PNG reports the PNG's own size when its bytes are present.
fn ico(b: &[u8]) -> Option<ImageSize> {
    let count = usize::try_from(le16(b, 4)?).ok()?;
    let mut best: Option<(u32, u32)> = None;
    for k in 0..count.min(256) {
        let e = 6 + 16 * k;
        let (Some(&w), Some(&h)) = (b.get(e), b.get(e + 1)) else {
            break;
        };
        let side = |v: u8| if v == 0 { 256 } else { u32::from(v) };
        let mut size = (side(w), side(h));
        let offset = le32(b, e + 12).and_then(|o| usize::try_from(o).ok());
        if let Some(ImageSize::Pixels(pw, ph)) = offset
            .and_then(|o| b.get(o..))
            .filter(|d| d.starts_with(b"\x89PNG"))
            .and_then(image_size)
        {
            size = (pw, ph);
        }
        if best.is_none_or(|(bw, bh)| size.0.max(size.1) > bw.max(bh)) {
            best = Some(size);
        }
    }
    best.map(|(w, h)| ImageSize::Pixels(w, h))
}

/// A length attribute of the root `<svg>` in pixels (`24`, `24px`, `24.5`);
/// percentages and other units give `None`.
fn svg_length(tag: &str, name: &str) -> Option<u32> {
    let value = attr(tag, name)?;
    let number = value.trim().strip_suffix("px").unwrap_or(value.trim());
    let n: f64 = number.trim().parse().ok()?;
    (n.is_finite() && (0.0..1e6).contains(&n)).then(|| n.round() as u32)
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(i) = rest.find(name) {
        let before_ok = rest[..i].ends_with([' ', '\n', '\t', '\r']);
        let after = rest[i + name.len()..].trim_start();
        if let (true, Some(value)) = (before_ok, after.strip_prefix('=')) {
            let value = value.trim_start();
            let quote = value.chars().next()?;
            if quote == '"' || quote == '\'' {
                return value[1..].split(quote).next();
            }
            return value.split([' ', '>', '/']).next();
        }
        rest = &rest[i + name.len()..];
    }
    None
}

fn svg(bytes: &[u8]) -> Option<ImageSize> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    let start = head.find("<svg")?;
    let before = head[..start].trim_start_matches('\u{feff}').trim_start();
    let prolog_only = before.is_empty() || before.starts_with("<?") || before.starts_with("<!");
    if !prolog_only || before.to_ascii_lowercase().contains("<html") {
        return None;
    }
    let tag = &head[start..];
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    let declared = match (svg_length(tag, "width"), svg_length(tag, "height")) {
        (Some(w), Some(h)) => Some((w, h)),
        _ => attr(tag, "viewBox").and_then(|v| {
            let n: Vec<f64> = v
                .split([' ', ','])
                .filter_map(|x| x.trim().parse().ok())
                .collect();
            let ok = |x: f64| x.is_finite() && (0.0..1e6).contains(&x);
            match n[..] {
                [_, _, w, h] if ok(w) && ok(h) => Some((w.round() as u32, h.round() as u32)),
                _ => None,
            }
        }),
    };
    Some(ImageSize::Scalable(declared))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    #[test]
    fn reads_raster_headers() {
        assert_eq!(
            image_size(&png(180, 180)),
            Some(ImageSize::Pixels(180, 180))
        );
        assert_eq!(
            image_size(b"GIF89a\x01\0\x01\0\x80\0\0"),
            Some(ImageSize::Pixels(1, 1))
        );
        let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xff\xc0\0\x11\x08\0\x28\0\x3c\x03";
        assert_eq!(image_size(jpeg), Some(ImageSize::Pixels(60, 40)));
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x10\0\0\0".to_vec();
        vp8x.extend([0x1f, 0, 0, 0x3f, 0, 0]);
        assert_eq!(image_size(&vp8x), Some(ImageSize::Pixels(32, 64)));
        let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        vp8l.extend(((15u32) | (31 << 14)).to_le_bytes());
        assert_eq!(image_size(&vp8l), Some(ImageSize::Pixels(16, 32)));
        let bmp = b"BM\x36\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0\x05\0\0\0\xfd\xff\xff\xff";
        assert_eq!(image_size(bmp), Some(ImageSize::Pixels(5, 3)));
    }

    #[test]
    fn reads_the_largest_ico_entry() {
        let mut ico = b"\0\0\x01\0\x03\0".to_vec();
        for (w, offset) in [(16u8, 0u32), (0, 0), (48, 0)] {
            ico.extend([w, w, 0, 0, 1, 0, 32, 0]);
            ico.extend(100u32.to_le_bytes());
            ico.extend(offset.to_le_bytes());
        }
        assert_eq!(image_size(&ico), Some(ImageSize::Pixels(256, 256)));
        let mut with_png = b"\0\0\x01\0\x01\0".to_vec();
        with_png.extend([0, 0, 0, 0, 1, 0, 32, 0]);
        with_png.extend(100u32.to_le_bytes());
        with_png.extend(22u32.to_le_bytes());
        with_png.extend(png(512, 512));
        assert_eq!(image_size(&with_png), Some(ImageSize::Pixels(512, 512)));
    }

    #[test]
    fn reads_svg_sizes() {
        let cases: [(&[u8], Option<ImageSize>); 6] = [
            (
                b"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"32px\" height='32'>",
                Some(ImageSize::Scalable(Some((32, 32)))),
            ),
            (
                b"<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 120 60\">",
                Some(ImageSize::Scalable(Some((120, 60)))),
            ),
            (b"<svg>", Some(ImageSize::Scalable(None))),
            (
                b"<svg width=\"100%\" height=\"100%\">",
                Some(ImageSize::Scalable(None)),
            ),
            (b"<!DOCTYPE html><html><svg width=\"1\" height=\"1\">", None),
            (b"hello", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                image_size(bytes),
                want,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        assert!(ImageSize::Pixels(1, 1).is_pixel());
        assert!(ImageSize::Scalable(Some((1, 1))).is_pixel());
        assert!(!ImageSize::Scalable(None).is_pixel());
        assert_eq!(ImageSize::Scalable(None).largest_side(512), 512);
    }

    #[test]
    fn never_panics_on_cut_or_random_bytes() {
        let samples: [&[u8]; 6] = [
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0",
            b"\xff\xd8\xff\xc0\0",
            b"RIFF\0\0\0\0WEBPVP8X",
            b"\0\0\x01\0\xff\xff\x10",
            b"BM",
            b"GIF89a\x01",
        ];
        for s in samples {
            for n in 0..=s.len() {
                let _ = image_size(&s[..n]);
            }
        }
        let mut rng = fastrand::Rng::with_seed(7);
        for len in 0..300usize {
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            let _ = image_size(&bytes);
            for magic in [&b"\xff\xd8"[..], b"\0\0\x01\0", b"<svg "] {
                bytes.splice(0..0, magic.iter().copied());
                let _ = image_size(&bytes);
            }
        }
    }
}
