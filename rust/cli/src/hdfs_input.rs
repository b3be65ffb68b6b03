//! `spindle plan` inputs read from a Hadoop cluster: WebHDFS block locations,
//! an `hdfs fsck` dump or a job's `job.splitmetainfo`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use spindle_core::Instance;
use spindle_hadoop::conf::{keys, Configuration, Settings};
use spindle_hadoop::input::{read_bounded, read_text_bounded};
use spindle_hadoop::webhdfs::{fetch_input_blocks, WebHdfsOptions};
use spindle_hadoop::{parse_fsck, parse_split_meta_info, splits_to_blocks, to_instance, Topology};

/// Environment variable holding a WebHDFS delegation token (kept off the
/// command line, where `ps` would show it).
pub const TOKEN_ENV: &str = "SPINDLE_DELEGATION_TOKEN";

#[derive(Args, Default)]
pub struct HdfsArgs {
    /// WebHDFS address(es) of the NameNode(s), comma-separated, tried in order
    /// (e.g. http://nn1:9870,http://nn2:9870). Default with --path: from
    /// --conf-dir (spindle.webhdfs.address, else dfs.namenode.http-address).
    #[arg(long, value_name = "URL", value_delimiter = ',', conflicts_with_all = ["input", "fsck", "splits"])]
    pub webhdfs: Vec<String>,
    /// HDFS input path (a file, or a directory read recursively) for --webhdfs.
    #[arg(long, value_name = "HDFS_PATH")]
    pub path: Option<String>,
    /// Output of `hdfs fsck <path> -files -blocks -locations`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input", "splits", "path"])]
    pub fsck: Option<PathBuf>,
    /// A MapReduce job's job.splitmetainfo file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input", "path"])]
    pub splits: Option<PathBuf>,
    /// Hadoop configuration directory (core-site.xml, hdfs-site.xml, yarn-site.xml, spindle-site.xml).
    #[arg(long, value_name = "DIR")]
    pub conf_dir: Option<PathBuf>,
    /// Rack table file (`host rack` per line); overrides the configured topology.
    #[arg(long, value_name = "FILE")]
    pub topology: Option<PathBuf>,
    /// WebHDFS user.name (default: $USER). A delegation token is read from $SPINDLE_DELEGATION_TOKEN.
    #[arg(long)]
    pub user: Option<String>,
}

/// An instance read from the cluster, with its settings.
pub struct ClusterInput {
    pub instance: Instance,
    pub settings: Settings,
    /// What it was read from, for the table header.
    pub source: String,
}

impl HdfsArgs {
    pub fn given(&self) -> bool {
        !self.webhdfs.is_empty()
            || self.path.is_some()
            || self.fsck.is_some()
            || self.splits.is_some()
    }
}

/// Reads the instance the arguments name; `None` when none of the cluster
/// inputs is given.
pub fn load(a: &HdfsArgs, limits: &crate::Limits) -> Result<Option<ClusterInput>> {
    if !a.given() {
        return Ok(None);
    }
    let conf = match &a.conf_dir {
        Some(d) => Configuration::load_dir(d)
            .with_context(|| format!("reading the Hadoop configuration in {}", d.display()))?,
        None => Configuration::with_defaults(),
    };
    for w in conf.warnings() {
        tracing::warn!("{w}");
    }
    let settings = Settings::from_conf(&conf).context("Hadoop configuration")?;
    // An explicit table wins; else the configured table or script; else the
    // racks the source reports.
    let topology = match &a.topology {
        Some(t) => Some(Topology::table_file(t)?),
        None if settings.topology_table.is_some() || settings.topology_script.is_some() => {
            Some(Topology::from_settings(&settings)?)
        }
        None => None,
    };
    // Local files are size-checked before they are read.
    let (blocks, source) = if let Some(f) = &a.fsck {
        let text = read_text_bounded(
            f,
            limits.max_input_bytes,
            "fsck output",
            "--max-input-bytes",
        )?;
        let b = parse_fsck(&text).with_context(|| format!("fsck output {}", f.display()))?;
        (b, format!("fsck {}", f.display()))
    } else if let Some(f) = &a.splits {
        // Hadoop's own limit on the file, unless set to -1 (none).
        let (limit, name) = match settings.split_metainfo_maxsize {
            Some(n) => (n, keys::SPLIT_METAINFO_MAXSIZE),
            None => (limits.max_input_bytes, "--max-input-bytes"),
        };
        let bytes = read_bounded(f, limit, "split file", name)?;
        let s =
            parse_split_meta_info(&bytes).with_context(|| format!("split file {}", f.display()))?;
        (splits_to_blocks(&s), format!("splits {}", f.display()))
    } else {
        let Some(path) = &a.path else {
            bail!("--webhdfs needs --path (the HDFS input file or directory)");
        };
        let namenodes = if a.webhdfs.is_empty() {
            settings.webhdfs.clone()
        } else {
            a.webhdfs.clone()
        };
        let opts = WebHdfsOptions {
            namenodes: namenodes.clone(),
            user: a.user.clone().or_else(|| std::env::var("USER").ok()),
            delegation: std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()),
            connect_timeout: settings.webhdfs_connect_timeout,
            read_timeout: settings.webhdfs_read_timeout,
            retries: 3,
            backoff: Duration::from_millis(200),
            concurrency: 16,
            max_response: settings.webhdfs_max_response,
            max_depth: settings.webhdfs_max_depth,
            max_files: settings.webhdfs_max_files,
            max_blocks: limits.max_tasks,
        };
        let b = fetch_input_blocks(opts, path).context("reading block locations over WebHDFS")?;
        (b, format!("{} on {}", path, namenodes.join(",")))
    };
    if blocks.len() > limits.max_tasks {
        bail!(
            "{source}: {} blocks is more than the limit of {} tasks (--max-tasks)",
            blocks.len(),
            limits.max_tasks
        );
    }
    let file = to_instance(&blocks, topology.as_ref(), settings.cost)
        .with_context(|| format!("building the instance from {source}"))?;
    if file.nodes.len() > limits.max_nodes {
        bail!(
            "{source}: {} datanodes is more than the limit of {} nodes (--max-nodes)",
            file.nodes.len(),
            limits.max_nodes
        );
    }
    let instance = Instance::from_file(file).with_context(|| format!("instance from {source}"))?;
    Ok(Some(ClusterInput {
        instance,
        settings,
        source,
    }))
}
