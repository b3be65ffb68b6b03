//! Cluster, MapReduce and network parameters of a simulation. Defaults are
//! Hadoop's where Hadoop has one (named in the comments); the rest are
//! stated assumptions.

use spindle_core::policy::delay::LocalityDelay;
use spindle_core::session::{JobOrder, TaskChoice};
use spindle_core::{CostModel, PolicyKind, Resources};

/// How a non-local map reads its block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NetworkModel {
    /// A rack-local read runs at the node NIC's rate; an off-rack read shares
    /// the source and destination racks' uplinks with the off-rack reads
    /// running when it starts (its rate is fixed at start).
    RackUplink,
    /// BAR's model: remote read = local read + `q_ms * r`, r the remote reads
    /// running (this one included).
    Bar { q_ms: f64 },
    /// A remote read costs what a local one does: task durations do not
    /// depend on locality, as in Hadoop's Scheduler Load Simulator.
    Flat,
}

/// A node of a cluster given by name (from a trace or an SLS node file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedNode {
    pub host: String,
    /// Network location, `/rack` or `/dc/rack`.
    pub rack: String,
}

/// Host and rack names of a cluster's nodes, and each node's rack index.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub hosts: Vec<String>,
    pub racks: Vec<String>,
    pub node_rack: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    pub nodes: usize,
    pub racks: usize,
    /// Node capacity (yarn.nodemanager.resource.memory-mb / cpu-vcores).
    pub node_memory_mb: i64,
    pub node_vcores: i32,
    /// Container size of maps and reduces (mapreduce.map.memory.mb, 1024 in Hadoop).
    pub container_memory_mb: i64,
    pub container_vcores: i32,
    /// yarn.resourcemanager.nodemanagers.heartbeat-interval-ms.
    pub heartbeat_ms: u64,
    /// yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms.
    pub am_heartbeat_ms: u64,
    /// Random heartbeat phases (off: every node and AM beats at phase 0, for hand-checked tests).
    pub random_phase: bool,
    /// dfs.blocksize.
    pub block_size: u64,
    /// dfs.replication.
    pub replication: usize,
    /// JVM start-up of a container, uniform in this range.
    pub jvm_min_ms: u64,
    pub jvm_max_ms: u64,
    /// Task progress report interval (the MR task reporter's 3 s).
    pub progress_ms: u64,
    /// mapreduce.job.reduce.slowstart.completedmaps.
    pub slowstart: f64,
    /// Local (short-circuit) block read rate (assumption: 150 MB/s).
    pub disk_mb_s: f64,
    /// Node NIC rate (assumption: 1 Gbit/s, about 117 MB/s of payload).
    pub nic_mb_s: f64,
    /// Rack uplink rate (assumption: 10 Gbit/s, about 1170 MB/s, shared by the rack).
    pub rack_uplink_mb_s: f64,
    /// Reduce output write rate (assumption: replicated pipeline write, 60 MB/s).
    pub write_mb_s: f64,
    pub network: NetworkModel,
    /// Heterogeneous nodes: this fraction of the nodes (the first ones of
    /// each rack in turn) computes at `slow_speed` instead of 1.
    pub slow_fraction: f64,
    pub slow_speed: f64,
    /// Give the Session each job's exact block replicas (as the WebHDFS
    /// reader will); otherwise it sees only the asks.
    pub exact_blocks: bool,
    /// Record the Session event stream and grants (for replay tests).
    pub record_events: bool,
    /// Keep the Session's record of idle heartbeats for this job (its id)
    /// and hand it out with the run (`spindle simulate --explain`).
    pub explain: Option<String>,
    /// Modelled planning time (the RM plugin plans on a thread): a plan
    /// started at a heartbeat is used from `base + per million tasks`
    /// later. 0 and 0: plans are used at once.
    pub planning_base_ms: f64,
    pub planning_ms_per_million_tasks: f64,
    /// ASM1 inserts new located work between plans
    /// (`Session::set_incremental`); off: it waits for the next plan.
    pub incremental: bool,
    /// The Session's locality-wait cap (`SessionConfig::max_wait_ms`; negative: none).
    pub max_wait_ms: i64,
    /// The Session's application order (`SessionConfig::job_order`).
    pub job_order: JobOrder,
    /// Which task a grant of an exact pool books (`SessionConfig::task_choice`;
    /// the simulated AM is the MR AM either way).
    pub task_choice: TaskChoice,
    /// Keep a record per task (for tests and plots).
    pub record_tasks: bool,
    pub seed: u64,
    pub policy: PolicyKind,
    pub cost: CostModel,
    pub delay: LocalityDelay,
    /// Most nodes a simulation may have (`--max-nodes`).
    pub max_nodes: usize,
    /// Most maps and reduces in a workload (`--max-tasks`).
    pub max_tasks: usize,
    /// Nodes by name (a trace's or an SLS node file's); `None`: `nodes`
    /// nodes `node0001`... spread round-robin over `racks` racks `/rack0`...
    /// When set, `nodes` and `racks` must be its node and rack counts
    /// ([`SimConfig::set_topology`]).
    pub topology: Option<Vec<NamedNode>>,
}

/// Defaults of the size limits: no cluster comes near them, and a run at
/// the limit still fits in memory (a million nodes take about 0.5 GB).
pub const DEFAULT_MAX_NODES: usize = 1_000_000;
pub const DEFAULT_MAX_TASKS: usize = 10_000_000;
/// Most containers a node may hold (no NodeManager runs this many).
pub const MAX_SLOTS: u32 = 100_000;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            nodes: 100,
            racks: 4,
            node_memory_mb: 8192,
            node_vcores: 8,
            container_memory_mb: 1024,
            container_vcores: 1,
            heartbeat_ms: 1000,
            am_heartbeat_ms: 1000,
            random_phase: true,
            block_size: 128 << 20,
            replication: 3,
            jvm_min_ms: 1000,
            jvm_max_ms: 3000,
            progress_ms: 3000,
            slowstart: 0.05,
            disk_mb_s: 150.0,
            nic_mb_s: 117.0,
            rack_uplink_mb_s: 1170.0,
            write_mb_s: 60.0,
            network: NetworkModel::RackUplink,
            slow_fraction: 0.0,
            slow_speed: 0.5,
            exact_blocks: false,
            record_events: false,
            explain: None,
            planning_base_ms: 0.0,
            planning_ms_per_million_tasks: 0.0,
            incremental: false,
            max_wait_ms: spindle_core::session::DEFAULT_MAX_WAIT_MS,
            job_order: JobOrder::default(),
            task_choice: TaskChoice::default(),
            record_tasks: false,
            seed: 1,
            policy: PolicyKind::HadoopDefault,
            cost: CostModel::default(),
            delay: LocalityDelay::default(),
            max_nodes: DEFAULT_MAX_NODES,
            max_tasks: DEFAULT_MAX_TASKS,
            topology: None,
        }
    }
}

impl SimConfig {
    pub fn container(&self) -> Resources {
        Resources::new(self.container_memory_mb, self.container_vcores)
    }

    pub fn node_capacity(&self) -> Resources {
        Resources::new(self.node_memory_mb, self.node_vcores)
    }

    /// Containers a node holds at once.
    pub fn slots(&self) -> u32 {
        self.node_capacity().slots_of(&self.container())
    }

    /// Sets node capacity to `slots` containers of the configured size, at
    /// most [`MAX_SLOTS`] (beyond, the capacity overflowed YARN's 32-bit
    /// vcores and read "-1 vcores").
    pub fn set_slots(&mut self, slots: u32) -> Result<(), String> {
        if slots == 0 || slots > MAX_SLOTS {
            return Err(format!(
                "{slots} containers per node: must be from 1 to {MAX_SLOTS} (the simulator's limit)"
            ));
        }
        self.node_memory_mb = self
            .container_memory_mb
            .checked_mul(i64::from(slots))
            .ok_or_else(|| {
                format!(
                    "{slots} containers of {} MB overflow a node's memory",
                    self.container_memory_mb
                )
            })?;
        self.node_vcores = i32::try_from(slots)
            .ok()
            .and_then(|n| self.container_vcores.checked_mul(n))
            .ok_or_else(|| {
                format!(
                    "{slots} containers of {} vcores overflow a node's vcores",
                    self.container_vcores
                )
            })?;
        Ok(())
    }

    /// Relative compute speed of `node`.
    pub fn speed(&self, node: usize) -> f64 {
        let slow = (self.slow_fraction * self.nodes as f64).round() as usize;
        if node < slow {
            self.slow_speed
        } else {
            1.0
        }
    }

    pub fn host(&self, node: usize) -> String {
        match &self.topology {
            Some(t) => t[node].host.clone(),
            None => format!("node{:04}", node + 1),
        }
    }

    pub fn rack(&self, node: usize) -> String {
        match &self.topology {
            Some(t) => t[node].rack.clone(),
            None => format!("/rack{}", node % self.racks.max(1)),
        }
    }

    /// Uses `nodes` as the cluster (and sets `nodes` and `racks` from it).
    pub fn set_topology(&mut self, nodes: Vec<NamedNode>) {
        let racks: std::collections::HashSet<&str> =
            nodes.iter().map(|n| n.rack.as_str()).collect();
        self.racks = racks.len();
        self.nodes = nodes.len();
        self.topology = Some(nodes);
    }

    /// Every node's host and rack name, racks numbered in order of first
    /// appearance (round-robin without a topology: node i on rack i mod racks).
    pub fn layout(&self) -> Layout {
        match &self.topology {
            None => Layout {
                hosts: (0..self.nodes).map(|i| self.host(i)).collect(),
                racks: (0..self.racks).map(|r| format!("/rack{r}")).collect(),
                node_rack: (0..self.nodes)
                    .map(|i| (i % self.racks.max(1)) as u32)
                    .collect(),
            },
            Some(t) => {
                let mut index: std::collections::HashMap<&str, u32> = Default::default();
                let mut racks = Vec::new();
                let node_rack = t
                    .iter()
                    .map(|n| {
                        *index.entry(n.rack.as_str()).or_insert_with(|| {
                            racks.push(n.rack.clone());
                            (racks.len() - 1) as u32
                        })
                    })
                    .collect();
                Layout {
                    hosts: t.iter().map(|n| n.host.clone()).collect(),
                    racks,
                    node_rack,
                }
            }
        }
    }
}
