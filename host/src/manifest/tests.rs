//! Parsing and checking manifests.

use super::*;

const SOURCE: &str = r#"
name = "demo-source"
kind = "source"
route = "/demo-source/reviews"
version = "0.1.0"
[network]
allow = ["https://www.example.com", "https://*.example.org"]
[source]
continuation = "pagination_token"
sort = { field = "sort_type", type = "enum", values = ["recent", "popular"] }
"#;

#[test]
fn parses_a_source_manifest() {
    let m: Manifest = toml::from_str(SOURCE).unwrap();
    m.check().unwrap();
    assert_eq!(m.kind, Kind::Source);
    assert_eq!(m.limits.memory_mib, 128);
    assert_eq!(
        m.component_path(Path::new("/p/demo.toml")),
        Path::new("/p/demo-source.wasm")
    );
}

#[test]
fn rejects_broken_rules() {
    for (from, to) in [
        ("version = \"0.1.0\"", "version = \"one\""),
        ("route = \"/demo-source/reviews\"", "route = \"/admin/x\""),
        ("values = [\"recent\", \"popular\"]", "values = []"),
        ("name = \"demo-source\"", "name = \"../demo\""),
        ("name = \"demo-source\"", "name = \"demo/x\""),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"/tmp/x.wasm\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"../x.wasm\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"sub/x.wasm\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"x\\\\y.wasm\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"x\\u0000.wasm\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\ncomponent = \"..wasm\"",
        ),
    ] {
        let m: Manifest = toml::from_str(&SOURCE.replace(from, to)).unwrap();
        assert!(m.check().is_err(), "{to} should be rejected");
    }
}
