//! Shapo: the wall page `https://shapo.io/wall-of-love/<id>` is a Next.js page
//! whose `__NEXT_DATA__` holds the whole wall under `props.pageProps`. One page
//! is the whole wall, so there is never a next cursor; the host cuts and resumes
//! it by itself.

use gleaner_sdk::embedded::next_data;
use gleaner_sdk::json::string;
use gleaner_sdk::review::{self, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::webpage::page_meta;
use gleaner_sdk::{http, FetchError, Order, Page};
use serde_json::{json, Value};

use crate::common;

/// The wall page.
pub const WALL_URL: &str = "https://shapo.io/wall-of-love/{id}";
/// Where under `props.pageProps` the testimonials array may sit, tried in order.
pub const TESTIMONIAL_KEYS: &[&str] = &[
    "/testimonials",
    "/wall/testimonials",
    "/data/testimonials",
    "/initialData/testimonials",
];
/// Where under `props.pageProps` the wall's name may sit, tried in order.
pub const NAME_KEYS: &[&str] = &["/wall/name", "/wall/title", "/name", "/title"];

/// Fetches and maps a whole wall.
pub fn fetch(id: &str) -> Result<Page, FetchError> {
    let url = WALL_URL.replace("{id}", id);
    let response = http::get_html(&url)?.checked("Shapo wall page")?;
    let html = response.text();
    let data = next_data(&html).ok_or_else(|| {
        common::missing(
            &response,
            "Shapo wall page",
            FetchError::Upstream(format!(
                "Shapo wall page: {url} has no __NEXT_DATA__ block, so its layout changed; \
                 the plugin needs an update to read it"
            )),
        )
    })?;
    if matches!(data["page"].as_str(), Some("/404" | "/_error")) {
        return Err(FetchError::NotFound(format!(
            "Shapo has no wall of love {id} ({url} is its not-found page)"
        )));
    }
    let page_title = page_meta(&html, &url);
    parse_wall(
        &data["props"]["pageProps"],
        &url,
        id,
        page_title.og_title.or(page_title.title),
    )
}

/// Maps `props.pageProps` of a wall page. No testimonials array under any known
/// key is a changed layout; an empty array is an empty wall.
pub fn parse_wall(
    props: &Value,
    wall_url: &str,
    id: &str,
    page_title: Option<String>,
) -> Result<Page, FetchError> {
    let Some(items) = TESTIMONIAL_KEYS
        .iter()
        .find_map(|k| props.pointer(k).and_then(Value::as_array))
    else {
        return Err(FetchError::Upstream(format!(
            "Shapo wall page: {wall_url} carries no testimonials array under props.pageProps \
             (tried {}), so its layout changed; the plugin needs an update to read it",
            TESTIMONIAL_KEYS.join(", ")
        )));
    };
    let reviews = items
        .iter()
        .map(|item| review(item, wall_url).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let name = NAME_KEYS
        .iter()
        .find_map(|k| props.pointer(k).and_then(string))
        .or(page_title);
    Ok(Page {
        ahead: Vec::new(),
        next_cursor: None,
        order: Order::Unordered,
        meta: common::meta(
            wall_url.to_owned(),
            name,
            None,
            Some(items.len() as u64),
            json!({"product": "shapo", "wall_id": id, "wall_url": wall_url}),
        ),
        reviews,
    })
}

/// Maps one testimonial object of the wall.
pub fn review(t: &Value, wall_url: &str) -> Result<Review, String> {
    let id = string(&t["_id"]).ok_or("Shapo wall page: a testimonial has no _id")?;
    let video = &t["video"];
    let playback = string(&video["playbackId"]);
    let transcript = common::transcript(t);
    let message = string(&t["message"]);
    let from_transcript = message.is_none() && transcript.is_some();
    let mut builder = ReviewBuilder::new(id)
        .rating(common::stars(&t["rating"]), 5.0)
        .date(common::iso_date(&t["date"]))
        .author_name(string(&t["name"]))
        .author_title(common::author_title(
            string(&t["title"]),
            string(&t["company"]),
        ))
        .author_image(common::http_url(string(&t["profileImage"])))
        .author_url(common::http_url(string(&t["link"])))
        .review_url(Some(wall_url.to_owned()))
        .extra(json!({
            "source": string(&t["source"]),
            "title": string(&t["title"]),
            "company": string(&t["company"]),
            "video_thumbnail_url": playback.as_deref().map(common::mux_thumbnail),
            "video_status": string(&video["status"]),
            "text_is_transcript": from_transcript,
            "transcript": if from_transcript { None } else { transcript.clone() },
        }));
    builder = match message {
        Some(html) => builder.text_html(Some(html)),
        None => builder.text_plain(transcript),
    };
    for image in t["images"].as_array().into_iter().flatten() {
        if let Some(url) = common::http_url(string(image)) {
            builder = builder.media(review::image(url));
        }
    }
    if let Some(p) = playback {
        builder = builder.media(review::video(Some(p.clone()), common::mux_stream(&p)));
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::Text;

    const WALL: &str = "https://shapo.io/wall-of-love/c5cf604cf7";

    #[test]
    fn a_transcript_fills_an_empty_message() {
        let t = json!({"_id": "v1", "message": "", "video": {"playbackId": "p", "transcript": "Great course"}});
        let r = review(&t, WALL).unwrap();
        assert!(matches!(r.text, Some(Text::Plain(ref s)) if s == "Great course"));
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["text_is_transcript"], true);
        assert!(extra["transcript"].is_null());
        let t = json!({"_id": "v2", "message": "Hi<br />there", "transcript": "Said hi",
                       "link": "https://www.linkedin.com/in/someone", "profileImage": "/relative.png"});
        let r = review(&t, WALL).unwrap();
        assert!(matches!(r.text, Some(Text::Html(ref h)) if h == "Hi<br />there"));
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://www.linkedin.com/in/someone")
        );
        assert_eq!(r.author_profile_image_url, None);
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["transcript"], "Said hi");
    }

    #[test]
    fn finds_the_array_under_other_keys_and_refuses_none() {
        let items = json!([{"_id": "a"}]);
        for key in ["wall", "data", "initialData"] {
            let props = json!({ key: {"testimonials": items.clone()} });
            let page = parse_wall(&props, WALL, "x", None).unwrap();
            assert_eq!(page.reviews.len(), 1, "{key}");
        }
        let empty = parse_wall(&json!({"testimonials": []}), WALL, "x", None).unwrap();
        assert!(empty.reviews.is_empty());
        let e = parse_wall(&json!({"wall": {}}), WALL, "x", None).unwrap_err();
        assert!(matches!(e, FetchError::Upstream(ref m) if m.contains("layout changed")));
        let e = parse_wall(&json!({"testimonials": [{"name": "x"}]}), WALL, "x", None);
        assert!(e.is_err());
    }
}
