//! Akamai's HTTP/2 fingerprint, read from a client's first HTTP/2 frames,
//! and the server's side of that opening.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A client's HTTP/2 opening as Akamai's HTTP/2 fingerprint reads it
/// ("Passive Fingerprinting of HTTP/2 Clients", Black Hat Europe 2017).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Http2 {
    /// The first SETTINGS frame's `(id, value)` pairs, in the order sent.
    pub(super) settings: Vec<(u16, u32)>,
    /// The first connection-level WINDOW_UPDATE's increment.
    pub(super) window_update: Option<u32>,
    /// PRIORITY frames as `(stream, exclusive, depends on, weight)`, the
    /// weight 1-256 (the byte sent plus one).
    pub(super) priorities: Vec<(u32, bool, u32, u16)>,
    /// The first HEADERS frame's pseudo-headers as `m`, `a`, `s`, `p`.
    pub(super) pseudo_headers: Vec<char>,
}

impl Http2 {
    /// `SETTINGS|WINDOW_UPDATE|PRIORITY|PSEUDO_HEADER_ORDER`: `id:value`
    /// joined by `;`, the increment or `00`, `stream:exclusive:depends:weight`
    /// joined by `,` or `0`, the letters joined by `,`.
    pub(super) fn akamai(&self) -> String {
        let settings: Vec<String> = self
            .settings
            .iter()
            .map(|(id, value)| format!("{id}:{value}"))
            .collect();
        let window = self.window_update.map_or("00".into(), |w| w.to_string());
        let mut priorities: Vec<String> = self
            .priorities
            .iter()
            .map(|(s, e, d, w)| format!("{s}:{}:{d}:{w}", u8::from(*e)))
            .collect();
        if priorities.is_empty() {
            priorities.push("0".into());
        }
        let pseudo: Vec<String> = self.pseudo_headers.iter().map(char::to_string).collect();
        let (settings, priorities) = (settings.join(";"), priorities.join(","));
        format!("{settings}|{window}|{priorities}|{}", pseudo.join(","))
    }
}

/// What a client sends first on an HTTP/2 connection (RFC 9113 §3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// The frame types read or sent here (RFC 9113 §6).
const HEADERS: u8 = 0x1;
const PRIORITY: u8 = 0x2;
const SETTINGS: u8 = 0x4;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;
/// Frame flags: SETTINGS' ACK and HEADERS' END_STREAM share a bit.
const ACK: u8 = 0x1;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY_FLAG: u8 = 0x20;

/// One HTTP/2 frame.
struct Frame {
    kind: u8,
    flags: u8,
    stream: u32,
    payload: Vec<u8>,
}

async fn read_frame(r: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Frame> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).await?;
    let mut payload = vec![0; u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize];
    r.read_exact(&mut payload).await?;
    Ok(Frame {
        kind: head[3],
        flags: head[4],
        stream: u31_at(&head, 5).unwrap_or_default(),
        payload,
    })
}

/// A 31-bit value (the reserved or exclusive bit cleared) at `i`.
fn u31_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?) & 0x7fff_ffff)
}

/// A frame's bytes.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = (payload.len() as u32).to_be_bytes()[1..].to_vec();
    bytes.extend_from_slice(&[kind, flags]);
    bytes.extend_from_slice(&stream.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// A HEADERS frame's header block fragment, without padding and priority.
fn fragment(f: &Frame) -> Option<&[u8]> {
    let mut p = &f.payload[..];
    let mut pad = 0;
    if f.flags & PADDED != 0 {
        pad = *p.first()? as usize;
        p = &p[1..];
    }
    if f.flags & PRIORITY_FLAG != 0 {
        p = p.get(5..)?;
    }
    p.get(..p.len().checked_sub(pad)?)
}

/// Reads a client's preface and frames up to the end of its first request's
/// header block: what they say, and the request's stream.
async fn read_http2(r: &mut (impl AsyncRead + Unpin)) -> Result<(Http2, u32), String> {
    let mut preface = [0u8; 24];
    r.read_exact(&mut preface)
        .await
        .map_err(|e| format!("no HTTP/2 preface: {e}"))?;
    if &preface != PREFACE {
        return Err(format!("not an HTTP/2 preface: {preface:?}"));
    }
    let mut h2 = Http2::default();
    let mut settings_seen = false;
    let mut request = None;
    let mut block = Vec::new();
    loop {
        let f = read_frame(r)
            .await
            .map_err(|e| format!("reading frames: {e}"))?;
        match f.kind {
            SETTINGS if f.flags & ACK == 0 && !settings_seen => {
                settings_seen = true;
                h2.settings = f
                    .payload
                    .chunks_exact(6)
                    .map(|c| (u16::from_be_bytes([c[0], c[1]]), u31_at(c, 2).unwrap()))
                    .collect();
            }
            WINDOW_UPDATE if f.stream == 0 && h2.window_update.is_none() => {
                h2.window_update = u31_at(&f.payload, 0);
            }
            PRIORITY if f.payload.len() == 5 => h2.priorities.push((
                f.stream,
                f.payload[0] & 0x80 != 0,
                u31_at(&f.payload, 0).unwrap(),
                u16::from(f.payload[4]) + 1,
            )),
            HEADERS if request.is_none() => {
                request = Some(f.stream);
                block.extend_from_slice(fragment(&f).ok_or("a malformed HEADERS frame")?);
            }
            CONTINUATION if request == Some(f.stream) => block.extend_from_slice(&f.payload),
            _ => {}
        }
        if let (Some(stream), HEADERS | CONTINUATION) = (request, f.kind) {
            if f.flags & END_HEADERS != 0 {
                h2.pseudo_headers =
                    pseudo_header_order(&block).ok_or("an undecodable header block")?;
                return Ok((h2, stream));
            }
        }
    }
}

/// An HPACK integer with a `prefix`-bit prefix at `*i` (RFC 7541 §5.1).
fn hpack_int(b: &[u8], i: &mut usize, prefix: u32) -> Option<usize> {
    let max = (1usize << prefix) - 1;
    let mut value = *b.get(*i)? as usize & max;
    *i += 1;
    if value < max {
        return Some(value);
    }
    for shift in (0..28).step_by(7) {
        let byte = *b.get(*i)?;
        *i += 1;
        value += ((byte & 0x7f) as usize) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Skips an HPACK string literal (RFC 7541 §5.2): its length, then as many bytes.
fn skip_string(b: &[u8], i: &mut usize) -> Option<()> {
    *i += hpack_int(b, i, 7)?;
    (*i <= b.len()).then_some(())
}

/// The pseudo-header a static table index names (RFC 7541 Appendix A):
/// 1 `:authority`, 2-3 `:method`, 4-5 `:path`, 6-7 `:scheme`.
fn pseudo_letter(index: usize) -> Option<char> {
    match index {
        1 => Some('a'),
        2 | 3 => Some('m'),
        4 | 5 => Some('p'),
        6 | 7 => Some('s'),
        _ => None,
    }
}

/// The pseudo-headers of a header block, in order: indexed fields and
/// literals with an indexed name; a literal name is never a pseudo-header
/// here, and values are skipped by their length.
fn pseudo_header_order(block: &[u8]) -> Option<Vec<char>> {
    let mut letters = Vec::new();
    let mut i = 0;
    while let Some(&first) = block.get(i) {
        let (index, literal) = match first {
            b if b & 0x80 != 0 => (hpack_int(block, &mut i, 7)?, false),
            b if b & 0xc0 == 0x40 => (hpack_int(block, &mut i, 6)?, true),
            b if b & 0xe0 == 0x20 => {
                hpack_int(block, &mut i, 5)?; // a dynamic table size update
                continue;
            }
            _ => (hpack_int(block, &mut i, 4)?, true),
        };
        if literal {
            if index == 0 {
                skip_string(block, &mut i)?;
            }
            skip_string(block, &mut i)?;
        }
        letters.extend(pseudo_letter(index));
    }
    Some(letters)
}

/// Serves HTTP/2 on an accepted connection: sends the server's preface (an
/// empty SETTINGS; a client may wait for it), reads the client's opening,
/// and answers its request with an empty 200 (`:status 200` is the static
/// table's index 8) and GOAWAY.
pub(super) async fn serve_http2(
    tls: &mut (impl AsyncRead + AsyncWrite + Unpin),
) -> Result<Http2, String> {
    let preface = frame(SETTINGS, 0, 0, &[]);
    tls.write_all(&preface).await.map_err(|e| e.to_string())?;
    let (http2, stream) = read_http2(tls).await?;
    let mut bytes = frame(SETTINGS, ACK, 0, &[]);
    bytes.extend(frame(HEADERS, END_STREAM | END_HEADERS, stream, &[0x88]));
    let goaway = [stream.to_be_bytes(), [0; 4]].concat(); // NO_ERROR
    bytes.extend(frame(GOAWAY, 0, 0, &goaway));
    let _ = tls.write_all(&bytes).await;
    let _ = tls.shutdown().await;
    Ok(http2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_akamai_fingerprint_reads_an_opening_as_specified() {
        let mut wire = PREFACE.to_vec();
        let settings = [
            [0, 1, 0, 1, 0, 0],
            [0, 2, 0, 0, 0, 0],
            [0, 4, 0, 0x60, 0, 0],
        ];
        wire.extend(frame(SETTINGS, 0, 0, &settings.concat()));
        wire.extend(frame(WINDOW_UPDATE, 0, 0, &15_663_105u32.to_be_bytes()));
        wire.extend(frame(PRIORITY, 0, 3, &[0x80, 0, 0, 1, 200]));
        // :method GET; :authority "ab" (literal, incremental indexing, name 1);
        // x: "y" (literal name); :scheme https; :path "/r" (literal, never
        // indexed, name 4), in a padded HEADERS frame with a priority and a
        // CONTINUATION.
        let block = [
            &[0x82, 0x41, 2, b'a', b'b', 0x40, 1, b'x', 1, b'y'][..],
            &[0x87, 0x14, 2, b'/', b'r'][..],
        ];
        let mut headers = vec![2, 0x80, 0, 0, 0, 255];
        headers.extend_from_slice(block[0]);
        headers.extend_from_slice(&[0, 0]);
        wire.extend(frame(HEADERS, PADDED | PRIORITY_FLAG, 1, &headers));
        wire.extend(frame(CONTINUATION, END_HEADERS, 1, block[1]));
        let (h2, stream) = read_http2(&mut &wire[..]).await.unwrap();
        assert_eq!(stream, 1);
        assert_eq!(
            h2.akamai(),
            "1:65536;2:0;4:6291456|15663105|3:1:1:201|m,a,s,p"
        );
        assert_eq!(Http2::default().akamai(), "|00|0|");
        let mut i = 0;
        assert_eq!(hpack_int(&[0x1f, 0x9a, 0x0a], &mut i, 5), Some(1337));
    }
}
