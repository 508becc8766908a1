//! The optional parts compiled into this binary (cargo features), for
//! `/healthz`, and the error that names a missing one and how to build it.

/// The optional parts this binary was built with, by cargo feature name.
pub fn compiled() -> Vec<&'static str> {
    let mut parts = Vec::new();
    if cfg!(feature = "cluster") {
        parts.push("cluster");
    }
    if cfg!(feature = "browser") {
        parts.push("browser");
    }
    if cfg!(feature = "browser-tls") {
        parts.push("browser-tls");
    }
    parts
}

/// Something this binary cannot do because it was built without `feature`.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "this server was built without the `{feature}` feature, which {needed_for} needs; \
     build the full server with `make run` (or `cargo build --release -p gleaner --features {feature}`)"
)]
pub struct Missing {
    /// The cargo feature.
    pub feature: &'static str,
    /// What needs it, in words.
    pub needed_for: &'static str,
}

impl Missing {
    /// `feature` is missing for `needed_for`.
    pub fn new(feature: &'static str, needed_for: &'static str) -> Missing {
        Missing {
            feature,
            needed_for,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_feature_names_itself_and_the_make_target() {
        let m = Missing::new("browser-tls", "a browser request").to_string();
        assert!(m.contains("`browser-tls` feature"), "{m}");
        assert!(m.contains("make run"), "{m}");
    }

    #[test]
    fn compiled_lists_only_known_features() {
        for f in compiled() {
            assert!(["cluster", "browser", "browser-tls"].contains(&f));
        }
    }
}
