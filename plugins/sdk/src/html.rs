//! HTML parsing with CSS selectors (over the `scraper` crate).
//!
//! The helpers that take a selector as CSS text parse each distinct text once
//! per instance, so once per call (an instance serves one call), however many
//! cards use it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

pub use scraper::{ElementRef, Html, Selector};

use crate::FetchError;

thread_local! {
    /// The selectors parsed in this instance, by their CSS text. A `BTreeMap`:
    /// a hashed map would seed its hasher from the host on its first use.
    static PARSED: RefCell<BTreeMap<String, Rc<Selector>>> = const { RefCell::new(BTreeMap::new()) };
}

/// Parses each of `selectors` now, for a plugin's `prepare` (see
/// `export_source!`): prepared ahead of time, they are parsed in no call. A
/// bad one is left for the call that uses it to report.
pub fn prepare<S: AsRef<str>>(selectors: impl IntoIterator<Item = S>) {
    prepare_parser();
    for css in selectors {
        let _ = parsed(css.as_ref());
    }
}

/// Sets up, for a plugin's `prepare`, what the HTML parser builds the first
/// time an instance meets a tag, attribute or class name it does not know:
/// the table of such names, 4,096 buckets (about 31,000 operations, on every
/// call otherwise). [`prepare`] does it too.
pub fn prepare_parser() {
    let _ = Html::parse_fragment("<gleaner-prepare></gleaner-prepare>");
}

/// Whether `css` is parsed already in this instance (by `prepare`, or earlier
/// in this call).
pub fn is_parsed(css: &str) -> bool {
    PARSED.with_borrow(|parsed| parsed.contains_key(css))
}

/// `css` parsed, the first time this instance meets it; after that, the same
/// selector again.
pub fn parsed(css: &str) -> Result<Rc<Selector>, FetchError> {
    if let Some(known) = PARSED.with_borrow(|parsed| parsed.get(css).cloned()) {
        return Ok(known);
    }
    let fresh = Rc::new(selector(css)?);
    PARSED.with_borrow_mut(|parsed| parsed.insert(css.to_owned(), fresh.clone()));
    Ok(fresh)
}

/// Parses a CSS selector; a bad selector is a plugin bug, reported as an upstream error.
pub fn selector(css: &str) -> Result<Selector, FetchError> {
    Selector::parse(css)
        .map_err(|e| FetchError::Upstream(format!("invalid CSS selector {css:?}: {e}")))
}

/// Every element matching `css`.
pub fn select<'a>(doc: &'a Html, css: &str) -> Result<Vec<ElementRef<'a>>, FetchError> {
    Ok(doc.select(&*parsed(css)?).collect())
}

/// The first element matching `css` under `element`, if any (none for a bad selector).
pub fn first<'a>(element: ElementRef<'a>, css: &str) -> Option<ElementRef<'a>> {
    element.select(&*parsed(css).ok()?).next()
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
    first(element, css).map(text).filter(|t| !t.is_empty())
}

/// An attribute of the first element matching `css` under `element`.
pub fn first_attr(element: ElementRef<'_>, css: &str, attr: &str) -> Option<String> {
    first(element, css)?.value().attr(attr).map(str::to_owned)
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
        assert!(
            select(&doc, "div[").is_err(),
            "a bad selector is not remembered"
        );
        assert_eq!(first(reviews[0], "a["), None);
    }

    #[test]
    fn each_selector_text_is_parsed_once() {
        let a = parsed("div.review h3").unwrap();
        let b = parsed("div.review h3").unwrap();
        assert!(Rc::ptr_eq(&a, &b));
        assert!(!Rc::ptr_eq(&a, &parsed("div.review").unwrap()));
    }
}
