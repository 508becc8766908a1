//! Extraction of JSON embedded in HTML pages: script tags by id (`__NEXT_DATA__`),
//! JSON-LD blocks, JavaScript assignments (`window.__INITIAL_STATE__ = {...}`) and
//! Next.js app-router flight chunks (`self.__next_f.push([1, "..."])`).

use serde_json::Value;

/// The JSON content of `<script id="{id}" ...>...</script>`, parsed.
pub fn script_json_by_id(html: &str, id: &str) -> Option<Value> {
    let mut from = 0;
    while let Some(pos) = html[from..].find("<script") {
        let start = from + pos;
        let tag_end = start + html[start..].find('>')?;
        let tag = &html[start..tag_end];
        let body_start = tag_end + 1;
        let body_end = body_start + html[body_start..].find("</script")?;
        if has_id(tag, id) {
            return serde_json::from_str(html[body_start..body_end].trim()).ok();
        }
        from = body_end;
    }
    None
}

fn has_id(tag: &str, id: &str) -> bool {
    [
        format!("id=\"{id}\""),
        format!("id='{id}'"),
        format!("id={id} "),
        format!("id={id}>"),
    ]
    .iter()
    .any(|needle| tag.contains(needle.as_str()) || format!("{tag}>").contains(needle.as_str()))
}

/// `__NEXT_DATA__` of a Next.js page.
pub fn next_data(html: &str) -> Option<Value> {
    script_json_by_id(html, "__NEXT_DATA__")
}

/// The first JSON value at the start of `text` (trailing text such as `;` is ignored).
fn leading_json(text: &str) -> Option<Value> {
    serde_json::Deserializer::from_str(text.trim_start())
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// Every JSON-LD object of the page (`<script type="application/ld+json">`), with
/// top-level arrays and `@graph` lists flattened.
pub fn json_ld(html: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = html[from..].find("<script") {
        let start = from + pos;
        let Some(tag_len) = html[start..].find('>') else {
            break;
        };
        let tag = &html[start..start + tag_len];
        let body_start = start + tag_len + 1;
        let Some(body_len) = html[body_start..].find("</script") else {
            break;
        };
        if tag.contains("application/ld+json") {
            if let Ok(value) =
                serde_json::from_str::<Value>(html[body_start..body_start + body_len].trim())
            {
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
    while let Some(pos) = html[from..].find(variable) {
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
    while let Some(pos) = html[from..].find(CALL) {
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
