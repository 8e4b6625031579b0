//! `cargo xtask sync-prices [--version V]`: refresh the vendored price table from LiteLLM's
//! `model_prices_and_context_window.json` (the table ccusage prices with), as the `litellm` wheel
//! on PyPI ships it (`litellm/model_prices_and_context_window_backup.json`): PyPI is reachable
//! where GitHub is not, and a release pins the data.
//!
//! What is kept (`schemas/prices/model_prices.json`): the models a coding agent's calls are priced
//! by (`mode` `chat`, `completion` or `responses`, with an input and an output price per token),
//! each with its provider and its per-token prices under upstream's own names: input, output,
//! cache read, cache write, reasoning output, and each of them above a prompt size
//! (`*_above_<N>k_tokens`). Batch, priority and flex prices, and prices per image, audio or
//! second, are no agent's interactive calls and are left out. One model per line, sorted, so a
//! refresh reads as a diff.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

/// The LiteLLM release the table is taken from when no `--version` is given.
pub const LITELLM_VERSION: &str = "1.110.2";

/// Where the table and its notes are vendored.
pub const PRICES_DIR: &str = "schemas/prices";
/// The vendored table.
pub const TABLE: &str = "model_prices.json";

/// The file inside the wheel.
const IN_WHEEL: &str = "litellm/model_prices_and_context_window_backup.json";

/// The per-token prices agentwire reads, each also kept above a prompt size.
pub const PRICE_KEYS: [&str; 5] = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "output_cost_per_reasoning_token",
];

const MODES: [&str; 3] = ["chat", "completion", "responses"];

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let version = match args {
        [] => LITELLM_VERSION,
        [flag, version] if flag == "--version" => version.as_str(),
        _ => bail!("usage: cargo xtask sync-prices [--version V]"),
    };
    let scratch = std::env::temp_dir().join(format!("agentwire-sync-prices-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--quiet",
            "-d",
        ])
        .arg(&scratch)
        .arg(format!("litellm=={version}"))
        .status()
        .context("running python3 -m pip download")?;
    if !status.success() {
        bail!("pip could not download litellm {version} from PyPI");
    }
    let wheel = std::fs::read_dir(&scratch)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .context("pip downloaded no wheel")?;
    let table = unzip(&wheel, IN_WHEEL)?;
    let license = unzip(&wheel, &format!("litellm-{version}.dist-info/licenses/LICENSE"))?;
    let upstream: Map<String, Value> =
        serde_json::from_str(&table).with_context(|| format!("{IN_WHEEL} of litellm {version} is no JSON object"))?;
    let (kept, text) = trim(&upstream);
    let dir = root.join(PRICES_DIR);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(TABLE), text)?;
    std::fs::write(dir.join("LICENSE-litellm"), license)?;
    std::fs::write(dir.join("VERSION"), format!("litellm {version}\n"))?;
    std::fs::remove_dir_all(&scratch).ok();
    eprintln!(
        "sync-prices: litellm {version}: {kept} of {} entries kept in {PRICES_DIR}/{TABLE}; run `cargo xtask codegen`",
        upstream.len()
    );
    Ok(())
}

/// One member of the wheel (a zip), read with Python's `zipfile`: the machine has Python, and
/// xtask needs no zip reader of its own for one file a refresh reads.
fn unzip(wheel: &Path, member: &str) -> Result<String> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
        ])
        .arg(wheel)
        .arg(member)
        .output()
        .context("running python3")?;
    if !output.status.success() {
        bail!(
            "{}: no {member}: {}",
            wheel.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8(output.stdout).with_context(|| format!("{member} is no UTF-8"))
}

/// Whether `key` is one of [`PRICE_KEYS`], alone or above a prompt size (`_above_200k_tokens`).
pub fn is_price_key(key: &str) -> bool {
    PRICE_KEYS.iter().any(|base| {
        key == *base
            || key
                .strip_prefix(base)
                .and_then(|rest| rest.strip_prefix("_above_"))
                .is_some_and(|rest| {
                    rest.strip_suffix("k_tokens")
                        .is_some_and(|size| !size.is_empty() && size.bytes().all(|byte| byte.is_ascii_digit()))
                })
    })
}

/// The models kept, as the vendored file's text: one `"model": {...}` per line.
fn trim(upstream: &Map<String, Value>) -> (usize, String) {
    let mut models: Vec<(&String, Map<String, Value>)> = Vec::new();
    for (name, entry) in upstream {
        let Some(entry) = entry.as_object() else { continue };
        let mode = entry.get("mode").and_then(Value::as_str).unwrap_or_default();
        let priced = ["input_cost_per_token", "output_cost_per_token"]
            .iter()
            .all(|key| entry.get(*key).is_some_and(Value::is_number));
        if !MODES.contains(&mode) || !priced {
            continue;
        }
        let mut kept = Map::new();
        if let Some(provider) = entry.get("litellm_provider") {
            kept.insert("litellm_provider".to_owned(), provider.clone());
        }
        let mut prices: Vec<(&String, &Value)> = entry
            .iter()
            .filter(|(key, value)| is_price_key(key) && value.is_number())
            .collect();
        prices.sort_by(|a, b| a.0.cmp(b.0));
        for (key, value) in prices {
            kept.insert(key.clone(), value.clone());
        }
        models.push((name, kept));
    }
    models.sort_by(|a, b| a.0.cmp(b.0));
    let mut text = String::from("{\n");
    for (index, (name, entry)) in models.iter().enumerate() {
        let comma = if index + 1 < models.len() { "," } else { "" };
        let _ = writeln!(
            text,
            "  {}: {}{comma}",
            Value::String((*name).clone()),
            Value::Object(entry.clone())
        );
    }
    text.push_str("}\n");
    (models.len(), text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{is_price_key, trim};

    #[test]
    fn the_per_token_prices_and_their_tiers_are_kept() {
        assert!(is_price_key("input_cost_per_token"));
        assert!(is_price_key("cache_read_input_token_cost_above_200k_tokens"));
        assert!(!is_price_key("input_cost_per_token_batches"));
        assert!(!is_price_key("input_cost_per_token_above_200k_tokens_priority"));
        assert!(!is_price_key("input_cost_per_audio_token"));
        assert!(!is_price_key("cache_creation_input_token_cost_above_1hr"));
    }

    #[test]
    fn chat_models_with_token_prices_are_kept_one_per_line() {
        let upstream = json!({
            "b-model": {"mode": "chat", "litellm_provider": "x", "input_cost_per_token": 1e-6,
                        "output_cost_per_token": 2e-6, "input_cost_per_token_batches": 5e-7, "max_tokens": 8},
            "a-embed": {"mode": "embedding", "input_cost_per_token": 1e-7, "output_cost_per_token": 0.0},
            "a-model": {"mode": "responses", "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6},
            "sample_spec": {"mode": "one of: chat", "input_cost_per_token": 0.0},
        });
        let (kept, text) = trim(upstream.as_object().unwrap());
        assert_eq!(kept, 2);
        assert_eq!(
            text,
            "{\n  \"a-model\": {\"input_cost_per_token\":1e-6,\"output_cost_per_token\":2e-6},\n  \
             \"b-model\": {\"litellm_provider\":\"x\",\"input_cost_per_token\":1e-6,\"output_cost_per_token\":2e-6}\n}\n"
        );
    }
}
