//! The records the API returns: the normalised review record, and the forum post
//! record whose shape docs/SPEC.md fixes field for field.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::bindings::types as wit;
use crate::text::{self, SourceText};

/// A media item, shaped like docs/SPEC.md's post media.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Media {
    /// Height in pixels.
    pub height: Option<Number>,
    /// Source id.
    pub id: Option<String>,
    /// `image` or `video`.
    pub review_media_type: String,
    /// URL.
    pub review_media_url: String,
    /// Width in pixels.
    pub width: Option<Number>,
}

/// The owner's reply to a review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    /// Reply text, formatted like the review text.
    pub text: String,
    /// ISO 8601.
    pub date: Option<String>,
    /// Who replied.
    pub author: Option<String>,
}

/// One review as every review-fetch endpoint returns it. Null where the source lacks a value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Review {
    /// Source id of the review.
    pub review_id: String,
    /// Title.
    pub review_title: Option<String>,
    /// Text, formatted per `is_text_formatted`.
    pub review_text: Option<String>,
    /// Rating on the source's scale.
    pub review_rating: Option<f64>,
    /// Top of that scale (e.g. 5).
    pub rating_scale_max: Option<f64>,
    /// ISO 8601 date or date-time.
    pub review_date: Option<String>,
    /// Author's display name.
    pub author_name: Option<String>,
    /// Author's avatar.
    pub author_profile_image_url: Option<String>,
    /// Author's profile page.
    pub author_url: Option<String>,
    /// Role, company or country.
    pub author_title: Option<String>,
    /// Permalink of the review.
    pub review_url: Option<String>,
    /// Attached media.
    pub review_media: Vec<Media>,
    /// Owner reply.
    pub review_reply: Option<Reply>,
    /// Helpful votes.
    pub helpful_votes: Option<i64>,
    /// Language code.
    pub language: Option<String>,
    /// The source label.
    pub source: String,
    /// Source-specific fields.
    pub extra: Value,
}

/// Turns WIT text into [`SourceText`].
pub fn source_text(t: &wit::Text) -> SourceText {
    match t {
        wit::Text::Plain(s) => SourceText::Plain(s.clone()),
        wit::Text::Html(s) => SourceText::Html(s.clone()),
    }
}

/// Parses a plugin's `extra-json` (empty means an empty object).
pub fn extra_object(json: &str) -> Value {
    if json.trim().is_empty() {
        return Value::Object(Default::default());
    }
    match serde_json::from_str::<Value>(json) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Default::default()),
    }
}

impl Review {
    /// Builds the record from a plugin's review after checking it against the
    /// review contract, trimming fields and formatting text once, here.
    pub fn from_wit(
        review: &wit::Review,
        source: &str,
        formatted: bool,
    ) -> Result<Review, crate::contract::ContractError> {
        crate::contract::check_review(review)?;
        let format = |t: &wit::Text| text::format(&source_text(t), formatted);
        let non_empty = |s: &Option<String>| {
            s.as_ref()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        Ok(Review {
            review_id: review.id.trim().to_owned(),
            review_title: non_empty(&review.title),
            review_text: review.text.as_ref().map(format).filter(|t| !t.is_empty()),
            review_rating: review.rating,
            rating_scale_max: review.rating_scale_max,
            review_date: review.date.as_ref().map(|d| d.trim().to_owned()),
            author_name: non_empty(&review.author_name),
            author_profile_image_url: non_empty(&review.author_profile_image_url),
            author_url: non_empty(&review.author_url),
            author_title: non_empty(&review.author_title),
            review_url: non_empty(&review.review_url),
            review_media: review
                .media
                .iter()
                .map(|m| Media {
                    height: m.height.map(Number::from),
                    id: m.id.clone(),
                    review_media_type: m.media_type.clone(),
                    review_media_url: m.url.trim().to_owned(),
                    width: m.width.map(Number::from),
                })
                .collect(),
            review_reply: review.reply.as_ref().map(|r| Reply {
                text: format(&r.text),
                date: r.date.as_ref().map(|d| d.trim().to_owned()),
                author: non_empty(&r.author),
            }),
            helpful_votes: review.helpful_votes,
            language: non_empty(&review.language),
            source: source.to_owned(),
            extra: extra_object(&review.extra_json),
        })
    }
}

/// post_info of a forum post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostInfo {
    pub archived: bool,
    pub is_crosspostable: bool,
    pub locked: bool,
    pub no_follow: bool,
    pub over_18: bool,
    pub pinned: bool,
    pub spoiler: bool,
}

/// post_stats of a forum post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostStats {
    pub award_count: Number,
    pub comments_count: Number,
    pub down_votes: Number,
    pub up_votes: Number,
}

/// community_data of a forum post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommunityData {
    pub active_user_count: Option<Number>,
    pub banner_img: Option<String>,
    pub community_icon: Option<String>,
    pub created_date: Option<String>,
    pub display_name_prefixed: Option<String>,
    pub header_img: Option<String>,
    pub icon_img: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    pub over_18: Option<bool>,
    pub primary_color: Option<String>,
    pub public_description: Option<String>,
    pub subscribers: Option<Number>,
    pub title: Option<String>,
}

/// community_info of a forum post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommunityInfo {
    pub created_date: Option<String>,
    pub crossposts: Option<Number>,
    pub subscribers: Option<Number>,
}

/// author_data of a forum post.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorData {
    pub avatar_img: Option<String>,
    pub comment_karma: Option<Number>,
    pub created_date: Option<String>,
    pub display_name_prefixed: Option<String>,
    pub icon_img: Option<String>,
    pub id: Option<String>,
    pub is_employee: Option<bool>,
    pub is_gold: Option<bool>,
    pub is_mod: Option<bool>,
    pub link_karma: Option<Number>,
    pub name: Option<String>,
    pub profile_public_description: Option<String>,
    pub profile_subscribers: Option<Number>,
    pub profile_title: Option<String>,
    pub total_karma: Option<Number>,
    pub verified: Option<bool>,
}

/// The forum post record of docs/SPEC.md, field for field (note the spelling `post_tile`).
/// Parsing a plugin's JSON into this type checks its shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostRecord {
    pub query: String,
    pub author_name: Option<String>,
    pub author_profile_image_url: Option<String>,
    pub author_profile_image_url_org: Option<String>,
    pub flair_text: Option<String>,
    pub flair_text_link: Option<String>,
    pub html_text: Option<String>,
    pub post_date: Option<String>,
    pub post_info: PostInfo,
    pub post_stats: PostStats,
    pub post_text: Option<String>,
    pub post_tile: Option<String>,
    pub review_media: Vec<Media>,
    pub community: Option<String>,
    pub community_data: Option<CommunityData>,
    pub community_info: CommunityInfo,
    pub community_name: Option<String>,
    pub community_url: Option<String>,
    pub url: Option<String>,
    pub author_data: Option<AuthorData>,
}

impl PostRecord {
    /// Parses and checks a plugin's post JSON, then formats `post_text`.
    pub fn from_plugin_json(json: &str, formatted: bool) -> Result<PostRecord, String> {
        let mut record: PostRecord = serde_json::from_str(json)
            .map_err(|e| format!("the plugin returned a post record of the wrong shape: {e}"))?;
        record.post_text = record
            .post_text
            .map(|t| text::format(&SourceText::Plain(t), formatted))
            .filter(|t| !t.is_empty());
        Ok(record)
    }
}
