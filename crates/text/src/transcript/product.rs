//! The product a testimonial praises.
//!
//! In order: a product after a phrase of use ("we started using X", "we
//! switched from A to X", "thanks to X"); one after "the app/tool/... from X";
//! the interviewer's organisation in an interview (the vendor); a CamelCase
//! word ("HelpHive"), the most frequent; "with X we/it's/our ...". In cased
//! text a product is a run of capitalised words; in lower-case text it is one
//! word plus known suffixes ("acme crm"), since nothing marks where the name
//! ends. A value equal to the speaker's own name or organisation is skipped.

use super::{has, Ctx, STOP};

/// Phrases after which a product is named.
const TRIGGERS: &str = "started using|start using|began using|been using|we're using|\
    are using|i'm using|now using|switched to|switch to|switching to|moved to|moved over to|migrated to|\
    we use|i use|we now use|implemented|rolled out|adopted|signed up for|brought in|went with|\
    go with|onboarded onto|thanks to|we chose|we picked|we bought|we installed|we deployed|\
    invested in|subscribed to";
/// Words that continue a product name in lower-case text ("acme crm").
const SUFFIXES: &str = "crm erp hr pos pro plus max one go hub cloud suite ai desk pay io \
    studio online live connect cms lms";
/// Nouns for a product in "the app from X".
const KINDS: &str = "app apps tool tools software platform system product solution service \
    suite";
/// Words after "with X" that show X is the subject's means ("with X we ...").
const AFTER_WITH: &str = "we i it's it our now everything there's we've i've things";

impl Ctx<'_> {
    /// The product praised (see the module doc); `vendor` is the
    /// interviewer's organisation, `own` the speaker's lower-cased name and
    /// organisation.
    pub(super) fn product(&self, vendor: Option<&str>, own: &[String]) -> Option<String> {
        let fresh = |p: &String| !own.iter().any(|o| o.eq_ignore_ascii_case(p));
        let n = self.toks.len();
        let after_use = (0..n).find_map(|i| self.used_at(i).filter(fresh));
        let from_kind = || {
            (0..n)
                .filter(|&i| has(KINDS, self.w(i)) && matches!(self.w(i + 1), "from" | "by"))
                .find_map(|i| self.product_at(i + 2).filter(fresh))
        };
        let vendor = || vendor.map(str::to_owned).filter(fresh);
        let with = || {
            (0..n)
                .filter(|&i| self.w(i) == "with")
                .find_map(|i| {
                    let (a, e) = self.product_span(i + 1)?;
                    let after = self.w(self.skip(e));
                    has(AFTER_WITH, after).then(|| self.product_text(a, e))
                })
                .filter(fresh)
        };
        after_use
            .or_else(from_kind)
            .or_else(vendor)
            .or_else(|| self.camel_case(own))
            .or_else(with)
    }

    /// A product named by a phrase of use starting at token `i`.
    fn used_at(&self, i: usize) -> Option<String> {
        for trigger in TRIGGERS.split('|') {
            if let Some(p) = self.seq(i, trigger).and_then(|j| self.product_at(j)) {
                return Some(p);
            }
        }
        // "switched from X to Y"
        let moved = matches!(self.w(i), "switched" | "switching" | "moved" | "migrated");
        if moved && self.w(self.skip(i + 1)) == "from" {
            for k in i + 2..(i + 9).min(self.toks.len()) {
                if self.brk(k) {
                    break;
                }
                if matches!(self.w(k), "to" | "onto") {
                    return self.product_at(k + 1);
                }
            }
        }
        None
    }

    /// A product starting at `k`, after an optional "the".
    pub(super) fn product_at(&self, k: usize) -> Option<String> {
        self.product_span(k).map(|(a, e)| self.product_text(a, e))
    }

    /// The token range of a product at `k` (≤ 4 words; see the module doc).
    fn product_span(&self, k: usize) -> Option<(usize, usize)> {
        let mut a = self.skip(k);
        if self.w(a) == "the" && !self.brk(a + 1) {
            a += 1;
        }
        let mut e = a;
        while e < a + 4 && (e == a || !self.brk(e)) && self.org_word(e) {
            if e > a && !self.cased && !has(SUFFIXES, self.w(e)) {
                break;
            }
            e += 1;
            if self.w(e - 1).ends_with("'s") {
                break;
            }
        }
        (a..e).any(|t| self.distinctive(t)).then_some((a, e))
    }

    /// The value of the product at tokens `a..e`, without a final "'s".
    fn product_text(&self, a: usize, e: usize) -> String {
        let raw = &self.text[self.bytes(a, e)];
        let raw = raw
            .strip_suffix("'s")
            .or_else(|| raw.strip_suffix("’s"))
            .unwrap_or(raw);
        self.cased_value(raw)
    }

    /// The most frequent CamelCase word ("HelpHive"), first on ties.
    fn camel_case(&self, own: &[String]) -> Option<String> {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for t in &self.toks {
            let word = &self.text[t.start..t.end];
            let word = word
                .strip_suffix("'s")
                .or_else(|| word.strip_suffix("’s"))
                .unwrap_or(word);
            let chars: Vec<char> = word.chars().collect();
            let camel = chars.len() >= 4
                && chars.iter().all(|c| c.is_alphanumeric())
                && chars
                    .windows(2)
                    .any(|p| p[0].is_lowercase() && p[1].is_uppercase());
            let lower = word.to_lowercase();
            if !camel || has(STOP, &lower) || own.iter().any(|o| o.contains(&lower)) {
                continue;
            }
            match counts.iter_mut().find(|(w, _)| *w == word) {
                Some((_, n)) => *n += 1,
                None => counts.push((word.to_owned(), 1)),
            }
        }
        let best = counts.iter().map(|(_, n)| *n).max()?;
        counts.into_iter().find(|(_, n)| *n == best).map(|(w, _)| w)
    }
}
