//! Every CSS selector and attribute the plugin reads from The Cars.com consumer-reviews page, in one
//! place, with nothing else: the page reader and the review reader both
//! read it, and a layout change of the site is a one-line fix here.

/// Every CSS selector and attribute the plugin reads, in one place: a layout
/// change of the site is a one-line fix here.
pub struct Selectors {
    /// One review card.
    pub review: &'static str,
    /// The review's title.
    pub title: &'static str,
    /// A star rating element; its value is in [`Selectors::rating_attr`].
    pub rating: &'static str,
    /// The attribute holding a 1–5 rating.
    pub rating_attr: &'static str,
    /// The date line of the byline.
    pub date: &'static str,
    /// The "By {author} from {place}" line of the byline.
    pub byline: &'static str,
    /// The reviewer's relation to the car ("Owner", "Purchased new" …).
    pub review_type: &'static str,
    /// The review text.
    pub body: &'static str,
    /// One category rating of the review (comfort, performance, value …).
    pub category: &'static str,
    /// The category's name inside [`Selectors::category`].
    pub category_label: &'static str,
    /// The category's value as text, where it has no rating element.
    pub category_value: &'static str,
    /// The "recommends this car" answer (Yes / No).
    pub recommends: &'static str,
    /// The "was this review helpful?" block.
    pub feedback: &'static str,
    /// Its "yes" button, with the count of yes votes.
    pub helpful_yes: &'static str,
    /// Its "no" button, with the count of no votes.
    pub helpful_no: &'static str,
    /// The link to the next page of reviews.
    pub next: &'static str,
    /// The page's statement that there are no reviews (for the vehicle or the star filter).
    pub empty: &'static str,
    /// The page's heading ("2021 Mazda CX-5 consumer reviews").
    pub heading: &'static str,
    /// The vehicle's average rating in the summary.
    pub average: &'static str,
    /// The line under the average ("Based on 12 reviews").
    pub count: &'static str,
    /// The share of reviewers who recommend the vehicle ("92% of drivers recommend this car").
    pub recommend_share: &'static str,
    /// One category average of the summary: a `<strong>` value and the category's name.
    pub category_average: &'static str,
    /// The value of a category average, inside [`Selectors::category_average`].
    pub category_average_value: &'static str,
}

/// The selectors of the Cars.com consumer-reviews page as public crawlers read
/// it in 2023–2025; the feedback block, the empty-list note and the summary's
/// recommendation line are unverified against the live site.
pub const SELECTORS: Selectors = Selectors {
    review: ".consumer-review-container",
    title: "h3.title, h3",
    rating: "spark-rating[rating], fuse-rating[rating]",
    rating_attr: "rating",
    date: ".review-date, .review-byline > div:nth-child(1)",
    byline: ".author-details > div:first-child, .review-byline > div:nth-child(2)",
    review_type: ".review-type",
    body: ".review-body",
    category: ".review-breakdown--list li",
    category_label: ".label, .sds-definition-list__display-name",
    category_value: ".sds-definition-list__value",
    recommends: ".review-recommendation strong",
    feedback: ".review-feedback",
    helpful_yes: ".review-feedback__yes",
    helpful_no: ".review-feedback__no",
    next: "a.sds-pagination__next[href]",
    empty: ".consumer-reviews-empty",
    heading: "h1",
    average: ".rating-out-of .rating-count",
    count: ".rating-out-of + div",
    recommend_share: ".reviews-recommended",
    category_average: ".ratings-breakdown .review-text",
    category_average_value: "strong",
};

/// What shows that the consumer-reviews page itself is there, for a browser
/// waiting on it (any one of them, as one selector list): the review cards,
/// the empty-list note, or the summary's average, which a page without
/// reviews may show as its only sign of having none ("0.0 out of 5"). A
/// challenge or block page shows none of them.
pub const READY: [&str; 3] = [SELECTORS.review, SELECTORS.empty, SELECTORS.average];

impl Selectors {
    /// Every CSS selector here (not the attribute names), parsed ahead of any
    /// call (the plugin's `prepare`).
    pub const fn css(&self) -> [&'static str; 22] {
        let s = self;
        [
            s.review,
            s.title,
            s.rating,
            s.date,
            s.byline,
            s.review_type,
            s.body,
            s.category,
            s.category_label,
            s.category_value,
            s.recommends,
            s.feedback,
            s.helpful_yes,
            s.helpful_no,
            s.next,
            s.empty,
            s.heading,
            s.average,
            s.count,
            s.recommend_share,
            s.category_average,
            s.category_average_value,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::html::{self, Html};

    fn ready(page: &str) -> bool {
        let doc = Html::parse_document(page);
        !html::select(&doc, &READY.join(", ")).unwrap().is_empty()
    }

    #[test]
    fn the_browser_s_wait_ends_on_every_review_page_and_on_no_wall() {
        for page in [
            include_str!("../tests/samples/cx5-newest-1.html"),
            include_str!("../tests/samples/cx5-newest-3.html"),
            include_str!("../tests/samples/cx5-stars-1.html"),
            include_str!("../tests/samples/no-reviews.html"),
            include_str!("../tests/samples/no-reviews-zero-counts.html"),
            include_str!("../tests/samples/layout-changed.html"),
        ] {
            assert!(ready(page), "{page}");
        }
        for wall in [
            include_str!("../tests/samples/akamai-denied.html"),
            include_str!("../tests/samples/cloudflare-challenge.html"),
        ] {
            assert!(!ready(wall), "{wall}");
        }
    }
}
