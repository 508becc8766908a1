//! Object storage for job exports: the operator's S3-compatible bucket
//! (`[export]` in the configuration, `GLEANER_EXPORT_S3_*`), written through
//! the `object_store` crate when a job that asked for an export ends. The
//! destination is the operator's alone: a request names a format, never an
//! endpoint, so exports open no new path to arbitrary hosts.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::client::{
    ClientOptions, HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse,
    HttpResponseBody, HttpService,
};
use object_store::path::Path;
use object_store::{Attribute, Attributes, ObjectStore, RetryConfig};
use serde::Deserialize;
use tokio::io::AsyncWriteExt;

use super::Format;
use gleaner_jobs::model::{Export, Job};
use gleaner_jobs::store::Store;

/// The largest part held before it is uploaded: objects past it go up as a
/// multipart upload, a part at a time.
const PART_BYTES: usize = 8 * 1024 * 1024;

/// Operator settings of the export bucket (`[export]`).
#[derive(Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// `s3://bucket/prefix` (`GLEANER_EXPORT_S3_URL`); unset, jobs cannot ask
    /// for exports.
    pub s3_url: Option<String>,
    /// An S3-compatible endpoint, e.g. `https://minio.internal:9000`
    /// (`GLEANER_EXPORT_S3_ENDPOINT`); unset, AWS's own for the region.
    pub s3_endpoint: Option<String>,
    /// The bucket's region (`GLEANER_EXPORT_S3_REGION`, default `us-east-1`).
    pub s3_region: Option<String>,
    /// The access key id (`GLEANER_EXPORT_S3_ACCESS_KEY_ID`).
    pub s3_access_key_id: Option<String>,
    /// The secret access key (`GLEANER_EXPORT_S3_SECRET_ACCESS_KEY`).
    pub s3_secret_access_key: Option<String>,
    /// The wait before a failed upload's second attempt, ms; each next waits
    /// twice as long (`GLEANER_EXPORT_RETRY_BASE_MS`).
    pub retry_base_ms: u64,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            s3_url: None,
            s3_endpoint: None,
            s3_region: None,
            s3_access_key_id: None,
            s3_secret_access_key: None,
            retry_base_ms: 2_000,
        }
    }
}

impl std::fmt::Debug for StorageConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |v: &Option<String>| v.as_ref().map(|_| "[set]");
        f.debug_struct("StorageConfig")
            .field("s3_url", &self.s3_url)
            .field("s3_endpoint", &self.s3_endpoint)
            .field("s3_region", &self.s3_region)
            .field("s3_access_key_id", &set(&self.s3_access_key_id))
            .field("s3_secret_access_key", &set(&self.s3_secret_access_key))
            .field("retry_base_ms", &self.retry_base_ms)
            .finish()
    }
}

/// A setting of [`StorageConfig`] the server cannot use.
#[derive(Debug, thiserror::Error)]
#[error("{setting} is {value:?}: {hint}")]
pub struct StorageError {
    /// The setting, with its variable.
    pub setting: &'static str,
    /// What it was set to (never a secret).
    pub value: String,
    /// How to fix it.
    pub hint: String,
}

/// Where `s3://bucket/prefix` points: the bucket and the prefix (no slashes
/// at its ends; empty for the bucket's top).
pub fn parse_url(url: &str) -> Result<(String, String), StorageError> {
    let invalid = |hint: &str| StorageError {
        setting: "[export] s3_url (GLEANER_EXPORT_S3_URL)",
        value: url.to_owned(),
        hint: hint.to_owned(),
    };
    let rest = url
        .strip_prefix("s3://")
        .ok_or_else(|| invalid("give s3://bucket or s3://bucket/prefix"))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let valid_bucket = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if !valid_bucket {
        return Err(invalid(
            "the bucket name has 3 to 63 lower-case letters, digits, dots and hyphens",
        ));
    }
    Ok((bucket.to_owned(), prefix.trim_matches('/').to_owned()))
}

impl StorageConfig {
    /// The exporter these settings describe, or none when no bucket is set.
    pub fn exporter(&self) -> Result<Option<ObjectExporter>, StorageError> {
        let Some(url) = &self.s3_url else {
            return Ok(None);
        };
        let (bucket, prefix) = parse_url(url)?;
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region(self.s3_region.as_deref().unwrap_or("us-east-1"))
            // The connector's client holds the timeouts.
            .with_http_connector(Connector)
            // A few quick retries inside one attempt; the jobs engine spaces
            // out the attempts themselves, each recorded in the job's status.
            .with_retry(RetryConfig {
                max_retries: 2,
                retry_timeout: Duration::from_secs(30),
                ..Default::default()
            });
        if let Some(endpoint) = &self.s3_endpoint {
            let parsed = url::Url::parse(endpoint).ok();
            let scheme = parsed.as_ref().map(url::Url::scheme);
            if !matches!(scheme, Some("http" | "https")) {
                return Err(StorageError {
                    setting: "[export] s3_endpoint (GLEANER_EXPORT_S3_ENDPOINT)",
                    value: endpoint.clone(),
                    hint: "give the store's base URL, e.g. https://minio.internal:9000".into(),
                });
            }
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(scheme == Some("http"));
        }
        match (&self.s3_access_key_id, &self.s3_secret_access_key) {
            (Some(id), Some(secret)) => {
                builder = builder
                    .with_access_key_id(id)
                    .with_secret_access_key(secret);
            }
            (None, None) => {} // the instance's role, from its metadata service
            _ => {
                return Err(StorageError {
                    setting: "[export] s3_access_key_id and s3_secret_access_key \
                              (GLEANER_EXPORT_S3_ACCESS_KEY_ID, GLEANER_EXPORT_S3_SECRET_ACCESS_KEY)",
                    value: "one of the two".into(),
                    hint: "set both, or neither to use the instance's role".into(),
                })
            }
        }
        let store = builder.build().map_err(|e| StorageError {
            setting: "[export] (GLEANER_EXPORT_S3_*)",
            value: url.clone(),
            hint: e.to_string(),
        })?;
        Ok(Some(ObjectExporter {
            store: Arc::new(store),
            prefix,
        }))
    }
}

/// Writes exports to one bucket, under one prefix.
#[derive(Debug, Clone)]
pub struct ObjectExporter {
    /// The bucket.
    pub store: Arc<dyn ObjectStore>,
    /// The prefix keys start with (empty: the bucket's top).
    pub prefix: String,
}

/// The key of `job`'s export in `format`: `<prefix>/<endpoint label>/<job id>.<ext>`,
/// the label being the endpoint's first segment (`/design-market/reviews`
/// gives `design-market`).
pub fn key(prefix: &str, job: &Job, format: Format) -> String {
    let label = job
        .endpoint
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("reviews");
    let name = format!("{label}/{}.{}", job.job_id, format.extension());
    match prefix {
        "" => name,
        prefix => format!("{prefix}/{name}"),
    }
}

#[async_trait]
impl gleaner_jobs::Exporter for ObjectExporter {
    fn key(&self, job: &Job, export: &Export) -> String {
        let format = Format::named(&export.format).unwrap_or(Format::Ndjson);
        key(&self.prefix, job, format)
    }

    async fn write(
        &self,
        store: Arc<dyn Store>,
        job: &Job,
        export: &Export,
        key: &str,
    ) -> Result<u64, String> {
        let format = Format::named(&export.format).ok_or_else(|| {
            format!(
                "the export format {:?} is not one this server writes ({})",
                export.format,
                Format::NAMES.join(", ")
            )
        })?;
        let attributes = Attributes::from_iter([(Attribute::ContentType, format.content_type())]);
        let mut upload = BufWriter::with_capacity(self.store.clone(), Path::from(key), PART_BYTES)
            .with_attributes(attributes);
        let mut chunks = std::pin::pin!(super::chunks(store, job.job_id.clone(), 0, format));
        let mut bytes = 0u64;
        let failed = |e: &dyn std::fmt::Display| format!("writing s3 object {key}: {e}");
        while let Some(chunk) = chunks.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(e) => {
                    let _ = upload.abort().await;
                    return Err(format!("reading the job's reviews: {e}"));
                }
            };
            bytes += chunk.len() as u64;
            if let Err(e) = upload.put(chunk.into()).await {
                let _ = upload.abort().await;
                return Err(failed(&e));
            }
        }
        upload.shutdown().await.map_err(|e| failed(&e))?;
        Ok(bytes)
    }
}

/// Sends the bucket's requests through the server's own HTTP client (reqwest,
/// rustls with ring), so object storage adds no second TLS stack.
#[derive(Debug)]
struct Connector;

impl HttpConnector for Connector {
    fn connect(&self, _options: &ClientOptions) -> object_store::Result<HttpClient> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "S3",
                source: Box::new(e),
            })?;
        Ok(HttpClient::new(Client(client)))
    }
}

/// The server's reqwest client as `object_store`'s HTTP service.
#[derive(Debug)]
struct Client(reqwest::Client);

#[async_trait]
impl HttpService for Client {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (parts, body) = request.into_parts();
        let url = reqwest::Url::parse(&parts.uri.to_string())
            .map_err(|e| HttpError::new(HttpErrorKind::Request, e))?;
        let mut outgoing = reqwest::Request::new(parts.method, url);
        *outgoing.headers_mut() = parts.headers;
        *outgoing.body_mut() = Some(reqwest::Body::wrap(body));
        let response = self.0.execute(outgoing).await.map_err(|e| {
            let kind = match () {
                _ if e.is_timeout() => HttpErrorKind::Timeout,
                _ if e.is_connect() => HttpErrorKind::Connect,
                _ if e.is_decode() => HttpErrorKind::Decode,
                _ => HttpErrorKind::Request,
            };
            HttpError::new(kind, e)
        })?;
        let response: http::Response<reqwest::Body> = response.into();
        let (parts, body) = response.into_parts();
        let body = http_body_util::BodyExt::map_err(body, |e| {
            HttpError::new(HttpErrorKind::Interrupted, e)
        });
        Ok(HttpResponse::from_parts(parts, HttpResponseBody::new(body)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_names_a_bucket_and_a_prefix() {
        assert_eq!(
            parse_url("s3://reviews-bucket/exports/daily/").unwrap(),
            ("reviews-bucket".into(), "exports/daily".into())
        );
        assert_eq!(
            parse_url("s3://reviews-bucket").unwrap(),
            ("reviews-bucket".into(), String::new())
        );
        for bad in ["https://bucket/x", "s3://", "s3://Upper/x", "s3://a"] {
            let e = parse_url(bad).unwrap_err();
            assert!(e.to_string().contains("GLEANER_EXPORT_S3_URL"), "{e}");
        }
    }

    #[test]
    fn one_of_the_two_keys_is_refused() {
        let config = StorageConfig {
            s3_url: Some("s3://bucket/p".into()),
            s3_access_key_id: Some("AKIA".into()),
            ..Default::default()
        };
        let e = config.exporter().unwrap_err().to_string();
        assert!(e.contains("set both"), "{e}");
        let config = StorageConfig {
            s3_url: Some("s3://bucket/p".into()),
            s3_endpoint: Some("ftp://store".into()),
            ..Default::default()
        };
        let e = config.exporter().unwrap_err().to_string();
        assert!(e.contains("GLEANER_EXPORT_S3_ENDPOINT"), "{e}");
    }

    #[test]
    fn keys_are_prefix_label_and_job() {
        let job: Job = serde_json::from_value(serde_json::json!({
            "job_id": "abc", "owner": "o", "endpoint": "/design-market/reviews",
            "request": {}, "total": null, "state": "succeeded", "position": null,
            "reviews_collected": 0, "pages_fetched": 0, "stop_reason": null, "error": null,
            "created_at": 0, "started_at": null, "finished_at": null, "webhook": null,
            "schedule_id": null, "cancel_requested": false
        }))
        .unwrap();
        assert_eq!(
            key("exports", &job, Format::Parquet),
            "exports/design-market/abc.parquet"
        );
        assert_eq!(key("", &job, Format::Csv), "design-market/abc.csv");
    }
}
