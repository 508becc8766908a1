//! Trustpilot TrustBox: the business unit, template, locale and SKUs from
//! the `.trustpilot-widget` element's data attributes; reviews from
//! `widget.trustpilot.com/trustbox-data/<template>`, which answers the
//! newest reviews the TrustBox shows in one answer (no paging is documented),
//! with the business unit's `trustScore`, `stars` and review count. The rest
//! of a company's reviews are on its Trustpilot page (the
//! customer-feedback-hub source).

use gleaner_sdk::html::Html;
use gleaner_sdk::review::ReviewBuilder;
use serde_json::Value;

use super::scan::attr;
use super::{bad_cursor, date, enc, get, json_of, number, text};
use super::{Fetched, Position, Vendor, Widget};

/// Reviews asked for per answer.
const PER_PAGE: u32 = 100;

fn hex24(s: &str) -> bool {
    s.len() == 24 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The TrustBox of a page, if it has one with its ids.
pub fn detect(doc: &Html) -> Option<Widget> {
    let css = ".trustpilot-widget[data-businessunit-id]";
    let business_unit = attr(doc, css, "data-businessunit-id").filter(|b| hex24(b))?;
    let template = attr(doc, css, "data-template-id").filter(|t| hex24(t))?;
    let locale = attr(doc, css, "data-locale").unwrap_or_else(|| "en-US".into());
    let sku = attr(doc, css, "data-sku");
    Some(Widget::Trustpilot {
        business_unit,
        template,
        locale,
        sku,
    })
}

/// The reviews the TrustBox shows.
pub fn fetch(widget: &Widget, at: &Position) -> Result<Fetched, gleaner_sdk::FetchError> {
    let (
        Widget::Trustpilot {
            business_unit,
            template,
            locale,
            sku,
        },
        Position::Page(1),
    ) = (widget, at)
    else {
        return Err(bad_cursor(widget));
    };
    let mut url = format!(
        "https://widget.trustpilot.com/trustbox-data/{}?businessUnitId={}&locale={}&reviewsPerPage={PER_PAGE}&includeReviews=true",
        enc(template),
        enc(business_unit),
        enc(locale)
    );
    if let Some(sku) = sku {
        url.push_str(&format!("&sku={}", enc(sku)));
    }
    let v = json_of(Vendor::Trustpilot, &get(Vendor::Trustpilot, &url)?)?;
    let unit = match v["businessUnit"].is_object() {
        true => &v["businessUnit"],
        false => &v["businessEntity"],
    };
    let (list, total) = match v["productReviews"]["reviews"].as_array() {
        Some(list) => (
            list.clone(),
            v["productReviewsSummary"]["numberOfReviews"]["total"].as_u64(),
        ),
        None => (
            v["reviews"].as_array().cloned().unwrap_or_default(),
            unit["numberOfReviews"]["total"].as_u64(),
        ),
    };
    let reviews: Vec<_> = list.iter().filter_map(review).collect();
    let limit = total
        .filter(|t| *t > reviews.len() as u64)
        .map(|t| format!(
            "the TrustBox's data answers the newest {} of the {t} reviews Trustpilot counts; the customer-feedback-hub source reads the rest from the company's Trustpilot page",
            reviews.len()
        ));
    Ok(Fetched {
        reviews,
        next: None,
        total,
        average: number(&unit["stars"]).or_else(|| number(&unit["trustScore"])),
        limit,
    })
}

fn review(item: &Value) -> Option<gleaner_sdk::types::Review> {
    let reply = match item["companyReply"].is_object() {
        true => &item["companyReply"],
        false => &item["reply"],
    };
    let mut b = ReviewBuilder::new(text(&item["id"])?)
        .author_name(text(&item["consumer"]["displayName"]))
        .title(text(&item["title"]))
        .text_plain(text(&item["text"]).or_else(|| text(&item["content"])))
        .date(date(&item["createdAt"]))
        .verified(item["verification"]["isVerified"].as_bool())
        .review_url(text(&item["reviewUrl"]).filter(|u| u.starts_with("https://")))
        .language(text(&item["language"]))
        .reply(text(&reply["text"]), date(&reply["createdAt"]), None);
    if let Some(stars) = number(&item["stars"]).filter(|s| (0.0..=5.0).contains(s)) {
        b = b.rating(Some(stars), 5.0);
    }
    super::finish(b, Vendor::Trustpilot)
}
