//! A country as a site gives it (an ISO 3166-1 alpha-2 or alpha-3 code, or
//! its English name), made ISO 3166-1 alpha-2. The table is the `celes`
//! crate's.

use std::str::FromStr;

use celes::Country;

/// Codes sites use that ISO 3166-1 does not have, and the country they mean:
/// the United Kingdom as `UK`, and its home nations as sports bodies and
/// booking sites code them; Kosovo's code in common use.
const OUTSIDE_ISO: &[(&str, &str)] = &[
    ("UK", "GB"),
    ("ENG", "GB"),
    ("SCO", "GB"),
    ("WAL", "GB"),
    ("NIR", "GB"),
    ("XK", "XK"),
    ("XKX", "XK"),
];

/// The alpha-2 code of `given`: a code (either case) or an English name.
pub fn alpha2(given: &str) -> Option<String> {
    let given = given.trim();
    let code = given.len() <= 3 && given.bytes().all(|b| b.is_ascii_alphabetic());
    if code {
        let upper = given.to_ascii_uppercase();
        if let Some((_, iso)) = OUTSIDE_ISO.iter().find(|(c, _)| *c == upper) {
            return Some((*iso).to_owned());
        }
        return Country::from_alpha2(&upper)
            .or_else(|_| Country::from_alpha3(&upper))
            .ok()
            .map(|c| c.alpha2.to_owned());
    }
    named(given)
}

/// The alpha-2 code of the country `text` names in English ("Germany",
/// "United States"), or none. Codes are not names here: "MD" may be a
/// doctor's title.
pub fn named(text: &str) -> Option<String> {
    let squeezed: String = text
        .trim()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    if squeezed.len() <= 3 {
        return None;
    }
    Country::from_str(&squeezed)
        .ok()
        .map(|c| c.alpha2.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_become_alpha2() {
        for (given, want) in [
            ("US", "US"),
            ("de", "DE"),
            ("DEU", "DE"),
            ("fra", "FR"),
            ("Germany", "DE"),
            ("United Kingdom", "GB"),
            ("  Brazil ", "BR"),
            ("ENG", "GB"),
            ("uk", "GB"),
        ] {
            assert_eq!(alpha2(given).as_deref(), Some(want), "{given}");
        }
        for given in ["XX", "Atlantis", "", "Berlin, DE"] {
            assert_eq!(alpha2(given), None, "{given}");
        }
    }

    #[test]
    fn titles_that_are_roles_or_places_are_no_country() {
        for title in ["MD", "CEO", "Austin, TX", "Head of Sales, 51-200 employees"] {
            assert_eq!(named(title), None, "{title}");
        }
        assert_eq!(named("Germany").as_deref(), Some("DE"));
    }
}
