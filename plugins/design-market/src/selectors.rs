//! Every CSS selector and attribute the plugin reads from Creative Market's product page, in one
//! place, with nothing else: the page reader and the review reader both
//! read it, and a layout change of the site is a one-line fix here.

/// Every CSS selector and attribute the plugin reads, in one place: a layout
/// change of the site is a one-line fix here.
pub struct Selectors {
    /// The reviews section of the product page (the review list is read inside it).
    pub section: &'static str,
    /// One review.
    pub review: &'static str,
    /// The review's id, an attribute of the review element.
    pub review_id_attr: &'static str,
    /// The star rating element; its rating is in [`Selectors::rating_attr`], else its `aria-label`.
    pub rating: &'static str,
    /// The attribute holding the 1–5 rating.
    pub rating_attr: &'static str,
    /// The review's date; ISO in [`Selectors::datetime_attr`], else its text.
    pub date: &'static str,
    /// The machine-readable date attribute of date elements.
    pub datetime_attr: &'static str,
    /// The review's own link (its permalink).
    pub permalink: &'static str,
    /// The reviewer's display name.
    pub author_name: &'static str,
    /// The link to the reviewer's profile.
    pub author_link: &'static str,
    /// The reviewer's avatar image.
    pub avatar: &'static str,
    /// The recommendation line; yes/no in [`Selectors::recommend_attr`], else its text.
    pub recommend: &'static str,
    /// The attribute holding the recommendation (`yes`/`no`, `true`/`false`).
    pub recommend_attr: &'static str,
    /// One trait chip ("Great quality", "Easy to use").
    pub trait_chip: &'static str,
    /// The review text (paragraphs as HTML).
    pub body: &'static str,
    /// The shop owner's response block.
    pub reply: &'static str,
    /// The name on the shop owner's response.
    pub reply_author: &'static str,
    /// The date of the shop owner's response.
    pub reply_date: &'static str,
    /// The text of the shop owner's response.
    pub reply_body: &'static str,
    /// The "more reviews" link to the next page, in the reviews section.
    pub next: &'static str,
    /// The reviews section's own statement that the product has no reviews yet.
    pub empty: &'static str,
    /// The product's name, when the JSON-LD block lacks it.
    pub product_name: &'static str,
    /// The average rating shown in the reviews section, when the JSON-LD block lacks it.
    pub average: &'static str,
    /// The review count shown in the reviews section ("12 Reviews"), when the JSON-LD block lacks it.
    pub count: &'static str,
}

/// The selectors of Creative Market's product page (unverified against the live site).
pub const SELECTORS: Selectors = Selectors {
    section: "#reviews",
    review: "[data-review-id]",
    review_id_attr: "data-review-id",
    rating: "[data-rating]",
    rating_attr: "data-rating",
    date: "time.review__date",
    datetime_attr: "datetime",
    permalink: "a.review__permalink",
    author_name: ".review__author",
    author_link: "a.review__author-link",
    avatar: "img.review__avatar",
    recommend: "[data-recommend]",
    recommend_attr: "data-recommend",
    trait_chip: ".review__trait",
    body: ".review__body",
    reply: ".review__reply",
    reply_author: ".review__reply-author",
    reply_date: "time.review__reply-date",
    reply_body: ".review__reply-body",
    next: "a[rel=next]",
    empty: ".product-reviews__empty",
    product_name: "h1",
    average: ".product-reviews__average",
    count: ".product-reviews__count",
};

impl Selectors {
    /// Every CSS selector here (not the attribute names), parsed ahead of any
    /// call (the plugin's `prepare`).
    pub const fn css(&self) -> [&'static str; 20] {
        let s = self;
        [
            s.section,
            s.review,
            s.rating,
            s.date,
            s.permalink,
            s.author_name,
            s.author_link,
            s.avatar,
            s.recommend,
            s.trait_chip,
            s.body,
            s.reply,
            s.reply_author,
            s.reply_date,
            s.reply_body,
            s.next,
            s.empty,
            s.product_name,
            s.average,
            s.count,
        ]
    }
}
