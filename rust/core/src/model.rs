//! The placement model with dense integer ids: nodes, tasks, the bipartite
//! replica graph (CSR in both directions) and the cost model. Names live only
//! at the edges (`instance`, `session`); everything here is indices.

use serde::{Deserialize, Serialize};

/// Dense node index (0..num_nodes).
pub type NodeId = u32;
/// Dense task index (0..num_tasks).
pub type TaskId = u32;
/// Marker for "no node" / "no task".
pub const NONE: u32 = u32::MAX;

/// Local and remote execution cost of a task of size 1 on a node of speed 1.
///
/// A remote task costs `remote + remote_growth * r`, where `r` is the number of
/// remote tasks in the plan; BAR's `C_rem(r) = C_loc + q*r` is
/// `remote = C_loc, remote_growth = q`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CostModel {
    pub local: f64,
    pub remote: f64,
    pub remote_growth: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            local: 1.0,
            remote: 3.0,
            remote_growth: 0.0,
        }
    }
}

impl CostModel {
    /// Cost of one remote unit task when the plan holds `remote_tasks` remote tasks.
    pub fn remote_cost(&self, remote_tasks: usize) -> f64 {
        self.remote + self.remote_growth * remote_tasks as f64
    }
}

/// Where a task runs relative to its input replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Locality {
    /// The node holds a replica.
    Node,
    /// A replica is on the node's rack.
    Rack,
    /// Neither.
    OffSwitch,
}

impl Locality {
    pub fn as_str(self) -> &'static str {
        match self {
            Locality::Node => "node",
            Locality::Rack => "rack",
            Locality::OffSwitch => "off-switch",
        }
    }
}

/// Compressed sparse rows: row `i` is `targets[offsets[i]..offsets[i+1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// From row offsets (`offsets[0] == 0`, non-decreasing, the last one
    /// `targets.len()`) and the rows' targets laid end to end; `None` if
    /// the offsets do not fit.
    pub fn from_parts(offsets: Vec<u32>, targets: Vec<u32>) -> Option<Csr> {
        let ok = offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last().map(|&l| l as usize) == Some(targets.len());
        ok.then_some(Csr { offsets, targets })
    }

    /// Builds from one list per row.
    pub fn from_rows<R, I>(rows: R) -> Csr
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = u32>,
    {
        let mut offsets = vec![0u32];
        let mut targets = Vec::new();
        for row in rows {
            targets.extend(row);
            offsets.push(targets.len() as u32);
        }
        Csr { offsets, targets }
    }

    /// The transpose: row `j` of the result lists the rows of `self` that contain `j`,
    /// in increasing order.
    pub fn transpose(&self, num_cols: usize) -> Csr {
        let mut counts = vec![0u32; num_cols + 1];
        for &t in &self.targets {
            counts[t as usize + 1] += 1;
        }
        for i in 0..num_cols {
            counts[i + 1] += counts[i];
        }
        let offsets = counts.clone();
        let mut fill = counts;
        let mut targets = vec![0u32; self.targets.len()];
        for row in 0..self.rows() {
            for &t in self.row(row) {
                targets[fill[t as usize] as usize] = row as u32;
                fill[t as usize] += 1;
            }
        }
        Csr { offsets, targets }
    }

    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    #[inline]
    pub fn degree(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Number of stored entries (edges).
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// The replica graph shared by every planner: task -> replica nodes and its transpose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bipartite {
    pub task_nodes: Csr,
    pub node_tasks: Csr,
}

impl Bipartite {
    pub fn new(num_nodes: usize, task_nodes: Csr) -> Bipartite {
        let node_tasks = task_nodes.transpose(num_nodes);
        Bipartite {
            task_nodes,
            node_tasks,
        }
    }
}

/// A validated placement problem with dense ids.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// Relative processing speed of each node (> 0).
    pub node_speed: Vec<f64>,
    /// Container slots of each node (>= 1): tasks that run at once.
    pub node_slots: Vec<u32>,
    /// Time for which each node is already busy (>= 0).
    pub node_load: Vec<f64>,
    /// Dense rack index of each node.
    pub node_rack: Vec<u32>,
    /// Work of each task relative to a unit task (> 0).
    pub task_size: Vec<f64>,
    pub graph: Bipartite,
    pub cost: CostModel,
}

impl Problem {
    pub fn num_nodes(&self) -> usize {
        self.node_speed.len()
    }

    pub fn num_tasks(&self) -> usize {
        self.task_size.len()
    }

    #[inline]
    pub fn replicas(&self, task: TaskId) -> &[NodeId] {
        self.graph.task_nodes.row(task as usize)
    }

    #[inline]
    pub fn local_tasks(&self, node: NodeId) -> &[TaskId] {
        self.graph.node_tasks.row(node as usize)
    }

    /// Locality of `task` if it runs on `node`.
    pub fn locality(&self, task: TaskId, node: NodeId) -> Locality {
        let replicas = self.replicas(task);
        if replicas.contains(&node) {
            Locality::Node
        } else if replicas
            .iter()
            .any(|&r| self.node_rack[r as usize] == self.node_rack[node as usize])
        {
            Locality::Rack
        } else {
            Locality::OffSwitch
        }
    }

    /// Finish time of `node` after `count` unit local tasks, spread over its slots.
    /// This is the per-node cost function the semi-matching planners balance.
    #[inline]
    pub fn unit_finish(&self, node: NodeId, count: u32) -> f64 {
        let n = node as usize;
        let waves = count.div_ceil(self.node_slots[n]);
        self.node_load[n] + waves as f64 * self.cost.local / self.node_speed[n]
    }

    /// A problem on homogeneous unit nodes (speed 1, one slot, no load) and unit tasks.
    /// Convenient for tests and benchmarks.
    pub fn uniform(num_nodes: usize, replicas: &[Vec<NodeId>], cost: CostModel) -> Problem {
        let task_nodes = Csr::from_rows(replicas.iter().map(|r| r.iter().copied()));
        Problem {
            node_speed: vec![1.0; num_nodes],
            node_slots: vec![1; num_nodes],
            node_load: vec![0.0; num_nodes],
            node_rack: vec![0; num_nodes],
            task_size: vec![1.0; replicas.len()],
            graph: Bipartite::new(num_nodes, task_nodes),
            cost,
        }
    }
}

/// A total order on non-negative (or any non-NaN) f64 keys for heaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrdF64(pub f64);

impl Eq for OrdF64 {}

impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_lists_rows_per_column() {
        let csr = Csr::from_rows(vec![vec![0u32, 2], vec![2], vec![1, 0]]);
        let t = csr.transpose(3);
        assert_eq!(t.row(0), &[0, 2]);
        assert_eq!(t.row(1), &[2]);
        assert_eq!(t.row(2), &[0, 1]);
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn locality_levels() {
        let mut p = Problem::uniform(3, &[vec![0]], CostModel::default());
        p.node_rack = vec![0, 0, 1];
        assert_eq!(p.locality(0, 0), Locality::Node);
        assert_eq!(p.locality(0, 1), Locality::Rack);
        assert_eq!(p.locality(0, 2), Locality::OffSwitch);
    }

    #[test]
    fn unit_finish_counts_waves_over_slots() {
        let mut p = Problem::uniform(1, &[], CostModel::default());
        p.node_slots = vec![2];
        p.node_load = vec![1.0];
        p.node_speed = vec![2.0];
        assert_eq!(p.unit_finish(0, 0), 1.0);
        assert_eq!(p.unit_finish(0, 1), 1.5);
        assert_eq!(p.unit_finish(0, 2), 1.5);
        assert_eq!(p.unit_finish(0, 3), 2.0);
    }
}
