//! The instance file (JSON) and its validation into a dense [`Problem`].
//!
//! ```json
//! {"nodes": [{"host": "dn0001", "rack": "/rack0", "speed": 1.0, "slots": 1, "initial_load": 0.0}],
//!  "tasks": [{"id": "t000001", "replicas": ["dn0001", "dn0007", "dn0009"], "size": 1.0}],
//!  "jobs":  [{"id": "job_1", "weight": 1.0, "release": 0.0, "after": [], "tasks": []}],
//!  "cost":  {"local": 1.0, "remote": 3.0, "remote_growth": 0.0}}
//! ```
//! `speed`, `slots`, `initial_load`, `size`, `cost` and `jobs` are optional;
//! top-level `tasks` form one job. Unknown fields are ignored so that later
//! versions can add some.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::CoreError;
use crate::model::{Bipartite, CostModel, Csr, NodeId, Problem};
use crate::plan::{Assignment, Metrics};

/// The magnitudes an instance may hold, as `(least, greatest)`. Beyond them
/// the planners' arithmetic (size x cost / speed, summed over millions of
/// tasks, compared at a resolution of one local task) overflows or loses all
/// precision, and a planner whose loop steps by one unit of work would take
/// for ever; no cluster comes near them. Speeds are relative (1 = a typical
/// node), sizes in blocks, loads and costs in local unit tasks.
pub mod limits {
    /// `nodes[].speed`.
    pub const SPEED: (f64, f64) = (1e-6, 1e6);
    /// `tasks[].size`.
    pub const SIZE: (f64, f64) = (1e-9, 1e9);
    /// `nodes[].initial_load`.
    pub const INITIAL_LOAD: (f64, f64) = (0.0, 1e12);
    /// `cost.local`, `cost.remote`, `cost.remote_growth`.
    pub const COST: (f64, f64) = (0.0, 1e9);
    /// `jobs[].weight`.
    pub const WEIGHT: (f64, f64) = (1e-9, 1e9);
    /// `jobs[].release`.
    pub const RELEASE: (f64, f64) = (0.0, 1e12);
    /// Hosts in one `tasks[].replicas` (HDFS's `dfs.replication.max`).
    pub const REPLICAS: usize = 512;
    /// Nodes, tasks, and replica entries in all: the dense ids are 32-bit.
    pub const COUNT: usize = (u32::MAX - 1) as usize;
    pub const EDGES: usize = (u32::MAX / 2) as usize;

    /// `Ok` when `v` is finite and within `range`, else the problem in words.
    pub fn check(v: f64, range: (f64, f64)) -> Result<(), String> {
        if v.is_finite() && v >= range.0 && v <= range.1 {
            Ok(())
        } else {
            Err(format!(
                "must be a number from {} to {} (the instance limits), got {}",
                sci(range.0),
                sci(range.1),
                show(v)
            ))
        }
    }

    /// A value as a reader wants it: `1e-320` rather than 320 digits.
    pub fn show(v: f64) -> String {
        if v != 0.0 && v.is_finite() && !(1e-4..1e15).contains(&v.abs()) {
            format!("{v:e}")
        } else {
            format!("{v}")
        }
    }

    /// `1e-6`, `1e12`, `0`.
    fn sci(x: f64) -> String {
        if x == 0.0 {
            "0".into()
        } else {
            format!("{x:e}")
        }
    }
}

/// Rack of a node whose rack is not given (Hadoop's `NetworkTopology.DEFAULT_RACK`).
pub const DEFAULT_RACK: &str = "/default-rack";

fn one() -> f64 {
    1.0
}
fn one_u32() -> u32 {
    1
}
fn default_rack() -> String {
    DEFAULT_RACK.to_string()
}
fn is_empty<T>(v: &[T]) -> bool {
    v.is_empty()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeJson {
    pub host: String,
    #[serde(default = "default_rack")]
    pub rack: String,
    #[serde(default = "one")]
    pub speed: f64,
    #[serde(default = "one_u32")]
    pub slots: u32,
    #[serde(default)]
    pub initial_load: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskJson {
    pub id: String,
    pub replicas: Vec<String>,
    #[serde(default = "one")]
    pub size: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobJson {
    pub id: String,
    #[serde(default = "one")]
    pub weight: f64,
    #[serde(default)]
    pub release: f64,
    #[serde(default)]
    pub after: Vec<String>,
    #[serde(default)]
    pub tasks: Vec<TaskJson>,
}

/// The instance file as written on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceFile {
    pub nodes: Vec<NodeJson>,
    #[serde(default, skip_serializing_if = "is_empty")]
    pub tasks: Vec<TaskJson>,
    #[serde(default, skip_serializing_if = "is_empty")]
    pub jobs: Vec<JobJson>,
    #[serde(default)]
    pub cost: CostModel,
}

/// A job of a validated instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: String,
    pub weight: f64,
    pub release: f64,
    /// Indices of predecessor jobs.
    pub after: Vec<u32>,
}

/// A validated instance: the dense problem plus the names at its edges.
#[derive(Clone, Debug)]
pub struct Instance {
    pub hosts: Vec<String>,
    pub racks: Vec<String>,
    pub task_ids: Vec<String>,
    /// Job index of each task.
    pub task_job: Vec<u32>,
    pub jobs: Vec<Job>,
    pub problem: Problem,
}

/// Name of the implicit job that holds the top-level `tasks`.
pub const DEFAULT_JOB: &str = "job_default";

impl Instance {
    /// Parses and validates an instance; errors name the field that is wrong.
    pub fn from_json(text: &str) -> Result<Instance, CoreError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let file: InstanceFile =
            serde_path_to_error::deserialize(&mut *de).map_err(CoreError::json)?;
        // Anything but white space after the object is an error, not ignored.
        de.end().map_err(CoreError::json_end)?;
        Instance::from_file(file)
    }

    pub fn from_file(file: InstanceFile) -> Result<Instance, CoreError> {
        let InstanceFile {
            nodes,
            tasks,
            jobs,
            cost,
        } = file;
        if nodes.is_empty() {
            return Err(CoreError::NoNodes);
        }
        let task_count = tasks.len() + jobs.iter().map(|j| j.tasks.len()).sum::<usize>();
        let edges = tasks
            .iter()
            .chain(jobs.iter().flat_map(|j| &j.tasks))
            .map(|t| t.replicas.len())
            .sum::<usize>();
        for (what, count, limit) in [
            ("nodes", nodes.len(), limits::COUNT),
            ("tasks", task_count, limits::COUNT),
            ("replica entries", edges, limits::EDGES),
        ] {
            if count > limit {
                return Err(CoreError::TooMany { what, count, limit });
            }
        }
        for (field, value) in [
            ("local", cost.local),
            ("remote", cost.remote),
            ("remote_growth", cost.remote_growth),
        ] {
            limits::check(value, limits::COST)
                .map_err(|problem| CoreError::BadCost { field, problem })?;
        }
        let mut host_index: HashMap<&str, NodeId> = HashMap::new();
        let mut rack_index: HashMap<&str, u32> = HashMap::new();
        let mut racks: Vec<String> = Vec::new();
        let mut problem = Problem {
            cost,
            ..Problem::default()
        };
        for (index, n) in nodes.iter().enumerate() {
            let bad = |field: &'static str, problem: String| CoreError::BadNodeField {
                index,
                host: n.host.clone(),
                field,
                problem,
            };
            if n.host.is_empty() {
                return Err(bad("host", "must not be empty".into()));
            }
            limits::check(n.speed, limits::SPEED).map_err(|p| bad("speed", p))?;
            if n.slots == 0 {
                return Err(bad("slots", "must be at least 1, got 0".into()));
            }
            limits::check(n.initial_load, limits::INITIAL_LOAD)
                .map_err(|p| bad("initial_load", p))?;
            if host_index.insert(&n.host, index as NodeId).is_some() {
                return Err(CoreError::DuplicateNode {
                    index,
                    host: n.host.clone(),
                });
            }
            let next = racks.len() as u32;
            let rack = *rack_index.entry(&n.rack).or_insert_with(|| {
                racks.push(n.rack.clone());
                next
            });
            problem.node_speed.push(n.speed);
            problem.node_slots.push(n.slots);
            problem.node_load.push(n.initial_load);
            problem.node_rack.push(rack);
        }

        // Top-level tasks form one job placed before the listed ones.
        let mut all_jobs: Vec<JobJson> = Vec::new();
        if !tasks.is_empty() || jobs.is_empty() {
            all_jobs.push(JobJson {
                id: DEFAULT_JOB.to_string(),
                weight: 1.0,
                release: 0.0,
                after: Vec::new(),
                tasks,
            });
        }
        all_jobs.extend(jobs);
        let mut job_index: HashMap<&str, u32> = HashMap::new();
        for (i, j) in all_jobs.iter().enumerate() {
            if job_index.insert(&j.id, i as u32).is_some() {
                return Err(CoreError::DuplicateJob { job: j.id.clone() });
            }
        }
        let mut out_jobs = Vec::with_capacity(all_jobs.len());
        let mut task_ids = Vec::new();
        let mut task_job = Vec::new();
        let mut rows: Vec<Vec<NodeId>> = Vec::new();
        let mut seen_tasks: HashMap<&str, ()> = HashMap::new();
        let mut listed_by: Vec<u32> = vec![0; nodes.len()];
        for (ji, j) in all_jobs.iter().enumerate() {
            let bad = |field: &'static str, problem: String| CoreError::BadJobField {
                job: j.id.clone(),
                field,
                problem,
            };
            limits::check(j.weight, limits::WEIGHT).map_err(|p| bad("weight", p))?;
            limits::check(j.release, limits::RELEASE).map_err(|p| bad("release", p))?;
            let mut after = Vec::with_capacity(j.after.len());
            for a in &j.after {
                match job_index.get(a.as_str()) {
                    Some(&k) if k as usize != ji => after.push(k),
                    Some(_) => return Err(bad("after", "names the job itself".into())),
                    None => {
                        return Err(CoreError::UnknownPredecessor {
                            job: j.id.clone(),
                            after: a.clone(),
                        })
                    }
                }
            }
            for t in &j.tasks {
                limits::check(t.size, limits::SIZE).map_err(|problem| CoreError::BadTaskSize {
                    task: t.id.clone(),
                    problem,
                })?;
                if seen_tasks.insert(t.id.as_str(), ()).is_some() {
                    return Err(CoreError::DuplicateTask { task: t.id.clone() });
                }
                if t.replicas.len() > limits::REPLICAS {
                    return Err(CoreError::TooManyReplicas {
                        task: t.id.clone(),
                        count: t.replicas.len(),
                        limit: limits::REPLICAS,
                    });
                }
                let mut row = Vec::with_capacity(t.replicas.len());
                let stamp = rows.len() as u32 + 1;
                for h in &t.replicas {
                    let Some(&n) = host_index.get(h.as_str()) else {
                        return Err(CoreError::UnknownReplicaHost {
                            task: t.id.clone(),
                            host: h.clone(),
                        });
                    };
                    // A stamp per node, not a scan of the row: a task may
                    // list every node.
                    if std::mem::replace(&mut listed_by[n as usize], stamp) == stamp {
                        return Err(CoreError::DuplicateReplica {
                            task: t.id.clone(),
                            host: h.clone(),
                        });
                    }
                    row.push(n);
                }
                rows.push(row);
                task_ids.push(t.id.clone());
                task_job.push(ji as u32);
                problem.task_size.push(t.size);
            }
            out_jobs.push(Job {
                id: j.id.clone(),
                weight: j.weight,
                release: j.release,
                after,
            });
        }
        problem.graph = Bipartite::new(nodes.len(), Csr::from_rows(rows));
        Ok(Instance {
            hosts: nodes.into_iter().map(|n| n.host).collect(),
            racks,
            task_ids,
            task_job,
            jobs: out_jobs,
            problem,
        })
    }

    /// The plan in its JSON shape, with task and node names.
    pub fn report(&self, policy: &str, a: &Assignment, metrics: Metrics) -> PlanReport {
        let assignment = a
            .node_of
            .iter()
            .enumerate()
            .map(|(t, &n)| AssignmentRow {
                task: self.task_ids[t].clone(),
                node: self.hosts[n as usize].clone(),
                locality: self.problem.locality(t as u32, n).as_str(),
            })
            .collect();
        let queues = (0..a.queues.rows())
            .filter(|&n| a.queues.degree(n) > 0)
            .map(|n| {
                let names = a
                    .queues
                    .row(n)
                    .iter()
                    .map(|&t| self.task_ids[t as usize].clone());
                (self.hosts[n].clone(), names.collect())
            })
            .collect();
        PlanReport {
            policy: policy.to_string(),
            assignment,
            queues,
            metrics,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AssignmentRow {
    pub task: String,
    pub node: String,
    pub locality: &'static str,
}

/// The plan output (JSON).
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    pub policy: String,
    pub assignment: Vec<AssignmentRow>,
    /// Per node (by host, sorted), its tasks in the order it runs them.
    pub queues: std::collections::BTreeMap<String, Vec<String>>,
    pub metrics: Metrics,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Instance::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn minimal_instance_takes_defaults() {
        let i = Instance::from_json(
            r#"{"nodes":[{"host":"a"},{"host":"b","rack":"/r1"}],
                "tasks":[{"id":"t1","replicas":["b"]},{"id":"t2","replicas":[]}]}"#,
        )
        .unwrap();
        assert_eq!(i.racks, vec!["/default-rack", "/r1"]);
        assert_eq!(i.problem.node_speed, vec![1.0, 1.0]);
        assert_eq!(i.problem.node_slots, vec![1, 1]);
        assert_eq!(i.problem.task_size, vec![1.0, 1.0]);
        assert_eq!(i.problem.cost, CostModel::default());
        assert_eq!(i.problem.replicas(0), &[1]);
        assert_eq!(i.jobs.len(), 1);
        assert_eq!(i.jobs[0].id, DEFAULT_JOB);
    }

    #[test]
    fn jobs_with_predecessors() {
        let i = Instance::from_json(
            r#"{"nodes":[{"host":"a"}],
                "jobs":[{"id":"j1","tasks":[{"id":"x","replicas":["a"]}]},
                        {"id":"j2","weight":2,"release":5,"after":["j1"],"tasks":[{"id":"y","replicas":["a"]}]}]}"#,
        )
        .unwrap();
        assert_eq!(i.jobs.len(), 2);
        assert_eq!(i.jobs[1].after, vec![0]);
        assert_eq!(i.task_job, vec![0, 1]);
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(
            err(r#"{"nodes":[{"host":"a","speed":"fast"}]}"#),
            "field nodes[0].speed: invalid type: string \"fast\", expected f64 at line 1 column 36"
        );
        assert!(
            err(r#"{"nodes":[{"rack":"/r"}]}"#).starts_with("field nodes[0]: missing field `host`")
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t9","replicas":["zz"]}]}"#),
            "task \"t9\" names replica host \"zz\", which is not in \"nodes\""
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a","speed":0}]}"#),
            "nodes[0] (host \"a\"): field \"speed\" must be a number from 1e-6 to 1e6 (the instance limits), got 0"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a","slots":0}]}"#),
            "nodes[0] (host \"a\"): field \"slots\" must be at least 1, got 0"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a","initial_load":-1}]}"#),
            "nodes[0] (host \"a\"): field \"initial_load\" must be a number from 0 to 1e12 (the instance limits), got -1"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"},{"host":"a"}]}"#),
            "nodes[1]: host \"a\" appears twice"
        );
        assert_eq!(
            err(r#"{"nodes":[]}"#),
            "instance has no nodes (field \"nodes\" is empty)"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t","replicas":["a"],"size":0}]}"#),
            "task \"t\": field \"size\" must be a number from 1e-9 to 1e9 (the instance limits), got 0"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t","replicas":["a","a"]}]}"#),
            "task \"t\" lists replica host \"a\" twice"
        );
        assert_eq!(
            err(
                r#"{"nodes":[{"host":"a"}],"tasks":[{"id":"t","replicas":[]},{"id":"t","replicas":[]}]}"#
            ),
            "task \"t\" appears twice"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"cost":{"remote":-2}}"#),
            "cost: field \"remote\" must be a number from 0 to 1e9 (the instance limits), got -2"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"jobs":[{"id":"j","after":["k"]}]}"#),
            "job \"j\": field \"after\" names \"k\", which is not a job id"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"jobs":[{"id":"j","weight":0}]}"#),
            "job \"j\": field \"weight\" must be a number from 1e-9 to 1e9 (the instance limits), got 0"
        );
        assert_eq!(
            err(r#"{"nodes":[{"host":"a"}],"jobs":[{"id":"j"},{"id":"j"}]}"#),
            "job \"j\" appears twice"
        );
        assert_eq!(err("{"), "EOF while parsing an object at line 1 column 1");
        assert_eq!(
            err("{\"nodes\":[{\"host\":\"a\"}]} garbage"),
            "after the instance object: trailing characters at line 1 column 26"
        );
        assert!(Instance::from_json("{\"nodes\":[{\"host\":\"a\"}]}\n\n").is_ok());
    }
}
