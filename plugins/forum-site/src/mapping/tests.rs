use super::*;

/// Parses a recorded sample from `tests/samples/`.
macro_rules! fixture {
    ($file:literal) => {
        serde_json::from_str::<Value>(include_str!(concat!("../../tests/samples/", $file))).unwrap()
    };
}

fn post() -> Value {
    fixture!("post_with_comments_2022.json")
}

fn keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

fn target(sr: Option<&str>, post: &str, comment: Option<&str>) -> Result<Target, String> {
    Ok(post_target(sr.map(String::from), post, comment))
}

#[test]
fn parses_accepted_forms() {
    let post_in_sub = [
        "https://www.reddit.com/r/Sub_1/comments/jlbw48/test_self_post/",
        "https://www.reddit.com/r/Sub_1/comments/jlbw48/test_self_post",
        "https://www.reddit.com/r/Sub_1/comments/jlbw48",
        "https://old.reddit.com/r/Sub_1/comments/jlbw48/x/?utm_source=share",
        "https://np.reddit.com/r/Sub_1/comments/JLBW48/x/#comments",
        "https://new.reddit.com/r/Sub_1/comments/jlbw48/",
        "http://m.reddit.com/r/Sub_1/comments/jlbw48/x",
        "  www.reddit.com/r/Sub_1/comments/jlbw48/x/  ",
        "reddit.com/r/Sub_1/comments/jlbw48?x=1",
    ];
    let post_only = [
        "https://redd.it/jlbw48",
        "redd.it/jlbw48/",
        "https://www.reddit.com/comments/jlbw48/",
        "https://www.reddit.com/user/Some_One/comments/jlbw48/t/",
    ];
    let comment_in_sub = [
        "https://www.reddit.com/r/Sub_1/comments/jlbw48/x/gao5889/",
        "old.reddit.com/r/Sub_1/comments/jlbw48/x/gao5889?context=3",
        "reddit.com/r/Sub_1/comments/jlbw48/_/gao5889",
    ];
    let (sr, c) = (Some("Sub_1"), Some("gao5889"));
    for (queries, sr, c) in [
        (&post_in_sub[..], sr, None),
        (&post_only, None, None),
        (&comment_in_sub, sr, c),
    ] {
        for q in queries {
            assert_eq!(parse_target(q), target(sr, "jlbw48", c), "{q}");
        }
    }
    let q = "https://www.reddit.com/comments/jlbw48/_/gao5889";
    assert_eq!(parse_target(q), target(None, "jlbw48", c));
    let url = "https://www.reddit.com/r/rust/s/AbC123xYz".to_string();
    assert_eq!(parse_target(&url), Ok(Target::Share { url: url.clone() }));
    let q = "old.reddit.com/r/rust/s/AbC123xYz/?utm=1";
    assert_eq!(parse_target(q), Ok(Target::Share { url }));
}

#[test]
fn rejects_other_urls_with_help() {
    for q in [
        "",
        "   ",
        "https://www.reddit.com/r/rust/",
        "https://www.reddit.com/user/Some_One/",
        "https://www.reddit.com/",
        "https://example.com/r/rust/comments/jlbw48/x/",
        "https://notreddit.com/r/rust/comments/jlbw48/",
        "ftp://www.reddit.com/r/rust/comments/jlbw48/",
        "https://redd.it/jlbw48/extra",
        "https://www.reddit.com/r/rust/s/",
        "https://www.reddit.com/r/rust/comments/jl-bw48/",
        "https://www.reddit.com/r/rust/comments/jlbw48/slug/c1/extra/",
        "just some text",
    ] {
        let err = parse_target(q).unwrap_err();
        let helpful = err.contains("redd.it/{post_id}") && err.contains("/s/{code}");
        assert!(helpful, "{q}: {err}");
    }
}

#[test]
fn builds_paths() {
    let post_path = "/comments/jlbw48/?limit=1&depth=1&raw_json=1";
    assert_eq!(comments_path("jlbw48", None), post_path);
    let comment_path = "/comments/jlbw48/_/gao5889/?context=100&raw_json=1";
    assert_eq!(comments_path("jlbw48", Some("gao5889")), comment_path);
    assert_eq!(subreddit_about_path("rust"), "/r/rust/about/?raw_json=1");
    assert_eq!(
        user_about_path("Some_One"),
        "/user/Some_One/about/?raw_json=1"
    );
}

#[test]
fn names_for_about_calls() {
    let names = names_for_about(&post(), None).unwrap();
    let (sr, author) = ("SubTestBot1".to_string(), "Watchful1BotTest".to_string());
    assert_eq!(names, (Some(sr), Some(author)));
    let comment = fixture!("comment_permalink_2025.json");
    let names = names_for_about(&comment, Some("ekftbox")).unwrap();
    let (sr, author) = ("RemovedByBotter".to_string(), "2Botter2Loop".to_string());
    assert_eq!(names, (Some(sr), Some(author)));
    let mut deleted = post();
    deleted[0]["data"]["children"][0]["data"]["author"] = json!("[deleted]");
    assert_eq!(names_for_about(&deleted, None).unwrap().1, None);
    assert!(names_for_about(&json!({"kind": "Listing"}), None).is_err());
}

#[test]
fn post_record_from_real_samples() {
    let sr = fixture!("subreddit_about_2023.json");
    let user = fixture!("user_about_2025.json");
    let q = "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/";
    let r = post_record(q, &post(), None, Some(&sr), Some(&user)).unwrap();
    let record_keys = "author_data author_name author_profile_image_url \
            author_profile_image_url_org community community_data community_info community_name \
            community_url flair_text flair_text_link html_text post_date post_info post_stats \
            post_text post_tile query review_media url";
    assert_eq!(keys(&r), record_keys.split_whitespace().collect::<Vec<_>>());
    let html = "<!-- SC_OFF --><div class=\"md\"><p>Test self post text</p>\n</div><!-- SC_ON -->";
    let flair_link =
        "https://www.reddit.com/r/SubTestBot1/search?q=flair_name%3A%22test%202%22&restrict_sr=1";
    let icon = "https://www.redditstatic.com/avatars/defaults/v2/avatar_default_6.png";
    let expected = json!({
        "query": q, "post_tile": "Test self post", "post_text": "Test self post text",
        "html_text": html, "author_name": "Watchful1BotTest", "post_date": "2020-10-31T03:59:49Z",
        "flair_text": "test 2", "flair_text_link": flair_link, "review_media": [],
        "url": "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/",
        "author_profile_image_url": icon, "author_profile_image_url_org": icon,
        "post_info": {"archived": false, "is_crosspostable": true, "locked": false,
            "no_follow": true, "over_18": false, "pinned": false, "spoiler": false},
        "post_stats": {"award_count": 0, "comments_count": 6, "down_votes": 0, "up_votes": 1},
        "community": "SubTestBot1", "community_name": "r/SubTestBot1",
        // The about sample is from another (anonymised) community; its url wins.
        "community_url": "https://www.reddit.com/r/<TEST_SUBREDDIT>/",
        "community_info": {"created_date": "2019-12-01T02:43:01Z", "crossposts": 0, "subscribers": 13},
        "community_data": {"active_user_count": 5,
            "banner_img": "https://b.thumbs.redditmedia.com/UwKZ1FguKqLsZ-dVSM-D0-o2OJVyOWKw966EPKv5wKA.jpg",
            "community_icon": null, "created_date": "2019-12-01T02:43:01Z",
            "display_name_prefixed": "r/<TEST_SUBREDDIT>",
            "header_img": "https://b.thumbs.redditmedia.com/E4LN_I1u2bbhXabbPggf5iVku2j4J-5BFHvtB2stTJA.png",
            "icon_img": "https://b.thumbs.redditmedia.com/9YfWue0XL2CLyD4j34JgSSdm3g-zUFcUcysD9zXV41s.jpg",
            "id": "29ey0j", "name": "t5_29ey0j", "primary_color": null,
            "public_description": "pub_desc", "title": "<TEST_SUBREDDIT>", "over_18": false,
            "subscribers": 7},
        "author_data": {"comment_karma": 0, "link_karma": 1, "total_karma": 1,
            "profile_subscribers": 0, "created_date": "2019-03-12T23:30:44Z",
            "display_name_prefixed": "u/Lil_SpazBot", "icon_img": icon, "id": "3ebyblla",
            "name": "Lil_SpazBot", "profile_public_description": null, "profile_title": "x",
            "avatar_img": null, "is_employee": false, "is_gold": false, "is_mod": true,
            "verified": true},
    });
    assert_eq!(r, expected);
}

#[test]
fn comment_records() {
    let listing = fixture!("comment_permalink_2025.json");
    let r = post_record("q", &listing, Some("ekftbox"), None, None).unwrap();
    let body = r["post_text"].as_str().unwrap();
    assert!(body.starts_with("Hello /u/<USERNAME>,\n\nYour [submission]("));
    let html = r["html_text"].as_str().unwrap();
    assert!(html.starts_with("<div class=\"md\"><p>Hello <a href=\"/u/<USERNAME>\">"));
    let title = "Just a normal girl going for her 10th class exam in India";
    assert_eq!(r["post_tile"], title);
    assert_eq!(r["author_name"], "2Botter2Loop");
    assert_eq!(r["post_date"], "2019-04-09T01:45:08Z");
    let permalink = "/r/RemovedByBotter/comments/bb24k7/just_a_normal_girl_going_for_her_10th_class_exam/ekftbox/";
    assert_eq!(r["url"], format!("https://www.reddit.com{permalink}"));
    let stats = json!({"award_count": 0, "comments_count": 0, "down_votes": 0, "up_votes": 1});
    assert_eq!(r["post_stats"], stats);
    let info = &r["post_info"];
    assert_eq!(
        (info["no_follow"].as_bool(), info["pinned"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(r["flair_text"].is_null() && r["flair_text_link"].is_null());
    assert_eq!(r["community_name"], "r/RemovedByBotter");
    assert_eq!(r["community_info"]["subscribers"], 158);

    // Comments of the 2022 sample: one with a nested reply, and that reply.
    let r = post_record("q", &post(), Some("gao66g9"), None, None).unwrap();
    assert_eq!(r["post_text"], "test tree 1");
    assert_eq!(r["post_tile"], "Test self post");
    assert_eq!(r["flair_text"], ":downvote:");
    assert!(r["post_stats"]["comments_count"].as_u64().unwrap() >= 1);
    let r = post_record("q", &post(), Some("t1_gao66wc"), None, None).unwrap();
    assert_eq!(r["post_text"], "test tree 2");
    let err = post_record("q", &post(), Some("zzzzzz"), None, None).unwrap_err();
    assert!(err.contains("not found"), "{err}");
}

#[test]
fn missing_about_data_gives_nulls() {
    let r = post_record("q", &post(), None, None, None).unwrap();
    let nulls = "community_data author_data author_profile_image_url author_profile_image_url_org";
    for key in nulls.split(' ') {
        assert_eq!(r[key], Value::Null, "{key}");
    }
    assert_eq!(r["community_url"], "https://www.reddit.com/r/SubTestBot1/");
    let info = json!({"created_date": null, "crossposts": 0, "subscribers": 13});
    assert_eq!(r["community_info"], info);
}

#[test]
fn rejects_bad_shapes() {
    let t1_first = json!([{"data": {"children": [{"kind": "t1", "data": {}}]}}]);
    for bad in [json!(null), json!([]), json!({"kind": "Listing"}), t1_first] {
        assert!(post_record("q", &bad, None, None, None).is_err(), "{bad}");
    }
    let only_post = json!([post()[0].clone()]);
    assert!(post_record("q", &only_post, None, None, None).is_ok());
    assert!(post_record("q", &only_post, Some("gao5889"), None, None).is_err());
    let user = fixture!("user_about_2025.json");
    assert!(post_record("q", &post(), None, Some(&user), None).is_err()); // t2 as t5
    assert!(post_record("q", &post(), None, None, Some(&json!("x"))).is_err());
}

#[test]
fn texts_stay_as_sent_and_a_deleted_author_is_null() {
    // Every call asks for raw_json=1, so Reddit sends texts unescaped: a
    // literal "&lt;" the author typed is kept, never decoded.
    let mut l = post();
    let d = &mut l[0]["data"]["children"][0]["data"];
    d["title"] = json!("R&B &lt;3");
    d["selftext"] = json!("I typed &lt;3 & &amp; here");
    d["author"] = json!("[deleted]");
    let r = post_record("q", &l, None, None, None).unwrap();
    assert_eq!(r["post_tile"], "R&B &lt;3");
    assert_eq!(r["post_text"], "I typed &lt;3 & &amp; here");
    assert_eq!(r["author_name"], Value::Null);
}

#[test]
fn icon_org_strips_query_and_unescapes() {
    let icon = "https://styles.redditmedia.com/a.png?width=256&amp;s=abc";
    let user = json!({"kind": "t2", "data": {"icon_img": icon}});
    let r = post_record("q", &post(), None, None, Some(&user)).unwrap();
    let url = "https://styles.redditmedia.com/a.png?width=256&s=abc";
    assert_eq!(r["author_profile_image_url"], url);
    let org = "https://styles.redditmedia.com/a.png";
    assert_eq!(r["author_profile_image_url_org"], org);
    assert_eq!(r["author_data"]["total_karma"], Value::Null);
}

#[test]
fn media_from_gallery_preview_and_video() {
    let mut l = post();
    let d = &mut l[0]["data"]["children"][0]["data"];
    d["gallery_data"] = json!({"items": [{"media_id": "b"}, {"media_id": "a"}]});
    d["media_metadata"] = json!({
        "a": {"status": "valid", "e": "Image", "s": {"u": "https://i.redd.it/a.jpg?w=1&amp;s=2", "x": 10, "y": 20}},
        "b": {"status": "valid", "e": "AnimatedImage", "s": {"gif": "https://i.redd.it/b.gif", "x": 1, "y": 2}},
    });
    d["preview"] = json!({"images": [
        {"id": "p1", "source": {"url": "https://preview.redd.it/p1.jpg?a=1&amp;b=2", "width": 640, "height": 480}},
        {"id": "dup", "source": {"url": "https://i.redd.it/b.gif"}},
    ]});
    let video = json!({"reddit_video": {"fallback_url": "https://v.redd.it/v/DASH_720.mp4", "width": 1280, "height": 720}});
    d["media"] = video.clone();
    d["secure_media"] = video;
    let r = post_record("q", &l, None, None, None).unwrap();
    let expected = json!([
        {"id": "b", "review_media_type": "image", "review_media_url": "https://i.redd.it/b.gif",
         "width": 1, "height": 2},
        {"id": "a", "review_media_type": "image", "review_media_url": "https://i.redd.it/a.jpg?w=1&s=2",
         "width": 10, "height": 20},
        {"id": "p1", "review_media_type": "image", "review_media_url": "https://preview.redd.it/p1.jpg?a=1&b=2",
         "width": 640, "height": 480},
        {"id": null, "review_media_type": "video", "review_media_url": "https://v.redd.it/v/DASH_720.mp4",
         "width": 1280, "height": 720},
    ]);
    assert_eq!(r["review_media"], expected);

    // An image post without preview: the link itself.
    let mut l = post();
    let d = &mut l[0]["data"]["children"][0]["data"];
    (d["post_hint"], d["url"]) = (json!("image"), json!("https://i.redd.it/x.png"));
    let r = post_record("q", &l, None, None, None).unwrap();
    let expected = json!([{"id": null, "review_media_type": "image",
            "review_media_url": "https://i.redd.it/x.png", "width": null, "height": null}]);
    assert_eq!(r["review_media"], expected);
}

#[test]
fn iso_dates() {
    assert_eq!(
        gleaner_sdk::date::iso_from_epoch_secs(1_604_116_789.0).unwrap(),
        "2020-10-31T03:59:49Z"
    );
}
