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

/// A whitespace-separated token of a sentence.
struct Token {
    /// Byte range in the whole text.
    range: Range<usize>,
    /// Lower-cased, trimmed of surrounding punctuation; empty for non-words.
    word: String,
    /// Whether a clause boundary precedes this token.
    break_before: bool,
    /// What the word signals, computed once.
    class: Class,
}

/// The signals of one word (see the module documentation).
#[derive(Clone, Copy, Default)]
struct Class {
    /// A negation word.
    negation: bool,
    /// A negation of possibility (can't, couldn't).
    modal_negation: bool,
    /// A hedge, wish or complaint word, or a word of such a phrase.
    bad: bool,
    /// 2 for praise, 1 for mild praise.
    praise: u8,
    superlative: bool,
    outcome: bool,
    /// A verb that is an outcome only after a first-person subject.
    first_person_verb: bool,
    first_person: bool,
    number: bool,
    multiplier: bool,
    /// A fault a negation may deny ("issues").
    target: bool,
    /// A fault only a modal negation may deny ("happier").
    modal_target: bool,
    /// What an outcome is measured in (time, money, ...).
    outcome_object: bool,
    /// Starts "I've used", "has seen", ...: backs a superlative.
    experience: bool,
    /// The word "only" ("not only").
    only: bool,
    /// The length in words of a praise phrase starting here, or 0.
    phrase: u8,
    /// A word inside a praise phrase (its negations do not count).
    in_phrase: bool,
    /// The length in words of a "from N … to N" range starting here, or 0.
    range: u8,
}

fn classify(w: &str) -> Class {
    if w.is_empty() {
        return Class::default();
    }
    let elided = |list: &Set<&str>| {
        list.contains(w) || w.rsplit_once('\'').is_some_and(|(_, s)| list.contains(s))
    };
    let negation = NEGATIONS.contains(w) || w.ends_with("n't") || w.starts_with("n'");
    let praise = if elided(&PRAISE) {
        2
    } else {
        u8::from(elided(&MILD_PRAISE))
    };
    Class {
        negation,
        modal_negation: MODAL_NEGATIONS.contains(&w),
        bad: HEDGES.contains(w) || COMPLAINTS.contains(w),
        praise,
        superlative: SUPERLATIVES.contains(w),
        outcome: OUTCOMES.contains(w),
        first_person_verb: FIRST_PERSON_VERBS.contains(w),
        first_person: FIRST_PERSON.contains(&w),
        number: w.chars().any(|c| c.is_ascii_digit()) || NUMBER_WORDS.contains(w),
        multiplier: w
            .strip_suffix('x')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        target: LITOTES_TARGETS.contains(w) || COMPLAINTS.contains(w),
        modal_target: MODAL_LITOTES_TARGETS.contains(&w),
        only: w == "only",
        outcome_object: OUTCOME_OBJECTS.contains(w),
        ..Class::default()
    }
}

fn normalise(raw: &str) -> String {
    raw.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('’', "'")
}

/// Splits a sentence into tokens at whitespace and dashes, noting clause breaks.
fn tokens(text: &str, sentence: Range<usize>) -> Vec<Token> {
    let mut out = Vec::new();
    let mut pending = false;
    let mut start: Option<usize> = None;
    let base = sentence.start;
    let Some(s) = text.get(sentence.clone()) else {
        return out;
    };
    for (i, c) in s.char_indices() {
        if c.is_whitespace() || DASHES.contains(&c) {
            if let Some(b) = start.take() {
                push_token(&mut out, &mut pending, text, base + b..base + i);
            }
            pending |= DASHES.contains(&c);
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(b) = start {
        push_token(&mut out, &mut pending, text, base + b..sentence.end);
    }
    mark_phrases(&mut out);
    out
}

/// Whether `phrase` is spelled by the words at `at` of `words`.
fn matches_at(words: &[&str], at: usize, phrase: &[&str]) -> bool {
    words.get(at..at + phrase.len()) == Some(phrase)
}

/// Marks what words mean together: phrases, "-est" superlatives, ranges.
fn mark_phrases(toks: &mut [Token]) {
    let idx: Vec<usize> = (0..toks.len())
        .filter(|&k| !toks[k].word.is_empty())
        .collect();
    let owned: Vec<String> = idx.iter().map(|&k| toks[k].word.clone()).collect();
    let words: Vec<&str> = owned.iter().map(String::as_str).collect();
    for p in 0..words.len() {
        for phrase in HEDGE_PHRASES.iter().chain(COMPLAINT_PHRASES) {
            if matches_at(&words, p, phrase) {
                for q in p..p + phrase.len() {
                    toks[idx[q]].class.bad = true;
                }
            }
        }
        for phrase in PRAISE_PHRASES {
            if matches_at(&words, p, phrase) {
                toks[idx[p]].class.phrase = phrase.len() as u8;
                for q in p..p + phrase.len() {
                    toks[idx[q]].class.in_phrase = true;
                }
            }
        }
        if EVER_PHRASES.iter().any(|ph| matches_at(&words, p, ph)) {
            toks[idx[p]].class.superlative = true;
        }
        if EXPERIENCE_PHRASES
            .iter()
            .any(|ph| matches_at(&words, p, ph))
        {
            toks[idx[p]].class.experience = true;
        }
        let after_determiner = p > 0 && DETERMINERS.contains(&words[p - 1]);
        let w = words[p];
        let est = w.ends_with("est")
            && w.chars().count() >= 6
            && w.chars().all(char::is_alphabetic)
            && !NOT_SUPERLATIVES.contains(w);
        let most = w == "most" && p > 0 && words[p - 1] == "the" && p + 1 < words.len();
        if after_determiner && est || most {
            toks[idx[p]].class.superlative = true;
        }
        if p > 0 && toks[idx[p]].class.praise == 1 && INTENSIFIERS.contains(&words[p - 1]) {
            toks[idx[p]].class.praise = 2;
        }
        if w == "from" {
            if let Some(len) = range_len(&words, &idx, toks, p) {
                toks[idx[p]].class.range = len;
            }
        }
    }
}

/// The length in words of "from N … to N" starting at word `p`, if any.
fn range_len(words: &[&str], idx: &[usize], toks: &[Token], p: usize) -> Option<u8> {
    let number_after = |from: usize| {
        (from..words.len().min(from + 3))
            .take_while(|&q| toks[idx[q]].class.number || RANGE_FILLERS.contains(&words[q]))
            .find(|&q| toks[idx[q]].class.number)
    };
    let first = number_after(p + 1)?;
    let to = (first + 1..words.len().min(first + 4)).find(|&q| words[q] == "to")?;
    let last = number_after(to + 1)?;
    u8::try_from(last - p + 1).ok()
}

fn push_token(out: &mut Vec<Token>, pending: &mut bool, text: &str, range: Range<usize>) {
    let raw = &text[range.clone()];
    if raw.chars().all(|c| c == '-') {
        *pending = true;
        return;
    }
    let word = normalise(raw);
    out.push(Token {
        class: classify(&word),
        word,
        range,
        break_before: *pending,
    });
    let core = raw.trim_end_matches(is_closer);
    *pending = core.ends_with(CLAUSE_PUNCT) || core.ends_with(TERMINALS);
}

fn is_list_marker(raw: &str) -> bool {
    let Some(head) = raw.strip_suffix(['.', ')']) else {
        return false;
    };
    (1..=3).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit())
        || head.len() == 1 && head.bytes().all(|b| b.is_ascii_alphabetic())
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

/// What a run of tokens says; None when it is negated, hedged, wishful or a complaint.
#[derive(Default)]
struct Signals {
    praise: usize,
    mild: usize,
    denied_faults: usize,
    superlatives: usize,
    outcomes: usize,
    numbers: usize,
    quantified: bool,
    first_person: bool,
    words: usize,
}

fn signals(run: &[Token]) -> Option<Signals> {
    let words: Vec<Class> = run
        .iter()
        .filter(|t| !t.word.is_empty())
        .map(|t| t.class)
        .collect();
    let n = words.len();
    // Negations that deny a fault ("never failed"), and the faults they deny.
    let mut denied = vec![false; n];
    let mut s = Signals {
        words: n,
        ..Signals::default()
    };
    for (k, c) in words.iter().enumerate() {
        if !c.negation || c.in_phrase || denied[k] {
            continue;
        }
        if words.get(k + 1).is_some_and(|w| w.only) {
            denied[k] = true;
            continue;
        }
        let reach = if c.modal_negation { 5 } else { 4 };
        let target = (k + 1..n.min(k + reach))
            .find(|&t| words[t].target || c.modal_negation && words[t].modal_target);
        if let Some(t) = target {
            denied[k] = true;
            denied[t] = true;
            s.denied_faults += 1;
        }
    }
    let mut multiplier = false;
    for (k, c) in words.iter().enumerate() {
        if denied[k] {
            continue;
        }
        if c.bad || c.negation && !c.in_phrase {
            return None;
        }
        match c.praise {
            2 => s.praise += 1,
            1 => s.mild += 1,
            _ => {}
        }
        if c.phrase > 0 && k + usize::from(c.phrase) <= n {
            s.praise += 1;
        }
        if c.range > 0 && k + usize::from(c.range) <= n {
            s.outcomes += 1;
            s.quantified = true;
        }
        s.superlatives += usize::from(c.superlative);
        s.outcomes += usize::from(c.outcome);
        s.numbers += usize::from(c.number);
        multiplier |= c.multiplier;
        let subject = words[k.saturating_sub(2)..k].iter().any(|p| p.first_person);
        s.first_person |= (c.outcome || c.first_person_verb) && subject;
    }
    if s.superlatives > 0 && words.iter().any(|c| c.experience) {
        s.superlatives += 1;
    }
    s.quantified |= s.numbers > 0 && (s.outcomes > 0 || multiplier);
    // An outcome with what it is measured in: "saves us time".
    s.quantified |= words
        .iter()
        .enumerate()
        .any(|(k, c)| c.outcome && words[k + 1..n.min(k + 4)].iter().any(|w| w.outcome_object));
    Some(s)
}

/// Scores a run, or None when it is rejected or has no signal.
fn score(run: &[Token], raw: &str, whole: bool) -> Option<f64> {
    let s = signals(run)?;
    let numbered_result = s.numbers > 0 && s.first_person;
    if s.praise + s.mild + s.denied_faults + s.superlatives + s.outcomes == 0 && !numbered_result {
        return None;
    }
    let mut points = 2.0 * s.praise.min(3) as f64
        + s.mild.min(2) as f64
        + 1.5 * s.denied_faults.min(2) as f64
        + 1.5 * s.superlatives.min(2) as f64
        + 1.5 * s.outcomes.min(2) as f64
        + s.numbers.min(2) as f64;
    if s.quantified || s.numbers > 0 && raw.contains('%') {
        points += 1.5;
    }
    if s.first_person {
        points += 1.0;
    }
    // A short span is admitted only as a whole sentence: no bonus for that.
    if whole && raw.chars().count() >= MIN_CHARS {
        points += 0.5;
    }
    points -= 0.25 * s.words.saturating_sub(20) as f64;
    Some(points)
}

#[cfg(test)]
#[path = "highlight_tests.rs"]
mod tests;
