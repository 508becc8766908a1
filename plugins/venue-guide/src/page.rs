//! One page of tips from an API answer: the reviews, where the next page
//! starts (the plugin's cursor), the declared order and the venue's metadata.

use gleaner_sdk::{cursor, FetchError, Order, Page, SourceMeta};
use serde_json::{json, Value};

use crate::api::endpoint;
use crate::tips;

/// Where the next page starts, and what the first page resolved.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cursor {
    /// `"v2"` or `"v3"`: the API the fetch started on.
    pub api: String,
    /// The v2 version date the fetch started with.
    #[serde(default)]
    pub version_date: Option<String>,
    /// The venue id.
    pub venue: String,
    /// The venue name, when the first page learned it.
    #[serde(default)]
    pub name: Option<String>,
    /// Offset of the next page.
    pub offset: u32,
    /// v3: the first tip id of the previous page (to notice an ignored offset).
    #[serde(default)]
    pub first: Option<String>,
}

/// The venue a fetch reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Venue {
    /// 24-hex venue id (also the v3 `fsq_id`).
    pub id: String,
    /// Its name, when an answer carried it.
    pub name: Option<String>,
}

/// What one page asked for.
#[derive(Debug, Clone)]
pub struct Asked<'a> {
    /// The venue.
    pub venue: &'a Venue,
    /// `recent` or `popular`.
    pub sort: &'a str,
    /// Tips asked for (`limit`).
    pub limit: u32,
    /// Tips skipped (`offset`).
    pub offset: u32,
}

/// `recent` is newest first on both APIs; `popular` is the API's own ranking.
pub fn order(sort: &str) -> Order {
    if sort == "recent" {
        Order::NewestFirst
    } else {
        Order::Unordered
    }
}

/// What a first page without tips says: the API's empty list is how it
/// states that nobody has left a tip on the venue.
pub const NO_TIPS: &str = "Foursquare lists no tips for this venue";

fn meta(venue: &Venue, total: Option<u64>, extra: Value) -> SourceMeta {
    SourceMeta {
        resolved_url: Some(endpoint::VENUE_PAGE.replace("{id}", &venue.id)),
        name: venue.name.clone(),
        average_rating: None,
        total_reviews: total,
        extra_json: extra.to_string(),
    }
}

/// A page of API v2 `venues/{id}/tips` (`body` already checked): the total is
/// `response.tips.count`; the next page starts after the tips received.
pub fn v2(body: &Value, asked: &Asked, version: &str) -> Result<Page, FetchError> {
    let venue = asked.venue;
    let list = &body["response"]["tips"];
    let items = list["items"].as_array().ok_or_else(|| {
        FetchError::Upstream(format!(
            "the API answer for venue {} has no response.tips.items list; the Foursquare API v2 format may have changed",
            venue.id
        ))
    })?;
    let reviews = items
        .iter()
        .map(|t| tips::v2_tip(t).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    let count = list["count"].as_u64();
    let next = asked.offset.saturating_add(items.len() as u32);
    let more = !items.is_empty()
        && match count {
            Some(total) => u64::from(next) < total,
            None => items.len() as u32 >= asked.limit,
        };
    let at = |offset: u32| Cursor {
        api: "v2".into(),
        version_date: Some(version.to_owned()),
        venue: venue.id.clone(),
        name: venue.name.clone(),
        offset,
        first: None,
    };
    let next_cursor = more.then(|| cursor::encode(&at(next)));
    // Offsets up to the count, one page of this page's size apart: list them
    // all, so the host can fetch several at once.
    let ahead = match count {
        Some(total) if more => {
            let end = u32::try_from(total).unwrap_or(u32::MAX);
            cursor::ahead((next..end).step_by(items.len()).map(at))
        }
        _ => Vec::new(),
    };
    let mut extra = json!({
        "api": "v2", "venue_id": venue.id, "sort": asked.sort, "version_date": version,
    });
    let offset = asked.offset;
    if offset == 0 && items.is_empty() {
        extra["notice"] = json!(NO_TIPS);
    }
    if let Some(total) = count.filter(|&t| items.is_empty() && offset > 0 && u64::from(offset) < t)
    {
        extra["source_limit"] = json!(format!(
            "the API served no tips beyond the first {offset}, though it counts {total}"
        ));
    }
    Ok(Page {
        ahead,
        reviews,
        next_cursor,
        order: order(asked.sort),
        meta: meta(venue, count, extra),
    })
}

/// A page of Places API v3 `places/{id}/tips` (`body` already checked). v3
/// gives no total: a full page means there may be more. A page that starts
/// with the previous page's first tip means the API ignored the offset. With
/// no total, and the previous page's first tip in each cursor, the pages form
/// a cursor chain: `ahead` stays empty.
pub fn v3(body: &Value, asked: &Asked, previous_first: Option<&str>) -> Result<Page, FetchError> {
    let venue = asked.venue;
    let items = body.as_array().ok_or_else(|| {
        FetchError::Upstream(format!(
            "the Places API answer for place {} is not a list of tips; the Foursquare API v3 format may have changed",
            venue.id
        ))
    })?;
    let first = items.first().and_then(|t| t["id"].as_str());
    let mut extra = json!({"api": "v3", "venue_id": venue.id, "sort": asked.sort});
    if asked.offset > 0 && first.is_some() && first == previous_first {
        extra["source_limit"] = json!(format!(
            "the Places API ignored the offset and served its first {} tips again; only those are available",
            asked.limit
        ));
        return Ok(Page {
            ahead: Vec::new(),
            reviews: Vec::new(),
            next_cursor: None,
            order: order(asked.sort),
            meta: meta(venue, None, extra),
        });
    }
    let reviews = items
        .iter()
        .map(|t| tips::v3_tip(t).map_err(FetchError::Upstream))
        .collect::<Result<Vec<_>, _>>()?;
    if asked.offset == 0 && items.is_empty() {
        extra["notice"] = json!(NO_TIPS);
    }
    let more = items.len() as u32 >= asked.limit;
    let next_cursor = more.then(|| {
        cursor::encode(&Cursor {
            api: "v3".into(),
            version_date: None,
            venue: venue.id.clone(),
            name: venue.name.clone(),
            offset: asked.offset.saturating_add(items.len() as u32),
            first: first.map(str::to_owned),
        })
    });
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order: order(asked.sort),
        meta: meta(venue, None, extra),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST_2012: &str = include_str!("../tests/samples/foursquare_v2_venue_tips_2012.json");

    fn venue() -> Venue {
        Venue {
            id: "4b8c3d87f964a520f7c532e3".into(),
            name: None,
        }
    }

    fn asked(venue: &Venue, limit: u32, offset: u32) -> Asked<'_> {
        Asked {
            venue,
            sort: "recent",
            limit,
            offset,
        }
    }

    fn extra(page: &Page) -> Value {
        serde_json::from_str(&page.meta.extra_json).unwrap()
    }

    #[test]
    fn cursors_round_trip() {
        let c = Cursor {
            api: "v2".into(),
            version_date: Some("20180323".into()),
            venue: "4b8c3d87f964a520f7c532e3".into(),
            name: Some("2 Bros Pizza".into()),
            offset: 4,
            first: None,
        };
        assert_eq!(cursor::decode::<Cursor>(&cursor::encode(&c)).unwrap(), c);
        let bare: Cursor = serde_json::from_str(r#"{"api":"v3","venue":"x","offset":50}"#).unwrap();
        assert_eq!(bare.first, None);
    }

    #[test]
    fn recent_is_newest_first() {
        assert_eq!(order("recent"), Order::NewestFirst);
        assert_eq!(order("popular"), Order::Unordered);
    }

    #[test]
    fn v2_pages_by_the_count() {
        let v = venue();
        let body: Value = serde_json::from_str(LIST_2012).unwrap();
        let page = v2(&body, &asked(&v, 500, 0), "20180323").unwrap();
        assert_eq!(page.reviews.len(), 4);
        assert_eq!(page.next_cursor, None);
        assert_eq!(page.meta.total_reviews, Some(4));
        assert_eq!(
            page.meta.resolved_url.as_deref(),
            Some("https://foursquare.com/v/4b8c3d87f964a520f7c532e3")
        );
        let first_half = v2(&body, &asked(&v, 4, 0), "20180323");
        assert!(first_half.unwrap().next_cursor.is_none());
        let mut more = body.clone();
        more["response"]["tips"]["count"] = json!(10);
        let page = v2(&more, &asked(&v, 4, 2), "20180323").unwrap();
        let next: Cursor = cursor::decode(page.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!((next.api.as_str(), next.offset), ("v2", 6));
        assert_eq!(next.version_date.as_deref(), Some("20180323"));
    }

    #[test]
    fn v2_without_a_count_pages_while_pages_are_full() {
        let v = venue();
        let body: Value = serde_json::from_str(LIST_2012).unwrap();
        let mut uncounted = body.clone();
        uncounted["response"]["tips"]["count"] = Value::Null;
        assert!(v2(&uncounted, &asked(&v, 4, 0), "20180323")
            .unwrap()
            .next_cursor
            .is_some());
        assert!(v2(&uncounted, &asked(&v, 5, 0), "20180323")
            .unwrap()
            .next_cursor
            .is_none());
    }

    #[test]
    fn v2_notices_an_api_that_stops_early() {
        let v = venue();
        let empty =
            json!({"meta": {"code": 200}, "response": {"tips": {"count": 900, "items": []}}});
        let page = v2(&empty, &asked(&v, 500, 500), "20180323").unwrap();
        assert!(page.next_cursor.is_none());
        assert!(extra(&page)["source_limit"]
            .as_str()
            .unwrap()
            .contains("beyond the first 500, though it counts 900"));
        let changed = json!({"meta": {"code": 200}, "response": {}});
        assert!(matches!(
            v2(&changed, &asked(&v, 4, 0), "20180323"),
            Err(FetchError::Upstream(_))
        ));
    }

    #[test]
    fn v3_pages_while_pages_are_full_and_notices_an_ignored_offset() {
        let v = venue();
        let full = json!([
            {"id": "a", "created_at": "2019-01-02T00:00:00.000Z", "text": "x"},
            {"id": "b", "created_at": "2019-01-01T00:00:00.000Z", "text": "y"}
        ]);
        let page = v3(&full, &asked(&v, 2, 0), None).unwrap();
        let next: Cursor = cursor::decode(page.next_cursor.as_deref().unwrap()).unwrap();
        assert_eq!((next.offset, next.first.as_deref()), (2, Some("a")));
        assert_eq!(page.meta.total_reviews, None);
        let again = v3(&full, &asked(&v, 2, 2), Some("a")).unwrap();
        assert!(again.reviews.is_empty() && again.next_cursor.is_none());
        assert!(extra(&again)["source_limit"].is_string());
        let short = v3(&json!([]), &asked(&v, 2, 2), Some("a")).unwrap();
        assert!(short.next_cursor.is_none());
        assert_eq!(
            extra(&short).get("notice"),
            None,
            "a later page says nothing"
        );
        let none = v3(&json!([]), &asked(&v, 2, 0), None).unwrap();
        assert_eq!(extra(&none)["notice"], NO_TIPS);
        assert!(matches!(
            v3(&json!({"results": []}), &asked(&v, 2, 0), None),
            Err(FetchError::Upstream(_))
        ));
    }

    #[test]
    fn v2_ahead_lists_the_cursors_the_later_pages_give() {
        let v = Venue {
            id: "4a89cd2ff964a520100920e3".into(),
            name: Some("2 Bros Pizza".into()),
        };
        let read = |offset: u32| {
            let file = format!(
                "{}/tests/samples/2bros-recent-{}.json",
                env!("CARGO_MANIFEST_DIR"),
                offset / 4 + 1
            );
            let body: Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            v2(&body, &asked(&v, 4, offset), "20180323").unwrap()
        };
        let first = read(0);
        assert_eq!(first.ahead.len(), 1, "5 tips, 4 a page");
        assert_eq!(first.next_cursor.as_ref(), first.ahead.first());
        // Each page reached along the list gives the rest of it, byte for byte.
        for (k, c) in first.ahead.iter().enumerate() {
            let c: Cursor = cursor::decode(c).unwrap();
            assert_eq!((c.offset, c.name.as_deref()), (4, Some("2 Bros Pizza")));
            let later = read(c.offset);
            assert_eq!(later.next_cursor.as_ref(), first.ahead.get(k + 1));
            assert_eq!(later.ahead, first.ahead[k + 1..].to_vec());
        }
        // A longer listing: every offset up to the count.
        let mut body: Value = serde_json::from_str(LIST_2012).unwrap();
        body["response"]["tips"]["count"] = json!(11);
        let page = v2(&body, &asked(&v, 4, 0), "20180323").unwrap();
        let offsets: Vec<u32> = page
            .ahead
            .iter()
            .map(|c| cursor::decode::<Cursor>(c).unwrap().offset)
            .collect();
        assert_eq!(offsets, [4, 8]);
        // Without a count, the next page only.
        body["response"]["tips"]["count"] = Value::Null;
        let page = v2(&body, &asked(&v, 4, 0), "20180323").unwrap();
        assert!(page.next_cursor.is_some() && page.ahead.is_empty());
    }
}
