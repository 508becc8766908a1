//! The forms a secret takes on its way out: as typed, percent-encoded (once
//! and twice, with the encode sets URLs and forms use), JSON- and
//! HTML-escaped, and base64 in both alphabets — whole, and as the run of
//! characters it always produces inside a longer base64 text (so
//! `Basic base64(user:secret)` is caught too). Matching is ASCII
//! case-insensitive, so hex digits and header casing need no variants.

use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS, NON_ALPHANUMERIC};

/// Everything but RFC 3986's unreserved characters.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a lenient URL writer encodes in a query: controls, space and the
/// characters that would end or break it.
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'&')
    .add(b'=')
    .add(b'+');

/// Shortest text (in bytes) a variant must have to be looked for: shorter
/// runs would match ordinary words.
pub const MIN_VARIANT_BYTES: usize = 8;

/// The forms of `secret` to look for, longest first, without duplicates.
pub fn of(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_owned()];
    for set in [NON_ALPHANUMERIC, UNRESERVED, QUERY] {
        out.push(utf8_percent_encode(secret, set).to_string());
    }
    out.push(url::form_urlencoded::byte_serialize(secret.as_bytes()).collect());
    let once = utf8_percent_encode(secret, NON_ALPHANUMERIC).to_string();
    out.push(utf8_percent_encode(&once, NON_ALPHANUMERIC).to_string());
    out.push(url::form_urlencoded::byte_serialize(once.as_bytes()).collect());
    if let Ok(json) = serde_json::to_string(secret) {
        let inner = &json[1..json.len() - 1];
        out.push(inner.replace('/', "\\/"));
        out.push(inner.to_owned());
    }
    out.push(html_escape(secret));
    for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
        for align in 0..3 {
            out.extend(base64_run(engine, secret.as_bytes(), align));
        }
    }
    out.retain(|v| v.len() >= MIN_VARIANT_BYTES);
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    out
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The base64 characters that `bytes` always produces when `align` bytes
/// (0 to 2) of other data come before it: only the characters whose six bits
/// all come from `bytes`.
fn base64_run(engine: &impl Engine, bytes: &[u8], align: usize) -> Option<String> {
    let mut padded = vec![0u8; align];
    padded.extend_from_slice(bytes);
    padded.resize(padded.len().div_ceil(3) * 3, 0);
    let encoded = engine.encode(&padded);
    let start = (8 * align).div_ceil(6);
    let end = 8 * (align + bytes.len()) / 6;
    encoded.get(start..end).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    #[test]
    fn every_encoding_of_a_secret_is_listed() {
        let secret = "Zq7/s3cr+t=ok!";
        let forms = of(secret);
        let has = |v: &str| forms.iter().any(|f| f.eq_ignore_ascii_case(v));
        assert!(has(secret));
        assert!(has("Zq7%2Fs3cr%2Bt%3Dok%21"), "{forms:?}");
        assert!(has("Zq7%252Fs3cr%252Bt%253Dok%2521"), "{forms:?}");
        assert!(has("Zq7\\/s3cr+t=ok!"), "{forms:?}");
        let whole = STANDARD.encode(secret);
        assert!(
            forms.iter().any(|f| whole.contains(f.as_str())),
            "base64 {whole}: {forms:?}"
        );
        assert!(forms.windows(2).all(|w| w[0].len() >= w[1].len()));
    }

    #[test]
    fn base64_inside_a_longer_text_is_found_at_every_alignment() {
        let secret = "hunter2-is-a-long-secret";
        let forms = of(secret);
        for prefix in ["", "u", "us", "use", "user:"] {
            let whole = STANDARD.encode(format!("{prefix}{secret}!x"));
            assert!(
                forms.iter().any(|f| whole.contains(f.as_str())),
                "prefix {prefix:?}: {whole} holds none of {forms:?}"
            );
        }
    }

    #[test]
    fn short_forms_are_left_out() {
        assert!(of("abc").is_empty());
        assert!(of("abcdefgh").iter().all(|f| f.len() >= MIN_VARIANT_BYTES));
    }
}
