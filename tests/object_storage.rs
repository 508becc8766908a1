//! Exports to object storage, against a real S3 API: moto's server (from
//! PyPI, installed by `make test-s3`, which names its Python in
//! `GLEANER_MOTO_PYTHON`) started on a free loopback port. A job writes its
//! reviews when it ends, a schedule one object per run, the job status says
//! where and how big, and a failed upload is tried again until the store
//! answers. Each object is read back and checked review by review.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::jobs::{finished, job_request, send, server, Site, HUB, KEY, QUERY};

const BUCKET: &str = "gleaner-exports";
const ACCESS_KEY_ID: &str = "AKIAGLEANEREXPORT001";
const SECRET_ACCESS_KEY: &str = "gleaner-export-secret/0123456789abcdefXYZ";

/// moto's S3 server, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    /// A free loopback port nothing listens on.
    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    /// moto on `port`, once it answers, with the bucket made.
    async fn start(port: u16) -> Moto {
        let python = std::env::var("GLEANER_MOTO_PYTHON")
            .expect("GLEANER_MOTO_PYTHON names the Python that has moto: run `make test-s3`");
        let child = Command::new(python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto's server starts");
        let moto = Moto { child, port };
        let started = Instant::now();
        loop {
            let made = reqwest::Client::new()
                .put(moto.url(BUCKET))
                .send()
                .await
                .map(|r| r.status().is_success());
            if made.unwrap_or(false) {
                return moto;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "moto did not answer on port {port}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// The object `key` of the bucket, read with the test's credentials.
    async fn object(&self, key: &str) -> Vec<u8> {
        let storage = gleaner::export::storage::StorageConfig {
            s3_url: Some(format!("s3://{BUCKET}")),
            s3_endpoint: Some(self.url("").trim_end_matches('/').to_owned()),
            s3_access_key_id: Some(ACCESS_KEY_ID.into()),
            s3_secret_access_key: Some(SECRET_ACCESS_KEY.into()),
            ..Default::default()
        };
        let bucket = storage.exporter().unwrap().unwrap().store;
        use object_store::ObjectStoreExt;
        let path = object_store::path::Path::from(key);
        let object = bucket
            .get(&path)
            .await
            .unwrap_or_else(|e| panic!("{key} is not in the bucket: {e}"));
        object.bytes().await.unwrap().to_vec()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server for `site` that exports to the S3 API on `port`, under `prefix`.
async fn exporting(site: &Site, port: u16, prefix: &str) -> crate::common::Server {
    let url = format!("s3://{BUCKET}/{prefix}");
    server(site.serve().await, move |c| {
        c.api_keys = vec![KEY.into()];
        c.export.s3_url = Some(url);
        c.export.s3_endpoint = Some(format!("http://127.0.0.1:{port}"));
        c.export.s3_region = Some("eu-west-1".into());
        c.export.s3_access_key_id = Some(ACCESS_KEY_ID.into());
        c.export.s3_secret_access_key = Some(SECRET_ACCESS_KEY.into());
        c.export.retry_base_ms = 200;
    })
    .await
}

/// Waits until job `id`'s export is no longer pending; the job's status.
async fn exported(s: &crate::common::Server, id: &str) -> Value {
    let started = Instant::now();
    loop {
        let (_, job) = send(s, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["export"]["state"] != "pending" {
            return job;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "job {id}'s export is still pending: {job}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Submits a job of every review of the site with `export`; its id.
async fn submit_exporting(s: &crate::common::Server, format: &str) -> String {
    let mut body = job_request(None);
    body["export"] = json!({ "format": format });
    let (status, job) = send(s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
    assert_eq!(status, 202, "{job}");
    assert_eq!(job["export"]["state"], "pending", "{job}");
    job["job_id"].as_str().unwrap().to_owned()
}

fn no_credentials(text: &str) {
    assert!(!text.contains(ACCESS_KEY_ID), "{text}");
    assert!(!text.contains("0123456789abcdefXYZ"), "{text}");
}

/// The review ids of a Parquet file, in order.
fn parquet_ids(file: Vec<u8>) -> Vec<String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let reader = SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
    let column = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| c.name() == "review_id")
        .unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().get_string(column).unwrap().clone())
        .collect()
}

#[tokio::test]
#[ignore = "needs moto's S3 server: make test-s3"]
async fn a_job_writes_its_reviews_to_the_bucket_when_it_ends() {
    let moto = Moto::start(Moto::free_port()).await;
    let site = Site::with(45);
    let s = exporting(&site, moto.port, "reviews/daily").await;

    for format in ["parquet", "csv", "ndjson"] {
        let id = submit_exporting(&s, format).await;
        let done = finished(&s, &id, KEY, Duration::from_secs(60)).await;
        assert_eq!(done["state"], "succeeded", "{done}");
        let job = exported(&s, &id).await;
        no_credentials(&job.to_string());
        let export = &job["export"];
        assert_eq!(export["state"], "written", "{job}");
        assert_eq!(export["format"], format);
        let key = format!("reviews/daily/customer-feedback-hub/{id}.{format}");
        assert_eq!(export["key"], key.as_str(), "{job}");
        assert_eq!(export["error"], Value::Null, "{job}");
        let object = moto.object(&key).await;
        assert_eq!(export["bytes"], object.len() as u64, "{job}");
        let ids: Vec<String> = match format {
            "parquet" => parquet_ids(object),
            "csv" => csv::Reader::from_reader(object.as_slice())
                .records()
                .map(|r| r.unwrap()[0].to_owned())
                .collect(),
            _ => String::from_utf8(object)
                .unwrap()
                .lines()
                .map(|l| {
                    let v: Value = serde_json::from_str(l).unwrap();
                    v["review_id"].as_str().unwrap().to_owned()
                })
                .collect(),
        };
        assert_eq!(ids, site.ids(), "{format}: every review, in order");
    }
}

#[tokio::test]
#[ignore = "needs moto's S3 server: make test-s3"]
async fn a_schedule_writes_one_object_per_run() {
    let moto = Moto::start(Moto::free_port()).await;
    let site = Site::with(12);
    let s = exporting(&site, moto.port, "").await;
    let body = json!({
        "endpoint": HUB, "request": {"query": QUERY}, "every": "1h",
        "export": {"format": "ndjson"}
    });
    let (status, schedule) = send(&s, reqwest::Method::POST, "/schedules", KEY, Some(body)).await;
    assert_eq!(status, 201, "{schedule}");
    assert_eq!(schedule["export"], json!({"format": "ndjson"}));
    let id = schedule["schedule_id"].as_str().unwrap();
    let mut lines = Vec::new();
    for _ in 0..2 {
        site.add_newer(3);
        let (done, _) = crate::jobs::run_once(&s, id).await;
        let job = exported(&s, done["job_id"].as_str().unwrap()).await;
        assert_eq!(job["export"]["state"], "written", "{job}");
        let key = job["export"]["key"].as_str().unwrap().to_owned();
        assert_eq!(
            key,
            format!(
                "customer-feedback-hub/{}.ndjson",
                job["job_id"].as_str().unwrap()
            )
        );
        let object = moto.object(&key).await;
        lines.push(String::from_utf8(object).unwrap().lines().count() as u64);
        assert_eq!(lines.last(), job["reviews_collected"].as_u64().as_ref());
    }
    // The first run delivered everything, the second only the three new.
    assert_eq!(lines, vec![15, 3]);
}

#[tokio::test]
#[ignore = "needs moto's S3 server: make test-s3"]
async fn a_failed_upload_is_tried_again_until_the_store_answers() {
    let port = Moto::free_port();
    let site = Site::with(20);
    let s = exporting(&site, port, "retried").await;
    let id = submit_exporting(&s, "csv").await;
    finished(&s, &id, KEY, Duration::from_secs(60)).await;
    // Nothing listens yet: attempts fail, are recorded, and wait.
    let started = Instant::now();
    let failed = loop {
        let (_, job) = send(&s, reqwest::Method::GET, &format!("/jobs/{id}"), KEY, None).await;
        if job["export"]["attempts"].as_u64() >= Some(2) {
            break job;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(failed["export"]["state"], "pending", "{failed}");
    let error = failed["export"]["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("retried/customer-feedback-hub/{id}.csv")),
        "{error}"
    );
    no_credentials(&failed.to_string());
    // The store comes up: the next attempt writes the object.
    let moto = Moto::start(port).await;
    let job = exported(&s, &id).await;
    assert_eq!(job["export"]["state"], "written", "{job}");
    assert!(job["export"]["attempts"].as_u64().unwrap() > 2, "{job}");
    let object = moto.object(job["export"]["key"].as_str().unwrap()).await;
    let rows = csv::Reader::from_reader(object.as_slice())
        .records()
        .count();
    assert_eq!(rows, 20);
}
