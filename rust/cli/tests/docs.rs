//! `spindle policies`: the registry's lines, in registry order, in every
//! format.

mod common;

use common::{spindle, stderr, stdout};
use spindle_core::PolicyKind;

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
