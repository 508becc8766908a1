//! Text a site sends already HTML-escaped.
//!
//! Some sites escape review texts, titles and names for HTML before putting
//! them into JSON or into a data attribute (`&amp;`, `&quot;`, `&#039;`,
//! `&#x27;`), so a reader would see the entities. A plugin reads such fields
//! through [`decode`] (or [`crate::json::escaped`]) — only the fields its site
//! is known to escape: decoding a field that was never escaped would turn a
//! reviewer's literal `&lt;` into `<`. Decoding happens exactly once, so what
//! the reviewer typed survives: an escaped `&amp;lt;` becomes `&lt;`.
//!
//! Text read from an HTML page through the parser ([`crate::html`]) is
//! decoded by the parser already and needs nothing from here.

/// Decodes the HTML character references of `text` once (named ones ending
/// with `;`, decimal and hexadecimal), keeping every space and line break.
pub fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    html_escape::decode_html_entities(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn named_and_numeric_references_are_decoded_once() {
        assert_eq!(decode("(up &amp; down)"), "(up & down)");
        assert_eq!(decode("wouldn&#039;t"), "wouldn't");
        assert_eq!(decode("I&#39;ve &quot;seen&quot; it"), "I've \"seen\" it");
        assert_eq!(decode("caf&eacute; &#x27;ok&#X27; &hellip;"), "café 'ok' …");
        assert_eq!(decode("line one\n\n  line two"), "line one\n\n  line two");
    }

    #[test]
    fn what_the_reviewer_typed_survives() {
        // Typed "&lt;3" and "R&B", escaped by the site, read back as typed.
        assert_eq!(decode("&amp;lt;3 and R&amp;B"), "&lt;3 and R&B");
        // A bare ampersand and an unknown name are not references.
        assert_eq!(
            decode("Fish & chips &nope; & more"),
            "Fish & chips &nope; & more"
        );
        assert_eq!(decode("5 &lt; 6"), "5 < 6");
    }
}
