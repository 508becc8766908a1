//! Spans no rule may edit: URLs, e-mail addresses, domains and paths (with or
//! without a scheme), code between backticks, hashtags and @handles.

use crate::chars::runs;

/// Top-level domains that mark `name.tld` as a domain (matched only when the
/// label is all lower-case or all upper-case, so `great.In` is a sentence).
#[rustfmt::skip]
const TLDS: &[&str] = &[
    "com", "org", "net", "edu", "gov", "io", "co", "uk", "us", "de", "fr", "es", "it", "nl", "be",
    "ch", "at", "se", "no", "dk", "fi", "ie", "pl", "pt", "ru", "jp", "cn", "in", "au", "nz", "ca",
    "br", "mx", "za", "app", "dev", "ai", "me", "tv", "ly", "gg", "info", "biz", "shop", "store",
    "online", "site", "tech", "xyz", "eu", "blog", "cloud", "page", "fm", "sh", "html", "htm",
    "php", "pdf", "txt", "json", "yaml", "yml", "toml", "md", "rs", "py", "js", "ts", "css", "png",
    "jpg", "exe", "zip",
];

/// Characters that only occur in paths, code or markup, never in prose words.
const CODE_CHARS: &[char] = &['/', '\\', '_', '=', '<', '>', '{', '}', '|', '~', '^'];

/// One flag per char of `c`: `true` where no rule may change anything.
pub(crate) fn mask(c: &[char]) -> Vec<bool> {
    let mut protected = vec![false; c.len()];
    for token in runs(c, |ch| !ch.is_whitespace()) {
        let t = &c[token.clone()];
        if t.contains(&'@') || has(t, &[':', '/', '/']) || has(t, &['w', 'w', 'w', '.']) {
            protected[token].fill(true);
            continue;
        }
        // The token without surrounding quotes, brackets and punctuation.
        let mut start = token.start;
        while start < token.end && matches!(c[start], '"' | '\'' | '“' | '‘' | '(' | '[' | '«')
        {
            start += 1;
        }
        let mut end = token.end;
        while end > start
            && matches!(
                c[end - 1],
                '"' | '\'' | '”' | '’' | ')' | ']' | '»' | '.' | ',' | ';' | ':' | '!' | '?'
            )
        {
            end -= 1;
        }
        let core = &c[start..end];
        if core.iter().any(|ch| CODE_CHARS.contains(ch))
            || (core.contains(&'.') && is_domain(&core.iter().collect::<String>()))
        {
            protected[start..end].fill(true);
        }
    }
    // Hashtags, wherever they start: `#` and the letters, digits and `_` after it.
    for i in 0..c.len() {
        if c[i] == '#' && c.get(i + 1).is_some_and(|n| n.is_alphanumeric()) {
            let len = c[i + 1..]
                .iter()
                .take_while(|n| n.is_alphanumeric() || **n == '_')
                .count();
            protected[i..=i + len].fill(true);
        }
    }
    // Code between backticks (an unclosed one protects the rest of its line).
    let mut open: Option<usize> = None;
    for (i, &ch) in c.iter().enumerate() {
        match (ch, open) {
            ('`', None) => open = Some(i),
            ('`', Some(o)) => {
                protected[o..=i].fill(true);
                open = None;
            }
            ('\n', Some(o)) => {
                protected[o..i].fill(true);
                open = None;
            }
            _ => {}
        }
    }
    if let Some(o) = open {
        protected[o..].fill(true);
    }
    protected
}

/// Whether `needle` occurs in `token`, ASCII letters in any case (as in the
/// token's lower-case form; the needles are ASCII).
fn has(token: &[char], needle: &[char]) -> bool {
    token
        .windows(needle.len())
        .any(|w| w.iter().zip(needle).all(|(a, b)| a.eq_ignore_ascii_case(b)))
}

/// `name.tld` or `a.b.tld` (labels of letters, digits and hyphens).
fn is_domain(core: &str) -> bool {
    let labels: Vec<&str> = core.split('.').collect();
    let Some(last) = labels.last() else {
        return false;
    };
    let one_case = last.chars().all(|c| c.is_ascii_lowercase())
        || last.chars().all(|c| c.is_ascii_uppercase());
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && one_case
        && TLDS.contains(&last.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(s: &str) -> String {
        let c: Vec<char> = s.chars().collect();
        c.iter()
            .zip(mask(&c))
            .map(|(ch, p)| if p { *ch } else { '_' })
            .collect()
    }

    #[test]
    fn urls_domains_code_tags_and_handles_are_protected() {
        assert_eq!(
            protected("see shop.example.com/path-with-tpyo, or Example.org."),
            "____shop.example.com/path-with-tpyo_____Example.org_"
        );
        assert_eq!(protected("mail a@b.co now"), "_____a@b.co____");
        assert_eq!(
            protected("run `teh x` #SummerTrip!"),
            "____`teh x`_#SummerTrip_"
        );
        assert_eq!(protected("great.The end. U.S. e.g. 3.5"), "_".repeat(28));
        assert_eq!(protected("open `code"), "_____`code");
    }
}
