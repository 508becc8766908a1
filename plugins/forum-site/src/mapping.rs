//! Mapping from Reddit API JSON responses to the spec's forum "post record".
//!
//! Flow: [`parse_target`] the user's URL, read [`comments_path`], take the names for
//! the about calls from [`names_for_about`], read [`subreddit_about_path`] and
//! [`user_about_path`], then build the record with [`post_record`]. Every input key
//! is optional: a missing value maps to null (or `false` / `0` where stated); no value
//! is invented.

use gleaner_sdk::entities;
use serde_json::{json, Map, Value};

const BASE: &str = "https://www.reddit.com";

/// What a user-supplied URL points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A post, optionally a specific comment in it. Ids are base36 without the t3_/t1_ prefix.
    Post {
        subreddit: Option<String>,
        post_id: String,
        comment_id: Option<String>,
    },
    /// A share link (`/r/{sr}/s/{code}`) that must be resolved by following its redirect;
    /// holds the normalised `https://www.reddit.com` URL to request.
    Share { url: String },
}

const ACCEPTED: &str = "expected a Reddit post or comment link: \
https://www.reddit.com/r/{subreddit}/comments/{post_id}/{slug}/ (optionally followed by \
{comment_id}/), https://www.reddit.com/comments/{post_id}/, https://redd.it/{post_id} or a \
share link https://www.reddit.com/r/{subreddit}/s/{code} (old., np., new. and m. hosts too)";

/// Parses a Reddit URL.
///
/// Accepts post permalinks `/r/{sr}/comments/{post}/{slug}/` on `reddit.com` with a
/// `www.`, `old.`, `np.`, `new.`, `m.` or no host prefix (slug, trailing slash, query
/// string and fragment optional); comment permalinks
/// `/r/{sr}/comments/{post}/{slug}/{comment}/` (also `/comments/{post}/_/{comment}`);
/// `/comments/{post}` without subreddit; posts on a user profile
/// (`/user/{name}/comments/{post}/…`); `https://redd.it/{post}`; and share links
/// `/r/{sr}/s/{code}`. The scheme (http or https) is optional; ids are lower-cased.
/// Anything else is an `Err` whose message lists the accepted forms.
pub fn parse_target(query: &str) -> Result<Target, String> {
    let reject = |why: &str| Err(format!("{why}; {ACCEPTED}"));
    let q = query.trim();
    let lower = q.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &q[8..]
    } else if lower.starts_with("http://") {
        &q[7..]
    } else if q.contains("://") {
        return reject("unsupported URL scheme");
    } else {
        q
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();

    if host == "redd.it" || host == "www.redd.it" {
        return match segs[..] {
            [post] if is_id(post) => Ok(post_target(None, post, None)),
            _ => reject("not a redd.it post link"),
        };
    }
    let prefix = host.strip_suffix("reddit.com");
    if q.is_empty() {
        return reject("empty query");
    } else if !matches!(prefix, Some("" | "www." | "old." | "np." | "new." | "m.")) {
        return reject("not a Reddit URL");
    }
    let (subreddit, tail) = match segs[..] {
        ["r", sr, "s", code] if is_name(sr) && is_id(code) => {
            let url = format!("{BASE}/r/{sr}/s/{code}");
            return Ok(Target::Share { url });
        }
        ["r", sr, "comments", ref tail @ ..] if is_name(sr) => (Some(sr.to_string()), tail),
        ["user" | "u", name, "comments", ref tail @ ..] if is_name(name) => (None, tail),
        ["comments", ref tail @ ..] => (None, tail),
        _ => return reject("not a post, comment or share link"),
    };
    match *tail {
        [post] | [post, _] if is_id(post) => Ok(post_target(subreddit, post, None)),
        [post, _, c] if is_id(post) && is_id(c) => Ok(post_target(subreddit, post, Some(c))),
        _ => reject("malformed post or comment id"),
    }
}

fn post_target(subreddit: Option<String>, post: &str, comment: Option<&str>) -> Target {
    Target::Post {
        subreddit,
        post_id: post.to_ascii_lowercase(),
        comment_id: comment.map(str::to_ascii_lowercase),
    }
}

/// Base36 ids (and share codes): ASCII alphanumerics.
fn is_id(s: &str) -> bool {
    (1..=32).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn is_name(s: &str) -> bool {
    let ok = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    (1..=32).contains(&s.len()) && s.bytes().all(ok)
}

/// API path for the post (`comment_id` None) or for one comment with its ancestors.
///
/// For a post only the `t3` in the first Listing is needed, so the comment tree is cut
/// to `limit=1&depth=1`. For a comment the recipe's `context=100` is used (as in the
/// recorded sample); [`post_record`] finds the target comment by id at any depth.
pub fn comments_path(post_id: &str, comment_id: Option<&str>) -> String {
    match comment_id {
        None => format!("/comments/{post_id}/?limit=1&depth=1&raw_json=1"),
        Some(c) => format!("/comments/{post_id}/_/{c}/?context=100&raw_json=1"),
    }
}

/// API path of a community's about page: `/r/{sr}/about/?raw_json=1`.
pub fn subreddit_about_path(subreddit: &str) -> String {
    format!("/r/{subreddit}/about/?raw_json=1")
}

/// API path of a user's about page: `/user/{name}/about/?raw_json=1`.
pub fn user_about_path(user: &str) -> String {
    format!("/user/{user}/about/?raw_json=1")
}

/// Extracts (subreddit, author) names needed for the about calls from a comments
/// listing; author None when `[deleted]` or missing. With `comment_id` the author is the
/// comment's. Errors when the listing is not the expected shape.
pub fn names_for_about(
    listing: &Value,
    comment_id: Option<&str>,
) -> Result<(Option<String>, Option<String>), String> {
    let (post, item) = post_and_item(listing, comment_id)?;
    let subreddit = text(item, "subreddit").or_else(|| text(post, "subreddit"));
    Ok((subreddit, author(item)))
}

/// Builds the post record: a JSON object with exactly the spec's keys.
///
/// When `comment_id` is Some, the record describes that comment: text, html, date,
/// author, flair and stats come from the `t1`, `post_tile` from the parent `t3`, and
/// `url` is the comment permalink. `subreddit_about` / `user_about` are the `t5` / `t2`
/// about responses; when absent, `community_data` / `author_data` are null.
///
/// Decisions where the source is not established:
/// - `author_name` is null when Reddit reports `[deleted]`.
/// - `author_profile_image_url_org`: Reddit's icon URLs carry resizing/signing query
///   params, so the "original" image is taken to be the URL without its query string.
/// - `flair_text` is `link_flair_text` for posts and `author_flair_text` for comments;
///   `flair_text_link` (posts only) is the community search for that flair:
///   `https://www.reddit.com/r/{sr}/search?q=flair_name%3A%22{flair}%22&restrict_sr=1`.
/// - For a comment, each `post_info` flag is the comment's when it has one, else the
///   post's; `comments_count` counts the replies in the response (loaded replies plus
///   the `count` of "more" stubs).
pub fn post_record(
    query: &str,
    listing: &Value,
    comment_id: Option<&str>,
    subreddit_about: Option<&Value>,
    user_about: Option<&Value>,
) -> Result<Value, String> {
    let (post, item) = post_and_item(listing, comment_id)?;
    let is_comment = comment_id.is_some();
    let sr_about = subreddit_about.map(|v| about_data(v, "t5")).transpose()?;
    let user = user_about.map(|v| about_data(v, "t2")).transpose()?;
    let either = |k: &str| text(item, k).or_else(|| text(post, k));

    let subreddit = either("subreddit");
    let (text_key, html_key, flair_key) = if is_comment {
        ("body", "body_html", "author_flair_text")
    } else {
        ("selftext", "selftext_html", "link_flair_text")
    };
    let flair = text(item, flair_key);
    let flair_link = match (&flair, &subreddit) {
        (Some(f), Some(sr)) if !is_comment => Some(format!(
            "{BASE}/r/{sr}/search?q=flair_name%3A%22{}%22&restrict_sr=1",
            gleaner_sdk::http::encode_component(f)
        )),
        _ => None,
    };

    let flags = "archived is_crosspostable locked no_follow over_18 pinned spoiler";
    let post_info: Map<String, Value> = flags
        .split(' ')
        .map(|k| {
            let flag = item.get(k).and_then(Value::as_bool);
            let flag = flag.or_else(|| post.get(k).and_then(Value::as_bool));
            (k.to_string(), Value::Bool(flag.unwrap_or(false)))
        })
        .collect();
    let comments_count = match item.get("replies") {
        Some(replies) if is_comment => json!(count_replies(replies)),
        _ if is_comment => json!(0),
        _ => stat(post, "num_comments"),
    };

    let community_url = match (sr_about.and_then(|a| text(a, "url")), &subreddit) {
        (Some(path), _) => Some(format!("{BASE}{path}")),
        (None, Some(sr)) => Some(format!("{BASE}/r/{sr}/")),
        (None, None) => None,
    };
    let subscribers = num(post, "subreddit_subscribers");
    let subscribers = subscribers.or_else(|| sr_about.and_then(|a| num(a, "subscribers")));

    let icon = user
        .and_then(|u| text(u, "icon_img"))
        .map(|u| entities::decode(&u));
    let icon_org = icon.as_deref().and_then(|u| u.split('?').next());

    Ok(json!({
        "query": query,
        "author_name": author(item),
        "author_profile_image_url": icon,
        "author_profile_image_url_org": icon_org,
        "flair_text": flair,
        "flair_text_link": flair_link,
        "html_text": text(item, html_key),
        "post_date": date(item, "created_utc"),
        "post_info": post_info,
        "post_stats": {
            "award_count": stat(item, "total_awards_received"),
            "comments_count": comments_count,
            "down_votes": stat(item, "downs"),
            "up_votes": stat(item, "ups"),
        },
        "post_text": text(item, text_key),
        "post_tile": text(post, "title"),
        "review_media": media(item),
        "community": subreddit,
        "community_data": sr_about.map(community_data),
        "community_info": {
            "created_date": sr_about.and_then(|a| date(a, "created_utc")),
            "crossposts": num(post, "num_crossposts"),
            "subscribers": subscribers,
        },
        "community_name": either("subreddit_name_prefixed"),
        "community_url": community_url,
        "url": text(item, "permalink").map(|p| format!("{BASE}{p}")),
        "author_data": user.map(author_data),
    }))
}

// ---------- response navigation ----------

/// Follows a path of object keys.
fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

/// `data.children` of a Listing.
fn children(listing: &Value) -> Option<&Vec<Value>> {
    at(listing, &["data", "children"])?.as_array()
}

fn kind(thing: &Value) -> Option<&str> {
    str_of(thing, "kind")
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

/// The `t3` data of a `/comments/…` response (`[0].data.children[0]`) and the data of
/// the item the record describes: the post itself, or the `t1` with `comment_id`
/// anywhere in the comment tree (`[1]`).
fn post_and_item<'a>(
    listing: &'a Value,
    comment_id: Option<&str>,
) -> Result<(&'a Value, &'a Value), String> {
    let bad = |what: &str| format!("unexpected Reddit response: {what}");
    let listings = listing.as_array().ok_or_else(|| bad("expected Listings"))?;
    let thing = listings.first().and_then(children).and_then(|c| c.first());
    let post = thing
        .filter(|t| kind(t) == Some("t3"))
        .and_then(|t| t.get("data"))
        .filter(|d| d.is_object())
        .ok_or_else(|| bad("the first Listing does not hold a t3 post"))?;
    let Some(id) = comment_id else {
        return Ok((post, post));
    };
    let tree = listings.get(1).and_then(children);
    let tree = tree.ok_or_else(|| bad("the comment Listing is missing"))?;
    let id = id.trim_start_matches("t1_");
    let comment = find_comment(tree, id).ok_or_else(|| format!("comment {id} not found"))?;
    Ok((post, comment))
}

fn find_comment<'a>(things: &'a [Value], id: &str) -> Option<&'a Value> {
    things.iter().find_map(|t| {
        let data = t.get("data").filter(|_| kind(t) == Some("t1"))?;
        if str_of(data, "id")?.eq_ignore_ascii_case(id) {
            return Some(data);
        }
        find_comment(children(data.get("replies")?)?, id)
    })
}

/// Replies below a comment: loaded `t1`s (recursively) plus the `count` of "more" stubs.
fn count_replies(replies: &Value) -> u64 {
    let things = children(replies).map(Vec::as_slice).unwrap_or_default();
    let count = |t: &Value| match kind(t) {
        Some("t1") => 1 + at(t, &["data", "replies"]).map_or(0, count_replies),
        Some("more") => at(t, &["data", "count"]).map_or(0, |n| n.as_u64().unwrap_or(0)),
        _ => 0,
    };
    things.iter().map(count).sum()
}

/// The `data` of an about response (`{kind, data}`), checking `kind` when present.
fn about_data<'a>(about: &'a Value, want: &str) -> Result<&'a Value, String> {
    let data = about.get("data").filter(|d| d.is_object());
    match (kind(about), data) {
        (Some(k), _) if k != want => Err(format!("about response of kind {k}, not {want}")),
        (_, Some(data)) => Ok(data),
        _ => Err(format!(
            "about response is not {{kind: {want}, data: {{…}}}}"
        )),
    }
}

// ---------- field helpers ----------

/// A non-empty string field.
fn text(v: &Value, key: &str) -> Option<String> {
    let s = str_of(v, key)?;
    (!s.is_empty()).then(|| s.to_string())
}

fn author(v: &Value) -> Option<String> {
    text(v, "author").filter(|a| a != "[deleted]")
}

/// A numeric field.
fn num<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|n| n.is_number())
}

/// A numeric field, or 0.
fn stat(v: &Value, key: &str) -> Value {
    num(v, key).cloned().unwrap_or(json!(0))
}

fn boolean(v: &Value, key: &str) -> Option<bool> {
    v.get(key)?.as_bool()
}

/// A non-empty URL field, its HTML escaping (`&amp;`) decoded: Reddit escapes
/// media URLs when a request lacks `raw_json=1`.
fn image(v: &Value, key: &str) -> Option<String> {
    text(v, key).map(|u| entities::decode(&u))
}

/// An epoch-seconds field as ISO 8601 UTC.
fn date(v: &Value, key: &str) -> Option<String> {
    let secs = v.get(key)?.as_f64().filter(|f| f.is_finite())?;
    gleaner_sdk::date::iso_from_epoch_secs(secs)
}

// ---------- sub-objects ----------

fn community_data(a: &Value) -> Value {
    let active = num(a, "active_user_count").or_else(|| num(a, "accounts_active"));
    json!({
        "active_user_count": active,
        "banner_img": image(a, "banner_img"),
        "community_icon": image(a, "community_icon"),
        "created_date": date(a, "created_utc"),
        "display_name_prefixed": text(a, "display_name_prefixed"),
        "header_img": image(a, "header_img"),
        "icon_img": image(a, "icon_img"),
        "id": text(a, "id"),
        "name": text(a, "name"),
        "primary_color": text(a, "primary_color"),
        "public_description": text(a, "public_description"),
        "title": text(a, "title"),
        "over_18": boolean(a, "over18"),
        "subscribers": num(a, "subscribers"),
    })
}

fn author_data(u: &Value) -> Value {
    let profile = u.get("subreddit").unwrap_or(&Value::Null);
    json!({
        "comment_karma": num(u, "comment_karma"),
        "link_karma": num(u, "link_karma"),
        "total_karma": num(u, "total_karma"),
        "profile_subscribers": num(profile, "subscribers"),
        "created_date": date(u, "created_utc"),
        "display_name_prefixed": text(profile, "display_name_prefixed"),
        "icon_img": image(u, "icon_img"),
        "id": text(u, "id"),
        "name": text(u, "name"),
        "profile_public_description": text(profile, "public_description"),
        "profile_title": text(profile, "title"),
        "avatar_img": image(u, "snoovatar_img"),
        "is_employee": boolean(u, "is_employee"),
        "is_gold": boolean(u, "is_gold"),
        "is_mod": boolean(u, "is_mod"),
        "verified": boolean(u, "verified"),
    })
}

/// One media item; `size` holds the object with the dimensions and their two keys.
fn media_item(kind: &str, url: &str, id: Option<&str>, size: (&Value, &str, &str)) -> Value {
    let (dims, w, h) = size;
    json!({
        "height": num(dims, h),
        "id": id,
        "review_media_type": kind,
        "review_media_url": entities::decode(url),
        "width": num(dims, w),
    })
}

/// Media of a post or comment: gallery / inline images (`media_metadata`, in
/// `gallery_data` order when present), preview images, Reddit-hosted video, and the
/// link itself for image posts without a preview. Falls back to the crossposted parent
/// when the item has none. Deduplicated by URL.
fn media(item: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(meta) = item.get("media_metadata").and_then(Value::as_object) {
        let items = at(item, &["gallery_data", "items"]).and_then(Value::as_array);
        let order: Vec<&str> = match items {
            Some(items) => items.iter().filter_map(|i| str_of(i, "media_id")).collect(),
            None => meta.keys().map(String::as_str).collect(),
        };
        for id in order {
            let Some(m) = meta.get(id) else { continue };
            if str_of(m, "status").is_some_and(|s| s != "valid") {
                continue;
            }
            // Images and GIFs carry `s{u|gif|mp4,x,y}`; "RedditVideo" entries `hlsUrl,x,y`.
            let src = m.get("s").unwrap_or(m);
            let url = |k: &str| str_of(src, k);
            let (kind, u) = match (url("u").or(url("gif")), url("mp4").or(url("hlsUrl"))) {
                (Some(u), _) => ("image", u),
                (None, Some(u)) => ("video", u),
                (None, None) => continue,
            };
            out.push(media_item(kind, u, Some(id), (src, "x", "y")));
        }
    }
    let images = at(item, &["preview", "images"]).and_then(Value::as_array);
    for img in images.into_iter().flatten() {
        let src = img.get("source").unwrap_or(&Value::Null);
        if let Some(u) = str_of(src, "url") {
            let id = str_of(img, "id");
            out.push(media_item("image", u, id, (src, "width", "height")));
        }
    }
    for key in ["media", "secure_media"] {
        let video = at(item, &[key, "reddit_video"]).unwrap_or(&Value::Null);
        if let Some(u) = str_of(video, "fallback_url") {
            out.push(media_item("video", u, None, (video, "width", "height")));
        }
    }
    if images.is_none() && str_of(item, "post_hint") == Some("image") {
        if let Some(u) = text(item, "url_overridden_by_dest").or_else(|| text(item, "url")) {
            out.push(media_item("image", &u, None, (&Value::Null, "", "")));
        }
    }
    let parent = item.get("crosspost_parent_list").and_then(|l| l.get(0));
    if let (true, Some(parent)) = (out.is_empty(), parent) {
        return media(parent);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|m| seen.insert(m["review_media_url"].to_string()));
    out
}

#[cfg(test)]
mod tests;
