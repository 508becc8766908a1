//! The text as the rules see it: its `char`s, the spans no rule touches
//! ([`crate::protect`]) and its words. It is built once per distinct text, so
//! rules that change nothing share it.

use std::cell::OnceCell;
use std::ops::Range;

use crate::chars::is_apostrophe;
use crate::protect;

/// The text, as a string and as `char`s, with a flag per char for the spans
/// no rule touches (see `protect.rs`) and its words, found on first use.
pub(crate) struct Text {
    pub(crate) s: String,
    pub(crate) c: Vec<char>,
    protected: Vec<bool>,
    words: OnceCell<Vec<Word>>,
}

impl Text {
    pub(crate) fn new(s: String) -> Self {
        let c: Vec<char> = s.chars().collect();
        let protected = protect::mask(&c);
        Text {
            s,
            c,
            protected,
            words: OnceCell::new(),
        }
    }

    pub(crate) fn at(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }

    pub(crate) fn before(&self, i: usize) -> Option<char> {
        i.checked_sub(1).and_then(|j| self.at(j))
    }

    pub(crate) fn is_protected(&self, range: Range<usize>) -> bool {
        self.protected
            .get(range)
            .is_some_and(|p| p.iter().any(|&b| b))
    }

    /// Words: runs of letters, with apostrophes allowed between letters, not
    /// touching digits, outside protected tokens.
    pub(crate) fn words(&self) -> &[Word] {
        self.words.get_or_init(|| self.find_words())
    }

    fn find_words(&self) -> Vec<Word> {
        let (c, n) = (&self.c, self.c.len());
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            if !c[i].is_alphanumeric() {
                i += 1;
                continue;
            }
            let start = i;
            loop {
                while i < n && c[i].is_alphanumeric() {
                    i += 1;
                }
                if i + 1 < n && is_apostrophe(c[i]) && c[i + 1].is_alphanumeric() {
                    i += 1;
                } else {
                    break;
                }
            }
            let chars = &c[start..i];
            if chars
                .iter()
                .all(|&ch| ch.is_alphabetic() || is_apostrophe(ch))
                && !self.is_protected(start..i)
            {
                let mut text = String::with_capacity(chars.len());
                text.extend(chars);
                let mut lower = text.to_lowercase();
                if lower.contains('’') {
                    lower = lower.replace('’', "'");
                }
                out.push(Word {
                    start,
                    end: i,
                    text,
                    lower,
                });
            }
        }
        out
    }

    /// Whether exactly one space separates two words.
    pub(crate) fn single_space(&self, a: &Word, b: &Word) -> bool {
        b.start == a.end + 1 && self.at(a.end) == Some(' ')
    }
}

pub(crate) struct Word {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
    pub(crate) lower: String,
}
