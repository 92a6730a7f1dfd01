//! The crate's layers import downwards only.
//!
//! Reads every source file, collects the `crate::…` paths its code uses
//! (outside `#[cfg(test)]` items: a unit test may set its case up with
//! anything) and checks that each one reaches a module of a lower layer
//! than the file's own, never the same top-level module through a
//! re-export and never a higher one. Paths through the crate root's
//! re-exports (`crate::Flock`) count as imports of the module they come
//! from. Since every import goes strictly down, the modules cannot import
//! one another in a circle. The layer table in `src/lib.rs` must name every
//! module.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules, bottom layer first. Modules on one line are one
/// layer and may not import each other.
const LAYERS: &[&[&str]] =
    &[&["math", "prefetch"], &["world"], &["rules"], &["step"], &["observe"], &["space"], &["control"]];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code without comments and without `#[cfg(test)]` items.
fn code_outside_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let code = line.split("//").next().unwrap_or_default();
        if code.trim() == "#[cfg(test)]" {
            // Skip the item: one line, or a braced block to its close.
            let mut depth = 0i64;
            for item in lines.by_ref() {
                let item = item.split("//").next().unwrap_or_default();
                depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
                if depth <= 0 && (item.trim_end().ends_with(';') || item.trim_end().ends_with('}')) {
                    break;
                }
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The first segment of every `crate::` path in `code` (each name of a
/// `crate::{a, b::c}` group counts).
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `mirofish_crate::`, not this crate
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for name in group[..end].split(',') {
                let first = name.trim().split("::").next().unwrap_or_default().trim();
                if !first.is_empty() {
                    found.push(first.to_string());
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.push(name);
        }
    }
    found
}

/// The crate root's re-exports: name → the top-level module it comes from
/// (external crates' re-exports are left out).
fn root_exports(lib: &str, modules: &[String]) -> BTreeMap<String, String> {
    let mut exports = BTreeMap::new();
    let code = code_outside_tests(lib).replace('\n', " ");
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let module = path.split("::").next().unwrap_or_default().trim().to_string();
        if !modules.contains(&module) {
            continue;
        }
        let names = match (path.find('{'), path.rfind('}')) {
            (Some(open), Some(close)) => path[open + 1..close].to_string(),
            _ => path.rsplit("::").next().unwrap_or_default().to_string(),
        };
        for name in names.split(',') {
            let name = name.trim();
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            if !name.is_empty() {
                exports.insert(name.to_string(), module.clone());
            }
        }
    }
    exports
}

/// Every module `mod`-declared in the crate root.
fn root_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
            l.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')).map(str::to_string)
        })
        .collect()
}

/// The imports that break the layering, as `file: module -> module`.
fn wrong_imports(files: &[(String, String)], lib: &str) -> Vec<String> {
    let modules = root_modules(lib);
    let exports = root_exports(lib, &modules);
    let mut wrong = Vec::new();
    for (file, text) in files {
        let own = file.split('/').next().unwrap_or_default().trim_end_matches(".rs");
        let Some(own_layer) = layer_of(own) else {
            wrong.push(format!("{file}: module `{own}` is in no layer"));
            continue;
        };
        for name in crate_paths(&code_outside_tests(text)) {
            let target = if modules.contains(&name) {
                name.clone()
            } else if let Some(module) = exports.get(&name) {
                module.clone()
            } else {
                wrong.push(format!("{file}: `crate::{name}` is neither a module nor a re-export"));
                continue;
            };
            if target == own {
                // The module's own items are reached by relative paths.
                if !modules.contains(&name) {
                    wrong.push(format!("{file}: `crate::{name}` reaches its own module through the root"));
                }
                continue;
            }
            match layer_of(&target) {
                Some(layer) if layer < own_layer => {}
                _ => wrong.push(format!("{file}: {own} -> {target} (`crate::{name}`)")),
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    wrong
}

#[test]
fn every_import_goes_down_a_layer() {
    let root = src();
    let mut paths = Vec::new();
    sources(&root, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "lib.rs") || p.parent() != Some(root.as_path()))
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
            (rel, fs::read_to_string(p).expect("readable source"))
        })
        .collect();
    assert!(files.len() > 40, "the sources were found ({} files)", files.len());
    let lib = fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    let wrong = wrong_imports(&files, &lib);
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn every_module_is_in_a_layer_and_in_the_table() {
    let lib = fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let table: String = lib.lines().filter(|l| l.starts_with("//! |")).collect::<Vec<_>>().join("\n");
    for module in root_modules(&lib) {
        assert!(layer_of(&module).is_some(), "module `{module}` is in no layer of this test");
        assert!(table.contains(&format!("`{module}`")), "the layer table in lib.rs leaves out `{module}`");
    }
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/concepts.md");
    let guide = fs::read_to_string(guide).expect("docs/concepts.md");
    for module in LAYERS.iter().flat_map(|l| l.iter()) {
        let named = guide.contains(&format!("`{module}/`")) || guide.contains(&format!("`{module}`"));
        assert!(named, "docs/concepts.md's layer table leaves out `{module}`");
    }
}

/// The check itself finds an import that goes up, one that stays in its
/// layer, and one hidden behind a re-export, and ignores tests and
/// comments.
#[test]
fn the_check_catches_what_it_should() {
    let lib = "pub mod math;\npub mod world;\npub mod step;\npub use step::flock::{Flock, SlotOrder};\npub use rayon;\n";
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    let clean = [
        file("step/a.rs", "use crate::world::tank::Tank;\nuse crate::{math::Vector, world};\n"),
        file("world/b.rs", "// see crate::step::flock\nuse crate::math::Vector;\n"),
        file(
            "world/c.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::Flock;\n    fn f() { crate::step::x(); }\n}\n",
        ),
    ];
    assert_eq!(wrong_imports(&clean, lib), Vec::<String>::new());
    let up = [file("world/d.rs", "fn f() { let _ = crate::step::run(); }\n")];
    assert_eq!(wrong_imports(&up, lib), ["world/d.rs: world -> step (`crate::step`)"]);
    let hidden = [file("math/e.rs", "use crate::{SlotOrder};\n")];
    assert_eq!(wrong_imports(&hidden, lib), ["math/e.rs: math -> step (`crate::SlotOrder`)"]);
    let unknown = [file("step/f.rs", "use crate::nowhere::X;\n")];
    assert_eq!(
        wrong_imports(&unknown, lib),
        ["step/f.rs: `crate::nowhere` is neither a module nor a re-export"]
    );
}
