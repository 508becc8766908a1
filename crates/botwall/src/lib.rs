//! Bot walls and login walls: recognising the page a site's anti-bot service
//! (Cloudflare, DataDome, Akamai, PerimeterX / HUMAN), a bare CAPTCHA, an API
//! gateway's rate limit or a sign-in form answers instead of the content.
//!
//! One classifier for both sides: the host runs it after every response (to
//! log the vendor and name it to the plugin), and the plugin SDK uses its
//! verdict (or runs it, without a host) to turn a wall into a `blocked` error
//! that names the vendor and the remedy, never into "0 reviews". It reads the status, the headers, the final URL and
//! the start of the body (in one case-insensitive pass), and nothing else.

/// What a response is, when it is not the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wall {
    /// Cloudflare's "Just a moment..." challenge or its block page.
    Cloudflare,
    /// DataDome's CAPTCHA / device check.
    DataDome,
    /// Akamai Bot Manager's "Access Denied" page.
    Akamai,
    /// PerimeterX (HUMAN)'s "Press & Hold" challenge.
    PerimeterX,
    /// A CAPTCHA page of no known vendor (reCAPTCHA, hCaptcha, Turnstile).
    Captcha,
    /// An API gateway's rate-limit answer (Apigee's spike arrest or quota).
    RateLimit,
    /// A sign-in page where the content should be.
    LoginWall,
}

impl Wall {
    /// Every kind, in a fixed order (for reports).
    pub const ALL: [Wall; 7] = [
        Wall::Cloudflare,
        Wall::DataDome,
        Wall::Akamai,
        Wall::PerimeterX,
        Wall::Captcha,
        Wall::RateLimit,
        Wall::LoginWall,
    ];

    /// The wall a [`Wall::code`] names; none for any other text (`none`, for content).
    pub fn from_code(code: &str) -> Option<Wall> {
        Wall::ALL.into_iter().find(|w| w.code() == code.trim())
    }

    /// A short code for logs and reports: `cloudflare`, `datadome`, ….
    pub fn code(self) -> &'static str {
        match self {
            Wall::Cloudflare => "cloudflare",
            Wall::DataDome => "datadome",
            Wall::Akamai => "akamai",
            Wall::PerimeterX => "perimeterx",
            Wall::Captcha => "captcha",
            Wall::RateLimit => "rate_limit",
            Wall::LoginWall => "login_wall",
        }
    }

    /// The service's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Wall::Cloudflare => "Cloudflare",
            Wall::DataDome => "DataDome",
            Wall::Akamai => "Akamai",
            Wall::PerimeterX => "PerimeterX",
            Wall::Captcha => "CAPTCHA",
            Wall::RateLimit => "API gateway rate-limit",
            Wall::LoginWall => "login wall",
        }
    }

    /// What was seen, as a phrase for messages ("a Cloudflare bot challenge").
    pub fn phrase(self) -> &'static str {
        match self {
            Wall::Cloudflare => "a Cloudflare bot challenge",
            Wall::DataDome => "a DataDome CAPTCHA",
            Wall::Akamai => "an Akamai \"Access Denied\" page",
            Wall::PerimeterX => "a PerimeterX (HUMAN) challenge",
            Wall::Captcha => "a CAPTCHA page",
            Wall::RateLimit => "an API gateway's rate-limit answer",
            Wall::LoginWall => "a sign-in page",
        }
    }

    /// What would help, for messages.
    pub fn remedy(self) -> &'static str {
        match self {
            Wall::LoginWall => {
                "the page needs a signed-in account: configure the site's credentials for this plugin"
            }
            Wall::RateLimit => "retry later with slower pacing (lower the plugin's request rate)",
            Wall::Akamai | Wall::DataDome | Wall::PerimeterX => {
                "the site's pages need no credentials, but this service lets few automated \
                 clients through: retry later at a slower pace, or from a residential network or \
                 through a residential proxy ([plugins.<name>] proxies)"
            }
            _ => "retry later with slower pacing, or from another network or a proxy the site trusts",
        }
    }
}

/// What would help after a refusal status (401, 403, 429) that no wall marker
/// explains, for messages; `None` for any other status.
pub fn refusal_remedy(status: u16) -> Option<&'static str> {
    match status {
        401 => Some(
            "the site wants credentials: configure them for this plugin if the site issues any, \
             or retry later at a slower pace if its pages are public",
        ),
        403 => Some(
            "the site refuses this client: retry later at a slower pace, or from another network \
             or through a proxy the site trusts (a residential proxy for the strictest sites)",
        ),
        429 => Some("the site is rate-limiting: retry later with slower pacing (lower the plugin's request rate)"),
        _ => None,
    }
}

/// Markers in a page's text, lower-cased: (wall, marker, strong). A strong
/// marker is only ever on a wall page; a weak one is also on ordinary pages the
/// service protects (its sensor script, a form's CAPTCHA), so it counts only
/// when the status is a refusal (401, 403, 429, 503).
const BODY_MARKERS: &[(Wall, &str, bool)] = &[
    (Wall::Cloudflare, "<title>just a moment...</title>", true),
    (Wall::Cloudflare, "cf_chl_opt", true),
    (Wall::Cloudflare, "cf-browser-verification", true),
    (Wall::Cloudflare, "attention required! | cloudflare", true),
    (Wall::Cloudflare, "sorry, you have been blocked", true),
    (Wall::DataDome, "geo.captcha-delivery.com", true),
    (Wall::DataDome, "ct.captcha-delivery.com", true),
    (Wall::PerimeterX, "px-captcha", true),
    (Wall::PerimeterX, "press &amp; hold", true),
    (Wall::Akamai, "errors.edgesuite.net", true),
    (Wall::Cloudflare, "/cdn-cgi/challenge-platform/", false),
    (Wall::PerimeterX, "_pxappid", false),
    (Wall::PerimeterX, "perimeterx", false),
    (Wall::Captcha, "g-recaptcha", false),
    (Wall::Captcha, "h-captcha", false),
    (Wall::Captcha, "challenges.cloudflare.com/turnstile", false),
    (Wall::RateLimit, "spike arrest violation", false),
    (Wall::RateLimit, "spikearrest", false),
    (Wall::RateLimit, "quota violation", false),
];

/// Response headers that name a wall: (wall, header, value substring or "" for
/// any, strong).
const HEADER_MARKERS: &[(Wall, &str, &str, bool)] = &[
    (Wall::Cloudflare, "cf-mitigated", "challenge", true),
    (Wall::PerimeterX, "x-px-blocked", "", true),
    (Wall::DataDome, "x-datadome", "", false),
    (Wall::DataDome, "x-dd-b", "", false),
    (Wall::Cloudflare, "server", "cloudflare", false),
];

/// Paths of sign-in pages, as a redirect lands on them.
const LOGIN_PATHS: &[&str] = &[
    "/login",
    "/signin",
    "/sign-in",
    "/sign_in",
    "/users/sign_in",
    "/account/login",
    "/accounts/login",
    "/auth/login",
];

/// Words of a CAPTCHA page's title or heading, which make a CAPTCHA widget a wall.
const CAPTCHA_WORDS: &[&str] = &[
    "verify you are human",
    "verify you are a human",
    "are you a robot",
    "are you human",
    "security check",
    "captcha",
];

/// Only the start of a body is read: wall pages are small, content pages large.
pub const SCAN_BYTES: usize = 64 * 1024;

/// One response, as the classifier reads it.
#[derive(Debug, Clone, Copy)]
pub struct Response<'a> {
    /// HTTP status.
    pub status: u16,
    /// Headers, names in any case.
    pub headers: &'a [(String, String)],
    /// The URL that answered, after redirects.
    pub final_url: &'a str,
    /// The body (only its first [`SCAN_BYTES`] are read).
    pub body: &'a [u8],
}

impl Response<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The wall this response is, if any; none for real content.
pub fn classify(response: &Response<'_>) -> Option<Wall> {
    let refused = matches!(response.status, 401 | 403 | 429 | 503);
    for (wall, name, value, strong) in HEADER_MARKERS {
        let Some(v) = response.header(name) else {
            continue;
        };
        let matches = value.is_empty() || v.to_ascii_lowercase().contains(value);
        // `server: cloudflare` is on every page Cloudflare serves; only a 403
        // or 503 from it is its block or challenge.
        let counts = if *name == "server" {
            matches!(response.status, 403 | 503)
        } else {
            *strong || refused
        };
        if matches && counts {
            return Some(*wall);
        }
    }
    let head = &response.body[..response.body.len().min(SCAN_BYTES)];
    let found = Found::scan(head);
    // Akamai writes its reference line with entities: "Reference&#32;&#35;18&#46;…".
    let akamai_reference = AKAMAI_REFERENCE.iter().any(|m| found.has(m));
    if found.has(AKAMAI_TITLE) && (akamai_reference || refused) {
        return Some(Wall::Akamai);
    }
    if let Some((wall, _, _)) = BODY_MARKERS
        .iter()
        .find(|(_, marker, strong)| (*strong || refused) && found.has(marker))
    {
        return Some(*wall);
    }
    let title = found.title(head);
    let captcha_widget = CAPTCHA_WIDGETS.iter().any(|m| found.has(m));
    if captcha_widget && CAPTCHA_WORDS.iter().any(|w| title.contains(w)) {
        return Some(Wall::Captcha);
    }
    let password_form = PASSWORD_FIELDS.iter().any(|m| found.has(m));
    if is_login(response, password_form, &title) {
        return Some(Wall::LoginWall);
    }
    None
}

const AKAMAI_TITLE: &str = "<title>access denied</title>";
const AKAMAI_REFERENCE: [&str; 3] = ["reference #", "reference&#32;&#35;", "edgesuite"];
const CAPTCHA_WIDGETS: [&str; 4] = ["g-recaptcha", "h-captcha", "cf-turnstile", "captcha"];
const PASSWORD_FIELDS: [&str; 2] = ["type=\"password\"", "type='password'"];
const TITLE_OPEN: &str = "<title";

/// Every body pattern, found in one case-insensitive pass over the body's head.
fn patterns() -> &'static (aho_corasick::AhoCorasick, Vec<&'static str>) {
    static PATTERNS: std::sync::OnceLock<(aho_corasick::AhoCorasick, Vec<&'static str>)> =
        std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        let mut all: Vec<&'static str> = BODY_MARKERS.iter().map(|(_, m, _)| *m).collect();
        all.push(AKAMAI_TITLE);
        all.extend(AKAMAI_REFERENCE);
        all.extend(CAPTCHA_WIDGETS);
        all.extend(PASSWORD_FIELDS);
        all.push(TITLE_OPEN);
        // A DFA: the pattern set is small, and a DFA searches fastest.
        let automaton = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&all)
            .expect("the wall patterns are valid");
        (automaton, all)
    })
}

/// Which patterns a body holds, and where its title starts.
struct Found {
    seen: Vec<bool>,
    title_at: Option<usize>,
}

impl Found {
    fn scan(head: &[u8]) -> Found {
        let (automaton, all) = patterns();
        let mut seen = vec![false; all.len()];
        let mut title_at = None;
        for m in automaton.find_overlapping_iter(head) {
            let index = m.pattern().as_usize();
            seen[index] = true;
            if all[index] == TITLE_OPEN && title_at.is_none() {
                title_at = Some(m.start());
            }
        }
        Found { seen, title_at }
    }

    fn has(&self, pattern: &str) -> bool {
        let all = &patterns().1;
        all.iter()
            .position(|p| *p == pattern)
            .is_some_and(|i| self.seen[i])
    }

    /// The page's `<title>`, lower-cased, or "".
    fn title(&self, head: &[u8]) -> String {
        let Some(at) = self.title_at else {
            return String::new();
        };
        let window = &head[at..head.len().min(at + 1024)];
        title_of(&String::from_utf8_lossy(window).to_ascii_lowercase()).to_owned()
    }
}

/// A sign-in page: a redirect that landed on a sign-in path, a 401 page, or a
/// page titled for signing in that holds a password field.
fn is_login(response: &Response<'_>, password_form: bool, title: &str) -> bool {
    let path = response
        .final_url
        .split_once("://")
        .map_or(response.final_url, |(_, rest)| rest);
    let path = path
        .find('/')
        .map_or("", |at| &path[at..])
        .to_ascii_lowercase();
    let path = path.split(['?', '#']).next().unwrap_or_default();
    if LOGIN_PATHS
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")) || path.ends_with(p))
    {
        return true;
    }
    let titled = ["sign in", "log in", "login", "sign-in"]
        .iter()
        .any(|w| title.contains(w));
    password_form && (titled || response.status == 401)
}

/// The `<title>` of a lower-cased page, or "".
fn title_of(text: &str) -> &str {
    let Some(start) = text.find("<title") else {
        return "";
    };
    let Some(open_end) = text[start..].find('>') else {
        return "";
    };
    let rest = &text[start + open_end + 1..];
    rest.find("</title>").map_or("", |end| rest[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_page(status: u16, headers: &[(&str, &str)], url: &str, body: &str) -> Option<Wall> {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        classify(&Response {
            status,
            headers: &headers,
            final_url: url,
            body: body.as_bytes(),
        })
    }

    #[test]
    fn server_cloudflare_counts_only_on_a_refusal() {
        let cf = [("server", "cloudflare")];
        assert_eq!(
            classify_page(200, &cf, "https://x/", "<p>reviews</p>"),
            None
        );
        assert_eq!(classify_page(404, &cf, "https://x/", "<p>gone</p>"), None);
        assert_eq!(
            classify_page(403, &cf, "https://x/", "<p>no</p>"),
            Some(Wall::Cloudflare)
        );
    }

    #[test]
    fn login_walls_by_path_and_by_form() {
        assert_eq!(
            classify_page(
                200,
                &[],
                "https://x.com/users/sign_in?return=/r",
                "<form></form>"
            ),
            Some(Wall::LoginWall)
        );
        let form = "<html><title>Log in | Site</title><input type=\"password\" name=\"p\"></html>";
        assert_eq!(
            classify_page(200, &[], "https://x.com/reviews", form),
            Some(Wall::LoginWall)
        );
        let review = "<html><title>Reviews</title><p>I could not log in at first.</p></html>";
        assert_eq!(
            classify_page(200, &[], "https://x.com/reviews", review),
            None
        );
        assert_eq!(
            classify_page(200, &[], "https://blog.x.com/login-tips-article", review),
            None
        );
    }

    #[test]
    fn titles_are_read() {
        assert_eq!(title_of("<title lang=\"en\"> a </title>"), "a");
        assert_eq!(title_of("<p>no title</p>"), "");
    }
}
