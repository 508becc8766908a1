//! Quality benchmarks (`make eval`): each processor measured on data it was not
//! tuned on, printed and written to `target/eval/report.md`.
//!
//! Sets the project wrote itself live in `eval/` and are always run.
//! Third-party sets (licences other than ours) are read from the directory in
//! `GLEANER_EVAL_DATA`; a set that is not there is skipped with a line saying
//! where it comes from and how to place it (see `eval/README.md`).
//!
//! Every processor is called through the server as served: the built plugins
//! in `target/plugins` (`make plugins`), an in-process server on a loopback
//! port, and the website processors' upstream traffic answered from a HAR file
//! the benchmark writes from the sets' pages.
//!
//! A benchmark is one module with `exchanges` (the upstream pages it needs, if
//! any) and `run` (which posts to a route and records scores with `score`).

use std::path::{Path, PathBuf};

mod data;
mod score;
mod server;

mod duplicates;
mod enhance;
mod highlight;
mod insights;
mod language;
mod markup;
mod sites;
mod speakers;

/// The repository's root.
fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let data = data::Data::from_env(&root());
    score::header(&data);

    let mut exchanges = Vec::new();
    if wanted("sites") {
        exchanges.extend(sites::exchanges(&data)?);
    }
    if wanted("markup") {
        exchanges.extend(markup::exchanges(&data)?);
    }
    let server = server::Server::start(&root(), exchanges).await?;

    if wanted("sites") {
        sites::run(&server, &data).await?;
    }
    if wanted("markup") {
        markup::run(&server, &data).await?;
    }
    if wanted("highlight") {
        highlight::run(&server, &data).await?;
    }
    if wanted("enhance") {
        enhance::run(&server, &data).await?;
    }
    if wanted("speakers") {
        speakers::run(&server, &data).await?;
    }
    if wanted("language") {
        language::run(&data)?;
    }
    if wanted("insights") {
        insights::run(&server, &data).await?;
    }
    if wanted("insights-stars") {
        insights::stars::run(&server, &data).await?;
    }
    if wanted("duplicates") {
        duplicates::run(&data)?;
    }
    score::write(&root().join("target/eval/report.md"))
}
