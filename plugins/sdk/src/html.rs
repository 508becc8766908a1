//! HTML parsing with CSS selectors (over the `scraper` crate).

pub use scraper::{ElementRef, Html, Selector};

use crate::FetchError;

/// Parses a CSS selector; a bad selector is a plugin bug, reported as an upstream error.
pub fn selector(css: &str) -> Result<Selector, FetchError> {
    Selector::parse(css)
        .map_err(|e| FetchError::Upstream(format!("invalid CSS selector {css:?}: {e}")))
}

/// Every element matching `css`.
pub fn select<'a>(doc: &'a Html, css: &str) -> Result<Vec<ElementRef<'a>>, FetchError> {
    let s = selector(css)?;
    Ok(doc.select(&s).collect())
}

/// `s` with every run of whitespace (line breaks included) made one space,
/// and none at either end: the one whitespace rule of the guest side (the
/// host keeps its own for the text it formats).
pub fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The whitespace-collapsed text of an element.
pub fn text(element: ElementRef<'_>) -> String {
    collapse_whitespace(&element.text().collect::<Vec<_>>().join(" "))
}

/// The text of the first element matching `css` under `element`, if any and non-empty.
pub fn first_text(element: ElementRef<'_>, css: &str) -> Option<String> {
    let s = Selector::parse(css).ok()?;
    element
        .select(&s)
        .next()
        .map(text)
        .filter(|t| !t.is_empty())
}

/// An attribute of the first element matching `css` under `element`.
pub fn first_attr(element: ElementRef<'_>, css: &str, attr: &str) -> Option<String> {
    let s = Selector::parse(css).ok()?;
    element
        .select(&s)
        .next()?
        .value()
        .attr(attr)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_text_and_attributes() {
        let doc = Html::parse_document(
            r#"<div class="review"><h3> Great   stay </h3><a class="author" href="/u/1">Ann</a></div>
               <div class="review"><h3>Noisy</h3></div>"#,
        );
        let reviews = select(&doc, "div.review").unwrap();
        assert_eq!(reviews.len(), 2);
        assert_eq!(first_text(reviews[0], "h3").as_deref(), Some("Great stay"));
        assert_eq!(
            first_attr(reviews[0], "a.author", "href").as_deref(),
            Some("/u/1")
        );
        assert_eq!(first_text(reviews[1], "a.author"), None);
        assert!(select(&doc, "div[").is_err());
    }
}
