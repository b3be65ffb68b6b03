//! Random instances with HDFS's default rack-aware block placement
//! (`BlockPlacementPolicyDefault`): first replica on a random node (the
//! writer is off-cluster), second on a random node of another rack, third on
//! another node of the second's rack, further ones on random unused nodes.
//! With one rack the replicas are just distinct random nodes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::CoreError;
use crate::instance::{limits, InstanceFile, NodeJson, TaskJson};
use crate::model::CostModel;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct GenSpec {
    pub nodes: usize,
    pub tasks: usize,
    pub replicas: usize,
    pub racks: usize,
    pub seed: u64,
    /// Each node's initial load is uniform in `[0, initial_load]` (BAR's W).
    pub initial_load: f64,
    pub cost: CostModel,
}

impl Default for GenSpec {
    fn default() -> Self {
        GenSpec {
            nodes: 50,
            tasks: 500,
            replicas: 3,
            racks: 1,
            seed: 1,
            initial_load: 0.0,
            cost: CostModel::default(),
        }
    }
}

/// Host name of node `i` (0-based): `dn0001`, `dn0002`, ...
pub fn host_name(i: usize) -> String {
    format!("dn{:04}", i + 1)
}

/// Generates an instance; nodes are spread round-robin over the racks.
pub fn generate(spec: &GenSpec) -> Result<InstanceFile, CoreError> {
    if spec.nodes == 0 {
        return Err(CoreError::BadGenerator("--nodes must be at least 1".into()));
    }
    if spec.racks == 0 || spec.racks > spec.nodes {
        return Err(CoreError::BadGenerator(format!(
            "--racks must be between 1 and --nodes ({}), got {}",
            spec.nodes, spec.racks
        )));
    }
    if spec.replicas == 0 || spec.replicas > spec.nodes.min(limits::REPLICAS) {
        let most = if spec.nodes <= limits::REPLICAS {
            format!("--nodes ({})", spec.nodes)
        } else {
            format!(
                "{} (the instance limit, HDFS's dfs.replication.max)",
                limits::REPLICAS
            )
        };
        return Err(CoreError::BadGenerator(format!(
            "--replicas must be between 1 and {most}, got {}",
            spec.replicas
        )));
    }
    if spec.tasks.saturating_mul(spec.replicas) > limits::EDGES {
        return Err(CoreError::BadGenerator(format!(
            "--tasks {} x --replicas {} is more than {} replica entries (the instance limit)",
            spec.tasks,
            spec.replicas,
            limits::EDGES
        )));
    }
    // The instance limits: what generate writes, plan must read back (and
    // the uniform draw in [0, W] overflows near f64::MAX).
    limits::check(spec.initial_load, limits::INITIAL_LOAD)
        .map_err(|p| CoreError::BadGenerator(format!("--initial-load {p}")))?;
    for (flag, v) in [
        ("--cost-local", spec.cost.local),
        ("--cost-remote", spec.cost.remote),
        ("--remote-growth", spec.cost.remote_growth),
    ] {
        limits::check(v, limits::COST)
            .map_err(|p| CoreError::BadGenerator(format!("{flag} {p}")))?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let rack_of = |i: usize| i % spec.racks;
    let placement = Placement::new((0..spec.nodes).map(rack_of).collect());
    let nodes = (0..spec.nodes)
        .map(|i| NodeJson {
            host: host_name(i),
            rack: format!("/rack{}", rack_of(i)),
            speed: 1.0,
            slots: 1,
            initial_load: if spec.initial_load > 0.0 {
                rng.gen_range(0.0..=spec.initial_load)
            } else {
                0.0
            },
        })
        .collect();
    let mut tasks = Vec::with_capacity(spec.tasks);
    let mut chosen: Vec<usize> = Vec::with_capacity(spec.replicas);
    let width = spec.tasks.max(1).to_string().len().max(6);
    for t in 0..spec.tasks {
        placement.place(&mut rng, spec.replicas, &mut chosen);
        tasks.push(TaskJson {
            id: format!("t{:0width$}", t + 1),
            replicas: chosen.iter().map(|&n| host_name(n)).collect(),
            size: 1.0,
        });
    }
    Ok(InstanceFile {
        nodes,
        tasks,
        jobs: Vec::new(),
        cost: spec.cost,
    })
}

/// HDFS's default block placement over a fixed set of nodes and racks.
#[derive(Clone, Debug)]
pub struct Placement {
    node_rack: Vec<usize>,
    by_rack: Vec<Vec<usize>>,
}

impl Placement {
    /// `node_rack[i]` is the rack index of node i (racks numbered from 0).
    pub fn new(node_rack: Vec<usize>) -> Placement {
        let racks = node_rack.iter().copied().max().map_or(0, |r| r + 1);
        let mut by_rack = vec![Vec::new(); racks];
        for (i, &r) in node_rack.iter().enumerate() {
            by_rack[r].push(i);
        }
        Placement { node_rack, by_rack }
    }

    /// Chooses `replicas` distinct nodes for one block into `chosen` (cleared
    /// first): a random first node (the writer is off-cluster), the second on
    /// another rack, the third on the second's rack, the rest at random.
    /// `replicas` must not exceed the number of nodes.
    pub fn place<R: Rng>(&self, rng: &mut R, replicas: usize, chosen: &mut Vec<usize>) {
        chosen.clear();
        let nodes = self.node_rack.len();
        let racks = self.by_rack.iter().filter(|r| !r.is_empty()).count();
        if replicas == 0 || nodes == 0 {
            return;
        }
        let first = rng.gen_range(0..nodes);
        chosen.push(first);
        if replicas >= 2 {
            let second = if racks > 1 {
                // A random node off the first's rack.
                loop {
                    let n = rng.gen_range(0..nodes);
                    if self.node_rack[n] != self.node_rack[first] {
                        break n;
                    }
                }
            } else {
                pick_unused(rng, nodes, chosen)
            };
            chosen.push(second);
        }
        if replicas >= 3 {
            let rack = &self.by_rack[self.node_rack[chosen[1]]];
            let third = if racks > 1 && rack.len() > 1 {
                loop {
                    let n = rack[rng.gen_range(0..rack.len())];
                    if n != chosen[1] {
                        break n;
                    }
                }
            } else {
                pick_unused(rng, nodes, chosen)
            };
            if chosen.contains(&third) {
                let other = pick_unused(rng, nodes, chosen);
                chosen.push(other);
            } else {
                chosen.push(third);
            }
        }
        while chosen.len() < replicas.min(nodes) {
            let n = pick_unused(rng, nodes, chosen);
            chosen.push(n);
        }
    }
}

/// A uniformly random node not in `chosen` (which holds fewer than `nodes`).
fn pick_unused<R: Rng>(rng: &mut R, nodes: usize, chosen: &[usize]) -> usize {
    loop {
        let n = rng.gen_range(0..nodes);
        if !chosen.contains(&n) {
            return n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::Instance;

    #[test]
    fn rack_aware_placement() {
        let spec = GenSpec {
            nodes: 12,
            tasks: 300,
            replicas: 3,
            racks: 3,
            seed: 5,
            ..GenSpec::default()
        };
        let file = generate(&spec).unwrap();
        let inst = Instance::from_file(file).unwrap();
        let p = &inst.problem;
        for t in 0..p.num_tasks() as u32 {
            let r = p.replicas(t);
            assert_eq!(r.len(), 3);
            let rack = |i: usize| p.node_rack[r[i] as usize];
            assert_ne!(rack(0), rack(1), "second replica on another rack");
            assert_eq!(rack(1), rack(2), "third on the second's rack");
            assert_ne!(r[1], r[2]);
        }
    }

    #[test]
    fn one_rack_gives_distinct_nodes_and_is_deterministic() {
        let spec = GenSpec {
            nodes: 4,
            tasks: 100,
            replicas: 4,
            racks: 1,
            seed: 9,
            ..GenSpec::default()
        };
        let a = generate(&spec).unwrap();
        assert_eq!(a, generate(&spec).unwrap());
        for t in &a.tasks {
            let mut r = t.replicas.clone();
            r.sort();
            r.dedup();
            assert_eq!(r.len(), 4);
        }
    }

    #[test]
    fn initial_load_within_bounds() {
        let spec = GenSpec {
            initial_load: 40.0,
            ..GenSpec::default()
        };
        let f = generate(&spec).unwrap();
        assert!(f
            .nodes
            .iter()
            .all(|n| (0.0..=40.0).contains(&n.initial_load)));
        assert!(f.nodes.iter().any(|n| n.initial_load > 0.0));
    }

    #[test]
    fn bad_specs_name_the_flag() {
        let e = |s: GenSpec| generate(&s).unwrap_err().to_string();
        assert_eq!(
            e(GenSpec {
                replicas: 60,
                ..GenSpec::default()
            }),
            "generate: --replicas must be between 1 and --nodes (50), got 60"
        );
        assert_eq!(
            e(GenSpec {
                racks: 0,
                ..GenSpec::default()
            }),
            "generate: --racks must be between 1 and --nodes (50), got 0"
        );
        assert_eq!(
            e(GenSpec {
                nodes: 0,
                ..GenSpec::default()
            }),
            "generate: --nodes must be at least 1"
        );
    }
}
