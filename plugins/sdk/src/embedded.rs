//! Extraction of JSON embedded in HTML pages (`__NEXT_DATA__` and similar script tags).

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
}
