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

/// Packs whole sentences into chunks of at most `max_chars` characters
/// (Unicode scalar values, counted with `.chars().count()`).
///
/// Consecutive sentences are joined greedily with a single space (with
/// nothing when the original text had no whitespace between them, as after
/// `。`). A sentence longer than `max_chars` is emitted on its own, split
/// first after clause punctuation (`,` `;` `:` `、` `，` and spaced dashes),
/// then at whitespace; the resulting pieces are packed greedily and trimmed.
/// A single word longer than `max_chars` is never cut and becomes its own,
/// over-long chunk. Only text in scripts written without spaces between words
/// (Chinese, Japanese, Thai, ...) is split between characters, and only as a
/// last resort, since it has no word boundaries; such a cut is the one place
/// where joining the chunks with spaces inserts whitespace the original did
/// not have. A `max_chars` of 0 is treated as 1.
pub fn chunk(text: &str, max_chars: usize) -> Vec<String> {
    let max = max_chars.max(1);
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut current_len = 0;
    let mut previous_end = 0;
    for span in sentence_spans(text) {
        let sentence = &text[span.clone()];
        let len = char_len(sentence);
        let separator = if previous_end < span.start { " " } else { "" };
        previous_end = span.end;
        if len > max {
            if !current.is_empty() {
                chunks.push(std::mem::take(&mut current));
            }
            let mut pieces = Vec::new();
            split_long(sentence, 0..sentence.len(), max, 0, &mut pieces);
            chunks.extend(pieces.into_iter().map(|r| sentence[r].to_string()));
        } else if !current.is_empty() && current_len + separator.len() + len <= max {
            current.push_str(separator);
            current.push_str(sentence);
            current_len += separator.len() + len;
        } else {
            if !current.is_empty() {
                chunks.push(std::mem::take(&mut current));
            }
            current.push_str(sentence);
            current_len = len;
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
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

/// Trims whitespace off `s[range]`, returning `None` if nothing is left.
fn trim_range(s: &str, range: Range<usize>) -> Option<Range<usize>> {
    let piece = &s[range.clone()];
    let start = range.start + (piece.len() - piece.trim_start().len());
    let end = range.end - (piece.len() - piece.trim_end().len());
    (start < end).then_some(start..end)
}

/// Pieces of `s[range]` ending after clause punctuation.
fn clause_ranges(s: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut cuts = vec![range.start];
    let mut chars = s[range.clone()].char_indices().peekable();
    let mut previous_space = false;
    while let Some((i, c)) = chars.next() {
        let next_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        let cut = match c {
            ',' | ';' | ':' => next_space,
            '、' | '，' | '；' | '：' | '､' => true,
            '—' | '–' | '-' => previous_space && next_space,
            _ => false,
        };
        if cut {
            cuts.push(range.start + i + c.len_utf8());
        }
        previous_space = c.is_whitespace();
    }
    cuts.push(range.end);
    cuts.windows(2)
        .filter_map(|w| trim_range(s, w[0]..w[1]))
        .collect()
}

/// Whitespace-separated words of `s[range]`.
fn word_ranges(s: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in s[range.clone()].char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                words.push(range.start + st..range.start + i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(st) = start {
        words.push(range.start + st..range.end);
    }
    words
}

/// Pieces of a word between characters of scripts written without spaces;
/// runs of other characters (e.g. Latin) stay whole. With `attach`, closing
/// punctuation stays with the character before it and opening punctuation
/// with the character after it.
fn script_ranges(s: &str, range: Range<usize>, attach: bool) -> Vec<Range<usize>> {
    let mut cuts = vec![range.start];
    let mut previous: Option<char> = None;
    for (i, c) in s[range.clone()].char_indices() {
        if let Some(p) = previous {
            let attached =
                is_closer(c) || is_strong(c) || matches!(c, '、' | '，' | '…') || is_opener(p);
            if (is_unspaced(p) || is_unspaced(c)) && !(attach && attached) {
                cuts.push(range.start + i);
            }
        }
        previous = Some(c);
    }
    cuts.push(range.end);
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Splits the over-long `s[range]` at the given level (0: clauses, 1: words,
/// 2: characters of unspaced scripts with their punctuation, 3: any character
/// next to one of an unspaced script) and packs the pieces greedily.
fn split_long(s: &str, range: Range<usize>, max: usize, level: u8, out: &mut Vec<Range<usize>>) {
    let units = match level {
        0 => clause_ranges(s, range.clone()),
        1 => word_ranges(s, range.clone()),
        2 => script_ranges(s, range.clone(), true),
        3 => script_ranges(s, range.clone(), false),
        _ => {
            out.push(range);
            return;
        }
    };
    if units.len() < 2 {
        split_long(s, range, max, level + 1, out);
        return;
    }
    let mut current: Option<Range<usize>> = None;
    let mut current_len = 0;
    for unit in units {
        let len = char_len(&s[unit.clone()]);
        if let Some(c) = current.as_mut() {
            let joined = current_len + char_len(&s[c.end..unit.start]) + len;
            if joined <= max {
                c.end = unit.end;
                current_len = joined;
                continue;
            }
        }
        out.extend(current.take());
        if len > max {
            split_long(s, unit, max, level + 1, out);
        } else {
            current = Some(unit);
            current_len = len;
        }
    }
    out.extend(current);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quotes(text: &str) -> Vec<&str> {
        quote_spans(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn quote_spans_cut_at_emoji_line_breaks_and_glued_stops() {
        assert_eq!(
            quotes("🚀🚀 best app ever 👍🏽👍🏽 — seriously the easiest tool I have used!!!"),
            [
                "best app ever",
                "— seriously the easiest tool I have used!!!"
            ]
        );
        assert_eq!(
            quotes("Love it ❤️ so much. Great\nteam"),
            ["Love it", "so much.", "Great", "team"]
        );
        assert_eq!(
            quotes("really useful.Consistent performance: yes"),
            ["really useful.", "Consistent performance: yes"]
        );
        for unchanged in [
            "Her email is Jane.Doe@example.com and she replied.",
            "We run ASP.NET and the site www.example.Com works.",
            "Plain sentence. Another one!",
        ] {
            assert_eq!(quotes(unchanged), sentences(unchanged), "{unchanged}");
        }
        assert!(quote_spans("👍🏽 ✅ ⭐").is_empty());
        assert!(quote_spans("").is_empty());
    }

    /// The 48 English Golden Rules of the Pragmatic Segmenter (as in pySBD).
    const GOLDEN_RULES: &[(&str, &[&str])] = &[
        ("Hello World. My name is Jonas.", &["Hello World.", "My name is Jonas."]),
        ("What is your name? My name is Jonas.", &["What is your name?", "My name is Jonas."]),
        ("There it is! I found it.", &["There it is!", "I found it."]),
        ("My name is Jonas E. Smith.", &["My name is Jonas E. Smith."]),
        ("Please turn to p. 55.", &["Please turn to p. 55."]),
        ("Were Jane and co. at the party?", &["Were Jane and co. at the party?"]),
        (
            "They closed the deal with Pitt, Briggs & Co. at noon.",
            &["They closed the deal with Pitt, Briggs & Co. at noon."],
        ),
        ("Let's ask Jane and co. They should know.", &["Let's ask Jane and co.", "They should know."]),
        (
            "They closed the deal with Pitt, Briggs & Co. It closed yesterday.",
            &["They closed the deal with Pitt, Briggs & Co.", "It closed yesterday."],
        ),
        ("I can see Mt. Fuji from here.", &["I can see Mt. Fuji from here."]),
        (
            "St. Michael's Church is on 5th st. near the light.",
            &["St. Michael's Church is on 5th st. near the light."],
        ),
        ("That is JFK Jr.'s book.", &["That is JFK Jr.'s book."]),
        ("I visited the U.S.A. last year.", &["I visited the U.S.A. last year."]),
        ("I live in the E.U. How about you?", &["I live in the E.U.", "How about you?"]),
        ("I live in the U.S. How about you?", &["I live in the U.S.", "How about you?"]),
        (
            "I work for the U.S. Government in Virginia.",
            &["I work for the U.S. Government in Virginia."],
        ),
        ("I have lived in the U.S. for 20 years.", &["I have lived in the U.S. for 20 years."]),
        (
            "At 5 a.m. Mr. Smith went to the bank. He left the bank at 6 P.M. Mr. Smith then went to the store.",
            &[
                "At 5 a.m. Mr. Smith went to the bank.",
                "He left the bank at 6 P.M.",
                "Mr. Smith then went to the store.",
            ],
        ),
        ("She has $100.00 in her bag.", &["She has $100.00 in her bag."]),
        ("She has $100.00. It is in her bag.", &["She has $100.00.", "It is in her bag."]),
        (
            "He teaches science (He previously worked for 5 years as an engineer.) at the local University.",
            &["He teaches science (He previously worked for 5 years as an engineer.) at the local University."],
        ),
        (
            "Her email is Jane.Doe@example.com. I sent her an email.",
            &["Her email is Jane.Doe@example.com.", "I sent her an email."],
        ),
        (
            "The site is: https://www.example.50.com/new-site/awesome_content.html. Please check it out.",
            &[
                "The site is: https://www.example.50.com/new-site/awesome_content.html.",
                "Please check it out.",
            ],
        ),
        (
            "She turned to him, 'This is great.' she said.",
            &["She turned to him, 'This is great.' she said."],
        ),
        (
            "She turned to him, \"This is great.\" she said.",
            &["She turned to him, \"This is great.\" she said."],
        ),
        (
            "She turned to him, \"This is great.\" She held the book out to show him.",
            &["She turned to him, \"This is great.\"", "She held the book out to show him."],
        ),
        ("Hello!! Long time no see.", &["Hello!!", "Long time no see."]),
        ("Hello?? Who is there?", &["Hello??", "Who is there?"]),
        ("Hello!? Is that you?", &["Hello!?", "Is that you?"]),
        ("Hello?! Is that you?", &["Hello?!", "Is that you?"]),
        ("1.) The first item 2.) The second item", &["1.) The first item", "2.) The second item"]),
        (
            "1.) The first item. 2.) The second item.",
            &["1.) The first item.", "2.) The second item."],
        ),
        ("1) The first item 2) The second item", &["1) The first item", "2) The second item"]),
        ("1) The first item. 2) The second item.", &["1) The first item.", "2) The second item."]),
        ("1. The first item 2. The second item", &["1. The first item", "2. The second item"]),
        ("1. The first item. 2. The second item.", &["1. The first item.", "2. The second item."]),
        (
            "• 9. The first item • 10. The second item",
            &["• 9. The first item", "• 10. The second item"],
        ),
        ("⁃9. The first item ⁃10. The second item", &["⁃9. The first item", "⁃10. The second item"]),
        (
            "a. The first item b. The second item c. The third list item",
            &["a. The first item", "b. The second item", "c. The third list item"],
        ),
        (
            "You can find it at N°. 1026.253.553. That is where the treasure is.",
            &["You can find it at N°. 1026.253.553.", "That is where the treasure is."],
        ),
        (
            "She works at Yahoo! in the accounting department.",
            &["She works at Yahoo! in the accounting department."],
        ),
        (
            "We make a good team, you and I. Did you see Albert I. Jones yesterday?",
            &["We make a good team, you and I.", "Did you see Albert I. Jones yesterday?"],
        ),
        (
            "Thoreau argues that by simplifying one’s life, “the laws of the universe will appear less complex. . . .”",
            &["Thoreau argues that by simplifying one’s life, “the laws of the universe will appear less complex. . . .”"],
        ),
        (
            "\"Bohr [...] used the analogy of parallel stairways [...]\" (Smith 55).",
            &["\"Bohr [...] used the analogy of parallel stairways [...]\" (Smith 55)."],
        ),
        (
            "If words are left off at the end of a sentence, and that is all that is omitted, indicate the omission with ellipsis marks (preceded and followed by a space) and then indicate the end of the sentence with a period . . . . Next sentence.",
            &[
                "If words are left off at the end of a sentence, and that is all that is omitted, indicate the omission with ellipsis marks (preceded and followed by a space) and then indicate the end of the sentence with a period . . . .",
                "Next sentence.",
            ],
        ),
        ("I never meant that.... She left the store.", &["I never meant that....", "She left the store."]),
        (
            "I wasn’t really ... well, what I mean...see . . . what I'm saying, the thing is . . . I didn’t mean it.",
            &["I wasn’t really ... well, what I mean...see . . . what I'm saying, the thing is . . . I didn’t mean it."],
        ),
        (
            "One further habit which was somewhat weakened . . . was that of combining words into self-interpreting compounds. . . . The practice was not abandoned. . . .",
            &[
                "One further habit which was somewhat weakened . . . was that of combining words into self-interpreting compounds.",
                ". . . The practice was not abandoned. . . .",
            ],
        ),
    ];

    #[test]
    fn golden_rules() {
        assert_eq!(GOLDEN_RULES.len(), 48);
        let failures: Vec<_> = GOLDEN_RULES
            .iter()
            .enumerate()
            .filter(|(_, (input, expected))| sentences(input) != *expected)
            .map(|(n, (input, _))| format!("#{}: {input:?} -> {:?}", n + 1, sentences(input)))
            .collect();
        assert!(
            failures.is_empty(),
            "failing golden rules:\n{}",
            failures.join("\n")
        );
    }

    #[test]
    fn abbreviations_numbers_urls_and_emails_do_not_split() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Dr. Smith met Prof. Jones of Acme Inc. in the U.S. on Jan. 5 at 10 a.m. and paid $5.99 for 3.14 kg. It was fine.",
                &[
                    "Dr. Smith met Prof. Jones of Acme Inc. in the U.S. on Jan. 5 at 10 a.m. and paid $5.99 for 3.14 kg.",
                    "It was fine.",
                ],
            ),
            (
                "Mrs. Lee, Ms. Park and Mr. Cho (i.e. the board, e.g. Sr. staff) met Smith Jr. vs. Ltd. firms etc. at St. Paul's.",
                &["Mrs. Lee, Ms. Park and Mr. Cho (i.e. the board, e.g. Sr. staff) met Smith Jr. vs. Ltd. firms etc. at St. Paul's."],
            ),
            (
                "See https://example.com/a.b?c=d or www.example.com now. Mail john.doe@example.com today.",
                &["See https://example.com/a.b?c=d or www.example.com now.", "Mail john.doe@example.com today."],
            ),
            (
                "We met at No. 7 Corp. headquarters on Mon. Feb. 3. It rained.",
                &["We met at No. 7 Corp. headquarters on Mon. Feb. 3.", "It rained."],
            ),
            ("Well... maybe later… or not. Fine.", &["Well... maybe later… or not.", "Fine."]),
        ];
        for (input, expected) in cases {
            assert_eq!(sentences(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn terminators_quotes_cjk_and_paragraphs() {
        let cases: &[(&str, &[&str])] = &[
            ("Really?! Yes.", &["Really?!", "Yes."]),
            (
                "He said, “Stop!” Then he left.",
                &["He said, “Stop!”", "Then he left."],
            ),
            (
                "(This is a test.) Next one.",
                &["(This is a test.)", "Next one."],
            ),
            (
                "今日は晴れです。明日は雨です！本当？",
                &["今日は晴れです。", "明日は雨です！", "本当？"],
            ),
            (
                "「行こう。」と彼は言った。",
                &["「行こう。」", "と彼は言った。"],
            ),
            (
                "Title\n\nThe body follows\nacross lines",
                &["Title", "The body follows\nacross lines"],
            ),
            ("Pros:\n- fast\n- cheap", &["Pros:", "- fast", "- cheap"]),
        ];
        for (input, expected) in cases {
            assert_eq!(sentences(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn empty_and_whitespace_input() {
        assert!(sentence_spans("").is_empty());
        assert!(sentences(" \n\t\u{3000} ").is_empty());
        assert!(chunk("  \n ", 10).is_empty());
    }

    /// Deterministic pseudo-random strings over awkward characters.
    fn noisy_inputs() -> Vec<String> {
        const PALETTE: &[&str] = &[
            "a", "Z", " ", "\n", "\n\n", ".", "...", "…", "!", "?", "。", "！", "\"", "”", "(",
            ")", "[", "]", "é", "ж", "日本", "😀", "👍🏽", "Mr.", "U.S.", "1.", "2)", "•", "⁃", ",",
            "、", " - ", "\u{301}", "\u{200D}", "\u{FEFF}", "١", "।", "b.",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..300)
            .map(|_| {
                let mut s = String::new();
                for _ in 0..(state % 40) {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    s.push_str(PALETTE[(state >> 33) as usize % PALETTE.len()]);
                }
                s
            })
            .collect()
    }

    #[test]
    fn spans_are_trimmed_ordered_and_on_char_boundaries() {
        for text in noisy_inputs() {
            let spans = sentence_spans(&text);
            let mut previous_end = 0;
            for span in &spans {
                assert!(
                    span.start < span.end && span.start >= previous_end,
                    "{text:?}"
                );
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                let s = &text[span.clone()];
                assert_eq!(s, s.trim());
                previous_end = span.end;
            }
            let all: String = spans.iter().map(|r| &text[r.clone()]).collect();
            assert_eq!(strip_whitespace(&all), strip_whitespace(&text));
        }
    }

    fn collapse(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn strip_whitespace(s: &str) -> String {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    const SPACED_TEXTS: &[&str] = &[
        "Short one. Another short one! And a question? Yes.",
        "This sentence is rather long, with several clauses; it keeps going: on and on — until it stops. Then a short one.",
        "Café crème brûlée was délicieux, naïve façade aside. Señor Muñoz agreed – très bien!",
        "Привет, мир. Это очень длинное предложение, которое нужно разбить на части. Да!",
        "Great product 😀👍🏽 would buy again!!! 10/10, no complaints, 🚀🚀🚀 fast shipping.",
        "これはペンです。 それは本です。 日本語の 文章 も 空白 で 区切れる。",
        "Supercalifragilisticexpialidocious is long. https://example.com/a/very/long/path?query=1",
        "Line one\nline two\n\nNew paragraph here, with a comma.",
    ];

    #[test]
    fn chunks_reproduce_the_text_with_whitespace_collapsed() {
        for text in SPACED_TEXTS {
            // Words of unspaced scripts longer than `max` are cut between
            // characters, which joining with spaces cannot undo.
            let longest_unspaced = text
                .split_whitespace()
                .filter(|w| w.chars().any(is_unspaced))
                .map(char_len)
                .max()
                .unwrap_or(0);
            for max in [0, 1, 5, 8, 12, 25, 40, 1000] {
                let chunks = chunk(text, max);
                let joined = chunks.join(" ");
                if max >= longest_unspaced {
                    assert_eq!(collapse(&joined), collapse(text), "{text:?} max={max}");
                }
                assert_eq!(strip_whitespace(&joined), strip_whitespace(text));
                for c in &chunks {
                    assert!(!c.is_empty() && c.as_str() == c.trim());
                    assert!(
                        char_len(c) <= max.max(1) || !c.contains(char::is_whitespace),
                        "{c:?} exceeds {max} but could have been split"
                    );
                }
            }
        }
    }

    #[test]
    fn unspaced_scripts_are_split_between_characters_as_a_last_resort() {
        let text = "吾輩は猫である名前はまだ無いどこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で泣いていた事だけは記憶している。";
        for max in [1, 4, 10, 30] {
            let chunks = chunk(text, max);
            assert_eq!(strip_whitespace(&chunks.concat()), strip_whitespace(text));
            assert!(chunks.iter().all(|c| char_len(c) <= max), "{chunks:?}");
        }
        assert_eq!(
            chunk("今日は、晴れ。明日は雨。", 9),
            ["今日は、晴れ。", "明日は雨。"]
        );
        assert_eq!(
            chunk("今日は、晴れ。明日は雨。", 12),
            ["今日は、晴れ。明日は雨。"]
        );
        assert_eq!(chunk("今日は、晴れ。", 4), ["今日は、", "晴れ。"]);
        for text in noisy_inputs() {
            for max in [0, 3, 8] {
                assert_eq!(
                    strip_whitespace(&chunk(&text, max).concat()),
                    strip_whitespace(&text)
                );
            }
        }
    }

    #[test]
    fn chunk_packing_and_splitting() {
        assert_eq!(chunk("One. Two. Three.", 10), ["One. Two.", "Three."]);
        assert_eq!(chunk("One. Two. Three.", 100), ["One. Two. Three."]);
        assert_eq!(
            chunk("Alpha beta, gamma delta; epsilon. Short.", 20),
            ["Alpha beta,", "gamma delta;", "epsilon.", "Short."]
        );
        assert_eq!(chunk("aa, bb, cc, dd.", 8), ["aa, bb,", "cc, dd."]);
        assert_eq!(
            chunk("one two three four five", 9),
            ["one two", "three", "four five"]
        );
        assert_eq!(
            chunk("Hi. Incomprehensibilities abound.", 10),
            ["Hi.", "Incomprehensibilities", "abound."]
        );
        assert_eq!(chunk("yes - no — maybe", 6), ["yes -", "no —", "maybe"]);
        assert_eq!(chunk("1,000,000 dollars", 5), ["1,000,000", "dollars"]);
        assert_eq!(chunk("Ab. Cd.", 0), ["Ab.", "Cd."]);
    }
}
