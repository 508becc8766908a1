//! The plugin's view of its session: the cookies the sites set during the
//! fetch, for sites that echo a cookie in a header (a CSRF token). The jar
//! itself lives in [`super::http::session`]; every request already carries it.

use url::Url;

use crate::bindings::sdk::gleaner::plugin::session;
use crate::capabilities::{view_link, CallContext};

/// What the session import sees of a call.
pub struct SessionView<'a> {
    /// The call.
    pub call: &'a mut CallContext,
}

view_link!(SessionLink, SessionView, session);

impl session::Host for SessionView<'_> {
    async fn cookie(&mut self, url: String, name: String) -> wasmtime::Result<Option<String>> {
        self.call.charge(url.len() + name.len())?;
        let Ok(url) = Url::parse(&url) else {
            return Ok(None);
        };
        // Only cookies of hosts the plugin may reach: a plugin reads no more
        // of the jar than its own requests could send.
        if self.call.grant.policy.check(&url).is_err() {
            return Ok(None);
        }
        Ok(self.call.session.cookie(&url, &name))
    }
}
