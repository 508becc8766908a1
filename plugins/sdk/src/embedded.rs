//! Extraction of JSON embedded in HTML pages: script tags by id (`__NEXT_DATA__`),
//! JSON-LD blocks, JavaScript assignments (`window.__INITIAL_STATE__ = {...}`) and
//! Next.js app-router flight chunks (`self.__next_f.push([1, "..."])`).

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The JSON content of `<script id="{id}" ...>...</script>`, parsed.
pub fn script_json_by_id(html: &str, id: &str) -> Option<Value> {
    serde_json::from_str(script_text_by_id(html, id)?).ok()
}

/// The text of `<script id="{id}" ...>...</script>`, trimmed, unparsed.
pub fn script_text_by_id<'a>(html: &'a str, id: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(pos) = find(&html[from..], "<script") {
        let start = from + pos;
        let tag_end = start + find(&html[start..], ">")?;
        let tag = &html[start..tag_end];
        let body_start = tag_end + 1;
        let body_end = body_start + find(&html[body_start..], "</script")?;
        if has_id(tag, id) {
            return Some(html[body_start..body_end].trim());
        }
        from = body_end;
    }
    None
}

/// Whether a tag's attributes (the tag without its closing `>`) give it the
/// id `id`: `id="…"`, `id='…'` or unquoted.
fn has_id(tag: &str, id: &str) -> bool {
    let mut rest = tag;
    while let Some(at) = rest.find("id=") {
        let preceded = rest[..at].ends_with(|c: char| c.is_ascii_whitespace());
        let value = &rest[at + 3..];
        let named = match value.as_bytes().first() {
            Some(&q) if q == b'"' || q == b'\'' => value[1..]
                .strip_prefix(id)
                .is_some_and(|after| after.as_bytes().first() == Some(&q)),
            _ => value.strip_prefix(id).is_some_and(|after| {
                after.is_empty() || after.starts_with(|c: char| c.is_ascii_whitespace())
            }),
        };
        if preceded && named {
            return true;
        }
        rest = value;
    }
    false
}

/// Where `needle` first starts in `haystack`, searched with `memchr`'s SIMD
/// search (core's `str::find` has no SIMD path on WebAssembly; pages run to
/// hundreds of KiB).
fn find(haystack: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// `__NEXT_DATA__` of a Next.js page.
pub fn next_data(html: &str) -> Option<Value> {
    script_json_by_id(html, "__NEXT_DATA__")
}

/// `__NEXT_DATA__` of a Next.js page read straight into `T`: only the fields
/// `T` names are kept, everything else is skipped as it is parsed. `None`
/// when the page has no `__NEXT_DATA__`; an error names the path where the
/// JSON is not what `T` expects (`props.pageProps.reviews[3].consumer`).
pub fn next_data_as<T: DeserializeOwned>(html: &str) -> Option<Result<T, String>> {
    let text = script_text_by_id(html, "__NEXT_DATA__")?;
    Some(crate::json::typed(text).map_err(|e| format!("`{}`: {}", e.path, e.message)))
}

/// The first JSON value at the start of `text` (trailing text such as `;` is ignored).
fn leading_json(text: &str) -> Option<Value> {
    serde_json::Deserializer::from_str(text.trim_start())
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// Every JSON-LD object of the page (`<script type="application/ld+json">`), with
/// top-level arrays and `@graph` lists flattened; each block read leniently
/// ([`crate::json::lenient`]), as pages write it.
pub fn json_ld(html: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = find(&html[from..], "<script") {
        let start = from + pos;
        let Some(tag_len) = find(&html[start..], ">") else {
            break;
        };
        let tag = &html[start..start + tag_len];
        let body_start = start + tag_len + 1;
        let Some(body_len) = find(&html[body_start..], "</script") else {
            break;
        };
        if tag.to_ascii_lowercase().contains("application/ld+json") {
            let block = &html[body_start..body_start + body_len];
            for value in crate::json::lenient(block) {
                flatten_ld(value, &mut out);
            }
        }
        from = body_start + body_len;
    }
    out
}

fn flatten_ld(value: Value, out: &mut Vec<Value>) {
    match value {
        Value::Array(items) => items.into_iter().for_each(|v| flatten_ld(v, out)),
        Value::Object(mut map) => match map.remove("@graph") {
            Some(graph) => flatten_ld(graph, out),
            None => out.push(Value::Object(map)),
        },
        _ => {}
    }
}

/// The JSON assigned to a JavaScript variable, e.g. `window.__INITIAL_STATE__`.
pub fn assigned_json(html: &str, variable: &str) -> Option<Value> {
    let mut from = 0;
    while let Some(pos) = find(&html[from..], variable) {
        let after = from + pos + variable.len();
        let rest = html[after..].trim_start();
        if let Some(value) = rest
            .strip_prefix('=')
            .and_then(|v| leading_json(v.trim_start_matches('=')))
        {
            return Some(value);
        }
        from = after;
    }
    None
}

/// The string payloads of Next.js flight chunks, in page order.
pub fn flight_chunks(html: &str) -> Vec<String> {
    const CALL: &str = "self.__next_f.push(";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = find(&html[from..], CALL) {
        let args = from + pos + CALL.len();
        if let Some(Value::Array(items)) = leading_json(&html[args..]) {
            if let (Some(1), Some(Value::String(payload))) =
                (items.first().and_then(Value::as_u64), items.get(1))
            {
                out.push(payload.clone());
            }
        }
        from = args;
    }
    out
}

/// The JSON rows of the Next.js flight stream (`<id>:<json>` lines of the joined chunks).
pub fn flight_values(html: &str) -> Vec<Value> {
    let stream = flight_chunks(html).concat();
    stream
        .lines()
        .filter_map(|line| {
            let (id, payload) = line.split_once(':')?;
            if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
                return None;
            }
            let payload = payload.trim_start_matches(|c: char| c.is_ascii_uppercase());
            leading_json(payload)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_next_data_among_scripts() {
        let html = r#"<html><script src="a.js"></script><script id="__NEXT_DATA__" type="application/json">{"buildId":"b1","props":{}}</script></html>"#;
        assert_eq!(next_data(html).unwrap()["buildId"], "b1");
        assert!(next_data("<html></html>").is_none());
        assert!(next_data(r#"<script id="__NEXT_DATA__">{broken</script>"#).is_none());
    }

    #[test]
    fn script_ids_quoted_unquoted_and_not_as_part_of_another_attribute() {
        let html = r#"<script data-id="x">1</script><script type=t id=x>2</script>"#;
        assert_eq!(script_text_by_id(html, "x"), Some("2"));
        assert_eq!(
            script_text_by_id(r#"<script id='x' async>3</script>"#, "x"),
            Some("3")
        );
        assert_eq!(
            script_text_by_id(r#"<script id="xy">4</script>"#, "x"),
            None
        );
        assert_eq!(script_text_by_id(r#"<script id=xy>5</script>"#, "x"), None);
    }

    #[test]
    fn next_data_read_into_a_type_names_where_it_differs() {
        #[derive(Debug, serde::Deserialize)]
        struct Data {
            props: Props,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Props {
            n: u32,
        }
        let page = |json: &str| format!(r#"<script id="__NEXT_DATA__">{json}</script>"#);
        let data: Data = next_data_as(&page(r#"{"props":{"n":3,"skipped":[1]}}"#))
            .unwrap()
            .unwrap();
        assert_eq!(data.props.n, 3);
        let wrong = next_data_as::<Data>(&page(r#"{"props":{"n":"three"}}"#)).unwrap();
        assert!(wrong.unwrap_err().starts_with("`props.n`: invalid type"));
        assert!(next_data_as::<Data>("<html></html>").is_none());
    }

    #[test]
    fn finds_json_ld_assignments_and_flight_data() {
        let html = r#"<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Acme"},{"@type":"Product","aggregateRating":{"ratingValue":"4.6"}}]}</script>
<script type="application/ld+json">[{"@type":"Review","author":"Bo"}]</script>
<script>window.__INITIAL_STATE__ = {"reviews":[{"id":1}],"s":"a;b"};var x=1;</script>
<script>self.__next_f.push([1,"1:{\"reviews\":[{\"id\":\"r1\"}]}\n2:[\"$\",\"div\",null,{}]\n"])</script>
<script>self.__next_f.push([0])</script>"#;
        let ld = json_ld(html);
        assert_eq!(ld.len(), 3);
        assert_eq!(ld[0]["name"], "Acme");
        assert_eq!(ld[2]["author"], "Bo");
        assert_eq!(
            assigned_json(html, "window.__INITIAL_STATE__").unwrap()["reviews"][0]["id"],
            1
        );
        assert!(assigned_json(html, "window.__MISSING__").is_none());
        assert_eq!(flight_chunks(html).len(), 1);
        let values = flight_values(html);
        assert_eq!(values[0]["reviews"][0]["id"], "r1");
        assert_eq!(values[1][1], "div");
    }
}
