//! The documentation in step with the code: `docs/policies.md`'s table is
//! the output of `spindle policies --format markdown`, every `spindle.*`
//! key of `conf/spindle-site.xml` is in the admin guide, the README stays
//! short, and every relative link in README.md and docs/ leads to a file
//! and heading that exist.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p spindle-cli --test docs` rewrites the
//! table in docs/policies.md.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{spindle, stderr, stdout};
use spindle_core::PolicyKind;

const BEGIN: &str = "<!-- BEGIN spindle policies -->\n";
const END: &str = "<!-- END spindle policies -->";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

#[test]
fn docs_policies_md_is_the_output_of_spindle_policies() {
    let o = spindle(&["policies", "--format", "markdown"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let path = root().join("docs/policies.md");
    let doc = read("docs/policies.md");
    let start = doc
        .find(BEGIN)
        .expect("docs/policies.md has the BEGIN marker")
        + BEGIN.len();
    let end = doc[start..]
        .find(END)
        .expect("docs/policies.md has the END marker")
        + start;
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v != "0") {
        std::fs::write(&path, format!("{}{table}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    assert_eq!(
        &doc[start..end],
        table,
        "docs/policies.md is not the registry's table; rerun with UPDATE_SNAPSHOTS=1"
    );
}

#[test]
fn spindle_policies_json_lists_the_registry_in_order() {
    let o = spindle(&["policies", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), PolicyKind::ALL.len());
    for (row, p) in rows.iter().zip(PolicyKind::ALL) {
        assert_eq!(row["name"], p.name());
        assert_eq!(row["paper"], p.paper());
        assert_eq!(row["summary"], p.summary());
    }
    // The plain table has one line per policy, each starting with its name.
    let o = spindle(&["policies"]);
    let text = stdout(&o);
    let names: Vec<&str> = text.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names, PolicyKind::ALL.map(|p| p.name()));
}

#[test]
fn every_spindle_key_of_the_example_file_is_in_the_admin_guide() {
    let conf = read("conf/spindle-site.xml");
    let guide = read("docs/admin-guide.md");
    let keys: Vec<&str> = conf
        .split("<name>")
        .skip(1)
        .filter_map(|s| s.split("</name>").next())
        .collect();
    assert!(keys.len() >= 15, "{keys:?}");
    for k in keys {
        assert!(
            guide.contains(&format!("`{k}`")),
            "{k} is not in docs/admin-guide.md"
        );
    }
}

#[test]
fn every_simulate_and_policies_flag_is_in_docs_cli_md() {
    let doc = read("docs/cli.md");
    for cmd in ["simulate", "policies"] {
        let o = spindle(&[cmd, "--help"]);
        assert!(o.status.success(), "{}", stderr(&o));
        for line in stdout(&o).lines() {
            let Some(flag) = line
                .split_whitespace()
                .find(|w| w.starts_with("--"))
                .map(|w| w.trim_end_matches(',').split('=').next().unwrap_or(w))
            else {
                continue;
            };
            if flag == "--help" || !line.trim_start().starts_with('-') {
                continue;
            }
            assert!(
                doc.contains(&format!("`{flag}")) || doc.contains(&format!("{flag} ")),
                "spindle {cmd} {flag} is not in docs/cli.md"
            );
        }
    }
}

#[test]
fn the_readme_stays_short() {
    let n = read("README.md").lines().count();
    assert!(n <= 220, "README.md has {n} lines; detail belongs in docs/");
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of `text` outside code fences.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fence = false;
    text.lines().filter(move |line| {
        if line.starts_with("```") {
            fence = !fence;
            return false;
        }
        !fence
    })
}

fn anchors(text: &str) -> HashSet<String> {
    prose(text)
        .filter(|line| line.starts_with('#'))
        .map(|line| slug(line.trim_start_matches('#')))
        .collect()
}

/// `(target)` of every `[text](target)` outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

/// `docs/../conf/x` as `conf/x`.
fn normalise(p: &Path) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.to_str().unwrap().split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

#[test]
fn every_relative_link_leads_to_a_file_and_heading() {
    let mut files = vec!["README.md".to_string()];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    let mut broken = Vec::new();
    for file in &files {
        let dir = Path::new(file).parent().unwrap();
        for link in links(&read(file)) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                normalise(&dir.join(path))
            };
            let Ok(text) = std::fs::read_to_string(root().join(&target)) else {
                broken.push(format!("{file}: ({link}): no file {target}"));
                continue;
            };
            if !anchor.is_empty() && target.ends_with(".md") && !anchors(&text).contains(anchor) {
                broken.push(format!(
                    "{file}: ({link}): no heading #{anchor} in {target}"
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(
        slug(" S-PC's job order in the Session"),
        "s-pcs-job-order-in-the-session"
    );
    assert_eq!(slug("Instance format (JSON)"), "instance-format-json");
    assert_eq!(slug("The `spindle` command"), "the-spindle-command");
    assert_eq!(
        links("a [b](docs/c.md#d) and [e](#f)\n```\n[g](h)\n```"),
        ["docs/c.md#d", "#f"]
    );
    assert_eq!(normalise(Path::new("docs/../conf/a.xml")), "conf/a.xml");
}
