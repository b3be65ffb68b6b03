//! Reading a real Hadoop cluster for Spindle: configuration XML ([`conf`]),
//! rack topology ([`topology`]), HDFS block locations over WebHDFS
//! ([`webhdfs`]), and the offline inputs an administrator may have instead:
//! `hdfs fsck` output ([`fsck`]) and a job's split meta-info ([`splits`]).
//! All of them end as [`blocks::Block`]s, which [`blocks::to_instance`] turns
//! into the instance the planners take. (The ResourceManager plugin reads
//! running jobs' split files itself, with Hadoop's own FileSystem client.)

pub mod blocks;
pub mod conf;
#[doc(hidden)]
pub mod fake_namenode;
pub mod fsck;
pub mod input;
pub mod splits;
pub mod topology;
pub mod webhdfs;

pub use blocks::{to_instance, Block, BuildError, Replica};
pub use conf::{ConfError, Configuration, Settings};
pub use fsck::{parse_fsck, FsckError};
pub use splits::{parse_split_meta_info, splits_to_blocks, SplitError};
pub use topology::{Topology, TopologyError};
pub use webhdfs::{WebHdfs, WebHdfsError, WebHdfsOptions};
