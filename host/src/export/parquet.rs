//! The Parquet form of the review record: one typed column per field
//! ([`schema`]): dates as UTC timestamps (milliseconds), ratings as doubles,
//! votes as integers, flags as booleans, the nested values as JSON text.
//! Each batch of reviews is one row group, written out as soon as it is
//! complete, so an export holds one batch at a time.
//!
//! The columns are written with the parquet crate's own column writers, with
//! no Arrow arrays in between: the record is flat, so a column is its present
//! values plus one definition level per review (1 present, 0 null).

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
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

/// The Parquet schema of an export: every record field, typed and optional
/// (a record that lacks a field is still written).
pub fn schema() -> Result<Type, ParquetError> {
    let fields = COLUMNS
        .iter()
        .map(|c| {
            let (physical, logical) = match kind(c) {
                Kind::Text | Kind::Json => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
                Kind::Double => (Physical::DOUBLE, None),
                Kind::Integer => (Physical::INT64, None),
                Kind::Flag => (Physical::BOOLEAN, None),
                Kind::Time => (
                    Physical::INT64,
                    Some(LogicalType::timestamp(true, TimeUnit::MILLIS)),
                ),
            };
            Type::primitive_type_builder(c, physical)
                .with_repetition(Repetition::OPTIONAL)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Type::group_type_builder("review")
        .with_fields(fields)
        .build()
}

/// An RFC 3339 time as Unix milliseconds.
fn millis(value: &Value) -> Option<i64> {
    let text = value.as_str()?;
    let t =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

/// Writes one column's values, `None` for a review that lacks the field.
fn put<T: DataType>(
    writer: &mut ColumnWriterImpl<'_, T>,
    values: impl Iterator<Item = Option<T::T>>,
) -> Result<(), ParquetError> {
    let mut present = Vec::new();
    let mut levels = Vec::new();
    for value in values {
        levels.push(i16::from(value.is_some()));
        present.extend(value);
    }
    writer.write_batch(&present, Some(&levels), None)?;
    Ok(())
}

/// Writes field `name` of every review into its column.
fn column(
    writer: &mut ColumnWriter<'_>,
    name: &str,
    reviews: &[Value],
) -> Result<(), ParquetError> {
    let values = reviews.iter().map(|r| &r[name]);
    match (kind(name), writer) {
        (Kind::Text, ColumnWriter::ByteArrayColumnWriter(w)) => {
            put(w, values.map(|v| v.as_str().map(ByteArray::from)))
        }
        (Kind::Json, ColumnWriter::ByteArrayColumnWriter(w)) => put(
            w,
            values.map(|v| (!v.is_null()).then(|| ByteArray::from(v.to_string().into_bytes()))),
        ),
        (Kind::Double, ColumnWriter::DoubleColumnWriter(w)) => put(w, values.map(Value::as_f64)),
        (Kind::Integer, ColumnWriter::Int64ColumnWriter(w)) => put(w, values.map(Value::as_i64)),
        (Kind::Time, ColumnWriter::Int64ColumnWriter(w)) => put(w, values.map(millis)),
        (Kind::Flag, ColumnWriter::BoolColumnWriter(w)) => put(w, values.map(Value::as_bool)),
        (kind, _) => Err(ParquetError::General(format!(
            "column {name} ({kind:?}) does not have the type the export's schema gives it"
        ))),
    }
}

/// Writes reviews as one Parquet file, a row group per batch.
pub struct ParquetWriter {
    writer: SerializedFileWriter<Vec<u8>>,
}

impl std::fmt::Debug for ParquetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParquetWriter")
    }
}

impl ParquetWriter {
    /// A writer with the file's opening bytes ready to take.
    pub fn new() -> Result<ParquetWriter, ParquetError> {
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = SerializedFileWriter::new(Vec::new(), Arc::new(schema()?), Arc::new(props))?;
        Ok(ParquetWriter { writer })
    }

    /// The bytes written so far and not yet taken.
    pub fn take(&mut self) -> Result<Vec<u8>, ParquetError> {
        self.writer.flush()?;
        Ok(std::mem::take(self.writer.inner_mut()))
    }

    /// Writes `reviews` as one row group; the bytes it produced.
    pub fn batch(&mut self, reviews: &[Value]) -> Result<Vec<u8>, ParquetError> {
        if reviews.is_empty() {
            return self.take();
        }
        let mut group = self.writer.next_row_group()?;
        let mut names = COLUMNS.iter();
        while let Some(mut writer) = group.next_column()? {
            let name = names.next().ok_or_else(|| {
                ParquetError::General("the schema has more columns than the record".into())
            })?;
            column(writer.untyped(), name, reviews)?;
            writer.close()?;
        }
        group.close()?;
        self.take()
    }

    /// Ends the file: the last bytes (its footer).
    pub fn finish(&mut self) -> Result<Vec<u8>, ParquetError> {
        self.writer.finish()?;
        self.take()
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
        let mut file = w.take().unwrap();
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
