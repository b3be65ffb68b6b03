//! The abstractions of Sect. 2.1 as equivalence relations: on tasks, the
//! topological and the alpha-similar-duration job abstractions (blocks, with
//! the maximal duration and object size of their members); on nodes, groups by
//! subtree with the minimal power and bandwidth (pessimistic abstraction).

use super::{DataCentre, Job};

/// Level of each task: the length of the longest path from a source. The
/// paper says the minimal length; with it an edge can go from a higher level
/// to a lower one and the abstract job can be cyclic, which the paper forbids.
/// On the layered schemas of Fig. 3 both agree.
pub fn levels(job: &Job) -> Vec<u32> {
    let mut level = vec![0u32; job.len()];
    for &t in &job.topo {
        let t = t as usize;
        level[t] = job.preds[t]
            .iter()
            .map(|&(q, _)| level[q as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    level
}

/// An abstract job: blocks in a topological order (every abstract object goes
/// from a lower to a higher block index).
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    pub block_of: Vec<u32>,
    pub members: Vec<Vec<u32>>,
    /// Maximal duration of the members.
    pub duration: Vec<f64>,
    /// Abstract objects into each block: (block, maximal bytes).
    pub preds: Vec<Vec<(u32, f64)>>,
}

impl Blocks {
    pub fn len(&self) -> usize {
        self.members.len()
    }
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// The topological abstraction: one block per level.
pub fn topological(job: &Job) -> Blocks {
    similar_duration(job, f64::INFINITY)
}

/// The alpha-similar-duration abstraction: each level is split, in order of
/// duration, into blocks whose longest task is at most `alpha` times the
/// shortest (sort and group on traversal, O(k log k) per level).
/// `alpha = 1` groups equal durations only; infinity is the topological
/// one; below 1 every task is a block of its own (the concrete job).
pub fn similar_duration(job: &Job, alpha: f64) -> Blocks {
    let level = levels(job);
    let nlev = level.iter().max().map_or(0, |&l| l as usize + 1);
    let mut by_level: Vec<Vec<u32>> = vec![Vec::new(); nlev];
    for (t, &l) in level.iter().enumerate() {
        by_level[l as usize].push(t as u32);
    }
    let mut b = Blocks {
        block_of: vec![0; job.len()],
        ..Blocks::default()
    };
    for mut tasks in by_level {
        tasks.sort_by(|&x, &y| job.duration[x as usize].total_cmp(&job.duration[y as usize]));
        let mut start = 0;
        while start < tasks.len() {
            let lo = job.duration[tasks[start] as usize];
            let mut end = start + 1;
            while end < tasks.len() && job.duration[tasks[end] as usize] <= alpha * lo {
                end += 1;
            }
            let id = b.members.len() as u32;
            let members = tasks[start..end].to_vec();
            for &t in &members {
                b.block_of[t as usize] = id;
            }
            b.duration.push(job.duration[tasks[end - 1] as usize]);
            b.members.push(members);
            start = end;
        }
    }
    // Abstract objects with the largest size between representatives.
    let mut size = vec![-1.0f64; b.len()];
    let mut touched = Vec::new();
    for members in &b.members {
        for &t in members {
            for &(q, bytes) in &job.preds[t as usize] {
                let qb = b.block_of[q as usize] as usize;
                if size[qb] < 0.0 {
                    touched.push(qb as u32);
                }
                size[qb] = size[qb].max(bytes);
            }
        }
        let preds = touched.iter().map(|&q| (q, size[q as usize])).collect();
        for &q in &touched {
            size[q as usize] = -1.0;
        }
        touched.clear();
        b.preds.push(preds);
    }
    b
}

/// A data-centre abstraction: groups of nodes (abstract nodes).
#[derive(Clone, Debug)]
pub struct Groups {
    pub group_of: Vec<u32>,
    pub members: Vec<Vec<u32>>,
    /// The switch whose subtree defines the group.
    pub root: Vec<u32>,
    /// Minimal computing power of the members.
    pub power: Vec<f64>,
    /// Bandwidth between groups (row-major), the self-loop on the diagonal:
    /// the smallest bandwidth of any path between members.
    pub bw: Vec<f64>,
}

impl Groups {
    pub fn len(&self) -> usize {
        self.members.len()
    }
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
    pub fn bandwidth(&self, a: u32, b: u32) -> f64 {
        self.bw[a as usize * self.len() + b as usize]
    }
}

/// Smallest bandwidth on any link of the subtree of every switch (node links
/// and the uplinks of the switches below it).
pub fn subtree_min_bandwidth(dc: &DataCentre) -> Vec<f64> {
    let ns = dc.switch_ids.len();
    let mut m = vec![f64::INFINITY; ns];
    for (n, &s) in dc.node_switch.iter().enumerate() {
        m[s as usize] = m[s as usize].min(dc.node_bw[n]);
    }
    // Children before parents: by decreasing depth.
    let mut order: Vec<u32> = (0..ns as u32).collect();
    order.sort_by_key(|&s| std::cmp::Reverse(dc.depth[s as usize]));
    for s in order {
        if let Some(p) = dc.parent[s as usize] {
            let v = m[s as usize].min(dc.uplink[s as usize]);
            m[p as usize] = m[p as usize].min(v);
        }
    }
    m
}

/// Groups by subtree: a node's group is its switch's ancestor `height`
/// levels up (0: the switch it hangs from), clamped at the root.
pub fn by_subtree(dc: &DataCentre, height: u32) -> Groups {
    let inner = subtree_min_bandwidth(dc);
    let mut index = vec![u32::MAX; dc.switch_ids.len()];
    let mut g = Groups {
        group_of: Vec::with_capacity(dc.nodes()),
        members: Vec::new(),
        root: Vec::new(),
        power: Vec::new(),
        bw: Vec::new(),
    };
    for n in 0..dc.nodes() {
        let mut s = dc.node_switch[n];
        for _ in 0..height {
            match dc.parent[s as usize] {
                Some(p) => s = p,
                None => break,
            }
        }
        if index[s as usize] == u32::MAX {
            index[s as usize] = g.members.len() as u32;
            g.members.push(Vec::new());
            g.root.push(s);
            g.power.push(f64::INFINITY);
        }
        let id = index[s as usize];
        g.group_of.push(id);
        g.members[id as usize].push(n as u32);
        g.power[id as usize] = g.power[id as usize].min(dc.speed[n]);
    }
    let k = g.len();
    g.bw = vec![0.0; k * k];
    for a in 0..k {
        for b in 0..k {
            let (ra, rb) = (g.root[a], g.root[b]);
            g.bw[a * k + b] = if a == b {
                inner[ra as usize]
            } else {
                inner[ra as usize]
                    .min(inner[rb as usize])
                    .min(dc.switch_path_bandwidth(ra, rb))
            };
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::super::generate;
    use super::*;

    fn job() -> Job {
        Job::from_json(
            "j",
            r#"{"tasks":[{"id":"a","duration":40},{"id":"b","duration":100},{"id":"c","duration":50},
                {"id":"d","duration":60}],
               "edges":[{"from":"a","to":"c","bytes":5},{"from":"b","to":"d","bytes":7},
                {"from":"a","to":"d","bytes":3}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn topological_groups_levels_with_max_duration_and_size() {
        let b = topological(&job());
        assert_eq!(b.len(), 2);
        assert_eq!(b.duration, vec![100.0, 60.0]);
        assert_eq!(b.preds[1], vec![(0, 7.0)]);
        // The relation is an equivalence: same block iff same level.
        let l = levels(&job());
        for x in 0..4 {
            for y in 0..4 {
                assert_eq!(b.block_of[x] == b.block_of[y], l[x] == l[y]);
            }
        }
    }

    #[test]
    fn alpha_similar_blocks_stay_within_alpha() {
        let j = job();
        let b = similar_duration(&j, 1.5);
        assert_eq!(b.len(), 3);
        for m in &b.members {
            let lo = m
                .iter()
                .map(|&t| j.duration[t as usize])
                .fold(f64::MAX, f64::min);
            let hi = m
                .iter()
                .map(|&t| j.duration[t as usize])
                .fold(0.0, f64::max);
            assert!(hi <= 1.5 * lo);
        }
        // Objects only go forward in block order.
        for (i, p) in b.preds.iter().enumerate() {
            assert!(p.iter().all(|&(q, _)| (q as usize) < i));
        }
        // Below 1: the concrete job.
        let c = similar_duration(&j, 0.0);
        assert_eq!(c.len(), j.len());
        assert!(c.members.iter().all(|m| m.len() == 1));
    }

    #[test]
    fn groups_are_pessimistic() {
        let dc = DataCentre::from_file("C0", &generate::datacentre("C0").unwrap()).unwrap();
        let g = by_subtree(&dc, 0);
        assert_eq!(g.len(), 21);
        let g1 = by_subtree(&dc, 1);
        assert_eq!(g1.len(), 3);
        for a in 0..dc.nodes() as u32 {
            for b in (0..dc.nodes() as u32).step_by(7) {
                let (ga, gb) = (g.group_of[a as usize], g.group_of[b as usize]);
                assert!(dc.path_bandwidth(a, b) >= g.bandwidth(ga, gb));
                assert!(
                    dc.path_bandwidth(a, b)
                        >= g1.bandwidth(g1.group_of[a as usize], g1.group_of[b as usize])
                );
            }
            assert!(dc.speed[a as usize] >= g.power[g.group_of[a as usize] as usize]);
        }
    }
}
