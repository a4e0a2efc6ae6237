//! The daemon's top-level modules form layers, checked on the source: every `crate::` path
//! in daemon/src (plain, in `use` groups, or `super::` from a top-level module's own file)
//! is an edge from the module of the file to the module it names; the graph must have no
//! cycle (the test prints one), the shared real-time primitives (`rt`) import no other module,
//! the features never import the runtime, and nothing imports the CLI edge. A file's unit
//! tests (its `#[cfg(test)] mod tests`, last in the file) are not part of the layers: they
//! may build the runtime's `Simulation` to drive a feature end to end, as the gamepad's do.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod support;
use support::rust_files;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The code of `text` without comments (doc links are not imports).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier_at(text: &str) -> String {
    text.chars()
        .skip_while(|c| c.is_whitespace())
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The top-level modules `code` names through `prefix` (`crate::` or, in a top-level
/// module's own file, `super::`), including every member of a `prefix{a, b::c}` group.
fn named_modules(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        found.insert(identifier_at(&group[start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.insert(identifier_at(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(identifier_at(rest));
        }
    }
    found.retain(|name| !name.is_empty() && name != "self");
    found
}

/// The module graph of the crate whose sources are under `src`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let module = parts[0].trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let mut code = code_only(&std::fs::read_to_string(&file).unwrap());
        if let Some(tests) = code.find("#[cfg(test)]\nmod tests") {
            code.truncate(tests);
        }
        let mut named = named_modules(&code, "crate::");
        // In `x.rs` or `x/mod.rs`, `super::` is the crate root.
        if parts.len() == 1 || (parts.len() == 2 && parts[1] == "mod.rs") {
            named.extend(named_modules(&code, "super::"));
        }
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(named.into_iter().filter(|m| *m != module));
    }
    graph
}

/// A cycle of `graph` (first module repeated at the end), if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn daemon_graph() -> Graph {
    module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn the_daemon_top_level_modules_import_each_other_without_a_circle() {
    let graph = daemon_graph();
    assert!(
        graph.len() >= 8,
        "the walk found the daemon's modules: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import circle between daemon modules: {} (fix: move what both need into a lower \
             module, e.g. rt)",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn shared_primitives_import_nothing_and_features_never_import_the_runtime_or_the_cli() {
    let graph = daemon_graph();
    assert_eq!(graph["rt"], BTreeSet::new(), "rt must stand alone");
    for feature in ["ffb", "game_source", "input", "motion", "telemetry_out"] {
        assert!(
            !graph[feature].contains("runtime"),
            "{feature} imports runtime: {:?}",
            graph[feature]
        );
        assert!(graph[feature].contains("rt"), "{feature} uses rt");
    }
    for (module, edges) in &graph {
        assert!(!edges.contains("cli"), "{module} imports the CLI edge");
    }
    assert!(graph["runtime"].contains("input") && graph["cli"].contains("runtime"));
}

#[test]
fn the_walk_sees_groups_and_finds_a_planted_circle() {
    let named = named_modules(
        "use crate::{ffb::FfbLink, input::{self, hub}, rt};\nlet x = crate::motion::f();",
        "crate::",
    );
    let expected: BTreeSet<String> = ["ffb", "input", "rt", "motion"].map(String::from).into();
    assert_eq!(named, expected);
    let mut graph = daemon_graph();
    graph.get_mut("rt").unwrap().insert("runtime".to_string());
    let cycle = find_cycle(&graph).expect("rt -> runtime closes a circle");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"rt".to_string()) && cycle.contains(&"runtime".to_string()));
}
