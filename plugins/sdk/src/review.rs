//! The review builder: plugins describe a review field by field, and `build`
//! checks it before it reaches the host.

use crate::types::{Media, Reply, Review, SubRating, Text, Translation};
use crate::Order;

/// Builds a [`Review`], validating ids, ratings, dates and URLs.
#[derive(Debug, Clone)]
pub struct ReviewBuilder {
    review: Review,
}

impl ReviewBuilder {
    /// Starts a review with its source id.
    pub fn new(id: impl Into<String>) -> ReviewBuilder {
        ReviewBuilder {
            review: Review {
                id: id.into(),
                title: None,
                text: None,
                rating: None,
                rating_scale_max: None,
                date: None,
                author_name: None,
                author_profile_image_url: None,
                author_url: None,
                author_title: None,
                review_url: None,
                media: Vec::new(),
                reply: None,
                helpful_votes: None,
                language: None,
                updated_date: None,
                author_country: None,
                verified: None,
                recommends: None,
                anonymous: false,
                sub_ratings: Vec::new(),
                translation: None,
                extra_json: String::new(),
            },
        }
    }

    /// Title.
    pub fn title(mut self, v: Option<String>) -> Self {
        self.review.title = non_empty(v);
        self
    }
    /// Plain text with meaningful line breaks.
    pub fn text_plain(mut self, v: Option<String>) -> Self {
        self.review.text = non_empty(v).map(Text::Plain);
        self
    }
    /// HTML text.
    pub fn text_html(mut self, v: Option<String>) -> Self {
        self.review.text = non_empty(v).map(Text::Html);
        self
    }
    /// Rating on a scale topping at `max`.
    pub fn rating(mut self, v: Option<f64>, max: f64) -> Self {
        self.review.rating = v;
        self.review.rating_scale_max = v.map(|_| max);
        self
    }
    /// ISO 8601, exactly as precise as the site is: `YYYY`, `YYYY-MM`,
    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` (minutes) or with seconds, with the
    /// site's offset where it gives one (none is UTC). The host makes it an
    /// RFC 3339 UTC date-time and reports the precision.
    pub fn date(mut self, v: Option<String>) -> Self {
        self.review.date = non_empty(v);
        self
    }
    /// Author display name.
    pub fn author_name(mut self, v: Option<String>) -> Self {
        self.review.author_name = non_empty(v);
        self
    }
    /// Author avatar URL.
    pub fn author_image(mut self, v: Option<String>) -> Self {
        self.review.author_profile_image_url = non_empty(v);
        self
    }
    /// Author profile URL.
    pub fn author_url(mut self, v: Option<String>) -> Self {
        self.review.author_url = non_empty(v);
        self
    }
    /// Role, company or place; never a bare country (see
    /// [`ReviewBuilder::author_country`]).
    ///
    /// A title that is only a country's English name ("Canada") is no
    /// title: it becomes the author's country, unless one was given (the
    /// record's rule, which the host checks).
    pub fn author_title(mut self, v: Option<String>) -> Self {
        let v = non_empty(v);
        match v.as_deref().and_then(gleaner_contract::country::named) {
            Some(code) => {
                self.review.author_title = None;
                self.review.author_country.get_or_insert(code);
            }
            None => self.review.author_title = v,
        }
        self
    }
    /// Permalink.
    pub fn review_url(mut self, v: Option<String>) -> Self {
        self.review.review_url = non_empty(v);
        self
    }
    /// Adds a media item.
    pub fn media(mut self, m: Media) -> Self {
        self.review.media.push(m);
        self
    }
    /// Owner reply.
    pub fn reply(
        mut self,
        text: Option<String>,
        date: Option<String>,
        author: Option<String>,
    ) -> Self {
        self.review.reply = non_empty(text).map(|t| Reply {
            text: Text::Plain(t),
            date: non_empty(date),
            author: non_empty(author),
        });
        self
    }
    /// Owner reply given as an HTML fragment (the host formats it like review text).
    pub fn reply_html(
        mut self,
        html: Option<String>,
        date: Option<String>,
        author: Option<String>,
    ) -> Self {
        self.review.reply = non_empty(html).map(|t| Reply {
            text: Text::Html(t),
            date: non_empty(date),
            author: non_empty(author),
        });
        self
    }
    /// Helpful votes.
    pub fn helpful_votes(mut self, v: Option<i64>) -> Self {
        self.review.helpful_votes = v;
        self
    }
    /// The language the site labels the review with (BCP 47); left unset,
    /// the host detects it from the text.
    pub fn language(mut self, v: Option<String>) -> Self {
        self.review.language = non_empty(v);
        self
    }
    /// When the site says the review was edited (ISO 8601, as precise as
    /// the site is, like [`ReviewBuilder::date`]).
    pub fn updated_date(mut self, v: Option<String>) -> Self {
        self.review.updated_date = non_empty(v);
        self
    }
    /// The author's country as the site gives it: an ISO 3166-1 alpha-2 or
    /// alpha-3 code, or the country's name; the host makes it alpha-2.
    /// `None` keeps a country an earlier call set.
    pub fn author_country(mut self, v: Option<String>) -> Self {
        if let Some(v) = non_empty(v) {
            self.review.author_country = Some(v);
        }
        self
    }
    /// The site's own verification of the author (a verified buyer, a
    /// booking, an invitation); `None` where the site says nothing.
    pub fn verified(mut self, v: Option<bool>) -> Self {
        self.review.verified = v;
        self
    }
    /// Whether the author recommends what was reviewed.
    pub fn recommends(mut self, v: Option<bool>) -> Self {
        self.review.recommends = v;
        self
    }
    /// The site hides the author's name.
    pub fn anonymous(mut self, v: bool) -> Self {
        self.review.anonymous = v;
        self
    }
    /// Adds the rating of one aspect (cleanliness, staff) on its own scale.
    pub fn sub_rating(mut self, name: impl Into<String>, rating: f64, scale_max: f64) -> Self {
        self.review.sub_ratings.push(SubRating {
            name: name.into(),
            rating,
            scale_max,
        });
        self
    }
    /// The site shows the review translated: by machine or not, with the
    /// original text and its language where the site gives them.
    pub fn translation(
        mut self,
        is_machine_translated: bool,
        original_text: Option<String>,
        original_language: Option<String>,
    ) -> Self {
        self.review.translation = Some(Translation {
            is_machine_translated,
            original_text: non_empty(original_text),
            original_language: non_empty(original_language),
        });
        self
    }
    /// Source-specific fields (a JSON object).
    pub fn extra(mut self, v: serde_json::Value) -> Self {
        self.review.extra_json = if v.is_object() {
            v.to_string()
        } else {
            String::new()
        };
        self
    }

    /// Checks the review against the contract the host checks every review
    /// against (`gleaner_contract::review`), so a review built here is one
    /// the host accepts.
    pub fn build(self) -> Result<Review, String> {
        let r = &self.review;
        let fields = gleaner_contract::review_fields!(r);
        gleaner_contract::review::check(&fields)
            .map_err(|problem| format!("review {}: {problem}", r.id))?;
        Ok(self.review)
    }
}

/// The order of a page as its dates show it: `Order::NewestFirst` when every
/// review is dated and the dates never rise,
/// counting from `previous` (the last date of the page before) on; otherwise
/// `Order::Unordered`. For listings whose newest-first order is trusted only as
/// far as their dates show it. Dates of day and of month precision compare by
/// their text (`YYYY-MM-DD`, `YYYY-MM`).
pub fn order_by_dates(reviews: &[Review], previous: Option<&str>) -> Order {
    let day = |d: &str| d.get(..10).unwrap_or(d).to_owned();
    let Some(mut dates) = reviews
        .iter()
        .map(|r| r.date.as_deref().map(day))
        .collect::<Option<Vec<String>>>()
    else {
        return Order::Unordered;
    };
    if dates.is_empty() {
        return Order::Unordered;
    }
    if let Some(previous) = previous {
        dates.insert(0, day(previous));
    }
    if dates.windows(2).all(|w| w[0] >= w[1]) {
        Order::NewestFirst
    } else {
        Order::Unordered
    }
}

/// FNV-1a hash of `parts` (author, date, text …), so the same review gets the
/// same id on every fetch and continuation tokens stay valid.
pub fn stable_id(prefix: &str, parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0u8]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{prefix}{hash:016x}")
}

/// Gives the second and later of reviews that share an id on one page the
/// id with `~2`, `~3`, … appended. Two reviews alike in everything a
/// [`stable_id`] hashes (two redacted authors posting the same words on one
/// day) are two reviews; without this the host would keep only the first.
/// The suffix follows page order, so it is as stable as the page.
pub fn distinct_ids(reviews: &mut [Review]) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for review in reviews {
        let count = seen.entry(review.id.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            review.id = format!("{}~{count}", review.id);
        }
    }
}

/// An image attached to a review, of unknown size.
pub fn image(url: impl Into<String>) -> Media {
    Media {
        id: None,
        media_type: "image".into(),
        url: url.into(),
        width: None,
        height: None,
    }
}

/// A video attached to a review, with the source's id for it where it has one.
pub fn video(id: Option<String>, url: impl Into<String>) -> Media {
    Media {
        id,
        media_type: "video".into(),
        url: url.into(),
        width: None,
        height: None,
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_country_title_is_the_authors_country() {
        let r = ReviewBuilder::new("1")
            .author_title(Some("Canada".into()))
            .build()
            .unwrap();
        assert_eq!(r.author_title, None);
        assert_eq!(r.author_country.as_deref(), Some("CA"));
        let r = ReviewBuilder::new("2")
            .author_country(Some("DE".into()))
            .author_title(Some("Canada".into()))
            .author_country(None)
            .build()
            .unwrap();
        assert_eq!(
            (r.author_title, r.author_country.as_deref()),
            (None, Some("DE"))
        );
        let r = ReviewBuilder::new("3")
            .author_title(Some("Naperville, IL".into()))
            .build()
            .unwrap();
        assert_eq!(r.author_title.as_deref(), Some("Naperville, IL"));
        assert_eq!(r.author_country, None);
    }

    #[test]
    fn reviews_alike_on_one_page_keep_their_own_ids() {
        let mut page: Vec<Review> = ["a", "b", "a", "a"]
            .iter()
            .map(|id| ReviewBuilder::new(*id).build().unwrap())
            .collect();
        distinct_ids(&mut page);
        let ids: Vec<&str> = page.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "a~2", "a~3"]);
    }

    fn dated(dates: &[&str]) -> Vec<Review> {
        dates
            .iter()
            .enumerate()
            .map(|(i, d)| {
                ReviewBuilder::new(format!("r{i}"))
                    .date(Some((*d).to_owned()))
                    .build()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn order_follows_the_dates() {
        let down = dated(&["2024-03-20T10:00:00Z", "2024-03-18", "2024-03-18"]);
        assert_eq!(order_by_dates(&down, None), Order::NewestFirst);
        assert_eq!(
            order_by_dates(&down, Some("2024-03-21")),
            Order::NewestFirst
        );
        assert_eq!(order_by_dates(&down, Some("2024-03-19")), Order::Unordered);
        assert_eq!(
            order_by_dates(&dated(&["2024-03", "2024-04"]), None),
            Order::Unordered
        );
        assert_eq!(
            order_by_dates(&dated(&["2024-04", "2024-03"]), None),
            Order::NewestFirst
        );
        let mut undated = down.clone();
        undated[1].date = None;
        assert_eq!(order_by_dates(&undated, None), Order::Unordered);
        assert_eq!(order_by_dates(&[], None), Order::Unordered);
    }

    #[test]
    fn stable_ids_and_html_replies() {
        assert_eq!(stable_id("t-", &["a", "b"]), stable_id("t-", &["a", "b"]));
        assert_ne!(stable_id("t-", &["ab", ""]), stable_id("t-", &["a", "b"]));
        assert!(stable_id("sf-", &["x"]).starts_with("sf-") && stable_id("", &[]).len() == 16);
        let r = ReviewBuilder::new("r")
            .reply_html(Some("<p>Thanks</p>".into()), None, Some(" Shop ".into()))
            .build()
            .unwrap();
        let reply = r.reply.unwrap();
        assert!(matches!(reply.text, Text::Html(ref h) if h == "<p>Thanks</p>"));
        assert_eq!(reply.author.as_deref(), Some("Shop"));
    }

    #[test]
    fn builds_and_validates() {
        let ok = ReviewBuilder::new("r1")
            .rating(Some(4.0), 5.0)
            .date(Some("2023-12-07T11:23:40.000Z".into()))
            .author_name(Some("  ".into()))
            .build()
            .unwrap();
        assert_eq!(ok.rating_scale_max, Some(5.0));
        assert_eq!(ok.author_name, None);
        assert!(ReviewBuilder::new("r")
            .rating(Some(6.0), 5.0)
            .build()
            .is_err());
        assert!(ReviewBuilder::new("r")
            .date(Some("yesterday".into()))
            .build()
            .is_err());
        assert!(ReviewBuilder::new("r")
            .review_url(Some("/x".into()))
            .build()
            .is_err());
        assert!(ReviewBuilder::new(" ").build().is_err());
    }
}
