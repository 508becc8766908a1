//! The English word list and spelling candidates ranked by frequency.
//!
//! The list is the 50,000 most frequent words of SymSpell's English frequency
//! dictionary (MIT licence; `data/README.md` says where it comes from and how
//! `data/words.txt` is built). Each word carries a frequency band,
//! `floor(4 * log2(count))`, so a band 4 higher means twice as frequent.
//! The list leans British, so the words of SCOWL's American English list it
//! lacks (`data/extra.txt`) are known too, though never proposed.
//!
//! [`correction`] proposes, for a lower-case word that is not known, the most
//! frequent listed word with the same first letter one edit away (deletion,
//! insertion, substitution or transposition of letters), or two edits away for
//! words of eight letters or more, provided it is clearly more frequent than
//! any other candidate at that distance (a likely slip, such as a doubled
//! letter written once, counts in its favour).

use crate::coded::Coded;

include!(concat!(env!("OUT_DIR"), "/restarts.rs"));

const WORDS: &str = include_str!("../data/words.txt");
/// Words known but never proposed: SCOWL's American English words the list
/// lacks (`data/build_extra.py`).
const EXTRA_LIST: &str = include_str!("../data/extra.txt");

/// Bands a candidate must lead the runner-up by (4 = twice as frequent).
const MARGIN: i32 = 4;
/// Shortest word corrected at all, and at distance two.
const MIN_LEN: usize = 4;
const MIN_LEN_TWO_EDITS: usize = 8;
/// Longest word corrected.
const MAX_LEN: usize = 24;

/// Recent or informal words the list lacks, accepted as spelled.
#[rustfmt::skip]
const EXTRA: &[&str] = &[
    "covid", "unboxing", "wifi", "vlog", "vlogs", "blog", "blogs", "emoji", "emojis", "selfie",
    "selfies", "okay", "gonna", "wanna", "gotta", "kinda", "sorta", "lol", "omg", "tbh", "btw",
    "imo", "imho", "yay", "yikes", "meh", "nope", "yep", "yup", "hmm", "wow", "haha", "hehe",
    "airbnb", "uber", "ebay", "paypal", "iphone", "ipad", "android", "netflix", "whatsapp",
    "instagram", "tiktok", "spotify", "youtube", "config", "repo", "repos", "async", "params",
    "tooltip", "backend", "frontend", "checkin", "checkout", "keto", "vegan", "onesie",
    "staycation", "glamping", "airfryer", "smartwatch", "powerbank", "webhook", "plugin",
    "plugins", "dropdown", "localhost", "middleware", "login", "logout", "signup", "username",
    "workflow", "workflows", "timestamp", "screenshot", "screenshots", "podcast", "podcasts",
    // American spellings the list lacks that no regular ending covers.
    "gray", "defense", "offense", "license", "licensed", "pretense", "fulfill", "fulfills",
    "judgment", "judgments", "acknowledgment", "enroll", "enrollment", "skillful", "willful",
    "aging", "mustache", "pajamas", "cozy", "donut", "donuts", "plow", "mom", "moms",
];

/// The word list, indexed at compile time.
static LIST: Coded = Coded::indexed(WORDS, true, &WORDS_RESTARTS);
/// SCOWL's words the list lacks, indexed at compile time.
static EXTRA_WORDS: Coded = Coded::indexed(EXTRA_LIST, false, &EXTRA_RESTARTS);

fn list() -> &'static Coded {
    &LIST
}

fn extra_list() -> &'static Coded {
    &EXTRA_WORDS
}

/// The frequency band of a lower-case word, or `None` when it is not listed.
pub fn band(word: &str) -> Option<u8> {
    list().get(word)
}

/// Whether a lower-case word is English as far as the lists can tell: listed,
/// in SCOWL's American English list, one of a few recent words, the other
/// region's spelling of a listed word, or a listed word with a common prefix
/// or suffix (`rebook`, `dashboards`).
pub fn is_known(word: &str) -> bool {
    if band(word).is_some()
        || EXTRA.contains(&word)
        || extra_list().get(word).is_some()
        || regional_variant(word)
    {
        return true;
    }
    // Not -ed/-ing/-er: the list has the common ones, and "shiping" must
    // not pass as ship + ing.
    const SUFFIXES: &[&str] = &["s", "es", "ly", "ness", "ment", "ments"];
    const PREFIXES: &[&str] = &[
        "un", "re", "pre", "non", "over", "under", "self", "mis", "co",
    ];
    let listed = |stem: &str| stem.len() >= 4 && band(stem).is_some();
    SUFFIXES.iter().any(|s| {
        word.strip_suffix(s)
            .is_some_and(|stem| listed(stem) || listed(&format!("{stem}e")))
    }) || PREFIXES
        .iter()
        .any(|p| word.strip_prefix(p).is_some_and(is_known_simple))
}

fn is_known_simple(word: &str) -> bool {
    word.len() >= 3
        && (band(word).is_some() || word.strip_suffix('s').is_some_and(|w| band(w).is_some()))
}

/// Word endings that differ between American and British spelling.
#[rustfmt::skip]
const REGIONAL_ENDINGS: &[(&str, &str)] = &[
    ("or", "our"), ("ors", "ours"), ("ored", "oured"), ("oring", "ouring"), ("orite", "ourite"),
    ("orites", "ourites"), ("orful", "ourful"), ("orable", "ourable"), ("orhood", "ourhood"),
    ("orhoods", "ourhoods"), ("er", "re"), ("ers", "res"), ("eled", "elled"),
    ("eling", "elling"), ("eler", "eller"), ("elers", "ellers"), ("aled", "alled"),
    ("aling", "alling"), ("ize", "ise"), ("izes", "ises"), ("ized", "ised"), ("izing", "ising"),
    ("ization", "isation"), ("izations", "isations"), ("yze", "yse"), ("yzed", "ysed"),
    ("yzing", "ysing"), ("og", "ogue"), ("ogs", "ogues"), ("elry", "ellery"),
];

/// Whether the word is the other region's spelling of a listed word
/// (`favorite`, `traveling`, `analyze`, `theater`, `catalog`).
fn regional_variant(word: &str) -> bool {
    REGIONAL_ENDINGS.iter().any(|&(a, b)| {
        [(a, b), (b, a)].into_iter().any(|(from, to)| {
            word.strip_suffix(from)
                .is_some_and(|stem| stem.len() >= 2 && band(&format!("{stem}{to}")).is_some())
        })
    })
}

/// Optimal string alignment distance between `a` and `b` (insertions,
/// deletions, substitutions and swaps of neighbours), or `None` above `max`.
fn distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        d[i * width] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
    }
    Some(d[a.len() * width + b.len()]).filter(|&v| v <= max)
}

/// Bands added to a candidate reached by a common slip: a doubled letter
/// written once or a single one written twice (`shiping`, `untill`), or two
/// neighbouring letters swapped (`recieve`).
const SLIP_BONUS: i32 = 6;

fn likely_slip(word: &str, candidate: &str) -> i32 {
    let (w, c) = (word.as_bytes(), candidate.as_bytes());
    let (long, short) = if w.len() > c.len() { (w, c) } else { (c, w) };
    let doubling = long.len() == short.len() + 1
        && (1..long.len()).any(|i| {
            long[i] == long[i - 1] && long[..i] == short[..i] && long[i + 1..] == short[i..]
        });
    let swap = w.len() == c.len()
        && (1..w.len()).any(|i| {
            w[i] != w[i - 1]
                && w[i] == c[i - 1]
                && w[i - 1] == c[i]
                && w[..i - 1] == c[..i - 1]
                && w[i + 1..] == c[i + 1..]
        });
    if doubling || swap {
        SLIP_BONUS
    } else {
        0
    }
}

/// Ranks `candidates` (listed words sharing the word's first letter: names
/// and new words such as `glamping` often look one letter away from a word,
/// misspellings seldom change the first letter); the winner if clear.
fn pick(word: &str, candidates: &[(String, u8)]) -> Option<String> {
    let mut scored: Vec<(i32, &str)> = candidates
        .iter()
        .map(|(c, b)| (i32::from(*b) + likely_slip(word, c), c.as_str()))
        .collect();
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    match scored.as_slice() {
        [(_, w)] => Some((*w).to_owned()),
        [(best, w), (second, _), ..] if best - second >= MARGIN => Some((*w).to_owned()),
        _ => None,
    }
}

/// The listed word `word` (lower-case ASCII letters, not itself known) most
/// probably misspells, or `None` when no candidate is clearly best.
pub fn correction(word: &str) -> Option<String> {
    let stretched = word
        .as_bytes()
        .windows(3)
        .any(|w| w[0] == w[1] && w[1] == w[2]);
    if word.len() < MIN_LEN
        || word.len() > MAX_LEN
        || !word.bytes().all(|b| b.is_ascii_lowercase())
        || stretched
        || is_known(word)
    {
        return None;
    }
    let max = if word.len() >= MIN_LEN_TWO_EDITS {
        2
    } else {
        1
    };
    let first = word.as_bytes()[0];
    let mut best: Vec<(String, u8)> = Vec::new();
    let mut best_d = max + 1;
    list().each_starting_with(first, |cand, band| {
        match distance(word.as_bytes(), cand.as_bytes(), max.min(best_d)) {
            Some(d) if d < best_d => {
                best_d = d;
                best = vec![(cand.to_owned(), band)];
            }
            Some(d) if d == best_d => best.push((cand.to_owned(), band)),
            _ => {}
        }
    });
    pick(word, &best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_decoded() {
        let mut n = 0;
        for first in b'a'..=b'z' {
            list().each_starting_with(first, |_, _| n += 1);
        }
        assert_eq!(n, 50_000);
        for w in [
            "the",
            "because",
            "receive",
            "restaurant",
            "dashboards",
            "zucchini",
        ] {
            assert!(band(w).is_some(), "{w}");
        }
        assert!(band("the") > band("because"));
        assert!(band("recieve").is_none());
    }

    #[test]
    fn misspellings_get_frequent_neighbours() {
        for (wrong, right) in [
            ("becouse", "because"),
            ("tecnologies", "technologies"),
            ("diffrent", "different"),
            ("beautful", "beautiful"),
            ("excelent", "excellent"),
            ("recieve", "receive"),
            ("shiping", "shipping"),
            ("resturant", "restaurant"),
        ] {
            assert_eq!(correction(wrong).as_deref(), Some(right), "{wrong}");
        }
    }

    #[test]
    fn known_and_unclear_words_are_left_alone() {
        for w in [
            "dashboards",
            "rebooked",
            "unboxing",
            "wifi",
            "stopped",
            "the",
            "tbh",
            "sooo",
            "Teh",
            "zxqv",
            "abc",
        ] {
            assert_eq!(correction(w), None, "{w}");
        }
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    #[test]
    fn regional_spellings_and_new_words_are_known() {
        for w in [
            "traveling",
            "travelling",
            "neighbors",
            "neighbours",
            "favorite",
            "favourite",
            "theater",
            "theatre",
            "catalog",
            "analyze",
            "analyse",
            "defense",
            "jewelry",
            "canceled",
            "modeled",
            "config",
            "tiktok",
            "glamping",
            "staycation",
        ] {
            assert_eq!(correction(w), None, "{w}");
        }
    }

    #[test]
    fn first_letters_are_never_changed() {
        assert_eq!(correction("glampin"), None);
        assert_eq!(correction("ysync"), None);
    }
}
