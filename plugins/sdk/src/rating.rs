//! Rating normalisation: scales, and ratings written as text.

/// Converts `value` on a 0..=`from_max` scale to 0..=`to_max`, rounded to two decimals.
pub fn rescale(value: f64, from_max: f64, to_max: f64) -> Option<f64> {
    if !value.is_finite() || from_max <= 0.0 || value < 0.0 || value > from_max {
        return None;
    }
    Some((value / from_max * to_max * 100.0).round() / 100.0)
}

/// Reads a rating written as text: `"4.5"`, `"4.5/5"`, `"4 out of 5"`, `"90%"`,
/// `"★★★★☆"`, `"5.0"`. Returns (value, scale max); a bare number gets `default_max`.
pub fn parse(text: &str, default_max: f64) -> Option<(f64, f64)> {
    let t = text.trim();
    let stars = t.chars().filter(|c| *c == '★').count();
    let empty = t.chars().filter(|c| *c == '☆').count();
    if stars + empty > 0 && t.chars().all(|c| c == '★' || c == '☆' || c.is_whitespace()) {
        return Some((stars as f64, (stars + empty) as f64));
    }
    if let Some(p) = t.strip_suffix('%') {
        let v: f64 = p.trim().parse().ok()?;
        return (0.0..=100.0).contains(&v).then_some((v, 100.0));
    }
    let lower = t.to_ascii_lowercase();
    let (value, max) = match lower
        .split_once('/')
        .or_else(|| lower.split_once(" out of "))
    {
        Some((v, m)) => (v.trim().parse::<f64>().ok()?, m.trim().parse::<f64>().ok()?),
        None => (lower.parse::<f64>().ok()?, default_max),
    };
    (value.is_finite() && max > 0.0 && (0.0..=max).contains(&value)).then_some((value, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_text_forms() {
        assert_eq!(rescale(90.0, 100.0, 5.0), Some(4.5));
        assert_eq!(rescale(6.0, 5.0, 5.0), None);
        assert_eq!(parse("4.5/5", 5.0), Some((4.5, 5.0)));
        assert_eq!(parse("4 out of 5", 5.0), Some((4.0, 5.0)));
        assert_eq!(parse("90%", 5.0), Some((90.0, 100.0)));
        assert_eq!(parse("★★★★☆", 5.0), Some((4.0, 5.0)));
        assert_eq!(parse("5.0", 5.0), Some((5.0, 5.0)));
        assert_eq!(parse("7/5", 5.0), None);
        assert_eq!(parse("great", 5.0), None);
    }
}
