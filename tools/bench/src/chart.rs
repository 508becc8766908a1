//! A small SVG line chart, written by hand (a plotting crate would bring a font
//! stack and a raster backend for one chart): axes with round ticks, one
//! polyline with markers per series, and a legend.
//!
//! [`fetch_time_chart`] draws fetch time against page count for the host
//! fetching pages one at a time and fetching them concurrently; the paging
//! section calls it with what it measured and links the file with
//! [`crate::report::image`].

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// Its points (x, y), drawn in the order given.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The title above the plot.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: &[&str] = &["#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e"];

/// Round tick positions covering `0..=max`: about five steps of 1, 2 or 5 × 10^k.
fn ticks(max: f64) -> Vec<f64> {
    let max = if max > 0.0 { max } else { 1.0 };
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let count = (max / step).ceil() as usize;
    // Rounded, so that 3 × 0.2 is 0.6 and not 0.6000000000000001.
    (0..=count)
        .map(|i| (i as f64 * step * 1e9).round() / 1e9)
        .collect()
}

fn label(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Chart {
    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        let all = self.series.iter().flat_map(|s| s.points.iter());
        let (x_max, y_max) = all.fold((0f64, 0f64), |(x, y), (px, py)| (x.max(*px), y.max(*py)));
        let (x_ticks, y_ticks) = (ticks(x_max), ticks(y_max));
        let x_top = *x_ticks.last().unwrap_or(&1.0);
        let y_top = *y_ticks.last().unwrap_or(&1.0);
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let x_at = |x: f64| LEFT + x / x_top * plot_w;
        let y_at = |y: f64| TOP + plot_h - y / y_top * plot_h;

        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            svg,
            r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        for t in &y_ticks {
            let y = y_at(*t);
            let _ = writeln!(
                svg,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                WIDTH - RIGHT,
                LEFT - 6.0,
                y + 4.0,
                label(*t)
            );
        }
        for t in &x_ticks {
            let x = x_at(*t);
            let _ = writeln!(
                svg,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#333\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                TOP + plot_h,
                TOP + plot_h + 5.0,
                TOP + plot_h + 18.0,
                label(*t)
            );
        }
        let _ = writeln!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{:.1}\" stroke=\"#333\"/>\
             <line x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#333\"/>",
            TOP + plot_h,
            TOP + plot_h,
            WIDTH - RIGHT,
            TOP + plot_h
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 15.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            svg,
            r#"<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"#,
            TOP + plot_h / 2.0,
            TOP + plot_h / 2.0,
            escape(&self.y_label)
        );
        for (i, s) in self.series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let points: Vec<String> = s
                .points
                .iter()
                .map(|(x, y)| format!("{:.1},{:.1}", x_at(*x), y_at(*y)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
                points.join(" ")
            );
            for (x, y) in &s.points {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    x_at(*x),
                    y_at(*y)
                );
            }
            let ly = TOP + 8.0 + i as f64 * 18.0;
            let _ = writeln!(
                svg,
                r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                LEFT + 12.0,
                LEFT + 36.0,
                LEFT + 42.0,
                ly + 4.0,
                escape(&s.name)
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// Writes a chart of fetch time (ms) against page count for two series: the
/// host fetching pages one at a time and fetching them concurrently. Each
/// point is (pages, the fetch's time), e.g. the median of several fetches.
pub fn fetch_time_chart(
    path: &Path,
    title: &str,
    sequential: &[(u32, Duration)],
    concurrent: &[(u32, Duration)],
) -> anyhow::Result<()> {
    let points = |data: &[(u32, Duration)]| {
        data.iter()
            .map(|(pages, t)| (f64::from(*pages), t.as_secs_f64() * 1e3))
            .collect()
    };
    let chart = Chart {
        title: title.to_owned(),
        x_label: "pages fetched".into(),
        y_label: "fetch time (ms)".into(),
        series: vec![
            Series {
                name: "sequential host".into(),
                points: points(sequential),
            },
            Series {
                name: "concurrent host".into(),
                points: points(concurrent),
            },
        ],
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, chart.svg())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(930.0).last(), Some(&1000.0));
        assert_eq!(ticks(0.0), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    }

    #[test]
    fn the_chart_has_both_series_and_escapes_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("paging.svg");
        let ms = Duration::from_millis;
        fetch_time_chart(
            &path,
            "fetch time <by> pages",
            &[(1, ms(100)), (2, ms(200)), (4, ms(400))],
            &[(1, ms(100)), (2, ms(110)), (4, ms(130))],
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("fetch time &lt;by&gt; pages"));
        assert!(svg.contains("sequential host") && svg.contains("concurrent host"));
    }
}
