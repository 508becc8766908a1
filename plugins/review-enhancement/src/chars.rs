//! Character helpers every rule shares: runs of chars, apostrophes, edits
//! applied to a text, and a replacement in the case of the word it replaces.
//! It depends on nothing else in the plugin.

use std::ops::Range;

/// The maximal runs of chars satisfying `pred`.
pub(crate) fn runs(c: &[char], pred: impl Fn(char) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let start = i;
        while i < c.len() && pred(c[i]) {
            i += 1;
        }
        if i > start {
            out.push(start..i);
        } else {
            i += 1;
        }
    }
    out
}

pub(crate) fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '’'
}

/// Applies `(range, replacement)` edits (sorted, non-overlapping) to `chars`.
pub(crate) fn apply(chars: &[char], edits: &[(Range<usize>, String)]) -> String {
    let mut out = String::with_capacity(chars.len() + 16);
    let mut pos = 0;
    for (range, replacement) in edits {
        out.extend(&chars[pos..range.start]);
        out.push_str(replacement);
        pos = range.end;
    }
    out.extend(&chars[pos..]);
    out
}

/// The text after `edits` (see [`apply`]), or `None` when there are none.
pub(crate) fn edited(chars: &[char], edits: &[(Range<usize>, String)]) -> Option<String> {
    (!edits.is_empty()).then(|| apply(chars, edits))
}

/// `replacement` in the case pattern of `original` (lower, Title or UPPER);
/// `None` for mixed case.
pub(crate) fn match_case(original: &str, replacement: &str) -> Option<String> {
    let mut letters = original.chars().filter(|c| c.is_alphabetic());
    let first = letters.next()?;
    let rest: Vec<char> = letters.collect();
    if !first.is_uppercase() && rest.iter().all(|c| !c.is_uppercase()) {
        Some(replacement.to_string())
    } else if first.is_uppercase() && !rest.is_empty() && rest.iter().all(|c| c.is_uppercase()) {
        Some(replacement.to_uppercase())
    } else if first.is_uppercase() && rest.iter().all(|c| !c.is_uppercase()) {
        Some(capitalise(replacement))
    } else {
        None
    }
}

/// `s` with its first letter in upper case.
pub(crate) fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(chars).collect())
}
