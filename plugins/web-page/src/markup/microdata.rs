//! Microdata, by the WHATWG rules: a top-level item is an element with
//! `itemscope` and no `itemprop`; its properties are the `itemprop`
//! elements below it (not below a nested item) and below the elements its
//! `itemref` names; a property's value is a nested item, or `meta@content`,
//! the URL of `a`, `area`, `link` (`href`), `img`, `audio`, `video`,
//! `iframe`, `embed`, `source`, `track` (`src`) or `object` (`data`),
//! `data@value` and `meter@value`, `time@datetime`, else the element's text.
//! Two departures, as Google's parser makes them: a `content` attribute is
//! the value on any element, not on `meta` alone; and an item that is a
//! property of no item is read as a top-level item.

use std::collections::{HashMap, HashSet};

use gleaner_sdk::html::{ElementRef, Html};
use gleaner_sdk::webpage::resolve;
use serde_json::{Map, Value};

use super::{new_item, push_property, short_name};

/// How deep items nest before deeper ones are left out.
const MAX_DEPTH: usize = 16;

/// The page's top-level Microdata items.
pub fn items(doc: &Html, base: &str) -> Vec<Value> {
    let mut reader = Reader {
        base,
        ids: HashMap::new(),
    };
    let mut top = Vec::new();
    let mut referenced: HashSet<&str> = HashSet::new();
    for node in doc.root_element().descendants() {
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        let attrs = el.value();
        if let Some(id) = attrs.id() {
            reader.ids.entry(id.to_owned()).or_insert(el);
        }
        referenced.extend(attrs.attr("itemref").unwrap_or_default().split_whitespace());
        if attrs.attr("itemscope").is_some() && attrs.attr("itemprop").is_none() {
            top.push(el);
        }
    }
    // An item given as a property of no item (an `itemprop` with no item
    // around it, nor any `itemref` to it) is read as a top-level item, as
    // Google's parser reads it: pages mark up comments this way.
    for node in doc.root_element().descendants() {
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        let attrs = el.value();
        if attrs.attr("itemscope").is_none() || attrs.attr("itemprop").is_none() {
            continue;
        }
        let mut around = el.ancestors().filter_map(ElementRef::wrap);
        let held = around.any(|a| a.value().attr("itemscope").is_some());
        let mut lineage = std::iter::once(el).chain(el.ancestors().filter_map(ElementRef::wrap));
        let reached = lineage.any(|a| a.value().id().is_some_and(|id| referenced.contains(id)));
        if !held && !reached {
            top.push(el);
        }
    }
    top.into_iter()
        .map(|el| reader.item(el, 0, &mut HashSet::new()))
        .collect()
}

struct Reader<'a, 'b> {
    base: &'b str,
    ids: HashMap<String, ElementRef<'a>>,
}

impl<'a> Reader<'a, '_> {
    /// The item `el` starts. `path` holds the items being read around it, so
    /// an `itemref` loop reads nothing twice.
    fn item(&self, el: ElementRef<'a>, depth: usize, path: &mut HashSet<identity::Id>) -> Value {
        let types = el
            .value()
            .attr("itemtype")
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(short_name)
            .map(str::to_owned)
            .collect();
        let mut item = new_item(types);
        if let Some(id) = el.value().attr("itemid") {
            item.insert("@id".into(), Value::String(id.trim().to_owned()));
        }
        if depth > MAX_DEPTH || !path.insert(identity::of(el)) {
            return Value::Object(item);
        }
        self.crawl(el, &mut item, depth, path);
        let refs = el.value().attr("itemref").unwrap_or_default();
        for id in refs.split_whitespace() {
            if let Some(target) = self.ids.get(id).copied() {
                if target.id() != el.id() {
                    self.property(target, &mut item, depth, path);
                }
            }
        }
        path.remove(&identity::of(el));
        Value::Object(item)
    }

    /// Adds the properties below `el` (not below a nested item) to `item`.
    fn crawl(
        &self,
        el: ElementRef<'a>,
        item: &mut Map<String, Value>,
        depth: usize,
        path: &mut HashSet<identity::Id>,
    ) {
        for child in el.children().filter_map(ElementRef::wrap) {
            self.property(child, item, depth, path);
        }
    }

    /// `el`'s value under each name of its `itemprop`, and the properties
    /// below it when it starts no item of its own.
    fn property(
        &self,
        el: ElementRef<'a>,
        item: &mut Map<String, Value>,
        depth: usize,
        path: &mut HashSet<identity::Id>,
    ) {
        let attrs = el.value();
        let scoped = attrs.attr("itemscope").is_some();
        if let Some(names) = attrs.attr("itemprop") {
            let value = match scoped {
                true => self.item(el, depth + 1, path),
                false => Value::String(self.value(el)),
            };
            for name in names.split_whitespace() {
                let name = short_name(name).unwrap_or(name);
                push_property(item, name, value.clone());
            }
        }
        if !scoped {
            self.crawl(el, item, depth, path);
        }
    }

    /// A property element's value, by the element's name.
    fn value(&self, el: ElementRef<'_>) -> String {
        let attrs = el.value();
        let attr = |name: &str| attrs.attr(name).unwrap_or_default().trim().to_owned();
        let url = |name: &str| {
            let raw = attr(name);
            resolve(self.base, &raw).unwrap_or(raw)
        };
        match attrs.name() {
            // `content` on any element is what Google's parser reads there
            // (and what pages that put it on a `span` mean).
            _ if attrs.attr("content").is_some() => attr("content"),
            "audio" | "embed" | "iframe" | "img" | "source" | "track" | "video" => url("src"),
            "a" | "area" | "link" => url("href"),
            "object" => url("data"),
            "data" | "meter" => attr("value"),
            "time" if attrs.attr("datetime").is_some() => attr("datetime"),
            _ => el.text().collect::<String>().trim().to_owned(),
        }
    }
}

/// Element identity, for the items being read.
mod identity {
    use gleaner_sdk::html::ElementRef;

    /// An element's place in its document.
    pub type Id = usize;

    /// `el`'s place: the address of its node, fixed while the document lives.
    pub fn of(el: ElementRef<'_>) -> Id {
        std::ptr::from_ref(el.value()) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(html: &str) -> Vec<Value> {
        items(&Html::parse_document(html), "https://shop.example/p/1")
    }

    #[test]
    fn values_follow_the_element_rules() {
        let items = read(
            r#"<div itemscope itemtype="https://schema.org/Product">
  <h1 itemprop="name"> Kettle </h1>
  <a itemprop="url" href="/p/1">here</a>
  <img itemprop="image" src="k.jpg">
  <meta itemprop="sku" content="K-1">
  <div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
    <meter itemprop="ratingValue" value="4.5">4.5</meter>
    <data itemprop="reviewCount" value="12">twelve</data>
  </div>
  <div itemprop="review" itemscope itemtype="http://schema.org/Review">
    <span itemprop="author">Ann</span>
    <time itemprop="datePublished" datetime="2024-03-01">March 1</time>
    <p itemprop="reviewBody">Boils fast.</p>
  </div>
</div>"#,
        );
        assert_eq!(items.len(), 1);
        let p = &items[0];
        assert_eq!(p["@type"], "Product");
        assert_eq!(p["name"], "Kettle");
        assert_eq!(p["url"], "https://shop.example/p/1");
        assert_eq!(p["image"], "https://shop.example/p/k.jpg");
        assert_eq!(p["sku"], "K-1");
        assert_eq!(
            p["aggregateRating"],
            json!({"@type": "AggregateRating", "ratingValue": "4.5", "reviewCount": "12"})
        );
        assert_eq!(p["review"]["datePublished"], "2024-03-01");
        assert_eq!(p["review"]["reviewBody"], "Boils fast.");
    }

    #[test]
    fn itemref_adds_properties_and_loops_end() {
        let items = read(
            r#"<div itemscope itemtype="https://schema.org/Review" itemref="who stars"></div>
<p id="who"><span itemprop="author">Bo</span></p>
<div id="stars" itemprop="reviewRating" itemscope itemtype="https://schema.org/Rating" itemref="loop">
  <span itemprop="ratingValue">4</span></div>
<div id="loop" itemscope itemprop="x" itemref="stars"></div>"#,
        );
        let review = items
            .iter()
            .find(|i| i["@type"] == "Review")
            .expect("the review");
        assert_eq!(review["author"], "Bo");
        assert_eq!(review["reviewRating"]["ratingValue"], "4");
    }

    #[test]
    fn an_item_that_is_a_property_of_nothing_is_read() {
        let items = read(
            r#"<ol><li itemprop="review" itemscope itemtype="https://schema.org/Review">
  <span itemprop="author" content="Angela"></span><p itemprop="description">Loved it</p></li></ol>
<div itemscope itemtype="https://schema.org/Product" itemref="kept"><span itemprop="name">P</span></div>
<div id="kept"><div itemprop="review" itemscope itemtype="https://schema.org/Review"><p itemprop="description">Held</p></div></div>"#,
        );
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[1]["author"], "Angela");
        assert_eq!(items[0]["review"]["description"], "Held");
    }

    #[test]
    fn several_names_and_repeated_properties() {
        let items = read(
            r#"<div itemscope itemtype="https://schema.org/Product">
  <div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="name description">One</span></div>
  <div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="name">Two</span></div>
</div>"#,
        );
        let reviews = items[0]["review"].as_array().unwrap();
        assert_eq!(reviews.len(), 2);
        assert_eq!(reviews[0]["description"], "One");
        assert_eq!(reviews[1]["name"], "Two");
    }
}
