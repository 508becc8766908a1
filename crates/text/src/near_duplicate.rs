//! Near-duplicate texts among a stream of reviews, by MinHash over character
//! shingles with banded lookup (locality-sensitive hashing).
//!
//! A text is lowercased and every run of characters that are not letters or
//! digits becomes one space; its shingles are its [`SHINGLE`]-character
//! windows. Each text keeps [`HASHES`] MinHash values (the least of a mixed
//! hash per shingle, one mix per value); two texts whose values agree in a
//! whole band of [`ROWS`] are compared, and are near-duplicates when at least
//! [`SIMILARITY`] of their values agree (an estimate of the Jaccard similarity
//! of their shingle sets). Texts under [`MIN_CHARS`] normalized characters
//! are never compared: short reviews repeat by chance.

use std::collections::HashMap;

use twox_hash::XxHash3_64;

/// Characters per shingle.
pub const SHINGLE: usize = 5;

/// The fewest normalized characters a compared text has.
pub const MIN_CHARS: usize = 64;

/// MinHash values per text.
pub const HASHES: usize = 64;

/// Values per band: a pair is compared when one band agrees in full.
pub const ROWS: usize = 4;

/// Bands per text.
const BANDS: usize = HASHES / ROWS;

/// The least share of agreeing values of a near-duplicate.
pub const SIMILARITY: f64 = 0.7;

/// A text's MinHash values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature([u32; HASHES]);

impl Signature {
    /// The signature of `text`; none when it is too short to compare.
    pub fn of(text: &str) -> Option<Signature> {
        let chars = normalized(text);
        if chars.len() < MIN_CHARS {
            return None;
        }
        let mut values = [u32::MAX; HASHES];
        let mut window = String::with_capacity(SHINGLE * 4);
        for shingle in chars.windows(SHINGLE) {
            window.clear();
            window.extend(shingle);
            let base = XxHash3_64::oneshot(window.as_bytes());
            for (i, value) in values.iter_mut().enumerate() {
                *value = (*value).min(mix(base, i as u64));
            }
        }
        Some(Signature(values))
    }

    /// The share of values two signatures agree on, from 0 to 1.
    pub fn similarity(&self, other: &Signature) -> f64 {
        let equal = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        equal as f64 / HASHES as f64
    }

    /// The key of band `band`: the band's index and values, hashed.
    fn band(&self, band: usize) -> u64 {
        let mut bytes = [0u8; ROWS * 4 + 1];
        bytes[0] = band as u8;
        for (i, v) in self.0[band * ROWS..(band + 1) * ROWS].iter().enumerate() {
            bytes[1 + i * 4..5 + i * 4].copy_from_slice(&v.to_le_bytes());
        }
        XxHash3_64::oneshot(&bytes)
    }
}

/// `text` lowercased, with every run of other characters than letters and
/// digits as one space, trimmed.
fn normalized(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if out.last().is_some_and(|l| *l != ' ') {
            out.push(' ');
        }
    }
    if out.last() == Some(&' ') {
        out.pop();
    }
    out
}

/// The `i`th independent 32-bit hash of a shingle's hash (SplitMix64's
/// finalizer over the hash and a per-value odd constant).
fn mix(base: u64, i: u64) -> u32 {
    let mut z = base ^ i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// The texts seen so far, each under its id, in the order they came.
#[derive(Debug, Default)]
pub struct NearDuplicates {
    signatures: Vec<Signature>,
    ids: Vec<String>,
    /// Each band key's texts, by position in `signatures`.
    bands: HashMap<u64, Vec<u32>>,
    /// Positions by id, so a text seen again under its own id is not its own
    /// duplicate.
    known: HashMap<String, u32>,
    limit: Option<usize>,
}

impl NearDuplicates {
    /// An index that keeps at most `limit` texts: past it, later texts are
    /// still compared with the ones kept, and are not kept themselves.
    pub fn with_limit(limit: usize) -> NearDuplicates {
        NearDuplicates {
            limit: Some(limit),
            ..Default::default()
        }
    }

    /// How many texts are kept.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no text is kept.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Takes the text of review `id`, and answers the id of the earliest
    /// review kept before it whose text it is a near-duplicate of.
    pub fn check(&mut self, id: &str, text: &str) -> Option<String> {
        let signature = Signature::of(text)?;
        let own = self.known.get(id).copied();
        let mut candidates: Vec<u32> = (0..BANDS)
            .filter_map(|b| self.bands.get(&signature.band(b)))
            .flatten()
            .copied()
            .filter(|c| own.is_none_or(|o| *c < o))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let found = candidates
            .into_iter()
            .find(|c| signature.similarity(&self.signatures[*c as usize]) >= SIMILARITY)
            .map(|c| self.ids[c as usize].clone());
        if own.is_none() && self.limit.is_none_or(|l| self.ids.len() < l) {
            self.keep(id, signature);
        }
        found
    }

    fn keep(&mut self, id: &str, signature: Signature) {
        let at = self.ids.len() as u32;
        for b in 0..BANDS {
            self.bands.entry(signature.band(b)).or_default().push(at);
        }
        self.signatures.push(signature);
        self.ids.push(id.to_owned());
        self.known.insert(id.to_owned(), at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEW: &str = "We booked the family room for three nights. The staff were friendly, \
        the breakfast was generous and the beds were comfortable. Parking was a little tight.";

    #[test]
    fn an_edited_copy_points_at_the_first_text() {
        let mut index = NearDuplicates::default();
        assert_eq!(index.check("a", REVIEW), None);
        let edited = REVIEW
            .replace("three nights", "two nights")
            .replace("tight", "TIGHT!!");
        assert_eq!(index.check("b", &edited).as_deref(), Some("a"));
        // The third points at the earliest, not at the copy.
        assert_eq!(index.check("c", REVIEW).as_deref(), Some("a"));
    }

    #[test]
    fn different_texts_and_short_texts_are_not_duplicates() {
        let mut index = NearDuplicates::default();
        index.check("a", REVIEW);
        let other = "The plumber came on time, explained the leak under the sink and fixed it \
            in under an hour. Fair price and he cleaned up after himself.";
        assert_eq!(index.check("b", other), None);
        assert_eq!(index.check("c", "Great service, would recommend!"), None);
        assert_eq!(index.check("d", "Great service, would recommend!"), None);
        assert_eq!(index.len(), 2);
    }

    #[test]
    fn a_review_seen_again_is_not_its_own_duplicate() {
        let mut index = NearDuplicates::default();
        index.check("a", REVIEW);
        assert_eq!(index.check("a", REVIEW), None);
        assert_eq!(index.check("b", REVIEW).as_deref(), Some("a"));
        // An earlier review revisited still points at its own original only.
        assert_eq!(index.check("b", REVIEW).as_deref(), Some("a"));
        assert_eq!(index.check("a", REVIEW), None);
        assert_eq!(index.len(), 2);
    }

    #[test]
    fn past_its_limit_an_index_compares_without_keeping() {
        let mut index = NearDuplicates::with_limit(1);
        index.check("a", REVIEW);
        let other = "The plumber came on time, explained the leak under the sink and fixed it \
            in under an hour. Fair price and he cleaned up after himself.";
        assert_eq!(index.check("b", other), None);
        assert_eq!(index.check("c", other), None);
        assert_eq!(index.check("d", REVIEW).as_deref(), Some("a"));
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn scripts_without_spaces_are_compared_by_characters() {
        let text = "这家店的东西质量很好，物流也很快，包装非常仔细，客服态度也很好，\
            下次还会再来买。衣服穿起来很舒服，颜色和图片上一样，尺码也合适，值得推荐给朋友们。";
        let mut index = NearDuplicates::default();
        index.check("a", text);
        let edited = text.replace("下次还会再来买", "下次一定再来");
        assert_eq!(index.check("b", &edited).as_deref(), Some("a"));
    }

    #[test]
    fn normalizing_keeps_letters_and_digits_only() {
        let n: String = normalized("  Hello,  WORLD!! 42 — ok ")
            .into_iter()
            .collect();
        assert_eq!(n, "hello world 42 ok");
    }
}
