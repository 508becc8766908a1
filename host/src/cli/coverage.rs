//! `gleaner coverage`: the fill rate of each record field per source, from
//! the manifests of the plugin directory (what `GET /sources` serves), as a
//! Markdown table: a row per field, a column per source.

use crate::manifest::coverage::fields;
use crate::manifest::{Kind, Manifest};

/// The table for `manifests`; sources without fill rates get a dash.
pub fn table(manifests: &[Manifest]) -> String {
    let mut sources: Vec<&Manifest> = manifests
        .iter()
        .filter(|m| m.kind == Kind::Source)
        .collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::from("| field |");
    for m in &sources {
        out.push_str(&format!(" {} |", m.name));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(sources.len()));
    out.push_str("\n| reviews measured |");
    for m in &sources {
        match &m.coverage {
            Some(c) => out.push_str(&format!(" {} |", c.reviews)),
            None => out.push_str(" — |"),
        }
    }
    for field in fields() {
        out.push_str(&format!("\n| `{field}` |"));
        for m in &sources {
            match m.coverage.as_ref().and_then(|c| c.fields.get(field)) {
                Some(rate) => out.push_str(&format!(" {:.0}% |", rate * 100.0)),
                None => out.push_str(" — |"),
            }
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_field_and_a_column_per_source() {
        let manifest: Manifest = toml::from_str(
            r#"name = "s"
kind = "source"
route = "/s/reviews"
version = "0.1.0"
[source]
continuation = "pagination_token"
[coverage]
reviews = 4
review_title = 0.25
"#,
        )
        .unwrap();
        let table = table(&[manifest]);
        assert!(table.starts_with("| field | s |"), "{table}");
        assert!(table.contains("| reviews measured | 4 |"), "{table}");
        assert!(table.contains("| `review_title` | 25% |"), "{table}");
        assert!(table.contains("| `review_text` | — |"), "{table}");
    }
}
