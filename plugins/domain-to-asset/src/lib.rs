//! domain-to-asset: the logo, favicon and widget colours of a website.
//!
//! One request for the page given (a bare domain is its home page), one for the
//! web app manifest when it declares one, one concurrent batch for the favicon
//! candidates (declared icons and the site's Apple touch icons and
//! `/favicon.ico`, at most eight), ranked by their real size; then logo
//! candidates are fetched in order (at most three) until one is a real image.
//! Colours come from theme-color, the manifest or the CSS; failing those, from
//! the logo's dominant colour (PNG and SVG logos). With `favicon_only` the
//! manifest and logo are not fetched.

pub mod assets;
pub mod color;
pub mod logo;
pub mod sniff;

pub use gleaner_sdk::webpage;

use gleaner_sdk::http::{self, Response};
use gleaner_sdk::image_size;
use gleaner_sdk::website::{self, WebsiteError};
use serde_json::{json, Value};

gleaner_sdk::export_processor!(process, prepare = gleaner_sdk::html::prepare_parser);

use exports::gleaner::plugin::processor_plugin::{Output, ProcessError};

/// The fields this processor reads; the host has validated them against the manifest.
#[derive(serde::Deserialize)]
struct Input {
    query: String,
    favicon_only: Option<bool>,
}

/// The processor's call: the validated request body as JSON text in, the answer out.
fn process(input: String) -> Result<Output, ProcessError> {
    let input: Input = gleaner_sdk::request::input(&input).map_err(ProcessError::InvalidInput)?;
    let body = find_assets(&input.query, input.favicon_only.unwrap_or(false))?;
    Ok(Output {
        body: body.to_string(),
        engine: "rules".into(),
    })
}

fn website_error(e: WebsiteError) -> ProcessError {
    match e {
        WebsiteError::Input(m) => ProcessError::InvalidInput(m),
        WebsiteError::Site(m) => ProcessError::Upstream(m),
    }
}

/// At most this many favicon candidates are fetched (in one concurrent batch).
const MAX_FAVICON_FETCHES: usize = 8;
/// Only the head of a favicon is needed to read its size: a server that honours
/// ranges sends at most this much of each candidate (others send it whole, within
/// the manifest's response cap).
const FAVICON_RANGE: &str = "bytes=0-65535";
/// At most this many logo candidates are fetched before giving up.
const MAX_LOGO_FETCHES: usize = 3;

fn find_assets(query: &str, favicon_only: bool) -> Result<Value, ProcessError> {
    let (base, html) = website::page(query).map_err(website_error)?;
    let meta = webpage::page_meta(&html, &base);
    let manifest = if favicon_only {
        None
    } else {
        website::manifest(&meta)
    };
    let ranked = assets::rank(&meta, manifest.as_ref(), &base);
    let favicon = best_favicon(&ranked.favicon_candidates);
    if favicon_only {
        return Ok(json!({
            "logo_url": null,
            "favicon_url": favicon,
            "widget_page_background_color": null,
            "widget_button_color": null,
        }));
    }
    let candidates = logo::candidates(
        &html,
        &base,
        &meta,
        manifest.as_ref(),
        website::is_home(&base),
    );
    let logo = candidates
        .iter()
        .take(MAX_LOGO_FETCHES)
        .find_map(|url| real_image(url).map(|image| (url.clone(), image)));
    let (background, button) = match (&ranked.background, &ranked.button) {
        (Some(bg), Some(button)) => (Some(bg.clone()), Some(button.clone())),
        _ => match logo
            .as_ref()
            .and_then(|(_, (bytes, mime))| logo_color(bytes, mime))
        {
            Some(brand) => {
                let (bg, button) = color::widget_colors(&brand, None);
                (Some(bg), Some(button))
            }
            None => (None, None),
        },
    };
    Ok(json!({
        "logo_url": logo.map(|(url, _)| url),
        "favicon_url": favicon,
        "widget_page_background_color": background,
        "widget_button_color": button,
    }))
}

/// Fetches the first [`MAX_FAVICON_FETCHES`] candidates at once (their first
/// 64 KiB) and keeps the largest real one ([`assets::best_favicon`]).
fn best_favicon(candidates: &[String]) -> Option<String> {
    let urls: Vec<&String> = candidates.iter().take(MAX_FAVICON_FETCHES).collect();
    let accept: &[(&str, &str)] = &[("accept", "image/*"), ("range", FAVICON_RANGE)];
    let requests: Vec<(&str, &[(&str, &str)])> =
        urls.iter().map(|u| (u.as_str(), accept)).collect();
    let responses = http::get_all(&requests);
    let fetched: Vec<assets::Fetched<'_>> = urls
        .iter()
        .zip(&responses)
        .filter_map(|(url, r)| {
            let r = r.as_ref().ok()?;
            Some(assets::Fetched {
                url,
                final_url: &r.final_url,
                status: r.status,
                body: &r.body,
            })
        })
        .collect();
    assets::best_favicon(&fetched)
}

/// The bytes at `url` when it answers 2xx with an image that is not a 1-pixel one.
fn real_image(url: &str) -> Option<(Vec<u8>, &'static str)> {
    let (bytes, mime) = image_at(url)?;
    let size = image_size::image_size(&bytes)?;
    (!size.is_pixel()).then_some((bytes, mime))
}

/// The bytes at `url` when it answers 2xx with an image.
fn image_at(url: &str) -> Option<(Vec<u8>, &'static str)> {
    let response = http::get(url, &[("accept", "image/*")])
        .ok()
        .filter(Response::is_success)?;
    let mime = sniff::sniff_image(&response.body)?;
    Some((response.body, mime))
}

/// The dominant colour of a PNG or SVG logo.
fn logo_color(bytes: &[u8], mime: &str) -> Option<String> {
    match mime {
        "image/png" => color::dominant_color(&png_rgba(bytes)?),
        "image/svg+xml" => svg_color(&String::from_utf8_lossy(bytes)),
        _ => None,
    }
}

/// Decodes a PNG to 8-bit RGBA.
fn png_rgba(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut decoder = png::Decoder::new(bytes);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).ok()?;
    let pixels = &buf[..frame.buffer_size()];
    let rgba = match frame.color_type {
        png::ColorType::Rgba => pixels.to_vec(),
        png::ColorType::Rgb => pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => pixels
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => pixels.iter().flat_map(|g| [*g, *g, *g, 255]).collect(),
        png::ColorType::Indexed => return None,
    };
    Some(rgba)
}

/// The most used fill or stroke colour of an SVG, ignoring near-white and near-black.
fn svg_color(svg: &str) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for attr in ["fill=\"", "stroke=\"", "fill:", "stroke:", "stop-color=\""] {
        for (i, _) in svg.match_indices(attr) {
            let rest = &svg[i + attr.len()..];
            let value: String = rest
                .chars()
                .take_while(|c| !matches!(c, '"' | ';' | '}' | '\''))
                .collect();
            let Some(color) = webpage::parse_color(value.trim()) else {
                continue;
            };
            let rgba: Vec<u8> = (0..3)
                .filter_map(|k| u8::from_str_radix(&color[1 + 2 * k..3 + 2 * k], 16).ok())
                .chain([255])
                .collect();
            if color::dominant_color(&rgba).is_none() {
                continue;
            }
            match counts.iter_mut().find(|(c, _)| *c == color) {
                Some((_, n)) => *n += 1,
                None => counts.push((color, 1)),
            }
        }
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map(|(c, _)| c)
}
