//! `sweep --plot out.png`: a figure drawn from the sweep's own table with
//! plotters (text by its pure-Rust glyph renderer in egui's Ubuntu font, so no
//! system font is needed). One axis: the metric's mean after the transient
//! against the parameter, with error bars. Two axes: a heat map (a regime map),
//! or with `--plot-lines` one line per value of the second axis.

use crate::frames::write_png;
use anyhow::{Context, Result, bail};
use murmuration::metrics::{SCALAR_NAMES, SCALAR_UNITS};
use murmuration::sweep::{Axis, Run, RunStats, split_top_level};
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;
use std::path::Path;
use std::sync::Once;

/// Pixel size of a figure.
const SIZE: (u32, u32) = (960, 640);
/// The font family every label is drawn in (registered once).
pub const FONT: &str = "sans-serif";

/// What the figure shows.
pub struct PlotSpec<'a> {
    /// The metric (a name of `SCALAR_NAMES`).
    pub metric: &'a str,
    /// Each axis's label with its unit (`species.p.eta (rad)`).
    pub labels: Vec<String>,
    /// Two axes: one line per value of the second axis instead of a heat map.
    pub lines: bool,
    /// Seeds per grid point.
    pub seeds: u64,
    /// The title's second line (scenario, steps, transient).
    pub subtitle: String,
}

/// The index of `metric` among the scalar metrics, or a message listing them.
pub fn metric_index(metric: &str) -> Result<usize> {
    if let Some(why) = murmuration::metrics::replaced_metric(metric) {
        anyhow::bail!("--plot-metric {why}");
    }
    SCALAR_NAMES
        .iter()
        .position(|&m| m == metric)
        .with_context(|| {
            format!(
                "--plot-metric {metric:?} is not a metric (one of: {})",
                SCALAR_NAMES.join(", ")
            )
        })
}

/// Checks before any run that the x axis holds numbers.
pub fn check_x_axis(axis: &Axis) -> Result<()> {
    for v in &axis.values {
        number(axis, v)?;
    }
    Ok(())
}

/// A value's number for the plot: its first linked part as a number.
fn number(axis: &Axis, value: &str) -> Result<f64> {
    let first = split_top_level(value, '&').remove(0);
    first.parse::<f64>().with_context(|| {
        format!(
            "--plot needs numbers on its x axis, but {} takes {value:?}",
            axis.path
        )
    })
}

/// One grid point: its values' indices along each axis, the metric's mean
/// over seeds, and its error (the standard deviation over seeds, or with one
/// seed the run's own standard deviation over its samples).
struct Point {
    at: Vec<usize>,
    mean: f64,
    err: f64,
}

fn points(axes: &[Axis], runs: &[Run], stats: &[RunStats], m: usize, seeds: u64) -> Vec<Point> {
    runs.chunks(seeds as usize)
        .zip(stats.chunks(seeds as usize))
        .map(|(rs, ss)| {
            let at = axes
                .iter()
                .zip(&rs[0].values)
                .map(|(a, v)| a.values.iter().position(|x| x == v).unwrap_or(0))
                .collect();
            let k = ss.len() as f64;
            let mean = ss.iter().map(|s| s.mean[m]).sum::<f64>() / k;
            let err = if ss.len() > 1 {
                (ss.iter().map(|s| (s.mean[m] - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt()
            } else {
                ss[0].std(m)
            };
            Point { at, mean, err }
        })
        .collect()
}

pub fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid font shipped with egui; a failure would only
        // leave labels undrawn, never a panic.
        let _ = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

/// Draws the figure and writes it to `path` atomically.
pub fn plot(
    path: &Path,
    axes: &[Axis],
    runs: &[Run],
    stats: &[RunStats],
    spec: &PlotSpec<'_>,
) -> Result<()> {
    let m = metric_index(spec.metric)?;
    if axes.is_empty() || axes.len() > 2 {
        bail!(
            "--plot draws one or two swept parameters, but this sweep has {}",
            axes.len()
        );
    }
    register_font();
    let pts = points(axes, runs, stats, m, spec.seeds);
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let metric_label = match SCALAR_UNITS[m] {
            "—" => spec.metric.to_string(),
            u => format!("{} ({u})", spec.metric),
        };
        if axes.len() == 1 || spec.lines {
            lines(&root, axes, &pts, spec, &metric_label)?;
        } else {
            heat_map(&root, axes, &pts, spec, &metric_label)?;
        }
        root.present()?;
    }
    let rgba: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    write_png(path, &rgba, w, h)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn lines(
    root: &Area<'_>,
    axes: &[Axis],
    pts: &[Point],
    spec: &PlotSpec<'_>,
    metric_label: &str,
) -> Result<()> {
    let xs: Vec<f64> = axes[0]
        .values
        .iter()
        .map(|v| number(&axes[0], v))
        .collect::<Result<_>>()?;
    let (mut x0, mut x1) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let pad = ((x1 - x0) * 0.05).max(1e-9);
    (x0, x1) = (x0 - pad, x1 + pad);
    let finite = pts.iter().filter(|p| p.mean.is_finite());
    let (mut y0, mut y1) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        let e = if p.err.is_finite() { p.err } else { 0.0 };
        (a.min(p.mean - e), b.max(p.mean + e))
    });
    if !(y0.is_finite() && y1.is_finite()) {
        (y0, y1) = (0.0, 1.0);
    }
    if y0 >= 0.0 && y1 <= 1.0 {
        // Order parameters: the whole unit interval.
        (y0, y1) = (0.0, 1.0);
    } else {
        let pad = ((y1 - y0) * 0.08).max(1e-9);
        (y0, y1) = (y0 - pad, y1 + pad);
    }
    let mut chart = ChartBuilder::on(root)
        .caption(caption(spec), (FONT, 22))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(spec.labels[0].as_str())
        .y_desc(metric_label)
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let groups = if axes.len() == 2 {
        axes[1].values.len()
    } else {
        1
    };
    for g in 0..groups {
        let colour = Palette99::pick(g).to_rgba();
        let series: Vec<(f64, f64, f64)> = pts
            .iter()
            .filter(|p| axes.len() == 1 || p.at[1] == g)
            .map(|p| (xs[p.at[0]], p.mean, p.err))
            .collect();
        let drawn = chart.draw_series(LineSeries::new(
            series.iter().map(|&(x, y, _)| (x, y)),
            colour.stroke_width(2),
        ))?;
        if axes.len() == 2 {
            let label = format!(
                "{} = {}",
                spec.labels[1],
                split_top_level(&axes[1].values[g], '&').remove(0)
            );
            drawn.label(label).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        }
        chart.draw_series(
            series
                .iter()
                .map(|&(x, y, e)| ErrorBar::new_vertical(x, y - e, y, y + e, colour.filled(), 8)),
        )?;
        chart.draw_series(
            series
                .iter()
                .map(|&(x, y, _)| Circle::new((x, y), 4, colour.filled())),
        )?;
    }
    if axes.len() == 2 {
        chart
            .configure_series_labels()
            .label_font((FONT, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    Ok(())
}

fn heat_map(
    root: &Area<'_>,
    axes: &[Axis],
    pts: &[Point],
    spec: &PlotSpec<'_>,
    metric_label: &str,
) -> Result<()> {
    let (nx, ny) = (axes[0].values.len(), axes[1].values.len());
    let (chart_area, bar_area) = root.split_horizontally(SIZE.0 - 130);
    let finite: Vec<f64> = pts
        .iter()
        .map(|p| p.mean)
        .filter(|v| v.is_finite())
        .collect();
    let lo = finite.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let colour = |v: f64| {
        if v.is_finite() {
            ViridisRGB::get_color_normalized(v, lo, hi)
        } else {
            RGBColor(200, 200, 200)
        }
    };
    let label_of = |a: &Axis, i: f64| -> String {
        let k = i.floor() as usize;
        if (i - i.floor() - 0.5).abs() < 1e-6 && k < a.values.len() {
            split_top_level(&a.values[k], '&').remove(0)
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(format!("{} — {}", metric_label, spec.subtitle), (FONT, 22))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)?;
    let (ax, ay) = (&axes[0], &axes[1]);
    let fx = |x: &f64| label_of(ax, *x);
    let fy = |y: &f64| label_of(ay, *y);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(spec.labels[0].as_str())
        .y_desc(spec.labels[1].as_str())
        .x_labels(2 * nx + 1)
        .y_labels(2 * ny + 1)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 15))
        .draw()?;
    chart.draw_series(pts.iter().map(|p| {
        let (i, j) = (p.at[0] as f64, p.at[1] as f64);
        Rectangle::new([(i, j), (i + 1.0, j + 1.0)], colour(p.mean).filled())
    }))?;
    // The colour bar: the metric's range from bottom to top.
    let mut bar = ChartBuilder::on(&bar_area)
        .margin_top(60)
        .margin_bottom(70)
        .margin_right(10)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    bar.configure_mesh()
        .disable_x_axis()
        .disable_mesh()
        .label_style((FONT, 14))
        .draw()?;
    let steps = 100;
    bar.draw_series((0..steps).map(|k| {
        let a = lo + (hi - lo) * k as f64 / steps as f64;
        let b = lo + (hi - lo) * (k + 1) as f64 / steps as f64;
        Rectangle::new([(0.0, a), (1.0, b)], colour((a + b) / 2.0).filled())
    }))?;
    Ok(())
}

fn caption(spec: &PlotSpec<'_>) -> String {
    format!("{} — {}", spec.metric, spec.subtitle)
}

/// The scenario's species by name, with their parameters (what [`axis_label`]
/// reads symbols and units from).
pub fn named_species(
    base: &murmuration::scenario::Scenario,
) -> Vec<(String, murmuration::SpeciesParams)> {
    base.species()
        .iter()
        .map(|(n, _)| n.clone())
        .zip(base.species_params())
        .collect()
}

/// An axis's label: its (first linked) path, with the parameter's symbol and
/// unit from the parameter tables when it names a species parameter.
pub fn axis_label(axis: &Axis, species: &[(String, murmuration::SpeciesParams)]) -> String {
    let path = axis.path.split('&').next().unwrap_or_default().trim();
    let parts: Vec<&str> = path.split('.').collect();
    let (symbol, unit) = match parts[..] {
        ["species", name, key] => {
            let model = species
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, p)| p.model.kind());
            match model.and_then(|k| murmuration::model::model_field(k, key)) {
                Some(f) => (Some(f.symbol), f.unit),
                None => (
                    None,
                    murmuration::fields::species_field(key).map_or("—", |f| f.unit),
                ),
            }
        }
        ["world", "dt"] => (None, "s"),
        ["world", "size"] => (None, "units"),
        _ => (None, "—"),
    };
    let mut s = path.to_string();
    if let Some(sym) = symbol.filter(|s| *s != parts[2]) {
        s = format!("{s}, {sym}");
    }
    if unit != "—" {
        s = format!("{s} ({unit})");
    }
    s
}
