//! docs/architecture.md against the workspace itself: its generated dependency list and its
//! crate table must say what `cargo metadata` says, so the page cannot drift from the code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Every workspace crate with its ferz dependencies: (normal, dev-only).
type Arrows = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace")
}

fn cargo_metadata() -> Arrows {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(workspace_root())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut arrows = Arrows::new();
    for package in metadata["packages"].as_array().unwrap() {
        let mut normal = BTreeSet::new();
        let mut dev = BTreeSet::new();
        for dependency in package["dependencies"].as_array().unwrap() {
            let name = dependency["name"].as_str().unwrap();
            if !name.starts_with("ferz") {
                continue;
            }
            match dependency["kind"].as_str() {
                None => normal.insert(name.to_owned()),
                Some("dev") => dev.insert(name.to_owned()),
                Some(_) => false,
            };
        }
        dev.retain(|name| !normal.contains(name));
        arrows.insert(package["name"].as_str().unwrap().to_owned(), (normal, dev));
    }
    arrows
}

fn names(list: &str) -> BTreeSet<String> {
    list.split(", ").map(str::trim).filter(|n| !n.is_empty() && *n != "(none)").map(str::to_owned).collect()
}

#[test]
fn the_architecture_page_lists_the_crates_and_arrows_cargo_knows() {
    let page = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).unwrap();
    let actual = cargo_metadata();

    // The generated list: `crate -> a, b; dev: c`.
    let block = page.split("```text\nferz ").nth(1).expect("the dependency list block").split("```").next().unwrap();
    let mut listed = Arrows::new();
    for line in format!("ferz {block}").lines().filter(|l| !l.trim().is_empty()) {
        let (name, rest) = line.split_once("->").unwrap_or_else(|| panic!("{line:?} has no arrow"));
        let (normal, dev) = rest.split_once("; dev:").unwrap_or((rest, ""));
        listed.insert(name.trim().to_owned(), (names(normal), names(dev)));
    }
    assert_eq!(listed, actual, "docs/architecture.md's dependency list differs from cargo metadata");

    // The crate table: `| `name` | `path` | short names of the normal dependencies | ... |`.
    let mut table = BTreeMap::new();
    for row in page.lines().filter(|l| l.starts_with("| `ferz")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if !cells[2].starts_with("`crates/") && cells[2] != "`tests`" {
            continue; // the type table
        }
        let name = cells[1].trim_matches('`').to_owned();
        let deps = cells[3].split(" (dev:").next().unwrap();
        let deps: BTreeSet<String> = if deps == "all of the above" || deps == "none" {
            BTreeSet::new()
        } else {
            deps.split(", ").map(|short| format!("ferz-{}", short.trim())).collect()
        };
        table.insert(name, deps);
    }
    assert_eq!(
        table.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "the crate table names other crates than the workspace has"
    );
    for (name, deps) in &table {
        if name != "ferz" {
            assert_eq!(deps, &actual[name].0, "the crate table's dependencies of {name}");
        }
    }
}
