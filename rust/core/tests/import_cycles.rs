//! No import cycles between the source files of the workspace's crates: a
//! file that names another's items (`crate::a::b`, `super::x`, `self::c`, a
//! declared child module) depends on it, and no two files may depend on
//! each other, directly or around a loop. A file naming its own ancestor
//! modules is not counted: a child reads the traits and types its parent
//! declares it under (`policy/asm1.rs` implements `policy::Policy`), which
//! Rust's module tree asks for. Comments are not read, so doc links do not
//! count.
//!
//! This is what keeps, for instance, the offline executor (`execute.rs`)
//! below the policies that use it: it reads only the shared leaf types
//! (`policy/free_slot.rs`, `compile_time.rs`, `fair.rs`,
//! `asm1_priced.rs`'s price), none of which imports it back; and the DAG
//! driver (`dag/plan.rs`) above FISCH and BLIND, which read their shared
//! options and trial bookkeeping from the leaf `dag/refine.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file under `src` as its module path (`policy/mod.rs` is
/// `["policy"]`, `lib.rs` is `[]`).
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).unwrap().with_extension("");
                let mut m: Module = rel
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                    m.pop();
                }
                out.insert(m, p);
            }
        }
    }
    out
}

/// The source without `//` comments (doc comments included), string
/// literals and char literals.
fn code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut in_str) = (0, false);
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            match c {
                '\\' => i += 1,
                '"' => in_str = false,
                '\n' => out.push('\n'),
                _ => {}
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        } else if c == '"' {
            in_str = true;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 2; // a char literal such as '"'
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') && chars.get(i + 3) == Some(&'\'') {
            i += 3; // an escaped one such as '\"'
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// Paths as written: `crate::a::b`, `super::x`, `self::y`, `z::w`, with
/// `{a, b::c}` groups expanded one level.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        if start_ok && (bytes[i].is_alphabetic() || bytes[i] == '_') {
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let s = j;
                while j < bytes.len() && (bytes[j].is_alphanumeric() || bytes[j] == '_') {
                    j += 1;
                }
                segs.push(bytes[s..j].iter().collect::<String>());
                if bytes.get(j) == Some(&':') && bytes.get(j + 1) == Some(&':') {
                    j += 2;
                    if bytes.get(j) == Some(&'{') {
                        let end = bytes[j..]
                            .iter()
                            .position(|&c| c == '}')
                            .map_or(bytes.len(), |e| j + e);
                        let inner: String = bytes[j + 1..end].iter().collect();
                        for item in inner.split(',') {
                            let mut p = segs.clone();
                            p.extend(item.trim().split("::").map(|s| s.trim().to_string()));
                            out.push(p);
                        }
                        j = end;
                        segs.clear();
                        break;
                    }
                    if j < bytes.len()
                        && (bytes[j].is_alphabetic() || bytes[j] == '_' || bytes[j] == '*')
                    {
                        continue;
                    }
                }
                break;
            }
            if segs.len() > 1 {
                out.push(segs);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The modules each module names, ancestors left out.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mods = modules(src);
    let resolve = |abs: Vec<String>| -> Option<Module> {
        (0..=abs.len())
            .rev()
            .map(|k| abs[..k].to_vec())
            .find(|m| mods.contains_key(m))
    };
    let mut g = BTreeMap::new();
    for (m, file) in &mods {
        let text = code(&std::fs::read_to_string(file).unwrap());
        let parent: Module = m[..m.len().saturating_sub(1)].to_vec();
        let mut deps = BTreeSet::new();
        for p in paths(&text) {
            let abs = match p[0].as_str() {
                "crate" => p[1..].to_vec(),
                "super" => {
                    let mut base = parent.clone();
                    let mut rest = &p[1..];
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    [base, rest.to_vec()].concat()
                }
                "self" => [m.clone(), p[1..].to_vec()].concat(),
                first => {
                    // A child module named without `self::` (2018 paths).
                    let child = [m.clone(), vec![first.to_string()]].concat();
                    if mods.contains_key(&child) {
                        [child, p[1..].to_vec()].concat()
                    } else {
                        continue;
                    }
                }
            };
            if let Some(t) = resolve(abs) {
                let ancestor = t.len() < m.len() && m[..t.len()] == t[..];
                if &t != m && !ancestor {
                    deps.insert(t);
                }
            }
        }
        g.insert(m.clone(), deps);
    }
    g
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct St<'a> {
        g: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(st: &mut St<'a>, v: &'a Module) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on.insert(v);
        for w in &st.g[v] {
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if st.on.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                st.out.push(comp);
            }
        }
    }
    let mut st = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !st.index.contains_key(v) {
            visit(&mut st, v);
        }
    }
    st.out
}

#[test]
fn no_source_file_imports_one_that_imports_it_back() {
    let rust = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&rust).unwrap() {
        let dir = e.unwrap().path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let krate = dir.file_name().unwrap().to_string_lossy().into_owned();
        for comp in cycles(&graph(&src)) {
            let names: Vec<String> = comp
                .iter()
                .map(|m| format!("{krate}/{}", m.join("/")))
                .collect();
            found.push(names.join(" <-> "));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_checker_sees_a_cycle_through_crate_super_and_child_paths() {
    let dir = std::env::temp_dir().join(format!("spindle-cycles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("p")).unwrap();
    let write = |f: &str, s: &str| std::fs::write(dir.join(f), s).unwrap();
    write("lib.rs", "pub mod e;\npub mod p;\n");
    write(
        "p/mod.rs",
        "pub mod a;\npub mod b;\nuse crate::e::run; // crate::b::x in a comment\n",
    );
    write(
        "p/a.rs",
        "use super::b::Thing;\nimpl super::Trait for X {}\n",
    );
    write(
        "p/b.rs",
        "pub struct Thing; fn f() { let s = \"crate::e\"; }\n",
    );
    write("e.rs", "use crate::p::{a::Rule, b};\n");
    let g = graph(&dir);
    let m = |s: &str| -> Module {
        s.split('/')
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(g[&m("p/a")], [m("p/b")].into());
    assert!(g[&m("p/b")].is_empty(), "strings and comments are not read");
    assert_eq!(g[&m("e")], [m("p/a"), m("p/b")].into());
    assert_eq!(g[&m("p")], [m("e")].into());
    assert!(cycles(&g).is_empty());
    // p/b now names e, which names p/b (and p/a, which names p/b): a cycle.
    write("p/b.rs", "use crate::e;\n");
    assert_eq!(cycles(&graph(&dir)), vec![vec![m("e"), m("p/a"), m("p/b")]]);
    let _ = std::fs::remove_dir_all(&dir);
}
