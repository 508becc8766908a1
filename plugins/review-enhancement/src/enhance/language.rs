//! Whether a text is English: the test that decides whether the rules run
//! at all.

use super::*;

/// English function words (and a few very common review words) that are not
/// also common French, Spanish or German words. This list and the three below
/// are sorted (the build checks it) and searched as keys (`lexicon.rs`).
#[rustfmt::skip]
pub(super) const EN_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "as", "at", "awesome", "be", "because",
    "been", "but", "by", "can", "could", "did", "didn't", "do", "don't", "for", "from", "get",
    "good", "got", "great", "had", "has", "have", "he", "her", "highly", "his", "how", "i", "i'm",
    "i've", "if", "is", "it", "it's", "its", "just", "love", "loved", "more", "much", "my", "not",
    "of", "only", "or", "our", "out", "really", "recommend", "she", "so", "some", "than", "thank",
    "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "to", "too", "up", "very", "was", "we", "well", "were", "what", "when", "which", "who", "will",
    "with", "would", "you", "your",
];
#[rustfmt::skip]
pub(super) const FR_WORDS: &[&str] = &[
    "au", "aux", "avec", "bien", "c'est", "ce", "cette", "dans", "des", "du", "elle", "est", "et",
    "il", "ils", "j'ai", "je", "le", "les", "ma", "mais", "mes", "mon", "ne", "nous", "on", "ont",
    "pas", "pour", "qui", "sont", "sur", "tout", "très", "une", "vous", "ça", "été",
];
#[rustfmt::skip]
pub(super) const ES_WORDS: &[&str] = &[
    "al", "como", "con", "del", "el", "es", "esta", "este", "está", "fue", "ha", "han", "las", "lo",
    "los", "mi", "muy", "más", "nos", "para", "pero", "por", "que", "sin", "su", "también", "todo",
    "una", "y", "yo",
];
#[rustfmt::skip]
pub(super) const DE_WORDS: &[&str] = &[
    "aber", "alles", "auch", "auf", "bei", "das", "dem", "den", "der", "die", "ein", "eine", "es",
    "für", "haben", "hat", "ich", "ist", "kann", "mein", "mir", "mit", "nicht", "noch", "nur",
    "sehr", "sich", "sind", "und", "vom", "war", "wie", "wir", "zu", "zum",
];

pub(super) const EN_KEYS: [u128; EN_WORDS.len()] = lexicon::keys(EN_WORDS);
pub(super) const FR_KEYS: [u128; FR_WORDS.len()] = lexicon::keys(FR_WORDS);
pub(super) const ES_KEYS: [u128; ES_WORDS.len()] = lexicon::keys(ES_WORDS);
pub(super) const DE_KEYS: [u128; DE_WORDS.len()] = lexicon::keys(DE_WORDS);

/// Whether the text looks English (stop-word ratio heuristic); document the method.
///
/// Method: if the text has no letters, or more letters outside the Latin
/// script than inside it, it is not English. Otherwise it is split into words
/// (runs of letters and apostrophes, lower-cased, `’` read as `'`) and the
/// words are counted against four small lists of function words: English
/// (plus the keys of the misspelling table and a few very common English
/// review words such as "great" and "recommend"), French, Spanish and German.
/// The text is English when at least 15% of its words are English markers
/// and English markers outnumber each of the other languages' markers. Very
/// short texts without any marker ("Gracias", "ok") are therefore not
/// English, which errs on the side of leaving text alone.
pub fn is_english(text: &str) -> bool {
    let (mut latin, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        if c.is_ascii_alphabetic()
            || ('\u{C0}'..='\u{24F}').contains(&c)
            || ('\u{1E00}'..='\u{1EFF}').contains(&c)
        {
            latin += 1;
        } else {
            other += 1;
        }
    }
    if latin == 0 || other > latin {
        return false;
    }
    let (mut words, mut en, mut fr, mut es, mut de) = (0, 0, 0, 0, 0);
    let mut lower = String::new();
    for word in text.split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '’')) {
        let word = word.trim_matches(['\'', '’']);
        if word.is_empty() {
            continue;
        }
        lower.clear();
        lower.extend(word.chars().flat_map(char::to_lowercase).map(|c| {
            if c == '’' {
                '\''
            } else {
                c
            }
        }));
        words += 1;
        let listed = |keys: &[u128]| lexicon::find(keys, &lower).is_some();
        en += usize::from(listed(&EN_KEYS) || misspelling(&lower).is_some());
        fr += usize::from(listed(&FR_KEYS));
        es += usize::from(listed(&ES_KEYS));
        de += usize::from(listed(&DE_KEYS));
    }
    en > 0 && en * 100 >= words * 15 && en > fr && en > es && en > de
}
