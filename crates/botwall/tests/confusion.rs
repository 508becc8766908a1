//! The classifier on every fixture page: the confusion table of expected
//! against found, printed, and every page where it belongs.

use std::collections::BTreeMap;
use std::path::Path;

use gleaner_botwall::{classify, Response, Wall};

#[derive(serde::Deserialize)]
struct Index {
    page: Vec<Page>,
}

#[derive(serde::Deserialize)]
struct Page {
    file: String,
    status: u16,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    url: Option<String>,
    expect: String,
}

fn code(found: Option<Wall>) -> &'static str {
    found.map_or("content", Wall::code)
}

#[test]
fn every_fixture_is_classified_as_expected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let index: Index =
        toml::from_str(&std::fs::read_to_string(dir.join("index.toml")).unwrap()).unwrap();
    let labels: Vec<&str> = Wall::ALL
        .iter()
        .map(|w| w.code())
        .chain(["content"])
        .collect();
    let mut table: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for page in &index.page {
        let body = std::fs::read(dir.join(&page.file)).unwrap();
        let headers: Vec<(String, String)> = page.headers.clone().into_iter().collect();
        let url = page
            .url
            .clone()
            .unwrap_or_else(|| "https://www.example.com/reviews".into());
        let found = code(classify(&Response {
            status: page.status,
            headers: &headers,
            final_url: &url,
            body: &body,
        }));
        assert!(
            labels.contains(&page.expect.as_str()),
            "unknown label {}",
            page.expect
        );
        *table.entry((page.expect.clone(), found)).or_default() += 1;
        if found != page.expect {
            wrong.push(format!(
                "{} (HTTP {}): expected {}, found {found}",
                page.file, page.status, page.expect
            ));
        }
    }
    println!("expected \\ found: {}", labels.join(" | "));
    for expected in &labels {
        let row: Vec<String> = labels
            .iter()
            .map(|found| {
                table
                    .get(&(expected.to_string(), *found))
                    .copied()
                    .unwrap_or(0)
                    .to_string()
            })
            .collect();
        println!("{expected}: {}", row.join(" | "));
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
    for wall in Wall::ALL {
        assert!(
            index.page.iter().any(|p| p.expect == wall.code()),
            "no fixture for {}",
            wall.code()
        );
    }
}
