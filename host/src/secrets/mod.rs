//! Secrets never leave the host. The host knows every secret it holds — API,
//! admin and metrics keys, the token secret, proxy credentials, the LLM key,
//! the plugin settings a manifest marks `secret`, and the cookies sites set
//! in a fetch's session — and one [`Scrubber`] replaces each of them, in every
//! form it may take ([`variants`]), with `[redacted]` in whatever leaves: log
//! lines ([`writer`]), answers and error bodies, plugin log lines, HAR
//! recordings, metrics and traces.
//!
//! Secrets of the configuration, the token secret and plugin settings are
//! registered with the server's [`Secrets`], which every writer of the server
//! is handed; a session's cookies are scrubbed with the session's own
//! scrubber where the session is known ([`Scrubber::for_values`]).

pub mod variants;
pub mod writer;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Shortest secret, in characters, the scrubber looks for. Shorter values
/// would match ordinary words in reviews; the server warns about them.
pub const MIN_SECRET_CHARS: usize = 8;

/// Where a secret comes from, for the warning about short ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `api_keys`.
    ApiKey,
    /// `admin_keys`.
    AdminKey,
    /// `metrics_keys`.
    MetricsKey,
    /// `token_secret`, or the generated one.
    TokenSecret,
    /// A proxy URL's user name and password.
    ProxyCredential,
    /// `[llm] api_key`.
    LlmKey,
    /// A plugin setting its manifest marks `secret`.
    PluginSetting,
    /// A cookie a site set in a fetch's session.
    Cookie,
    /// The cluster's NATS token, or the key that seals shared state.
    Cluster,
    /// `receipt_key`.
    ReceiptKey,
    /// The object storage's access key id or secret access key.
    ExportCredential,
}

impl Kind {
    fn setting(self) -> &'static str {
        match self {
            Kind::ApiKey => "an API key (api_keys)",
            Kind::AdminKey => "an admin key (admin_keys)",
            Kind::MetricsKey => "a metrics key (metrics_keys)",
            Kind::TokenSecret => "the token secret",
            Kind::ProxyCredential => "a proxy credential",
            Kind::LlmKey => "the LLM key",
            Kind::PluginSetting => "a secret plugin setting",
            Kind::Cookie => "a session cookie",
            Kind::Cluster => "a cluster credential",
            Kind::ReceiptKey => "the receipt key",
            Kind::ExportCredential => "an object storage credential ([export])",
        }
    }
}

/// Replaces known secrets, in all their forms, with [`REDACTED`].
#[derive(Debug, Default)]
pub struct Scrubber {
    automaton: Option<AhoCorasick>,
}

impl Scrubber {
    /// A scrubber of `values` (those shorter than [`MIN_SECRET_CHARS`] are left out).
    pub fn for_values<'a>(values: impl IntoIterator<Item = &'a str>) -> Scrubber {
        let mut patterns: Vec<String> = values
            .into_iter()
            .filter(|v| long_enough(v))
            .flat_map(variants::of)
            .collect();
        patterns.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        patterns.dedup();
        if patterns.is_empty() {
            return Scrubber::default();
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .ok();
        Scrubber { automaton }
    }

    /// Whether it has nothing to look for.
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// `text` with every secret replaced; borrowed when there was none.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(ac) = &self.automaton else {
            return Cow::Borrowed(text);
        };
        if !ac.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        ac.replace_all_with(text, &mut out, |_, _, dst| {
            dst.push_str(REDACTED);
            true
        });
        Cow::Owned(out)
    }

    /// `bytes` with every secret replaced; borrowed when there was none.
    pub fn scrub_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(ac) = &self.automaton else {
            return Cow::Borrowed(bytes);
        };
        if !ac.is_match(bytes) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        ac.replace_all_with_bytes(bytes, &mut out, |_, _, dst| {
            dst.extend_from_slice(REDACTED.as_bytes());
            true
        });
        Cow::Owned(out)
    }

    /// Replaces secrets in every string of a JSON value, keys included.
    pub fn scrub_json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(s) => {
                if let Cow::Owned(clean) = self.scrub(s) {
                    *s = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.scrub_json(v)),
            Value::Object(map) => {
                let dirty: Vec<String> = map
                    .keys()
                    .filter(|k| matches!(self.scrub(k), Cow::Owned(_)))
                    .cloned()
                    .collect();
                for key in dirty {
                    if let Some(v) = map.remove(&key) {
                        map.insert(self.scrub(&key).into_owned(), v);
                    }
                }
                map.values_mut().for_each(|v| self.scrub_json(v));
            }
            _ => {}
        }
    }

    /// Whether `text` holds a secret.
    pub fn finds(&self, text: &[u8]) -> bool {
        self.automaton.as_ref().is_some_and(|ac| ac.is_match(text))
    }
}

fn long_enough(value: &str) -> bool {
    value.trim().chars().count() >= MIN_SECRET_CHARS
}

/// The secrets one server (or one CLI command) holds, and the scrubber of
/// them all as it stands. Registering is rare (start-up, a plugin loaded);
/// scrubbing takes the current scrubber without a lock held while it runs.
/// The server's log writer, trace exporter, answers and HAR recordings share
/// one [`Secrets`], handed to each where it is built.
#[derive(Debug, Default)]
pub struct Secrets {
    registry: RwLock<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    values: BTreeSet<String>,
    scrubber: Arc<Scrubber>,
}

impl Secrets {
    /// Adds `values` of `kind` to the secrets; a value shorter than
    /// [`MIN_SECRET_CHARS`] is left out, with a warning that names its setting.
    pub fn register<'a>(&self, kind: Kind, values: impl IntoIterator<Item = &'a str>) {
        let mut added = Vec::new();
        for value in values {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            if !long_enough(value) {
                tracing::warn!(
                    setting = kind.setting(),
                    "a secret shorter than {MIN_SECRET_CHARS} characters cannot be kept out of logs and answers \
                     without mangling ordinary text; use a longer one (16 random characters or more)"
                );
                continue;
            }
            added.push(value.to_owned());
        }
        if added.is_empty() {
            return;
        }
        let mut registry = self.registry.write().unwrap_or_else(|p| p.into_inner());
        let before = registry.values.len();
        registry.values.extend(added);
        if registry.values.len() != before {
            registry.scrubber = Arc::new(Scrubber::for_values(
                registry.values.iter().map(String::as_str),
            ));
        }
    }

    /// The scrubber of every secret registered so far.
    pub fn scrubber(&self) -> Arc<Scrubber> {
        self.registry
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .scrubber
            .clone()
    }
}

/// The secrets of a proxy URL: its password, and `user:password` (what its
/// `Proxy-Authorization: Basic` header encodes).
pub fn proxy_credentials(url: &str) -> Vec<String> {
    let Ok(parsed) = url::Url::parse(url) else {
        return Vec::new();
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let user = decode(parsed.username());
    let password = parsed.password().map(decode).unwrap_or_default();
    if password.is_empty() {
        return Vec::new();
    }
    vec![format!("{user}:{password}"), password]
}

/// Several scrubbers applied in turn: the server's, then those of the
/// sessions a request used.
#[derive(Clone)]
pub struct Scope {
    base: Arc<Scrubber>,
    extra: Vec<Arc<Scrubber>>,
}

impl Scope {
    /// A scope of the server's `secrets` as they stand.
    pub fn of(secrets: &Secrets) -> Scope {
        Scope {
            base: secrets.scrubber(),
            extra: Vec::new(),
        }
    }

    /// Adds a scrubber (a session's) to the scope.
    pub fn add(&mut self, scrubber: Arc<Scrubber>) {
        if !scrubber.is_empty() {
            self.extra.push(scrubber);
        }
    }

    /// `text` with the secrets of every scrubber of the scope replaced.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = self.base.scrub(text);
        for s in &self.extra {
            if let Cow::Owned(changed) = s.scrub(&out) {
                out = Cow::Owned(changed);
            }
        }
        out
    }

    /// `bytes` with the secrets of every scrubber of the scope replaced.
    pub fn scrub_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut out = self.base.scrub_bytes(bytes);
        for s in &self.extra {
            if let Cow::Owned(changed) = s.scrub_bytes(&out) {
                out = Cow::Owned(changed);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_replaced_and_other_text_kept() {
        let s = Scrubber::for_values(["Zq7/s3cr+t=ok!"]);
        let text = "raw Zq7/s3cr+t=ok! upper ZQ7/S3CR+T=OK! encoded Zq7%2fs3cr%2Bt%3Dok%21 \
                    twice next=%2Fcb%3Fs%3DZq7%252Fs3cr%252Bt%253Dok%2521 json \"Zq7\\/s3cr+t=ok!\" \
                    b64 WnE3L3MzY3IrdD1vayE=";
        let out = s.scrub(text);
        assert!(!out.to_ascii_lowercase().contains("s3cr"), "{out}");
        assert!(!out.contains("WnE3L3MzY3IrdD1vayE"), "{out}");
        assert!(out.starts_with("raw [redacted] upper [redacted]"), "{out}");
        assert_eq!(s.scrub("nothing here"), "nothing here");
        assert!(matches!(s.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_strings_and_keys_are_scrubbed() {
        let s = Scrubber::for_values(["sekret-value-1"]);
        let mut v = serde_json::json!({"a": ["x sekret-value-1"], "sekret-value-1": 1, "n": 2});
        s.scrub_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"a": ["x [redacted]"], "[redacted]": 1, "n": 2})
        );
    }

    #[test]
    fn short_values_are_not_scrubbed() {
        let s = Scrubber::for_values(["k-1", "short"]);
        assert!(s.is_empty());
        assert_eq!(s.scrub("k-1 short"), "k-1 short");
    }

    #[test]
    fn proxy_urls_give_their_credentials() {
        let creds = proxy_credentials("http://alice:pa%40ss-word-1@proxy.example:3128");
        assert_eq!(creds, ["alice:pa@ss-word-1", "pa@ss-word-1"]);
        assert!(proxy_credentials("socks5://proxy.example:1080").is_empty());
    }

    #[test]
    fn each_server_keeps_its_own_secrets() {
        let (one, other) = (Secrets::default(), Secrets::default());
        one.register(Kind::ApiKey, ["first-server-key-1234"]);
        other.register(Kind::ApiKey, ["second-server-key-5678", "short"]);
        let text = "first-server-key-1234 second-server-key-5678";
        assert_eq!(
            one.scrubber().scrub(text),
            "[redacted] second-server-key-5678"
        );
        assert_eq!(
            other.scrubber().scrub(text),
            "first-server-key-1234 [redacted]"
        );
        let mut scope = Scope::of(&one);
        scope.add(Arc::new(Scrubber::for_values(["second-server-key-5678"])));
        assert_eq!(scope.scrub(text), "[redacted] [redacted]");
    }

    #[test]
    fn a_scope_adds_session_scrubbers() {
        let mut scope = Scope::of(&Secrets::default());
        scope.add(Arc::new(Scrubber::for_values(["cookie-value-123456"])));
        assert_eq!(scope.scrub("x cookie-value-123456 y"), "x [redacted] y");
        assert_eq!(
            &*scope.scrub_bytes(b"x COOKIE-VALUE-123456"),
            b"x [redacted]"
        );
    }
}
