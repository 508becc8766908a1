//! A sentence's tokens: each word lower-cased and classified once against
//! the lexicon's lists, phrases marked across words, and where clauses break.

use std::ops::Range;

use super::*;

/// A whitespace-separated token of a sentence.
pub(super) struct Token {
    /// Byte range in the whole text.
    pub(super) range: Range<usize>,
    /// Lower-cased, trimmed of surrounding punctuation; empty for non-words.
    pub(super) word: String,
    /// Whether a clause boundary precedes this token.
    pub(super) break_before: bool,
    /// What the word signals, computed once.
    pub(super) class: Class,
}

/// The signals of one word (see the module documentation).
#[derive(Clone, Copy, Default)]
pub(super) struct Class {
    /// A negation word.
    pub(super) negation: bool,
    /// A negation of possibility (can't, couldn't).
    pub(super) modal_negation: bool,
    /// A hedge, wish or complaint word, or a word of such a phrase.
    pub(super) bad: bool,
    /// 2 for praise, 1 for mild praise.
    pub(super) praise: u8,
    pub(super) superlative: bool,
    pub(super) outcome: bool,
    /// A verb that is an outcome only after a first-person subject.
    pub(super) first_person_verb: bool,
    pub(super) first_person: bool,
    pub(super) number: bool,
    pub(super) multiplier: bool,
    /// A fault a negation may deny ("issues").
    pub(super) target: bool,
    /// A fault only a modal negation may deny ("happier").
    pub(super) modal_target: bool,
    /// What an outcome is measured in (time, money, ...).
    pub(super) outcome_object: bool,
    /// Starts "I've used", "has seen", ...: backs a superlative.
    pub(super) experience: bool,
    /// The word "only" ("not only").
    pub(super) only: bool,
    /// The length in words of a praise phrase starting here, or 0.
    pub(super) phrase: u8,
    /// A word inside a praise phrase (its negations do not count).
    pub(super) in_phrase: bool,
    /// The length in words of a "from N … to N" range starting here, or 0.
    pub(super) range: u8,
}

pub(super) fn classify(w: &str) -> Class {
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

pub(super) fn normalise(raw: &str) -> String {
    raw.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('’', "'")
}

/// Splits a sentence into tokens at whitespace and dashes, noting clause breaks.
pub(super) fn tokens(text: &str, sentence: Range<usize>) -> Vec<Token> {
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
pub(super) fn matches_at(words: &[&str], at: usize, phrase: &[&str]) -> bool {
    words.get(at..at + phrase.len()) == Some(phrase)
}

/// Marks what words mean together: phrases, "-est" superlatives, ranges.
pub(super) fn mark_phrases(toks: &mut [Token]) {
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
pub(super) fn range_len(words: &[&str], idx: &[usize], toks: &[Token], p: usize) -> Option<u8> {
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

pub(super) fn push_token(
    out: &mut Vec<Token>,
    pending: &mut bool,
    text: &str,
    range: Range<usize>,
) {
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

pub(super) fn is_list_marker(raw: &str) -> bool {
    let Some(head) = raw.strip_suffix(['.', ')']) else {
        return false;
    };
    (1..=3).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_digit())
        || head.len() == 1 && head.bytes().all(|b| b.is_ascii_alphabetic())
}
