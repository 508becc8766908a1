//! A source plugin that builds its review records by hand, without the SDK's
//! checks, and breaks the review contract in the way the query names:
//! `good`, `rating-99`, `date-yesterday`, `relative-url`, `extra-array`,
//! `blank-id`. The host must refuse every broken one.

use gleaner_sdk::types::{Review, Text};
use gleaner_sdk::{FetchError, Order, Page, PageRequest, PluginInfo, SourceMeta};

gleaner_sdk::plugin_bindings!("source");

struct Rogue;

impl exports::gleaner::plugin::source_plugin::Guest for Rogue {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
        let mut review = Review {
            id: "rogue-1".into(),
            title: None,
            text: Some(Text::Plain("A review.".into())),
            rating: Some(4.0),
            rating_scale_max: Some(5.0),
            date: Some("2024-05-01".into()),
            author_name: Some("  Padded Name  ".into()),
            author_profile_image_url: None,
            author_url: None,
            author_title: None,
            review_url: Some("https://example.com/r/1".into()),
            media: vec![],
            reply: None,
            helpful_votes: None,
            language: None,
            updated_date: None,
            author_country: None,
            verified: None,
            recommends: None,
            anonymous: false,
            sub_ratings: vec![],
            translation: None,
            extra_json: String::new(),
        };
        match req.query.as_str() {
            "good" => {}
            "rating-99" => review.rating = Some(99.0),
            "date-yesterday" => review.date = Some("yesterday".into()),
            "relative-url" => review.review_url = Some("/r/1".into()),
            "extra-array" => review.extra_json = "[1, 2]".into(),
            "blank-id" => review.id = "   ".into(),
            "country-atlantis" => review.author_country = Some("Atlantis".into()),
            "title-country" => review.author_title = Some("Germany".into()),
            "promoted-extra" => review.extra_json = r#"{"verified_purchase": true}"#.into(),
            other => return Err(FetchError::BadQuery(format!("unknown case {other:?}"))),
        }
        Ok(Page {
            ahead: Vec::new(),
            reviews: vec![review],
            next_cursor: None,
            order: Order::Unordered,
            meta: SourceMeta {
                resolved_url: None,
                name: None,
                average_rating: None,
                total_reviews: None,
                extra_json: String::new(),
            },
        })
    }
}

export!(Rogue);
