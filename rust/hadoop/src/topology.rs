//! Rack topology as Hadoop resolves it: `TableMapping` (a file of
//! `host rack` lines), `ScriptBasedMapping` (a script run with batches of host
//! names, one rack printed per host) and the default rack.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    Script { script: PathBuf, max_args: usize },
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
    /// Reads a table file.
    pub fn table_file(path: &Path) -> Result<Topology, TopologyError> {
        let text = std::fs::read_to_string(path).map_err(|source| TopologyError::Io {
            file: path.display().to_string(),
            source,
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
            Topology::Script { script, max_args } => {
                let mut out = Vec::with_capacity(hosts.len());
                for batch in hosts.chunks((*max_args).max(1)) {
                    out.extend(run_script(script, batch)?);
                }
                Ok(out)
            }
        }
    }
}

/// One `ScriptBasedMapping.runResolveCommand` call: the script's output is
/// split on whitespace and must give one rack per host.
fn run_script(script: &Path, hosts: &[String]) -> Result<Vec<String>, TopologyError> {
    let shown = script.display().to_string();
    let out = Command::new(script)
        .args(hosts)
        .output()
        .map_err(|source| TopologyError::Spawn {
            script: shown.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(TopologyError::Failed {
            script: shown,
            status: out.status.to_string(),
            hosts: hosts.join(" "),
        });
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let racks: Vec<String> = text.split_whitespace().map(String::from).collect();
    if racks.len() != hosts.len() {
        return Err(TopologyError::Count {
            script: shown,
            got: racks.len(),
            want: hosts.len(),
            hosts: hosts.join(" "),
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
        };
        let e = t.resolve(&hosts(&["a"])).unwrap_err().to_string();
        assert!(e.contains("exited with exit status: 3 for hosts a"), "{e}");
    }
}
