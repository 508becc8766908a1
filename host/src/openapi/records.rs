//! Schemas of the bodies the host itself builds: the review record and the
//! review-fetch response (`crate::record::Review`, `crate::driver::Outcome`),
//! the forum post record (`crate::record::PostRecord`) and `/healthz`.

use serde_json::{json, Value};
use utoipa::openapi::schema::{
    AdditionalProperties, AllOfBuilder, ArrayBuilder, ObjectBuilder, Schema, Type,
};
use utoipa::openapi::RefOr;

use super::kit::{described, nullable_reference, record, reference, typed};
use crate::manifest::{Continuation, OutputSpec};

/// The component schemas of this module, by name.
pub fn components() -> Vec<(&'static str, RefOr<Schema>)> {
    vec![
        ("Review", review()),
        ("Media", media()),
        ("Reply", reply()),
        ("SubRating", sub_rating()),
        ("Translation", translation()),
        ("ExtraInformation", extra_information()),
        ("PostRecord", post_record()),
        ("PostInfo", post_info()),
        ("PostStats", post_stats()),
        ("CommunityData", community_data()),
        ("CommunityInfo", community_info()),
        ("AuthorData", author_data()),
        ("Health", health()),
    ]
}

fn text(nullable: bool, description: &str) -> RefOr<Schema> {
    described(typed(Type::String, nullable), description)
}

fn closed(object: utoipa::openapi::schema::ObjectBuilder) -> RefOr<Schema> {
    object
        .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
        .into()
}

fn array_of(items: RefOr<Schema>, description: &str) -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(items)
        .description(Some(description))
        .into()
}

fn utc(description: &str) -> RefOr<Schema> {
    described(
        typed(Type::String, true)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::DateTime,
            )))
            .pattern(Some(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")),
        description,
    )
}

fn precision(description: &str) -> RefOr<Schema> {
    described(
        typed(Type::String, true).enum_values(Some([
            json!("second"),
            json!("minute"),
            json!("day"),
            json!("month"),
            json!("year"),
            Value::Null,
        ])),
        description,
    )
}

fn review() -> RefOr<Schema> {
    let fields = [
        ("review_id", described(typed(Type::String, false).pattern(Some(r"\S")), "The source's id of the review")),
        ("review_title", text(true, "Title")),
        ("review_text", text(true, "Text, formatted per `is_text_formatted`")),
        ("review_rating", described(typed(Type::Number, true).minimum(Some(0)), "A number on the source's scale, from 0 to `rating_scale_max`")),
        ("rating_scale_max", described(typed(Type::Number, true), "The top of the source's rating scale (e.g. 5, or 100)")),
        ("rating_out_of_5", described(typed(Type::Number, true).minimum(Some(0)).maximum(Some(5)), "The rating scaled to 0–5 and rounded to hundredths (90 of 100 is 4.5); null without a rating")),
        ("review_date", utc("RFC 3339 UTC date-time in whole seconds; a day is its midnight, a month its first day, a year its first of January (see `review_date_precision`)")),
        ("review_date_precision", precision("What the site told of the date: `second`, `minute`, `day`, `month` or `year`")),
        ("updated_date", utc("When the site says the review was edited, RFC 3339 UTC; null where it says nothing")),
        ("author_name", text(true, "Display name")),
        ("author_profile_image_url", text(true, "Avatar URL (absolute http or https)")),
        ("author_url", text(true, "Profile page (absolute http or https)")),
        ("author_title", text(true, "Role, company or place, where the source has one; never a bare country (see `author_country`)")),
        ("author_country", described(typed(Type::String, true).pattern(Some("^[A-Z]{2}$")), "The author's country, ISO 3166-1 alpha-2, from whatever the site gives (a code or a name)")),
        ("review_url", text(true, "Permalink of the review (absolute http or https)")),
        ("review_media", array_of(reference("Media"), "Attached images and videos")),
        ("review_reply", nullable_reference("Reply")),
        ("helpful_votes", described(typed(Type::Integer, true).minimum(Some(0)), "Helpful votes or likes")),
        ("language", text(true, "BCP 47 language tag: the site's own label, else detected for texts of 20 characters or more (a Han, kana or Hangul character counts as two)")),
        ("language_source", described(
            typed(Type::String, true).enum_values(Some([json!("site"), json!("detected"), Value::Null])),
            "Where `language` comes from",
        )),
        ("verified", described(typed(Type::Boolean, true), "The site's own verification of the author (a verified buyer, a booking, an invitation); null where the site says nothing")),
        ("recommends", described(typed(Type::Boolean, true), "Whether the author recommends what was reviewed; null where the site does not ask")),
        ("anonymous", described(typed(Type::Boolean, false), "The site hides the author's name")),
        ("sub_ratings", array_of(reference("SubRating"), "Ratings of aspects (cleanliness, staff), each on its own scale; empty where the site has none")),
        ("translation", nullable_reference("Translation")),
        ("source", text(false, "The source label, e.g. customer-feedback-hub")),
        ("extra", described(typed(Type::Object, false), "Fields particular to the source; never one of the fields above")),
    ];
    let receipt = described(
        typed(Type::Object, false),
        "With the request's `receipts: true` only: where the review was read (`fetched_at`, `source_url`, `response_sha256` of the upstream body), the `plugin` (name, version, component_sha256), `host_version`, `key_id`, `field_digests`, and an Ed25519 `signature` over the review and the receipt (GET /receipts/public-key; `gleaner receipt verify`)",
    );
    let sentiment = described(
        typed(Type::Object, true)
            .property(
                "label",
                described(
                    typed(Type::String, false).enum_values(Some(["positive", "neutral", "negative"])),
                    "positive for a score of 0.05 or more, negative for -0.05 or less, neutral between",
                ),
            )
            .property(
                "score",
                described(
                    typed(Type::Number, false).minimum(Some(-1)).maximum(Some(1)),
                    "From -1 (most negative) to 1 (most positive)",
                ),
            )
            .required("label")
            .required("score")
            .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false))),
        "With the request's `insights: true` only: the text's sentiment in its language; null for a language without a model (supported: en, de, fr, es, it, pt, nl, zh, ja) or a review without text",
    );
    let rating_mismatch = described(
        typed(Type::Boolean, true),
        "With `insights: true` only: true when the text clearly contradicts the stars (in en, es and zh: a score of at least 0.7 on at most 2 of 5 stars, or at most -0.7 on at least 4 of 5, both scorers agreeing and no contrast word such as \"but\"); null without a rating or a sentiment, and in other languages",
    );
    let keywords: RefOr<Schema> = (ArrayBuilder::new()
        .items(typed(Type::String, false))
        .max_items(Some(5))
        .description(Some(
            "With `insights: true` only: up to five key phrases of the text, best first",
        )))
    .into();
    let duplicate_of = described(
        typed(Type::String, true),
        "With `insights: true` only: the `review_id` of the earliest review of the same fetch or job whose text this one's nearly repeats (at least 0.7 estimated Jaccard similarity of their 5-character shingles; texts under 64 letters and digits are never compared); null when there is none",
    );
    closed(
        record(fields)
            .property("receipt", receipt)
            .property("sentiment", sentiment)
            .property("rating_mismatch", rating_mismatch)
            .property("keywords", keywords)
            .property("duplicate_of", duplicate_of)
            .description(Some(
        "One review, the same record with the same meanings on every review-fetch endpoint (record version 2, `extra_information.record_version`). A field is null where the source lacks a value; values are never invented.",
    )))
}

fn sub_rating() -> RefOr<Schema> {
    closed(
        record([
            ("name", text(false, "The aspect, as the site names it")),
            (
                "rating",
                described(
                    typed(Type::Number, false).minimum(Some(0)),
                    "The rating, from 0 to `scale_max`",
                ),
            ),
            (
                "scale_max",
                described(
                    typed(Type::Number, false),
                    "The top of its scale, as the site gives it",
                ),
            ),
        ])
        .description(Some("The rating of one aspect of what was reviewed")),
    )
}

fn translation() -> RefOr<Schema> {
    closed(
        record([
            (
                "is_machine_translated",
                described(
                    typed(Type::Boolean, false),
                    "The site translated the review by machine",
                ),
            ),
            (
                "original_text",
                text(
                    true,
                    "The text as the author wrote it, where the site gives it",
                ),
            ),
            (
                "original_language",
                text(true, "Its language (BCP 47), where the site gives it"),
            ),
        ])
        .description(Some(
            "What the site says of a review shown in another language than written",
        )),
    )
}

fn media() -> RefOr<Schema> {
    closed(record([
        (
            "height",
            described(typed(Type::Number, true), "Height in pixels"),
        ),
        ("id", text(true, "The source's id of the item")),
        ("review_media_type", text(false, "`image` or `video`")),
        ("review_media_url", text(false, "URL")),
        (
            "width",
            described(typed(Type::Number, true), "Width in pixels"),
        ),
    ]))
}

fn reply() -> RefOr<Schema> {
    closed(
        record([
            (
                "text",
                text(false, "Reply text, formatted like the review text"),
            ),
            ("date", utc("RFC 3339 UTC, as `review_date`")),
            (
                "date_precision",
                precision("What the site told of the reply's date"),
            ),
            ("author", text(true, "Who replied")),
        ])
        .description(Some("The owner's reply to a review")),
    )
}

fn extra_information() -> RefOr<Schema> {
    let count = |d: &str| described(typed(Type::Integer, false).minimum(Some(0)), d);
    closed(record([
        ("resolved_url", text(true, "The page the reviews came from")),
        ("name", text(true, "The reviewed business or item")),
        ("average_rating", described(typed(Type::Number, true), "Its average rating, as the source shows it")),
        ("total_reviews", described(typed(Type::Integer, true).minimum(Some(0)), "Its review count, as the source shows it")),
        ("pages_fetched", count("Pages used")),
        ("pages_unused", count("Pages requested ahead that the fetch did not need")),
        ("complete", described(typed(Type::Boolean, false), "Whether every review there is (within `sync_date`) was returned")),
        ("stop_reason", reference("StopReason")),
        ("elapsed_ms", count("Time the fetch took")),
        ("plugin", text(false, "The plugin that served the fetch")),
        ("plugin_version", text(false, "Its version")),
        ("dates_are", described(
            typed(Type::String, false).enum_values(Some(["utc", "source_local"])),
            "Whether review dates (and `sync_date`) are UTC days or the source's local days",
        )),
        ("session", described(
            typed(Type::String, false).enum_values(Some(["new", "continued", "expired_restarted"])),
            "The upstream session: opened for this fetch, continued from the token's, or restarted because it had expired",
        )),
        ("order", described(
            typed(Type::String, true).enum_values(Some([
                json!("newest_first"),
                json!("oldest_first"),
                json!("unordered"),
                Value::Null,
            ])),
            "The order the fetch read the source by: strictly by date (so `sync_date` and known reviews can end it early) or not; null when no page was read",
        )),
        ("order_contradicted", described(
            typed(Type::String, true).enum_values(Some([
                json!("newest_first"),
                json!("oldest_first"),
                Value::Null,
            ])),
            "The order the source declared that its review dates went against (the rest of the fetch was read as unordered); null when none did",
        )),
        ("source", described(
            typed(Type::Object, false),
            "Source-specific metadata; `source_limit` says why the site serves no further, `notice` what the user should know",
        )),
        ("record_version", described(
            typed(Type::Integer, false).enum_values(Some([json!(2)])),
            "The version of the review record the reviews follow (docs/api.md, What changed)",
        )),
    ])
    .property("changes", array_of(
        record([
            ("event", described(
                typed(Type::String, false).enum_values(Some(["review.updated", "review.reply_added", "review.reply_updated"])),
                "What changed",
            )),
            ("review_id", text(false, "The review")),
            ("after", described(typed(Type::Object, false), "The fields its fingerprint covers, as they are now")),
        ])
        .into(),
        "Only with a `sync_cursor` that carries fingerprints: what changed in the reviews it names that the fetch read again",
    )))
}

/// The review-fetch response of an endpoint continuing with `continuation`,
/// its reviews' `extra` as `extra` declares it (when it does).
pub fn fetch_response(continuation: Continuation, extra: Option<&OutputSpec>) -> RefOr<Schema> {
    let review = match extra {
        None => reference("Review"),
        Some(spec) => AllOfBuilder::new()
            .item(reference("Review"))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .property("extra", super::outputs::declared_object(spec)),
            )
            .into(),
    };
    let mut fields = vec![
        (
            "all_reviews",
            array_of(review, "The reviews, in the source's order"),
        ),
        ("extra_information", reference("ExtraInformation")),
        (
            "message",
            text(false, "What was fetched and why the fetch stopped"),
        ),
        (
            "sync_cursor",
            text(true, "On an answer of a newest-first source that started at the top: names the newest reviews it saw; send it back as `sync_cursor` (same `query`) to get only newer ones. Null otherwise"),
        ),
    ];
    match continuation {
        Continuation::PaginationToken => fields.push((
            "next_page",
            text(true, "The continuation token, or null when the fetch is complete: send it back as `pagination_token` with the same `query`"),
        )),
        Continuation::PaginationData => fields.push((
            "pagination_data",
            described(
                typed(Type::Object, true)
                    .property("token", typed(Type::String, false))
                    .required("token")
                    .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false))),
                "The continuation, or null when the fetch is complete: send the object back as `pagination_data` with the same `query`",
            ),
        )),
        Continuation::None => {}
    }
    closed(record(fields))
}

/// The forum-post response: `{"all_reviews": [post]}`.
pub fn post_response() -> RefOr<Schema> {
    closed(record([(
        "all_reviews",
        ArrayBuilder::new()
            .items(reference("PostRecord"))
            .min_items(Some(1))
            .max_items(Some(1))
            .description(Some("The post"))
            .into(),
    )]))
}

fn post_record() -> RefOr<Schema> {
    closed(
        record([
            ("query", text(false, "The URL asked for")),
            ("author_name", text(true, "The author's name")),
            (
                "author_profile_image_url",
                text(true, "The author's avatar"),
            ),
            (
                "author_profile_image_url_org",
                text(true, "The avatar as the site gives it"),
            ),
            ("flair_text", text(true, "Flair")),
            ("flair_text_link", text(true, "Flair link")),
            ("html_text", text(true, "The post's HTML")),
            ("post_date", text(true, "ISO 8601")),
            ("post_info", reference("PostInfo")),
            ("post_stats", reference("PostStats")),
            (
                "post_text",
                text(true, "Text, formatted per `is_text_formatted`"),
            ),
            (
                "post_tile",
                text(
                    true,
                    "The post's title (the field name is spelled as the specification fixes it)",
                ),
            ),
            (
                "review_media",
                array_of(reference("Media"), "Attached media"),
            ),
            ("community", text(true, "Community")),
            ("community_data", nullable_reference("CommunityData")),
            ("community_info", reference("CommunityInfo")),
            ("community_name", text(true, "Community name")),
            ("community_url", text(true, "Community URL")),
            ("url", text(true, "The post's URL")),
            ("author_data", nullable_reference("AuthorData")),
        ])
        .description(Some(
            "A forum post or comment, field for field as docs/SPEC.md fixes it",
        )),
    )
}

fn flags(names: &[&'static str]) -> RefOr<Schema> {
    closed(record(
        names
            .iter()
            .map(|n| (*n, typed(Type::Boolean, false).into())),
    ))
}

fn post_info() -> RefOr<Schema> {
    flags(&[
        "archived",
        "is_crosspostable",
        "locked",
        "no_follow",
        "over_18",
        "pinned",
        "spoiler",
    ])
}

fn post_stats() -> RefOr<Schema> {
    closed(record(
        ["award_count", "comments_count", "down_votes", "up_votes"]
            .into_iter()
            .map(|n| (n, typed(Type::Number, false).into())),
    ))
}

/// An object whose fields are all nullable, of the given types.
fn nullable_fields(fields: &[(&'static str, Type)]) -> RefOr<Schema> {
    closed(record(
        fields
            .iter()
            .map(|(n, ty)| (*n, typed(ty.clone(), true).into())),
    ))
}

fn community_data() -> RefOr<Schema> {
    use Type::{Boolean, Number, String};
    nullable_fields(&[
        ("active_user_count", Number),
        ("banner_img", String),
        ("community_icon", String),
        ("created_date", String),
        ("display_name_prefixed", String),
        ("header_img", String),
        ("icon_img", String),
        ("id", String),
        ("name", String),
        ("over_18", Boolean),
        ("primary_color", String),
        ("public_description", String),
        ("subscribers", Number),
        ("title", String),
    ])
}

fn community_info() -> RefOr<Schema> {
    use Type::{Number, String};
    nullable_fields(&[
        ("created_date", String),
        ("crossposts", Number),
        ("subscribers", Number),
    ])
}

fn author_data() -> RefOr<Schema> {
    use Type::{Boolean, Number, String};
    nullable_fields(&[
        ("avatar_img", String),
        ("comment_karma", Number),
        ("created_date", String),
        ("display_name_prefixed", String),
        ("icon_img", String),
        ("id", String),
        ("is_employee", Boolean),
        ("is_gold", Boolean),
        ("is_mod", Boolean),
        ("link_karma", Number),
        ("name", String),
        ("profile_public_description", String),
        ("profile_subscribers", Number),
        ("profile_title", String),
        ("total_karma", Number),
        ("verified", Boolean),
    ])
}

fn health() -> RefOr<Schema> {
    let names = |d: &str| array_of(typed(Type::String, false).into(), d);
    let count = |d: &str| described(typed(Type::Integer, false).minimum(Some(0)), d);
    closed(
        record([
            (
                "status",
                described(
                    typed(Type::String, false).enum_values(Some(["ok", "loading", "no plugins"])),
                    "`loading` while some plugin's first load (a compile) is under way; `no plugins` (with HTTP 503) when no plugin serves or loads",
                ),
            ),
            ("plugins", count("Plugins serving")),
            ("failed_plugins", count("Plugins whose latest load failed")),
            ("loading_plugins", count("Plugins still loading")),
            ("loading", names("The plugins still loading")),
            ("failed", names("The plugins whose latest load failed")),
            (
                "features",
                names("The optional parts built into this binary (cargo features): `cluster`, `browser`, `browser-tls`"),
            ),
        ])
        .property("cluster", cluster_health())
        .property("browser", browser_health())
        .required("browser"),
    )
}

/// The `browser` part of `/healthz`: whether plugins that declare
/// `uses_browser` can open pages here.
fn browser_health() -> RefOr<Schema> {
    let object = record([
        (
            "available",
            described(
                typed(Type::Boolean, false),
                "Whether the headless browser can be used (Chromium found and not switched off)",
            ),
        ),
        (
            "reason",
            text(
                true,
                "Why not, naming the setting or the package; null when available",
            ),
        ),
    ])
    .description(Some(
        "The optional headless browser ([browser], GLEANER_CHROMIUM)",
    ));
    closed(object)
}

/// The `cluster` part of `/healthz`, present in cluster mode only.
fn cluster_health() -> RefOr<Schema> {
    let object = record([
        ("replica", text(false, "This replica's name (GLEANER_REPLICA_NAME)")),
        (
            "nats",
            described(
                typed(Type::String, false).enum_values(Some(["connected", "disconnected"])),
                "The connection to NATS",
            ),
        ),
        (
            "shared_state",
            described(
                typed(Type::Boolean, false),
                "Whether jobs, pacing, sessions and the plugin cache are shared with the other replicas now; false while NATS is away (synchronous fetches go on with this replica's own state)",
            ),
        ),
        (
            "insecure",
            described(
                typed(Type::Boolean, false),
                "True when this replica joined NATS without credentials (GLEANER_NATS_INSECURE): for a trial on one machine only",
            ),
        ),
    ])
    .description(Some("In cluster mode (GLEANER_NATS_URL): this replica and its link to NATS"));
    closed(object)
}
