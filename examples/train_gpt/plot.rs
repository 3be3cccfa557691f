//! The loss curve as an SVG image: axes, ticks with their values, the
//! per-step loss (thin) and its moving average over 1/50 of the run (thick).
//!
//! Written by hand rather than with `plotters`: `plotters`' PNG backend
//! brings the `image` / `png` / deflate crates and a font backend for axis
//! text (`font-kit` or a font file for `ab_glyph`), and examples link every
//! dev-dependency, so each example's build (the main job's `attention_heads`
//! cold build too) would compile them. An SVG is text, has real labels,
//! scales, and renders in the README and in any browser.

use std::fmt::Write;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 400.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 32.0;
const BOTTOM: f64 = 48.0;

/// About five round tick values covering `[low, high]`.
pub fn ticks(low: f64, high: f64) -> Vec<f64> {
    let span = (high - low).max(f64::MIN_POSITIVE);
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// `values[i]`'s mean over the `window` values ending at `i`.
pub fn moving_average(values: &[f32], window: usize) -> Vec<f64> {
    let window = window.max(1);
    let mut sum = 0.0;
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            sum += f64::from(v);
            if i >= window {
                sum -= f64::from(values[i - window]);
            }
            sum / (i + 1).min(window) as f64
        })
        .collect()
}

/// The SVG of `losses` (step `i` at x = i), titled `title`.
pub fn svg(losses: &[f32], title: &str) -> String {
    let finite: Vec<f64> = losses
        .iter()
        .map(|&l| f64::from(l))
        .filter(|l| l.is_finite())
        .collect();
    let low = finite
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .min(f64::MAX);
    let high = finite
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .max(low + 1e-3);
    let low = if low.is_finite() { low } else { 0.0 };
    let (y_low, y_high) = (low - 0.05 * (high - low), high + 0.05 * (high - low));
    let steps = losses.len().max(2) - 1;
    let x = |i: f64| LEFT + i / steps as f64 * (WIDTH - LEFT - RIGHT);
    let y = |l: f64| TOP + (y_high - l) / (y_high - y_low) * (HEIGHT - TOP - BOTTOM);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    for t in ticks(y_low, y_high) {
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            y(t) + 4.0,
            trim(t),
            y = y(t)
        );
    }
    for t in ticks(0.0, steps as f64) {
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 16.0,
            trim(t),
            x = x(t)
        );
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        WIDTH - LEFT - RIGHT,
        HEIGHT - TOP - BOTTOM
    );
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">step</text>"#,
        WIDTH / 2.0,
        HEIGHT - 10.0
    );
    let _ = writeln!(
        out,
        r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">loss (nats/token)</text>"#,
        HEIGHT / 2.0
    );
    let path = |points: &mut dyn Iterator<Item = (usize, f64)>| {
        let mut d = String::new();
        for (i, l) in points.filter(|(_, l)| l.is_finite()) {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if d.is_empty() { "M" } else { "L" },
                x(i as f64),
                y(l)
            );
        }
        d
    };
    let raw = path(&mut losses.iter().map(|&l| f64::from(l)).enumerate());
    let smooth = path(
        &mut moving_average(losses, losses.len() / 50)
            .into_iter()
            .enumerate(),
    );
    let _ = writeln!(
        out,
        r##"<path d="{raw}" fill="none" stroke="#9ecae1" stroke-width="1"/>"##
    );
    let _ = writeln!(
        out,
        r##"<path d="{smooth}" fill="none" stroke="#08519c" stroke-width="2"/>"##
    );
    out.push_str("</svg>\n");
    out
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
