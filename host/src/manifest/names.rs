//! The names and routes a manifest may use: plugin and component file
//! names, and the routes the server keeps for itself.

/// The server's own routes a plugin route would hide behind, and what owns
/// each: exact paths, and prefixes (every path starting with them).
const RESERVED_EXACT: [(&str, &str); 5] = [
    ("/healthz", "the health check"),
    ("/sources", "the list of sources"),
    ("/metrics", "the metrics"),
    ("/openapi.json", "the OpenAPI document"),
    ("/docs", "the API reference page"),
];
const RESERVED_PREFIXES: [(&str, &str); 4] = [
    ("/docs/", "the API reference page"),
    ("/admin", "the admin API"),
    ("/jobs", "the jobs API"),
    ("/schedules", "the schedules API"),
];

/// What owns `route`, when the server's own routes answer it.
pub fn reserved_route(route: &str) -> Option<&'static str> {
    RESERVED_EXACT
        .iter()
        .find(|(path, _)| route == *path)
        .or_else(|| RESERVED_PREFIXES.iter().find(|(p, _)| route.starts_with(p)))
        .map(|(_, owner)| *owner)
}

/// Longest plugin or component file name accepted.
const MAX_NAME_LEN: usize = 64;

/// Checks a plugin name: 1 to 64 lower-case ASCII letters, digits and `-`,
/// starting with a letter or digit. Such a name is a plain file name: no
/// separator, no `..`, no NUL, never absolute.
pub fn check_plugin_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        return Ok(());
    }
    Err(format!(
        "plugin name {name:?} must be 1 to {MAX_NAME_LEN} lower-case ASCII letters, digits and '-', starting with a letter or digit"
    ))
}

/// Checks a component file name: a plain file name in the plugin directory,
/// 1 to 64 ASCII letters, digits, `_`, `-` and `.`, ending in `.wasm`, not
/// starting with `.`. Absolute paths, `..`, separators and NUL are refused.
pub fn check_component_file(file: &str) -> Result<(), String> {
    let ok = file.len() <= MAX_NAME_LEN
        && file.ends_with(".wasm")
        && file.len() > ".wasm".len()
        && !file.starts_with('.')
        && !file.contains("..")
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        return Ok(());
    }
    Err(format!(
        "component {file:?} must be a plain file name in the plugin directory, such as my-plugin.wasm: \
         ASCII letters, digits, '_', '-' and '.', ending in .wasm; no path separators, no '..', not absolute"
    ))
}
