//! Picks the most quotable short span of a review and wraps it in `<mark>`.
//!
//! # Candidate spans
//!
//! The text is split with [`crate::segment::quote_spans`]: sentences, further
//! cut at line breaks, at emoji and after a full stop glued to a capitalised
//! word, so a span never crosses a sentence boundary. Each piece is further
//! cut into clauses after `,` `;` `:` (and their full-width forms), after a
//! `!`/`?`/`.` the segmenter did not treat as a sentence end, at dashes (`—`,
//! `–`, a spaced `-`) and before the conjunctions "and"/"but" (also French
//! *et*/*mais*, Spanish *y*/*pero*, German *und*/*aber*). Every run of
//! consecutive clauses of a piece is a candidate, the whole piece included. A
//! candidate is trimmed of leading punctuation, leading conjunctions (and, but,
//! or, yet, plus and their French, Spanish and German counterparts) and a
//! leading list marker, so it starts at the first letter or digit of a word
//! and ends after the last letter or digit of a word. Directly attached to
//! those words, a currency sign, `¿`/`¡`, or an opening quote or bracket whose
//! closing partner lies inside the span is kept at the start, and `%` `‰` `°`
//! `+` at the end; when the span reaches the end of its sentence, the terminal
//! punctuation (`.` `!` `?` `…` and CJK full stops) directly after the last
//! word is kept too. A span never starts or ends with whitespace.
//!
//! A candidate must have 5–25 words (tokens separated by whitespace or dashes
//! that contain a letter or digit) and 40–160 characters (`char`s), or 30–39
//! characters when it is a whole sentence. Text without spaces between words
//! (Chinese, Japanese, ...) therefore rarely yields a candidate.
//!
//! # Scoring
//!
//! Words are compared lower-cased, stripped of surrounding punctuation, with
//! `’` read as `'`; the lists are in [`crate::lexicon`]. A candidate is
//! **rejected** outright when it contains
//!
//! * a negation (not, never, no, nothing, cannot, any word ending in `n't`, ...,
//!   French pas/jamais/`n'…`, Spanish nunca/nada, German nicht/kein, ...),
//!   unless it denies a fault within the next three words ("never failed me",
//!   "no hidden costs", "haven't had any issues", "wouldn't hesitate"; with
//!   can't/couldn't also "can't recommend it enough", "couldn't be happier"),
//!   says "not only", or is part of a praise phrase ("look no further");
//! * a hedge (maybe, might, seems, probably, "kind of", "I think", ...);
//! * a wish or a request: wish, hopefully, please, "I'd love", "I'd like",
//!   "would love", "it would be nice", "would be great", "needs to", "I hope",
//!   ... (what is missing is no praise, least of all after "not perfect");
//! * a complaint: however, unfortunately, disappointed, terrible, bad, slow,
//!   expensive, "but the", ... (and their French, Spanish and German forms).
//!
//! Otherwise it earns points:
//!
//! | signal | points |
//! |---|---|
//! | praise word or phrase (love, excellent, great, helpful, worth, "every penny", "value for money", "highly recommend", "give it a try", "second to none", "I like", "works well", génial, excelente, toll, ...) | 2 each, at most 3 counted |
//! | mild praise (useful, simple, affordable, stable, prompt, knowledgeable, appreciate, satisfied, thanks, ...); after very/really/extremely/so/... it counts as praise | 1 each, at most 2 |
//! | a denied fault ("never failed", "no complaints") | 1.5 each, at most 2 |
//! | superlative: best, easiest, ...; any other "-est" word after the/my/our/its/their ("the slickest"); "the most" before a word; "ever seen/used/had/..."; with one of these, "I've used/seen", "has used", ... counts as one more | 1.5 each, at most 2 |
//! | outcome word (saved, increased, reduced, cut, doubled, improved, faster, cheaper, easier, better, ...) or a range "from N … to N" ("from nine hours to under two") | 1.5 each, at most 2 |
//! | number: a word containing a digit ("3", "40%", "10x") or a number word from two upward ("nine", "hundred") | 1 each, at most 2 |
//! | quantified outcome: a number together with an outcome, a range, `%` or an `Nx` multiplier; or an outcome with what it is measured in, within three words ("saves us time", "cut our costs") | 1.5 |
//! | first-person outcome: I/we/our/my/I've/we've one or two words before an outcome word or got/made/found/finished/reached/landed/hit | 1 |
//! | the candidate is the whole sentence, of 40 characters or more | 0.5 |
//! | each word beyond 20 | −0.25 |
//!
//! A candidate needs a praise word or phrase, a denied fault, a superlative, an
//! outcome, or a number with a first-person outcome, and at least
//! [`MIN_SCORE`] points. The highest score wins; ties go to the earliest span
//! (then the shorter one), so the choice is deterministic. When no candidate
//! qualifies (a purely negative, hedged or very short review such as "ok")
//! there is no highlight.
//!
//! # Escaping
//!
//! The review is treated as plain text and returned as-is: [`highlight`]
//! performs **no HTML escaping** of the review; it only inserts the two
//! literal tags `<mark>` and `</mark>`, and every other byte is unchanged.
//! Callers that render the result as HTML must therefore HTML-escape the
//! review text themselves: every part of it other than the two inserted tags,
//! that is the text before, inside and after the mark. The simplest way is to
//! call [`best_span`] and escape `text[..start]`, `text[start..end]` and
//! `text[end..]` separately before joining them with the tags.

use std::ops::Range;

use phf::Set;

use crate::lexicon::*;
use crate::segment::quote_spans;

mod score;
mod tokens;

use score::{score, signals};
use tokens::{is_list_marker, tokens, Token};

/// The chosen span: byte range into the original text, and why (for docs/tests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Highlight {
    /// Byte offset where the span starts (always a `char` boundary).
    pub start: usize,
    /// Byte offset just past the span (always a `char` boundary).
    pub end: usize,
    /// The span's score, as described in the module documentation.
    pub score: f64,
}

const MIN_WORDS: usize = 5;
const MAX_WORDS: usize = 25;
const MIN_CHARS: usize = 40;
/// The shortest whole sentence that may be a span.
const MIN_WHOLE_CHARS: usize = 30;
const MAX_CHARS: usize = 160;

/// The fewest points a span needs. Calibrated on data, not set by hand: it is
/// the threshold with the best F-0.5 of acceptable marks on
/// `eval/highlight/calibration.jsonl` (a 0.25 grid, the lowest on a tie);
/// recompute it with
/// `cargo test --release -p plugin-highlight-review-text --test calibration -- --nocapture`,
/// which prints the value and fails when this constant differs.
pub const MIN_SCORE: f64 = 2.25;

const CLAUSE_PUNCT: &[char] = &[',', ';', ':', '，', '、', '；', '：'];
const TERMINALS: &[char] = &['.', '!', '?', '…', '。', '！', '？'];
const DASHES: &[char] = &['—', '–'];
const CURRENCIES: &[char] = &['$', '€', '£', '¥'];
/// Closing quotes and brackets (a pattern: it is tested for every character).
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '»' | '›' | '」' | '』' | '）'
    )
}
/// Symbols that belong to the number before them ("40%").
const UNIT_SUFFIXES: &str = "%‰°+";
/// Opening quotes and brackets with their closing partners.
const OPENERS: &[(char, char)] = &[
    ('“', '”'),
    ('"', '"'),
    ('‘', '’'),
    ('\'', '\''),
    ('(', ')'),
    ('[', ']'),
    ('«', '»'),
    ('„', '“'),
];

/// Byte ranges of HTML markup in `text`: tags (`<b>`, `</p>`, `<br/>`) and
/// character references (`&amp;`, `&#39;`).
/// Sorted and disjoint; found in one pass, whatever the text (a run of `<a`
/// with no `>` after it costs no more than any other text).
fn markup(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // Set once no `>` follows: no later `<` can open a tag then.
    let mut no_close = false;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'<' if !no_close
                && bytes.get(i + 1).is_some_and(|c| {
                    c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?')
                }) =>
            {
                let close = text[i..].find('>').map(|e| i + e + 1);
                no_close = close.is_none();
                close
            }
            b'&' => {
                let rest = &text[i + 1..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
                    .unwrap_or(rest.len());
                (len > 0 && rest[len..].starts_with(';')).then_some(i + len + 2)
            }
            _ => None,
        };
        match end {
            Some(end) => {
                found.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    found
}

/// Whether a span lies wholly in text: no tag or character reference (of
/// `marks`, the text's [`markup`]) inside it or cut by it, so `<mark>` never
/// lands inside markup.
fn clear_of(marks: &[Range<usize>], span: Range<usize>) -> bool {
    let first_after = marks.partition_point(|m| m.end <= span.start);
    marks.get(first_after).is_none_or(|m| span.end <= m.start)
}

/// Picks the single most quotable short span, or None when nothing is worth highlighting.
pub fn best_span(text: &str) -> Option<Highlight> {
    best_candidate(text).filter(|h| h.score >= MIN_SCORE)
}

/// The highest-scoring candidate whatever its score (the threshold
/// [`MIN_SCORE`] is calibrated on these); None when no candidate has a signal.
pub fn best_candidate(text: &str) -> Option<Highlight> {
    let mut best: Option<Highlight> = None;
    let marks = markup(text);
    for piece in quote_spans(text) {
        for candidate in candidates(text, piece) {
            let clear = clear_of(&marks, candidate.start..candidate.end);
            if clear && best.is_none_or(|b| candidate.score > b.score) {
                best = Some(candidate);
            }
        }
    }
    best
}

/// Whether `range` of `text` (a span proposed elsewhere, e.g. by an LLM) obeys the
/// same rules as [`best_span`]'s spans: on character boundaries, within one
/// sentence, 5–25 words and 40–160 characters (30–39 for a whole sentence), and
/// free of negated, hedged, wishful or complaining words.
pub fn acceptable(text: &str, range: Range<usize>) -> bool {
    let Some(span) = text.get(range.clone()) else {
        return false;
    };
    let Some(piece) = quote_spans(text)
        .into_iter()
        .find(|s| s.start <= range.start && range.end <= s.end)
    else {
        return false;
    };
    let words = span
        .split(|c: char| c.is_whitespace() || DASHES.contains(&c))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    let chars = span.chars().count();
    // Whole as `candidates` counts it: from the sentence's first word a span
    // may start with (after a leading "But" or a list marker) to its end.
    let piece_toks = tokens(text, piece.clone());
    let first = (0..piece_toks.len())
        .find(|&k| !leads_in(text, &piece_toks, k))
        .map_or(piece.end, |k| {
            let t = &piece_toks[k].range;
            t.start + text[t.clone()].find(char::is_alphanumeric).unwrap_or(0)
        });
    let last = text[piece.clone()]
        .char_indices()
        .rfind(|(_, c)| c.is_alphanumeric())
        .map_or(piece.start, |(i, c)| piece.start + i + c.len_utf8());
    let whole = range.start <= first && range.end >= last;
    let min_chars = if whole { MIN_WHOLE_CHARS } else { MIN_CHARS };
    let toks = tokens(text, range.clone());
    clear_of(&markup(text), range)
        && (MIN_WORDS..=MAX_WORDS).contains(&words)
        && (min_chars..=MAX_CHARS).contains(&chars)
        && span == span.trim()
        && signals(&toks).is_some()
}

/// The text with that span wrapped in `<mark>`…`</mark>`; every other byte
/// unchanged. Returns the text unchanged when [`best_span`] is `None`.
///
/// No HTML escaping is done (see the module documentation); in a review that
/// holds HTML, only a span of plain text between tags and character references
/// is marked, so the markup stays well-formed.
pub fn highlight(text: &str) -> String {
    let Some(h) = best_span(text) else {
        return text.to_string();
    };
    match (
        text.get(..h.start),
        text.get(h.start..h.end),
        text.get(h.end..),
    ) {
        (Some(before), Some(marked), Some(after)) => {
            format!("{before}<mark>{marked}</mark>{after}")
        }
        _ => text.to_string(),
    }
}

/// All candidates with a signal of one piece of text, in order of start (then end).
fn candidates(text: &str, sentence: Range<usize>) -> Vec<Highlight> {
    let toks = tokens(text, sentence);
    let mut piece_starts = vec![0];
    for (k, t) in toks.iter().enumerate().skip(1) {
        if t.break_before || SPLIT_CONJUNCTIONS.contains(&t.word.as_str()) {
            piece_starts.push(k);
        }
    }
    // first_content[k]: the first token at or after k that a span may start
    // with (a word that is neither a leading conjunction nor a list marker).
    let mut first_content = vec![toks.len(); toks.len() + 1];
    for k in (0..toks.len()).rev() {
        first_content[k] = if leads_in(text, &toks, k) {
            first_content[k + 1]
        } else {
            k
        };
    }
    let n = piece_starts.len();
    let mut out = Vec::new();
    for (i, &piece_start) in piece_starts.iter().enumerate() {
        let lo = first_content[piece_start];
        let Some(first) = toks.get(lo) else { break };
        // Runs ending before `lo` are empty: start at the piece holding it.
        let from = piece_starts.partition_point(|&s| s <= lo).max(i + 1) - 1;
        // Words, and characters from the end of the first token to the
        // start of the last one, counted incrementally as the run grows.
        let (mut words, mut counted) = (0, lo);
        let (mut gap, mut gap_end) = (0, first.range.end);
        for j in from..n {
            let end = piece_starts.get(j + 1).copied().unwrap_or(toks.len());
            words += toks[counted..end]
                .iter()
                .filter(|t| !t.word.is_empty())
                .count();
            counted = end;
            let last_start = toks[end - 1].range.start.max(gap_end);
            gap += text[gap_end..last_start].chars().count();
            gap_end = last_start;
            // Longer runs only add words and length, so stop once too long.
            if words > MAX_WORDS || gap > MAX_CHARS {
                break;
            }
            if words < MIN_WORDS {
                continue;
            }
            let whole = i == 0 && j == n - 1;
            if let Some(h) = build(text, &toks[lo..end], end == toks.len(), whole, words) {
                out.push(h);
            }
        }
    }
    out
}

/// Whether token `k` of `toks` is one a span does not start with: no word, a
/// leading conjunction ("but", "and") or a list marker.
fn leads_in(text: &str, toks: &[Token], k: usize) -> bool {
    let t = &toks[k];
    let marker = k + 1 < toks.len() && is_list_marker(&text[t.range.clone()]);
    t.word.is_empty() || LEADING_CONJUNCTIONS.contains(&t.word.as_str()) || marker
}

/// Bounds-checks and scores a run of tokens starting with a word.
fn build(text: &str, run: &[Token], at_end: bool, whole: bool, words: usize) -> Option<Highlight> {
    let last_word = run.iter().rposition(|t| !t.word.is_empty())?;
    let first = &run[0];
    let last = &run[last_word];
    let first_raw = &text[first.range.clone()];
    let lead = first_raw.find(char::is_alphanumeric)?;
    let last_raw = &text[last.range.clone()];
    let (idx, c) = last_raw
        .char_indices()
        .rfind(|(_, c)| c.is_alphanumeric())?;
    let mut end = last.range.start + idx + c.len_utf8();
    let mut tail = text[end..last.range.end].chars().peekable();
    while let Some(c) = tail.next_if(|c| UNIT_SUFFIXES.contains(*c)) {
        end += c.len_utf8();
    }
    if at_end && last_word + 1 == run.len() {
        while let Some(c) = tail.next_if(|c| TERMINALS.contains(c)) {
            end += c.len_utf8();
        }
    }
    let mut start = first.range.start + lead;
    // Keep a currency sign, `¿`/`¡`, or an opening quote or bracket whose
    // closing partner lies inside the span, directly before the first word.
    for c in first_raw[..lead].chars().rev() {
        let closed = OPENERS
            .iter()
            .any(|&(o, cl)| o == c && text[start..end].contains(cl));
        if CURRENCIES.contains(&c) || c == '¿' || c == '¡' || closed {
            start -= c.len_utf8();
        } else {
            break;
        }
    }
    let chars = text.get(start..end)?.chars().take(MAX_CHARS + 1).count();
    let min_chars = if whole { MIN_WHOLE_CHARS } else { MIN_CHARS };
    if !(MIN_WORDS..=MAX_WORDS).contains(&words) || !(min_chars..=MAX_CHARS).contains(&chars) {
        return None;
    }
    let raw = text.get(start..end)?;
    let score = score(&run[..=last_word], raw, whole)?;
    Some(Highlight { start, end, score })
}

#[cfg(test)]
mod tests;
