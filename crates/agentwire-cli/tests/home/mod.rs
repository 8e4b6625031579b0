//! A home folder filled with corpus files, `agentwire import` run over it, and what it wrote: the
//! pieces every import test uses.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agentwire");

/// A file of `tests/corpus/`.
pub fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(name)
}

/// A fresh folder for one test (`tag`), holding `home/` with each corpus file at its place, and
/// room for outputs.
pub fn scratch(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("agentwire-import-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    for (file, place) in files {
        let target = root.join("home").join(place);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::copy(corpus(file), &target).unwrap_or_else(|err| panic!("{file}: {err}"));
    }
    root
}

/// `agentwire ARGS`: its exit code, stdout and stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BIN).args(args).output().expect("run agentwire");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

/// `agentwire import ROOT/home --out ROOT/OUT EXTRA...`: its exit code and stderr (it writes
/// nothing on stdout).
pub fn import(root: &Path, out: &str, extra: &[&str]) -> (i32, String) {
    let (home, out) = (root.join("home"), root.join(out));
    let mut args = vec!["import", home.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(stdout, "", "import writes nothing on stdout");
    (code, stderr)
}

/// The index lines by input, relative to `home/`.
pub fn index(root: &Path, out: &str) -> BTreeMap<String, Value> {
    let text = fs::read_to_string(root.join(out).join("sessions.jsonl")).expect("the index");
    let home = format!("{}/", root.join("home").display());
    text.lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).expect("an index line is JSON");
            let input = entry["input"].as_str().unwrap().strip_prefix(&home).unwrap().to_owned();
            (input, entry)
        })
        .collect()
}

/// Every file under `dir` (relative path) with its bytes.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                found.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    found
}
