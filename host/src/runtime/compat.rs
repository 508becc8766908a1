//! The version check: a component must speak this host's `gleaner:plugin` package
//! version and export the interface its manifest's kind requires.

use wasmtime::component::Component;
use wasmtime::Engine;

use crate::manifest::Kind;

/// The WIT package this host implements.
pub const PACKAGE: &str = "gleaner:plugin";
/// Its version.
pub const PACKAGE_VERSION: &str = "0.4.0";

/// Checks the component's `gleaner:plugin` imports and exports against this host.
pub fn check(engine: &Engine, component: &Component, kind: Kind) -> Result<(), String> {
    let ty = component.component_type();
    let host = semver::Version::parse(PACKAGE_VERSION).expect("valid package version");
    let imports: Vec<String> = ty
        .imports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    let exports: Vec<String> = ty
        .exports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    for name in imports.iter().chain(exports.iter()) {
        let Some((interface, version)) = split_ours(name) else {
            continue;
        };
        let Some(version) = version else {
            return Err(format!(
                "the component uses {name} without a package version; rebuild it against {PACKAGE}@{PACKAGE_VERSION}"
            ));
        };
        if !compatible(&host, &version) {
            return Err(format!(
                "the component was built against {PACKAGE}@{version} (it uses {interface}), but this host speaks \
                 {PACKAGE}@{PACKAGE_VERSION}; rebuild the plugin against this host's wit/ package"
            ));
        }
    }
    let wanted = kind.export_interface();
    let has_export = exports
        .iter()
        .filter_map(|n| split_ours(n))
        .any(|(interface, _)| interface == wanted);
    if !has_export {
        let found: Vec<&str> = exports.iter().map(String::as_str).collect();
        return Err(format!(
            "the manifest says kind = \"{}\", so the component must export {PACKAGE}/{wanted} (world `{}`), \
             but it exports [{}]; fix `kind` in the manifest or build the plugin for world `{}`",
            kind.world(),
            kind.world(),
            found.join(", "),
            kind.world()
        ));
    }
    Ok(())
}

/// Splits `gleaner:plugin/http@0.1.0` into (`http`, Some(0.1.0)).
fn split_ours(name: &str) -> Option<(String, Option<semver::Version>)> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    match rest.split_once('@') {
        Some((interface, version)) => {
            Some((interface.to_owned(), semver::Version::parse(version).ok()))
        }
        None => Some((rest.to_owned(), None)),
    }
}

/// Semver compatibility as Cargo defines it: same major, and for 0.x the same minor.
/// A component built against a newer minor/patch than the host is refused too,
/// since it may use functions this host lacks.
fn compatible(host: &semver::Version, plugin: &semver::Version) -> bool {
    if host.major != plugin.major {
        return false;
    }
    if host.major == 0 && host.minor != plugin.minor {
        return false;
    }
    plugin <= host || (host.major == 0 && plugin.minor == host.minor && plugin.patch <= host.patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    #[test]
    fn compatibility_follows_semver() {
        let host = v("0.1.1");
        assert!(compatible(&host, &v("0.1.1")));
        assert!(compatible(&host, &v("0.1.0")), "older patches load");
        assert!(!compatible(&host, &v("0.2.0")));
        assert!(!compatible(&host, &v("1.0.0")));
        assert!(!compatible(&host, &v("0.1.2")));
    }

    #[test]
    fn names_split() {
        assert_eq!(split_ours("gleaner:plugin/http@0.1.0").unwrap().0, "http");
        assert!(split_ours("wasi:io/streams@0.2.6").is_none());
    }
}
