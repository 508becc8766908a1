//! What a page's items say about reviews: every review (a `Review` or one
//! of its subtypes, or any untyped value of `review` or `reviews`), with the
//! item it is of; every aggregate rating, with its item. JSON-LD `@id`
//! references are followed (to any item of the page's JSON-LD with that
//! id), and each item is visited once, so a review that its product lists
//! by reference and the page's graph lists again is found once.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::markup::{Markup, Syntax};

/// The types whose items are reviews.
pub const REVIEW_TYPES: &[&str] = &[
    "Review",
    "CriticReview",
    "UserReview",
    "EmployerReview",
    "Recommendation",
];

/// How deep items are followed.
const MAX_DEPTH: usize = 24;

/// A review found on the page.
#[derive(Debug, Clone)]
pub struct FoundReview {
    /// The review's item (a bare string for a review given as text only).
    pub node: Value,
    /// The item it is of: its `itemReviewed`, else the item holding it.
    pub item: Option<Value>,
    /// The syntax it was read from.
    pub syntax: Syntax,
}

/// An aggregate rating found on the page.
#[derive(Debug, Clone)]
pub struct FoundAggregate {
    /// The `AggregateRating` item.
    pub node: Value,
    /// The item it rates.
    pub item: Option<Value>,
    /// The syntax it was read from.
    pub syntax: Syntax,
}

/// Everything about reviews the page's markup holds.
#[derive(Debug, Default)]
pub struct Found {
    /// Reviews, in page order (JSON-LD, then Microdata, then RDFa).
    pub reviews: Vec<FoundReview>,
    /// Aggregate ratings, in the same order.
    pub aggregates: Vec<FoundAggregate>,
}

/// JSON-LD items by `@id`.
pub struct Index(HashMap<String, Value>);

impl Index {
    /// Every item of `markup`'s JSON-LD that has an `@id` and more than it.
    pub fn of(markup: &Markup) -> Index {
        let mut ids = HashMap::new();
        for (syntax, item) in &markup.items {
            if *syntax == Syntax::JsonLd {
                index(item, &mut ids, 0);
            }
        }
        Index(ids)
    }

    /// `value` itself, or the item it refers to when it is only a reference.
    pub fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        match reference(value) {
            Some(id) => self.0.get(id).unwrap_or(value),
            None => value,
        }
    }
}

fn index(value: &Value, ids: &mut HashMap<String, Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Array(values) => values.iter().for_each(|v| index(v, ids, depth + 1)),
        Value::Object(map) => {
            if let Some(id) = map.get("@id").and_then(Value::as_str) {
                if map.len() > 1 {
                    ids.entry(id.to_owned()).or_insert_with(|| value.clone());
                }
            }
            map.values().for_each(|v| index(v, ids, depth + 1));
        }
        _ => {}
    }
}

/// The id a value refers to, when it is a bare reference `{"@id": …}`.
fn reference(value: &Value) -> Option<&str> {
    let map = value.as_object()?;
    (map.len() == 1).then(|| map.get("@id")?.as_str())?
}

/// What a review or aggregate keeps of the item it is of: its types, name
/// and URL, not the item (which may hold every review of the page).
fn light(item: &Value) -> Value {
    let mut kept = serde_json::Map::new();
    if let Value::Object(map) = item {
        for key in ["@type", "@id", "name", "url"] {
            if let Some(v) = map.get(key) {
                kept.insert(key.to_owned(), v.clone());
            }
        }
    } else if let Value::String(name) = item {
        kept.insert("name".into(), Value::String(name.clone()));
    }
    Value::Object(kept)
}

/// The types of an item (short names).
pub fn types(item: &Value) -> Vec<&str> {
    match &item["@type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether an item is of one of `names`.
pub fn is_a(item: &Value, names: &[&str]) -> bool {
    types(item).iter().any(|t| names.contains(t))
}

/// Finds every review and aggregate rating of `markup`.
pub fn find(markup: &Markup, index: &Index) -> Found {
    let mut walk = Walk {
        index,
        found: Found::default(),
        seen: HashSet::new(),
    };
    for (syntax, item) in &markup.items {
        walk.visit(item, None, false, *syntax, 0);
    }
    walk.found
}

struct Walk<'a> {
    index: &'a Index,
    found: Found,
    /// `@id`s of the items visited, so each is read once.
    seen: HashSet<String>,
}

impl Walk<'_> {
    fn visit(
        &mut self,
        value: &Value,
        holder: Option<&Value>,
        as_review: bool,
        syntax: Syntax,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let value = self.index.resolve(value);
        match value {
            Value::Array(values) => {
                for v in values {
                    self.visit(v, holder, as_review, syntax, depth + 1);
                }
            }
            Value::String(text) if as_review && !text.trim().is_empty() => {
                self.found.reviews.push(FoundReview {
                    node: value.clone(),
                    item: holder.map(light),
                    syntax,
                });
            }
            Value::Object(map) => {
                if let Some(id) = map.get("@id").and_then(Value::as_str) {
                    if reference(value).is_none() && !self.seen.insert(id.to_owned()) {
                        return;
                    }
                }
                let typed = !types(value).is_empty();
                let review = is_a(value, REVIEW_TYPES) || (as_review && !typed);
                // What a review or aggregate rates: its itemReviewed, else
                // the item holding it.
                let rated = || {
                    map.get("itemReviewed")
                        .map(|i| light(self.index.resolve(i)))
                        .or_else(|| holder.map(light))
                };
                if review {
                    let item = rated();
                    self.found.reviews.push(FoundReview {
                        node: value.clone(),
                        item,
                        syntax,
                    });
                }
                if is_a(value, &["AggregateRating"]) {
                    let item = rated();
                    self.found.aggregates.push(FoundAggregate {
                        node: value.clone(),
                        item,
                        syntax,
                    });
                }
                // What this item holds is of it; a review's parts are of
                // the review's item.
                let next_holder = match review || !typed {
                    true => holder,
                    false => Some(value),
                };
                for (key, v) in map {
                    if key.starts_with('@') || (review && key == "itemReviewed") {
                        continue;
                    }
                    if key == "aggregateRating" {
                        let agg = self.index.resolve(v);
                        for agg in agg
                            .as_array()
                            .map_or(std::slice::from_ref(agg), Vec::as_slice)
                        {
                            let agg = self.index.resolve(agg);
                            let id = agg.get("@id").and_then(Value::as_str);
                            if id.is_some_and(|id| !self.seen.insert(id.to_owned())) {
                                continue;
                            }
                            if agg.is_object() {
                                self.found.aggregates.push(FoundAggregate {
                                    node: agg.clone(),
                                    item: Some(light(value)),
                                    syntax,
                                });
                            }
                        }
                        continue;
                    }
                    let reviews = key == "review" || key == "reviews";
                    self.visit(v, next_holder, reviews, syntax, depth + 1);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(items: Vec<(Syntax, Value)>) -> Found {
        let markup = Markup { items };
        let index = Index::of(&markup);
        find(&markup, &index)
    }

    #[test]
    fn reviews_by_reference_are_found_once_with_their_item() {
        let f = found(vec![
            (
                Syntax::JsonLd,
                json!({"@type": "Product", "@id": "#p", "name": "Kettle",
                       "aggregateRating": {"@id": "#agg"},
                       "review": [{"@id": "#r1"}, {"@id": "#r2"}]}),
            ),
            (
                Syntax::JsonLd,
                json!({"@type": "Review", "@id": "#r1", "reviewBody": "One", "itemReviewed": {"@id": "#p"}}),
            ),
            (
                Syntax::JsonLd,
                json!({"@type": "UserReview", "@id": "#r2", "reviewBody": "Two"}),
            ),
            (
                Syntax::JsonLd,
                json!({"@type": "AggregateRating", "@id": "#agg", "ratingValue": 4, "reviewCount": 2}),
            ),
        ]);
        assert_eq!(f.reviews.len(), 2);
        assert_eq!(f.reviews[0].node["reviewBody"], "One");
        assert_eq!(f.reviews[1].item.as_ref().unwrap()["name"], "Kettle");
        assert_eq!(f.aggregates.len(), 1, "{:?}", f.aggregates);
        assert_eq!(f.aggregates[0].item.as_ref().unwrap()["name"], "Kettle");
    }

    #[test]
    fn untyped_reviews_and_bare_strings_count() {
        let f = found(vec![(
            Syntax::Microdata,
            json!({"@type": "Recipe", "name": "Soup",
                   "reviews": [{"author": "A", "description": "Tasty"}, "Loved it"],
                   "author": {"@type": "Person", "name": "Chef"}}),
        )]);
        assert_eq!(f.reviews.len(), 2);
        assert_eq!(f.reviews[1].node, json!("Loved it"));
        assert_eq!(f.reviews[0].item.as_ref().unwrap()["name"], "Soup");
    }
}
