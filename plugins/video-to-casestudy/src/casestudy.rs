//! Case-study HTML built from a video-testimonial transcript.
//!
//! [`case_study_html`] turns one transcript into a self-contained HTML
//! fragment: a title, the customer, a summary, pull quotes and the
//! Challenge / Solution / Results sections. It is built only from the
//! transcript: sentences and quotes are verbatim substrings of it (trimmed of
//! whitespace and of leading or trailing fillers such as "um", "so", "and"),
//! the customer fields come from [`crate::transcript::speaker`], the fixed
//! template text has no digits (apart from the tag names `h1` and `h2`), and
//! all transcript-derived text is HTML-escaped (`'` as `&#39;`). The output
//! depends only on the input.
//!
//! Sentences come from [`crate::segment`]; a sentence of more than 30 words
//! (typical of unpunctuated speech-recognition output) is split at discourse
//! markers ("and then", "so", "but", "um", "uh", ...) into chunks of about
//! 8–30 words, still verbatim.

use std::ops::Range;

use crate::segment;
use crate::transcript::{self, Speaker};

mod cues;
mod units;

use cues::{CHALLENGE, NEGATIVE, POSITIVE, RESULTS, SOLUTION};
use units::units;

/// A sentence longer than this (in words) is split at discourse markers.
const MAX_WORDS: usize = 30;
/// A chunk is not cut at a marker before it has this many words.
const MIN_WORDS: usize = 8;
/// Most sentences shown per section.
const PER_SECTION: usize = 4;
/// Most pull quotes.
const QUOTES: usize = 3;

/// Words trimmed from the start / end of a sentence or chunk.
const LEAD_TRIM: &str =
    "um umm uh uhh uhm erm er ah ahh oh so and but yeah like then well okay ok anyway";
const TRAIL_TRIM: &str = "um umm uh uhh uhm erm er ah ahh oh so and but yeah like then";
/// Words that open a new chunk in an over-long sentence.
const MARKERS: &str = "so but um uh umm uhm erm anyway";
/// "and" opens a chunk before one of these words.
const AND_MARKERS: &str = "then so now honestly it we our i they everything";
/// Clause openers ("before", "now") open a chunk before one of `SUBJECTS`.
const OPENERS: &str = "before now honestly then after since";
const SUBJECTS: &str = "that we i it the our they everything this";
/// Places to cut when no marker comes within `MAX_WORDS`.
const SOFT_MARKERS: &str = "and because which we i it when then";

/// Verbs that state an outcome with an object ("cut reporting time by 40 percent").
const OUTCOME_VERBS: &str = "cut reduced increased saved grew doubled tripled halved improved \
    boosted slashed lowered raised decreased";
/// Words after a number that belong to it.
const UNITS: &str = "percent % hours hour days day minutes minute weeks week months times x \
    dollars k";
/// Words that end an outcome phrase without a number.
const CLAUSE_END: &str = "and but so because which when then um uh";
/// Words of an outcome phrase that are not its object.
const NOT_OBJECT: &str = "by about around almost over nearly roughly up down to the a an it them \
    that this";
/// Words left out of an outcome phrase.
const DROPPED: &str = "our my their us me its like um uh";

/// Section headings, in output order (the order of `Unit::score`).
const SECTIONS: [&str; 3] = ["Challenge", "Solution", "Results"];

/// Builds the case-study HTML fragment from a transcript.
///
/// The fragment has one `<article class="case-study">` root holding an `<h1>`
/// title, a `<p class="customer">` with the speaker fields that were found, a
/// `<p class="summary">`, up to three `<blockquote class="pull-quote">` and
/// the `<section><h2>Challenge</h2>`, `Solution` and `Results` sections.
/// The title reads "How ORG OUTCOME with PRODUCT" only when the transcript
/// names the organisation and states a quantified outcome with an object;
/// otherwise "Customer story: ORG" or "Customer story".
pub fn case_study_html(transcript: &str) -> String {
    let speaker = transcript::speaker(transcript);
    let product = speaker.product.as_deref().map(str::to_lowercase);
    let units: Vec<Unit> = units(transcript)
        .into_iter()
        .map(|r| Unit::new(&transcript[r], product.as_deref()))
        .filter(|u| !u.words.is_empty() && is_clean(u.text))
        .collect();
    let mut sections: [Vec<usize>; 3] = Default::default();
    for (i, u) in units.iter().enumerate() {
        if let Some(s) = u.section() {
            sections[s].push(i);
        }
    }
    for (s, list) in sections.iter_mut().enumerate() {
        list.sort_by_key(|&i| (std::cmp::Reverse(units[i].score[s]), i));
        list.truncate(PER_SECTION);
        list.sort_unstable();
    }
    let outcome = outcome(&units);
    let org = speaker.organisation.as_ref().map(|f| f.value.as_str());

    let mut html = String::from("<article class=\"case-study\">\n");
    html.push_str(&format!(
        "<h1>{}</h1>\n",
        esc(&title(org, outcome.as_deref(), &speaker))
    ));
    let customer: Vec<String> = [
        ("name", &speaker.name),
        ("position", &speaker.position),
        ("organisation", &speaker.organisation),
    ]
    .iter()
    .filter_map(|(class, f)| f.as_ref().map(|f| (class, &f.value)))
    .map(|(class, v)| format!("<span class=\"customer-{class}\">{}</span>", esc(v)))
    .collect();
    if !customer.is_empty() {
        html.push_str(&format!(
            "<p class=\"customer\">{}</p>\n",
            customer.join(", ")
        ));
    }
    let summary = summary(&speaker, &sections, outcome.as_deref());
    html.push_str(&format!("<p class=\"summary\">{}</p>\n", esc(&summary)));
    for q in quotes(&units, &sections) {
        let text = esc(units[q].text);
        html.push_str(&format!(
            "<blockquote class=\"pull-quote\"><p>{text}</p></blockquote>\n"
        ));
    }
    for (heading, list) in SECTIONS.iter().zip(&sections) {
        html.push_str(&format!("<section><h2>{heading}</h2>\n"));
        for &i in list {
            html.push_str(&format!("<p>{}</p>\n", esc(units[i].text)));
        }
        if list.is_empty() {
            html.push_str("<p>Not described in the interview.</p>\n");
        }
        html.push_str("</section>\n");
    }
    html.push_str("</article>\n");
    html
}

/// A sentence or chunk of the transcript with its cue scores.
struct Unit<'a> {
    text: &'a str,
    words: Vec<Word<'a>>,
    /// Challenge, solution and results scores.
    score: [u32; 3],
    /// How quotable it is; `None` when negative, too short or too long.
    quote: Option<u32>,
}

/// A word of a unit: its text and lower-cased form.
struct Word<'a> {
    text: &'a str,
    lower: String,
}

impl<'a> Unit<'a> {
    fn new(text: &'a str, product: Option<&str>) -> Self {
        let words = words(text);
        let mut score = [
            cues(&words, CHALLENGE),
            cues(&words, SOLUTION),
            cues(&words, RESULTS),
        ];
        if words
            .iter()
            .any(|w| w.text.chars().any(|c| c.is_ascii_digit()))
        {
            score[2] += 2;
        }
        // "with X we ...", or the product named
        let with_we = words.iter().enumerate().any(|(i, w)| {
            w.lower == "with" && words.iter().skip(i + 2).take(3).any(|w| w.lower == "we")
        });
        let lower = words
            .iter()
            .map(|w| w.lower.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let names_product = product.is_some_and(|p| !p.is_empty() && lower.contains(p));
        score[1] += u32::from(with_we);
        if score[1] > 0 && names_product {
            score[1] += 1;
        }
        let positive = cues(&words, POSITIVE);
        if positive >= score[0] {
            // "I'd recommend it to anyone struggling with ..." is no challenge.
            score[0] = 0;
        }
        let quotable = cues(&words, NEGATIVE) == 0 && (6..=40).contains(&words.len());
        let quote = quotable.then_some(if positive > 0 || score[2] >= 3 {
            2 * positive + score[2]
        } else {
            0
        });
        Unit {
            text,
            words,
            score,
            quote,
        }
    }

    /// The section the unit belongs to: highest score, ties to the later one.
    fn section(&self) -> Option<usize> {
        let best = (0..3).max_by_key(|&s| (self.score[s], s))?;
        (self.score[best] > 0).then_some(best)
    }
}

/// Whether every character may appear as text in HTML.
fn is_clean(s: &str) -> bool {
    !s.chars().any(|c| {
        (c.is_control() && !matches!(c, '\n' | '\t' | '\r' | '\x0C'))
            || matches!(c, '\u{FDD0}'..='\u{FDEF}')
            || (c as u32 & 0xFFFE) == 0xFFFE
    })
}

/// Words: letters and digits with inner apostrophes, hyphens, and "." or ","
/// between digits; a "%" is a word of its own.
fn words(s: &str) -> Vec<Word<'_>> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&(start, c)) = chars.get(i) {
        i += 1;
        if c == '%' {
            out.push(Word {
                text: "%",
                lower: "%".into(),
            });
        }
        if !c.is_alphanumeric() {
            continue;
        }
        while let Some(&(_, c)) = chars.get(i) {
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map_or(' ', |&(_, n)| n);
            let inner = match c {
                '\'' | '’' | '-' => prev.is_alphanumeric() && next.is_alphanumeric(),
                '.' | ',' => prev.is_ascii_digit() && next.is_ascii_digit(),
                _ => c.is_alphanumeric(),
            };
            if !inner {
                break;
            }
            i += 1;
        }
        let text = &s[start..chars.get(i).map_or(s.len(), |&(b, _)| b)];
        out.push(Word {
            text,
            lower: text.to_lowercase().replace('’', "'"),
        });
    }
    out
}

/// A cue phrase (see [`CHALLENGE`]) and its weight.
type Cue = (&'static str, u32);

/// Sum of the weights of the cues of `list` that occur in `words`.
fn cues(words: &[Word], list: &[Cue]) -> u32 {
    let matches = |w: &Word, part: &str| match part.strip_suffix('*') {
        Some(prefix) => w.lower.starts_with(prefix),
        None => w.lower == part,
    };
    let occurs = |phrase: &str| {
        let len = phrase.split('_').count();
        let window = |win: &[Word]| {
            win.iter()
                .zip(phrase.split('_'))
                .all(|(w, p)| matches(w, p))
        };
        words.windows(len).any(window)
    };
    list.iter()
        .filter(|(phrase, _)| occurs(phrase))
        .map(|(_, weight)| weight)
        .sum()
}

fn has(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split(' ').any(|w| w == word)
}

/// The strongest quantified outcome, as transcript words
/// ("cut reporting time by 40 percent").
fn outcome(units: &[Unit]) -> Option<String> {
    let mut best: Option<(u32, String)> = None;
    for u in units.iter().filter(|u| u.score[2] > 0) {
        for v in (0..u.words.len()).filter(|&v| has(OUTCOME_VERBS, &u.words[v].lower)) {
            let Some((phrase, unit)) = outcome_phrase(&u.words, v) else {
                continue;
            };
            let rank = match unit.as_str() {
                "percent" | "%" => 3,
                "" => 1,
                _ => 2,
            };
            if best.as_ref().is_none_or(|(r, _)| rank > *r) {
                best = Some((rank, phrase));
            }
        }
    }
    best.map(|(_, phrase)| phrase)
}

/// The outcome phrase starting at verb `v` and its unit ("percent", "" if none).
fn outcome_phrase(words: &[Word], v: usize) -> Option<(String, String)> {
    let mut parts = vec![words[v].text];
    let mut object = words[v].lower == "saved";
    let mut k = v + 1;
    while k < words.len().min(v + 10) {
        let w = words[k].lower.as_str();
        if has(CLAUSE_END, w) {
            return None;
        }
        k += 1;
        if has(DROPPED, w) {
            continue;
        }
        if !w.chars().any(|c| c.is_ascii_digit()) {
            object |= !has(NOT_OBJECT, w);
            parts.push(words[k - 1].text);
            continue;
        }
        if !object
            || words[..k - 1]
                .iter()
                .rev()
                .take(2)
                .any(|w| w.lower == "from")
        {
            return None;
        }
        parts.push(words[k - 1].text);
        let unit = words.get(k).filter(|w| has(UNITS, &w.lower));
        if let Some(u) = unit {
            parts.push(u.text);
            let per = words.get(k + 1).zip(words.get(k + 2));
            if let Some((a, b)) = per.filter(|(a, b)| {
                matches!(a.lower.as_str(), "a" | "per" | "every" | "each")
                    && matches!(
                        b.lower.as_str(),
                        "day" | "week" | "month" | "year" | "quarter"
                    )
            }) {
                parts.extend([a.text, b.text]);
            }
        }
        let mut phrase = String::new();
        for p in parts {
            if !phrase.is_empty() && p != "%" {
                phrase.push(' ');
            }
            phrase.push_str(p);
        }
        return Some((phrase, unit.map_or(String::new(), |u| u.lower.clone())));
    }
    None
}

fn title(org: Option<&str>, outcome: Option<&str>, speaker: &Speaker) -> String {
    match (org, outcome) {
        (Some(org), Some(outcome)) => {
            let mut t = format!("How {org} {outcome}");
            if let Some(p) = &speaker.product {
                if !outcome.to_lowercase().contains(&p.to_lowercase()) {
                    t.push_str(&format!(" with {p}"));
                }
            }
            t
        }
        (Some(org), None) => format!("Customer story: {org}"),
        _ => "Customer story".to_string(),
    }
}

/// One or two template sentences over the found fields and sections.
fn summary(speaker: &Speaker, sections: &[Vec<usize>; 3], outcome: Option<&str>) -> String {
    let value = |f: &Option<transcript::Found>| f.as_ref().map(|f| f.value.clone());
    let (name, pos, org) = (
        value(&speaker.name),
        value(&speaker.position),
        value(&speaker.organisation),
    );
    let who = match (name, pos, org) {
        (Some(n), Some(p), Some(o)) => format!("{n}, {p} at {o},"),
        (Some(n), Some(p), None) => format!("{n}, {p},"),
        (Some(n), None, Some(o)) => format!("{n} from {o}"),
        (Some(n), None, None) => n,
        (None, _, Some(o)) => format!("A customer from {o}"),
        (None, _, None) => "The customer".to_string(),
    };
    let solution = match &speaker.product {
        Some(p) => format!("how they started using {p}"),
        None => "the solution they adopted".to_string(),
    };
    let topics: Vec<String> = [
        "the challenges they faced".to_string(),
        solution,
        "the results they saw".to_string(),
    ]
    .into_iter()
    .zip(sections)
    .filter(|(_, list)| !list.is_empty())
    .map(|(t, _)| t)
    .collect();
    let mut s = match topics.as_slice() {
        [] => format!("{who} shares their experience."),
        [one] => format!("{who} describes {one}."),
        [init @ .., last] => format!("{who} describes {} and {last}.", init.join(", ")),
    };
    if let Some(o) = outcome {
        s.push_str(&format!(" Headline result: they {o}."));
    }
    s
}

/// Indices of the most quotable units (positive or outcome sentences), best
/// first; without any, the first result or solution sentence, or else the first
/// sentence of quotable length.
fn quotes(units: &[Unit], sections: &[Vec<usize>; 3]) -> Vec<usize> {
    let score = |i: usize| units[i].quote.unwrap_or(0);
    let mut q: Vec<usize> = (0..units.len()).filter(|&i| score(i) > 0).collect();
    q.sort_by_key(|&i| (std::cmp::Reverse(score(i)), i));
    q.truncate(QUOTES);
    if q.is_empty() {
        let fallback = sections[2].iter().chain(&sections[1]).copied();
        let first = fallback
            .chain(0..units.len())
            .find(|&i| units[i].quote.is_some());
        q.extend(first);
    }
    q
}

/// Escapes `& < > " '`; characters not allowed in HTML become U+FFFD.
/// Reverses [`esc`]: the text of an escaped fragment.
pub fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The text of an HTML fragment without its tags (entities left as they are).
pub fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if !is_clean(c.encode_utf8(&mut [0; 4])) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
