//! Jobs (task graphs) and data centres (trees of switches with compute nodes
//! at the leaves), their JSON formats and their validation.
//!
//! Job: `{"tasks": [{"id", "duration"}], "edges": [{"from", "to", "bytes"}]}`.
//! Data centre: `{"switches": [{"id", "parent", "bandwidth"}], "nodes":
//! [{"host", "switch", "speed"}]}`; a switch's `bandwidth` is that of its link
//! to the parent (bytes/s; the root has no parent and no bandwidth). A node
//! may carry an optional `bandwidth` for its own link to its switch (absent:
//! not a bottleneck).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::DagError;

/// Bounds on anything read from outside.
pub const MAX_TASKS: usize = 1_000_000;
pub const MAX_EDGES: usize = 10_000_000;
pub const MAX_NODES: usize = 1_000_000;
pub const MAX_SWITCHES: usize = 100_000;
pub const MAX_DEPTH: usize = 64;
/// Longest task (seconds): a year.
pub const MAX_DURATION: f64 = 3.2e7;
pub const MAX_BYTES: f64 = 1e15;
pub const MAX_SPEED: f64 = 1e6;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    pub id: String,
    pub duration: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
    pub bytes: f64,
}

/// The job JSON format.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFile {
    pub tasks: Vec<TaskSpec>,
    #[serde(default)]
    pub edges: Vec<EdgeSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub host: String,
    pub switch: String,
    pub speed: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<f64>,
}

/// The data-centre JSON format.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataCentreFile {
    pub switches: Vec<SwitchSpec>,
    pub nodes: Vec<NodeSpec>,
}

/// A validated job with dense task ids.
#[derive(Clone, Debug)]
pub struct Job {
    pub ids: Vec<String>,
    pub duration: Vec<f64>,
    /// Predecessors of each task with the bytes of the object.
    pub preds: Vec<Vec<(u32, f64)>>,
    pub succs: Vec<Vec<u32>>,
    /// A topological order of the tasks.
    pub topo: Vec<u32>,
}

/// A validated data centre with dense switch and node ids.
#[derive(Clone, Debug)]
pub struct DataCentre {
    pub switch_ids: Vec<String>,
    pub parent: Vec<Option<u32>>,
    /// Bandwidth of each switch's link to its parent (infinite at the root).
    pub uplink: Vec<f64>,
    pub depth: Vec<u32>,
    pub children: Vec<Vec<u32>>,
    /// Compute nodes directly under each switch.
    pub switch_nodes: Vec<Vec<u32>>,
    pub root: u32,
    pub hosts: Vec<String>,
    pub node_switch: Vec<u32>,
    pub speed: Vec<f64>,
    /// Bandwidth of each node's own link (infinite when not given).
    pub node_bw: Vec<f64>,
}

/// One scheduled task: dense job, task and node ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub job: u32,
    pub task: u32,
    pub node: u32,
    pub start: f64,
    pub end: f64,
    /// End of the time slot the scheduler holds for the task: `end`, except
    /// under [`super::PlanOptions::as_printed`], where FISCH and BLIND keep
    /// the abstract slot (the block's longest task at the group's lowest
    /// power) and nothing else runs on the node before it ends.
    pub slot_end: f64,
}

fn parse<T: for<'de> Deserialize<'de>>(file: &str, text: &str) -> Result<T, DagError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        DagError::Json {
            file: file.to_string(),
            message: format!(
                "line {} column {}: field {path}: {inner}",
                inner.line(),
                inner.column()
            ),
        }
    })
}

fn bad_num(x: f64, lo_exclusive: bool, lo: f64, hi: f64) -> Option<String> {
    if !x.is_finite() {
        Some(format!("is {x}, not a finite number"))
    } else if (lo_exclusive && x <= lo) || (!lo_exclusive && x < lo) {
        Some(format!(
            "is {x}, must be {} {lo}",
            if lo_exclusive { ">" } else { ">=" }
        ))
    } else if x > hi {
        Some(format!("is {x}, more than the limit of {hi}"))
    } else {
        None
    }
}

impl Job {
    /// Parses and validates a job file; `file` names it in errors.
    pub fn from_json(file: &str, text: &str) -> Result<Job, DagError> {
        let f: JobFile = parse(file, text)?;
        Job::from_file(file, &f)
    }

    pub fn from_file(file: &str, f: &JobFile) -> Result<Job, DagError> {
        let err = |problem: String| DagError::Job {
            file: file.to_string(),
            problem,
        };
        if f.tasks.is_empty() {
            return Err(err("the job has no tasks (field \"tasks\" is empty)".into()));
        }
        if f.tasks.len() > MAX_TASKS {
            return Err(err(format!(
                "{} tasks, more than the limit of {MAX_TASKS}",
                f.tasks.len()
            )));
        }
        if f.edges.len() > MAX_EDGES {
            return Err(err(format!(
                "{} edges, more than the limit of {MAX_EDGES}",
                f.edges.len()
            )));
        }
        let mut index = HashMap::with_capacity(f.tasks.len());
        let mut ids = Vec::with_capacity(f.tasks.len());
        let mut duration = Vec::with_capacity(f.tasks.len());
        for t in &f.tasks {
            if index.insert(t.id.as_str(), ids.len() as u32).is_some() {
                return Err(err(format!("task {:?} appears twice", t.id)));
            }
            if let Some(p) = bad_num(t.duration, true, 0.0, MAX_DURATION) {
                return Err(err(format!("task {:?}: field \"duration\" {p}", t.id)));
            }
            ids.push(t.id.clone());
            duration.push(t.duration);
        }
        let n = ids.len();
        let mut preds: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for e in &f.edges {
            let from = *index.get(e.from.as_str()).ok_or_else(|| {
                err(format!(
                    "edge {:?} -> {:?}: task {:?} is not in \"tasks\"",
                    e.from, e.to, e.from
                ))
            })?;
            let to = *index.get(e.to.as_str()).ok_or_else(|| {
                err(format!(
                    "edge {:?} -> {:?}: task {:?} is not in \"tasks\"",
                    e.from, e.to, e.to
                ))
            })?;
            if from == to {
                return Err(err(format!(
                    "edge {:?} -> {:?} is a self-loop",
                    e.from, e.to
                )));
            }
            if let Some(p) = bad_num(e.bytes, false, 0.0, MAX_BYTES) {
                return Err(err(format!(
                    "edge {:?} -> {:?}: field \"bytes\" {p}",
                    e.from, e.to
                )));
            }
            succs[from as usize].push(to);
            preds[to as usize].push((from, e.bytes));
        }
        for (t, p) in preds.iter().enumerate() {
            let mut seen: Vec<u32> = p.iter().map(|&(q, _)| q).collect();
            seen.sort_unstable();
            if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                return Err(err(format!(
                    "edge {:?} -> {:?} appears twice",
                    ids[w[0] as usize], ids[t]
                )));
            }
        }
        // Kahn's algorithm; what is left over lies on or behind a cycle.
        let mut indeg: Vec<u32> = preds.iter().map(|p| p.len() as u32).collect();
        let mut topo: Vec<u32> = (0..n as u32).filter(|&t| indeg[t as usize] == 0).collect();
        let mut head = 0;
        while head < topo.len() {
            let t = topo[head] as usize;
            head += 1;
            for &s in &succs[t] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    topo.push(s);
                }
            }
        }
        if topo.len() < n {
            let t = (0..n).find(|&t| indeg[t] > 0).unwrap_or(0);
            return Err(err(format!(
                "the edges form a cycle through task {:?} (a job must be acyclic)",
                ids[t]
            )));
        }
        Ok(Job {
            ids,
            duration,
            preds,
            succs,
            topo,
        })
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Back to the file format.
    pub fn to_file(&self) -> JobFile {
        JobFile {
            tasks: self
                .ids
                .iter()
                .zip(&self.duration)
                .map(|(id, &duration)| TaskSpec {
                    id: id.clone(),
                    duration,
                })
                .collect(),
            edges: self
                .preds
                .iter()
                .enumerate()
                .flat_map(|(t, p)| {
                    p.iter().map(move |&(q, bytes)| EdgeSpec {
                        from: self.ids[q as usize].clone(),
                        to: self.ids[t].clone(),
                        bytes,
                    })
                })
                .collect(),
        }
    }

    /// Total work (seconds at speed 1).
    pub fn work(&self) -> f64 {
        self.duration.iter().sum()
    }
}

impl DataCentre {
    pub fn from_json(file: &str, text: &str) -> Result<DataCentre, DagError> {
        let f: DataCentreFile = parse(file, text)?;
        DataCentre::from_file(file, &f)
    }

    pub fn from_file(file: &str, f: &DataCentreFile) -> Result<DataCentre, DagError> {
        let err = |problem: String| DagError::DataCentre {
            file: file.to_string(),
            problem,
        };
        if f.switches.is_empty() {
            return Err(err("the data centre has no switches".into()));
        }
        if f.switches.len() > MAX_SWITCHES {
            return Err(err(format!(
                "{} switches, more than the limit of {MAX_SWITCHES}",
                f.switches.len()
            )));
        }
        if f.nodes.is_empty() {
            return Err(err(
                "the data centre has no nodes (field \"nodes\" is empty)".into(),
            ));
        }
        if f.nodes.len() > MAX_NODES {
            return Err(err(format!(
                "{} nodes, more than the limit of {MAX_NODES}",
                f.nodes.len()
            )));
        }
        let mut sindex = HashMap::with_capacity(f.switches.len());
        for (i, s) in f.switches.iter().enumerate() {
            if sindex.insert(s.id.as_str(), i as u32).is_some() {
                return Err(err(format!("switch {:?} appears twice", s.id)));
            }
        }
        let ns = f.switches.len();
        let mut parent = vec![None; ns];
        let mut uplink = vec![f64::INFINITY; ns];
        let mut root = None;
        for (i, s) in f.switches.iter().enumerate() {
            match &s.parent {
                None => {
                    if let Some(r) = root {
                        return Err(err(format!(
                            "switches {:?} and {:?} both have no parent; a tree has one root",
                            f.switches[r as usize].id, s.id
                        )));
                    }
                    if s.bandwidth.is_some() {
                        return Err(err(format!(
                            "switch {:?} is the root (no parent) but has a \"bandwidth\"; the root has no uplink",
                            s.id
                        )));
                    }
                    root = Some(i as u32);
                }
                Some(p) => {
                    let pi = *sindex.get(p.as_str()).ok_or_else(|| {
                        err(format!("switch {:?}: parent {p:?} is not a switch", s.id))
                    })?;
                    parent[i] = Some(pi);
                    let bw = s.bandwidth.ok_or_else(|| {
                        err(format!(
                            "switch {:?}: field \"bandwidth\" is missing (the link to parent {p:?})",
                            s.id
                        ))
                    })?;
                    if let Some(pb) = bad_num(bw, true, 0.0, f64::MAX) {
                        return Err(err(format!("switch {:?}: field \"bandwidth\" {pb}", s.id)));
                    }
                    uplink[i] = bw;
                }
            }
        }
        let root =
            root.ok_or_else(|| err("every switch has a parent: the switches form a cycle".into()))?;
        // Depths; a walk longer than the switch count is a cycle.
        let mut depth = vec![u32::MAX; ns];
        depth[root as usize] = 0;
        let mut chain = Vec::new();
        for i in 0..ns {
            chain.clear();
            let mut x = i as u32;
            while depth[x as usize] == u32::MAX {
                chain.push(x);
                if chain.len() > ns {
                    break;
                }
                match parent[x as usize] {
                    Some(p) => x = p,
                    None => break,
                }
            }
            if depth[x as usize] == u32::MAX {
                return Err(err(format!(
                    "switch {:?} does not lead to the root {:?}: the parents form a cycle",
                    f.switches[i].id, f.switches[root as usize].id
                )));
            }
            let mut d = depth[x as usize];
            for &c in chain.iter().rev() {
                d += 1;
                depth[c as usize] = d;
            }
        }
        if let Some(i) = depth.iter().position(|&d| d as usize > MAX_DEPTH) {
            return Err(err(format!(
                "switch {:?} is {} levels deep, more than the limit of {MAX_DEPTH}",
                f.switches[i].id, depth[i]
            )));
        }
        let mut children = vec![Vec::new(); ns];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p {
                children[*p as usize].push(i as u32);
            }
        }
        let mut hindex = HashMap::with_capacity(f.nodes.len());
        let mut switch_nodes = vec![Vec::new(); ns];
        let mut hosts = Vec::with_capacity(f.nodes.len());
        let mut node_switch = Vec::with_capacity(f.nodes.len());
        let mut speed = Vec::with_capacity(f.nodes.len());
        let mut node_bw = Vec::with_capacity(f.nodes.len());
        for (i, n) in f.nodes.iter().enumerate() {
            if hindex.insert(n.host.as_str(), i).is_some() {
                return Err(err(format!("host {:?} appears twice", n.host)));
            }
            let s = *sindex.get(n.switch.as_str()).ok_or_else(|| {
                err(format!(
                    "host {:?}: switch {:?} is not a switch",
                    n.host, n.switch
                ))
            })?;
            if let Some(p) = bad_num(n.speed, true, 0.0, MAX_SPEED) {
                return Err(err(format!("host {:?}: field \"speed\" {p}", n.host)));
            }
            let bw = match n.bandwidth {
                None => f64::INFINITY,
                Some(b) => {
                    if let Some(p) = bad_num(b, true, 0.0, f64::MAX) {
                        return Err(err(format!("host {:?}: field \"bandwidth\" {p}", n.host)));
                    }
                    b
                }
            };
            switch_nodes[s as usize].push(i as u32);
            hosts.push(n.host.clone());
            node_switch.push(s);
            speed.push(n.speed);
            node_bw.push(bw);
        }
        Ok(DataCentre {
            switch_ids: f.switches.iter().map(|s| s.id.clone()).collect(),
            parent,
            uplink,
            depth,
            children,
            switch_nodes,
            root,
            hosts,
            node_switch,
            speed,
            node_bw,
        })
    }

    pub fn to_file(&self) -> DataCentreFile {
        DataCentreFile {
            switches: (0..self.switch_ids.len())
                .map(|i| SwitchSpec {
                    id: self.switch_ids[i].clone(),
                    parent: self.parent[i].map(|p| self.switch_ids[p as usize].clone()),
                    bandwidth: self.parent[i].map(|_| self.uplink[i]),
                })
                .collect(),
            nodes: (0..self.hosts.len())
                .map(|i| NodeSpec {
                    host: self.hosts[i].clone(),
                    switch: self.switch_ids[self.node_switch[i] as usize].clone(),
                    speed: self.speed[i],
                    bandwidth: self.node_bw[i].is_finite().then_some(self.node_bw[i]),
                })
                .collect(),
        }
    }

    pub fn nodes(&self) -> usize {
        self.hosts.len()
    }

    /// Smallest bandwidth on the tree path between switches `x` and `y`
    /// (the uplinks below their lowest common ancestor).
    pub fn switch_path_bandwidth(&self, mut x: u32, mut y: u32) -> f64 {
        let mut m = f64::INFINITY;
        while self.depth[x as usize] > self.depth[y as usize] {
            m = m.min(self.uplink[x as usize]);
            x = self.parent[x as usize].unwrap_or(x);
        }
        while self.depth[y as usize] > self.depth[x as usize] {
            m = m.min(self.uplink[y as usize]);
            y = self.parent[y as usize].unwrap_or(y);
        }
        while x != y {
            m = m.min(self.uplink[x as usize]).min(self.uplink[y as usize]);
            x = self.parent[x as usize].unwrap_or(x);
            y = self.parent[y as usize].unwrap_or(y);
        }
        m
    }

    /// Smallest bandwidth on the tree path between two compute nodes
    /// (infinite for the same node).
    pub fn path_bandwidth(&self, a: u32, b: u32) -> f64 {
        if a == b {
            return f64::INFINITY;
        }
        let m = self.node_bw[a as usize].min(self.node_bw[b as usize]);
        m.min(
            self.switch_path_bandwidth(self.node_switch[a as usize], self.node_switch[b as usize]),
        )
    }

    /// Seconds to move `bytes` from node `a` to node `b` (0 on the same node).
    pub fn transfer(&self, a: u32, b: u32, bytes: f64) -> f64 {
        if a == b || bytes <= 0.0 {
            0.0
        } else {
            bytes / self.path_bandwidth(a, b)
        }
    }

    /// Total computing power.
    pub fn power(&self) -> f64 {
        self.speed.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn small_dc() -> DataCentre {
        let text = r#"{"switches":[{"id":"core"},{"id":"l1","parent":"core","bandwidth":100},
            {"id":"l2","parent":"core","bandwidth":50}],
            "nodes":[{"host":"a","switch":"l1","speed":1},{"host":"b","switch":"l1","speed":2,"bandwidth":400},
            {"host":"c","switch":"l2","speed":1}]}"#;
        DataCentre::from_json("dc.json", text).unwrap()
    }

    #[test]
    fn path_bandwidth_is_the_smallest_link_on_the_path() {
        let dc = small_dc();
        assert_eq!(dc.path_bandwidth(0, 0), f64::INFINITY);
        assert_eq!(dc.path_bandwidth(0, 1), 400.0);
        assert_eq!(dc.path_bandwidth(0, 2), 50.0);
        assert_eq!(dc.path_bandwidth(1, 2), 50.0);
        assert_eq!(dc.transfer(2, 0, 100.0), 2.0);
    }

    #[test]
    fn bad_jobs_name_the_task() {
        let e = Job::from_json("j.json", r#"{"tasks":[{"id":"a","duration":0}]}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("j.json: task \"a\": field \"duration\" is 0"),
            "{e}"
        );
        let e = Job::from_json(
            "j.json",
            r#"{"tasks":[{"id":"a","duration":1},{"id":"b","duration":1}],
               "edges":[{"from":"a","to":"b","bytes":1},{"from":"b","to":"a","bytes":1}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("cycle through task"), "{e}");
        let e = Job::from_json(
            "j.json",
            r#"{"tasks":[{"id":"a","duration":1}],"edges":[{"from":"a","to":"z","bytes":1}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("task \"z\" is not in"), "{e}");
        let e = Job::from_json("j.json", r#"{"tasks":[{"id":"a","duration":"x"}]}"#).unwrap_err();
        assert!(e.to_string().starts_with("j.json: line 1"), "{e}");
    }

    #[test]
    fn bad_data_centres_name_the_switch_or_host() {
        let e = DataCentre::from_json(
            "dc.json",
            r#"{"switches":[{"id":"a","parent":"b","bandwidth":1},{"id":"b","parent":"a","bandwidth":1}],
               "nodes":[{"host":"h","switch":"a","speed":1}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("cycle"), "{e}");
        let e = DataCentre::from_json(
            "dc.json",
            r#"{"switches":[{"id":"a"}],"nodes":[{"host":"h","switch":"x","speed":1}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("host \"h\": switch \"x\""), "{e}");
        let e = DataCentre::from_json(
            "dc.json",
            r#"{"switches":[{"id":"a"},{"id":"b","parent":"a"}],"nodes":[{"host":"h","switch":"b","speed":1}]}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("switch \"b\": field \"bandwidth\" is missing"),
            "{e}"
        );
    }

    #[test]
    fn round_trip() {
        let dc = small_dc();
        let again = DataCentre::from_file("x", &dc.to_file()).unwrap();
        assert_eq!(again.hosts, dc.hosts);
        assert_eq!(again.node_bw, dc.node_bw);
    }
}
