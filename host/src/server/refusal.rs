//! Refusals at the HTTP layer. When a request cannot be parsed — headers too
//! large (431), a URI too long (414), a malformed head or a `Content-Length`
//! no server could honour (400) — hyper answers by itself, before any route
//! runs, with an empty body. The connection's writer recognises that answer
//! (the server's own answers always carry `x-request-id`; hyper's never do)
//! and sends in its place the documented JSON error with a request id.

/// The statuses hyper answers by itself, with what to tell the client.
fn explain(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => {
            "the request could not be read as HTTP/1.1: a malformed request line or header, \
             or a Content-Length that is not a number this server accepts; fix the request"
        }
        414 => "the request URI is too long; send the data in a JSON body instead",
        431 => {
            "the request's headers are too large (over 64 KiB, or more than 100 headers); \
             send fewer or smaller headers"
        }
        _ => return None,
    })
}

/// The JSON answer to send instead of `written`, when `written` is one of
/// hyper's own bodiless refusals.
pub fn replacement(written: &[u8]) -> Option<Vec<u8>> {
    let head_end = find(written, b"\r\n\r\n")?;
    let head = std::str::from_utf8(&written[..head_end]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let rest = status_line.strip_prefix("HTTP/1.")?;
    let status: u16 = rest.get(2..5)?.parse().ok()?;
    let message = explain(status)?;
    let ours = lines.any(|l| {
        l.split_once(':')
            .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("x-request-id"))
    });
    if ours {
        return None;
    }
    let request_id = crate::api::answer::new_request_id();
    tracing::info!(status, request_id = %request_id, "request refused before routing");
    let body = serde_json::json!({ "error": message }).to_string();
    let reason = match status {
        400 => "Bad Request",
        414 => "URI Too Long",
        _ => "Request Header Fields Too Large",
    };
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             x-request-id: {request_id}\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_s_own_refusals_become_json_with_a_request_id() {
        let hyper =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let ours = String::from_utf8(replacement(hyper).unwrap()).unwrap();
        assert!(ours.starts_with("HTTP/1.1 431 "), "{ours}");
        assert!(ours.contains("x-request-id: "), "{ours}");
        assert!(ours.ends_with("send fewer or smaller headers\"}"), "{ours}");
        let routed = b"HTTP/1.1 400 Bad Request\r\nx-request-id: abc\r\n\r\n{\"error\":\"x\"}";
        assert_eq!(replacement(routed), None, "the server's own answers pass");
        assert_eq!(replacement(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(replacement(b"{\"a\":1}"), None);
    }
}
