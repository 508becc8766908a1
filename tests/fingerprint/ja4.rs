//! JA4, FoxIO's TLS client fingerprint, read from a raw ClientHello.

use sha2::Digest;

/// A ClientHello's fields that JA4 reads.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ClientHello {
    /// The record's `legacy_version` field.
    pub(super) legacy_version: u16,
    pub(super) ciphers: Vec<u16>,
    /// Extension types in the order sent.
    pub(super) extensions: Vec<u16>,
    /// `supported_versions`, in order.
    pub(super) versions: Vec<u16>,
    /// `signature_algorithms`, in order.
    pub(super) signature_algorithms: Vec<u16>,
    /// ALPN protocols, in order.
    pub(super) alpn: Vec<String>,
    pub(super) sni: bool,
}

/// GREASE values (RFC 8701): `0x?a?a` with both bytes equal.
fn grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

/// The values that are not GREASE, in order.
pub(super) fn non_grease(values: &[u16]) -> Vec<u16> {
    values.iter().copied().filter(|v| !grease(*v)).collect()
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

impl ClientHello {
    /// Reads a ClientHello from the handshake bytes (the records' payloads
    /// joined), or none when they do not hold a whole one.
    pub(super) fn parse(h: &[u8]) -> Option<ClientHello> {
        if *h.first()? != 1 {
            return None;
        }
        let len = u32::from_be_bytes([0, *h.get(1)?, *h.get(2)?, *h.get(3)?]) as usize;
        let body = h.get(4..4 + len)?;
        let mut hello = ClientHello {
            legacy_version: u16_at(body, 0)?,
            ..ClientHello::default()
        };
        let mut i = 2 + 32;
        let session_len = *body.get(i)? as usize;
        i += 1 + session_len;
        let ciphers_len = u16_at(body, i)? as usize;
        i += 2;
        for c in body.get(i..i + ciphers_len)?.chunks(2) {
            hello.ciphers.push(u16::from_be_bytes([c[0], *c.get(1)?]));
        }
        i += ciphers_len;
        let compression_len = *body.get(i)? as usize;
        i += 1 + compression_len;
        let extensions_len = u16_at(body, i)? as usize;
        i += 2;
        let end = i + extensions_len;
        while i + 4 <= end {
            let kind = u16_at(body, i)?;
            let len = u16_at(body, i + 2)? as usize;
            let data = body.get(i + 4..i + 4 + len)?;
            hello.extensions.push(kind);
            match kind {
                0x0000 => hello.sni = true,
                0x000d => hello.signature_algorithms = u16_list(data.get(2..)?),
                0x002b => hello.versions = u16_list(data.get(1..)?),
                0x0010 => {
                    let mut j = 2;
                    while let Some(&n) = data.get(j) {
                        let name = data.get(j + 1..j + 1 + n as usize)?;
                        hello.alpn.push(String::from_utf8_lossy(name).into_owned());
                        j += 1 + n as usize;
                    }
                }
                _ => {}
            }
            i += 4 + len;
        }
        Some(hello)
    }

    /// The JA4 fingerprint: `t<version><d|i><ciphers><extensions><alpn>_<ciphers
    /// hash>_<extensions and signature algorithms hash>`.
    pub(super) fn ja4(&self) -> String {
        let version = non_grease(&self.versions).into_iter().max();
        let version = match version.unwrap_or(self.legacy_version) {
            0x0304 => "13",
            0x0303 => "12",
            0x0302 => "11",
            0x0301 => "10",
            _ => "00",
        };
        let ciphers = non_grease(&self.ciphers);
        let extensions = non_grease(&self.extensions);
        let alpn = match self.alpn.first().map(|a| a.as_bytes()) {
            Some([first, .., last]) => format!("{}{}", *first as char, *last as char),
            Some([only]) => format!("{}{}", *only as char, *only as char),
            _ => "00".into(),
        };
        let a = format!(
            "t{version}{}{:02}{:02}{alpn}",
            if self.sni { 'd' } else { 'i' },
            ciphers.len().min(99),
            extensions.len().min(99)
        );
        let mut sorted_ciphers = ciphers;
        sorted_ciphers.sort_unstable();
        let b = hash12(&hex_list(&sorted_ciphers));
        let mut sorted_extensions: Vec<u16> = extensions
            .iter()
            .copied()
            .filter(|e| !matches!(e, 0x0000 | 0x0010))
            .collect();
        sorted_extensions.sort_unstable();
        let algorithms = non_grease(&self.signature_algorithms);
        let c_text = if algorithms.is_empty() {
            hex_list(&sorted_extensions)
        } else {
            format!("{}_{}", hex_list(&sorted_extensions), hex_list(&algorithms))
        };
        format!("{a}_{b}_{}", hash12(&c_text))
    }
}

fn u16_list(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect()
}

fn hex_list(values: &[u16]) -> String {
    values
        .iter()
        .map(|v| format!("{v:04x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The first 12 hex digits of the text's SHA-256, or twelve zeros for none.
fn hash12(text: &str) -> String {
    if text.is_empty() {
        return "000000000000".into();
    }
    hex::encode(sha2::Sha256::digest(text.as_bytes()))[..12].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ja4_reads_a_hello_as_specified() {
        // A TLS 1.3 hello with GREASE, SNI, ALPN h2 and two signature algorithms.
        let hello = ClientHello {
            legacy_version: 0x0303,
            ciphers: vec![0x1a1a, 0x1302, 0x1301],
            extensions: vec![0x2a2a, 0x0000, 0x0010, 0x002b, 0x000d],
            versions: vec![0x3a3a, 0x0304, 0x0303],
            signature_algorithms: vec![0x0403, 0x0804],
            alpn: vec!["h2".into(), "http/1.1".into()],
            sni: true,
        };
        let ja4 = hello.ja4();
        assert!(ja4.starts_with("t13d0204h2_"), "{ja4}");
        let parts: Vec<&str> = ja4.split('_').collect();
        assert_eq!(parts[1], hash12("1301,1302"), "sorted, GREASE left out");
        assert_eq!(parts[2], hash12("000d,002b_0403,0804"), "no SNI or ALPN");
        assert!(grease(0x0a0a) && grease(0xfafa) && !grease(0x0a1a));
    }
}
