//! PNG plots of sweeps, drawn with `plotters`.
//!
//! Text is rendered with the Hack font shipped in `assets/fonts` (through
//! `ab_glyph`), so no system font library is needed.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::Error;

const FONT: &[u8] = include_bytes!("../../../assets/fonts/Hack-Regular.ttf");
const FAMILY: &str = "hack";

fn register_font() -> Result<(), Error> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "the bundled font is not a valid TrueType font".into());
    });
    result
}

/// One line of a plot: name, colour and `(x, mean, spread)` points.
pub struct Series<'a> {
    /// Legend text.
    pub name: &'a str,
    /// Line colour.
    pub colour: RGBColor,
    /// Points with their error bar half-height.
    pub points: &'a [(f32, f64, f64)],
}

/// Draws the series as lines with points and ±spread error bars against
/// `x_label`, y in `y_range`, and saves a PNG of `size` pixels.
pub fn lines_with_errors(
    path: &Path,
    size: (u32, u32),
    title: &str,
    x_label: &str,
    y_label: &str,
    y_range: std::ops::Range<f64>,
    series: &[Series<'_>],
) -> Result<(), Error> {
    register_font()?;
    let (lo, hi) = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    if !lo.is_finite() {
        return Err("nothing to plot".into());
    }
    let pad = ((hi - lo) * 0.03).max(1e-3);
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FAMILY, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d((lo - pad)..(hi + pad), y_range)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style((FAMILY, 15))
        .axis_desc_style((FAMILY, 17))
        .draw()?;
    for s in series {
        let colour = s.colour;
        chart
            .draw_series(LineSeries::new(s.points.iter().map(|p| (p.0, p.1)), colour.stroke_width(2)))?
            .label(s.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|p| Circle::new((p.0, p.1), 4, colour.filled())))?;
        chart.draw_series(
            s.points.iter().map(|p| ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, colour, 8)),
        )?;
    }
    chart
        .configure_series_labels()
        .label_font((FAMILY, 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::MiddleRight)
        .draw()?;
    root.present()?;
    Ok(())
}
