//! Senja: the public widget configuration
//! `widget.senja.io/api/widget-config/<widget id>`, `{widget, builder, reviews}`,
//! holds every review the widget shows, in one answer.

use gleaner_sdk::json::string;
use gleaner_sdk::review::{self, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{http, FetchError, Order, Page};
use serde_json::{json, Value};

use crate::common::{self, first_string};

/// The widget configuration.
pub const CONFIG_URL: &str = "https://widget.senja.io/api/widget-config/{id}";
/// A Twitter / X profile, by username.
pub const TWITTER_PROFILE: &str = "https://x.com/{username}";
/// A Product Hunt profile, by username.
pub const PRODUCT_HUNT_PROFILE: &str = "https://www.producthunt.com/@{username}";

/// Fetches and maps a widget's reviews.
pub fn fetch(widget_id: &str) -> Result<Page, FetchError> {
    let url = CONFIG_URL.replace("{id}", widget_id);
    let response = http::get(&url, &[("accept", "application/json")])?
        .checked("Senja widget configuration")?;
    let config: Value = serde_json::from_slice(&response.body).map_err(|e| {
        common::missing(
            &response,
            "Senja widget configuration",
            FetchError::Upstream(format!(
                "Senja widget configuration: {url} did not answer JSON ({e}); its format changed"
            )),
        )
    })?;
    parse_config(&config, widget_id, &url)
}

/// Maps a widget configuration. No `reviews` array is a changed format, unless
/// the widget itself is missing (an unknown widget id).
pub fn parse_config(config: &Value, widget_id: &str, url: &str) -> Result<Page, FetchError> {
    let widget = &config["widget"];
    let Some(items) = config["reviews"].as_array() else {
        return Err(if widget.is_null() {
            FetchError::NotFound(format!(
                "Senja has no widget {widget_id} ({url} holds no widget); check the widget id in the wall's embed code"
            ))
        } else {
            FetchError::Upstream(format!(
                "Senja widget configuration: {url} has no reviews array, so its format changed; \
                 the plugin needs an update to read it"
            ))
        });
    };
    let reviews = items
        .iter()
        .map(|r| review(r, url).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor: None,
        order: Order::Unordered,
        meta: common::meta(
            url.to_owned(),
            first_string(widget, &["name", "title"]),
            None,
            Some(items.len() as u64),
            json!({
                "product": "senja",
                "widget_id": widget_id,
                "arrangement": string(&widget["testimonial_arrangement"]["sort"]),
            }),
        ),
    })
}

/// The customer's profile link: theirs, else a Twitter or Product Hunt profile.
fn profile(customer: &Value) -> Option<String> {
    let integrations = &customer["integrations"];
    string(&customer["url"])
        .or_else(|| {
            string(&integrations["twitter"]["username"])
                .map(|u| TWITTER_PROFILE.replace("{username}", &u))
        })
        .or_else(|| {
            string(&integrations["product_hunt"]["username"])
                .map(|u| PRODUCT_HUNT_PROFILE.replace("{username}", &u))
        })
}

/// Maps one review of the widget.
pub fn review(r: &Value, wall_url: &str) -> Result<Review, String> {
    let customer = &r["customer"];
    let html = string(&r["html"]);
    let plain = string(&r["text"]);
    let transcript = common::transcript(r);
    let from_transcript = html.is_none() && plain.is_none() && transcript.is_some();
    let permalink = common::http_url(string(&r["url"]));
    let name = first_string(customer, &["name"]).or_else(|| string(&r["customer_name"]));
    let id = string(&r["id"])
        .or_else(|| r["id"].as_i64().map(|n| n.to_string()))
        .or_else(|| permalink.clone())
        .unwrap_or_else(|| {
            let customer_id = string(&customer["id"]).unwrap_or_default();
            let body = html.clone().or(plain.clone()).unwrap_or_default();
            review::stable_id("senja-", &[&customer_id, &body])
        });
    let mut builder = ReviewBuilder::new(id)
        .title(string(&r["title"]))
        .rating(common::stars(&r["rating"]), 5.0)
        .date(common::iso_date(&r["date"]).or_else(|| common::iso_date(&r["created_at"])))
        .author_name(name)
        .author_title(
            string(&customer["tagline"])
                .or_else(|| string(&r["customer_tagline"]))
                .or_else(|| string(&r["customer_company"])),
        )
        .author_image(common::http_url(
            string(&customer["avatar"]).or_else(|| string(&r["customer_avatar"])),
        ))
        .author_url(common::http_url(profile(customer)))
        .review_url(permalink.or_else(|| Some(wall_url.to_owned())))
        .extra(json!({
            "integration": string(&r["integration"]),
            "customer_id": string(&customer["id"]),
            "twitter_username": string(&customer["integrations"]["twitter"]["username"]),
            "product_hunt_username": string(&customer["integrations"]["product_hunt"]["username"]),
            "video_thumbnail_url": string(&r["thumbnail_url"]),
            "text_is_transcript": from_transcript,
            "transcript": if from_transcript { None } else { transcript.clone() },
        }));
    builder = match (html, plain) {
        (Some(h), _) => builder.text_html(Some(h)),
        (None, Some(p)) => builder.text_plain(Some(p)),
        (None, None) => builder.text_plain(transcript),
    };
    for m in r["media"].as_array().into_iter().flatten() {
        let url = common::http_url(string(m).or_else(|| string(&m["url"])));
        let video = string(&m["type"]).is_some_and(|t| t.contains("video"));
        if let Some(url) = url {
            builder = builder.media(if video {
                review::video(None, url)
            } else {
                review::image(url)
            });
        }
    }
    if let Some(v) = common::http_url(string(&r["video_url"])) {
        builder = builder.media(review::video(None, v));
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::Text;

    const URL: &str =
        "https://widget.senja.io/api/widget-config/6a0c4b74-527a-4058-bded-8a358821c1a0";

    #[test]
    fn ids_links_and_missing_widgets() {
        let r = json!({"customer": {"id": "c1", "name": "Bo", "integrations": {"twitter": {"username": "bo"}}}, "html": "<p>Hi</p>"});
        let a = review(&r, URL).unwrap();
        assert!(a.id.starts_with("senja-"));
        assert_eq!(a.id, review(&r, URL).unwrap().id);
        assert_eq!(a.author_url.as_deref(), Some("https://x.com/bo"));
        assert_eq!(a.review_url.as_deref(), Some(URL));
        let e = parse_config(&json!({"widget": null}), "w", URL).unwrap_err();
        assert!(matches!(e, FetchError::NotFound(_)));
        let e = parse_config(&json!({"widget": {"id": "w"}}), "w", URL).unwrap_err();
        assert!(matches!(e, FetchError::Upstream(_)));
        let titled = json!({"id": 7, "title": "Best tool", "text": "Plain words", "rating": "4",
                            "customer_name": "Flat Shape", "customer_company": "Co",
                            "media": [{"url": "https://img.example/x.png", "type": "image"}]});
        let t = review(&titled, URL).unwrap();
        assert_eq!(t.id, "7");
        assert_eq!(t.title.as_deref(), Some("Best tool"));
        assert!(matches!(t.text, Some(Text::Plain(ref p)) if p == "Plain words"));
        assert_eq!(t.rating, Some(4.0));
        assert_eq!(t.author_name.as_deref(), Some("Flat Shape"));
        assert_eq!(t.author_title.as_deref(), Some("Co"));
        assert_eq!(t.media[0].media_type, "image");
        let empty = parse_config(&json!({"widget": {}, "reviews": []}), "w", URL).unwrap();
        assert!(empty.reviews.is_empty());
    }
}
