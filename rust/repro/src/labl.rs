//! `spindle repro labl`: Sect. 4 of the LABL paper (Agosta, Pelosi, Speziale).
//!
//! One job on servers with an existing workload: `|rho(t)|` uniform in
//! `[1, rho_max]` (distinct random servers, `rho_max = 4` but in the
//! replication experiment), initial loads uniform integers in `[0, 5]`,
//! `w_loc = 1`, `w_rem = 3`, 30 runs per point. Round robin, flow-based
//! (`mb`, Fischer et al. [6]) and LABL with `l̄ = l**` (`labl`) and `l** + 1`
//! (`labl+1`). The paper gives these results as figures only, so rows carry
//! our values; its qualitative claims are checked on the means and printed
//! as notes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use plotters::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spindle_core::plan::{accounting, check_assignment};
use spindle_core::policy::labl::lower_bounds;
use spindle_core::{CostModel, Planner, PolicyKind, Problem};

use crate::plot::COLOURS as PALETTE;
use crate::{metrics, setup, Opts, Report, ReproError, Result, Row};

const FIG5: &str = "labl-fig5-performance";
const FIG6: &str = "labl-fig6-server-availability";
const FIG7: &str = "labl-fig7-resource-grid";
const REPLICATION: &str = "labl-replication";

/// The flow-based baseline's registry name (MaxCover-BalAssign).
const FLOW: &str = "mb";
const RR: &str = "round-robin";
const LABL: &str = "labl";
const LABL1: &str = "labl+1";

/// One random job: integer initial loads and replica servers per task.
struct Job {
    loads: Vec<u32>,
    replicas: Vec<Vec<u32>>,
}

/// `servers` servers, `tasks` tasks with 1..=rho_max distinct replicas.
fn draw(rng: &mut ChaCha8Rng, servers: usize, tasks: usize, rho_max: usize) -> Job {
    let loads = (0..servers).map(|_| rng.gen_range(0..=5)).collect();
    let rho_max = rho_max.clamp(1, servers);
    let replicas = (0..tasks)
        .map(|_| {
            let k = rng.gen_range(1..=rho_max);
            let mut r: Vec<u32> = Vec::with_capacity(k);
            while r.len() < k {
                let s = rng.gen_range(0..servers as u32);
                if !r.contains(&s) {
                    r.push(s);
                }
            }
            r
        })
        .collect();
    Job { loads, replicas }
}

/// The job on the first `available` servers only: replicas elsewhere are
/// unreachable (a task may be left with none and must run remote).
fn problem(job: &Job, available: usize) -> Problem {
    let reps: Vec<Vec<u32>> = job
        .replicas
        .iter()
        .map(|r| {
            r.iter()
                .copied()
                .filter(|&s| (s as usize) < available)
                .collect()
        })
        .collect();
    let cost = CostModel {
        local: 1.0,
        remote: 3.0,
        remote_growth: 0.0,
    };
    let mut p = Problem::uniform(available, &reps, cost);
    p.node_load = job.loads[..available]
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    p
}

/// The policies compared, by name; `None` where this build lacks one.
fn policies(names: &[&'static str]) -> Vec<(&'static str, Option<&'static dyn Planner>)> {
    names
        .iter()
        .map(|&n| (n, PolicyKind::from_name(n).ok().and_then(|k| k.planner())))
        .collect()
}

/// Sums over runs for one policy at one point.
#[derive(Default, Clone)]
struct Sums {
    latency: f64,
    resource: f64,
    throughput: f64,
    plan_ms: f64,
    l_star: f64,
    l_star_star: f64,
    runs: usize,
}

impl Sums {
    fn add(&mut self, o: &Sums) {
        self.latency += o.latency;
        self.resource += o.resource;
        self.throughput += o.throughput;
        self.plan_ms += o.plan_ms;
        self.l_star += o.l_star;
        self.l_star_star += o.l_star_star;
        self.runs += o.runs;
    }
}

/// A claim of the paper checked on a point: `None` when a policy is missing.
type Claim = fn(&Point) -> Option<bool>;

/// One measured point: setup and the mean figures per policy (by name).
struct Point {
    setup: BTreeMap<String, serde_json::Value>,
    means: BTreeMap<&'static str, Sums>,
}

impl Point {
    fn mean(&self, policy: &str, f: fn(&Sums) -> f64) -> Option<f64> {
        self.means
            .get(policy)
            .filter(|s| s.runs > 0)
            .map(|s| f(s) / s.runs as f64)
    }
    fn latency(&self, policy: &str) -> Option<f64> {
        self.mean(policy, |s| s.latency)
    }
    fn resource(&self, policy: &str) -> Option<f64> {
        self.mean(policy, |s| s.resource)
    }
}

/// Plans `p` with every available policy and adds the figures to `sums`.
fn measure(
    p: &Problem,
    seed: u64,
    pols: &[(&'static str, Option<&'static dyn Planner>)],
    sums: &mut BTreeMap<&'static str, Sums>,
    opts: &Opts,
) -> Result<()> {
    let bounds = lower_bounds(p);
    for &(name, planner) in pols {
        let Some(planner) = planner else { continue };
        let start = Instant::now();
        let a = planner.plan(p, seed);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = check_assignment(p, &a) {
            return Err(ReproError::BadPlan {
                policy: name.to_string(),
                problem: e.to_string(),
            });
        }
        let acc = accounting(p, &a);
        let s = sums.entry(name).or_default();
        s.latency += acc.latency;
        s.resource += acc.resource;
        s.throughput += acc.throughput;
        s.plan_ms += ms;
        s.l_star += bounds.l_star;
        s.l_star_star += bounds.l_star_star;
        s.runs += 1;
        opts.progress.inc(1);
    }
    Ok(())
}

fn rows(points: &[Point]) -> Vec<Row> {
    let mut out = Vec::new();
    for pt in points {
        for (&name, s) in &pt.means {
            if s.runs == 0 {
                continue;
            }
            let n = s.runs as f64;
            let mut ours = metrics([
                ("latency", s.latency / n),
                ("resource", s.resource / n),
                ("throughput", s.throughput / n),
                ("plan_ms", s.plan_ms / n),
            ]);
            if name.starts_with("labl") {
                ours.insert("l_star".into(), s.l_star / n);
                ours.insert("l_star_star".into(), s.l_star_star / n);
            }
            out.push(Row {
                setup: pt.setup.clone(),
                policy: name.to_string(),
                ours,
                paper: None,
            });
        }
    }
    out
}

/// "holds in k of n setups", naming the setups where it fails.
fn tally(points: &[Point], check: impl Fn(&Point) -> Option<bool>) -> String {
    tally_of(points, "setups", true, check)
}

/// How often `check` holds over `points` (setups or single runs).
fn tally_of(
    points: &[Point],
    noun: &str,
    name_failures: bool,
    check: impl Fn(&Point) -> Option<bool>,
) -> String {
    let mut held = 0;
    let mut checked = 0;
    let mut failed = Vec::new();
    for pt in points {
        if let Some(ok) = check(pt) {
            checked += 1;
            if ok {
                held += 1;
            } else {
                let s: Vec<String> = pt.setup.iter().map(|(k, v)| format!("{k}={v}")).collect();
                failed.push(s.join(" "));
            }
        }
    }
    if checked == 0 {
        return "not checked (a policy is missing)".into();
    }
    let mut out = format!("holds in {held} of {checked} {noun}");
    if name_failures && !failed.is_empty() {
        let _ = write!(out, "; fails at {}", failed.join(", "));
    }
    out
}

/// `a` Pareto-dominates `b` (both figures no worse, one better).
fn dominates(pt: &Point, a: &str, b: &str) -> Option<bool> {
    let (la, ca) = (pt.latency(a)?, pt.resource(a)?);
    let (lb, cb) = (pt.latency(b)?, pt.resource(b)?);
    Some(la <= lb && ca <= cb && (la < lb || ca < cb))
}

fn missing_note(pols: &[(&'static str, Option<&'static dyn Planner>)]) -> Option<String> {
    let missing: Vec<&str> = pols
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(n, _)| *n)
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "policy {} not registered in this build (the flow-based MaxCover-BalAssign comes with branch wt5bar); its rows and claims are left out",
            missing.join(", ")
        )
    })
}

/// Sizes: the paper's, or tiny ones for `--quick`.
struct Scale {
    /// |S| of Fig. 5 and the largest cluster.
    servers: usize,
    /// |S| = 1600..2000.
    server_range: Vec<usize>,
    /// |T| = 3200..3500.
    task_range: Vec<usize>,
    /// |T| of the availability experiment (3450).
    fig6_tasks: usize,
}

impl Scale {
    fn new(quick: bool) -> Scale {
        // The paper's grids are "{1600, ..., 2000}" and "{3200, ..., 3500}"
        // without a step; we use 100.
        let d = if quick { 50 } else { 1 };
        Scale {
            servers: 2000 / d,
            server_range: (1600..=2000).step_by(100).map(|s| s / d).collect(),
            task_range: (3200..=3500).step_by(100).map(|t| t / d).collect(),
            fig6_tasks: 3450 / d,
        }
    }
}

pub fn run(opts: &Opts) -> Result<Vec<Report>> {
    let runs = opts.runs_or(30);
    let sc = Scale::new(opts.quick);
    let all = policies(&[RR, FLOW, LABL, LABL1]);
    let pair = policies(&[FLOW, LABL1]);
    let count = |p: &[(&str, Option<&dyn Planner>)]| p.iter().filter(|x| x.1.is_some()).count();
    let rho_range: Vec<usize> = (2..=7).collect();
    let repl_servers = [sc.server_range[0], sc.servers];
    let total = runs
        * (sc.task_range.len() * count(&all)
            + sc.server_range.len() * count(&all)
            + sc.server_range.len() * sc.task_range.len() * count(&pair)
            + rho_range.len() * repl_servers.len() * count(&pair));
    opts.progress.set_length(total as u64);
    let mut base = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut reports = Vec::new();

    // Fig. 5: |S| = 2000, |T| = 3200..3500.
    opts.progress.set_message("labl fig. 5");
    let mut points = Vec::new();
    // Single runs, to say how often each claim holds run by run.
    let mut run_points = Vec::new();
    for &tasks in &sc.task_range {
        let mut sums: BTreeMap<&'static str, Sums> = BTreeMap::new();
        let setup = setup([("servers", sc.servers.into()), ("tasks", tasks.into())]);
        for _ in 0..runs {
            let job = draw(&mut base, sc.servers, tasks, 4);
            let mut one = BTreeMap::new();
            measure(&problem(&job, sc.servers), base.gen(), &all, &mut one, opts)?;
            for (name, s) in &one {
                sums.entry(name).or_default().add(s);
            }
            run_points.push(Point {
                setup: setup.clone(),
                means: one,
            });
        }
        points.push(Point { setup, means: sums });
    }
    let mut notes = vec![format!(
        "{runs} runs per point; rho_max = 4, initial load uniform integer in [0, 5], w_loc = 1, w_rem = 3; means over runs; latency counts initial loads (normalised to min 0), resource = C(T), throughput = |T| / C(T)"
    )];
    notes.extend(missing_note(&all));
    let claims: [(&str, Claim); 4] = [
        (
            "claim (Fig. 5b) round robin is Pareto-dominated by every other algorithm",
            rr_dominated,
        ),
        (
            "claim (Fig. 5b) flow-based has the lowest latency",
            flow_lowest_latency,
        ),
        (
            "claim (Fig. 5b) LABL (both thresholds) uses fewer resources than round robin and flow-based",
            labl_lowest_resource,
        ),
        (
            "claim (Fig. 5a) LABL (both thresholds) has the highest throughput",
            labl_highest_throughput,
        ),
    ];
    for (what, check) in claims {
        notes.push(format!(
            "{what}: on the means {}; run by run {}",
            tally(&points, check),
            tally_of(&run_points, "runs", false, check)
        ));
    }
    notes.push(
        "Sect. 3.5 example (|S| = 10, |T| = 20): Fig. 2's data placement and Fig. 4's initial loads are not in the seed text, so it is not rerun"
            .into(),
    );
    reports.push(Report {
        experiment: FIG5.into(),
        notes,
        rows: rows(&points),
    });

    // Fig. 6: |T| = 3450, the same placement and loads over 2000 servers, of
    // which the first 1600..2000 are available.
    opts.progress.set_message("labl fig. 6");
    let mut sums_by: Vec<BTreeMap<&'static str, Sums>> =
        vec![BTreeMap::new(); sc.server_range.len()];
    for _ in 0..runs {
        let job = draw(&mut base, sc.servers, sc.fig6_tasks, 4);
        let seed = base.gen();
        for (i, &servers) in sc.server_range.iter().enumerate() {
            measure(&problem(&job, servers), seed, &all, &mut sums_by[i], opts)?;
        }
    }
    let points: Vec<Point> = sc
        .server_range
        .iter()
        .zip(sums_by)
        .map(|(&servers, means)| Point {
            setup: setup([("servers", servers.into()), ("tasks", sc.fig6_tasks.into())]),
            means,
        })
        .collect();
    let mut notes = vec![format!(
        "{runs} runs; per run one placement and load over {} servers, of which the first |S| are available (replicas on the others are unreachable)",
        sc.servers
    )];
    notes.extend(missing_note(&all));
    let spread = |policy: &str| -> Option<f64> {
        let v: Option<Vec<f64>> = points.iter().map(|p| p.latency(policy)).collect();
        let v = v?;
        Some(
            v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min),
        )
    };
    let spreads: Vec<String> = [RR, FLOW, LABL, LABL1]
        .iter()
        .filter_map(|p| spread(p).map(|s| format!("{p} {s:.2}")))
        .collect();
    let rr_most = spread(RR).map(|r| {
        [FLOW, LABL, LABL1]
            .iter()
            .all(|o| spread(o).is_none_or(|x| r > x))
    });
    notes.push(format!(
        "claim (Fig. 6a) only round robin's latency moves much with |S|: latency range over |S|: {}; round robin's is the largest: {}",
        spreads.join(", "),
        rr_most.map_or("not checked".into(), |b| if b { "yes".to_string() } else { "no".to_string() })
    ));
    notes.push(format!(
        "claim (Fig. 6b) LABL (both thresholds) always uses fewer resources than flow-based: {}",
        tally(&points, |pt| {
            let f = pt.resource(FLOW)?;
            Some(pt.resource(LABL)? < f && pt.resource(LABL1)? < f)
        })
    ));
    notes.push(format!(
        "claim (Fig. 6a) LABL's latency is above flow-based's: {}",
        tally(&points, |pt| {
            let f = pt.latency(FLOW)?;
            Some(pt.latency(LABL)? >= f && pt.latency(LABL1)? >= f)
        })
    ));
    reports.push(Report {
        experiment: FIG6.into(),
        notes,
        rows: rows(&points),
    });

    // Fig. 7: resource accounting of flow-based and labl+1 over the |S| x |T| grid.
    opts.progress.set_message("labl fig. 7");
    let mut points = Vec::new();
    for &servers in &sc.server_range {
        for &tasks in &sc.task_range {
            let mut sums = BTreeMap::new();
            for _ in 0..runs {
                let job = draw(&mut base, servers, tasks, 4);
                measure(&problem(&job, servers), base.gen(), &pair, &mut sums, opts)?;
            }
            points.push(Point {
                setup: setup([("servers", servers.into()), ("tasks", tasks.into())]),
                means: sums,
            });
        }
    }
    let mut notes = vec![format!("{runs} runs per point; fresh placement per run")];
    notes.extend(missing_note(&pair));
    notes.push(format!(
        "claim (Fig. 7) LABL (l** + 1) uses fewer resources than flow-based: {}",
        tally(&points, |pt| Some(pt.resource(LABL1)? < pt.resource(FLOW)?))
    ));
    notes.push(range_note(&points, "resource per task over the grid"));
    reports.push(Report {
        experiment: FIG7.into(),
        notes,
        rows: rows(&points),
    });

    // Replication factor: rho_max = 2..7, |T| = 3450.
    opts.progress.set_message("labl replication");
    let mut points = Vec::new();
    for &servers in &repl_servers {
        for &rho in &rho_range {
            let mut sums = BTreeMap::new();
            for _ in 0..runs {
                let job = draw(&mut base, servers, sc.fig6_tasks, rho);
                measure(&problem(&job, servers), base.gen(), &pair, &mut sums, opts)?;
            }
            points.push(Point {
                setup: setup([
                    ("servers", servers.into()),
                    ("tasks", sc.fig6_tasks.into()),
                    ("rho_max", rho.into()),
                ]),
                means: sums,
            });
        }
    }
    let mut notes = vec![format!(
        "{runs} runs per point; |rho(t)| uniform in [1, rho_max]; the paper's figure is unnumbered (\"Figure ??\") and its cluster sizes unstated: we use |S| = {} and {}",
        repl_servers[0], repl_servers[1]
    )];
    notes.extend(missing_note(&pair));
    notes.push(format!(
        "claim LABL (l** + 1) uses fewer resources than flow-based at every replication factor: {}",
        tally(&points, |pt| Some(pt.resource(LABL1)? < pt.resource(FLOW)?))
    ));
    notes.push(range_note(&points, "resource per task over rho_max"));
    reports.push(Report {
        experiment: REPLICATION.into(),
        notes,
        rows: rows(&points),
    });
    Ok(reports)
}

fn rr_dominated(pt: &Point) -> Option<bool> {
    let ds: Option<Vec<bool>> = [FLOW, LABL, LABL1]
        .iter()
        .map(|o| dominates(pt, o, RR))
        .collect();
    ds.map(|d| d.into_iter().all(|x| x))
}

fn flow_lowest_latency(pt: &Point) -> Option<bool> {
    let f = pt.latency(FLOW)?;
    Some(
        [RR, LABL, LABL1]
            .iter()
            .all(|o| pt.latency(o).is_none_or(|x| f <= x)),
    )
}

fn labl_lowest_resource(pt: &Point) -> Option<bool> {
    let worst = pt.resource(LABL)?.max(pt.resource(LABL1)?);
    Some(
        [RR, FLOW]
            .iter()
            .all(|o| pt.resource(o).is_none_or(|x| worst < x)),
    )
}

fn labl_highest_throughput(pt: &Point) -> Option<bool> {
    let m = |p: &str| pt.mean(p, |s| s.throughput);
    let lowest = m(LABL)?.min(m(LABL1)?);
    Some([RR, FLOW].iter().all(|o| m(o).is_none_or(|x| lowest > x)))
}

/// Spread (max - min) of mean resource per task of flow-based and labl+1
/// over the points: the paper says LABL's is the smaller (more stable).
fn range_note(points: &[Point], what: &str) -> String {
    let spread = |policy: &str| -> Option<f64> {
        let v: Option<Vec<f64>> = points
            .iter()
            .map(|p| {
                let tasks = p.setup.get("tasks")?.as_f64()?;
                Some(p.resource(policy)? / tasks)
            })
            .collect();
        let v = v?;
        Some(
            v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min),
        )
    };
    match (spread(FLOW), spread(LABL1)) {
        (Some(f), Some(l)) => format!(
            "claim LABL is less sensitive than flow-based: spread of {what}: flow-based {f:.3}, labl+1 {l:.3}: {}",
            if l < f { "holds" } else { "fails" }
        ),
        _ => "claim LABL is less sensitive than flow-based: not checked (a policy is missing)".into(),
    }
}

/// One colour each for round robin, flow-based, LABL and LABL(l** + 1).
const COLOURS: [RGBColor; 4] = [PALETTE[3], PALETTE[0], PALETTE[2], PALETTE[1]];

/// Left: Fig. 5b, latency against resource accounting, one colour per
/// algorithm, lighter for more tasks. Right: Fig. 6b, resource against |S|.
pub fn plot(path: &Path, reports: &[Report]) -> Result<()> {
    let fig5 = reports
        .iter()
        .find(|r| r.experiment == FIG5)
        .ok_or(ReproError::NothingToPlot("no Fig. 5 results"))?;
    let fig6 = reports.iter().find(|r| r.experiment == FIG6);
    let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(560);
    let names: Vec<&str> = {
        let mut v: Vec<&str> = Vec::new();
        for r in &fig5.rows {
            if !v.contains(&r.policy.as_str()) {
                v.push(&r.policy);
            }
        }
        v
    };
    let get = |r: &Row, k: &str| r.ours.get(k).copied().unwrap_or(0.0);
    let bounds = |rows: &[Row], k: &str| {
        let v = rows.iter().map(|r| get(r, k));
        let lo = v.clone().fold(f64::MAX, f64::min);
        let hi = v.fold(f64::MIN, f64::max);
        let pad = ((hi - lo) * 0.1).max(0.5);
        (lo - pad)..(hi + pad)
    };
    let tasks_of = |r: &Row| r.setup.get("tasks").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let (tmin, tmax) = fig5
        .rows
        .iter()
        .map(tasks_of)
        .fold((f64::MAX, f64::MIN), |(a, b), t| (a.min(t), b.max(t)));
    let mut chart = ChartBuilder::on(&left)
        .caption(
            "Latency vs resource accounting (Fig. 5b)",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            bounds(&fig5.rows, "latency"),
            bounds(&fig5.rows, "resource"),
        )?;
    chart
        .configure_mesh()
        .x_desc("latency (units of work)")
        .y_desc("resource accounting C(T)")
        .draw()?;
    for (i, name) in names.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let pts: Vec<(f64, f64, f64)> = fig5
            .rows
            .iter()
            .filter(|r| r.policy == *name)
            .map(|r| (get(r, "latency"), get(r, "resource"), tasks_of(r)))
            .collect();
        chart
            .draw_series(pts.into_iter().map(move |(x, y, t)| {
                // More tasks, lighter shade (as the paper's figure).
                let shade = if tmax > tmin {
                    (t - tmin) / (tmax - tmin)
                } else {
                    0.0
                };
                Circle::new((x, y), 5, colour.mix(1.0 - 0.6 * shade).filled())
            }))?
            .label(name.to_string())
            .legend(move |(x, y)| Circle::new((x + 6, y), 5, colour.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;

    if let Some(fig6) = fig6 {
        let servers_of = |r: &Row| {
            r.setup
                .get("servers")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0)
        };
        let (smin, smax) = fig6
            .rows
            .iter()
            .map(servers_of)
            .fold((f64::MAX, f64::MIN), |(a, b), s| (a.min(s), b.max(s)));
        let mut chart = ChartBuilder::on(&right)
            .caption(
                "Resource accounting vs available servers (Fig. 6b)",
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(smin..smax.max(smin + 1.0), bounds(&fig6.rows, "resource"))?;
        chart
            .configure_mesh()
            .x_desc("available servers |S|")
            .y_desc("resource accounting C(T)")
            .draw()?;
        for (i, name) in names.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let pts: Vec<(f64, f64)> = fig6
                .rows
                .iter()
                .filter(|r| r.policy == *name)
                .map(|r| (servers_of(r), get(r, "resource")))
                .collect();
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(2)))?
                .label(name.to_string())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_follows_the_papers_setup() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let job = draw(&mut rng, 50, 400, 4);
        assert!(job.loads.iter().all(|&l| l <= 5));
        assert!(job.loads.contains(&0) && job.loads.contains(&5));
        for r in &job.replicas {
            assert!((1..=4).contains(&r.len()));
            let mut d = r.clone();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), r.len(), "replicas on distinct servers");
        }
    }

    #[test]
    fn unavailable_servers_drop_out_of_the_replica_lists() {
        let job = Job {
            loads: vec![1, 2, 3],
            replicas: vec![vec![2], vec![0, 2]],
        };
        let p = problem(&job, 2);
        assert_eq!(p.num_nodes(), 2);
        assert_eq!(p.node_load, vec![1.0, 2.0]);
        assert!(p.replicas(0).is_empty());
        assert_eq!(p.replicas(1), &[0]);
    }
}
