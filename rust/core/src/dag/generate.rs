//! Generators for Sect. 5.1: the job schemas of Fig. 3 (MapReduce with
//! several map stages, wavefront, FFT, Laplace, matrix, generic fork-join),
//! uniform and non-uniform (durations 40-120 s, objects 3-10 MB), and the
//! data centres C0-C5.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::model::{DataCentreFile, EdgeSpec, JobFile, NodeSpec, SwitchSpec, TaskSpec};
use super::DagError;

/// Largest job a generator builds.
pub const MAX_GEN_TASKS: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    MapReduce,
    Wavefront,
    Fft,
    Laplace,
    Matrix,
    ForkJoin,
}

impl Schema {
    pub const ALL: [Schema; 6] = [
        Schema::Fft,
        Schema::ForkJoin,
        Schema::Laplace,
        Schema::MapReduce,
        Schema::Matrix,
        Schema::Wavefront,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Schema::MapReduce => "mapreduce",
            Schema::Wavefront => "wavefront",
            Schema::Fft => "fft",
            Schema::Laplace => "laplace",
            Schema::Matrix => "matrix",
            Schema::ForkJoin => "forkjoin",
        }
    }

    pub fn parse(s: &str) -> Result<Schema, DagError> {
        Schema::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                DagError::Generate(format!(
                    "unknown schema {s:?}; known: mapreduce, wavefront, fft, laplace, matrix, forkjoin"
                ))
            })
    }
}

/// How a sequence's jobs are shaped. Sect. 5.1 gives sizes "ranging from 200
/// to 4000 tasks" with "an average 1000 tasks"; Fig. 3 only draws the
/// schemas, so how deep a 1,000-task job of each schema is stays a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shapes {
    /// Every job has the mean size; wavefront and Laplace are square (about
    /// 2 sqrt(n) levels), matrix is Gaussian elimination (about 2.8 sqrt(n)),
    /// fork-join has a phase per 10-100 tasks. The reading before 2026-11-27.
    Deep,
    /// The same schemas, sizes drawn from 1/5 to 4x the mean with the mean
    /// kept (200-4,000 tasks, average 1,000: the text of Sect. 5.1).
    Sized,
    /// Sizes as `Sized`; wavefront, Laplace, matrix and fork-join are their
    /// Fig. 3 drawing (about `UNFOLD_NODES` schema nodes) unfolded over the
    /// data, each schema node a block of independent tasks joined one to one
    /// (Sect. 2.1: jobs "result from unfolding a much smaller structure ...
    /// in parallel, on a set of data"). MapReduce and FFT are as in `Deep`
    /// (already at most log2 n + 1 levels).
    Unfolded,
}

/// Schema nodes of an `Unfolded` job's drawing (a 5 x 5 wavefront: 9 levels).
pub const UNFOLD_NODES: usize = 25;

impl Shapes {
    pub const ALL: [Shapes; 3] = [Shapes::Deep, Shapes::Sized, Shapes::Unfolded];

    pub fn name(self) -> &'static str {
        match self {
            Shapes::Deep => "deep",
            Shapes::Sized => "sized",
            Shapes::Unfolded => "unfolded",
        }
    }

    pub fn parse(s: &str) -> Result<Shapes, DagError> {
        Shapes::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                DagError::Generate(format!(
                    "unknown job shapes {s:?}; known: deep, sized, unfolded"
                ))
            })
    }

    /// The size of one job of a sequence whose mean size is `mean`: `mean`
    /// under `Deep`, else `mean/5 + Exp(0.842 mean)` redrawn above `4 mean`
    /// (the truncated exponential's mean is then `mean` within 1 %).
    pub fn size<R: Rng>(self, mean: usize, rng: &mut R) -> usize {
        if self == Shapes::Deep {
            return mean;
        }
        let (lo, hi) = ((mean / 5).max(1) as f64, (4 * mean) as f64);
        let scale = 0.842 * mean as f64;
        for _ in 0..64 {
            let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
            let x = lo - scale * u.ln();
            if x <= hi {
                return x.round() as usize;
            }
        }
        mean
    }
}

/// Task graph skeleton: the level of each task (for uniform jobs) and edges.
struct Skeleton {
    level: Vec<u32>,
    edges: Vec<(u32, u32)>,
}

impl Skeleton {
    fn new() -> Skeleton {
        Skeleton {
            level: Vec::new(),
            edges: Vec::new(),
        }
    }
    fn add(&mut self, level: u32) -> u32 {
        self.level.push(level);
        (self.level.len() - 1) as u32
    }
}

fn isqrt(x: usize) -> usize {
    ((x as f64).sqrt().round() as usize).max(1)
}

fn skeleton<R: Rng>(schema: Schema, tasks: usize, rng: &mut R) -> Skeleton {
    let mut s = Skeleton::new();
    match schema {
        Schema::MapReduce => {
            // 1-3 map stages chained one to one, then an all-to-all shuffle.
            let stages = rng.gen_range(1..=3usize);
            let width = (tasks * 10 / (10 * stages + 1)).max(1);
            let reducers = (width / 10).max(1);
            let mut prev: Vec<u32> = Vec::new();
            for st in 0..stages {
                let cur: Vec<u32> = (0..width).map(|_| s.add(st as u32)).collect();
                for (k, &c) in cur.iter().enumerate() {
                    if let Some(&p) = prev.get(k) {
                        s.edges.push((p, c));
                    }
                }
                prev = cur;
            }
            for _ in 0..reducers {
                let r = s.add(stages as u32);
                for &p in &prev {
                    s.edges.push((p, r));
                }
            }
        }
        Schema::Wavefront => {
            let n = isqrt(tasks);
            for i in 0..n {
                for j in 0..n {
                    let t = s.add((i + j) as u32);
                    if i > 0 {
                        s.edges.push((t - n as u32, t));
                    }
                    if j > 0 {
                        s.edges.push((t - 1, t));
                    }
                }
            }
        }
        Schema::Fft => {
            // p points: an input row and log2 p butterfly rows.
            // The power of two whose graph size p (log2 p + 1) is nearest.
            let size = |p: usize| p * (p.trailing_zeros() as usize + 1);
            let mut p = 2usize;
            while size(p * 2) <= tasks || size(p * 2) - tasks < tasks.saturating_sub(size(p)) {
                p *= 2;
            }
            let k = p.trailing_zeros() as usize;
            for i in 0..p {
                s.add(0);
                let _ = i;
            }
            for st in 1..=k {
                for i in 0..p {
                    let t = s.add(st as u32);
                    let base = ((st - 1) * p) as u32;
                    s.edges.push((base + i as u32, t));
                    s.edges.push((base + (i ^ (1 << (st - 1))) as u32, t));
                }
            }
        }
        Schema::Laplace => {
            // Diamond: rows widen 1..n then narrow; each task feeds the one or
            // two tasks below it.
            let n = isqrt(tasks);
            let mut prev: Vec<u32> = Vec::new();
            for row in 0..(2 * n - 1) {
                let w = if row < n { row + 1 } else { 2 * n - 1 - row };
                let cur: Vec<u32> = (0..w).map(|_| s.add(row as u32)).collect();
                for (i, &c) in cur.iter().enumerate() {
                    if row < n {
                        if i > 0 {
                            s.edges.push((prev[i - 1], c));
                        }
                        if i < prev.len() {
                            s.edges.push((prev[i], c));
                        }
                    } else {
                        s.edges.push((prev[i], c));
                        s.edges.push((prev[i + 1], c));
                    }
                }
                prev = cur;
            }
        }
        Schema::Matrix => {
            // Gaussian elimination: pivot k, then updates of columns k+1..n.
            let mut n = 2usize;
            while (n + 1) * (n + 2) / 2 + n <= tasks {
                n += 1;
            }
            let mut upd: Vec<Option<u32>> = vec![None; n];
            for k in 0..n {
                let piv = s.add(2 * k as u32);
                if let Some(u) = upd[k] {
                    s.edges.push((u, piv));
                }
                for slot in &mut upd[k + 1..n] {
                    let t = s.add(2 * k as u32 + 1);
                    s.edges.push((piv, t));
                    if let Some(u) = *slot {
                        s.edges.push((u, t));
                    }
                    *slot = Some(t);
                }
            }
        }
        Schema::ForkJoin => {
            // Phases of a random width between two join tasks.
            let mut join = s.add(0);
            let mut level = 1u32;
            while s.level.len() < tasks {
                let w = rng
                    .gen_range(10..=100usize)
                    .min(tasks.saturating_sub(s.level.len()).max(1));
                let mids: Vec<u32> = (0..w).map(|_| s.add(level)).collect();
                let next = s.add(level + 1);
                for &m in &mids {
                    s.edges.push((join, m));
                    s.edges.push((m, next));
                }
                join = next;
                level += 2;
            }
        }
    }
    s
}

/// The schema's drawing of about `UNFOLD_NODES` nodes, each node a block of
/// `tasks / nodes` independent tasks; an edge of the drawing joins the k-th
/// tasks of its two blocks.
fn unfolded<R: Rng>(schema: Schema, tasks: usize, rng: &mut R) -> Skeleton {
    let small = skeleton(schema, UNFOLD_NODES.min(tasks), rng);
    let width = (tasks as f64 / small.level.len() as f64).round().max(1.0) as u32;
    let mut s = Skeleton::new();
    for &l in &small.level {
        for _ in 0..width {
            s.add(l);
        }
    }
    for &(a, b) in &small.edges {
        for k in 0..width {
            s.edges.push((a * width + k, b * width + k));
        }
    }
    s
}

/// Generates a job of `schema` with about `tasks` tasks (`Shapes::Deep`).
pub fn job(schema: Schema, tasks: usize, uniform: bool, seed: u64) -> Result<JobFile, DagError> {
    job_shaped(schema, tasks, uniform, Shapes::Deep, seed)
}

/// Generates a job of `schema` with about `tasks` tasks, shaped by `shapes`
/// (the size itself is the caller's: see `Shapes::size`).
pub fn job_shaped(
    schema: Schema,
    tasks: usize,
    uniform: bool,
    shapes: Shapes,
    seed: u64,
) -> Result<JobFile, DagError> {
    if tasks == 0 || tasks > MAX_GEN_TASKS {
        return Err(DagError::Generate(format!(
            "tasks is {tasks}, must be 1..={MAX_GEN_TASKS}"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let deep = matches!(schema, Schema::MapReduce | Schema::Fft) || shapes != Shapes::Unfolded;
    let s = if deep {
        skeleton(schema, tasks, &mut rng)
    } else {
        unfolded(schema, tasks, &mut rng)
    };
    let levels = s.level.iter().max().map_or(0, |&l| l as usize + 1);
    let level_dur: Vec<f64> = (0..levels).map(|_| rng.gen_range(40.0..=120.0)).collect();
    let level_bytes: Vec<f64> = (0..levels).map(|_| rng.gen_range(3e6..=10e6)).collect();
    let tasks = s
        .level
        .iter()
        .enumerate()
        .map(|(i, &l)| TaskSpec {
            id: format!("t{i}"),
            duration: if uniform {
                level_dur[l as usize]
            } else {
                rng.gen_range(40.0..=120.0f64).round()
            },
        })
        .collect();
    let edges = s
        .edges
        .iter()
        .map(|&(a, b)| EdgeSpec {
            from: format!("t{a}"),
            to: format!("t{b}"),
            bytes: if uniform {
                level_bytes[s.level[a as usize] as usize].round()
            } else {
                rng.gen_range(3e6..=10e6f64).round()
            },
        })
        .collect();
    Ok(JobFile { tasks, edges })
}

/// Node link, leaf uplink and aggregation uplink bandwidths (bytes/s): 1 Gb/s
/// to a node, and the per-flow share of 2:1 oversubscribed uplinks (our
/// choice; the paper does not give its figures).
pub const NODE_BW: f64 = 125e6;
pub const LEAF_UPLINK: f64 = 62.5e6;
pub const AGG_UPLINK: f64 = 31.25e6;

/// A tree data centre: `aggs` aggregation switches (0: leaves hang from the
/// core), `leaves` leaf switches under each, `per_leaf` nodes per leaf;
/// `fast(leaf index)` says whether that leaf's nodes run at 1.5x.
pub fn tree(
    aggs: usize,
    leaves: usize,
    per_leaf: usize,
    fast: impl Fn(usize) -> bool,
) -> DataCentreFile {
    let mut switches = vec![SwitchSpec {
        id: "core".into(),
        parent: None,
        bandwidth: None,
    }];
    let mut nodes = Vec::new();
    let mut leaf_no = 0usize;
    let parents: Vec<String> = if aggs == 0 {
        vec!["core".into()]
    } else {
        (0..aggs)
            .map(|a| {
                switches.push(SwitchSpec {
                    id: format!("agg{a}"),
                    parent: Some("core".into()),
                    bandwidth: Some(AGG_UPLINK),
                });
                format!("agg{a}")
            })
            .collect()
    };
    for p in &parents {
        for _ in 0..leaves {
            let id = format!("leaf{leaf_no}");
            switches.push(SwitchSpec {
                id: id.clone(),
                parent: Some(p.clone()),
                bandwidth: Some(LEAF_UPLINK),
            });
            let speed = if fast(leaf_no) { 1.5 } else { 1.0 };
            for k in 0..per_leaf {
                nodes.push(NodeSpec {
                    host: format!("n{leaf_no}-{k}"),
                    switch: id.clone(),
                    speed,
                    bandwidth: Some(NODE_BW),
                });
            }
            leaf_no += 1;
        }
    }
    DataCentreFile { switches, nodes }
}

/// The data centres of Sect. 5.1. C5 is a mesh in the paper; a tree format
/// cannot hold a mesh, so ours is flat: 1000 nodes under one switch.
pub fn datacentre(name: &str) -> Result<DataCentreFile, DagError> {
    Ok(match name {
        // Per aggregation switch: five leaves at 1x, two at 1.5x.
        "C0" => tree(3, 7, 10, |l| l % 7 >= 5),
        "C1" => tree(5, 10, 20, |l| l % 2 == 1),
        "C2" => tree(0, 40, 40, |l| l % 2 == 1),
        "C3" => tree(10, 10, 40, |l| l % 2 == 1),
        "C4" => tree(20, 10, 40, |l| l % 2 == 1),
        "C5" => tree(0, 1, 1000, |_| false).with_half_fast(),
        other => {
            return Err(DagError::Generate(format!(
                "unknown data centre {other:?}; known: C0, C1, C2, C3, C4, C5"
            )))
        }
    })
}

impl DataCentreFile {
    fn with_half_fast(mut self) -> DataCentreFile {
        let n = self.nodes.len();
        for node in &mut self.nodes[n / 2..] {
            node.speed = 1.5;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DataCentre, Job};
    use super::*;

    #[test]
    fn every_schema_gives_a_valid_job_near_the_size() {
        for schema in Schema::ALL {
            for uniform in [true, false] {
                let f = job(schema, 1000, uniform, 3).unwrap();
                let j = Job::from_file("gen", &f).unwrap();
                assert!(j.len() > 700 && j.len() <= 1100, "{schema:?}: {}", j.len());
                assert!(j.duration.iter().all(|&d| (40.0..=120.0).contains(&d)));
            }
        }
    }

    fn depth(f: &JobFile) -> usize {
        let j = Job::from_file("gen", f).unwrap();
        super::super::abstraction::levels(&j)
            .iter()
            .max()
            .map_or(0, |&l| l as usize + 1)
    }

    #[test]
    fn sizes_span_200_to_4000_with_mean_1000() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        assert_eq!(Shapes::Deep.size(1000, &mut rng), 1000);
        let n = 4000;
        let xs: Vec<usize> = (0..n).map(|_| Shapes::Sized.size(1000, &mut rng)).collect();
        assert!(xs.iter().all(|&x| (200..=4000).contains(&x)));
        let mean = xs.iter().sum::<usize>() as f64 / n as f64;
        assert!((mean - 1000.0).abs() < 40.0, "mean {mean}");
        // Spread over the range, not bunched at the mean.
        assert!(xs.iter().filter(|&&x| x < 500).count() > n / 5);
        assert!(xs.iter().filter(|&&x| x > 2000).count() > n / 20);
    }

    #[test]
    fn unfolded_jobs_are_shallow_and_wide_deep_ones_are_not() {
        for schema in Schema::ALL {
            let deep = job_shaped(schema, 1000, false, Shapes::Deep, 5).unwrap();
            let wide = job_shaped(schema, 1000, false, Shapes::Unfolded, 5).unwrap();
            let j = Job::from_file("gen", &wide).unwrap();
            assert!(j.len() > 800 && j.len() <= 1100, "{schema:?}: {}", j.len());
            let (d, w) = (depth(&deep), depth(&wide));
            match schema {
                Schema::MapReduce | Schema::Fft => {
                    assert_eq!(d, w, "{schema:?}");
                    assert_eq!(deep.edges.len(), wide.edges.len(), "{schema:?}");
                }
                _ => {
                    // A drawing of 25 schema nodes: 9 levels at most, so at
                    // least ~100 tasks a level on average.
                    assert!(w <= 9, "{schema:?}: {w} levels");
                    assert!(j.len() / w >= 100, "{schema:?}: {} per level", j.len() / w);
                    assert!(d >= 15, "{schema:?}: deep has {d} levels");
                }
            }
        }
        // The deep reading's square wavefront: 2 sqrt(n) - 1 levels.
        assert_eq!(depth(&job(Schema::Wavefront, 1024, true, 1).unwrap()), 63);
        assert!(Shapes::parse("wide")
            .unwrap_err()
            .to_string()
            .contains("deep, sized, unfolded"));
    }

    #[test]
    fn c0_has_210_nodes_and_two_fast_leaves_per_aggregation() {
        let dc = DataCentre::from_file("C0", &datacentre("C0").unwrap()).unwrap();
        assert_eq!(dc.nodes(), 210);
        assert_eq!(dc.switch_ids.len(), 1 + 3 + 21);
        assert_eq!(dc.speed.iter().filter(|&&s| s == 1.5).count(), 60);
        for (name, n) in [
            ("C1", 1000),
            ("C2", 1600),
            ("C3", 4000),
            ("C4", 8000),
            ("C5", 1000),
        ] {
            let dc = DataCentre::from_file(name, &datacentre(name).unwrap()).unwrap();
            assert_eq!(dc.nodes(), n, "{name}");
            assert_eq!(
                dc.speed.iter().filter(|&&s| s == 1.5).count(),
                n / 2,
                "{name}"
            );
        }
    }
}
