//! The Parquet form of the review record: one typed column per field
//! ([`schema`]): dates as UTC timestamps (milliseconds), ratings as doubles,
//! votes as integers, flags as booleans, the nested values as JSON text.
//! Each batch of reviews is one row group, written out as soon as it is
//! complete, so an export holds one batch at a time.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::Value;

use super::table::COLUMNS;

/// How a field of the record is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Json,
    Double,
    Integer,
    Flag,
    Time,
}

fn kind(column: &str) -> Kind {
    match column {
        "review_rating" | "rating_scale_max" | "rating_out_of_5" => Kind::Double,
        "helpful_votes" => Kind::Integer,
        "verified" | "recommends" | "anonymous" => Kind::Flag,
        "review_date" | "updated_date" => Kind::Time,
        "review_media" | "review_reply" | "sub_ratings" | "translation" | "extra" => Kind::Json,
        _ => Kind::Text,
    }
}

/// The Arrow schema of an export: every record field, typed and nullable
/// (a record that lacks a field is still written).
pub fn schema() -> Schema {
    Schema::new(
        COLUMNS
            .iter()
            .map(|c| {
                let data_type = match kind(c) {
                    Kind::Text | Kind::Json => DataType::Utf8,
                    Kind::Double => DataType::Float64,
                    Kind::Integer => DataType::Int64,
                    Kind::Flag => DataType::Boolean,
                    Kind::Time => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                };
                Field::new(*c, data_type, true)
            })
            .collect::<Vec<_>>(),
    )
}

/// An RFC 3339 time as Unix milliseconds.
fn millis(value: &Value) -> Option<i64> {
    let text = value.as_str()?;
    let t =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

fn column(name: &str, reviews: &[Value]) -> ArrayRef {
    let values = reviews.iter().map(|r| &r[name]);
    match kind(name) {
        Kind::Text => Arc::new(StringArray::from_iter(
            values.map(|v| v.as_str().map(str::to_owned)),
        )),
        Kind::Json => Arc::new(StringArray::from_iter(
            values.map(|v| (!v.is_null()).then(|| v.to_string())),
        )),
        Kind::Double => Arc::new(Float64Array::from_iter(values.map(Value::as_f64))),
        Kind::Integer => Arc::new(Int64Array::from_iter(values.map(Value::as_i64))),
        Kind::Flag => Arc::new(BooleanArray::from_iter(values.map(Value::as_bool))),
        Kind::Time => {
            Arc::new(TimestampMillisecondArray::from_iter(values.map(millis)).with_timezone("UTC"))
        }
    }
}

/// Writes reviews as one Parquet file, a row group per batch.
pub struct ParquetWriter {
    writer: ArrowWriter<Vec<u8>>,
    schema: Arc<Schema>,
}

impl std::fmt::Debug for ParquetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParquetWriter")
    }
}

impl ParquetWriter {
    /// A writer with the file's opening bytes ready to take.
    pub fn new() -> Result<ParquetWriter, parquet::errors::ParquetError> {
        let schema = Arc::new(schema());
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))?;
        Ok(ParquetWriter { writer, schema })
    }

    /// The bytes written so far and not yet taken.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(self.writer.inner_mut())
    }

    /// Writes `reviews` as one row group; the bytes it produced.
    pub fn batch(&mut self, reviews: &[Value]) -> Result<Vec<u8>, parquet::errors::ParquetError> {
        if reviews.is_empty() {
            return Ok(self.take());
        }
        let columns: Vec<ArrayRef> = COLUMNS.iter().map(|c| column(c, reviews)).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        self.writer.write(&batch)?;
        self.writer.flush()?;
        Ok(self.take())
    }

    /// Ends the file: the last bytes (its footer).
    pub fn finish(&mut self) -> Result<Vec<u8>, parquet::errors::ParquetError> {
        self.writer.finish()?;
        Ok(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use serde_json::json;

    #[test]
    fn reviews_come_back_typed() {
        let mut w = ParquetWriter::new().unwrap();
        let mut file = w.take();
        let first = vec![
            json!({"review_id": "a", "source": "s", "review_rating": 4.5,
            "review_date": "2026-03-01T10:00:00Z", "helpful_votes": 3, "verified": true,
            "extra": {"k": 1}, "review_text": "Fine"}),
        ];
        let second = vec![json!({"review_id": "b", "source": "s", "review_rating": null})];
        file.extend(w.batch(&first).unwrap());
        file.extend(w.batch(&second).unwrap());
        file.extend(w.finish().unwrap());
        let reader = SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        assert_eq!(reader.metadata().file_metadata().num_rows(), 2);
        assert_eq!(reader.metadata().num_row_groups(), 2);
        let fields = reader.metadata().file_metadata().schema_descr();
        assert_eq!(fields.num_columns(), COLUMNS.len());
        let rows: Vec<String> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap().to_string())
            .collect();
        assert!(rows[0].contains("review_rating: 4.5"), "{}", rows[0]);
        assert!(rows[0].contains("2026-03-01 10:00:00"), "{}", rows[0]);
        assert!(rows[0].contains(r#"extra: "{"k":1}""#), "{}", rows[0]);
        assert!(rows[1].contains("review_rating: null"), "{}", rows[1]);
    }
}
