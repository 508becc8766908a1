//! Review text formatting, implemented once for every source.
//!
//! `is_text_formatted = true` keeps paragraphs, line breaks and list items as the
//! source shows them (HTML is turned into text with the same structure);
//! `false` gives single-line plain text.

use scraper::{ElementRef, Html, Node};

/// Text as a plugin returns it.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceText {
    /// Plain text with meaningful `\n`.
    Plain(String),
    /// An HTML fragment.
    Html(String),
}

/// Formats source text: structured when `formatted`, else one line.
pub fn format(text: &SourceText, formatted: bool) -> String {
    let structured = match text {
        SourceText::Plain(s) => tidy_lines(s),
        SourceText::Html(h) => tidy_lines(&html_to_text(h)),
    };
    if formatted {
        structured
    } else {
        single_line(&structured)
    }
}

/// Collapses every whitespace run (line breaks included) into one space.
pub fn single_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Normalises line endings, trims line ends, keeps at most one blank line between paragraphs.
fn tidy_lines(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(s.len());
    let mut blank_run = 0;
    for line in s.split('\n') {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

/// Renders an HTML fragment as text: blocks become paragraphs, `<br>` a line break,
/// list items lines starting with `- ` (or `1. ` in ordered lists).
pub fn html_to_text(html: &str) -> String {
    let fragment = Html::parse_fragment(html);
    let mut out = String::new();
    walk(fragment.root_element(), &mut out, None);
    out
}

const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "table",
    "tr",
    "pre",
];

fn walk(element: ElementRef<'_>, out: &mut String, mut counter: Option<usize>) {
    for child in element.children() {
        match child.value() {
            Node::Text(t) => push_inline(out, t),
            Node::Element(e) => {
                let Some(child_el) = ElementRef::wrap(child) else {
                    continue;
                };
                let name = e.name();
                match name {
                    "br" => out.push('\n'),
                    "script" | "style" => {}
                    "li" => {
                        ensure_break(out, 1);
                        match counter.as_mut() {
                            Some(n) => {
                                *n += 1;
                                out.push_str(&format!("{n}. "));
                            }
                            None => out.push_str("- "),
                        }
                        walk(child_el, out, None);
                        ensure_break(out, 1);
                    }
                    _ if BLOCKS.contains(&name) => {
                        ensure_break(
                            out,
                            if matches!(name, "ul" | "ol" | "tr") {
                                1
                            } else {
                                2
                            },
                        );
                        walk(child_el, out, (name == "ol").then_some(0));
                        ensure_break(out, 2);
                    }
                    _ => walk(child_el, out, counter),
                }
            }
            _ => {}
        }
    }
}

fn push_inline(out: &mut String, text: &str) {
    let mut words = text.split_whitespace().peekable();
    if words.peek().is_none() {
        if !text.is_empty() && !out.ends_with([' ', '\n']) && !out.is_empty() {
            out.push(' ');
        }
        return;
    }
    if text.starts_with(char::is_whitespace) && !out.ends_with([' ', '\n']) && !out.is_empty() {
        out.push(' ');
    }
    let joined = words.collect::<Vec<_>>().join(" ");
    out.push_str(&joined);
    if text.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

fn ensure_break(out: &mut String, newlines: usize) {
    while out.ends_with(' ') {
        out.pop();
    }
    if out.is_empty() {
        return;
    }
    let have = out.chars().rev().take_while(|c| *c == '\n').count();
    for _ in have..newlines {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_paragraphs_when_formatted() {
        let t = SourceText::Plain("First line.  \r\nSecond line.\n\n\n\nNew paragraph.\n".into());
        assert_eq!(
            format(&t, true),
            "First line.\nSecond line.\n\nNew paragraph."
        );
        assert_eq!(format(&t, false), "First line. Second line. New paragraph.");
    }

    #[test]
    fn html_becomes_structured_text() {
        let t = SourceText::Html(
            "<p>Great <b>service</b>.</p><p>Pros:<br>fast</p><ul><li>cheap</li><li>kind  staff</li></ul><ol><li>a</li><li>b</li></ol>"
                .into(),
        );
        assert_eq!(
            format(&t, true),
            "Great service.\n\nPros:\nfast\n\n- cheap\n- kind staff\n\n1. a\n2. b"
        );
        assert_eq!(
            format(&t, false),
            "Great service. Pros: fast - cheap - kind staff 1. a 2. b"
        );
    }

    #[test]
    fn html_entities_are_decoded() {
        let t = SourceText::Html("B&amp;H &lt;3 caf&eacute;".into());
        assert_eq!(format(&t, true), "B&H <3 café");
    }
}
