//! Picks the most quotable short span of a review and wraps it in `<mark>`.
//!
//! # Candidate spans
//!
//! The text is split into sentences with [`crate::segment::sentence_spans`].
//! Each sentence is further cut into clauses after `,` `;` `:` (and their
//! full-width forms), after a `!`/`?`/`.` the segmenter did not treat as a
//! sentence end, at dashes (`—`, `–`, a spaced `-`) and before the
//! conjunctions "and"/"but" (also French *et*/*mais*, Spanish *y*/*pero*,
//! German *und*/*aber*). Every run of consecutive clauses of a sentence is a
//! candidate, the whole sentence included. A candidate is trimmed of leading
//! punctuation, leading conjunctions (and, but, or, yet, plus and their
//! French, Spanish and German counterparts) and a leading list marker, so it
//! starts at the first letter or digit of a word and ends after the last
//! letter or digit of a word. Directly attached to those words, a currency
//! sign, `¿`/`¡`, or an opening quote or bracket whose closing partner lies
//! inside the span is kept at the start, and `%` `‰` `°` `+` at the end; when
//! the span reaches the end of its sentence, the terminal punctuation (`.` `!`
//! `?` `…` and CJK full stops) directly after the last word is kept too. A
//! span never starts or ends with whitespace.
//!
//! A candidate must have 5–25 words (tokens separated by whitespace or
//! dashes that contain a letter or digit) and 40–160 characters (`char`s); these "about" bounds of
//! the product spec are applied as hard limits. Text without spaces between
//! words (Chinese, Japanese, ...) therefore rarely yields a candidate.
//!
//! # Scoring
//!
//! Words are compared lower-cased, stripped of surrounding punctuation, with
//! `’` read as `'`. A candidate is **rejected** outright when it contains
//!
//! * a negation: not, never, no, nothing, hardly, cannot, any word ending in
//!   `n't` (or written without the apostrophe: dont, didnt, ...), French
//!   pas/jamais/rien/`n'…`, Spanish nunca/nada, German nicht/nie/kein, ...;
//! * a hedge: maybe, might, perhaps, somewhat, seems, probably, kinda, or the
//!   phrases "kind of", "sort of", "I guess", "I think", "could be", "a bit"
//!   (and peut-être, quizás, vielleicht, un peu, un poco, ein bisschen, ...);
//! * a complaint: however, unfortunately, disappointed, terrible, bad, worst,
//!   slow, expensive, broken, rude, the phrase "but the", ... (and
//!   malheureusement, déçu, lamentablemente, leider, enttäuscht, ...).
//!
//! Otherwise it earns points:
//!
//! | signal | points |
//! |---|---|
//! | praise word or phrase (love, amazing, excellent, great, helpful, easy, fast, reliable, "game changer", "highly recommend", génial, parfait, recommande, increíble, excelente, recomiendo, ausgezeichnet, toll, empfehlen, super, ...) | 2 each, at most 3 counted |
//! | superlative (best, easiest, fastest, meilleur, mejor, beste, ...) | 1.5 each, at most 2 |
//! | outcome word (saved, increased, reduced, cut, doubled, improved, faster, cheaper, easier, better, ...) | 1.5 each, at most 2 |
//! | number (a word containing a digit: "3", "40%", "10x") | 1 each, at most 2 |
//! | quantified outcome: a number together with an outcome word, `%` or an `Nx` multiplier | 1 |
//! | first-person outcome: I/we/our/my/I've/we've one or two words before an outcome word or got/made/found/finished/reached/landed/hit | 1 |
//! | the candidate is the whole sentence | 0.5 |
//! | each word beyond 20 | −0.25 |
//!
//! A candidate needs a praise word, a superlative, an outcome word, or a
//! number with a first-person outcome, and at least 2 points. The highest
//! score wins; ties go to the earliest span (then the shorter one), so the
//! choice is deterministic. When no candidate qualifies (a purely negative,
//! hedged or very short review such as "ok") there is no highlight.
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

use crate::segment::sentence_spans;

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
const MAX_CHARS: usize = 160;
const MIN_SCORE: f64 = 2.0;

#[rustfmt::skip]
const PRAISE: &[&str] = &[
    // English
    "love", "loved", "loves", "lovely", "amazing", "amazed", "excellent", "best", "recommend",
    "recommended", "recommending", "great", "fantastic", "helpful", "easy", "fast", "reliable",
    "awesome", "perfect", "perfectly", "wonderful", "brilliant", "outstanding", "superb",
    "incredible", "impressive", "impressed", "friendly", "intuitive", "seamless", "seamlessly",
    "smooth", "flawless", "flawlessly", "exceptional", "delighted", "happy", "pleased", "efficient",
    "quick", "quickly", "beautiful", "lifesaver", "favorite", "favourite", "terrific", "stellar",
    "top-notch", "game-changer", "gamechanger", "painless", "effortless", "good", "nice", "10/10",
    // French
    "génial", "géniale", "excellente", "parfait", "parfaite", "parfaitement", "recommande",
    "recommandé", "recommandons", "super", "magnifique", "formidable", "incroyable", "rapide",
    "efficace", "facile", "fiable", "adore", "top", "merveilleux", "merveilleuse", "sympa",
    "meilleur", "meilleure", "ravi", "ravie", "impeccable", "bravo",
    // Spanish
    "increíble", "excelente", "recomiendo", "recomendado", "recomendable", "genial", "perfecto",
    "perfecta", "fantástico", "fantástica", "maravilloso", "maravillosa", "rápido", "rápida",
    "fácil", "encanta", "encantó", "mejor", "buenísimo", "estupendo",
    // German
    "ausgezeichnet", "toll", "tolle", "empfehlen", "empfehle", "empfehlenswert", "hervorragend",
    "perfekt", "schnell", "zuverlässig", "großartig", "fantastisch", "beste", "besten", "klasse",
    "prima", "begeistert", "wunderbar",
];

const PRAISE_PHRASES: &[[&str; 2]] = &[
    ["game", "changer"],
    ["highly", "recommend"],
    ["must", "have"],
    ["worth", "every"],
    ["five", "stars"],
];

#[rustfmt::skip]
const SUPERLATIVES: &[&str] = &[
    "best", "greatest", "easiest", "fastest", "quickest", "simplest", "smoothest", "nicest",
    "finest", "friendliest", "coolest", "cleanest", "meilleur", "meilleure", "mejor", "beste",
    "besten",
];

#[rustfmt::skip]
const OUTCOMES: &[&str] = &[
    "saved", "save", "saves", "saving", "increased", "increase", "boosted", "doubled", "tripled",
    "halved", "reduced", "cut", "improved", "grew", "gained", "solved", "eliminated", "streamlined",
    "transformed", "achieved", "won", "faster", "quicker", "cheaper", "easier", "better",
    "smoother",
];

const FIRST_PERSON: &[&str] = &["i", "we", "our", "my", "i've", "we've"];

/// Verbs that signal an outcome only right after a first-person subject.
#[rustfmt::skip]
const FIRST_PERSON_VERBS: &[&str] = &[
    "got", "made", "found", "finished", "reached", "landed", "hit",
];

#[rustfmt::skip]
const NEGATIONS: &[&str] = &[
    "not", "never", "no", "nothing", "nobody", "none", "nowhere", "neither", "nor", "hardly",
    "barely", "cannot", "dont", "didnt", "doesnt", "isnt", "wasnt", "cant", "wont", "wouldnt",
    "shouldnt", "couldnt", "arent", "werent", "havent", "hasnt", "pas", "jamais", "rien", "aucun",
    "aucune", "ne", "ni", "nunca", "nada", "ningún", "ninguna", "tampoco", "nicht", "nie",
    "niemals", "kein", "keine", "keinen", "nichts",
];

#[rustfmt::skip]
const HEDGES: &[&str] = &[
    "maybe", "might", "perhaps", "somewhat", "seems", "seem", "seemed", "probably", "possibly",
    "kinda", "sorta", "guess", "peut-être", "probablement", "quizás", "quizá", "probablemente",
    "vielleicht", "wahrscheinlich",
];

const HEDGE_PHRASES: &[[&str; 2]] = &[
    ["kind", "of"],
    ["sort", "of"],
    ["i", "guess"],
    ["i", "think"],
    ["i", "suppose"],
    ["could", "be"],
    ["a", "bit"],
    ["un", "peu"],
    ["un", "poco"],
    ["tal", "vez"],
    ["ein", "bisschen"],
];

#[rustfmt::skip]
const COMPLAINTS: &[&str] = &[
    "however", "unfortunately", "disappointed", "disappointing", "disappointment", "terrible",
    "bad", "worst", "slow", "expensive", "broken", "rude", "awful", "horrible", "poor", "useless",
    "crashed", "crashes", "buggy", "waste", "refund", "overpriced", "annoying", "frustrating",
    "mediocre", "malheureusement", "déçu", "déçue", "décevant", "mauvais", "nul", "lent",
    "desafortunadamente", "lamentablemente", "decepcionado", "malo", "mala", "pésimo", "lento",
    "caro", "roto", "leider", "enttäuscht", "enttäuschend", "schlecht", "schrecklich", "langsam",
    "teuer", "kaputt",
];

const COMPLAINT_PHRASES: &[[&str; 2]] = &[["but", "the"]];

/// Conjunctions before which a sentence is cut into clauses.
const SPLIT_CONJUNCTIONS: &[&str] = &["and", "but", "et", "mais", "y", "pero", "und", "aber"];

/// Conjunctions trimmed from the start of a span.
#[rustfmt::skip]
const LEADING_CONJUNCTIONS: &[&str] = &[
    "and", "but", "or", "yet", "plus", "et", "mais", "ou", "y", "pero", "o", "und", "aber", "oder",
];

const CLAUSE_PUNCT: &[char] = &[',', ';', ':', '，', '、', '；', '：'];
const TERMINALS: &[char] = &['.', '!', '?', '…', '。', '！', '？'];
const DASHES: &[char] = &['—', '–'];
const CURRENCIES: &[char] = &['$', '€', '£', '¥'];
const CLOSERS: &str = "\"'”’)]}»›」』）";
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
fn markup(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'<' if bytes
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?')) =>
            {
                text[i..].find('>').map(|e| i + e + 1)
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

/// Whether a span lies wholly in text: no tag or character reference inside it
/// or cut by it, so `<mark>` never lands inside markup.
fn clear_of_markup(text: &str, span: Range<usize>) -> bool {
    markup(text)
        .iter()
        .all(|m| m.end <= span.start || span.end <= m.start)
}

/// Picks the single most quotable short span, or None when nothing is worth highlighting.
pub fn best_span(text: &str) -> Option<Highlight> {
    let mut best: Option<Highlight> = None;
    for sentence in sentence_spans(text) {
        for candidate in candidates(text, sentence) {
            let clear = clear_of_markup(text, candidate.start..candidate.end);
            if clear && best.is_none_or(|b| candidate.score > b.score) {
                best = Some(candidate);
            }
        }
    }
    best
}

/// Whether `range` of `text` (a span proposed elsewhere, e.g. by an LLM) obeys the
/// same rules as [`best_span`]'s spans: on character boundaries, within one sentence,
/// 5–25 words and 40–160 characters, and free of negated, hedged or complaining words.
pub fn acceptable(text: &str, range: Range<usize>) -> bool {
    let Some(span) = text.get(range.clone()) else {
        return false;
    };
    let words: Vec<String> = span.split_whitespace().map(normalise).collect();
    let chars = span.chars().count();
    let in_one_sentence = sentence_spans(text)
        .iter()
        .any(|s| s.start <= range.start && range.end <= s.end);
    in_one_sentence
        && clear_of_markup(text, range.clone())
        && (MIN_WORDS..=MAX_WORDS).contains(&words.len())
        && (MIN_CHARS..=MAX_CHARS).contains(&chars)
        && span == span.trim()
        && !words.iter().any(|w| classify(w).negative)
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
    /// A negation, hedge or complaint word.
    negative: bool,
    praise: bool,
    superlative: bool,
    outcome: bool,
    /// A verb that is an outcome only after a first-person subject.
    first_person_verb: bool,
    first_person: bool,
    number: bool,
    multiplier: bool,
    /// The phrase this word forms with the next word.
    pair: Pair,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Pair {
    #[default]
    None,
    /// A hedge or complaint phrase.
    Bad,
    Praise,
}

fn classify(w: &str) -> Class {
    if w.is_empty() {
        return Class::default();
    }
    let negation = NEGATIONS.contains(&w) || w.ends_with("n't") || w.starts_with("n'");
    Class {
        negative: negation || HEDGES.contains(&w) || COMPLAINTS.contains(&w),
        praise: PRAISE.contains(&w)
            || w.rsplit_once('\'')
                .is_some_and(|(_, s)| PRAISE.contains(&s)),
        superlative: SUPERLATIVES.contains(&w),
        outcome: OUTCOMES.contains(&w),
        first_person_verb: FIRST_PERSON_VERBS.contains(&w),
        first_person: FIRST_PERSON.contains(&w),
        number: w.chars().any(|c| c.is_ascii_digit()),
        multiplier: w
            .strip_suffix('x')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        pair: Pair::None,
    }
}

fn in_pairs(pairs: &[[&str; 2]], a: &str, b: &str) -> bool {
    pairs.iter().any(|p| p[0] == a && p[1] == b)
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
    let words: Vec<usize> = (0..out.len())
        .filter(|&k| !out[k].word.is_empty())
        .collect();
    for pair in words.windows(2) {
        let (a, b) = (out[pair[0]].word.as_str(), out[pair[1]].word.as_str());
        out[pair[0]].class.pair =
            if in_pairs(HEDGE_PHRASES, a, b) || in_pairs(COMPLAINT_PHRASES, a, b) {
                Pair::Bad
            } else if in_pairs(PRAISE_PHRASES, a, b) {
                Pair::Praise
            } else {
                Pair::None
            };
    }
    out
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
    let core = raw.trim_end_matches(|c| CLOSERS.contains(c));
    *pending = core.ends_with(CLAUSE_PUNCT) || core.ends_with(TERMINALS);
}

fn is_list_marker(raw: &str) -> bool {
    let Some(head) = raw.strip_suffix(['.', ')']) else {
        return false;
    };
    (1..=3).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit())
        || head.len() == 1 && head.bytes().all(|b| b.is_ascii_alphabetic())
}

/// All qualifying candidates of one sentence, in order of start (then end).
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
    for (k, t) in toks.iter().enumerate().rev() {
        let marker = k + 1 < toks.len() && is_list_marker(&text[t.range.clone()]);
        let skip = t.word.is_empty() || LEADING_CONJUNCTIONS.contains(&t.word.as_str()) || marker;
        first_content[k] = if skip { first_content[k + 1] } else { k };
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
    if !(MIN_WORDS..=MAX_WORDS).contains(&words) || !(MIN_CHARS..=MAX_CHARS).contains(&chars) {
        return None;
    }
    let raw = text.get(start..end)?;
    let score = score(&run[..=last_word], raw, whole)?;
    Some(Highlight { start, end, score })
}

/// Scores a run, or None when it is negated, hedged, a complaint, or too weak.
fn score(run: &[Token], raw: &str, whole: bool) -> Option<f64> {
    let words: Vec<Class> = run
        .iter()
        .filter(|t| !t.word.is_empty())
        .map(|t| t.class)
        .collect();
    let (mut praise, mut superlatives, mut outcomes, mut numbers) = (0, 0, 0, 0);
    let (mut multiplier, mut first_person) = (false, false);
    for (k, c) in words.iter().enumerate() {
        let pair = if k + 1 < words.len() {
            c.pair
        } else {
            Pair::None
        };
        if c.negative || pair == Pair::Bad {
            return None;
        }
        praise += usize::from(c.praise) + usize::from(pair == Pair::Praise);
        superlatives += usize::from(c.superlative);
        outcomes += usize::from(c.outcome);
        numbers += usize::from(c.number);
        multiplier |= c.multiplier;
        let subject = words[k.saturating_sub(2)..k].iter().any(|p| p.first_person);
        first_person |= (c.outcome || c.first_person_verb) && subject;
    }
    if praise + superlatives + outcomes == 0 && !(numbers > 0 && first_person) {
        return None;
    }
    let mut s = 2.0 * praise.min(3) as f64
        + 1.5 * superlatives.min(2) as f64
        + 1.5 * outcomes.min(2) as f64
        + numbers.min(2) as f64;
    if numbers > 0 && (outcomes > 0 || raw.contains('%') || multiplier) {
        s += 1.0;
    }
    if first_person {
        s += 1.0;
    }
    if whole {
        s += 0.5;
    }
    s -= 0.25 * words.len().saturating_sub(20) as f64;
    (s >= MIN_SCORE).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str) -> Option<&str> {
        best_span(text).map(|h| &text[h.start..h.end])
    }

    const REVIEWS: &[&str] = &[
        "We switched our whole team to this tool last spring. Honestly the onboarding was painless and support answered every question within minutes. Would use again.",
        "The dashboard looks nice and the support team is helpful. Within a month we saved 3 hours a week on reporting and cut errors by 40%.",
        "The delivery was slow and the box arrived damaged. However, the sound quality is excellent and I would recommend it to anyone who travels.",
        "Terrible experience. The app crashed twice and support never answered my emails.",
        "It might be okay for some people, I guess. Maybe it works on other phones, I think it's probably fine.",
        "ok",
        "Livraison rapide. Le service client est vraiment génial, je recommande cette boutique à tous mes amis !",
        "Compré estos auriculares para el gimnasio y la calidad del sonido es increíble, los recomiendo a todos.",
        "Die Lieferung kam pünktlich an. Die Kamera ist einfach toll und die Bildqualität ist ausgezeichnet, ich kann sie nur empfehlen.",
        "素晴らしい製品です！😀👍 とても速い。配送も早かったです。",
        "🚀🚀🚀 best app ever 👍🏽👍🏽 — seriously the easiest invoicing tool I have used in ten years!!!",
        "“This is the best purchase I have made all year,” my wife said. I agree.",
        "Pros:\n- setup took five minutes and everything worked perfectly out of the box\n- cheap",
        "I love it",
        "The room was clean, the staff were friendly, the breakfast was fantastic, the pool was great, the view was amazing, and the location was perfect for exploring the old town on foot every single day of our stay.",
        "",
        "   \n\n  ",
        "Price was $49 and I got 3 extra licences for the team within 2 days of asking.",
    ];

    #[test]
    fn english_praise_sentence_is_marked() {
        assert_eq!(
            marked(REVIEWS[0]),
            Some("Honestly the onboarding was painless and support answered every question within minutes.")
        );
        assert_eq!(
            highlight("Great app. I love how easy it is to share reports with my whole team!"),
            "Great app. <mark>I love how easy it is to share reports with my whole team!</mark>"
        );
    }

    #[test]
    fn numeric_outcome_sentence_wins() {
        assert_eq!(
            marked(REVIEWS[1]),
            Some("Within a month we saved 3 hours a week on reporting and cut errors by 40%.")
        );
        assert_eq!(
            marked("Support is friendly and helpful. The new version is 40% faster than the old one on our big files."),
            Some("The new version is 40% faster than the old one on our big files.")
        );
    }

    #[test]
    fn positive_clause_wins_in_mixed_review() {
        let m = marked(REVIEWS[2]).unwrap();
        assert_eq!(
            m,
            "the sound quality is excellent and I would recommend it to anyone who travels."
        );
    }

    #[test]
    fn negative_hedged_and_short_reviews_are_unchanged() {
        for text in [
            REVIEWS[3],
            REVIEWS[4],
            REVIEWS[5],
            REVIEWS[13],
            REVIEWS[15],
            REVIEWS[16],
        ] {
            assert_eq!(best_span(text), None, "{text:?}");
            assert_eq!(highlight(text), text);
        }
        let hedged =
            "The app is kind of great for small teams, and the design seems excellent to me.";
        assert_eq!(best_span(hedged), None);
        let negated =
            "The support was not helpful at all and I would never recommend it to anyone.";
        assert_eq!(best_span(negated), None);
    }

    #[test]
    fn french_spanish_and_german_praise_is_recognised() {
        assert_eq!(
            marked(REVIEWS[6]),
            Some("Le service client est vraiment génial, je recommande cette boutique à tous mes amis")
        );
        assert_eq!(marked(REVIEWS[7]), Some(REVIEWS[7]));
        assert_eq!(
            marked(REVIEWS[8]),
            Some("Die Kamera ist einfach toll und die Bildqualität ist ausgezeichnet, ich kann sie nur empfehlen.")
        );
        assert!(
            marked("Produit parfait, livré en deux jours, super qualité et prix correct.")
                .is_some()
        );
    }

    #[test]
    fn spans_trim_emoji_quotes_and_list_markers() {
        assert_eq!(
            marked(REVIEWS[10]),
            Some("best app ever 👍🏽👍🏽 — seriously the easiest invoicing tool I have used in ten years!!!")
        );
        assert_eq!(
            marked(REVIEWS[11]),
            Some("“This is the best purchase I have made all year,” my wife said.")
        );
        assert_eq!(
            marked(REVIEWS[12]),
            Some("setup took five minutes and everything worked perfectly out of the box")
        );
        assert_eq!(
            marked(REVIEWS[17]),
            Some("Price was $49 and I got 3 extra licences for the team within 2 days of asking.")
        );
    }

    #[test]
    fn ties_go_to_the_earliest_span() {
        let text = "The support team was great with every request. The billing team was great with every request.";
        assert_eq!(
            marked(text),
            Some("The support team was great with every request.")
        );
        // Several runs of clauses reach the praise cap; the earliest wins.
        assert_eq!(
            marked(REVIEWS[14]),
            Some("The room was clean, the staff were friendly, the breakfast was fantastic, the pool was great")
        );
    }

    #[test]
    fn cjk_and_emoji_do_not_panic() {
        for text in [
            REVIEWS[9],
            "👍",
            "é",
            "日本語 の テキスト です よ ね 😀😀",
            "a\u{301} b\u{200D} c",
        ] {
            let _ = highlight(text);
        }
    }

    /// Deterministic pseudo-random strings over awkward characters.
    fn noisy_inputs() -> Vec<String> {
        #[rustfmt::skip]
        const PALETTE: &[&str] = &[
            "great", " ", "\n\n", ".", "!", "?", ",", " — ", " - ", "and", "but", "not", "best",
            "saved", "40%", "3", "é", "日本", "😀", "👍🏽", "\u{301}", "$", "“", "”", "1.", "love", "we",
            "the", "team", "excellent", "。", "：", "•",
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        (0..400)
            .map(|_| {
                let mut s = String::new();
                for _ in 0..(state % 60) {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    s.push_str(PALETTE[(state >> 33) as usize % PALETTE.len()]);
                    s.push(' ');
                }
                s
            })
            .collect()
    }

    #[test]
    fn removing_the_tags_restores_the_text_and_spans_obey_bounds() {
        let mut inputs: Vec<String> = REVIEWS.iter().map(|s| s.to_string()).collect();
        inputs.extend(noisy_inputs());
        let mut marked_count = 0;
        for text in &inputs {
            let out = highlight(text);
            let restored = out.replacen("<mark>", "", 1).replacen("</mark>", "", 1);
            assert_eq!(&restored, text);
            if let Some(h) = best_span(text) {
                marked_count += 1;
                assert!(text.is_char_boundary(h.start) && text.is_char_boundary(h.end));
                let span = &text[h.start..h.end];
                assert_eq!(
                    out,
                    format!("{}<mark>{span}</mark>{}", &text[..h.start], &text[h.end..])
                );
                assert_eq!(span, span.trim());
                let words = span
                    .split(|c: char| c.is_whitespace() || DASHES.contains(&c))
                    .filter(|w| w.chars().any(char::is_alphanumeric))
                    .count();
                assert!((MIN_WORDS..=MAX_WORDS).contains(&words), "{span:?}");
                assert!(
                    (MIN_CHARS..=MAX_CHARS).contains(&span.chars().count()),
                    "{span:?}"
                );
                let first = span.chars().next().unwrap_or(' ');
                assert!(
                    first.is_alphanumeric()
                        || CURRENCIES.contains(&first)
                        || OPENERS.iter().any(|&(o, _)| o == first),
                    "{span:?}"
                );
                assert!(h.score >= MIN_SCORE);
            } else {
                assert_eq!(&out, text);
            }
        }
        assert!(marked_count >= 10, "only {marked_count} inputs were marked");
    }

    #[test]
    fn deterministic() {
        for text in REVIEWS {
            assert_eq!(best_span(text), best_span(text));
        }
    }

    #[test]
    fn proposed_spans_are_checked_by_the_same_rules() {
        let text = "We cut our month-end close from 10 days to 3 days with this tool. Support was not great.";
        let good = "We cut our month-end close from 10 days to 3 days with this tool.";
        let start = text.find(good).unwrap();
        assert!(acceptable(text, start..start + good.len()));
        let bad = "Support was not great.";
        let start = text.find(bad).unwrap();
        assert!(
            !acceptable(text, start..start + bad.len()),
            "negated and too short"
        );
        assert!(!acceptable(text, 0..text.len()), "spans two sentences");
        assert!(!acceptable(text, 1..3000), "out of range");
    }

    #[test]
    fn markup_is_never_cut() {
        let text =
            "<b>Great</b> service &amp; the team resolved our billing issue within two days. \
                    Highly recommended to every small business owner we know.";
        let marked = highlight(text);
        let start = marked.find("<mark>").expect("a span is marked");
        let end = marked.find("</mark>").unwrap();
        let inside = &marked[start + 6..end];
        assert!(!inside.contains('<') && !inside.contains('&'), "{marked}");
        assert!(marked.starts_with("<b>Great</b>"), "{marked}");
        assert_eq!(marked.replace("<mark>", "").replace("</mark>", ""), text);
        for (i, _) in text.match_indices(['<', '&']) {
            assert!(
                !acceptable(text, i..i + 45),
                "a span starting in markup at {i}"
            );
        }
    }
}
