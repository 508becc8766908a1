//! A job's reviews as a file, in the format the caller asks for: JSON (one
//! array), JSON Lines, CSV ([`table`]) or Parquet ([`parquet`]). Each is
//! written a batch of reviews at a time ([`Encoder`]), so the memory an
//! export takes does not grow with the job.

pub mod parquet;
pub mod storage;
pub mod table;

use std::sync::Arc;

use futures_util::Stream;
use serde_json::Value;

use gleaner_jobs::store::Store;

/// Reviews read from the store per batch.
const BATCH: usize = 500;

/// The formats a job's reviews are exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON array of review records.
    Json,
    /// One review record per line.
    Ndjson,
    /// A header row, then one row per review ([`table::COLUMNS`]).
    Csv,
    /// Typed columns, a row group per batch ([`parquet::schema`]).
    Parquet,
}

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The Parquet writer failed.
    #[error("the Parquet file could not be written: {0}")]
    Parquet(#[from] ::parquet::errors::ParquetError),
}

impl Format {
    /// The names `?format=` takes.
    pub const NAMES: &'static [&'static str] = &["json", "ndjson", "csv", "parquet"];

    /// The format named `name`.
    pub fn named(name: &str) -> Option<Format> {
        match name.trim().to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "ndjson" | "jsonl" => Some(Format::Ndjson),
            "csv" => Some(Format::Csv),
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }

    /// The format an `Accept` header asks for first, of those exported.
    pub fn accepted(accept: &str) -> Option<Format> {
        accept.split(',').find_map(|part| {
            let media = part.split(';').next().unwrap_or_default().trim();
            match media.to_ascii_lowercase().as_str() {
                "application/x-ndjson" | "application/jsonl" | "application/json-seq" => {
                    Some(Format::Ndjson)
                }
                "text/csv" => Some(Format::Csv),
                "application/vnd.apache.parquet" | "application/x-parquet" => Some(Format::Parquet),
                _ => None,
            }
        })
    }

    /// Its media type.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Ndjson => "application/x-ndjson",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Parquet => "application/vnd.apache.parquet",
        }
    }

    /// Its file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Ndjson => "ndjson",
            Format::Csv => "csv",
            Format::Parquet => "parquet",
        }
    }

    /// A writer of this format.
    pub fn encoder(self) -> Encoder {
        Encoder {
            format: self,
            written: 0,
            parquet: None,
        }
    }
}

/// Writes review records in one format, a batch at a time: [`Encoder::begin`],
/// then [`Encoder::batch`] for each batch, then [`Encoder::end`].
#[derive(Debug)]
pub struct Encoder {
    format: Format,
    written: u64,
    parquet: Option<parquet::ParquetWriter>,
}

impl Encoder {
    /// What comes before the first review.
    pub fn begin(&mut self) -> Result<Vec<u8>, ExportError> {
        Ok(match self.format {
            Format::Json => b"[".to_vec(),
            Format::Ndjson => Vec::new(),
            Format::Csv => table::header(),
            Format::Parquet => self.opened_parquet()?,
        })
    }

    /// The bytes that open a Parquet file, the first time it is asked for
    /// (its writer made then); nothing after.
    fn opened_parquet(&mut self) -> Result<Vec<u8>, ExportError> {
        if self.parquet.is_some() {
            return Ok(Vec::new());
        }
        let mut writer = parquet::ParquetWriter::new()?;
        let head = writer.take()?;
        self.parquet = Some(writer);
        Ok(head)
    }

    /// One batch of review records.
    pub fn batch(&mut self, reviews: &[Value]) -> Result<Vec<u8>, ExportError> {
        if self.format == Format::Parquet {
            let mut bytes = self.opened_parquet()?;
            if let Some(writer) = &mut self.parquet {
                bytes.extend(writer.batch(reviews)?);
            }
            self.written += reviews.len() as u64;
            return Ok(bytes);
        }
        let mut out = Vec::with_capacity(reviews.len() * 512);
        for review in reviews {
            match self.format {
                Format::Json => {
                    if self.written > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(review.to_string().as_bytes());
                }
                Format::Ndjson => {
                    out.extend_from_slice(review.to_string().as_bytes());
                    out.push(b'\n');
                }
                Format::Csv | Format::Parquet => out.extend_from_slice(&table::row(review)),
            }
            self.written += 1;
        }
        Ok(out)
    }

    /// What comes after the last review.
    pub fn end(&mut self) -> Result<Vec<u8>, ExportError> {
        match self.format {
            Format::Json => Ok(b"]\n".to_vec()),
            Format::Parquet => {
                let mut bytes = self.opened_parquet()?;
                if let Some(writer) = &mut self.parquet {
                    bytes.extend(writer.finish()?);
                }
                Ok(bytes)
            }
            Format::Ndjson | Format::Csv => Ok(Vec::new()),
        }
    }

    /// Reviews written so far.
    pub fn written(&self) -> u64 {
        self.written
    }
}

/// Every review `store` holds for job `job_id` after review number `after`,
/// as one file in `format`, a batch of [`BATCH`] reviews per chunk. The same
/// bytes whether a client reads them (`GET /jobs/{id}/reviews?format=`) or
/// they go to object storage.
pub fn chunks(
    store: Arc<dyn Store>,
    job_id: String,
    after: u64,
    format: Format,
) -> impl Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + 'static {
    /// Where the stream is.
    enum Stage {
        Begin(u64),
        Batch(u64),
        End,
        Done,
    }
    let start = (Stage::Begin(after), format.encoder());
    futures_util::stream::unfold(start, move |(stage, mut encoder)| {
        let (store, job_id) = (store.clone(), job_id.clone());
        async move {
            let failed = |e: String| (Err(std::io::Error::other(e)), Stage::Done);
            let (chunk, next) = match stage {
                Stage::Begin(after) => match encoder.begin() {
                    Ok(bytes) => (Ok(bytes), Stage::Batch(after)),
                    Err(e) => failed(e.to_string()),
                },
                Stage::Batch(after) => match store.reviews(&job_id, after, BATCH).await {
                    Ok((reviews, next)) => match encoder.batch(&reviews) {
                        Ok(bytes) => (Ok(bytes), next.map_or(Stage::End, Stage::Batch)),
                        Err(e) => failed(e.to_string()),
                    },
                    Err(e) => failed(e.to_string()),
                },
                Stage::End => match encoder.end() {
                    Ok(bytes) => (Ok(bytes), Stage::Done),
                    Err(e) => failed(e.to_string()),
                },
                Stage::Done => return None,
            };
            Some((chunk, (next, encoder)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bytes(format: Format, batches: &[Vec<Value>]) -> Vec<u8> {
        let mut e = format.encoder();
        let mut out = e.begin().unwrap();
        for b in batches {
            out.extend(e.batch(b).unwrap());
        }
        out.extend(e.end().unwrap());
        out
    }

    fn export(format: Format, batches: &[Vec<Value>]) -> String {
        String::from_utf8(bytes(format, batches)).unwrap()
    }

    #[test]
    fn every_format_writes_batches_as_one_file() {
        let batches = vec![
            vec![json!({"review_id": "a"}), json!({"review_id": "b"})],
            vec![],
            vec![json!({"review_id": "c"})],
        ];
        let json: Value = serde_json::from_str(&export(Format::Json, &batches)).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 3);
        assert_eq!(export(Format::Json, &[]), "[]\n");
        assert_eq!(export(Format::Ndjson, &batches).lines().count(), 3);
        let csv = export(Format::Csv, &batches);
        assert_eq!(csv.lines().count(), 4, "{csv}");
        assert!(csv.starts_with("review_id,"));
        let parquet = bytes(Format::Parquet, &batches);
        assert!(parquet.starts_with(b"PAR1") && parquet.ends_with(b"PAR1"));
    }

    #[test]
    fn formats_are_named_or_negotiated() {
        assert_eq!(Format::named("CSV"), Some(Format::Csv));
        assert_eq!(Format::named("jsonl"), Some(Format::Ndjson));
        assert_eq!(Format::named("xml"), None);
        assert_eq!(Format::accepted("text/csv;q=0.9, */*"), Some(Format::Csv));
        assert_eq!(
            Format::accepted("application/x-ndjson"),
            Some(Format::Ndjson)
        );
        assert_eq!(Format::accepted("application/json"), None);
        assert_eq!(Format::named("parquet"), Some(Format::Parquet));
    }
}
