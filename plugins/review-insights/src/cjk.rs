//! Sentiment from a lexicon in languages written without spaces between
//! words: Chinese (HowNet's word lists) and Japanese (Tohoku University's
//! polarity dictionaries), as `scripts/insights/cjk-lexicons.py` writes
//! them.
//!
//! With no word boundaries to split at, a clause is read left to right,
//! taking at each place the longest entry that starts there: a polar word,
//! a negation, a booster or a contrast word; characters no entry starts
//! with are passed over. The weights are [`lexicon`]'s (VADER's): a booster
//! just before a word adds VADER's increment, a negation scales it by
//! VADER's -0.74, words after the text's last contrast word weigh 1.5 and
//! before it 0.5, and the sum is normalised as VADER does. A Chinese
//! negation comes before its word ("不满意"), a Japanese one after it
//! ("良くない"). Japanese adjectives and verbs are listed in their
//! dictionary form; their stems for the usual endings are added (`良い`
//! gives `良く` and `良かっ`, `あきらめる` gives `あきらめ`).
//!
//! [`lexicon`]: crate::lexicon

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::lexicon::{normalise, rows, Fixed, ALPHA, BOOST, NEGATED, SCALE};

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Entry {
    Polar(f64),
    Negation,
    Booster,
    Contrast,
}

/// Where a language's negations stand.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Negates {
    /// Before the word, ending at most this many characters before it.
    Before(usize),
    /// After the word, starting at most this many characters after it.
    After(usize),
}

/// One language's entries.
pub struct Lexicon {
    entries: HashMap<String, Entry, Fixed>,
    longest: usize,
    negates: Negates,
}

struct Source {
    tag: &'static str,
    table: &'static str,
    negations: &'static [&'static str],
    boosters: &'static [&'static str],
    contrasts: &'static [&'static str],
    negates: Negates,
    /// Whether dictionary forms get their stems (Japanese).
    stems: bool,
}

const SOURCES: [Source; 2] = [
    Source {
        tag: "zh",
        table: include_str!("../lexicons/zh.tsv"),
        negations: &[
            "不",
            "没",
            "没有",
            "无",
            "非",
            "别",
            "未",
            "不是",
            "不太",
            "不怎么",
            "不够",
            "并不",
            "毫不",
            "从不",
            "从没",
        ],
        boosters: &[
            "很", "非常", "太", "十分", "特别", "极其", "极", "超", "超级", "最", "真", "挺",
            "相当", "格外", "尤其", "真的",
        ],
        contrasts: &["但是", "但", "可是", "不过", "然而", "却"],
        negates: Negates::Before(3),
        stems: false,
    },
    Source {
        tag: "ja",
        table: include_str!("../lexicons/ja.tsv"),
        negations: &["ない", "なかっ", "なく", "ません", "ず", "ぬ"],
        boosters: &[
            "とても",
            "すごく",
            "凄く",
            "非常に",
            "本当に",
            "かなり",
            "超",
            "最も",
            "大変",
            "めっちゃ",
        ],
        contrasts: &["しかし", "でも", "けど", "けれど", "ただ", "ところが"],
        negates: Negates::After(4),
        stems: true,
    },
];

static LEXICONS: OnceLock<Vec<(&'static str, Lexicon)>> = OnceLock::new();

fn lexicons() -> &'static [(&'static str, Lexicon)] {
    LEXICONS.get_or_init(|| SOURCES.iter().map(|s| (s.tag, build(s))).collect())
}

fn build(source: &Source) -> Lexicon {
    let mut entries: HashMap<String, Entry, Fixed> = HashMap::default();
    for (word, value) in rows(source.table) {
        if source.stems {
            for stem in stems(word) {
                entries.entry(stem).or_insert(Entry::Polar(value));
            }
        }
        entries.insert(word.to_owned(), Entry::Polar(value));
    }
    for (words, entry) in [
        (source.negations, Entry::Negation),
        (source.boosters, Entry::Booster),
        (source.contrasts, Entry::Contrast),
    ] {
        for word in words {
            entries.entry((*word).to_owned()).or_insert(entry);
        }
    }
    let longest = entries.keys().map(|k| k.chars().count()).max().unwrap_or(1);
    Lexicon {
        entries,
        longest,
        negates: source.negates,
    }
}

/// The stems a Japanese dictionary form takes before the usual endings: an
/// adjective's `く` and `かっ` forms, a verb's stem without `る`. A stem of
/// one character is too often part of another word, and is left out.
fn stems(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let Some((&last, stem)) = chars.split_last() else {
        return Vec::new();
    };
    if stem.len() < 2 && !(last == 'い' && stem.len() == 1 && !is_kana(stem[0])) {
        return Vec::new();
    }
    let stem: String = stem.iter().collect();
    match last {
        'い' => vec![format!("{stem}く"), format!("{stem}かっ")],
        'る' if chars.len() >= 3 => vec![stem],
        _ => Vec::new(),
    }
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}')
}

/// Parses both lexicons, so that no call pays for it.
pub fn prepare() {
    lexicons();
}

/// Whether a lexicon of this kind ships for `tag`.
pub fn supports(tag: &str) -> bool {
    SOURCES.iter().any(|s| s.tag == tag)
}

/// A matched entry: where it starts and ends (in characters) and its clause.
struct Found {
    start: usize,
    end: usize,
    clause: usize,
    entry: Entry,
}

/// The normalised sentiment of `text` in `tag`'s lexicon, from -1 to 1; none
/// for a language without one.
pub fn compound(tag: &str, text: &str) -> Option<f64> {
    let (_, lexicon) = lexicons().iter().find(|(t, _)| *t == tag)?;
    let found = scan(lexicon, text);
    let contrast = found
        .iter()
        .rposition(|f| f.entry == Entry::Contrast)
        .map(|i| found[i].start);
    let mut sum = 0.0;
    for (i, word) in found.iter().enumerate() {
        let Entry::Polar(polarity) = word.entry else {
            continue;
        };
        let mut valence = polarity * SCALE;
        let before = i.checked_sub(1).map(|j| &found[j]);
        if let Some(previous) = before {
            if previous.entry == Entry::Booster
                && previous.clause == word.clause
                && previous.end + 1 >= word.start
            {
                valence += BOOST * valence.signum();
            }
        }
        let negated = match lexicon.negates {
            Negates::Before(reach) => found[..i].iter().rev().any(|f| {
                f.entry == Entry::Negation && f.clause == word.clause && f.end + reach >= word.start
            }),
            Negates::After(reach) => found[i + 1..].iter().any(|f| {
                f.entry == Entry::Negation && f.clause == word.clause && word.end + reach >= f.start
            }),
        };
        if negated {
            valence *= NEGATED;
        }
        match contrast {
            Some(at) if word.start < at => valence *= 0.5,
            Some(at) if word.start > at => valence *= 1.5,
            _ => {}
        }
        sum += valence;
    }
    Some(normalise(sum, ALPHA))
}

/// The entries of `text`, longest first at each place, with their clauses.
fn scan(lexicon: &Lexicon, text: &str) -> Vec<Found> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let (mut at, mut clause) = (0, 0);
    let mut key = String::new();
    while at < chars.len() {
        if ends_clause(chars[at]) {
            clause += 1;
            at += 1;
            continue;
        }
        let longest = lexicon.longest.min(chars.len() - at);
        let hit = (1..=longest).rev().find_map(|len| {
            let span = &chars[at..at + len];
            if span.iter().copied().any(ends_clause) {
                return None;
            }
            key.clear();
            key.extend(span);
            lexicon.entries.get(key.as_str()).map(|&entry| (len, entry))
        });
        match hit {
            Some((len, entry)) => {
                found.push(Found {
                    start: at,
                    end: at + len,
                    clause,
                    entry,
                });
                at += len;
            }
            None => at += 1,
        }
    }
    found
}

fn ends_clause(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '。' | '，'
                | '、'
                | '！'
                | '？'
                | '；'
                | '：'
                | '…'
                | '.'
                | ','
                | '!'
                | '?'
                | ';'
                | ':'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(tag: &str, text: &str) -> f64 {
        compound(tag, text).unwrap()
    }

    #[test]
    fn chinese_praise_and_complaint() {
        assert!(score("zh", "酒店很干净，服务也很满意。") > 0.3);
        assert!(score("zh", "质量太差了，非常失望。") < -0.3);
    }

    #[test]
    fn a_chinese_negation_comes_before_its_word() {
        assert!(score("zh", "不满意") < 0.0);
        assert!(score("zh", "满意") > 0.0);
        // A clause boundary stops it.
        assert!(score("zh", "不，很满意") > 0.0);
    }

    #[test]
    fn after_a_contrast_words_weigh_more() {
        assert!(score("zh", "房间很漂亮，但是服务太差，很失望") < 0.0);
    }

    #[test]
    fn japanese_forms_and_negation_after_the_word() {
        assert!(score("ja", "料理がとても美味しかったです。") > 0.3);
        assert!(score("ja", "部屋が汚くて最悪でした。") < -0.3);
        assert!(score("ja", "良くないです") < 0.0);
        assert!(score("ja", "良いです") > 0.0);
    }

    #[test]
    fn stems_of_dictionary_forms() {
        assert_eq!(stems("美味しい"), ["美味しく", "美味しかっ"]);
        assert_eq!(stems("良い"), ["良く", "良かっ"]);
        assert_eq!(stems("あきらめる"), ["あきらめ"]);
        assert!(stems("いい").is_empty());
        assert!(stems("最高").is_empty());
    }

    #[test]
    fn other_languages_have_none() {
        assert!(supports("zh") && supports("ja") && !supports("ko"));
        assert_eq!(compound("ko", "좋아요"), None);
    }
}
