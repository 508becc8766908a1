//! video-to-casestudy: a case-study HTML fragment built only from a transcript:
//! title, customer, summary, Challenge / Solution / Results and pull quotes. Quotes
//! are verbatim, every number appears in the transcript, and all transcript text is
//! HTML-escaped. With the optional LLM, its HTML is used only if it passes the same
//! checks ([`check_html`]); otherwise the deterministic fragment is returned.

pub mod casestudy;

pub use gleaner_text::{segment, transcript};

use casestudy::{strip_tags, unescape};
use gleaner_sdk::llm;
use gleaner_sdk::request::QueryInput;
use serde_json::json;

gleaner_sdk::export_processor!(process);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: QueryInput =
        gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let text = input.query.as_str();
    let (html, engine) = match llm_html(text) {
        Some(html) => (html, "llm"),
        None => (casestudy::case_study_html(text), "rules"),
    };
    Ok(Output {
        body: json!({ "case_study_html": html }).to_string(),
        engine: engine.into(),
    })
}

fn llm_html(text: &str) -> Option<String> {
    if !llm::enabled() {
        return None;
    }
    let system = "Write a customer case study as one HTML fragment: <article class=\"case-study\"> with an <h1> title, \
        the customer, a <p class=\"summary\">, and <section>s headed <h2>Challenge</h2>, <h2>Solution</h2>, \
        <h2>Results</h2>, plus 1-3 <blockquote class=\"pull-quote\"> quotes copied word for word from the transcript. \
        Use only facts and numbers from the transcript. No scripts, styles or attributes other than class. \
        Answer with the HTML only.";
    let html = llm::ask(system, text, 1500).ok()?;
    check_html(&html, text).ok().map(|_| html)
}

/// The checks an LLM-written fragment must pass: balanced tags from a small allowed
/// set, no attributes but `class`, the three sections, verbatim pull quotes, and no
/// number that the transcript lacks.
pub fn check_html(html: &str, transcript: &str) -> Result<(), String> {
    const ALLOWED: &[&str] = &[
        "article",
        "h1",
        "h2",
        "h3",
        "p",
        "section",
        "blockquote",
        "ul",
        "ol",
        "li",
        "strong",
        "em",
        "span",
        "br",
    ];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').ok_or("unterminated tag")? + open;
        let tag = &rest[open + 1..close];
        let (closing, body) = match tag.strip_prefix('/') {
            Some(b) => (true, b),
            None => (false, tag),
        };
        let name = body
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_ascii_lowercase();
        if !ALLOWED.contains(&name.as_str()) {
            return Err(format!("tag <{name}> is not allowed"));
        }
        let attrs = body
            .get(name.len()..)
            .unwrap_or_default()
            .trim()
            .trim_end_matches('/');
        if !attrs.is_empty() && !attrs.starts_with("class=") {
            return Err(format!("attributes other than class on <{name}>"));
        }
        if closing {
            if stack.pop().as_deref() != Some(name.as_str()) {
                return Err(format!("</{name}> does not close the open tag"));
            }
        } else if name != "br" && !tag.ends_with('/') {
            stack.push(name);
        }
        rest = &rest[close + 1..];
    }
    if !stack.is_empty() {
        return Err("unclosed tags".into());
    }
    for section in ["Challenge", "Solution", "Results"] {
        if !html.contains(&format!("<h2>{section}</h2>")) {
            return Err(format!("missing the {section} section"));
        }
    }
    for quote in html.split("<blockquote").skip(1) {
        let inner = quote.split_once('>').map_or("", |(_, q)| q);
        let inner = inner.split("</blockquote>").next().unwrap_or_default();
        let plain = unescape(&strip_tags(inner));
        let plain = plain.trim().trim_matches(['"', '“', '”']);
        if plain.is_empty() || !transcript.contains(plain) {
            return Err(format!("pull quote {plain:?} is not verbatim"));
        }
    }
    let numbers = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let known = numbers(transcript);
    if let Some(n) = numbers(&unescape(&strip_tags(html)))
        .into_iter()
        .find(|n| !known.contains(n))
    {
        return Err(format!("the number {n} is not in the transcript"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = "hi my name is ana lopez and i run operations at harbor freight co we used to spend 12 hours a week on manual routing then we started using routewise and now it takes 2 hours";

    #[test]
    fn the_rules_fragment_passes_the_llm_checks() {
        let html = casestudy::case_study_html(TRANSCRIPT);
        check_html(&html, TRANSCRIPT).unwrap();
    }

    #[test]
    fn invented_numbers_quotes_and_markup_are_refused() {
        let ok = "<article class=\"case-study\"><h1>Story</h1><section><h2>Challenge</h2><p>x</p></section><section><h2>Solution</h2></section><section><h2>Results</h2><blockquote class=\"pull-quote\">now it takes 2 hours</blockquote></section></article>";
        check_html(ok, TRANSCRIPT).unwrap();
        assert!(check_html(
            &ok.replace("2 hours</blockquote>", "2 hours flat</blockquote>"),
            TRANSCRIPT
        )
        .is_err());
        assert!(check_html(&ok.replace("<p>x</p>", "<p>saved 90%</p>"), TRANSCRIPT).is_err());
        assert!(check_html(&ok.replace("<p>x</p>", "<script>x</script>"), TRANSCRIPT).is_err());
        assert!(check_html(
            &ok.replace("<p>x</p>", "<p onclick=\"x\">x</p>"),
            TRANSCRIPT
        )
        .is_err());
        assert!(check_html(
            &ok.replace("</section></article>", "</article>"),
            TRANSCRIPT
        )
        .is_err());
        assert!(check_html(
            &ok.replace("<h2>Results</h2>", "<h2>Outcome</h2>"),
            TRANSCRIPT
        )
        .is_err());
    }
}
