//! Input blocks, however they were read, turned into the planners' instance:
//! one task per block named `<file path>@<block offset>`, one node per
//! datanode host named in the locations.

use std::collections::HashMap;

use spindle_core::instance::{InstanceFile, NodeJson, TaskJson, DEFAULT_RACK};
use spindle_core::CostModel;

use crate::topology::{Topology, TopologyError};

/// One replica of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replica {
    /// Datanode host name (or address when the source gives no name).
    pub host: String,
    /// The rack the source reported, if any (NameNode topology path).
    pub rack: Option<String>,
    /// The datanode's IP address when the source gives it besides the name:
    /// Hadoop resolves racks by address (NetUtils.normalizeHostNames).
    pub address: Option<String>,
}

/// One block (or split) of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The task name: `<file>@<offset>` for HDFS blocks.
    pub task: String,
    pub length: u64,
    pub replicas: Vec<Replica>,
}

impl Block {
    pub fn new(file: &str, offset: u64, length: u64, replicas: Vec<Replica>) -> Block {
        Block {
            task: format!("{file}@{offset}"),
            length,
            replicas,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("no datanodes: none of the {blocks} blocks has a replica location")]
    NoDatanodes { blocks: usize },
    #[error(transparent)]
    Topology(#[from] TopologyError),
}

/// The rack in a NameNode topology path `/rack/ip:port` (or a bare `/rack`).
pub fn rack_of_topology_path(path: &str) -> Option<String> {
    let p = path.trim();
    if !p.starts_with('/') {
        return None;
    }
    let rack = match p.rfind('/') {
        Some(0) if p.contains(':') => return Some(DEFAULT_RACK.to_string()),
        Some(0) => p,
        Some(i) if p[i + 1..].contains(':') => &p[..i],
        _ => p,
    };
    Some(rack.to_string())
}

/// Builds the instance. Racks come from `topology` when given, else from the
/// replicas' reported racks, else the default rack. Blocks whose replicas are
/// all missing stay as tasks without local nodes. Every task has size 1 (a
/// map task per block, as the planners model it).
pub fn to_instance(
    blocks: &[Block],
    topology: Option<&Topology>,
    cost: CostModel,
) -> Result<InstanceFile, BuildError> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut hosts: Vec<String> = Vec::new();
    let mut reported: Vec<Option<String>> = Vec::new();
    let mut addresses: Vec<Option<String>> = Vec::new();
    for b in blocks {
        for r in &b.replicas {
            let i = *index.entry(&r.host).or_insert_with(|| {
                hosts.push(r.host.clone());
                reported.push(None);
                addresses.push(None);
                hosts.len() - 1
            });
            if reported[i].is_none() {
                reported[i] = r.rack.clone();
            }
            if addresses[i].is_none() {
                addresses[i] = r.address.clone();
            }
        }
    }
    if hosts.is_empty() {
        return Err(BuildError::NoDatanodes {
            blocks: blocks.len(),
        });
    }
    let racks: Vec<String> = match topology {
        Some(t) => t.resolve_nodes(&hosts, &addresses)?,
        None => reported
            .into_iter()
            .map(|r| r.unwrap_or_else(|| DEFAULT_RACK.to_string()))
            .collect(),
    };
    let nodes = hosts
        .iter()
        .zip(racks)
        .map(|(h, rack)| NodeJson {
            host: h.clone(),
            rack,
            speed: 1.0,
            slots: 1,
            initial_load: 0.0,
        })
        .collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut tasks = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut replicas: Vec<String> = Vec::with_capacity(b.replicas.len());
        let mut listed = std::collections::HashSet::new();
        for r in &b.replicas {
            // A set, not a scan: a hostile source may list thousands.
            if listed.insert(r.host.as_str()) {
                replicas.push(r.host.clone());
            }
        }
        // Task names must be unique; a repeated block (a file listed twice)
        // gets a suffix rather than failing the whole plan.
        let n = seen.entry(&b.task).or_insert(0);
        *n += 1;
        let id = if *n == 1 {
            b.task.clone()
        } else {
            format!("{}#{}", b.task, n)
        };
        tasks.push(TaskJson {
            id,
            replicas,
            size: 1.0,
        });
    }
    Ok(InstanceFile {
        nodes,
        tasks,
        jobs: Vec::new(),
        cost,
    })
}

/// Each block's replica hosts, in block order: the task list of the
/// Session's `set_input_blocks` (the `input_blocks` event).
pub fn replica_hosts(blocks: &[Block]) -> Vec<Vec<String>> {
    blocks
        .iter()
        .map(|b| b.replicas.iter().map(|r| r.host.clone()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(h: &str, r: Option<&str>) -> Replica {
        Replica {
            address: None,
            host: h.into(),
            rack: r.map(String::from),
        }
    }

    #[test]
    fn topology_paths() {
        assert_eq!(
            rack_of_topology_path("/r1/10.0.0.1:9866").as_deref(),
            Some("/r1")
        );
        assert_eq!(
            rack_of_topology_path("/dc/r1/10.0.0.1:9866").as_deref(),
            Some("/dc/r1")
        );
        assert_eq!(
            rack_of_topology_path("/10.0.0.1:9866").as_deref(),
            Some(DEFAULT_RACK)
        );
        assert_eq!(rack_of_topology_path("/r2").as_deref(), Some("/r2"));
        assert_eq!(rack_of_topology_path("junk"), None);
    }

    #[test]
    fn builds_nodes_tasks_and_racks() {
        let blocks = vec![
            Block::new(
                "/in/a",
                0,
                10,
                vec![rep("dn1", Some("/r1")), rep("dn2", None)],
            ),
            Block::new(
                "/in/a",
                10,
                5,
                vec![rep("dn2", Some("/r2")), rep("dn2", None)],
            ),
            Block::new("/in/b", 0, 5, vec![]),
        ];
        let f = to_instance(&blocks, None, CostModel::default()).unwrap();
        let hosts: Vec<_> = f
            .nodes
            .iter()
            .map(|n| (n.host.as_str(), n.rack.as_str()))
            .collect();
        assert_eq!(hosts, vec![("dn1", "/r1"), ("dn2", "/r2")]);
        let tasks: Vec<_> = f
            .tasks
            .iter()
            .map(|t| (t.id.as_str(), t.replicas.len()))
            .collect();
        assert_eq!(tasks, vec![("/in/a@0", 2), ("/in/a@10", 1), ("/in/b@0", 0)]);
        let inst = spindle_core::Instance::from_file(f).unwrap();
        assert_eq!(inst.problem.num_tasks(), 3);

        let table = Topology::Table([("dn1".to_string(), "/x".to_string())].into());
        let f = to_instance(&blocks, Some(&table), CostModel::default()).unwrap();
        assert_eq!(f.nodes[0].rack, "/x");
        assert_eq!(f.nodes[1].rack, DEFAULT_RACK);
    }

    #[test]
    fn feeds_the_session() {
        use spindle_core::{Resources, Session, SessionConfig};
        let blocks = vec![
            Block::new(
                "/in/a",
                0,
                10,
                vec![rep("dn1", Some("/r1")), rep("dn2", None)],
            ),
            Block::new("/in/a", 10, 5, vec![rep("dn9", None)]),
        ];
        let hosts = replica_hosts(&blocks);
        assert_eq!(hosts, vec![vec!["dn1", "dn2"], vec!["dn9"]]);
        let mut s = Session::new(SessionConfig::default());
        for h in ["dn1", "dn2"] {
            s.add_node(h, "/r1", Resources::new(4096, 4), 1.0).unwrap();
        }
        let app = s.add_app("application_1_0001", 1.0, 0).unwrap();
        s.set_input_blocks(app, 20, &hosts).unwrap();
        assert!(s.set_input_blocks(app + 1, 20, &hosts).is_err());
    }

    #[test]
    fn no_locations_is_an_error() {
        let blocks = vec![Block::new("/in/a", 0, 10, vec![])];
        let e = to_instance(&blocks, None, CostModel::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no datanodes: none of the 1 blocks has a replica location"
        );
    }
}
