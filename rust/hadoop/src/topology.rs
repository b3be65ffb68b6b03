//! Rack topology as Hadoop resolves it: `TableMapping` (a file of
//! `host rack` lines), `ScriptBasedMapping` (a script run with batches of host
//! names, one rack printed per host) and the default rack.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub use spindle_core::instance::DEFAULT_RACK;

#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("topology table {file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("topology script {script}: cannot run: {source}")]
    Spawn {
        script: String,
        source: std::io::Error,
    },
    #[error("topology script {script} exited with {status} for hosts {hosts}")]
    Failed {
        script: String,
        status: String,
        hosts: String,
    },
    #[error("topology script {script} printed {got} racks for {want} hosts ({hosts})")]
    Count {
        script: String,
        got: usize,
        want: usize,
        hosts: String,
    },
    #[error("topology script {script}: {what} after {elapsed_ms} ms, past the {limit_ms} ms limit ({TIMEOUT_KEY}), for hosts {hosts}; killed")]
    Timeout {
        script: String,
        /// "still running", or "exited, but its output stayed open".
        what: &'static str,
        elapsed_ms: u128,
        limit_ms: u128,
        hosts: String,
    },
    #[error(transparent)]
    Input(crate::input::InputError),
    #[error("topology script {script} printed more than {limit} bytes ({MAX_OUTPUT_KEY}) for hosts {hosts}; killed")]
    TooMuchOutput {
        script: String,
        limit: usize,
        hosts: String,
    },
}

/// Largest topology table read: a million hosts take about 40 MB.
pub const MAX_TABLE_BYTES: u64 = 256 << 20;

/// The settings that bound a topology script run.
pub const TIMEOUT_KEY: &str = crate::conf::keys::TOPOLOGY_SCRIPT_TIMEOUT;
pub const MAX_OUTPUT_KEY: &str = crate::conf::keys::TOPOLOGY_SCRIPT_MAX_OUTPUT;
/// Their defaults: one batch of 100 hosts resolves in milliseconds and
/// prints a few kilobytes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// Limits of one script run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptLimits {
    pub timeout: Duration,
    pub max_output: usize,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            timeout: DEFAULT_TIMEOUT,
            max_output: DEFAULT_MAX_OUTPUT,
        }
    }
}

/// How host names map to racks.
#[derive(Clone, Debug, Default)]
pub enum Topology {
    /// Every host on [`DEFAULT_RACK`].
    #[default]
    Flat,
    /// A table (hosts not in it are on the default rack).
    Table(HashMap<String, String>),
    /// A script run with at most `max_args` hosts at a time.
    Script {
        script: PathBuf,
        max_args: usize,
        limits: ScriptLimits,
    },
}

/// Parses a table file's text like `TableMapping.load`: trimmed lines,
/// blank lines and `#` comments skipped, lines that are not exactly two
/// whitespace-separated columns ignored (Hadoop warns and goes on); returns
/// the table and the 1-based numbers of the ignored lines.
pub fn parse_table(text: &str) -> (HashMap<String, String>, Vec<usize>) {
    let mut map = HashMap::new();
    let mut ignored = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        if let [host, rack] = cols[..] {
            map.insert(host.to_string(), rack.to_string());
        } else {
            ignored.push(i + 1);
        }
    }
    (map, ignored)
}

impl Topology {
    /// Reads a table file (at most [`MAX_TABLE_BYTES`]).
    pub fn table_file(path: &Path) -> Result<Topology, TopologyError> {
        let text = crate::input::read_text_bounded(
            path,
            MAX_TABLE_BYTES,
            "topology table",
            "the topology table limit",
        )
        .map_err(|e| match e {
            crate::input::InputError::Io { source, .. } => TopologyError::Io {
                file: path.display().to_string(),
                source,
            },
            too_large => TopologyError::Input(too_large),
        })?;
        let (map, ignored) = parse_table(&text);
        for line in ignored {
            tracing::warn!(
                "topology table {}:{line}: not `host rack`; line ignored",
                path.display()
            );
        }
        Ok(Topology::Table(map))
    }

    /// From the settings, as Hadoop picks: the table file only under
    /// `TableMapping`, the script only under `ScriptBasedMapping` (the
    /// default); without its file, or under another mapping, one flat rack.
    pub fn from_settings(s: &crate::conf::Settings) -> Result<Topology, TopologyError> {
        let mapping = s.topology_mapping.trim();
        if mapping.ends_with(".TableMapping") {
            if let Some(t) = &s.topology_table {
                return Topology::table_file(t);
            }
        } else if mapping.ends_with(".ScriptBasedMapping") {
            if let Some(script) = &s.topology_script {
                return Ok(Topology::Script {
                    script: script.clone(),
                    max_args: s.topology_script_args.max(1),
                    limits: ScriptLimits {
                        timeout: s.topology_script_timeout,
                        max_output: s.topology_script_max_output,
                    },
                });
            }
        } else {
            tracing::warn!(
                "{mapping}: a rack mapping Spindle cannot run; every host on {DEFAULT_RACK}"
            );
        }
        Ok(Topology::Flat)
    }

    /// The rack of each datanode given by name and, where known, IP address.
    /// As Hadoop (which normalises names to addresses first), the table is
    /// looked up by address, then by name, and the script gets addresses.
    pub fn resolve_nodes(
        &self,
        hosts: &[String],
        addresses: &[Option<String>],
    ) -> Result<Vec<String>, TopologyError> {
        match self {
            Topology::Table(m) => Ok(hosts
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    addresses
                        .get(i)
                        .and_then(|a| a.as_ref())
                        .and_then(|a| m.get(a))
                        .or_else(|| m.get(h))
                        .cloned()
                        .unwrap_or_else(|| DEFAULT_RACK.into())
                })
                .collect()),
            _ => {
                let keys: Vec<String> = hosts
                    .iter()
                    .enumerate()
                    .map(|(i, h)| match addresses.get(i) {
                        Some(Some(a)) => a.clone(),
                        _ => h.clone(),
                    })
                    .collect();
                self.resolve(&keys)
            }
        }
    }

    /// The rack of each host, in order.
    pub fn resolve(&self, hosts: &[String]) -> Result<Vec<String>, TopologyError> {
        match self {
            Topology::Flat => Ok(vec![DEFAULT_RACK.to_string(); hosts.len()]),
            Topology::Table(m) => Ok(hosts
                .iter()
                .map(|h| m.get(h).cloned().unwrap_or_else(|| DEFAULT_RACK.into()))
                .collect()),
            Topology::Script {
                script,
                max_args,
                limits,
            } => {
                let mut out = Vec::with_capacity(hosts.len());
                for batch in hosts.chunks((*max_args).max(1)) {
                    out.extend(run_script(script, batch, *limits)?);
                }
                Ok(out)
            }
        }
    }
}

/// The hosts of a batch for an error message (a batch is up to 100 names).
fn shown_hosts(hosts: &[String]) -> String {
    let mut s = hosts.iter().take(5).cloned().collect::<Vec<_>>().join(" ");
    if hosts.len() > 5 {
        s.push_str(&format!(" and {} more", hosts.len() - 5));
    }
    s
}

/// One `ScriptBasedMapping.runResolveCommand` call: the script's output is
/// split on whitespace and must give one rack per host. The run is bounded
/// like Hadoop's `ShellCommandExecutor` with a timeout: past
/// `limits.timeout`, or once it has printed more than `limits.max_output`
/// bytes, the script and its process group are killed. A script that exits
/// while a child of its keeps its output open counts as still running.
fn run_script(
    script: &Path,
    hosts: &[String],
    limits: ScriptLimits,
) -> Result<Vec<String>, TopologyError> {
    use std::os::unix::process::CommandExt;

    let shown = script.display().to_string();
    let started = Instant::now();
    let mut child = Command::new(script)
        .args(hosts)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        // Its own process group, so that a timeout kills its children too.
        .process_group(0)
        .spawn()
        .map_err(|source| TopologyError::Spawn {
            script: shown.clone(),
            source,
        })?;
    let pid = child.id();
    let kill_group = || {
        // SAFETY: signals the process group created for this child above.
        unsafe { libc::killpg(pid as libc::pid_t, libc::SIGKILL) };
    };
    let (tx, rx) = mpsc::channel();
    let mut stdout = child.stdout.take();
    let cap = limits.max_output;
    // The reader stops one byte past the cap; it owns the pipe, so a child
    // escaping the group can leave only this thread behind, not the caller.
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let r = match stdout.as_mut() {
            Some(out) => out.take(cap as u64 + 1).read_to_end(&mut buf).map(|_| ()),
            None => Ok(()),
        };
        let _ = tx.send((r, buf));
    });
    let timeout = |what: &'static str| TopologyError::Timeout {
        script: shown.clone(),
        what,
        elapsed_ms: started.elapsed().as_millis(),
        limit_ms: limits.timeout.as_millis(),
        hosts: shown_hosts(hosts),
    };
    let left = limits.timeout.saturating_sub(started.elapsed());
    let (read, buf) = match rx.recv_timeout(left) {
        Ok(r) => r,
        Err(_) => {
            let exited = matches!(child.try_wait(), Ok(Some(_)));
            kill_group();
            let _ = child.kill();
            let _ = child.wait();
            return Err(timeout(if exited {
                "exited, but its output stayed open (a background child holding it?)"
            } else {
                "still running"
            }));
        }
    };
    if buf.len() > cap {
        kill_group();
        let _ = child.kill();
        let _ = child.wait();
        return Err(TopologyError::TooMuchOutput {
            script: shown,
            limit: cap,
            hosts: shown_hosts(hosts),
        });
    }
    // Output closed: the script is done or about to be; wait out the rest of
    // the time limit for its exit status.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < limits.timeout => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Ok(None) => {
                kill_group();
                let _ = child.kill();
                let _ = child.wait();
                return Err(timeout("still running"));
            }
            Err(source) => {
                return Err(TopologyError::Spawn {
                    script: shown,
                    source,
                })
            }
        }
    };
    read.map_err(|source| TopologyError::Spawn {
        script: shown.clone(),
        source,
    })?;
    if !status.success() {
        return Err(TopologyError::Failed {
            script: shown,
            status: status.to_string(),
            hosts: shown_hosts(hosts),
        });
    }
    let text = String::from_utf8_lossy(&buf);
    let racks: Vec<String> = text.split_whitespace().map(String::from).collect();
    if racks.len() != hosts.len() {
        return Err(TopologyError::Count {
            script: shown,
            got: racks.len(),
            want: hosts.len(),
            hosts: shown_hosts(hosts),
        });
    }
    Ok(racks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn hosts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn table_skips_comments_and_bad_lines() {
        let (m, ignored) =
            parse_table("# racks\n\n dn1  /r1 \ndn2 /r2 extra\ndn3\n10.0.0.4\t/r2\n");
        assert_eq!(m.len(), 2);
        assert_eq!(ignored, vec![4, 5]);
        let t = Topology::Table(m);
        assert_eq!(
            t.resolve(&hosts(&["dn1", "10.0.0.4", "dn9"])).unwrap(),
            vec!["/r1", "/r2", DEFAULT_RACK]
        );
    }

    /// Hadoop reads the table only under TableMapping and the script only
    /// under ScriptBasedMapping (the default), whatever else is set.
    #[test]
    fn the_mapping_impl_picks_table_or_script() {
        let d = tempdir("mapping");
        let table = d.join("racks.txt");
        std::fs::write(&table, "dn1 /t1\n").unwrap();
        let mut c = crate::conf::Configuration::with_defaults();
        c.set(crate::conf::keys::TOPOLOGY_TABLE, table.to_str().unwrap());
        c.set(crate::conf::keys::TOPOLOGY_SCRIPT, "/bin/echo");
        let s = crate::conf::Settings::from_conf(&c).unwrap();
        assert!(matches!(
            Topology::from_settings(&s).unwrap(),
            Topology::Script { .. }
        ));
        c.set(
            crate::conf::keys::TOPOLOGY_MAPPING,
            "org.apache.hadoop.net.TableMapping",
        );
        let s = crate::conf::Settings::from_conf(&c).unwrap();
        let t = Topology::from_settings(&s).unwrap();
        assert_eq!(t.resolve(&hosts(&["dn1"])).unwrap(), vec!["/t1"]);
    }

    /// A table keyed by IP (as Hadoop, which resolves addresses, needs it)
    /// places datanodes that WebHDFS names by host name.
    #[test]
    fn the_table_is_looked_up_by_address_then_name() {
        let (m, _) = parse_table("10.0.0.1 /by-ip\ndn2 /by-name\n");
        let t = Topology::Table(m);
        let racks = t
            .resolve_nodes(
                &hosts(&["dn1", "dn2", "dn3"]),
                &[Some("10.0.0.1".into()), Some("10.0.0.2".into()), None],
            )
            .unwrap();
        assert_eq!(racks, vec!["/by-ip", "/by-name", DEFAULT_RACK]);
    }

    #[test]
    fn missing_table_file_is_named() {
        let e = Topology::table_file(Path::new("/nonexistent/topo.txt")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("topology table /nonexistent/topo.txt: cannot read"),
            "{e}"
        );
    }

    fn script(dir: &Path, body: &str) -> PathBuf {
        let p = dir.join("topo.sh");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("spindle-topo-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn script_runs_in_batches() {
        let d = tempdir("batch");
        // Logs each call's argument count so the batching is visible.
        let log = d.join("calls");
        let s = script(
            &d,
            &format!(
                "echo $# >> {}\nfor h in \"$@\"; do echo /rack-$h; done",
                log.display()
            ),
        );
        let t = Topology::Script {
            script: s,
            max_args: 2,
            limits: ScriptLimits::default(),
        };
        let r = t.resolve(&hosts(&["a", "b", "c", "d", "e"])).unwrap();
        assert_eq!(
            r,
            vec!["/rack-a", "/rack-b", "/rack-c", "/rack-d", "/rack-e"]
        );
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "2\n2\n1\n");
    }

    #[test]
    fn script_errors_are_named() {
        let d = tempdir("err");
        let s = script(&d, "echo /r1");
        let t = Topology::Script {
            script: s.clone(),
            max_args: 100,
            limits: ScriptLimits::default(),
        };
        let e = t.resolve(&hosts(&["a", "b"])).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "topology script {} printed 1 racks for 2 hosts (a b)",
                s.display()
            )
        );
        let s = script(&d, "exit 3");
        let t = Topology::Script {
            script: s.clone(),
            max_args: 100,
            limits: ScriptLimits::default(),
        };
        let e = t.resolve(&hosts(&["a"])).unwrap_err().to_string();
        assert!(e.contains("exited with exit status: 3 for hosts a"), "{e}");
    }
}
