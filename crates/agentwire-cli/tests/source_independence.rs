//! The CLI names no provider: every source reaches it through `agentwire::source::Source`, so
//! adding a source touches the CLI nowhere but its `--from` help text.

use std::path::Path;

/// What a provider's types look like in Rust source: its generated crate, its mapping module.
const PROVIDER_MARKERS: &[&str] = &[
    "agentwire_codex",
    "agentwire_claude",
    "agentwire_acp",
    "codex_app_server::",
    "codex_exec::",
    "codex_rollout::",
    "claude::",
    "acp::",
    "Source::CODEX_APP_SERVER",
];

#[test]
fn the_cli_imports_no_provider_crate_or_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    for line in manifest.lines().filter(|line| line.starts_with("agentwire")) {
        assert!(
            line.starts_with("agentwire.") || line.starts_with("agentwire-canonical."),
            "Cargo.toml depends on a provider crate: {line}"
        );
    }
    let mut checked = 0;
    let mut pending = vec![root.join("src")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            for (index, line) in text.lines().enumerate() {
                for marker in PROVIDER_MARKERS {
                    assert!(
                        !line.contains(marker),
                        "{}:{}: names a provider ({marker}): {line}",
                        path.display(),
                        index + 1
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 9, "the CLI's modules were read, those in folders too");
}
