//! The spacing and punctuation rules (1 to 4 of the list in the parent
//! module): runs of spaces, repeated marks, and the space before and after
//! a mark.

use super::*;

pub(super) const OPENERS: &str = "\"'“‘([«";
pub(super) const CLOSERS: &str = "\"'”’)]»";

pub(super) fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

pub(super) fn collapse_spaces(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let c = &t.c;
    let mut edits = Vec::new();
    for run in runs(c, is_blank) {
        let inner = run.start > 0
            && !c[run.start - 1].is_whitespace()
            && c.get(run.end).is_some_and(|n| !n.is_whitespace());
        if inner && run.len() >= 2 {
            edits.push((run, " ".to_string()));
        }
    }
    if !edits.is_empty() {
        changes.push(format!(
            "spacing: collapsed {} run(s) of spaces",
            edits.len()
        ));
    }
    edited(c, &edits)
}

pub(super) fn repeated_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    let mut i = 0;
    while i < t.c.len() {
        let ch = t.c[i];
        let same_class = |x: char| match ch {
            '!' | '?' => x == '!' || x == '?',
            ',' | ';' => x == ch,
            _ => false,
        };
        let start = i;
        i += 1;
        if !same_class(ch) {
            continue;
        }
        while i < t.c.len() && same_class(t.c[i]) {
            i += 1;
        }
        if t.is_protected(start..i) {
            continue;
        }
        let mut fixed: Vec<char> = t.c[start..i].to_vec();
        fixed.dedup();
        if fixed.len() < i - start {
            let before: String = t.c[start..i].iter().collect();
            let after: String = fixed.into_iter().collect();
            changes.push(format!("punctuation: {before} → {after}"));
            edits.push((start..i, after));
        }
    }
    edited(&t.c, &edits)
}

pub(super) fn space_before_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    for run in runs(&t.c, is_blank) {
        let i = run.end;
        let Some(p) = t.at(i) else { break };
        let after_word = t
            .before(run.start)
            .is_some_and(|b| b.is_alphanumeric() || CLOSERS.contains(b));
        if after_word && ",.!?;:".contains(p) && !t.is_protected(i..i + 1) && may_attach(t, i) {
            changes.push(format!("punctuation: removed space before '{p}'"));
            edits.push((run, String::new()));
        }
    }
    edited(&t.c, &edits)
}

/// Whether the punctuation at `i` may be attached to the word before it.
pub(super) fn may_attach(t: &Text, i: usize) -> bool {
    let p = t.c[i];
    let mut k = i + 1;
    if p == '!' || p == '?' {
        while t.at(k).is_some_and(|c| c == '!' || c == '?') {
            k += 1;
        }
    }
    let next = t.at(k);
    let ends = next.is_none_or(|c| c.is_whitespace() || CLOSERS.contains(c));
    // " .The" ends a sentence when a lower-case word precedes the blanks.
    let mut b = i;
    while b > 0 && is_blank(t.c[b - 1]) {
        b -= 1;
    }
    let word_before = t.before(b).is_some_and(char::is_lowercase);
    let after: String = t.c[k.min(t.c.len())..]
        .iter()
        .take_while(|c| c.is_alphabetic())
        .flat_map(|c| c.to_lowercase())
        .collect();
    let sentence_after = next.is_some_and(char::is_uppercase)
        && t.at(k + 1)
            .is_none_or(|c| c.is_lowercase() || (next == Some('I') && !c.is_alphanumeric()))
        // `.Net`, `.Com` are names.
        && !matches!(after.as_str(), "net" | "com" | "org");
    match p {
        '.' => ends || (word_before && sentence_after),
        // Not before a closing bracket, so emoticons such as ":)" stay.
        ':' | ';' => {
            next.is_none_or(char::is_whitespace)
                || next.is_some_and(char::is_alphabetic)
                    && t.at(k + 1).is_some_and(char::is_alphabetic)
        }
        _ => ends || next.is_some_and(char::is_alphabetic),
    }
}

pub(super) fn space_after_punctuation(t: &Text, changes: &mut Vec<String>) -> Option<String> {
    let mut edits = Vec::new();
    for i in 0..t.c.len() {
        if needs_space_after(t, i) {
            changes.push(format!("punctuation: added space after '{}'", t.c[i]));
            edits.push((i + 1..i + 1, " ".to_string()));
        }
    }
    edited(&t.c, &edits)
}

pub(super) fn needs_space_after(t: &Text, i: usize) -> bool {
    let (Some(p), Some(prev), Some(next)) = (t.at(i), t.before(i), t.at(i + 1)) else {
        return false;
    };
    if !next.is_alphabetic() || t.is_protected(i..i + 1) {
        return false;
    }
    let word_before = prev.is_alphanumeric() || CLOSERS.contains(prev);
    match p {
        ',' | '!' | '?' => word_before || prev == '!' || prev == '?',
        ';' => word_before && t.at(i + 2).is_some_and(char::is_alphabetic),
        ':' => prev.is_alphabetic() && t.at(i + 2).is_some_and(char::is_alphabetic),
        '.' => {
            let run_before = t.c[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_alphabetic())
                .count();
            let before_run = i.checked_sub(run_before + 1).and_then(|j| t.at(j));
            let run_after = t.c[i + 1..]
                .iter()
                .take_while(|c| c.is_alphabetic())
                .count();
            let after_run = t.at(i + 1 + run_after);
            let domain_like = after_run == Some('.')
                && t.at(i + 2 + run_after).is_some_and(char::is_alphanumeric);
            prev.is_lowercase()
                && run_before >= 2
                && before_run != Some('.')
                && next.is_uppercase()
                && (run_after >= 2 || next == 'I')
                && !domain_like
        }
        _ => false,
    }
}
