//! What a name, a role and an organisation look like in a transcript's
//! tokens: the readers the statement patterns (`statements`) call once a
//! pattern has matched ("my name is" then a name, "at" then an
//! organisation).

use super::*;

impl Ctx<'_> {
    /// Whether token `k` can be part of a name; `lenient` (for the first word
    /// after "my name is") also accepts role words, "will" and "may".
    pub(super) fn name_word(&self, k: usize, lenient: bool) -> bool {
        let Some(t) = self.toks.get(k) else {
            return false;
        };
        let w = t.lower.as_str();
        let shaped = w.chars().count() >= 2
            && w.starts_with(char::is_alphabetic)
            && w.chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '-' || is_mark(c));
        let stop = has(STOP, w) && !(lenient && matches!(w, "will" | "may"));
        if !shaped || stop || self.filler(k) > 0 || w.ends_with("'s") {
            return false;
        }
        if lenient || has(NOT_NAME, w) {
            return lenient && !has(NOT_NAME, w);
        }
        let listed = [HEADS, MODS, DEPTS, PARTICLES].iter().any(|l| has(l, w));
        let verb_like = (w.len() > 5 && w.ends_with("ing"))
            || ((w.ends_with("ed") || w.ends_with("ly")) && !has(NAME_EXCEPTIONS, w));
        !listed && !verb_like && (t.cap || !self.cased)
    }

    /// A name of 1–3 words (plus particles) starting at `j`, after an
    /// optional honorific kept with it ("Dr. Fatima Haddad"); returns its end.
    pub(super) fn name_at(&self, j: usize, lenient: bool, max: usize) -> Option<usize> {
        if let Some(e) = self
            .after_honorific(j)
            .and_then(|k| self.plain_name_at(k, lenient, max))
        {
            return Some(e);
        }
        self.plain_name_at(j, lenient, max)
    }

    /// The token after an honorific at `j` ("Dr." or "dr"), when only a dot
    /// or a space separates them.
    pub(super) fn after_honorific(&self, j: usize) -> Option<usize> {
        if !has(HONORIFICS, self.w(j)) {
            return None;
        }
        let next = self.toks.get(j + 1)?;
        let gap = self.text.get(self.toks[j].end..next.start)?.trim();
        (gap.is_empty() || gap == ".").then_some(j + 1)
    }

    /// A name of 1–3 words (plus particles) starting at `j`; a word followed
    /// by a role noun ("fleet" in "... fleet manager") ends it.
    pub(super) fn plain_name_at(&self, j: usize, lenient: bool, max: usize) -> Option<usize> {
        if !self.name_word(j, lenient) {
            return None;
        }
        let (mut e, mut words) = (j + 1, 1);
        while words < max && !self.brk(e) {
            let modifies = words >= 2 && has(HEADS, self.w(e + 1)) && !self.brk(e + 1);
            if self.name_word(e, false) && !modifies {
                e += 1;
            } else if has(PARTICLES, self.w(e)) && !self.brk(e + 1) && self.name_word(e + 1, false)
            {
                e += 2;
            } else {
                break;
            }
            words += 1;
        }
        Some(e)
    }

    /// A role starting at `k` after an optional article; returns the token
    /// range of the role without the article. "ceo and founder" is one role.
    pub(super) fn role_at(&self, k: usize) -> Option<(usize, usize)> {
        self.role_at_loose(k, false)
    }

    /// [`Self::role_at`]; with `loose` (or after an article) up to two
    /// unlisted words may precede the role noun ("a warehouse supervisor").
    pub(super) fn role_at_loose(&self, k: usize, loose: bool) -> Option<(usize, usize)> {
        let (start, end) = self.role_core(k, loose)?;
        if matches!(self.w(end), "and" | "&") && !self.brk(end) && !self.brk(end + 1) {
            if let Some((_, e2)) = self.role_core(end + 1, false) {
                return Some((start, e2));
            }
        }
        Some((start, end))
    }

    pub(super) fn role_core(&self, k: usize, mut loose: bool) -> Option<(usize, usize)> {
        let mut s = self.skip(k);
        if matches!(self.w(s), "a" | "an" | "the") {
            s = self.skip(s + 1);
            loose = true;
        }
        let (mut e, mut last, mut unlisted) = (s, None, 0);
        while e < s + 5 && (e == s || !self.brk(e) && self.filler(e) == 0) {
            let w = self.w(e);
            let of_next = self.w(e + 1) == "of";
            let head = (has(HEADS, w) && (w != "head" || of_next)) || (w == "chief" && of_next);
            if head {
                last = Some(e);
            } else if loose && last.is_none() && unlisted < 2 && self.plain_word(e) {
                unlisted += 1;
            } else if !has(MODS, w) && !has(DEPTS, w) {
                break;
            }
            e += 1;
            if head && self.w(e) == "of" {
                break;
            }
        }
        let last = last?;
        let mut end = last + 1;
        if has(OF_HEADS, self.w(last)) && self.w(end) == "of" && !self.brk(end) {
            let mut m = end + 1;
            while m < end + 5 && !self.brk(m) {
                if has(DEPTS, self.w(m)) {
                    m += 1;
                } else if self.w(m) == "and" && has(DEPTS, self.w(m + 1)) && !self.brk(m + 1) {
                    m += 2;
                } else {
                    break;
                }
            }
            if m == end + 1 && matches!(self.w(last), "head" | "chief") {
                // "head of customer happiness": up to 3 words before "at".
                while m < end + 4 && !self.brk(m) && self.filler(m) == 0 {
                    if self.w(m).is_empty() || has(STOP, self.w(m)) {
                        break;
                    }
                    m += 1;
                }
            }
            if m > end + 1 {
                end = m;
            } else if matches!(self.w(last), "head" | "chief") {
                return None;
            }
        }
        Some((s, end))
    }

    /// An ordinary word that may qualify a role noun ("fleet", "family").
    pub(super) fn plain_word(&self, k: usize) -> bool {
        let w = self.w(k);
        w.chars().count() >= 3
            && w.chars().all(|c| c.is_alphabetic() || c == '-')
            && ![STOP, NOT_NAME, GENERIC, FILLERS].iter().any(|l| has(l, w))
            && !w.ends_with("ly")
    }

    /// Whether token `k` can be part of an organisation or product name.
    pub(super) fn org_word(&self, k: usize) -> bool {
        let w = self.w(k);
        !w.is_empty()
            && !has(STOP, w)
            && self.filler(k) == 0
            && (!self.cased || self.toks[k].marked)
    }

    /// A word that identifies rather than describes ("bluefin", not "company").
    pub(super) fn distinctive(&self, k: usize) -> bool {
        let w = self.w(k).trim_end_matches("'s");
        w.chars().any(char::is_alphabetic) && ![STOP, NOT_NAME, GENERIC].iter().any(|l| has(l, w))
    }

    /// An organisation (≤ 5 words) starting at `k`, after "the" if `the`.
    pub(super) fn org_at(&self, k: usize, the: bool) -> Option<(usize, usize)> {
        let mut a = self.skip(k);
        if the && self.w(a) == "the" && !self.brk(a + 1) {
            a += 1;
        }
        let mut e = a;
        while e < a + 5 && (e == a || !self.brk(e)) {
            if e > a && matches!(self.w(e), "of" | "&" | "and") {
                let joins = self.w(e) != "and" || self.distinctive(e + 1);
                if !self.brk(e + 1) && self.org_word(e + 1) && joins {
                    e += 1;
                    continue;
                }
                break;
            }
            if !self.org_word(e) {
                break;
            }
            e += 1;
        }
        (a..e).any(|t| self.distinctive(t)).then_some((a, e))
    }

    /// An organisation after one of the `connectors` at token `k`.
    pub(super) fn org_after(&self, k: usize, connectors: &str) -> Option<(usize, usize)> {
        has(connectors, self.w(k))
            .then(|| self.org_at(k + 1, true).or_else(|| self.called_at(k + 1)))
            .flatten()
    }

    /// "a bakery called X": the organisation X after a described one at `k`.
    pub(super) fn called_at(&self, k: usize) -> Option<(usize, usize)> {
        let a = self.skip(k);
        if !matches!(self.w(a), "a" | "an" | "my" | "our" | "this") {
            return None;
        }
        for m in a + 1..a + 5 {
            if matches!(self.w(m), "called" | "named") {
                return self.org_at(m + 1, true);
            }
            if self.brk(m) || has(STOP, self.w(m)) {
                return None;
            }
        }
        None
    }

    /// Start of a name of up to `max` words ending right before token `i`;
    /// `gap` allows punctuation between the name and token `i`.
    pub(super) fn name_before(&self, i: usize, max: usize, gap: bool) -> usize {
        let mut a = i;
        while a > 0 && i - a < max && ((gap && a == i) || !self.brk(a)) {
            if !self.name_word(a - 1, false) {
                break;
            }
            a -= 1;
        }
        if a > 0 && a < i && self.after_honorific(a - 1) == Some(a) {
            a -= 1;
        }
        a
    }
}
