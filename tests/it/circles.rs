//! No module circles: within each crate (and this test package), the modules that name each
//! other through `crate::` and `super::` paths must not form a circle, so that every type,
//! constant and function has one home below the modules that use it.
//!
//! A file is a module (`mod.rs` is its directory's, `lib.rs` and `main.rs` the crate root's); a
//! reference counts when its path starts with `crate::` or `super::`, resolved to the deepest
//! module it names (`use crate::a::b::{X, Y}` names `a::b`). `#[cfg(test)] mod tests` blocks at
//! the end of a file are left out: a test may use whatever it tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `["eval", "chess"]`; the root is empty.
type Module = Vec<String>;

/// Every module with the modules it names.
type Graph = BTreeMap<Module, BTreeSet<Module>>;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file under `src` is.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

/// The source without its test module: everything before the first `#[cfg(test)] mod tests`.
fn without_tests(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        let after = &text[start + "#[cfg(test)]".len()..];
        if after.trim_start().starts_with("mod tests") {
            return &text[..start];
        }
        from = start + 1;
    }
    text
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths that follow `keyword::` wherever it starts a word: `a::b` from `crate::a::b::{X}`.
fn paths_after<'t>(text: &'t str, keyword: &str) -> Vec<Vec<&'t str>> {
    let needle = format!("{keyword}::");
    let mut paths = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(&needle) {
        let start = from + at;
        from = start + needle.len();
        if text[..start].chars().next_back().is_some_and(is_word) {
            continue;
        }
        let mut path = Vec::new();
        let mut rest = &text[from..];
        loop {
            let len = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
            if len == 0 {
                break;
            }
            path.push(&rest[..len]);
            rest = &rest[len..];
            match rest.strip_prefix("::") {
                Some(next) if next.starts_with(is_word) => rest = next,
                _ => break,
            }
        }
        if !path.is_empty() {
            from = text.len() - rest.len();
            paths.push(path);
        }
    }
    paths
}

/// The modules of the crate whose sources are under `src`, with the modules each names.
fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let deepest = |path: Module| (1..=path.len()).rev().map(|k| path[..k].to_vec()).find(|m| modules.contains_key(m));
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let text = without_tests(&text);
        let parent = &module[..module.len().saturating_sub(1)];
        let named = paths_after(text, "crate")
            .into_iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .chain(
                paths_after(text, "super")
                    .into_iter()
                    .map(|p| parent.iter().cloned().chain(p.iter().map(|s| (*s).to_owned())).collect::<Module>()),
            )
            .filter_map(deepest)
            .filter(|m| m != module)
            .collect();
        graph.insert(module.clone(), named);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module (Tarjan).
fn circles(graph: &Graph) -> Vec<Vec<Module>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        circles: Vec<Vec<Module>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            let graph = self.graph;
            for w in &graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().position(|m| *m == v).unwrap();
                let mut component: Vec<Module> = self.stack.drain(at..).cloned().collect();
                component.sort();
                if component.len() > 1 {
                    self.circles.push(component);
                }
            }
        }
    }
    let mut walk = Walk { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), circles: Vec::new() };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.circles
}

/// Every circle of every crate and of this test package, one line each:
/// `engine: search <-> nnue`.
fn workspace_circles() -> Vec<String> {
    let root = workspace_root();
    let mut sources: Vec<(String, PathBuf)> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path().join("src")))
        .collect();
    sources.sort();
    sources.push(("tests".to_owned(), root.join("tests")));
    let mut lines = Vec::new();
    for (name, src) in sources {
        if !src.is_dir() {
            continue;
        }
        for circle in circles(&graph(&src)) {
            let modules: Vec<String> =
                circle.iter().map(|m| if m.is_empty() { "lib".to_owned() } else { m.join("::") }).collect();
            lines.push(format!("{name}: {}", modules.join(" <-> ")));
        }
    }
    lines
}

#[test]
fn the_checker_finds_a_circle_and_ignores_test_modules() {
    let dir = ferz_tests::TempDir::new("circles");
    let src = dir.path();
    std::fs::create_dir_all(src.join("eval")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod eval;\nuse crate::a::X;\n");
    write("a.rs", "use crate::b::{Y, Z};\n");
    write("b.rs", "pub struct Y;\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n");
    write("eval/mod.rs", "mod chess;\n");
    write("eval/chess.rs", "use super::super::a::X;\nfn f() -> super::weights::T {}\n");
    write("eval/weights.rs", "use my_crate::eval::chess;\n");
    assert!(circles(&graph(src)).is_empty(), "{:?}", graph(src));

    write("b.rs", "pub struct Y;\nfn g() { crate::a::f() }\n");
    let graph = graph(src);
    let module = |path: &str| -> Module { path.split("::").map(str::to_owned).collect() };
    assert_eq!(graph[&module("eval::chess")], [module("eval"), module("eval::weights")].into());
    assert_eq!(circles(&graph), [vec![module("a"), module("b")]]);
}

#[test]
fn no_module_circles() {
    let found = workspace_circles();
    assert!(found.is_empty(), "module circles:\n{}", found.join("\n"));
}
