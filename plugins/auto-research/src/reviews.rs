//! One review card: title, overall rating, date, author and where they are
//! from, the reviewer's relation to the car, text, the category ratings
//! (comfort, performance, value …), the "recommends this car" answer and the
//! "was this review helpful?" counts.

use gleaner_sdk::date;
use gleaner_sdk::html::{self, ElementRef};
use gleaner_sdk::number;
use gleaner_sdk::review::{stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use serde_json::json;

use crate::selectors::SELECTORS;

/// The prefix of review ids: cards carry no id, so the id is a hash of the
/// author, date, title and text.
pub const ID_PREFIX: &str = "cars-";

/// What a review is mapped against.
#[derive(Debug, Clone)]
pub struct Context {
    /// The vehicle's canonical consumer-reviews page: every review's URL (cards have no permalink).
    pub reviews_url: String,
    /// The day the site answered (its `Date` header), for relative dates.
    pub today: Option<date::Served>,
}

/// Maps one review card.
pub fn from_card(card: ElementRef<'_>, ctx: &Context) -> Result<Review, String> {
    let s = &SELECTORS;
    let title = html::first_text(card, s.title);
    let date_text = html::first_text(card, s.date);
    let (date, approximate) = match &date_text {
        Some(t) => card_date(t, ctx.today),
        None => (None, false),
    };
    let (author, place) = html::first_text(card, s.byline)
        .map(|b| byline(&b))
        .unwrap_or_default();
    let body = html::first(card, s.body);
    let body_text = body.map(html::text).unwrap_or_default();
    let rating = html::first_attr(card, s.rating, s.rating_attr)
        .and_then(|v| number::parse(&v))
        .filter(|v| (1.0..=5.0).contains(v));
    let (helpful_yes, helpful_no) =
        html::first(card, s.feedback).map_or((None, None), helpful_counts);
    let categories = category_ratings(card)?;
    let recommended = html::first_text(card, s.recommends).and_then(|t| recommends(&t));
    let id = stable_id(
        ID_PREFIX,
        &[
            author.as_deref().unwrap_or_default(),
            date_text.as_deref().unwrap_or_default(),
            title.as_deref().unwrap_or_default(),
            &body_text,
        ],
    );
    categories
        .into_iter()
        .fold(ReviewBuilder::new(id), |r, (name, value)| {
            r.sub_rating(name, value, 5.0)
        })
        .title(title)
        .text_html(body.map(|b| b.inner_html().trim().to_owned()))
        .rating(rating, 5.0)
        .date(date)
        .author_name(author)
        .author_title(place)
        .review_url(Some(ctx.reviews_url.clone()))
        .helpful_votes(helpful_yes.and_then(|n| i64::try_from(n).ok()))
        .recommends(recommended)
        .extra(json!({
            "helpful_yes": helpful_yes,
            "helpful_no": helpful_no,
            "reviewer_type": html::first_text(card, s.review_type),
            "date_approximate": approximate,
        }))
        .build()
}

/// The key of a rating category: "Value for the money" → `value`,
/// "Exterior styling" → `exterior_styling`.
pub fn category_key(label: &str) -> Option<String> {
    let key = label
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    match key.as_str() {
        "" => None,
        "value_for_the_money" | "value_for_money" => Some("value".into()),
        _ => Some(key),
    }
}

/// The card's category ratings on 5, each named as the card labels it
/// ("Value for the money"): a rating element's value, else the value's text.
fn category_ratings(card: ElementRef<'_>) -> Result<Vec<(String, f64)>, String> {
    let s = &SELECTORS;
    let items = html::parsed(s.category).map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    for item in card.select(&items) {
        let name = html::first_text(item, s.category_label);
        let value = html::first_attr(item, s.rating, s.rating_attr)
            .and_then(|v| number::parse(&v))
            .or_else(|| html::first_text(item, s.category_value).and_then(|v| number::parse(&v)))
            .filter(|v| (0.0..=5.0).contains(v));
        if let (Some(name), Some(value)) = (name, value) {
            out.push((name, value));
        }
    }
    Ok(out)
}

/// A card's date: an absolute date as written, else a relative one ("3 days
/// ago") resolved against `today` and marked approximate.
fn card_date(text: &str, today: Option<date::Served>) -> (Option<String>, bool) {
    match date::parse(text, None) {
        Some(d) => (Some(d), false),
        None => {
            let relative = date::parse(text, today);
            let approximate = relative.is_some();
            (relative, approximate)
        }
    }
}

/// "By RoadTripRick from Columbus, OH" → ("RoadTripRick", "Columbus, OH").
fn byline(text: &str) -> (Option<String>, Option<String>) {
    let t = text.trim();
    let t = match (t.get(..2), t.get(2..)) {
        (Some(by), Some(rest))
            if by.eq_ignore_ascii_case("by") && (rest.is_empty() || rest.starts_with(' ')) =>
        {
            rest.trim_start()
        }
        _ => t,
    };
    let (name, place) = match t.split_once(" from ") {
        Some((name, place)) => (name, Some(place.trim())),
        None => (t.strip_suffix(" from").unwrap_or(t), None),
    };
    let name = name.trim();
    (
        (!name.is_empty()).then(|| name.to_owned()),
        place.filter(|p| !p.is_empty()).map(str::to_owned),
    )
}

/// "Yes" / "Yes, I recommend this car" → yes; "No" / "Doesn't recommend" → no.
fn recommends(text: &str) -> Option<bool> {
    let t = text.trim().to_lowercase().replace('\u{2019}', "'");
    let first = t
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .next()?;
    match first {
        "yes" | "recommends" => Some(true),
        "no" | "not" | "doesn't" | "don't" | "does" => Some(false),
        _ => None,
    }
}

/// The helpful counts of a feedback block: its "Yes (12)" and "No (3)"
/// buttons (a button without a number counts 0), else the sentence
/// "12 out of 15 people found this review helpful".
fn helpful_counts(block: ElementRef<'_>) -> (Option<u64>, Option<u64>) {
    let button = |css: &str| {
        html::first(block, css).map(|b| number::first_count(&html::text(b)).unwrap_or(0))
    };
    let (yes, no) = (button(SELECTORS.helpful_yes), button(SELECTORS.helpful_no));
    if yes.is_some() || no.is_some() {
        return (yes, no);
    }
    match out_of(&html::text(block)) {
        Some((yes, all)) => (Some(yes), all.checked_sub(yes)),
        None => (None, None),
    }
}

/// "12 out of 15 people …" → (12, 15).
fn out_of(text: &str) -> Option<(u64, u64)> {
    let (before, after) = text.split_once(" out of ")?;
    let yes = before
        .split_whitespace()
        .last()?
        .replace(',', "")
        .parse()
        .ok()?;
    Some((yes, number::first_count(after)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::html::Html;
    use gleaner_sdk::Text;
    use serde_json::Value;

    fn ctx() -> Context {
        Context {
            reviews_url: "https://www.cars.com/research/mazda-cx_5-2021/consumer-reviews/".into(),
            today: date::Served::from_http("Mon, 03 Jun 2024 12:00:00 GMT"),
        }
    }

    fn one(html: &str) -> Review {
        let doc = Html::parse_document(html);
        let s = html::selector(SELECTORS.review).unwrap();
        let card = doc.select(&s).next().unwrap();
        from_card(card, &ctx()).unwrap()
    }

    fn extra(r: &Review) -> Value {
        serde_json::from_str(&r.extra_json).unwrap()
    }

    #[test]
    fn maps_every_field_of_a_card() {
        let r = one(r#"<div class="sds-container consumer-review-container">
              <spark-rating rating="4"></spark-rating>
              <h3 class="sds-heading--7 title"> Quiet and quick </h3>
              <div class="review-byline review-section"><div>May 28, 2024</div><div>By Dana K. from Boise, ID</div></div>
              <div class="review-type">Purchased new</div>
              <p class="review-body">First line.<br>Second line.</p>
              <ul class="review-breakdown--list">
                <li><span class="label">Comfort</span><spark-rating rating="5"></spark-rating></li>
                <li><span class="label">Value for the money</span><spark-rating rating="3"></spark-rating></li>
                <li><span class="sds-definition-list__display-name">Exterior styling</span><span class="sds-definition-list__value">4.0</span></li>
              </ul>
              <div class="review-recommendation"><strong>Yes</strong>, I recommend this car.</div>
              <div class="review-feedback">Was this review helpful?
                <button class="review-feedback__yes">Yes (12)</button><button class="review-feedback__no">No (3)</button></div>
            </div>"#);
        assert!(r.id.starts_with(ID_PREFIX));
        assert_eq!(r.title.as_deref(), Some("Quiet and quick"));
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2024-05-28"));
        assert_eq!(r.author_name.as_deref(), Some("Dana K."));
        assert_eq!(r.author_title.as_deref(), Some("Boise, ID"));
        assert_eq!(r.helpful_votes, Some(12));
        assert_eq!(r.review_url.as_deref(), Some(ctx().reviews_url.as_str()));
        assert!(matches!(&r.text, Some(Text::Html(h)) if h == "First line.<br>Second line."));
        let subs: Vec<(&str, f64, f64)> = r
            .sub_ratings
            .iter()
            .map(|s| (s.name.as_str(), s.rating, s.scale_max))
            .collect();
        assert_eq!(
            subs,
            vec![
                ("Comfort", 5.0, 5.0),
                ("Value for the money", 3.0, 5.0),
                ("Exterior styling", 4.0, 5.0)
            ]
        );
        assert_eq!(r.recommends, Some(true));
        let x = extra(&r);
        assert_eq!(
            (x["helpful_yes"].clone(), x["helpful_no"].clone()),
            (json!(12), json!(3))
        );
        assert_eq!(x["reviewer_type"], "Purchased new");
        assert_eq!(x["date_approximate"], false);
        assert!(x.get("ratings").is_none() && x.get("recommends").is_none());
    }

    #[test]
    fn a_bare_card_keeps_its_gaps_empty() {
        let html = r#"<div class="consumer-review-container"><div class="review-byline"><div>2 weeks ago</div><div>By Sam</div></div>
               <div class="review-feedback">4 out of 6 people found this review helpful</div></div>"#;
        let r = one(html);
        assert_eq!(r.date.as_deref(), Some("2024-05-20"));
        assert_eq!(r.author_name.as_deref(), Some("Sam"));
        assert!(
            r.title.is_none() && r.text.is_none() && r.rating.is_none() && r.author_title.is_none()
        );
        assert_eq!(r.helpful_votes, Some(4));
        assert!(r.sub_ratings.is_empty());
        assert_eq!(r.recommends, None);
        let x = extra(&r);
        assert_eq!(x["helpful_no"], 2);
        assert_eq!(x["date_approximate"], true);
        assert_eq!(r.id, one(html).id, "the same card gets the same id");
    }

    #[test]
    fn reads_words_and_counts() {
        assert_eq!(recommends("Yes"), Some(true));
        assert_eq!(recommends("No"), Some(false));
        assert_eq!(recommends("Doesn\u{2019}t recommend"), Some(false));
        assert_eq!(recommends("Maybe"), None);
        assert_eq!(byline("by Al from "), (Some("Al".into()), None));
        assert_eq!(byline("By "), (None, None));
        assert_eq!(
            category_key("Interior design").as_deref(),
            Some("interior_design")
        );
        assert_eq!(category_key(" — "), None);
        assert_eq!(out_of("1,204 out of 1,300 people"), Some((1204, 1300)));
        assert_eq!(out_of("helpful?"), None);
        assert_eq!(
            card_date("06/01/2024", None),
            (Some("2024-06-01".into()), false)
        );
        assert_eq!(
            card_date(
                "someday",
                date::Served::from_http("Mon, 03 Jun 2024 12:00:00 GMT")
            ),
            (None, false)
        );
    }

    #[test]
    fn an_out_of_scale_rating_is_dropped() {
        let r = one(
            r#"<div class="consumer-review-container"><spark-rating rating="9"></spark-rating></div>"#,
        );
        assert_eq!(r.rating, None);
        assert_eq!(r.rating_scale_max, None);
    }
}
