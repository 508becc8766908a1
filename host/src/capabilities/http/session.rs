//! Sessions: what one review fetch keeps between its requests, as a browser
//! would. A session holds a cookie jar (RFC 6265 rules through `cookie_store`:
//! domain, path, expiry, Secure, HttpOnly, SameSite) and one browser profile.
//! Every request of a call is made in its session: cookies the sites set are
//! sent back on later requests, including the pages a continuation token leads
//! to, since the token carries the session's id. The session itself stays in
//! the host, with a time to live, because cookies are secrets.
//!
//! In a cluster each session is also kept, sealed, in a shared bucket
//! ([`SharedSessions`]) after each fetch, so a continuation that reaches
//! another replica goes on in the same session, cookies included.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use cookie_store::CookieStore;
use lru::LruCache;
use serde::{Deserialize, Serialize};
use url::Url;

use super::profile::Profile;

/// What a session is, to be kept elsewhere and restored: its id, profile,
/// proxy and cookies (a secret, and the proxy URL holds credentials: only
/// ever kept sealed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionState {
    /// The session's id.
    pub id: String,
    /// Its browser profile's name.
    pub profile: String,
    /// Its proxy's URL, if one was picked.
    pub proxy: Option<String>,
    /// Its cookie jar, as `cookie_store` writes it (session cookies included).
    pub cookies: String,
}

/// Sessions kept outside this process and shared with others.
#[async_trait]
pub trait SharedSessions: Send + Sync {
    /// Whether they can be reached now.
    fn available(&self) -> bool;
    /// The session `id`, if it is kept there.
    async fn load(&self, id: &str) -> Result<Option<SessionState>, String>;
    /// Keeps `state` there for the sessions' time to live.
    async fn save(&self, state: &SessionState) -> Result<(), String>;
}

/// One fetch's session.
pub struct Session {
    /// Its id, carried by continuation tokens.
    pub id: String,
    /// The browser the session presents itself as.
    pub profile: &'static Profile,
    jar: Mutex<CookieStore>,
    /// The proxy the session's requests go through (its URL), once one is picked.
    proxy: Mutex<Option<String>>,
    /// The scrubber of the jar's cookie values, built when first asked for
    /// after the jar changed.
    scrubber: Mutex<Option<Arc<crate::secrets::Scrubber>>>,
    /// The upstream answers kept for receipts, once a fetch asks for them.
    pub answers: super::answers::Answers,
}

impl Session {
    /// A new session with an empty jar and a profile picked at random.
    pub fn new() -> Session {
        Session {
            id: uuid::Uuid::new_v4().simple().to_string(),
            profile: Profile::pick(),
            jar: Mutex::new(CookieStore::default()),
            proxy: Mutex::new(None),
            scrubber: Mutex::new(None),
            answers: Default::default(),
        }
    }

    /// The proxy the session uses, if one was picked.
    pub fn proxy(&self) -> Option<String> {
        self.proxy
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps `proxy` for the session's later requests.
    pub fn set_proxy(&self, proxy: Option<String>) {
        *self.proxy.lock().unwrap_or_else(PoisonError::into_inner) = proxy;
    }

    fn jar(&self) -> std::sync::MutexGuard<'_, CookieStore> {
        self.jar.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Cookie` header value for a request to `url`, if any cookie applies.
    pub fn cookie_header(&self, url: &Url) -> Option<String> {
        let jar = self.jar();
        let pairs: Vec<String> = jar
            .get_request_values(url)
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    /// Stores the cookies a response from `url` sets (its `Set-Cookie` headers);
    /// cookies the rules refuse (another domain, a Secure cookie over http) are dropped.
    pub fn store(&self, url: &Url, headers: &[(String, String)]) {
        let mut jar = self.jar();
        let mut stored = false;
        for (_, value) in headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        {
            match jar.parse(value, url) {
                Ok(_) => stored = true,
                Err(e) => {
                    tracing::debug!(error = %e, host = url.host_str().unwrap_or_default(), "cookie refused")
                }
            }
        }
        if stored {
            *self.scrubber.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }

    /// The scrubber of the cookie values the jar holds: cookies are secrets,
    /// and a site may echo one back in a page a plugin passes on.
    pub fn scrubber(&self) -> Arc<crate::secrets::Scrubber> {
        let mut cached = self.scrubber.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = cached.as_ref() {
            return s.clone();
        }
        let jar = self.jar();
        let values: Vec<&str> = jar.iter_unexpired().map(|c| c.value()).collect();
        let built = Arc::new(crate::secrets::Scrubber::for_values(values));
        *cached = Some(built.clone());
        built
    }

    /// The value of cookie `name` that a request to `url` would send.
    pub fn cookie(&self, url: &Url, name: &str) -> Option<String> {
        let jar = self.jar();
        let value = jar
            .get_request_values(url)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_owned());
        value
    }

    /// What the session is now, to keep elsewhere.
    pub fn state(&self) -> SessionState {
        let mut cookies = Vec::new();
        let _ = cookie_store::serde::json::save_incl_expired_and_nonpersistent(
            &self.jar(),
            &mut cookies,
        );
        SessionState {
            id: self.id.clone(),
            profile: self.profile.name.to_owned(),
            proxy: self.proxy(),
            cookies: String::from_utf8_lossy(&cookies).into_owned(),
        }
    }

    /// The session `state` describes; its cookies as they were kept.
    pub fn restore(state: SessionState) -> Session {
        let jar = cookie_store::serde::json::load_all(state.cookies.as_bytes()).unwrap_or_default();
        Session {
            id: state.id,
            profile: Profile::named(&state.profile).unwrap_or_else(Profile::pick),
            jar: Mutex::new(jar),
            proxy: Mutex::new(state.proxy),
            scrubber: Mutex::new(None),
            answers: Default::default(),
        }
    }

    /// How many cookies the jar holds (expired ones excluded).
    pub fn cookie_count(&self) -> usize {
        self.jar().iter_unexpired().count()
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// How a fetch came by its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// A new fetch: a new session.
    New,
    /// A continuation whose session was still alive.
    Continued,
    /// A continuation whose session had expired (or lives on another server):
    /// a new session was started.
    Restarted,
}

impl Opened {
    /// The word for `extra_information.session`.
    pub fn code(self) -> &'static str {
        match self {
            Opened::New => "new",
            Opened::Continued => "continued",
            Opened::Restarted => "expired_restarted",
        }
    }
}

/// Live sessions by id, with when each was last used, least recently used first.
type Live = LruCache<String, (Arc<Session>, Instant)>;

/// Every live session of the server, each kept for a time to live after its last use.
///
/// Sessions are kept in the order of their last use, so the expired ones and
/// the one to evict at capacity are at one end: opening a session costs the
/// same with ten thousand sessions alive as with one.
pub struct Sessions {
    live: Mutex<Live>,
    ttl: Duration,
    shared: OnceLock<Arc<dyn SharedSessions>>,
}

impl Sessions {
    /// A store keeping sessions `ttl` after their last use, at most `capacity` at once.
    pub fn new(ttl: Duration, capacity: usize) -> Sessions {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        Sessions {
            live: Mutex::new(LruCache::new(capacity)),
            ttl,
            shared: OnceLock::new(),
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets go of the sessions unused for `ttl` at `now`: the least recently
    /// used ones, so it stops at the first one still alive.
    fn expire(&self, live: &mut Live, now: Instant) {
        while live
            .peek_lru()
            .is_some_and(|(_, (_, used))| now.saturating_duration_since(*used) >= self.ttl)
        {
            live.pop_lru();
        }
    }

    /// Keeps sessions in `shared` too from now on (a cluster replica's).
    pub fn share(&self, shared: Arc<dyn SharedSessions>) {
        let _ = self.shared.set(shared);
    }

    /// The session time to live.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// As [`Sessions::open`], and in a cluster a session that lives on
    /// another replica is restored here.
    pub async fn open_anywhere(&self, id: Option<&str>) -> (Arc<Session>, Opened) {
        if let (Some(id), Some(shared)) = (id, self.shared.get().filter(|s| s.available())) {
            if !self.is_live(id) {
                match shared.load(id).await {
                    Ok(Some(state)) if state.id == id => {
                        let session = Arc::new(Session::restore(state));
                        self.insert(session.clone());
                        return (session, Opened::Continued);
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot read the cluster's sessions; a new session starts")
                    }
                }
            }
        }
        self.open(id)
    }

    /// Keeps `session` in the cluster, when there is one, for its next fetch.
    pub async fn keep(&self, session: &Session) {
        if let Some(shared) = self.shared.get().filter(|s| s.available()) {
            if let Err(e) = shared.save(&session.state()).await {
                tracing::warn!(error = %e, "cannot share a session; its continuation goes on here only");
            }
        }
    }

    fn is_live(&self, id: &str) -> bool {
        self.live()
            .peek(id)
            .is_some_and(|(_, used)| used.elapsed() < self.ttl)
    }

    fn insert(&self, session: Arc<Session>) {
        self.live()
            .put(session.id.clone(), (session, Instant::now()));
    }

    /// Lets go of the sessions whose time to live has passed.
    pub fn prune(&self) {
        let mut live = self.live();
        self.expire(&mut live, Instant::now());
    }

    /// The session `id` names if it is still alive, else a new one. At
    /// capacity, the least recently used session makes room.
    pub fn open(&self, id: Option<&str>) -> (Arc<Session>, Opened) {
        let now = Instant::now();
        let mut live = self.live();
        self.expire(&mut live, now);
        if let Some(id) = id {
            if let Some((session, used)) = live.get_mut(id) {
                *used = now;
                return (session.clone(), Opened::Continued);
            }
        }
        let session = Arc::new(Session::new());
        live.put(session.id.clone(), (session.clone(), now));
        let opened = if id.is_some() {
            Opened::Restarted
        } else {
            Opened::New
        };
        (session, opened)
    }

    /// Live sessions now.
    pub fn len(&self) -> usize {
        self.live().len()
    }

    /// Whether no session is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn set(values: &[&str]) -> Vec<(String, String)> {
        values
            .iter()
            .map(|v| ("Set-Cookie".to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn cookies_follow_the_rules_of_domain_path_and_secure() {
        let s = Session::new();
        let page = url("https://www.example.com/tour-t1/");
        s.store(
            &page,
            &set(&[
                "visitor_id=v1; Path=/; Domain=example.com; SameSite=Lax",
                "csrf=c1; Path=/; Secure; HttpOnly",
                "narrow=n1; Path=/api",
                "foreign=f1; Domain=other.org",
                "gone=g1; Max-Age=0",
            ]),
        );
        let api = url("https://api.example.com/reviews");
        assert_eq!(s.cookie_header(&api).as_deref(), Some("visitor_id=v1"));
        let same_host = url("https://www.example.com/api/x");
        let header = s.cookie_header(&same_host).unwrap();
        for expected in ["visitor_id=v1", "csrf=c1", "narrow=n1"] {
            assert!(header.contains(expected), "{header}");
        }
        assert!(
            !header.contains("foreign") && !header.contains("gone"),
            "{header}"
        );
        let plain = url("http://www.example.com/");
        assert!(
            !s.cookie_header(&plain).unwrap().contains("csrf"),
            "Secure cookies need https"
        );
        assert_eq!(s.cookie(&page, "csrf").as_deref(), Some("c1"));
        assert_eq!(s.cookie(&api, "csrf"), None);
        assert_eq!(s.cookie_count(), 3);
    }

    #[test]
    fn the_jar_s_cookie_values_are_scrubbed() {
        let s = Session::new();
        let page = url("https://www.example.com/");
        assert!(s.scrubber().is_empty());
        s.store(&page, &set(&["sid=0123456789abcdef; Path=/", "lang=en"]));
        let out = s
            .scrubber()
            .scrub("error: session 0123456789ABCDEF is invalid; lang=en")
            .into_owned();
        assert_eq!(out, "error: session [redacted] is invalid; lang=en");
    }

    #[test]
    fn sessions_live_until_their_ttl_and_restart_after() {
        let store = Sessions::new(Duration::from_millis(50), 2);
        let (first, opened) = store.open(None);
        assert_eq!(opened, Opened::New);
        let (again, opened) = store.open(Some(&first.id));
        assert_eq!(
            (again.id.as_str(), opened),
            (first.id.as_str(), Opened::Continued)
        );
        std::thread::sleep(Duration::from_millis(60));
        let (fresh, opened) = store.open(Some(&first.id));
        assert_eq!(opened, Opened::Restarted);
        assert_ne!(fresh.id, first.id);
        let (other, _) = store.open(Some("unknown"));
        let _ = store.open(None);
        assert_eq!(store.len(), 2, "the oldest is evicted at capacity");
        assert_eq!(store.open(Some(&other.id)).1, Opened::Continued);
    }

    #[test]
    fn at_capacity_the_least_recently_used_session_makes_room() {
        let store = Sessions::new(Duration::from_secs(60), 2);
        let (a, _) = store.open(None);
        let (b, _) = store.open(None);
        // Using a makes b the least recently used.
        assert_eq!(store.open(Some(&a.id)).1, Opened::Continued);
        let _ = store.open(None);
        assert_eq!(store.len(), 2);
        assert_eq!(store.open(Some(&a.id)).1, Opened::Continued);
        assert_eq!(store.open(Some(&b.id)).1, Opened::Restarted);
    }

    #[test]
    fn prune_lets_go_of_expired_sessions_only() {
        let store = Sessions::new(Duration::from_millis(50), 10);
        let (old, _) = store.open(None);
        std::thread::sleep(Duration::from_millis(60));
        let (recent, _) = store.open(None);
        store.prune();
        assert_eq!(store.len(), 1);
        assert!(store.is_live(&recent.id));
        assert!(!store.is_live(&old.id));
    }
}
