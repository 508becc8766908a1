//! Alibaba's mtop gateway (`acs.h.alibaba.com/h5/<api>/<version>/`), which
//! serves the review list as signed JSON calls.
//!
//! A call carries `t` (milliseconds) and `sign = md5(token&t&appKey&data)`,
//! where the token is the part before `_` of the `_m_h5_tk` cookie. The
//! gateway sets that cookie itself: a call without it is refused with
//! `FAIL_SYS_TOKEN_EMPTY` and a `Set-Cookie`, after which the call is signed
//! and sent again; an expired token or a stale `t` is refused the same way
//! and renewed the same way. The host keeps the cookie in the fetch's
//! session, across its continuation tokens.
//!
//! Refusals by the anti-bot service (the "punish" slider page, or the
//! `RGV587_ERROR` / `FAIL_SYS_USER_VALIDATE` answers) become 502s naming
//! what was seen.

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::{botwall, session, FetchError};
use serde_json::Value;

use crate::{clock, endpoints};

/// The cookie holding the gateway's token.
pub const TOKEN_COOKIE: &str = "_m_h5_tk";

/// Marks of the anti-bot service's "punish" page (its slider CAPTCHA).
const PUNISH_MARKERS: &[&str] = &["_____tmd_____", "<punish-component", "x5secdata"];

/// `ret` codes that ask for a new token or a fresh timestamp: sign and send again.
const RENEW: &[&str] = &[
    "TOKEN_EMPTY",
    "TOKEN_EXOIRED",
    "TOKEN_EXPIRED",
    "ILLEGAL_ACCESS",
    "REQUEST_EXPIRED",
];

/// `ret` codes of the anti-bot service and of rate limits.
const BOT_CHECKS: &[&str] = &[
    "RGV587_ERROR",
    "FAIL_SYS_USER_VALIDATE",
    "FAIL_SYS_TRAFFIC_LIMIT",
    "FAIL_SYS_FLOWLIMIT",
];

/// How many signed attempts a call may take (a first unsigned one, a signed
/// one, and one more for a token that expired in between).
const ATTEMPTS: usize = 3;

/// Whether a body is the anti-bot service's punish page.
pub fn punished(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(64 * 1024)]);
    PUNISH_MARKERS.iter().any(|m| head.contains(m))
}

/// The token the session holds for the gateway (empty before the first call).
pub fn token() -> String {
    session::cookie(endpoints::MTOP, TOKEN_COOKIE)
        .and_then(|v| v.split('_').next().map(str::to_owned))
        .unwrap_or_default()
}

/// The URL of a call of `api` with `data` (compact JSON), signed with `token` at `t`.
pub fn url(api: &str, data: &str, token: &str, t: u64) -> String {
    let sign = md5_hex(format!("{token}&{t}&{}&{data}", endpoints::APP_KEY).as_bytes());
    format!(
        "{}/h5/{api}/1.0/?jsv=2.7.2&appKey={}&t={t}&sign={sign}&api={api}&v=1.0&type=originaljson&dataType=json&data={}",
        endpoints::MTOP,
        endpoints::APP_KEY,
        http::encode_component(data)
    )
}

/// What one answer of the gateway was.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// `SUCCESS`: the answer's `data`.
    Data(Value),
    /// A token or timestamp refusal: sign again and resend (the `ret` text).
    Renew(String),
    /// A parameter refusal (the `ret` text): the caller may add what is missing.
    Params(String),
}

/// Reads an answer of the gateway.
pub fn read(response: &Response) -> Result<Answer, FetchError> {
    if let Some(wall) = botwall::detect(response) {
        return Err(botwall::blocked(wall, WHAT, response));
    }
    if punished(&response.body) {
        return Err(FetchError::Blocked(format!(
            "{WHAT}: Alibaba's anti-bot service answered with its \"punish\" slider page (HTTP {}) instead of the reviews; \
             it holds an address for minutes: retry later with slower pacing, or through a residential proxy",
            response.status
        )));
    }
    if matches!(response.status, 401 | 403 | 429) {
        return Err(FetchError::Blocked(format!(
            "{WHAT}: the gateway refused the request ({}); retry later with slower pacing, or through a residential proxy",
            botwall::seen(response)
        )));
    }
    let body: Value = match serde_json::from_slice(&response.body) {
        Ok(v) if response.is_success() => v,
        _ => {
            return Err(FetchError::Upstream(format!(
                "{WHAT}: the gateway answered {} instead of JSON",
                botwall::seen(response)
            )))
        }
    };
    let ret = ret(&body);
    if ret.starts_with("SUCCESS") {
        return Ok(Answer::Data(body["data"].clone()));
    }
    if RENEW.iter().any(|code| ret.contains(code)) {
        return Ok(Answer::Renew(ret));
    }
    if BOT_CHECKS.iter().any(|code| ret.contains(code)) {
        return Err(FetchError::Blocked(format!(
            "{WHAT}: Alibaba's anti-bot service refused the call ({ret}); retry later with slower pacing, or through a residential proxy"
        )));
    }
    if ret.contains("PARAM") {
        return Ok(Answer::Params(ret));
    }
    Err(FetchError::Upstream(format!(
        "{WHAT}: the gateway refused the call ({ret})"
    )))
}

/// What is being read, for messages.
const WHAT: &str = "Alibaba.com's review API";

/// The `ret` codes of an answer, joined.
fn ret(body: &Value) -> String {
    match &body["ret"] {
        Value::Array(codes) => codes
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

/// A signed call: `data` is the call's compact JSON, `clock` the site's
/// latest time (renewed from every answer). Renews the token or timestamp
/// when the gateway asks to.
pub fn call(
    api: &str,
    data: &str,
    referer: &str,
    clock: &mut Option<u64>,
) -> Result<Answer, FetchError> {
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        let t = clock.unwrap_or_else(clock::now_ms);
        let url = url(api, data, &token(), t);
        let response = http::get_as(http::Profile::Json, &url, &[("referer", referer)])?;
        if let Some(time) = clock::of(&response) {
            *clock = Some(time);
        }
        match read(&response)? {
            Answer::Renew(ret) => last = ret,
            answer => return Ok(answer),
        }
    }
    let why = if token().is_empty() {
        "the gateway set no _m_h5_tk token cookie"
    } else {
        "the gateway kept refusing the token"
    };
    Err(FetchError::Upstream(format!(
        "{WHAT}: the token handshake failed after {ATTEMPTS} attempts ({last}; {why}); retry later"
    )))
}

/// MD5 of `data` as 32 lower-case hex digits: the gateway's request checksum
/// (the site's scheme, not a security measure of ours).
fn md5_hex(data: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_with_md5() {
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }
    use serde_json::json;

    fn answer(status: u16, body: &str) -> Response {
        gleaner_sdk::testing::response(status, "https://acs.h.alibaba.com/h5/x/1.0/", body)
            .with_wall(None)
    }

    #[test]
    fn signs_calls_as_the_page_script_does() {
        let data = r#"{"productId":1601302079515,"currentPage":1,"pageSize":10}"#;
        let url = url(
            "mtop.alibaba.icbu.review.media.review",
            data,
            "",
            1_789_388_495_000,
        );
        let sign = md5_hex(format!("&1789388495000&12574478&{data}").as_bytes());
        assert_eq!(
            url,
            format!(
                "https://acs.h.alibaba.com/h5/mtop.alibaba.icbu.review.media.review/1.0/?jsv=2.7.2&appKey=12574478&t=1789388495000&sign={sign}&api=mtop.alibaba.icbu.review.media.review&v=1.0&type=originaljson&dataType=json&data=%7B%22productId%22%3A1601302079515%2C%22currentPage%22%3A1%2C%22pageSize%22%3A10%7D"
            )
        );
        let signed = super::url("a", "{}", "0f1e2d3c", 5);
        assert!(signed.contains(&format!("sign={}", md5_hex(b"0f1e2d3c&5&12574478&{}"))));
    }

    #[test]
    fn reads_every_kind_of_answer() {
        let ok = answer(
            200,
            r#"{"api":"a","data":{"target":{}},"ret":["SUCCESS::调用成功"],"v":"1.0"}"#,
        );
        assert_eq!(read(&ok).unwrap(), Answer::Data(json!({"target": {}})));
        let empty = answer(
            200,
            r#"{"api":"a","data":{},"ret":["FAIL_SYS_TOKEN_EMPTY::令牌为空"],"v":"1.0"}"#,
        );
        assert!(
            matches!(read(&empty).unwrap(), Answer::Renew(r) if r.starts_with("FAIL_SYS_TOKEN_EMPTY"))
        );
        let expired = answer(200, r#"{"ret":["FAIL_SYS_TOKEN_EXOIRED::令牌过期"]}"#);
        assert!(matches!(read(&expired).unwrap(), Answer::Renew(_)));
        let params = answer(200, r#"{"ret":["FAIL_BIZ_PARAM_ERROR::参数错误"]}"#);
        assert!(matches!(read(&params).unwrap(), Answer::Params(_)));
        let bot = answer(
            200,
            r#"{"ret":["RGV587_ERROR::SM::哎哟喂,被挤爆啦,请稍后重试"],"data":{"url":"https://acs.h.alibaba.com/punish"}}"#,
        );
        assert!(
            matches!(read(&bot), Err(FetchError::Blocked(m)) if m.contains("RGV587_ERROR") && m.contains("residential proxy"))
        );
        let slider = answer(200, "<html><script>window._____tmd_____=1</script><punish-component></punish-component></html>");
        assert!(matches!(read(&slider), Err(FetchError::Blocked(m)) if m.contains("punish")));
        assert!(matches!(
            read(&answer(403, "")),
            Err(FetchError::Blocked(_))
        ));
        assert!(matches!(
            read(&answer(502, "bad gateway")),
            Err(FetchError::Upstream(_))
        ));
        assert!(
            matches!(read(&answer(200, "<html></html>")), Err(FetchError::Upstream(m)) if m.contains("HTML page"))
        );
        let other = answer(
            200,
            r#"{"ret":["FAIL_SYS_SERVICE_INNER_FAULT::服务竟然出错了"]}"#,
        );
        assert!(matches!(read(&other), Err(FetchError::Upstream(m)) if m.contains("INNER_FAULT")));
    }
}
