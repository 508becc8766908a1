//! The CSV form of the review record: one column per field of the record,
//! in the record's order ([`COLUMNS`]); strings as they are, numbers and
//! booleans written out, null as an empty cell, and the nested values
//! (`review_media`, `review_reply`, `sub_ratings`, `translation`, `extra`)
//! as compact JSON in their own cell. The API's export and `gleaner fetch
//! --format csv` write the same columns.

use serde_json::Value;

/// The columns, in order: the review record's fields.
pub const COLUMNS: &[&str] = crate::record::FIELDS;

/// The header row.
pub fn header() -> Vec<u8> {
    line(COLUMNS.iter().map(|c| (*c).to_owned()))
}

/// One review's row.
pub fn row(review: &Value) -> Vec<u8> {
    line(COLUMNS.iter().map(|c| cell(&review[*c])))
}

/// One cell: strings as they are, null as empty, anything else as JSON.
pub fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A CSV line of `cells`, quoted where RFC 4180 needs it, ending in CRLF.
fn line(cells: impl Iterator<Item = String>) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let cells: Vec<String> = cells.collect();
    // Writing to a Vec cannot fail.
    let _ = writer.write_record(&cells);
    writer.into_inner().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_quotes_what_it_must_and_nests_as_json() {
        let review = json!({"review_id": "a", "review_text": "Great, \"really\"\nfast",
            "review_rating": 5.0, "review_media": [], "extra": {"verified": true}, "source": "s"});
        let text = String::from_utf8(row(&review)).unwrap();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        let at = |c: &str| COLUMNS.iter().position(|x| *x == c).unwrap();
        assert_eq!(&record[at("review_text")], "Great, \"really\"\nfast");
        assert_eq!(&record[at("review_rating")], "5.0");
        assert_eq!(&record[at("extra")], "{\"verified\":true}");
        assert_eq!(&record[at("review_title")], "");
        assert_eq!(record.len(), COLUMNS.len());
        assert!(text.ends_with("\r\n"));
    }
}
