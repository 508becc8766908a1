//! Numbers as pages and APIs write them: JSON numbers or numeric text, counts
//! with thousands separators ("22,596"), and the first count in a sentence
//! ("Based on 1,204 reviews").

use serde_json::Value;

/// A JSON number, or a number written as text with `,` thousands separators;
/// finite values only.
pub fn of_json(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(parse))
        .filter(|n| n.is_finite())
}

/// A whole count: a JSON integer, or digits written as text with `,` or `.`
/// thousands separators ("22,596", "1.204").
pub fn count_of_json(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        let s = v.as_str()?.trim();
        s.chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
            .then(|| s.replace([',', '.'], ""))?
            .parse()
            .ok()
    })
}

/// A decimal number written as text, `,` thousands separators allowed: "4.6",
/// "1,204.5".
pub fn parse(text: &str) -> Option<f64> {
    text.trim()
        .replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
}

/// The first run of digits in a text, `,` thousands separators skipped:
/// "Based on 1,204 reviews" → 1204.
pub fn first_count(text: &str) -> Option<u64> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_numbers_and_counts() {
        assert_eq!(of_json(&json!(4.5)), Some(4.5));
        assert_eq!(of_json(&json!(" 4.9 ")), Some(4.9));
        assert_eq!(of_json(&json!("22,596")), Some(22596.0));
        assert_eq!(of_json(&json!("many")), None);
        assert_eq!(of_json(&json!("NaN")), None);
        assert_eq!(of_json(&Value::Null), None);
        assert_eq!(count_of_json(&json!(12)), Some(12));
        assert_eq!(count_of_json(&json!("22,596")), Some(22596));
        assert_eq!(count_of_json(&json!("1.204")), Some(1204));
        assert_eq!(count_of_json(&json!("12 reviews")), None);
        assert_eq!(count_of_json(&json!(-3)), None);
        assert_eq!(parse("1,204.5"), Some(1204.5));
        assert_eq!(first_count("Based on 1,204 reviews"), Some(1204));
        assert_eq!(first_count("(87)"), Some(87));
        assert_eq!(first_count("no reviews"), None);
    }
}
