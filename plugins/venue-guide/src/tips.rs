//! Foursquare tips as reviews. Tips carry no rating.
//!
//! API v2 tips (2012 and later shapes): `id`, `createdAt` (epoch seconds),
//! `text`, `canonicalUrl`, `lang`, `agreeCount` / `likes.count`,
//! `disagreeCount`, `todo.count`, `done.count` (2012), `editedAt`,
//! `authorInteractionType`, `photo{id,prefix,suffix,width,height}` or
//! `photourl`, and `user{id,firstName,lastName,photo,homeCity,type}` whose
//! `photo` is a URL string (2012) or `{prefix, suffix}` (2014 and later).
//!
//! Places API v3 tips: `id`, `created_at` (ISO 8601), `text`; `lang`,
//! `agree_count`, `disagree_count` and `photo` are mapped when present. v3
//! tips name no author.

use gleaner_sdk::date::iso_from_epoch_secs;
use gleaner_sdk::json::string;
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::{Media, Review};
use serde_json::{json, Value};

/// The avatar size asked for from `prefix` + size + `suffix` photos.
const AVATAR_SIZE: &str = "100x100";
/// The photo size that asks for the original.
const ORIGINAL_SIZE: &str = "original";

fn epoch_iso(v: &Value) -> Option<String> {
    v.as_f64().and_then(iso_from_epoch_secs)
}

/// `prefix` + `size` + `suffix` of a Foursquare photo object.
fn sized(photo: &Value, size: &str) -> Option<String> {
    Some(format!(
        "{}{size}{}",
        string(&photo["prefix"])?,
        string(&photo["suffix"])?
    ))
}

/// The author's avatar: a plain URL (2012) or `prefix` + 100x100 + `suffix`.
pub fn avatar(photo: &Value) -> Option<String> {
    string(photo).or_else(|| sized(photo, AVATAR_SIZE))
}

/// The tip's photo at its original size, or its `photourl`.
pub fn media(photo: &Value, photourl: &Value) -> Option<Media> {
    let dimension = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    match sized(photo, ORIGINAL_SIZE) {
        Some(url) => Some(Media {
            id: string(&photo["id"]),
            media_type: "image".into(),
            url,
            width: dimension(&photo["width"]),
            height: dimension(&photo["height"]),
        }),
        None => string(photourl).map(|url| Media {
            id: None,
            media_type: "image".into(),
            url,
            width: None,
            height: None,
        }),
    }
}

/// Whether the author recommends the venue, from `authorInteractionType`:
/// `liked` or `disliked`; `meh` and anything else say neither.
fn recommends(interaction: &Value) -> Option<bool> {
    match interaction.as_str()? {
        "liked" => Some(true),
        "disliked" => Some(false),
        _ => None,
    }
}

fn with_media(builder: ReviewBuilder, media: Option<Media>) -> ReviewBuilder {
    match media {
        Some(m) => builder.media(m),
        None => builder,
    }
}

/// Maps one API v2 tip.
pub fn v2_tip(t: &Value) -> Result<Review, String> {
    let id = string(&t["id"]).ok_or("a tip has no id")?;
    let user = &t["user"];
    let name = [string(&user["firstName"]), string(&user["lastName"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let likes = t["likes"]["count"].as_i64();
    let builder = ReviewBuilder::new(id)
        .text_plain(string(&t["text"]))
        .date(epoch_iso(&t["createdAt"]))
        .updated_date(epoch_iso(&t["editedAt"]))
        .author_name(Some(name))
        .author_image(avatar(&user["photo"]))
        .author_title(string(&user["homeCity"]))
        .review_url(string(&t["canonicalUrl"]))
        .helpful_votes(t["agreeCount"].as_i64().or(likes))
        .language(string(&t["lang"]))
        .recommends(recommends(&t["authorInteractionType"]))
        .extra(json!({
            "agree_count": t["agreeCount"],
            "disagree_count": t["disagreeCount"],
            "likes_count": likes,
            "todo_count": t["todo"]["count"],
            "done_count": t["done"]["count"],
            "author_interaction_type": t["authorInteractionType"],
            "tip_type": t["type"],
            "link": string(&t["url"]),
            "user_id": t["user"]["id"],
            "user_type": t["user"]["type"],
        }));
    with_media(builder, media(&t["photo"], &t["photourl"])).build()
}

/// Maps one Places API v3 tip.
pub fn v3_tip(t: &Value) -> Result<Review, String> {
    let id = string(&t["id"]).ok_or("a tip has no id")?;
    let builder = ReviewBuilder::new(id)
        .text_plain(string(&t["text"]))
        .date(string(&t["created_at"]))
        .helpful_votes(t["agree_count"].as_i64())
        .language(string(&t["lang"]))
        .extra(json!({
            "agree_count": t["agree_count"],
            "disagree_count": t["disagree_count"],
        }));
    with_media(builder, media(&t["photo"], &Value::Null)).build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::types::Text;

    const LIST_2012: &str = include_str!("../tests/samples/foursquare_v2_venue_tips_2012.json");
    const TIP_2012: &str = include_str!("../tests/samples/foursquare_v2_tip_detail_2012.json");

    fn extra(r: &Review) -> Value {
        serde_json::from_str(&r.extra_json).unwrap()
    }

    #[test]
    fn maps_real_2012_list_tips() {
        let body: Value = serde_json::from_str(LIST_2012).unwrap();
        let items = body["response"]["tips"]["items"].as_array().unwrap();
        let first = v2_tip(&items[0]).unwrap();
        assert_eq!(first.id, "4c94a45c82b56dcb47cad0aa");
        assert_eq!(first.date.as_deref(), Some("2010-09-18T11:37:00Z"));
        assert_eq!(first.author_name.as_deref(), Some("Felipe A."));
        assert_eq!(
            first.author_profile_image_url.as_deref(),
            Some("https://playfoursquare.s3.amazonaws.com/userpix_thumbs/DRECUTB3C3NXBYFT.jpg")
        );
        assert_eq!(first.author_title.as_deref(), Some("São Paulo, Brasil"));
        assert!(
            matches!(&first.text, Some(Text::Plain(t)) if t.starts_with("A arena é muito legal"))
        );
        assert_eq!(first.rating, None);
        assert_eq!(first.review_url, None);
        assert_eq!(first.helpful_votes, None);
        assert!(first.media.is_empty());
        let x = extra(&first);
        assert_eq!(x["done_count"], 1);
        assert_eq!(x["todo_count"], 0);
        assert_eq!(x["link"], Value::Null);
        for item in items {
            v2_tip(item).unwrap();
        }
    }

    #[test]
    fn maps_the_real_2012_tip_detail() {
        let body: Value = serde_json::from_str(TIP_2012).unwrap();
        let tip = v2_tip(&body["response"]["tip"]).unwrap();
        assert_eq!(tip.id, "4b5e662a70c603bba7d790b4");
        assert_eq!(tip.date.as_deref(), Some("2010-01-26T03:48:58Z"));
        assert_eq!(tip.author_name.as_deref(), Some("Andrew P."));
        assert_eq!(extra(&tip)["done_count"], 6);
    }

    #[test]
    fn maps_the_modern_v2_shape() {
        let t = json!({
            "id": "52deec3311d2b85aa18f3ec6", "createdAt": 1390341171, "text": "Get here early.\nThen hike.",
            "type": "user", "canonicalUrl": "https://foursquare.com/item/52deec3311d2b85aa18f3ec6",
            "photo": {"id": "p1", "createdAt": 1390341171, "prefix": "https://igx.4sqi.net/img/general/",
                      "suffix": "/x.jpg", "width": 1440, "height": 1920},
            "photourl": "https://igx.4sqi.net/img/general/original/x.jpg",
            "likes": {"count": 3, "groups": [], "summary": "3 likes"}, "lang": "en",
            "agreeCount": 2, "disagreeCount": 1, "todo": {"count": 4}, "editedAt": 1390341200,
            "authorInteractionType": "liked",
            "user": {"id": "579421", "firstName": "Jeffrey", "lastName": "G",
                     "photo": {"prefix": "https://igx.4sqi.net/img/user/", "suffix": "/GLM.jpg"}}
        });
        let r = v2_tip(&t).unwrap();
        assert_eq!(r.author_name.as_deref(), Some("Jeffrey G"));
        assert_eq!(
            r.author_profile_image_url.as_deref(),
            Some("https://igx.4sqi.net/img/user/100x100/GLM.jpg")
        );
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://foursquare.com/item/52deec3311d2b85aa18f3ec6")
        );
        assert_eq!(r.helpful_votes, Some(2));
        assert_eq!(r.language.as_deref(), Some("en"));
        assert_eq!(r.media.len(), 1);
        assert_eq!(
            r.media[0].url,
            "https://igx.4sqi.net/img/general/original/x.jpg"
        );
        assert_eq!(
            (r.media[0].width, r.media[0].height),
            (Some(1440), Some(1920))
        );
        assert_eq!(r.media[0].id.as_deref(), Some("p1"));
        let x = extra(&r);
        assert_eq!(x["disagree_count"], 1);
        assert_eq!(x["likes_count"], 3);
        assert_eq!(r.updated_date.as_deref(), Some("2014-01-21T21:53:20Z"));
        assert_eq!(x.get("edited_at"), None);
        assert_eq!(r.recommends, Some(true));
        assert_eq!(x["author_interaction_type"], "liked");
        let only_likes = v2_tip(&json!({"id": "a", "likes": {"count": 7}})).unwrap();
        assert_eq!(only_likes.helpful_votes, Some(7));
        assert_eq!(only_likes.author_name, None);
        assert_eq!(
            (only_likes.recommends, only_likes.updated_date),
            (None, None)
        );
        let meh = v2_tip(&json!({"id": "m", "authorInteractionType": "meh"})).unwrap();
        assert_eq!(meh.recommends, None);
        let disliked = v2_tip(&json!({"id": "d", "authorInteractionType": "disliked"})).unwrap();
        assert_eq!(disliked.recommends, Some(false));
        let photourl = v2_tip(&json!({"id": "b", "photourl": "https://x.example/p.jpg"})).unwrap();
        assert_eq!(photourl.media[0].url, "https://x.example/p.jpg");
    }

    #[test]
    fn maps_v3_tips() {
        let r = v3_tip(
            &json!({"id": "5a1", "created_at": "2019-05-04T18:22:05.000Z", "text": "Great"}),
        )
        .unwrap();
        assert_eq!(r.date.as_deref(), Some("2019-05-04T18:22:05.000Z"));
        assert_eq!(r.author_name, None);
        assert_eq!(r.helpful_votes, None);
        assert!(v3_tip(&json!({"text": "no id"})).is_err());
        assert!(v3_tip(&json!({"id": "x", "created_at": "yesterday"})).is_err());
    }
}
