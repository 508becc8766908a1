//! A review source's request fields as `gleaner fetch` flags, derived from
//! its manifest, so a new source's sort, filter and continuation fields are
//! flags with no change here: `sort_type` is `--sort-type`, `country` is
//! `--country`, `pagination_token` is `--pagination-token`. The fields every
//! source takes (`--max`, `--sync-date`, `--is-text-formatted`) are the
//! command's own; `--sort` and `--filter` stay as short names for the
//! source's sort and filter.

use std::ffi::OsString;

use clap::{Arg, ArgMatches};
use serde_json::{json, Map, Value};

use crate::config::Config;
use crate::manifest::{Continuation, FieldSpec, FieldType, SourceOptions};

/// The flag of request field `field`: `sort_type` → `sort-type`.
fn flag_of(field: &str) -> String {
    field.replace('_', "-")
}

/// The fields of `options` that become flags: its sort and filter fields,
/// and its continuation field.
fn fields(options: &SourceOptions) -> Vec<(String, Option<&FieldSpec>)> {
    let mut out: Vec<(String, Option<&FieldSpec>)> = [&options.sort, &options.filter]
        .into_iter()
        .flatten()
        .map(|spec| (spec.field.clone(), Some(spec)))
        .collect();
    match options.continuation {
        Continuation::PaginationToken => out.push(("pagination_token".into(), None)),
        Continuation::PaginationData => out.push(("pagination_data".into(), None)),
        Continuation::None => {}
    }
    out
}

/// What a flag's help says: the field's description and what it takes.
fn help(field: &str, spec: Option<&FieldSpec>) -> String {
    let Some(spec) = spec else {
        return format!(
            "The continuation token a previous fetch printed (`{field}`), to get the reviews after it"
        );
    };
    let mut parts = vec![spec
        .description
        .clone()
        .unwrap_or_else(|| format!("`{field}`"))];
    if !spec.values.is_empty() {
        parts.push(format!("one of {}", spec.values.join(", ")));
    }
    if let (Some(min), Some(max)) = (spec.min, spec.max) {
        parts.push(format!("{min} to {max}"));
    }
    if let Some(default) = &spec.default {
        parts.push(format!("default {default}"));
    }
    parts.join("; ")
}

/// The flags of a source with `options`, leaving out any whose name the
/// command has already (`taken`).
pub fn source_flags(options: &SourceOptions, taken: &[&str]) -> Vec<Arg> {
    fields(options)
        .into_iter()
        .filter(|(field, _)| !taken.contains(&flag_of(field).as_str()))
        .map(|(field, spec)| {
            let flag = flag_of(&field);
            let mut arg = Arg::new(field.clone())
                .long(flag.clone())
                .value_name("VALUE")
                .help(help(&field, spec))
                .help_heading("Request fields of this source");
            if flag != field {
                arg = arg.alias(field);
            }
            arg
        })
        .collect()
}

/// The flags of the source `gleaner fetch <label>` names in `argv`, found
/// through the configuration `argv` points at; when
/// there are none to list, why (for `--help`; running the command reports
/// it too).
pub fn for_argv(argv: &[OsString], taken: &[&str]) -> (Vec<Arg>, Option<String>) {
    let args: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let Some(at) = args.iter().position(|a| a == "fetch") else {
        return (Vec::new(), None);
    };
    let Some(label) = args[at + 1..].iter().find(|a| !a.starts_with('-')) else {
        return (Vec::new(), None);
    };
    let config_file = args
        .iter()
        .position(|a| a == "--config")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("GLEANER_CONFIG").map(Into::into));
    let config = match Config::load(config_file.as_deref()) {
        Ok(config) => config,
        Err(e) => return (Vec::new(), Some(unlisted(label, &e.to_string()))),
    };
    match super::plugins::find(&config, label) {
        Ok((_, manifest)) => (
            manifest
                .source
                .as_ref()
                .map(|options| source_flags(options, taken))
                .unwrap_or_default(),
            None,
        ),
        Err(e) => (Vec::new(), Some(unlisted(label, &format!("{e:#}")))),
    }
}

/// Why `--help` lists no flag of `label`'s own.
fn unlisted(label: &str, why: &str) -> String {
    format!("The request fields of {label:?} are not listed as flags: {why}")
}

/// The request fields the source labelled `label` takes as its own flags,
/// as `matches` gives them.
pub fn given(matches: &ArgMatches, config: &Config, label: &str) -> Map<String, Value> {
    match super::plugins::find(config, label) {
        Ok((_, manifest)) => manifest
            .source
            .as_ref()
            .map(|options| request_fields(matches, options))
            .unwrap_or_default(),
        Err(_) => Map::new(),
    }
}

/// A flag's text as the JSON its field takes: numbers and booleans for
/// fields of those types, `{"token": …}` for `pagination_data` given as a
/// bare token, text otherwise (validation then says what is wrong).
pub fn value_of(field: &str, spec: Option<&FieldSpec>, text: &str) -> Value {
    if field == "pagination_data" {
        return match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => object,
            _ => json!({ "token": text }),
        };
    }
    let ty = spec.map(|s| s.ty);
    let parsed = match ty {
        Some(FieldType::Integer) => text.parse::<i64>().ok().map(Value::from),
        Some(FieldType::Number) => text
            .parse::<f64>()
            .ok()
            .and_then(|v| serde_json::Number::from_f64(v).map(Value::Number)),
        Some(FieldType::Boolean) => text.parse::<bool>().ok().map(Value::from),
        Some(FieldType::Object | FieldType::Array) => serde_json::from_str(text).ok(),
        _ => None,
    };
    parsed.unwrap_or_else(|| json!(text))
}

/// The request fields `matches` gives for a source with `options`.
pub fn request_fields(matches: &ArgMatches, options: &SourceOptions) -> Map<String, Value> {
    let mut out = Map::new();
    for (field, spec) in fields(options) {
        let given = matches.try_get_one::<String>(&field).ok().flatten();
        if let Some(text) = given {
            out.insert(field.clone(), value_of(&field, spec, text));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SourceOptions {
        toml::from_str(
            r#"
continuation = "pagination_data"
sort = { field = "sort_type", type = "enum", values = ["newest", "oldest"], default = "newest" }
filter = { field = "filter_by", type = "integer", min = 1, max = 5, nullable = true }
"#,
        )
        .unwrap()
    }

    #[test]
    fn a_source_s_fields_are_flags_of_their_own_name() {
        let flags = source_flags(&options(), &["sort", "filter"]);
        let longs: Vec<_> = flags.iter().filter_map(|a| a.get_long()).collect();
        assert_eq!(longs, ["sort-type", "filter-by", "pagination-data"]);
        let command = clap::Command::new("fetch").args(flags);
        let m = command
            .try_get_matches_from([
                "fetch",
                "--sort-type",
                "oldest",
                "--filter_by",
                "4",
                "--pagination-data",
                "tok",
            ])
            .unwrap();
        let fields = request_fields(&m, &options());
        assert_eq!(
            Value::Object(fields),
            json!({"sort_type": "oldest", "filter_by": 4, "pagination_data": {"token": "tok"}})
        );
    }

    #[test]
    fn values_keep_their_text_when_they_are_not_of_the_type() {
        assert_eq!(value_of("filter_by", None, "five"), json!("five"));
        assert_eq!(
            value_of("pagination_data", None, r#"{"token":"x"}"#),
            json!({"token": "x"})
        );
    }
}
