//! Colours: brand colours declared in CSS (custom properties, buttons, headers)
//! and the parsing of any CSS colour into `#rrggbb`.

use std::collections::HashMap;

pub(crate) const MAX_CSS: usize = 1 << 20;
const MAX_COLORS: usize = 64;

fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .find("*/")
            .map_or("", |e| &rest[start + 4 + e..]);
    }
    out.push_str(rest);
    out
}

/// (selector, declarations) pairs of a style sheet; at-rule blocks are flattened.
/// The `(selector, declarations)` rules of a style sheet.
pub(crate) fn css_rules(css: &str) -> Vec<(String, String)> {
    let css = strip_comments(css);
    let mut rules = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < css.len() {
        match css.as_bytes()[i] {
            b'{' => {
                let prelude = css[start..i].trim();
                if prelude.starts_with('@') {
                    start = i + 1;
                } else {
                    let end = css[i + 1..].find('}').map_or(css.len(), |p| i + 1 + p);
                    rules.push((prelude.to_owned(), css[i + 1..end].to_owned()));
                    i = end;
                    start = end + 1;
                }
            }
            b'}' | b';' => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    rules
}

fn declarations(block: &str) -> impl Iterator<Item = (String, String)> + '_ {
    block.split(';').filter_map(|d| {
        let (prop, value) = d.split_once(':')?;
        let value = value.trim();
        let lower = value.to_ascii_lowercase();
        let value = lower
            .find("!important")
            .map_or(value, |i| &value[..i])
            .trim();
        Some((prop.trim().to_ascii_lowercase(), value.to_owned()))
    })
}

/// Replaces `var(--x, fallback)` references by their values.
fn substitute(value: &str, vars: &HashMap<String, String>, depth: u8) -> String {
    let Some(start) = value.find("var(") else {
        return value.to_owned();
    };
    if depth > 8 {
        return String::new();
    }
    let inner_start = start + 4;
    let mut level = 1;
    let mut end = value.len();
    for (i, c) in value[inner_start..].char_indices() {
        level += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if level == 0 {
            end = inner_start + i;
            break;
        }
    }
    let inner = &value[inner_start..end];
    let (name, fallback) = inner.split_once(',').unwrap_or((inner, ""));
    let replaced = match vars.get(&name.trim().to_ascii_lowercase()) {
        Some(v) => substitute(v, vars, depth + 1),
        None => substitute(fallback.trim(), vars, depth + 1),
    };
    let tail = value.get(end + 1..).unwrap_or_default();
    format!(
        "{}{replaced}{}",
        &value[..start],
        substitute(tail, vars, depth + 1)
    )
}

/// A colour from a custom property value, including bare channel lists such as
/// `222 47% 11%` (hsl) or `37 99 235` (rgb) used by utility frameworks.
fn var_color(value: &str) -> Option<String> {
    parse_color(value).or_else(|| {
        let parts: Vec<&str> = value.split([' ', ',']).filter(|p| !p.is_empty()).collect();
        if parts.len() != 3 {
            return None;
        }
        if parts[1].ends_with('%') && parts[2].ends_with('%') {
            parse_color(&format!("hsl({})", parts.join(" ")))
        } else if parts
            .iter()
            .all(|p| p.parse::<f64>().is_ok_and(|n| (0.0..=255.0).contains(&n)))
        {
            parse_color(&format!("rgb({})", parts.join(" ")))
        } else {
            None
        }
    })
}

fn first_color(value: &str) -> Option<String> {
    let (mut level, mut start) = (0i32, 0);
    let mut tokens = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '(' => level += 1,
            ')' => level -= 1,
            ' ' | ',' if level == 0 => {
                tokens.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    tokens.push(&value[start..]);
    tokens.into_iter().find_map(parse_color)
}

fn var_label(name: &str) -> Option<&'static str> {
    let skip = "foreground -fg text contrast shadow border ring on- hover";
    if skip.split(' ').any(|s| name.contains(s)) {
        return None;
    }
    let labels = [
        ("primary", "primary-var"),
        ("brand", "brand-var"),
        ("accent", "accent-var"),
    ];
    labels
        .into_iter()
        .find(|(k, _)| name.contains(k))
        .map(|(_, label)| label)
}

fn selector_label(selector: &str) -> Option<&'static str> {
    let skip = ":hover :focus :active :disabled :: secondary outline ghost light white close \
        toggle menu nav link tertiary cancel";
    let button = "button .btn .cta [type=submit] [type=\"submit\"]";
    selector.to_ascii_lowercase().split(',').find_map(|part| {
        let last = part.split_whitespace().last().unwrap_or_default();
        if skip.split_whitespace().any(|s| part.contains(s)) {
            None
        } else if button.split(' ').any(|b| last.contains(b)) {
            Some("button")
        } else if last.starts_with("body") || last.starts_with("html") {
            Some("background")
        } else {
            None
        }
    })
}

/// Brand colours named by CSS custom properties and button or header rules.
pub(crate) fn css_colors(rules: &[(String, String)]) -> Vec<(String, String)> {
    let mut vars = HashMap::new();
    for (_, block) in rules {
        for (prop, value) in declarations(block) {
            if prop.starts_with("--") {
                vars.entry(prop).or_insert(value);
            }
        }
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (selector, block) in rules {
        for (prop, value) in declarations(block) {
            let found = if prop.starts_with("--") {
                var_label(&prop).zip(var_color(&substitute(&value, &vars, 0)))
            } else if prop == "background" || prop == "background-color" {
                selector_label(selector).zip(first_color(&substitute(&value, &vars, 0)))
            } else {
                None
            };
            if let Some((label, color)) = found {
                let pair = (label.to_owned(), color);
                if out.len() < MAX_COLORS && !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// Common named colours as `name rrggbb` pairs.
const NAMED: &str = "black 000000 white ffffff red ff0000 green 008000 blue 0000ff yellow ffff00 \
    orange ffa500 purple 800080 gray 808080 grey 808080 silver c0c0c0 navy 000080 teal 008080 \
    maroon 800000 olive 808000 lime 00ff00 aqua 00ffff cyan 00ffff fuchsia ff00ff magenta ff00ff \
    pink ffc0cb brown a52a2a gold ffd700 indigo 4b0082 violet ee82ee crimson dc143c coral ff7f50 \
    tomato ff6347 orangered ff4500 royalblue 4169e1 dodgerblue 1e90ff darkblue 00008b \
    lightgray d3d3d3 lightgrey d3d3d3 darkgray a9a9a9 darkgrey a9a9a9 whitesmoke f5f5f5";

/// Parses a CSS colour to lower-case `#rrggbb`: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`
/// (alpha dropped), `rgb()`/`rgba()` (comma or space syntax, numbers or percentages),
/// `hsl()`/`hsla()` (deg, turn, rad, grad hues) and common named colours. Fully
/// transparent colours (`transparent`, alpha 0) and anything else give `None`.
pub fn parse_color(s: &str) -> Option<String> {
    let s = s.trim().to_ascii_lowercase();
    let s = s.strip_suffix("!important").unwrap_or(&s).trim();
    let hex = |r: f64, g: f64, b: f64| {
        let c = |v: f64| (v.clamp(0.0, 255.0)).round() as u8;
        format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
    };
    if let Some(h) = s.strip_prefix('#') {
        let full: String = match h.len() {
            _ if !h.chars().all(|c| c.is_ascii_hexdigit()) => return None,
            3 | 4 => h.chars().flat_map(|c| [c, c]).collect(),
            6 | 8 => h.to_owned(),
            _ => return None,
        };
        let byte = |i: usize| {
            u8::from_str_radix(full.get(i..i + 2)?, 16)
                .ok()
                .map(f64::from)
        };
        if full.len() == 8 && byte(6)? == 0.0 {
            return None;
        }
        return Some(hex(byte(0)?, byte(2)?, byte(4)?));
    }
    if let Some((func, rest)) = s.split_once('(') {
        let args: Vec<&str> = rest
            .strip_suffix(')')?
            .split([',', ' ', '/'])
            .filter(|a| !a.is_empty())
            .collect();
        if !(3..=4).contains(&args.len()) {
            return None;
        }
        let num = |a: &str, percent_scale: f64| -> Option<f64> {
            let v = match a.strip_suffix('%') {
                Some(p) => p.parse::<f64>().ok()? * percent_scale / 100.0,
                None if a == "none" => 0.0,
                None => a.parse::<f64>().ok()?,
            };
            v.is_finite().then_some(v)
        };
        if args
            .get(3)
            .is_some_and(|a| num(a, 1.0).is_none_or(|v| v <= 0.0))
        {
            return None;
        }
        return match func.trim() {
            "rgb" | "rgba" => Some(hex(
                num(args[0], 255.0)?,
                num(args[1], 255.0)?,
                num(args[2], 255.0)?,
            )),
            "hsl" | "hsla" => {
                let (hue, factor) = [
                    ("deg", 1.0),
                    ("grad", 0.9),
                    ("rad", 180.0 / std::f64::consts::PI),
                    ("turn", 360.0),
                ]
                .iter()
                .find_map(|(u, f)| Some((args[0].strip_suffix(u)?, *f)))
                .unwrap_or((args[0], 1.0));
                let hue = (num(hue, 1.0)? * factor).rem_euclid(360.0);
                let frac = |a: &str| {
                    num(a.trim_end_matches('%'), 1.0).map(|v| v.clamp(0.0, 100.0) / 100.0)
                };
                let (sat, light) = (frac(args[1])?, frac(args[2])?);
                let a = sat * light.min(1.0 - light);
                let f = |n: f64| {
                    let k = (n + hue / 30.0) % 12.0;
                    255.0 * (light - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0))
                };
                Some(hex(f(0.0), f(8.0), f(4.0)))
            }
            _ => None,
        };
    }
    let words: Vec<&str> = NAMED.split_whitespace().collect();
    let pair = words.chunks(2).find(|pair| pair[0] == s)?;
    Some(format!("#{}", pair.get(1)?))
}
