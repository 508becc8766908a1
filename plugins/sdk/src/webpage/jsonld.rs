//! JSON-LD in a page: the organisation it describes, its name and logo.

use std::collections::HashMap;

use serde_json::Value;

use super::{non_empty, resolve, PageMeta};

fn parse_jsonld(text: &str) -> Option<Value> {
    let mut t = text.trim();
    for (start, end) in [
        ("<!--", "-->"),
        ("//<![CDATA[", "//]]>"),
        ("<![CDATA[", "]]>"),
    ] {
        t = t.strip_prefix(start).unwrap_or(t).trim();
        t = t.strip_suffix(end).unwrap_or(t).trim();
    }
    serde_json::from_str(t).ok().or_else(|| {
        let cleaned: String = t
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        serde_json::from_str(&cleaned).ok()
    })
}

fn collect_objects<'a>(v: &'a Value, depth: usize, out: &mut Vec<(&'a Value, usize)>) {
    if depth > 24 {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| collect_objects(i, depth, out)),
        Value::Object(map) => {
            out.push((v, depth));
            for (k, child) in map {
                let next = if k == "@graph" { depth } else { depth + 1 };
                collect_objects(child, next, out);
            }
        }
        _ => {}
    }
}

const ORG_TYPES: &str = "Organization Corporation LocalBusiness OnlineBusiness OnlineStore NGO \
    EducationalOrganization NewsMediaOrganization Store ProfessionalService";

/// 0 for organisations, 1 for web sites, 2 for brands; `None` for other types.
fn org_rank(v: &Value) -> Option<u8> {
    let types: Vec<&str> = match v.get("@type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let rank = |t: &&str| match t.rsplit(['/', ':', '#']).next().unwrap_or_default() {
        "WebSite" => Some(1),
        "Brand" => Some(2),
        t if ORG_TYPES.split(' ').any(|o| o == t) => Some(0),
        _ => None,
    };
    types.iter().filter_map(rank).min()
}

fn logo_url(v: &Value, ids: &HashMap<&str, &Value>, base: &str, depth: u8) -> Option<String> {
    match v {
        Value::String(s) => resolve(base, s),
        Value::Array(a) => a.iter().find_map(|i| logo_url(i, ids, base, depth)),
        Value::Object(o) if depth < 4 => ["url", "contentUrl"]
            .iter()
            .filter_map(|k| o.get(*k))
            .find_map(|u| logo_url(u, ids, base, depth + 1))
            .or_else(|| {
                let target = ids.get(o.get("@id")?.as_str()?)?;
                (*target != v).then(|| logo_url(target, ids, base, depth + 1))?
            }),
        _ => None,
    }
}

/// Fills the organisation name and logo of `meta` from a page's JSON-LD scripts.
pub(crate) fn jsonld(scripts: &[String], base: &str, meta: &mut PageMeta) {
    let docs: Vec<Value> = scripts.iter().filter_map(|s| parse_jsonld(s)).collect();
    let mut objects = Vec::new();
    docs.iter()
        .for_each(|d| collect_objects(d, 0, &mut objects));
    let ids: HashMap<&str, &Value> = objects
        .iter()
        .filter(|(o, _)| o.as_object().is_some_and(|m| m.len() > 1))
        .filter_map(|(o, _)| Some((o.get("@id")?.as_str()?, *o)))
        .collect();
    let mut orgs: Vec<(u8, usize, &Value)> = objects
        .iter()
        .filter_map(|&(o, d)| Some((org_rank(o)?, d, o)))
        .collect();
    orgs.sort_by_key(|&(rank, depth, _)| (rank, depth));
    meta.jsonld_name = orgs
        .iter()
        .find_map(|(_, _, o)| non_empty(o.get("name")?.as_str()?));
    meta.jsonld_logo = orgs
        .iter()
        .find_map(|(_, _, o)| logo_url(o.get("logo")?, &ids, base, 0));
}
