//! A captured webhook delivery sent again must be recognisable: every
//! delivery carries `Gleaner-Delivery-Id`, the same on each attempt of it and
//! different for every other, and the signature covers it, so a receiver that
//! keeps the ids of the last five minutes refuses a replay.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::jobs::{finished, job_request, receiver, send, server, Site, KEY};

#[tokio::test]
async fn each_delivery_has_a_signed_id_of_its_own() {
    let site = Site::with(5);
    let addr = site.serve().await;
    let (receiver, seen) = receiver(|_| axum::http::StatusCode::OK).await;
    let s = server(addr, move |c| {
        c.api_keys = vec![KEY.into()];
        c.upstream_override
            .insert("hooks.example".into(), format!("http://{receiver}"));
    })
    .await;
    let secret = "the-receiver-secret-0123";
    for _ in 0..2 {
        let mut body = job_request(None);
        body["webhook"] = json!({"url": "https://hooks.example/hook", "secret": secret});
        let (status, job) = send(&s, reqwest::Method::POST, "/jobs", KEY, Some(body)).await;
        assert_eq!(status, 202, "{job}");
        finished(
            &s,
            job["job_id"].as_str().unwrap(),
            KEY,
            Duration::from_secs(20),
        )
        .await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while seen.lock().unwrap().len() < 2 {
        assert!(std::time::Instant::now() < deadline, "two deliveries");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let deliveries = seen.lock().unwrap().clone();
    let mut ids = Vec::new();
    for (headers, raw) in &deliveries {
        let id = headers
            .get("gleaner-delivery-id")
            .expect("a delivery names its id")
            .to_str()
            .unwrap()
            .to_owned();
        let signature = headers["gleaner-signature"].to_str().unwrap();
        let (t, v1) = signature.split_once(',').unwrap();
        let (t, v1) = (t.trim_start_matches("t="), v1.trim_start_matches("v1="));
        let hmac = |text: String| {
            let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
            mac.update(text.as_bytes());
            hex::encode(mac.finalize().into_bytes())
        };
        assert_eq!(v1, hmac(format!("{t}.{id}.{raw}")), "the id is signed");
        assert_ne!(v1, hmac(format!("{t}.{raw}")));
        let event: Value = serde_json::from_str(raw).unwrap();
        assert!(
            id.starts_with(event["job"]["job_id"].as_str().unwrap()),
            "{id}"
        );
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1], "each delivery has its own id");
}
