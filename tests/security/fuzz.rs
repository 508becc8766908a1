//! Fuzzing of the parsers that read untrusted input: the continuation-token
//! decoder, the manifest parser, the HAR reader and the text formatter.
//!
//! cargo-fuzz needs a nightly toolchain, which this project does not use, so the
//! targets run under proptest on stable: random and mutated inputs, checked for
//! panics and for the invariants each parser promises. `GLEANER_FUZZ_CASES` sets
//! the cases per target (256 by default; `make fuzz` runs many more).

use std::path::Path;

use gleaner::manifest::Manifest;
use gleaner::text::{self, SourceText};
use gleaner::token::{self, Resume, TokenKey};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("GLEANER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn key() -> TokenKey {
    TokenKey::from_secret(b"fuzzing-secret-of-thirty-two-bytes!!").unwrap()
}

fn resume() -> impl Strategy<Value = Resume> {
    (
        proptest::option::of(".{0,40}"),
        any::<u32>(),
        proptest::option::of("[a-z-]{1,12}"),
        proptest::option::of((1i32..=9999, 1u16..=365)),
    )
        .prop_map(|(cursor, skip, sort, day)| Resume {
            cursor,
            skip,
            last: None,
            sort,
            filter: None,
            sync_date: day.map(|(year, ordinal)| {
                time::Date::from_ordinal_date(year, ordinal).expect("every year has 365 days")
            }),
            session: None,
        })
}

const MANIFEST: &str = r#"name = "fuzz-source"
kind = "source"
route = "/fuzz-source/reviews"
version = "0.1.0"
[network]
allow = ["https://www.example.com"]
[limits]
memory_mib = 32
[source]
continuation = "pagination_token"
sort = { field = "sort_type", type = "enum", values = ["a", "b"] }
"#;

/// HTML-like fragments: tags, entities and text.
fn html() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<p>".to_owned()),
        Just("</p>".to_owned()),
        Just("<br>".to_owned()),
        Just("<ul><li>".to_owned()),
        Just("</li>".to_owned()),
        Just("<ol>".to_owned()),
        Just("&amp;".to_owned()),
        Just("&#x1F600;".to_owned()),
        Just("&bogus".to_owned()),
        Just("<script>x</script>".to_owned()),
        Just("\r\n".to_owned()),
        "[a-z <>&;/\n\t]{0,10}",
        ".{0,6}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn token_decoder_never_panics_and_never_accepts_a_change(
        resume in resume(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        junk in ".{0,200}",
    ) {
        let key = key();
        let token = token::encode(&key, "/x/reviews", "q", &resume);
        prop_assert_eq!(token::decode(&key, "/x/reviews", "q", &token).unwrap(), resume.clone());
        let mut bytes = token.into_bytes();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let mutated = String::from_utf8_lossy(&bytes).into_owned();
        if let Ok(decoded) = token::decode(&key, "/x/reviews", "q", &mutated) {
            prop_assert_eq!(decoded, resume, "a changed token decoded to something else");
        }
        let _ = token::decode(&key, "/x/reviews", "q", &junk);
    }

    #[test]
    fn manifest_parser_never_panics_and_keeps_components_inside(
        line in "[a-z_]{1,12} = (\"[^\"\\n]{0,30}\"|[0-9]{1,6}|true|\\[\\])",
        at in any::<prop::sample::Index>(),
        junk in ".{0,300}",
    ) {
        let mut lines: Vec<&str> = MANIFEST.lines().collect();
        let i = at.index(lines.len());
        lines[i] = &line;
        for text in [lines.join("\n"), junk] {
            if let Ok(m) = toml::from_str::<Manifest>(&text) {
                if m.check().is_ok() {
                    let dir = Path::new("/plugins");
                    let component = m.component_path(&dir.join("m.toml"));
                    prop_assert_eq!(component.parent(), Some(dir));
                }
            }
        }
    }

    #[test]
    fn har_reader_never_panics(
        junk in prop::collection::vec(any::<u8>(), 0..400),
        url in ".{0,60}",
        status in any::<i64>(),
        text in ".{0,60}",
        encoding in prop_oneof![Just("base64".to_owned()), Just("utf-8".to_owned()), ".{0,8}"],
    ) {
        let path = Path::new("fuzz.har");
        let _ = gleaner::capabilities::http::har::parse_bytes(path, &junk);
        let doc = serde_json::json!({"log": {"entries": [{
            "request": {"method": "GET", "url": url, "headers": [], "queryString": []},
            "response": {"status": status, "headers": [{"name": "a", "value": text}],
                         "content": {"text": text, "encoding": encoding}},
        }]}});
        if let Ok(exchanges) =
            gleaner::capabilities::http::har::parse_bytes(path, doc.to_string().as_bytes())
        {
            let replay = gleaner::capabilities::http::har::HarReplay::from_exchanges(exchanges);
            let _ = replay.find("GET", &url, None);
        }
    }

    #[test]
    fn text_formatter_keeps_its_promises(html in html(), plain in ".{0,200}") {
        for source in [SourceText::Html(html), SourceText::Plain(plain)] {
            let one_line = text::format(&source, false);
            prop_assert!(!one_line.contains('\n'));
            prop_assert_eq!(one_line.trim(), one_line.as_str());
            prop_assert_eq!(text::single_line(&one_line), one_line.clone());
            let structured = text::format(&source, true);
            prop_assert!(!structured.contains("\n\n\n"), "{:?}", structured);
            prop_assert!(!structured.contains('\r'));
            prop_assert_eq!(text::single_line(&structured), one_line);
        }
    }
}
