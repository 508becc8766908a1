//! The review contract: what the host checks of every review a plugin returns
//! before it becomes an API record. The host trusts no guest, so these checks run
//! here, whatever SDK (if any) the plugin was built with; a review that breaks
//! them fails the request as a plugin fault and never reaches the user.

use crate::bindings::types as wit;

/// A review that breaks the contract, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("review {id:?}: {problem}")]
pub struct ContractError {
    /// The review's id (as sent).
    pub id: String,
    /// What is wrong.
    pub problem: String,
}

/// Checks one review against the contract the SDK checks too
/// ([`gleaner_contract::review`]).
pub fn check_review(r: &wit::Review) -> Result<(), ContractError> {
    let fields = gleaner_contract::review_fields!(r);
    gleaner_contract::review::check(&fields).map_err(|problem| ContractError {
        id: r.id.chars().take(80).collect(),
        problem,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A review that keeps every rule, for tests to break one at a time.
    pub(crate) fn review() -> wit::Review {
        wit::Review {
            id: "r1".into(),
            title: None,
            text: None,
            rating: Some(4.0),
            rating_scale_max: Some(5.0),
            date: Some("2023-12-07T11:23:40.000Z".into()),
            author_name: None,
            author_profile_image_url: None,
            author_url: Some("https://example.com/u/1".into()),
            author_title: None,
            review_url: None,
            media: vec![],
            reply: None,
            helpful_votes: Some(2),
            language: None,
            updated_date: None,
            author_country: None,
            verified: None,
            recommends: None,
            anonymous: false,
            sub_ratings: vec![],
            translation: None,
            extra_json: "{\"a\":1}".into(),
        }
    }

    /// The rules themselves are tested in `gleaner_contract`; here, that
    /// every field of the host's review reaches them.
    #[test]
    fn every_field_reaches_the_contract() {
        check_review(&review()).unwrap();
        type Breaker = Box<dyn Fn(&mut wit::Review)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("id", Box::new(|r| r.id = "  ".into())),
            ("outside", Box::new(|r| r.rating = Some(99.0))),
            ("ISO 8601", Box::new(|r| r.date = Some("yesterday".into()))),
            (
                "author_profile_image_url",
                Box::new(|r| r.author_profile_image_url = Some("/a.png".into())),
            ),
            (
                "author_url",
                Box::new(|r| r.author_url = Some("/u/1".into())),
            ),
            (
                "review_url",
                Box::new(|r| r.review_url = Some("ftp://x".into())),
            ),
            ("negative", Box::new(|r| r.helpful_votes = Some(-3))),
            ("extra-json", Box::new(|r| r.extra_json = "[1]".into())),
            (
                "media type",
                Box::new(|r| {
                    r.media.push(wit::Media {
                        id: None,
                        media_type: "gif".into(),
                        url: "https://x.com/a.gif".into(),
                        width: None,
                        height: None,
                    })
                }),
            ),
            (
                "reply",
                Box::new(|r| {
                    r.reply = Some(wit::Reply {
                        text: wit::Text::Plain("thanks".into()),
                        date: Some("soon".into()),
                        author: None,
                    })
                }),
            ),
        ];
        for (needle, break_it) in cases {
            let mut r = review();
            break_it(&mut r);
            let err = check_review(&r).unwrap_err().to_string();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }
}
