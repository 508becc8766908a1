//! How `gleaner fetch` writes its answer: the response JSON, one review per
//! line (JSON Lines), or CSV with one column per review field. In the two
//! record formats the message and the continuation go to stderr, so stdout
//! holds reviews only and can be piped into other tools.

use std::io::Write;

use serde_json::Value;

/// The formats `gleaner fetch --format` writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The response body, as the HTTP API returns it (pretty-printed).
    #[default]
    Json,
    /// One review record per line.
    Jsonl,
    /// A header row, then one row per review; nested values (media, reply,
    /// extra) as compact JSON in their cell, null as an empty cell.
    Csv,
    /// Typed columns (dates as timestamps, ratings as doubles), for analysis
    /// tools; binary, so redirect stdout to a file.
    Parquet,
}

/// Writes `body` (a review-fetch response) to `out` in `format`.
pub fn write(body: &Value, format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    let reviews = body["all_reviews"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    match format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(body)?)?,
        records => {
            let mut encoder = crate::export::Format::from(records).encoder();
            out.write_all(&encoder.begin()?)?;
            out.write_all(&encoder.batch(reviews)?)?;
            out.write_all(&encoder.end()?)?;
        }
    }
    Ok(())
}

impl From<Format> for crate::export::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Json => crate::export::Format::Json,
            Format::Jsonl => crate::export::Format::Ndjson,
            Format::Csv => crate::export::Format::Csv,
            Format::Parquet => crate::export::Format::Parquet,
        }
    }
}

/// What the record formats leave out of stdout: where to continue, if anywhere.
pub fn continuation(body: &Value) -> Option<String> {
    let token = body["next_page"]
        .as_str()
        .or_else(|| body["pagination_data"]["token"].as_str())?;
    let flag = if body["next_page"].is_string() {
        "--pagination-token"
    } else {
        "--pagination-data"
    };
    Some(format!(
        "more reviews: run again with {flag} {token} to continue, or with --all to follow every page"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::table::COLUMNS as REVIEW_FIELDS;
    use serde_json::json;

    fn body() -> Value {
        json!({
            "all_reviews": [
                {"review_id": "a", "review_text": "Great, \"really\"\nfast", "review_rating": 5.0,
                 "review_media": [], "extra": {"verified": true}, "source": "s"},
                {"review_id": "b", "review_text": null, "review_rating": null, "source": "s"}
            ],
            "message": "Fetched 2 reviews",
            "next_page": "tok"
        })
    }

    #[test]
    fn the_csv_columns_are_the_review_record() {
        let record = crate::record::Review {
            review_id: "r".into(),
            review_title: None,
            review_text: None,
            review_rating: None,
            rating_scale_max: None,
            rating_out_of_5: None,
            review_date: None,
            review_date_precision: None,
            updated_date: None,
            author_name: None,
            author_profile_image_url: None,
            author_url: None,
            author_title: None,
            author_country: None,
            review_url: None,
            review_media: Vec::new(),
            review_reply: None,
            helpful_votes: None,
            language: None,
            language_source: None,
            verified: None,
            recommends: None,
            anonymous: false,
            sub_ratings: Vec::new(),
            translation: None,
            source: "s".into(),
            extra: Value::Null,
            receipt: None,
            insights: None,
        };
        let value = serde_json::to_value(record).unwrap();
        let mut keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut fields = REVIEW_FIELDS.to_vec();
        keys.sort_unstable();
        fields.sort_unstable();
        assert_eq!(keys, fields);
    }

    #[test]
    fn jsonl_writes_one_review_per_line() {
        let mut out = Vec::new();
        write(&body(), Format::Jsonl, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["review_text"], "Great, \"really\"\nfast");
    }

    #[test]
    fn csv_quotes_text_and_writes_nested_values_as_json() {
        let mut out = Vec::new();
        write(&body(), Format::Csv, &mut out).unwrap();
        let mut reader = csv::Reader::from_reader(out.as_slice());
        assert_eq!(reader.headers().unwrap().len(), REVIEW_FIELDS.len());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(&rows[0][2], "Great, \"really\"\nfast");
        assert_eq!(&rows[0][3], "5.0");
        let extra = REVIEW_FIELDS.iter().position(|f| *f == "extra").unwrap();
        assert_eq!(&rows[0][extra], r#"{"verified":true}"#);
        assert_eq!(&rows[1][2], "");
    }

    #[test]
    fn the_continuation_is_named_with_its_flag() {
        assert!(continuation(&body())
            .unwrap()
            .contains("--pagination-token tok"));
        let data = json!({"all_reviews": [], "pagination_data": {"token": "t2"}});
        assert!(continuation(&data)
            .unwrap()
            .contains("--pagination-data t2"));
        assert_eq!(continuation(&json!({"all_reviews": []})), None);
    }
}
