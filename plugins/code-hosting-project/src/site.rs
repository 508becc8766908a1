//! Everything the plugin knows about SourceForge, in one table: the hosts a
//! project URL may use, the URLs it requests or builds, and every CSS selector
//! of the reviews page (the 2019 markup). A layout change is a one-line fix here.

use gleaner_sdk::http::encode_component;

/// The site's origin; relative links on the page resolve against it.
pub const ORIGIN: &str = "https://sourceforge.net";
/// A project's summary page.
pub const PROJECT_URL: &str = "https://sourceforge.net/projects/{slug}/";
/// A project's reviews page, as users see it.
pub const REVIEWS_URL: &str = "https://sourceforge.net/projects/{slug}/reviews/";
/// One page of the reviews listing: `offset` reviews are skipped.
pub const PAGE_URL: &str = "https://sourceforge.net/projects/{slug}/reviews/?offset={offset}";
/// The star filter, appended to [`PAGE_URL`].
pub const STARS_PARAM: &str = "&stars={stars}";
/// A user's profile, for an author whose name carries no link.
pub const AUTHOR_URL: &str = "https://sourceforge.net/u/{name}/";
/// Reviews per page of the listing.
pub const PAGE_SIZE: usize = 25;

/// Hosts that serve SourceForge's own pages (`/projects/<slug>/…`, `/p/<slug>/…`).
pub const SITE_HOSTS: &[&str] = &[
    "sourceforge.net",
    "www.sourceforge.net",
    "m.sourceforge.net",
    "sf.net",
    "www.sf.net",
];
/// Hosts of download links (`/project/<slug>/…`).
pub const DOWNLOAD_HOSTS: &[&str] = &["downloads.sourceforge.net", "prdownloads.sourceforge.net"];
/// Domains under which every project has its website, `<slug>.<domain>`.
pub const PROJECT_WEB_DOMAINS: &[&str] = &["sourceforge.io", "sourceforge.net"];
/// Subdomains of [`PROJECT_WEB_DOMAINS`] that are SourceForge services, not projects.
pub const SERVICE_SUBDOMAINS: &[&str] = &[
    "a",
    "admin",
    "api",
    "apps",
    "blog",
    "cdn",
    "code",
    "cvs",
    "dl",
    "downloads",
    "fossies",
    "ftp",
    "git",
    "hg",
    "images",
    "lists",
    "m",
    "master",
    "mobile",
    "prdownloads",
    "shell",
    "sourceforge",
    "static",
    "status",
    "svn",
    "web",
    "www",
];
/// First path segments of sourceforge.net that hold a project slug next.
pub const PROJECT_PATHS: &[&str] = &["projects", "p"];
/// First path segment of the business software directory, a different catalogue.
pub const SOFTWARE_DIRECTORY_PATH: &str = "software";

/// The name SourceForge shows for a review whose author's account was redacted.
pub const REDACTED_AUTHOR: &str = "<REDACTED>";
/// The words in front of a review's date ("Posted 01/13/2017").
pub const DATE_PREFIX: &str = "Posted";
/// What a project that does not accept reviews says on its reviews page
/// ("This project does not allow reviews to be posted.").
pub const NOT_ALLOWED_TEXT: &str = "does not allow reviews";

/// How a reviews page says the project has none yet, besides the texts every
/// site uses (`gleaner_sdk::listing::NO_REVIEW_TEXTS`), lower-cased.
pub const NO_REVIEWS_TEXTS: &[&str] =
    &["be the first to post a review", "there are no reviews yet"];

/// Every CSS selector the plugin applies to a reviews page.
pub struct Selectors {
    /// One review of the listing.
    pub review: &'static str,
    /// The author's name, inside a review.
    pub author: &'static str,
    /// A link to the author's profile, inside a review.
    pub author_link: &'static str,
    /// "Posted MM/DD/YYYY", inside a review.
    pub date: &'static str,
    /// The review text (HTML), inside a review.
    pub text: &'static str,
    /// A lit star of the review's rating, inside a review.
    pub lit_star: &'static str,
    /// The helpful-votes box, inside a review.
    pub helpful_box: &'static str,
    /// The number of helpful votes, inside a review.
    pub helpful_count: &'static str,
    /// The project's name.
    pub project_name: &'static str,
    /// The project's average rating.
    pub average: &'static str,
    /// The number of reviews with `{n}` stars.
    pub star_count: &'static str,
    /// One dimensional rating (ease, features, design, support).
    pub dimension: &'static str,
    /// A dimensional rating's name, inside [`Selectors::dimension`].
    pub dimension_label: &'static str,
    /// A dimensional rating's score out of 5, inside [`Selectors::dimension`].
    pub dimension_score: &'static str,
    /// The notice of an empty listing (no reviews, or paged past the end).
    pub no_reviews: &'static str,
    /// Paragraphs that may say the project does not allow reviews.
    pub not_allowed: &'static str,
}

/// The selectors of the reviews page.
pub const SELECTORS: Selectors = Selectors {
    review: "#project-reviews li",
    author: ".footer .author-name",
    author_link: ".footer a.author-name[href], .footer .author-name a[href]",
    date: ".footer .created-date",
    text: ".review-txt-outer .review-txt",
    lit_star: ".star.yellow",
    helpful_box: ".helpful-count",
    helpful_count: ".helpful-count .user-count",
    project_name: ".title h1",
    average: ".rating .average",
    star_count: ".stars-{n} .rating-label",
    dimension: ".dimensional-ratings .dimensional-rating",
    dimension_label: ".label",
    dimension_score: ".rating-score .dim-rate",
    no_reviews: ".info-no-reviews",
    not_allowed: ".main-content .row p",
};

/// Every CSS selector of [`SELECTORS`] as the plugin uses it (the star
/// counts' once per star), parsed ahead of any call (the plugin's `prepare`).
pub fn all_selectors() -> Vec<String> {
    let s = &SELECTORS;
    let fixed = [
        s.review,
        s.author,
        s.author_link,
        s.date,
        s.text,
        s.lit_star,
        s.helpful_box,
        s.helpful_count,
        s.project_name,
        s.average,
        s.dimension,
        s.dimension_label,
        s.dimension_score,
        s.no_reviews,
        s.not_allowed,
    ];
    let stars = (1..=5).map(star_count_selector);
    fixed.into_iter().map(str::to_owned).chain(stars).collect()
}

/// The project's summary page.
pub fn project_url(slug: &str) -> String {
    PROJECT_URL.replace("{slug}", slug)
}

/// The project's reviews page.
pub fn reviews_url(slug: &str) -> String {
    REVIEWS_URL.replace("{slug}", slug)
}

/// The listing page starting at `offset`, limited to `stars` when given.
pub fn page_url(slug: &str, offset: usize, stars: Option<u8>) -> String {
    let mut url = PAGE_URL
        .replace("{slug}", slug)
        .replace("{offset}", &offset.to_string());
    if let Some(n) = stars {
        url.push_str(&STARS_PARAM.replace("{stars}", &n.to_string()));
    }
    url
}

/// The profile of the user `name`.
pub fn author_url(name: &str) -> String {
    AUTHOR_URL.replace("{name}", &encode_component(name))
}

/// The selector of the count of `n`-star reviews.
pub fn star_count_selector(n: u8) -> String {
    SELECTORS.star_count.replace("{n}", &n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::html;

    #[test]
    fn builds_the_urls() {
        assert_eq!(
            page_url("openproj", 0, None),
            "https://sourceforge.net/projects/openproj/reviews/?offset=0"
        );
        assert_eq!(
            page_url("openproj", 25, Some(5)),
            "https://sourceforge.net/projects/openproj/reviews/?offset=25&stars=5"
        );
        assert_eq!(
            reviews_url("openproj"),
            "https://sourceforge.net/projects/openproj/reviews/"
        );
        assert_eq!(
            project_url("openproj"),
            "https://sourceforge.net/projects/openproj/"
        );
        assert_eq!(
            author_url("oid-3689572"),
            "https://sourceforge.net/u/oid-3689572/"
        );
        assert_eq!(star_count_selector(4), ".stars-4 .rating-label");
    }

    #[test]
    fn every_selector_parses() {
        for css in all_selectors() {
            assert!(html::selector(&css).is_ok(), "{css}");
        }
    }
}
