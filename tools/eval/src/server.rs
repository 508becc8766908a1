//! The server the benchmarks call: the built plugins, in-process, on a loopback
//! port, with upstream traffic answered from the sets' pages.

use std::net::SocketAddr;
use std::path::Path;
use std::time::SystemTime;

use gleaner::capabilities::http::har::{to_har_json, Exchange};
use gleaner::config::Config;
use gleaner::App;
use serde_json::Value;

/// A running server and a client for it.
pub struct Server {
    addr: SocketAddr,
    client: reqwest::Client,
    _har: tempfile::TempDir,
}

impl Server {
    /// Serves the plugins in `GLEANER_EVAL_PLUGINS` (default `root/target/plugins`),
    /// answering outbound requests from `exchanges`.
    pub async fn start(root: &Path, exchanges: Vec<Exchange>) -> anyhow::Result<Server> {
        let plugin_dir = std::env::var_os("GLEANER_EVAL_PLUGINS")
            .map_or_else(|| root.join("target/plugins"), std::path::PathBuf::from);
        crate::score::note(format!("plugins: {}", plugin_dir.display()));
        let har = tempfile::tempdir()?;
        let har_file = har.path().join("eval.har");
        let now = SystemTime::now();
        let entries: Vec<_> = exchanges.into_iter().map(|e| (e, now, 1.0)).collect();
        std::fs::write(&har_file, serde_json::to_vec(&to_har_json(&entries))?)?;
        let config = Config {
            plugin_dir,
            cache_dir: Some(root.join("target/gleaner-cache")),
            replay: Some(har_file),
            watch: false,
            ..Config::default()
        };
        let app = App::build(config).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        tokio::spawn(app.serve(listener, std::future::pending()));
        Ok(Server {
            addr,
            client: reqwest::Client::new(),
            _har: har,
        })
    }

    /// Posts `body` to `route`; returns the status and the JSON answer.
    pub async fn post(&self, route: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let answer = self
            .client
            .post(format!("http://{}{route}", self.addr))
            .json(body)
            .send()
            .await?;
        let status = answer.status().as_u16();
        let json = answer.json().await.unwrap_or(Value::Null);
        Ok((status, json))
    }
}

/// An exchange answering `GET url` with `status`, `content_type` and `body`.
pub fn page(url: &str, status: u16, content_type: &str, body: Vec<u8>) -> Exchange {
    Exchange {
        method: "GET".into(),
        url: url.to_owned(),
        request_headers: Vec::new(),
        request_body: None,
        status,
        response_headers: vec![("content-type".into(), content_type.to_owned())],
        response_body: body,
    }
}
