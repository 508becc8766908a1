//! The rules of a manifest that TOML types cannot express.

use super::fields::{FieldSpec, FieldType, SHARED_SORTS};
use super::names::{check_component_file, check_plugin_name, reserved_route};
use super::{Kind, Manifest};

impl Manifest {
    /// Checks the rules that TOML types cannot express; a plugin that breaks one
    /// is refused by the watcher and the admin API alike.
    pub fn check(&self) -> Result<(), String> {
        check_plugin_name(&self.name)?;
        if let Some(file) = &self.component {
            check_component_file(file)?;
        }
        if !self.route.starts_with('/') || self.route.contains(char::is_whitespace) {
            return Err(format!(
                "route {:?} must start with '/' and contain no spaces",
                self.route
            ));
        }
        if let Some(owner) = reserved_route(&self.route) {
            return Err(format!(
                "route {:?} is the server's own ({owner}); a plugin there would never be reached. \
                 Pick another route; the server keeps /healthz, /metrics, /openapi.json, /sources, /docs and /docs/*, \
                 and everything under /admin, /jobs and /schedules",
                self.route
            ));
        }
        if semver::Version::parse(&self.version).is_err() {
            return Err(format!(
                "version {:?} must be semver, e.g. 1.2.0",
                self.version
            ));
        }
        match self.kind {
            Kind::Source if self.source.is_none() => {
                return Err("kind \"source\" needs a [source] table with `continuation`".into())
            }
            Kind::Processor if self.processor.is_none() => {
                return Err("kind \"processor\" needs a [processor] table with `fields`".into())
            }
            _ => {}
        }
        if let Some(coverage) = &self.coverage {
            coverage.check()?;
        }
        if let Some(extra) = self.source.as_ref().and_then(|s| s.extra.as_ref()) {
            extra.check().map_err(|e| format!("[source.extra]: {e}"))?;
        }
        if let Some(sort) = self.source.as_ref().and_then(|s| s.sort.as_ref()) {
            if let Some(alias) = sort
                .aliases
                .keys()
                .find(|a| !SHARED_SORTS.contains(&a.as_str()))
            {
                return Err(format!(
                    "sort alias {alias:?} is not a shared sort name; use {}",
                    SHARED_SORTS.join(", ")
                ));
            }
        }
        let specs = self
            .source
            .iter()
            .flat_map(|s| s.sort.iter().chain(s.filter.iter()))
            .chain(self.processor.iter().flat_map(|p| p.fields.iter()));
        for spec in specs {
            check_field(spec)?;
        }
        if let Some(output) = self.processor.as_ref().and_then(|p| p.output.as_ref()) {
            output.check()?;
        }
        if self.limits.memory_mib == 0 || self.limits.call_timeout_ms == 0 {
            return Err("limits.memory_mib and limits.call_timeout_ms must be positive".into());
        }
        Ok(())
    }
}

/// Checks one request field's rules: constraints only its type takes,
/// aliases onto its values, and a default that fits it.
fn check_field(spec: &FieldSpec) -> Result<(), String> {
    if (spec.min.is_some() || spec.max.is_some())
        && !matches!(spec.ty, FieldType::Integer | FieldType::Number)
    {
        return Err(format!(
            "field {:?} has `min` or `max`, which only integer and number fields take",
            spec.field
        ));
    }
    if spec.max_length.is_some() && spec.ty != FieldType::String {
        return Err(format!(
            "field {:?} has `max_length`, which only string fields take",
            spec.field
        ));
    }
    if spec.max_length == Some(0) {
        return Err(format!(
            "field {:?} has `max_length = 0`; give the most characters the field takes",
            spec.field
        ));
    }
    if !spec.aliases.is_empty() && spec.ty != FieldType::Enum {
        return Err(format!(
            "field {:?} has `aliases`, which only enum fields take",
            spec.field
        ));
    }
    for (alias, value) in &spec.aliases {
        if !spec.values.contains(value) {
            return Err(format!(
                "field {:?} maps alias {alias:?} to {value:?}, which is not one of its `values`",
                spec.field
            ));
        }
        if spec.values.contains(alias) {
            return Err(format!(
                "field {:?} has alias {alias:?}, which is one of its `values` already",
                spec.field
            ));
        }
    }
    if spec.ty == FieldType::Enum && spec.values.is_empty() {
        return Err(format!(
            "field {:?} is an enum but lists no `values`",
            spec.field
        ));
    }
    if let Some(default) = &spec.default {
        if spec.ty == FieldType::Enum && !spec.values.contains(default) {
            return Err(format!(
                "field {:?} has default {default:?}, which is not one of its `values`",
                spec.field
            ));
        }
        if spec.default_value().is_none()
            || spec
                .default_value()
                .and_then(|v| v.as_i64())
                .is_some_and(|v| !spec.in_bounds(v))
        {
            return Err(format!(
                "field {:?} has default {default:?}, which is not {}; write it as the JSON value, e.g. \"false\" or \"50\"",
                spec.field,
                spec.ty.describe()
            ));
        }
    }
    Ok(())
}
