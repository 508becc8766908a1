//! Finding a widget's ids in a page: in its elements' attributes, and in
//! the scripts that configure it (`jdgm.SHOP_DOMAIN = '…'`,
//! `StampedFn.init({apiKey: '…'})`).

use gleaner_sdk::html::{self, Html};

/// The first non-empty value of `attr` on an element matching `css`.
pub fn attr(doc: &Html, css: &str, attr: &str) -> Option<String> {
    html::select(doc, css)
        .ok()?
        .into_iter()
        .filter_map(|el| el.value().attr(attr))
        .map(str::trim)
        .find(|v| !v.is_empty())
        .map(str::to_owned)
}

/// The run of `allowed` characters right after the first `marker` in
/// `text` that has at least `min` of them.
pub fn token_after(
    text: &str,
    marker: &str,
    min: usize,
    allowed: fn(char) -> bool,
) -> Option<String> {
    let mut from = 0;
    while let Some(at) = text[from..].find(marker) {
        let start = from + at + marker.len();
        let token: String = text[start..].chars().take_while(|c| allowed(*c)).collect();
        if token.chars().count() >= min {
            return Some(token);
        }
        from = start;
    }
    None
}

/// The quoted value given to `key` (`key: 'v'`, `key = "v"`, `"key":"v"`)
/// the first time `key` is given one.
pub fn quoted_after(text: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let rest = &text[from + at + key.len()..];
        let rest = rest.trim_start_matches(['"', '\'']);
        let rest = rest.trim_start();
        if let Some(rest) = rest.strip_prefix([':', '=']) {
            let rest = rest.trim_start();
            if let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
                let value: String = rest[1..].chars().take_while(|c| *c != quote).collect();
                if !value.trim().is_empty() && value.len() < 200 {
                    return Some(value.trim().to_owned());
                }
            }
        }
        from += at + key.len();
    }
    None
}

/// Letters, digits, `-` and `_`.
pub fn word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Digits.
pub fn digit(c: char) -> bool {
    c.is_ascii_digit()
}

/// A `*.myshopify.com` domain anywhere in `text`.
pub fn shopify_domain(text: &str) -> Option<String> {
    let at = text.find(".myshopify.com")?;
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '-')
        .last()
        .map(|(i, _)| i)?;
    Some(format!("{}.myshopify.com", &text[start..at]).to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_in_scripts_and_attributes() {
        let page = r#"<script>jdgm.SHOP_DOMAIN = 'north-home.myshopify.com'; StampedFn.init({ apiKey: "pubkey-ABC123", sId: '114374' });</script>
<script src="//staticw2.yotpo.com/AbCdEfGhIjKlMnOpQrSt/widget.js"></script>
<div class="x" data-id="  "></div><div class="x" data-id="42"></div>"#;
        assert_eq!(
            quoted_after(page, "SHOP_DOMAIN").as_deref(),
            Some("north-home.myshopify.com")
        );
        assert_eq!(
            quoted_after(page, "apiKey").as_deref(),
            Some("pubkey-ABC123")
        );
        assert_eq!(quoted_after(page, "sId").as_deref(), Some("114374"));
        assert_eq!(
            token_after(page, "staticw2.yotpo.com/", 15, word).as_deref(),
            Some("AbCdEfGhIjKlMnOpQrSt")
        );
        assert_eq!(
            shopify_domain(page).as_deref(),
            Some("north-home.myshopify.com")
        );
        let doc = Html::parse_document(page);
        assert_eq!(attr(&doc, ".x", "data-id").as_deref(), Some("42"));
        assert_eq!(quoted_after("nothing here", "apiKey"), None);
    }
}
