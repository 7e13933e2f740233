//! DESIGN.md's layering, checked: dependencies between the workspace crates point down only, and
//! the runtime never depends on the emulator.

use std::collections::BTreeMap;

/// Each crate and the workspace crates it may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("autogen/Cargo.toml", &[]),
    // The generator is a build tool beside the stack, not a layer of it: its `isa_ctors` step reads
    // the committed instruction tables through the ISA model (a second run picks up tables the
    // first run changed; `--check` says when one is due).
    ("autogen/gen/Cargo.toml", &["baregpu-autogen", "baregpu-isa"]),
    ("compiler/isa/Cargo.toml", &["baregpu-autogen"]),
    ("drivers/Cargo.toml", &["baregpu-autogen"]),
    ("runtime/Cargo.toml", &["baregpu-autogen", "baregpu-drivers"]),
    ("emu/Cargo.toml", &["baregpu-autogen", "baregpu-drivers", "baregpu-isa"]),
    ("compiler/Cargo.toml", &["baregpu-autogen", "baregpu-isa", "baregpu-runtime", "baregpu-drivers"]),
];

/// Workspace dependencies named in a manifest's `[section]` (`[dependencies]`, `[dev-dependencies]`).
fn deps_in(manifest: &str, wanted: &str) -> Vec<String> {
    let mut section = String::new();
    let mut deps = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section == wanted {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                if name.starts_with("baregpu") {
                    deps.push(name.to_string());
                }
            }
        }
    }
    deps
}

/// What the crate itself links: its [dependencies]. Tests may reach further up (the emulator's
/// tests drive it with the real runtime), which is not a layering violation.
fn workspace_deps(manifest: &str) -> Vec<String> {
    deps_in(manifest, "[dependencies]")
}

#[test]
fn crates_depend_only_downwards() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut seen = BTreeMap::new();
    for (path, allowed) in ALLOWED {
        let text = std::fs::read_to_string(format!("{root}/{path}")).unwrap();
        for dep in workspace_deps(&text) {
            assert!(allowed.contains(&dep.as_str()), "{path} depends on {dep}, which is not below it");
        }
        seen.insert(*path, ());
    }
    // DESIGN.md's rule holds even for tests: the runtime never depends on the emulator.
    let runtime = std::fs::read_to_string(format!("{root}/runtime/Cargo.toml")).unwrap();
    for section in ["[dependencies]", "[dev-dependencies]", "[build-dependencies]"] {
        assert!(!deps_in(&runtime, section).iter().any(|d| d == "baregpu-emu"), "runtime {section} names the emulator");
    }
    // Every workspace member is covered by the table above.
    let ws = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    let members = ws.split("members = [").nth(1).unwrap().split(']').next().unwrap();
    for m in members.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty()) {
        assert!(seen.contains_key(format!("{m}/Cargo.toml").as_str()), "member {m} has no layering rule");
    }
}

#[test]
fn the_parser_sees_dependencies() {
    let deps =
        workspace_deps("[dependencies]\nbaregpu-drivers = { path = \"x\" }\nlog = \"1\"\n[features]\nbaregpu-x = []\n");
    assert_eq!(deps, vec!["baregpu-drivers"]);
}
