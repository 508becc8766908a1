//! The forum post record, whose shape docs/SPEC.md fixes field for field.

use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::Media;
use crate::text::{self, SourceText};

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
