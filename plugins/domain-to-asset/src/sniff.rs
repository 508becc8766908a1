//! What image bytes are, by their magic numbers (and, for SVG, by the first
//! element of the text).

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
