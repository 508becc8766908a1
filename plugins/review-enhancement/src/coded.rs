//! Reading a front-coded word list in place, without decoding it whole.
//!
//! The format (`data/build_words.py`): one word a line, in alphabetical order;
//! each line is one digit, how many leading characters the word shares with
//! the previous one, then the rest of the word, then (in a banded list) one
//! character giving its frequency band. Every sixteenth word, and the first
//! word of each letter, is written whole (digit `0`), so a lookup
//! binary-searches the whole words and decodes at most a few lines.

/// `data/build_words.py`: band `b` is written as `BAND_BASE + b - MIN_BAND`.
const BAND_BASE: u8 = b'!';
const MIN_BAND: u8 = 60;

use std::borrow::Cow;

/// A front-coded list and the byte offsets of its whole words.
pub(crate) struct Coded {
    data: &'static str,
    banded: bool,
    restarts: Cow<'static, [u32]>,
}

impl Coded {
    /// A list indexed at compile time (`build.rs`): nothing is computed when
    /// a call first looks a word up.
    pub(crate) const fn indexed(
        data: &'static str,
        banded: bool,
        restarts: &'static [u32],
    ) -> Coded {
        Coded {
            data,
            banded,
            restarts: Cow::Borrowed(restarts),
        }
    }

    /// Indexes `data` now; `banded` when each line ends in a band character.
    #[cfg(test)]
    pub(crate) fn new(data: &'static str, banded: bool) -> Coded {
        Coded {
            data,
            banded,
            restarts: Cow::Owned(crate::restarts::restarts(data)),
        }
    }

    /// The line at byte `offset`: shared length, rest of the word, band, and
    /// the offset of the next line.
    fn line(&self, offset: usize) -> Option<(usize, &'static str, u8, usize)> {
        let rest = self.data.get(offset..)?;
        // Lines are a few bytes long: a plain scan beats a searcher's set-up.
        let len = rest.bytes().position(|b| b == b'\n').unwrap_or(rest.len());
        let line = &rest[..len];
        let shared = usize::from(line.as_bytes().first()?.checked_sub(b'0')?);
        let (word, band) = if self.banded {
            let band = *line.as_bytes().last()?;
            (
                line.get(1..len - 1)?,
                band.saturating_sub(BAND_BASE) + MIN_BAND,
            )
        } else {
            (line.get(1..)?, 0)
        };
        Some((shared, word, band, offset + len + 1))
    }

    /// The whole word at restart `r`.
    fn whole(&self, r: usize) -> &'static str {
        self.restarts
            .get(r)
            .and_then(|&o| self.line(o as usize))
            .map_or("", |(_, w, _, _)| w)
    }

    /// Calls `f(word, band)` for each word from restart `r` on, in order,
    /// until `f` returns `false` or the list ends.
    fn walk(&self, r: usize, mut f: impl FnMut(&str, u8) -> bool) {
        let Some(&start) = self.restarts.get(r) else {
            return;
        };
        let mut word = String::new();
        let mut offset = start as usize;
        while let Some((shared, rest, band, next)) = self.line(offset) {
            word.truncate(shared.min(word.len()));
            word.push_str(rest);
            if !f(&word, band) {
                return;
            }
            offset = next;
        }
    }

    /// The band of `word` (0 in a list without bands), or `None` when absent.
    pub(crate) fn get(&self, word: &str) -> Option<u8> {
        let r = self.partition(|w| w <= word);
        let mut found = None;
        self.walk(r.checked_sub(1)?, |w, band| match w.cmp(word) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => {
                found = Some(band);
                false
            }
            std::cmp::Ordering::Greater => false,
        });
        found
    }

    /// The number of restarts whose whole word satisfies `pred` (a prefix
    /// of the restarts, as the words are sorted).
    fn partition(&self, pred: impl Fn(&str) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.restarts.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.whole(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Calls `f(word, band)` for every word starting with the byte `first`.
    pub(crate) fn each_starting_with(&self, first: u8, mut f: impl FnMut(&str, u8)) {
        let r = self.partition(|w| w.as_bytes().first().is_some_and(|&b| b < first));
        self.walk(r, |w, band| {
            let same = w.as_bytes().first() == Some(&first);
            if same {
                f(w, band);
            }
            same
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_and_letter_walks_match_the_list() {
        // "apple", "apply", "banana", "band" (restarts at 0 and at each letter).
        let list = Coded::new("0apple#\n4y$\n0banana%\n3d&\n", true);
        assert_eq!(list.get("apple"), Some(2 + MIN_BAND));
        assert_eq!(list.get("apply"), Some(3 + MIN_BAND));
        assert_eq!(list.get("band"), Some(5 + MIN_BAND));
        assert_eq!(list.get("ban"), None);
        assert_eq!(list.get("aardvark"), None);
        assert_eq!(list.get("zebra"), None);
        let mut b = Vec::new();
        list.each_starting_with(b'b', |w, _| b.push(w.to_owned()));
        assert_eq!(b, ["banana", "band"]);
        let plain = Coded::new("0car\n2t\n", false);
        assert_eq!(plain.get("car"), Some(0));
        assert_eq!(plain.get("cat"), Some(0));
        assert_eq!(plain.get("cab"), None);
    }
}
