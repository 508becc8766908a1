//! Telling a listing with no reviews from a page whose layout changed.
//!
//! A page that shows no reviews is either an item nobody has reviewed yet or a
//! page the plugin no longer understands. Sites say the first in their own
//! words ("Be the first to post a review"), with zero counts ("0 reviews", a
//! 0.0 average) or with empty rating widgets, and rarely with the one element a
//! plugin was written against. Every HTML source asks [`no_reviews`] before it
//! calls a layout changed, and words the error with [`layout_changed`], which
//! names what it looked for.

use crate::html::{ElementRef, Html};
use crate::FetchError;

/// How review sites say that an item has no reviews yet, lower-cased; matched
/// in the page's visible text after whitespace is collapsed. A plugin adds
/// its site's own wording to these.
pub const NO_REVIEW_TEXTS: &[&str] = &[
    "no reviews yet",
    "no reviews found",
    "there are no reviews",
    "there are currently no reviews",
    "has no reviews",
    "have no reviews",
    "hasn't been reviewed",
    "has not been reviewed",
    "not been reviewed yet",
    "no customer reviews",
    "no ratings yet",
    "no ratings or reviews",
    "be the first to review",
    "be the first to post a review",
    "be the first to write a review",
    "be the first to leave a review",
    "be the first to rate",
    "write the first review",
];

/// What a page shows besides its text that may say it lists nothing: a
/// counter, an average or a rating widget, by the name the error and notice
/// use for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown<'a> {
    /// A review count or average as the page shows it; a zero says "none".
    Number(&'a str, Option<f64>),
    /// Rating widgets (`name`, how many the page has, how many hold a value):
    /// widgets that are all there and all empty say "none".
    Widgets(&'a str, usize, usize),
}

impl Shown<'_> {
    /// What this shows, when it says the listing is empty.
    fn says_empty(&self) -> Option<String> {
        match *self {
            Shown::Number(name, Some(0.0)) => Some(format!("{name} shown as 0")),
            Shown::Widgets(name, all, 0) if all > 0 => Some(format!("{all} empty {name}")),
            _ => None,
        }
    }
}

/// The signals by which a page without reviews says it has none: a "no
/// reviews" text ([`NO_REVIEW_TEXTS`] and the site's own `site_texts`), and
/// every zero in `shown`. None when nothing on the page says so: then the
/// layout changed.
pub fn no_reviews(doc: &Html, site_texts: &[&str], shown: &[Shown<'_>]) -> Option<String> {
    let text = visible_text(doc.root_element()).to_lowercase();
    let said = NO_REVIEW_TEXTS
        .iter()
        .chain(site_texts)
        .find(|phrase| text.contains(&phrase.to_lowercase()))
        .map(|phrase| format!("the page says {phrase:?}"));
    let signals: Vec<String> = said
        .into_iter()
        .chain(shown.iter().filter_map(Shown::says_empty))
        .collect();
    (!signals.is_empty()).then(|| signals.join(", "))
}

/// The error for a page with neither reviews nor any "no reviews" signal:
/// what `site` answered at `url`, and each part it looked for, by name and
/// selector.
pub fn layout_changed(site: &str, url: &str, looked_for: &[(&str, &str)]) -> FetchError {
    let parts: Vec<String> = looked_for
        .iter()
        .map(|(name, selector)| format!("{name} (`{selector}`)"))
        .collect();
    FetchError::Upstream(format!(
        "{site}: {url} answered, but shows no reviews and nothing that says it has none; \
         it looked for {} and for a \"no reviews\" text or zero count: the page layout \
         changed and the plugin needs an update",
        parts.join(", ")
    ))
}

/// The text a reader sees under `element`: scripts, styles and templates left
/// out, whitespace collapsed.
pub fn visible_text(element: ElementRef<'_>) -> String {
    let mut out = String::new();
    collect(element, &mut out);
    crate::html::collapse_whitespace(&out)
}

fn collect(element: ElementRef<'_>, out: &mut String) {
    for child in element.children() {
        if let Some(text) = child.value().as_text() {
            out.push_str(text);
            out.push(' ');
        } else if let Some(el) = ElementRef::wrap(child) {
            if !matches!(
                el.value().name(),
                "script" | "style" | "template" | "noscript"
            ) {
                collect(el, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Html {
        Html::parse_document(&format!("<html><body>{body}</body></html>"))
    }

    #[test]
    fn a_first_review_invitation_or_a_zero_says_empty() {
        let doc = page("<p>Be   the first\n to post a review!</p><script>var t='x'</script>");
        let said = no_reviews(&doc, &[], &[]).unwrap();
        assert!(said.contains("be the first to post a review"), "{said}");
        let doc = page("<div class=avg>0.0</div>");
        assert_eq!(
            no_reviews(&doc, &[], &[Shown::Number("average rating", Some(0.0))]).as_deref(),
            Some("average rating shown as 0")
        );
        assert_eq!(
            no_reviews(&doc, &[], &[Shown::Widgets("rating widgets", 4, 0)]).as_deref(),
            Some("4 empty rating widgets")
        );
        let doc = page("<p>Noch keine Bewertungen</p>");
        assert!(no_reviews(&doc, &["noch keine bewertungen"], &[]).is_some());
    }

    #[test]
    fn nothing_that_says_empty_is_a_changed_layout() {
        let doc =
            page("<main><h1>Project</h1><p>Welcome</p></main><script>no reviews yet</script>");
        let shown = [
            Shown::Number("average rating", Some(4.5)),
            Shown::Number("review count", None),
            Shown::Widgets("rating widgets", 4, 2),
            Shown::Widgets("rating widgets", 0, 0),
        ];
        assert_eq!(
            no_reviews(&doc, &[], &shown),
            None,
            "script text is not shown"
        );
        let e = layout_changed(
            "SourceForge reviews",
            "https://sourceforge.net/projects/x/reviews/",
            &[
                ("review list", "#project-reviews li"),
                ("empty notice", ".empty"),
            ],
        );
        assert!(
            matches!(&e, FetchError::Upstream(m) if m.contains("`#project-reviews li`")
                && m.contains("`.empty`") && m.contains("layout changed")),
            "{e:?}"
        );
    }
}
