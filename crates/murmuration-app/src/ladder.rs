//! `murmuration ladder FILE --set PATH=V1,V2,... --rung-steps N --seeds K --out
//! ladder.csv [--plot ladder.png]`: a parameter stepped up through its values
//! and back down, the world carried from rung to rung (hysteresis, collective
//! memory), one run per seed in parallel; one CSV row per seed and rung with
//! the mean and standard deviation of every metric after the rung's transient.

use crate::failure::{Interrupted, invalid};
use crate::out::outln;
use crate::outputs::{self, AtomicFile};
use crate::run::thread_pool;
use crate::sweep::csv_field;
use crate::{presets, progress};
use anyhow::Result;
use clap::Args;
use murmuration::ladder::{self, Direction, Ladder, Rung};
use murmuration::metrics::{SCALAR_NAMES, SCALAR_UNITS};
use murmuration::sweep::{self, RunStats};
use plotters::prelude::*;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `murmuration ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// Scenario file, or the name of a shipped preset.
    pub file: String,
    /// The parameter and its values going up: `--set species.fish.delta_r_o=0,1,2,4`.
    #[arg(long = "set", value_name = "PATH=V1,V2,...")]
    pub set: String,
    /// Only go up (by default the ladder comes back down, the top not repeated).
    #[arg(long)]
    pub one_way: bool,
    /// Steps each value is held.
    #[arg(long, value_name = "N")]
    pub rung_steps: u64,
    /// Steps at the start of each rung left out of its statistics.
    #[arg(long, default_value_t = 0)]
    pub skip: u64,
    /// Sample the metrics every K steps after the rung's transient.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub every: u64,
    /// Seeds (one run of the whole ladder each): world.seed, world.seed + 1, ….
    #[arg(long, default_value_t = 1)]
    pub seeds: u64,
    /// The table to write (CSV).
    #[arg(long, value_name = "FILE.csv")]
    pub out: PathBuf,
    /// Also draw the ladder (PNG): each metric's mean over seeds against the
    /// value, going up (solid) and coming down (dashed), with the standard
    /// deviation over seeds as error bars.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// The metrics the figure shows, comma-separated (default: polarization,milling).
    #[arg(long, value_name = "A,B", requires = "plot")]
    pub plot_metric: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The metrics the figure shows.
fn plot_metrics(args: &LadderArgs) -> Vec<&str> {
    args.plot_metric
        .as_deref()
        .unwrap_or("polarization,milling")
        .split(',')
        .map(str::trim)
        .collect()
}

/// The ladder the options describe, checked with the outputs before any scenario loads.
fn parse(args: &LadderArgs) -> Result<Ladder> {
    if args.seeds == 0 {
        return Err(invalid("--seeds must be at least 1"));
    }
    outputs::probe(&args.out, "--out")?;
    if let Some(plot) = &args.plot {
        outputs::probe(plot, "--plot")?;
        for m in plot_metrics(args) {
            crate::plot::metric_index(m).map_err(|e| invalid(e.to_string()))?;
        }
    }
    let (path, values) = args.set.split_once('=').ok_or_else(|| {
        invalid(format!(
            "--set {:?} is not PATH=V1,V2,... (e.g. species.fish.delta_r_o=0,1,2)",
            args.set
        ))
    })?;
    let lad = Ladder {
        path: path.trim().to_string(),
        values: sweep::split_top_level(values, ','),
        both_ways: !args.one_way,
        rung_steps: args.rung_steps,
        skip: args.skip,
        every: args.every,
    };
    if lad.values.iter().any(|v| v.is_empty()) || lad.path.is_empty() {
        return Err(invalid(format!(
            "--set {:?} has an empty path or value",
            args.set
        )));
    }
    lad.check()
        .map_err(|m| invalid(format!("--rung-steps/--skip/--every: {m}")))?;
    if args.plot.is_some() {
        let axis = sweep::Axis {
            path: lad.path.clone(),
            values: lad.values.clone(),
        };
        crate::plot::check_x_axis(&axis).map_err(|e| invalid(e.to_string()))?;
    }
    Ok(lad)
}

/// Runs `murmuration ladder`.
pub fn run(args: &LadderArgs) -> Result<()> {
    let lad = parse(args)?;
    let pool = thread_pool(args.threads)?;
    let base = presets::load(Some(&args.file), &[])?;
    // Every seed's scenario and every rung's value, validated before any step.
    let seeds: Vec<u64> = (0..args.seeds).map(|k| base.seed() + k).collect();
    let mut scenarios = Vec::with_capacity(seeds.len());
    for &seed in &seeds {
        let o = murmuration::scenario::Override {
            path: "world.seed".into(),
            value: seed.to_string(),
        };
        let s = presets::load(Some(&args.file), &[o])?;
        scenarios.push(lad.scenarios(&s)?);
    }
    let rungs = lad.rungs();
    outln!(
        "ladder: {} on {} rungs ({}) x {} seeds, {} steps a rung ({} transient) on {} threads",
        lad.path,
        rungs.len(),
        if lad.both_ways { "up and down" } else { "up" },
        seeds.len(),
        lad.rung_steps,
        lad.skip,
        pool.current_num_threads()
    )?;
    progress::catch_ctrl_c();
    let bar = progress::bar(seeds.len() as u64 * lad.steps(), "steps", args.quiet);
    let start = Instant::now();
    // Each finished seed's rows join the table, rewritten whole and atomically.
    let table = std::sync::Mutex::new(vec![None; seeds.len()]);
    let results: Vec<Result<bool>> = pool.install(|| {
        scenarios
            .par_iter()
            .enumerate()
            .map(|(k, s)| -> Result<bool> {
                let done = ladder::run_ladder(s, &lad, &progress::stop_requested, &|| bar.inc(1))?;
                let Some(stats) = done else { return Ok(false) };
                let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
                t[k] = Some(stats);
                write_table(&args.out, &lad, &rungs, &seeds, &t)?;
                Ok(true)
            })
            .collect()
    });
    bar.finish_and_clear();
    let table = table.into_inner().unwrap_or_else(|e| e.into_inner());
    let interrupted = progress::any_stopped(results)?;
    if interrupted {
        let have = table.iter().filter(|t| t.is_some()).count();
        eprintln!(
            "interrupted: {} holds the {have} of {} seeds that finished",
            args.out.display(),
            seeds.len()
        );
        return Err(Interrupted.into());
    }
    outln!(
        "wrote {} rows to {} in {:.1} s",
        rungs.len() * seeds.len(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    )?;
    if let Some(plot) = &args.plot {
        let stats: Vec<Vec<RunStats>> = table.into_iter().flatten().collect();
        figure(args, plot, &base, &lad, &stats)?;
    }
    Ok(())
}

/// `--plot`: the figure of the ladder's own rows, its axis named from the
/// parameter tables.
fn figure(
    args: &LadderArgs,
    plot: &Path,
    base: &murmuration::scenario::Scenario,
    lad: &Ladder,
    stats: &[Vec<RunStats>],
) -> Result<()> {
    let species = crate::plot::named_species(base);
    let axis = sweep::Axis {
        path: lad.path.clone(),
        values: lad.values.clone(),
    };
    let label = crate::plot::axis_label(&axis, &species);
    let subtitle = format!(
        "{}, {} steps a rung ({} transient), {} seed(s)",
        args.file,
        lad.rung_steps,
        lad.skip,
        stats.len()
    );
    draw(
        plot,
        &lad.rungs(),
        stats,
        &plot_metrics(args),
        &label,
        &subtitle,
    )?;
    outln!("drew {}", plot.display())?;
    Ok(())
}

/// The table's columns: `rung, direction, <path>, seed, rung_steps, skip,
/// samples`, then every metric's mean and standard deviation.
pub fn columns(path: &str) -> Vec<String> {
    let mut c = vec![
        "rung".to_string(),
        "direction".to_string(),
        path.to_string(),
    ];
    c.extend(
        sweep::stat_columns()
            .into_iter()
            .map(|c| if c == "steps" { "rung_steps".into() } else { c }),
    );
    c
}

/// Writes the rows of the seeds that finished: seed by seed, rung by rung.
fn write_table(
    out: &Path,
    lad: &Ladder,
    rungs: &[Rung],
    seeds: &[u64],
    table: &[Option<Vec<RunStats>>],
) -> Result<()> {
    let mut file = AtomicFile::create(out, "--out")?;
    let w = file.writer();
    let cols: Vec<String> = columns(&lad.path).iter().map(|c| csv_field(c)).collect();
    writeln!(w, "{}", cols.join(","))?;
    for (seed, stats) in seeds.iter().zip(table) {
        let Some(stats) = stats else { continue };
        for (r, st) in rungs.iter().zip(stats) {
            write!(
                w,
                "{},{},{},{seed},{},{},{}",
                r.index,
                r.direction.name(),
                csv_field(&r.value),
                lad.rung_steps,
                lad.skip,
                st.samples
            )?;
            for x in st.values() {
                write!(w, ",{x}")?;
            }
            writeln!(w)?;
        }
    }
    file.finish()?;
    Ok(())
}

/// Mean over seeds of metric `m` at rung `k`, and its error: the standard
/// deviation over seeds (with one seed, the rung's own over its samples).
fn point(stats: &[Vec<RunStats>], m: usize, k: usize) -> (f64, f64) {
    let v: Vec<f64> = stats.iter().map(|s| s[k].mean[m]).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let err = if v.len() > 1 {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        stats[0][k].std(m)
    };
    (mean, err)
}

/// The y axis: the unit interval for order parameters, else the data's range.
fn y_range(points: &[Vec<(f64, f64)>]) -> (f64, f64) {
    let mut y = (f64::INFINITY, f64::NEG_INFINITY);
    for &(v, e) in points.iter().flatten() {
        if v.is_finite() {
            let e = if e.is_finite() { e } else { 0.0 };
            y = (y.0.min(v - e), y.1.max(v + e));
        }
    }
    if !(y.0.is_finite() && y.1.is_finite()) || (y.0 >= 0.0 && y.1 <= 1.0) {
        (0.0, 1.0)
    } else {
        let pad = ((y.1 - y.0) * 0.08).max(1e-9);
        (y.0 - pad, y.1 + pad)
    }
}

type Chart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One metric's two lines: going up (solid) and coming down (dashed, lighter,
/// joined on at the top where the way up ended), with error bars.
fn metric_lines(
    chart: &mut Chart<'_, '_>,
    rungs: &[Rung],
    xs: &[f64],
    pts: &[(f64, f64)],
    colour: RGBAColor,
    name: &str,
) -> Result<()> {
    for dir in [Direction::Up, Direction::Down] {
        let series: Vec<(f64, f64, f64)> = rungs
            .iter()
            .filter(|r| r.direction == dir)
            .map(|r| (xs[r.index], pts[r.index].0, pts[r.index].1))
            .collect();
        if series.is_empty() {
            continue;
        }
        let mut line: Vec<(f64, f64)> = series.iter().map(|&(x, v, _)| (x, v)).collect();
        let style = match dir {
            Direction::Up => colour.stroke_width(2),
            Direction::Down => colour.mix(0.55).stroke_width(2),
        };
        let drawn = match dir {
            Direction::Up => chart.draw_series(LineSeries::new(line, style))?,
            Direction::Down => {
                if let Some(top) = rungs.iter().rposition(|r| r.direction == Direction::Up) {
                    line.insert(0, (xs[top], pts[top].0));
                }
                chart.draw_series(DashedLineSeries::new(line, 8, 5, style))?
            }
        };
        drawn
            .label(format!("{name}, {}", dir.name()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart.draw_series(series.iter().map(|&(x, v, e)| {
            ErrorBar::new_vertical(x, v - e, v, v + e, style.color.filled(), 8)
        }))?;
    }
    Ok(())
}

/// The ladder's figure: per metric, the mean over seeds at each rung, going up
/// and coming down, with error bars.
fn draw(
    path: &Path,
    rungs: &[Rung],
    stats: &[Vec<RunStats>],
    metrics: &[&str],
    x_label: &str,
    subtitle: &str,
) -> Result<()> {
    const SIZE: (u32, u32) = (960, 640);
    let xs: Vec<f64> = rungs
        .iter()
        .map(|r| {
            sweep::split_top_level(&r.value, '&')[0]
                .parse::<f64>()
                .map_err(|_| invalid(format!("--plot needs numbers, not {:?}", r.value)))
        })
        .collect::<Result<_>>()?;
    let idx: Vec<usize> = metrics
        .iter()
        .map(|m| crate::plot::metric_index(m))
        .collect::<Result<_>>()?;
    let points: Vec<Vec<(f64, f64)>> = idx
        .iter()
        .map(|&m| (0..rungs.len()).map(|k| point(stats, m, k)).collect())
        .collect();
    let (x0, x1) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let pad = ((x1 - x0) * 0.05).max(1e-9);
    let y = y_range(&points);
    let y_label = match idx.as_slice() {
        [m] if SCALAR_UNITS[*m] != "—" => format!("{} ({})", SCALAR_NAMES[*m], SCALAR_UNITS[*m]),
        _ => metrics.join(", "),
    };
    crate::plot::register_font();
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let font = crate::plot::FONT;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("ladder — {subtitle}"), (font, 22))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), y.0..y.1)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label.as_str())
            .axis_desc_style((font, 18))
            .label_style((font, 15))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (c, (pts, name)) in points.iter().zip(metrics).enumerate() {
            let colour = Palette99::pick(c).to_rgba();
            metric_lines(&mut chart, rungs, &xs, pts, colour, name)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .label_font((font, 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    let rgba: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    crate::frames::write_png(path, &rgba, w, h)
}
