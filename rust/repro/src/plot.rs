//! `spindle simulate --plot FILE.svg`: job completion time CDFs and map
//! locality bars, one colour per policy.

use plotters::prelude::*;
use spindle_sim::SimResult;

use crate::{in_file, Result};

/// The colours of every chart (`simulate --plot`, `repro --plot`), one per series.
pub const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Draws `runs` into the SVG file `path`.
pub fn plot(path: &std::path::Path, runs: &[SimResult]) -> Result<()> {
    draw(path, runs).map_err(in_file(path))
}

fn draw(path: &std::path::Path, runs: &[SimResult]) -> Result<()> {
    let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(620);

    // Job completion time CDF.
    let jcts: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| {
            let mut v: Vec<f64> = r.jobs.iter().map(|j| j.finish_s - j.submit_s).collect();
            v.sort_by(f64::total_cmp);
            v
        })
        .collect();
    let max_x = jcts.iter().flatten().copied().fold(1.0, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(&left)
        .caption("Job completion time (CDF)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_x, 0.0..1.0)?;
    chart
        .configure_mesh()
        .x_desc("seconds from submission")
        .y_desc("fraction of jobs")
        .draw()?;
    for (i, (run, v)) in runs.iter().zip(&jcts).enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let n = v.len().max(1) as f64;
        let points = v.iter().enumerate().map(|(k, &x)| (x, (k + 1) as f64 / n));
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))?
            .label(run.policy.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;

    // Map locality per policy: node-local, rack-local, off-switch shares.
    let levels = ["node-local", "rack-local", "off-switch"];
    let groups = runs.len().max(1);
    let mut bars = ChartBuilder::on(&right)
        .caption("Map locality", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..(levels.len() as f64), 0.0..100.0)?;
    bars.configure_mesh()
        .disable_x_mesh()
        // Ticks every half unit; only the bar-group centres get a name.
        .x_labels(2 * levels.len() + 1)
        .x_label_formatter(&|x| {
            let k = (x - 0.5).round();
            if (x - 0.5 - k).abs() < 1e-6 {
                levels
                    .get(k as usize)
                    .map_or(String::new(), |s| s.to_string())
            } else {
                String::new()
            }
        })
        .y_desc("% of maps")
        .draw()?;
    for (i, run) in runs.iter().enumerate() {
        let m = &run.metrics;
        let total = (m.node_local + m.rack_local + m.off_switch).max(1) as f64;
        let colour = COLOURS[i % COLOURS.len()];
        let width = 0.8 / groups as f64;
        let values = [m.node_local, m.rack_local, m.off_switch];
        bars.draw_series(values.iter().enumerate().map(|(k, &v)| {
            let x0 = k as f64 + 0.1 + i as f64 * width;
            Rectangle::new(
                [(x0, 0.0), (x0 + width * 0.9, 100.0 * v as f64 / total)],
                colour.filled(),
            )
        }))?
        .label(run.policy.clone())
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    bars.configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    Ok(())
}
