//! Whether a transcript is written in a language other than English.
//!
//! A transcript is *foreign* when most of its letters are outside the Latin
//! script, or when frequent function words of Spanish, Portuguese, French,
//! German, Italian or Dutch make up at least 12 % of its words and outnumber
//! the English ones. Words shared with English ("a", "me", "die") are not
//! counted.

/// Frequent function words and verbs of other Latin-script languages.
const FOREIGN: &str = "el los las que y en un una es por con para soy somos muy pero como \
    desde hace nosotros empresa trabajo llamo usamos tambien también más mas gracias hola \
    eu sou na no com uma gente muito nós nos não nao começou obrigado obrigada oi \
    je suis et les des est pour avec nous dans chez depuis vraiment c'est m'appelle utilise \
    une sur pas mais très tres bonjour merci aussi notre nos \
    ich bin und der das wir mit von zu ist nicht sehr seit auf für fur eine ein einer dem den \
    unsere unser arbeite arbeiten wurde haben hallo danke auch \
    sono il di che per della abbiamo adesso molto ciao anche nostro nostra lavoro \
    ik ben het een wij niet heel hebben onze";
/// Frequent English function words.
const ENGLISH: &str = "the and to of a i it we is was that in my our for you this with on so \
    have be are but they just at i'm we're it's";

fn has(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split(' ').any(|w| w == word)
}

/// Whether `text` is not English (see the module doc).
pub fn foreign(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic());
    let (mut latin, mut other) = (0usize, 0usize);
    for c in letters {
        if c.is_ascii_alphabetic() || ('\u{C0}'..='\u{24F}').contains(&c) {
            latin += 1;
        } else {
            other += 1;
        }
    }
    if other > latin {
        return true;
    }
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    let foreign = words.iter().filter(|w| has(FOREIGN, w)).count();
    let english = words.iter().filter(|w| has(ENGLISH, w)).count();
    foreign * 100 >= words.len() * 12 && foreign > english && foreign >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_languages_are_foreign() {
        for t in [
            "hola me llamo pedro y soy dueño de una panadería en sevilla",
            "ich bin Klara und ich arbeite seit zwei Jahren mit dem Tool",
            "je suis infirmière et nous utilisons l'appli depuis un an",
            "sono Giulia e lavoro in una farmacia, abbiamo iniziato a usarlo",
            "eu sou a Joana, trabalho com uma equipe muito pequena",
            "Здравствуйте, меня зовут Иван, я работаю в компании",
            "我叫李华，我在一家公司工作",
        ] {
            assert!(foreign(t), "{t}");
        }
    }

    #[test]
    fn english_is_not_foreign() {
        for t in [
            "so i'm bluefin's ceo",
            "hi i'm jose garcia and i run a taqueria in el paso",
            "Our team in Montréal loves it, and the support is great.",
            "",
            "ok",
        ] {
            assert!(!foreign(t), "{t}");
        }
    }
}
