//! The wall verdict: every final response classified once, natively.

use super::{credentials, OutboundResponse};

/// Classifies a final response (see `gleaner-botwall`) once, natively: a wall is
/// logged with its vendor, and the verdict goes to the plugin in the answer's
/// `wall` field, so the SDK need not classify again.
pub(super) fn mark_wall(
    plugin: &str,
    answer: &mut OutboundResponse,
) -> Option<gleaner_botwall::Wall> {
    let wall = gleaner_botwall::classify(&gleaner_botwall::Response {
        status: answer.status,
        headers: &answer.headers,
        final_url: &answer.final_url,
        body: &answer.body,
    });
    if let Some(wall) = wall {
        let url = credentials::redact_url(&answer.final_url);
        tracing::info!(plugin, %url, status = answer.status, wall = wall.code(), "the site answered with a wall");
    }
    answer.wall = wall;
    wall
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_carries_the_wall_verdict() {
        let mut challenge = OutboundResponse {
            status: 403,
            headers: vec![("cf-mitigated".into(), "challenge".into())],
            body: b"<title>Just a moment...</title>".to_vec(),
            final_url: "https://www.example.com/r".into(),
            wall: None,
        };
        mark_wall("p", &mut challenge);
        assert_eq!(challenge.wall, Some(gleaner_botwall::Wall::Cloudflare));
        let mut content = OutboundResponse {
            status: 200,
            headers: vec![],
            body: b"<p>The captcha was annoying.</p>".to_vec(),
            final_url: "https://www.example.com/r".into(),
            wall: Some(gleaner_botwall::Wall::Captcha),
        };
        mark_wall("p", &mut content);
        assert_eq!(content.wall, None, "content, whatever was set before");
        assert!(content.headers.is_empty(), "no pseudo-header is added");
    }
}
