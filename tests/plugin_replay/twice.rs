//! Every source's recordings fetched twice give no change: each replay case
//! that a source answers with reviews is sent twice, and every review of the
//! second answer has the content fingerprint of the first's (the one a
//! tracked schedule compares), so reading a page again never reports an
//! edit, a reply or a removal that did not happen. One test per source; a
//! source missing from the list fails [`every_source_is_fetched_twice`].

use std::collections::BTreeMap;

use gleaner::record::fingerprint;
use serde_json::Value;

use super::{every_plugin_with_cases, has_har, serve};

/// The reviews of an answer, by id.
fn by_id(answer: &Value) -> BTreeMap<String, Value> {
    let reviews = answer["all_reviews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    reviews
        .into_iter()
        .map(|r| (r["review_id"].as_str().unwrap_or_default().to_owned(), r))
        .collect()
}

/// Sends each of `name`'s cases (those that stand alone and are answered
/// 200) twice, and returns how many reviews were compared, and what differed.
async fn fetched_twice(name: &str) -> (usize, Vec<String>) {
    let (cases, dir, manifest) = super::replay_of(name);
    let replay = has_har(&dir).then(|| dir.clone());
    // Each fetch on a server of its own: a recording may hold one visit of
    // a page (a site that answers a second visit otherwise).
    let (served, again) = (
        serve(name, &replay, &cases.settings).await,
        serve(name, &replay, &cases.settings).await,
    );
    let (mut compared, mut problems) = (0, Vec::new());
    for case in &cases.case {
        if !case.answered_alone() {
            continue;
        }
        let body: Value = serde_json::from_str(&case.request).unwrap();
        let (_, first) = served.server.post(&manifest.route, body.clone()).await;
        let (_, second) = again.server.post(&manifest.route, body).await;
        let (first, second) = (by_id(&first), by_id(&second));
        if first.keys().ne(second.keys()) {
            problems.push(format!(
                "{name}: {}: other reviews the second time",
                case.name
            ));
            continue;
        }
        for (id, review) in &first {
            let (was, is) = (
                fingerprint::of_record(review),
                fingerprint::of_record(&second[id]),
            );
            let changed = fingerprint::changes(&was, &is);
            if !changed.is_empty() || was.fingerprint != is.fingerprint {
                problems.push(format!("{name}: {}: {id} changed: {changed:?}", case.name));
            }
            compared += 1;
        }
    }
    (compared, problems)
}

macro_rules! twice {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[tokio::test]
            async fn $test() {
                let (compared, problems) = fetched_twice($name).await;
                assert!(problems.is_empty(), "{}", problems.join("\n"));
                assert!(compared > 0, "{}: no review was compared", $name);
                println!("ok    {}: {compared} reviews fetched twice, no change", $name);
            }
        )*

        /// The sources fetched twice (the review sources with replay cases).
        pub(super) const SOURCES: &[&str] = &[$($name),*];
    };
}

review_sources!(twice);

#[test]
fn every_source_is_fetched_twice() {
    let mut sources: Vec<String> = every_plugin_with_cases()
        .into_iter()
        .filter(|(name, _)| !name.starts_with("test-"))
        .filter(|(name, _)| {
            let manifest = super::manifest_of(name);
            // The forum source answers posts, which no schedule tracks.
            manifest.kind == gleaner::manifest::Kind::Source && !manifest.route.ends_with("/post")
        })
        .map(|(name, _)| name)
        .collect();
    sources.sort();
    assert_eq!(sources, SOURCES, "the review sources with replay cases");
}
