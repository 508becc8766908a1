//! Sentence-aware chunking: whole sentences packed into pieces of bounded
//! length, a sentence split (at clauses, then words, then characters of
//! unspaced scripts) only when it alone is too long.

use std::ops::Range;

use super::{char_len, is_closer, is_opener, is_strong, is_unspaced, sentence_spans};

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
