//! Rule-based sentence segmentation and sentence-aware chunking.
//!
//! [`sentence_spans`] splits text into sentences with a small set of
//! hand-written rules modelled on the English "Golden Rules" of the
//! Pragmatic Segmenter: abbreviations, initials, decimals, URLs, e-mail
//! addresses, ellipses, quotations and numbered lists do not end a sentence
//! where a reader would not end one. [`chunk`] packs whole sentences into
//! pieces of bounded length, splitting a sentence only when it alone is too
//! long. [`quote_spans`] cuts the sentences further, at line breaks, emoji
//! and full stops glued to the next word, for quotations that must not cross
//! a sentence boundary.
//!
//! The segmenter works on whitespace-separated tokens, so a boundary always
//! falls between tokens, except after CJK-style full stops (`。！？`), which
//! end a sentence even when no space follows. A blank line (paragraph break)
//! always ends a sentence; a single line break does not. Only the standard
//! library is used and every byte offset returned lies on a `char` boundary.

use std::ops::Range;

mod chunk;

pub use chunk::chunk;

/// Titles and other abbreviations that precede a name or number and so never
/// end a sentence (lower-cased, without the final period).
const TITLES: &[&str] = &[
    "adm", "atty", "brig", "capt", "cf", "cmdr", "col", "cpl", "dr", "e.g", "fr", "gen", "gov",
    "hon", "i.e", "incl", "insp", "lt", "maj", "messrs", "mlle", "mme", "mr", "mrs", "ms", "mt",
    "mx", "pres", "prof", "pvt", "rep", "rev", "sen", "sgt", "st", "supt", "viz", "vs",
];

/// Abbreviations that end a sentence only when a capitalised word follows
/// (so "Co. at noon" and "Jan. 5" continue, "Co. It closed" does not).
const ABBREVIATIONS: &[&str] = &[
    "al", "approx", "apr", "aug", "ave", "blvd", "bros", "ca", "ch", "chap", "co", "corp", "dec",
    "dept", "ed", "eds", "est", "etc", "ext", "feb", "fig", "figs", "fri", "ft", "hr", "hrs",
    "inc", "jan", "jr", "jul", "jun", "lb", "lbs", "llc", "ltd", "mfg", "mo", "mon", "n°", "no",
    "nos", "nov", "nr", "nº", "oct", "oz", "plc", "pp", "pt", "pts", "rd", "sec", "sep", "sept",
    "sq", "sr", "tel", "thu", "thurs", "tue", "tues", "univ", "vol", "vols", "wed", "yr", "yrs",
];

/// Words that commonly open a sentence; after a dotted abbreviation such as
/// "U.S." only these are taken as the start of a new sentence.
const STARTERS: &[&str] = &[
    "A", "After", "All", "Also", "An", "And", "As", "But", "Did", "Do", "For", "He", "Her", "His",
    "How", "However", "I", "If", "In", "It", "Its", "My", "Our", "She", "So", "That", "The",
    "Their", "Then", "There", "These", "They", "This", "Those", "We", "What", "When", "Where",
    "Which", "While", "Who", "Why", "You", "Your",
];

/// Prepositions that open a time phrase ("At 5 a.m.") which cannot stand alone.
const INTRO_PREPOSITIONS: &[&str] = &[
    "about", "after", "around", "at", "before", "by", "from", "since", "till", "until",
];

/// Byte ranges of the sentences of `text`, in order, each trimmed of
/// surrounding whitespace; never empty ranges.
///
/// Empty or whitespace-only input yields an empty vector. Closing quotes and
/// brackets after a terminator stay with the sentence they close.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let tokens = tokenize(text);
    if tokens.is_empty() {
        return Vec::new();
    }
    let words: Vec<&str> = tokens.iter().map(|t| &text[t.span.clone()]).collect();
    let (mut starts, is_marker) = structure(&tokens, &words);
    let mut sentence_start = 0;
    for i in 0..words.len() {
        if starts[i] {
            sentence_start = i;
        }
        if i + 1 < words.len()
            && !starts[i + 1]
            && !is_marker[i]
            && ends_sentence(&words, i, sentence_start)
        {
            starts[i + 1] = true;
        }
    }
    let mut spans = Vec::new();
    let mut first = 0;
    for j in 1..=tokens.len() {
        if j == tokens.len() || starts[j] {
            spans.push(tokens[first].span.start..tokens[j - 1].span.end);
            first = j;
        }
    }
    spans
}

/// The sentences of `text` as trimmed string slices (convenience over
/// [`sentence_spans`]).
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

/// Byte ranges of the pieces of `text` that a quotation may span: the
/// sentences of [`sentence_spans`], further cut at every line break, at every
/// run of emoji (see [`is_emoji`]) and after a `.` `!` `?` glued to a
/// capitalised word ("useful.Consistent", not in URLs, e-mail addresses or
/// "ASP.NET"). Each piece is trimmed of whitespace and holds at least one
/// letter or digit; the emoji and line breaks themselves belong to no piece.
pub fn quote_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for sentence in sentence_spans(text) {
        let mut start = sentence.start;
        let mut in_emoji = false;
        for (i, c) in text[sentence.clone()].char_indices() {
            let at = sentence.start + i;
            let joiner = in_emoji && matches!(c, '\u{200D}' | '\u{FE0F}' | '\u{20E3}');
            if c == '\n' || c == '\r' || is_emoji(c) || joiner {
                push_piece(text, start..at, &mut out);
                start = at + c.len_utf8();
                in_emoji = c != '\n' && c != '\r';
                continue;
            }
            in_emoji = false;
            if glued_stop(text, at, c) {
                push_piece(text, start..at + c.len_utf8(), &mut out);
                start = at + c.len_utf8();
            }
        }
        push_piece(text, start..sentence.end, &mut out);
    }
    out
}

/// Whether `c` is an emoji or pictograph: the emoji blocks of the
/// supplementary planes (faces, hands, hearts, flags, skin tones), the
/// miscellaneous symbols and dingbats (☀ ✅ ❤), and ⌚ ⏰ ⭐ ⬆ and their kin.
pub fn is_emoji(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B05..=0x2B55 | 0x231A..=0x231B | 0x23E9..=0x23FA
    )
}

/// Whether the `c` at byte `at` is a `.` `!` `?` between a lower-case word and
/// a capitalised one with no space, in a token that is no URL or address.
fn glued_stop(text: &str, at: usize, c: char) -> bool {
    if !matches!(c, '.' | '!' | '?') {
        return false;
    }
    let before = &text[..at];
    let after = &text[at + c.len_utf8()..];
    let mut prev = before.chars().rev();
    let mut next = after.chars();
    let lower_before =
        prev.next().is_some_and(char::is_lowercase) && prev.next().is_some_and(char::is_lowercase);
    let capital_after =
        next.next().is_some_and(char::is_uppercase) && next.next().is_some_and(char::is_lowercase);
    let token_start = before.rfind(char::is_whitespace).map_or(0, |p| p + 1);
    let token_end = after
        .find(char::is_whitespace)
        .map_or(text.len(), |p| at + c.len_utf8() + p);
    let token = &text[token_start..token_end];
    lower_before
        && capital_after
        && !token.contains(['@', '/', ':', '\\'])
        && token
            .trim_end_matches(['.', '!', '?'])
            .matches(['.', '!', '?'])
            .count()
            == 1
}

fn push_piece(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let Some(piece) = text.get(range.clone()) else {
        return;
    };
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    if trimmed.chars().any(char::is_alphanumeric) {
        out.push(range.start + lead..range.start + lead + trimmed.len());
    }
}

/// A run of non-whitespace text and the number of line breaks before it.
struct Token {
    span: Range<usize>,
    newlines: usize,
}

/// How the next token begins, ignoring opening quotes and brackets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Lower,
    Upper,
    Other,
}

/// The kind of a list marker: (is a letter, suffix `.` / `)` / `.)` as 0 / 1 / 2).
type MarkerStyle = (bool, u8);

fn char_len(s: &str) -> usize {
    s.chars().count()
}

// The character classes below are `matches!` patterns rather than strings
// searched with `contains`: they are tested for every character of a text,
// and a pattern compiles to a few comparisons where a search scans the list.

/// Full stops that always end a sentence, even without a following space.
fn is_strong(c: char) -> bool {
    matches!(
        c,
        '。' | '！' | '？' | '｡' | '।' | '॥' | '؟' | '۔' | '።' | '፧' | '။'
    )
}

/// Marks that end a sentence unless a lower-case word follows ("Yahoo! in").
fn is_weak_stop(c: char) -> bool {
    matches!(c, '!' | '?' | '‼' | '⁇' | '⁈' | '⁉')
}

/// Closing quotes and brackets, which stay with the sentence they close.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '”'
            | '’'
            | ')'
            | ']'
            | '}'
            | '»'
            | '›'
            | '」'
            | '』'
            | '）'
            | '］'
            | '】'
            | '》'
            | '〉'
            | '〕'
            | '＂'
            | '＇'
    )
}

/// Opening quotes and brackets, skipped when looking at how a word begins.
fn is_opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '“'
            | '‘'
            | '„'
            | '‚'
            | '('
            | '['
            | '{'
            | '«'
            | '‹'
            | '¿'
            | '¡'
            | '*'
            | '_'
            | '「'
            | '『'
            | '（'
            | '［'
            | '【'
            | '《'
            | '〈'
            | '〔'
    )
}

/// Bullet characters that unambiguously start a list item.
fn is_bullet(c: char) -> bool {
    matches!(c, '•' | '⁃' | '‣' | '◦' | '▪' | '●')
}

/// A token consisting of a single bullet, dash or asterisk.
fn is_bare_bullet(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c == '-' || c == '*' || is_bullet(c))
}

/// Scripts written without spaces between words.
fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}' | '\u{1000}'..='\u{109F}' | '\u{1780}'..='\u{17FF}'
        | '\u{3000}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{FF61}'..='\u{FF9F}'
        | '\u{20000}'..='\u{2FFFF}')
}

/// Splits at whitespace, and after a strong full stop (plus closing quotes)
/// even when no whitespace follows it.
fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    let mut gap_newlines = 0;
    let mut after_strong = false;
    for (i, c) in text.char_indices() {
        let breaks = c.is_whitespace() || (after_strong && !is_strong(c) && !is_closer(c));
        if breaks {
            if let Some((start, newlines)) = current.take() {
                tokens.push(Token {
                    span: start..i,
                    newlines,
                });
            }
        }
        if c.is_whitespace() {
            gap_newlines += match c {
                '\n' | '\u{85}' | '\u{2028}' => 1,
                '\u{0C}' | '\u{2029}' => 2,
                _ => 0,
            };
            after_strong = false;
            continue;
        }
        if current.is_none() {
            current = Some((i, gap_newlines));
            gap_newlines = 0;
        }
        after_strong = is_strong(c) || (after_strong && is_closer(c));
    }
    if let Some((start, newlines)) = current {
        tokens.push(Token {
            span: start..text.len(),
            newlines,
        });
    }
    tokens
}

/// Parses a list marker such as `1.`, `2)`, `3.)`, `b.` or `⁃9.`.
fn parse_marker(word: &str) -> Option<(MarkerStyle, u32)> {
    let body = word.strip_prefix(is_bullet).unwrap_or(word);
    let (head, suffix) = if let Some(h) = body.strip_suffix(".)") {
        (h, 2)
    } else if let Some(h) = body.strip_suffix(')') {
        (h, 1)
    } else {
        (body.strip_suffix('.')?, 0)
    };
    if (1..=3).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit()) {
        Some(((false, suffix), head.parse().ok()?))
    } else if let [b @ b'a'..=b'z'] = head.as_bytes() {
        Some(((true, suffix), u32::from(b - b'a')))
    } else {
        None
    }
}

/// Sentence starts forced by layout (paragraph breaks, bullets, list items),
/// and which tokens are list markers (whose period ends nothing).
fn structure(tokens: &[Token], words: &[&str]) -> (Vec<bool>, Vec<bool>) {
    let mut starts = vec![false; words.len()];
    let mut is_marker = vec![false; words.len()];
    let mut list: Option<(MarkerStyle, u32)> = None;
    for (j, word) in words.iter().enumerate() {
        let line_start = j == 0 || tokens[j].newlines > 0;
        let bulleted = word.starts_with(is_bullet);
        if tokens[j].newlines >= 2 || bulleted || (line_start && matches!(*word, "-" | "*")) {
            starts[j] = true;
        }
        let bullet_before = j > 0 && starts[j - 1] && is_bare_bullet(words[j - 1]);
        if let Some((style, value)) = parse_marker(word) {
            let continues = list.is_some_and(|(s, v)| s == style && value == v + 1);
            if line_start || bulleted || bullet_before || continues {
                is_marker[j] = true;
                list = Some((style, value));
                starts[j] = starts[j] || !bullet_before;
            }
        }
    }
    starts[0] = true;
    (starts, is_marker)
}

fn classify(word: &str) -> Next {
    match word.trim_start_matches(is_opener).chars().next() {
        Some(c) if c.is_lowercase() => Next::Lower,
        Some(c) if c.is_uppercase() => Next::Upper,
        _ => Next::Other,
    }
}

/// A lone period, as in the spaced ellipsis ". . .".
fn is_dot(word: &str) -> bool {
    word.trim_end_matches(is_closer) == "."
}

/// An editorial omission such as "[...]" or "(…)".
fn is_omission(word: &str, core: &str) -> bool {
    word[core.len()..].starts_with([']', ')'])
        && core.trim_end_matches(['.', '…']).ends_with(['[', '('])
}

fn is_abbreviation(lower_stem: &str) -> bool {
    ABBREVIATIONS.contains(&lower_stem)
}

fn is_starter(word: &str) -> bool {
    let word = word.trim_start_matches(is_opener);
    let end = word
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(word.len());
    STARTERS.contains(&&word[..end])
}

/// "U.S", "E.U", "a.m", "Ph.D": short letter groups joined by periods.
fn is_dotted_abbreviation(stem: &str) -> bool {
    stem.contains('.')
        && stem.split('.').all(|part| {
            (1..=2).contains(&part.chars().count()) && part.chars().all(char::is_alphabetic)
        })
}

/// Whether the sentence so far is only a time phrase like "At 5 a.m.".
fn is_intro_phrase(words: &[&str]) -> bool {
    let first = words[0].trim_start_matches(is_opener);
    words.len() <= 3
        && classify(first) == Next::Upper
        && INTRO_PREPOSITIONS.contains(&first.to_lowercase().as_str())
}

/// Whether a sentence ends after `words[i]` (a following token exists).
fn ends_sentence(words: &[&str], i: usize, sentence_start: usize) -> bool {
    let word = words[i];
    let core = word.trim_end_matches(is_closer);
    let Some(last) = core.chars().next_back() else {
        return false;
    };
    let next = classify(words[i + 1]);
    if is_strong(last) {
        return true;
    }
    if is_weak_stop(last) {
        return next != Next::Lower;
    }
    if (last != '.' && last != '…') || is_omission(word, core) {
        return false;
    }
    if is_dot(words[i + 1]) {
        if is_dot(word) {
            return false;
        }
        // "compounds. . . . The": the period ends this sentence and the
        // spaced ellipsis opens the next one.
        let run = words[i + 1..].iter().take_while(|w| is_dot(w)).count();
        return run == 3
            && last == '.'
            && words
                .get(i + 1 + run)
                .is_some_and(|w| classify(w) == Next::Upper);
    }
    if is_dot(word) {
        // Three spaced dots mark an omission; four end the sentence.
        let run = words[..=i].iter().rev().take_while(|w| is_dot(w)).count();
        return run != 3 && next != Next::Lower;
    }
    if last == '…' {
        return next == Next::Upper;
    }
    match core.len() - core.trim_end_matches('.').len() {
        1 => period_ends_sentence(words, i, sentence_start, &core[..core.len() - 1], next),
        3 => next == Next::Upper,
        _ => next != Next::Lower,
    }
}

/// Decides a single period after `stem` (the token without it).
fn period_ends_sentence(
    words: &[&str],
    i: usize,
    sentence_start: usize,
    stem: &str,
    next: Next,
) -> bool {
    if next == Next::Lower {
        return false;
    }
    let stem = stem.trim_start_matches(is_opener);
    let lower = stem.to_lowercase();
    if TITLES.contains(&lower.as_str()) {
        return false;
    }
    let mut chars = stem.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c == 'I' {
            // "you and I. Did" ends; "Albert I. Jones" is an initial.
            return i == sentence_start || classify(words[i - 1]) != Next::Upper;
        }
        if c.is_uppercase() {
            return false;
        }
        if c.is_lowercase() {
            return next == Next::Upper;
        }
    }
    if is_dotted_abbreviation(stem) {
        let following = words[i + 1];
        if lower == "a.m" || lower == "p.m" {
            return next == Next::Upper
                && (is_starter(following) || !is_intro_phrase(&words[sentence_start..=i]));
        }
        return is_starter(following);
    }
    if is_abbreviation(&lower) {
        // "Mon. Feb. 3": a second abbreviation continues the first.
        let following = words[i + 1].strip_suffix('.').unwrap_or("");
        return next == Next::Upper && !is_abbreviation(&following.to_lowercase());
    }
    true
}

#[cfg(test)]
mod tests;
