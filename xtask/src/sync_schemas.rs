//! `cargo xtask sync-schemas <source> [--version V]`: refresh a vendored upstream schema from the
//! pinned npm package that ships it.
//!
//! Packages are installed with `npm install --ignore-scripts` into a cache folder outside the
//! repository (`$AGENTWIRE_CACHE`, else `$XDG_CACHE_HOME/agentwire`, else `~/.cache/agentwire`),
//! one folder per package and version, reused on the next run. Each source writes an `UPSTREAM.md`
//! recording what was installed, what was read and its sha256.
//!
//! - `codex-app-server`: the binary of `@openai/codex` runs `app-server generate-json-schema
//!   --experimental` with a scratch `HOME`/`CODEX_HOME`; the output replaces
//!   `schemas/codex-app-server/`.
//! - `acp`: `@agentclientprotocol/sdk` ships the Agent Client Protocol JSON Schema as data
//!   (`schema/v1/`); its files are copied into `schemas/acp/`, next to the hand-written Cursor
//!   extension schema, which a refresh leaves alone.
//! - `opencode`: the binary of `opencode-ai` runs `opencode serve` off the network (a scratch
//!   home, proxies that refuse, the plugin install it would run pre-seeded) and its `GET /doc`,
//!   keys sorted and indented by two, replaces `schemas/opencode/openapi.json`; `UPSTREAM.md`
//!   gets the version and hash, its findings stay.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

const USAGE: &str = "usage: cargo xtask sync-schemas codex-app-server|acp|opencode|claude-agent-sdk|codex-exec|codex-rollout|--all [--version V]";

/// The pinned Codex version; bump it here and re-run to refresh.
const CODEX_VERSION: &str = "0.171.0";
const CODEX_PACKAGE: &str = "@openai/codex";
/// Where the npm package keeps the real (musl) binary on x86_64 Linux.
const CODEX_BINARY: &str = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
/// The bundle the code generator reads; its hash identifies the schema.
pub const CODEX_BUNDLE: &str = "codex_app_server_protocol.schemas.json";

/// The hand-kept record of `schema-diff` reports between pinned versions, in the vendored folder.
const CODEX_DRIFT: &str = "DRIFT.md";

/// The pinned ACP SDK version; bump it here and re-run to refresh.
const ACP_VERSION: &str = "2.4.0";
const ACP_PACKAGE: &str = "@agentclientprotocol/sdk";
/// The folder of the package that holds protocol v1's schema files.
const ACP_SCHEMA_DIR: &str = "schema/v1";
/// The stable protocol v1 schema: the one the code generator reads.
const ACP_SCHEMA: &str = "schema.json";
/// Vendored beside it: the unstable superset declares fields real agents already send (`models`
/// on `session/new`, `sessionCapabilities.fork`, ...) that the stable schema does not.
const ACP_UNSTABLE_SCHEMA: &str = "schema.unstable.json";
/// Method tables the upstream repository publishes next to the schemas; vendored when the
/// package ships them (2.4.0 does not: the methods are read from the schema's `x-method`).
const ACP_META_FILES: [&str; 2] = ["meta.json", "meta.unstable.json"];

/// The pinned OpenCode version; bump it here and re-run to refresh.
const OPENCODE_VERSION: &str = "1.18.33";
const OPENCODE_PACKAGE: &str = "opencode-ai";
/// Where the package's optional dependency for this platform keeps the native binary.
const OPENCODE_BINARIES: [&str; 3] = [
    "node_modules/opencode-linux-x64/bin/opencode",
    "node_modules/opencode-linux-x64-baseline/bin/opencode",
    "node_modules/opencode-linux-arm64/bin/opencode",
];
/// The vendored document, relative to the workspace root.
const OPENCODE_DOCUMENT: &str = "schemas/opencode/openapi.json";

/// A schema written by hand from an upstream package's types: a refresh is a person's work, so
/// `sync-schemas` only reports how far upstream has moved.
struct HandWritten {
    source: &'static str,
    package: &'static str,
    /// The version the schema was written against (its `UPSTREAM.md` says so too).
    version: &'static str,
}

const HAND_WRITTEN: [HandWritten; 3] = [
    HandWritten {
        source: "claude-agent-sdk",
        package: "@anthropic-ai/claude-agent-sdk",
        version: "0.2.62",
    },
    HandWritten {
        source: "codex-exec",
        package: "@openai/codex-sdk",
        version: "0.163.0",
    },
    HandWritten {
        source: "codex-rollout",
        package: CODEX_PACKAGE,
        version: CODEX_VERSION,
    },
];

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let (source, version) = match args {
        [source] => (source.as_str(), None),
        [source, flag, version] if flag == "--version" && source != "--all" => {
            (source.as_str(), Some(version.as_str()))
        }
        _ => bail!("{USAGE}"),
    };
    match source {
        "--all" => {
            sync_codex_app_server(root, CODEX_VERSION)?;
            sync_acp(root, ACP_VERSION)?;
            sync_opencode(root, OPENCODE_VERSION)?;
            report_hand_written_sources();
            Ok(())
        }
        "codex-app-server" => sync_codex_app_server(root, version.unwrap_or(CODEX_VERSION)),
        "acp" => sync_acp(root, version.unwrap_or(ACP_VERSION)),
        "opencode" => sync_opencode(root, version.unwrap_or(OPENCODE_VERSION)),
        other => match HAND_WRITTEN.iter().find(|hand| hand.source == other) {
            Some(hand) => {
                report_hand_written(hand);
                Ok(())
            }
            None => {
                let known = [
                    "codex-app-server",
                    "acp",
                    "opencode",
                    "claude-agent-sdk",
                    "codex-exec",
                    "codex-rollout",
                ];
                bail!("no schema source named {other:?}; known: {}\n{USAGE}", known.join(", "))
            }
        },
    }
}

/// Reports every hand-written source (see [`report_hand_written`]).
pub fn report_hand_written_sources() {
    HAND_WRITTEN.iter().for_each(report_hand_written);
}

/// Says which upstream version a hand-written schema follows and whether a newer one is
/// published; when one is, and the package ships TypeScript declarations, lists the exported
/// names the newer declarations add and remove. Never fails: an unreachable registry or an
/// install that does not work is reported, not fatal.
fn report_hand_written(hand: &HandWritten) {
    let newest = Command::new("npm")
        .args(["view", hand.package, "version"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    let status = match newest.as_deref() {
        Some(newest) if newest == hand.version => "up to date".to_string(),
        Some(newest) => format!(
            "{newest} is published: review `schemas/{}/UPSTREAM.md` against it",
            hand.source
        ),
        None => "the newest version could not be read (`npm view` failed)".to_string(),
    };
    eprintln!(
        "schemas/{}: hand-written against {}@{}; {status}",
        hand.source, hand.package, hand.version
    );
    if let Some(newest) = newest.filter(|newest| newest != hand.version) {
        match declaration_changes(hand.package, hand.version, &newest) {
            Ok(Some(changes)) => eprintln!("{changes}"),
            Ok(None) => eprintln!("  {} ships no TypeScript declarations to compare", hand.package),
            Err(err) => eprintln!("  comparing the declarations failed: {err:#}"),
        }
    }
}

/// The exported names the package's `.d.ts` entry point adds and removes from `old` to `new`,
/// or `None` when the package declares no types.
fn declaration_changes(package: &str, old: &str, new: &str) -> Result<Option<String>> {
    let folder = package.trim_start_matches('@').replace('/', "-");
    let read = |version: &str| -> Result<Option<std::collections::BTreeSet<String>>> {
        let installed = npm_install(&folder, package, version)?
            .join("node_modules")
            .join(package);
        let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(installed.join("package.json"))?)?;
        let Some(types) = manifest
            .get("types")
            .or_else(|| manifest.get("typings"))
            .and_then(serde_json::Value::as_str)
        else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(installed.join(types))
            .with_context(|| format!("reading {types} of {package}@{version}"))?;
        Ok(Some(exported_names(&text)))
    };
    let (Some(before), Some(after)) = (read(old)?, read(new)?) else {
        return Ok(None);
    };
    let list = |names: Vec<&String>| {
        if names.is_empty() {
            "none".to_string()
        } else {
            names.iter().map(|name| name.as_str()).collect::<Vec<_>>().join(", ")
        }
    };
    Ok(Some(format!(
        "  exported types {old} -> {new}: added {}; removed {}",
        list(after.difference(&before).collect()),
        list(before.difference(&after).collect())
    )))
}

/// The names a declaration file exports: `export [declare] type|interface|class|function|const|enum X`.
fn exported_names(text: &str) -> std::collections::BTreeSet<String> {
    const KINDS: [&str; 7] = [
        "type ",
        "interface ",
        "class ",
        "function ",
        "const ",
        "enum ",
        "namespace ",
    ];
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("export ")?;
            let rest = rest.strip_prefix("declare ").unwrap_or(rest);
            let rest = KINDS.iter().find_map(|kind| rest.strip_prefix(kind))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

fn sync_codex_app_server(root: &Path, version: &str) -> Result<()> {
    let out = codex_schema_out(version)?;
    let target = root.join("schemas/codex-app-server");
    // The drift record is the project's own, not upstream output: it survives a refresh.
    let drift = std::fs::read(target.join(CODEX_DRIFT)).ok();
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    copy_tree(&out, &target)?;
    if let Some(drift) = drift {
        std::fs::write(target.join(CODEX_DRIFT), drift)?;
    }
    let sha = sha256_file(&target.join(CODEX_BUNDLE))?;
    std::fs::write(target.join("UPSTREAM.md"), codex_upstream_md(version, &sha))?;
    eprintln!("schemas/codex-app-server: {CODEX_PACKAGE} {version}, bundle sha256 {sha}");
    eprintln!("next: cargo xtask codegen");
    Ok(())
}

/// Installs `@openai/codex` `version` (cached) and has its binary write the app-server schema
/// into a folder of the cache, which is returned.
fn codex_schema_out(version: &str) -> Result<PathBuf> {
    let install = npm_install("codex", CODEX_PACKAGE, version)?;
    let binary = install.join(CODEX_BINARY);
    ensure!(
        binary.exists(),
        "{CODEX_PACKAGE}@{version} installed but {CODEX_BINARY} is missing"
    );

    let scratch = install.join("scratch-home");
    let codex_home = scratch.join(".codex");
    std::fs::create_dir_all(&codex_home)?;
    let out = install.join("schema-out");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    let args = ["app-server", "generate-json-schema", "--experimental", "--out"];
    let status = Command::new(&binary)
        .args(args)
        .arg(&out)
        .env("HOME", &scratch)
        .env("CODEX_HOME", &codex_home)
        .status()
        .with_context(|| format!("running {}", binary.display()))?;
    ensure!(status.success(), "codex app-server generate-json-schema failed");
    Ok(out)
}

/// The app-server schema bundle of codex `version`, as `sync-schemas` would vendor it.
pub fn codex_bundle(version: &str) -> Result<PathBuf> {
    Ok(codex_schema_out(version)?.join(CODEX_BUNDLE))
}

/// The ACP schema of `@agentclientprotocol/sdk` `version`, as `sync-schemas` would vendor it.
pub fn acp_schema(version: &str) -> Result<PathBuf> {
    let prefix = npm_install("acp-sdk", ACP_PACKAGE, version)?;
    let schema = prefix
        .join("node_modules")
        .join(ACP_PACKAGE)
        .join(ACP_SCHEMA_DIR)
        .join(ACP_SCHEMA);
    ensure!(
        schema.exists(),
        "{ACP_PACKAGE}@{version} ships no {ACP_SCHEMA_DIR}/{ACP_SCHEMA}"
    );
    Ok(schema)
}

fn codex_upstream_md(version: &str, sha: &str) -> String {
    format!(
        "# schemas/codex-app-server — vendored, do not edit\n\n\
         | | |\n|---|---|\n\
         | program | `codex app-server` from npm `{CODEX_PACKAGE}` |\n\
         | version | **{version}** |\n\
         | command | `codex app-server generate-json-schema --experimental --out DIR` (scratch `HOME`/`CODEX_HOME`) |\n\
         | bundle | `{CODEX_BUNDLE}`, sha256 `{sha}` |\n\n\
         The `--experimental` output is a superset of the stable one (the same server methods, more client\n\
         methods and experimental fields); real clients such as T3 Code turn experimental APIs on, and the\n\
         corpus traces use them. The code generator reads only the bundle; the per-type files are kept as\n\
         the program wrote them so a refresh is a plain diff.\n\n\
         Refresh: `cargo xtask sync-schemas codex-app-server [--version V]`, then `cargo xtask codegen`.\n\
         The version pin lives in `xtask/src/sync_schemas.rs` (`CODEX_VERSION`).\n"
    )
}

fn sync_acp(root: &Path, version: &str) -> Result<()> {
    let prefix = npm_install("acp-sdk", ACP_PACKAGE, version)?;
    let from = prefix.join("node_modules").join(ACP_PACKAGE).join(ACP_SCHEMA_DIR);
    let target = root.join("schemas/acp");
    std::fs::create_dir_all(&target)?;

    let mut vendored = Vec::new();
    for file in [ACP_SCHEMA, ACP_UNSTABLE_SCHEMA] {
        let source = from.join(file);
        ensure!(
            source.exists(),
            "{ACP_PACKAGE}@{version} ships no {ACP_SCHEMA_DIR}/{file}"
        );
        vendored.push(vendor_file(&source, &target.join(file))?);
    }
    for file in ACP_META_FILES {
        let (source, dest) = (from.join(file), target.join(file));
        if source.exists() {
            vendored.push(vendor_file(&source, &dest)?);
        } else if dest.exists() {
            std::fs::remove_file(&dest)?;
        }
    }
    std::fs::write(target.join("UPSTREAM.md"), acp_upstream_md(version, &vendored))?;
    for file in &vendored {
        eprintln!(
            "schemas/acp/{}: {ACP_PACKAGE} {version}, sha256 {}",
            file.name, file.sha256
        );
    }
    eprintln!("next: cargo xtask codegen");
    Ok(())
}

fn sync_opencode(root: &Path, version: &str) -> Result<()> {
    let document = opencode_document(version)?;
    let target = root.join(OPENCODE_DOCUMENT);
    std::fs::copy(&document, &target).with_context(|| format!("writing {}", target.display()))?;
    let sha = sha256_file(&target)?;
    let upstream = target.with_file_name("UPSTREAM.md");
    let text = std::fs::read_to_string(&upstream).with_context(|| format!("reading {}", upstream.display()))?;
    std::fs::write(&upstream, opencode_upstream_md(&text, version, &sha)?)?;
    eprintln!("{OPENCODE_DOCUMENT}: {OPENCODE_PACKAGE} {version}, sha256 {sha}");
    eprintln!("next: cargo xtask codegen (and review UPSTREAM.md's gaps against the corpus)");
    Ok(())
}

/// The OpenAPI document `opencode serve` of `opencode-ai` `version` publishes at `GET /doc`,
/// normalized as it is vendored, in a file of the cache.
pub fn opencode_document(version: &str) -> Result<PathBuf> {
    let install = npm_install("opencode", OPENCODE_PACKAGE, version)?;
    let binary = OPENCODE_BINARIES
        .iter()
        .map(|binary| install.join(binary))
        .find(|binary| binary.exists())
        .with_context(|| {
            format!("{OPENCODE_PACKAGE}@{version} installed but no native binary of {OPENCODE_BINARIES:?}")
        })?;
    let scratch = install.join("scratch");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    let home = scratch.join("home");
    let config = home.join(".config/opencode");
    let work = scratch.join("work");
    let tmp = scratch.join("tmp");
    for dir in [&config.join("node_modules"), &work, &tmp] {
        std::fs::create_dir_all(dir)?;
    }
    // OpenCode installs `@opencode-ai/plugin` into its config folder in the background (an npm
    // reify against the registry) unless `node_modules` exists and the lock file lists it.
    let lock = serde_json::json!({
        "name": "opencode-config", "lockfileVersion": 3, "requires": true,
        "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}},
    });
    std::fs::write(config.join("package-lock.json"), lock.to_string())?;
    let models = scratch.join("models.json");
    std::fs::write(&models, "{}")?;
    let mut command = Command::new(&binary);
    command
        .args(["serve", "--hostname", "127.0.0.1", "--port", "0"])
        .current_dir(&work)
        .env_clear()
        .envs(
            ["PATH", "LANG"]
                .iter()
                .filter_map(|key| Some((key, std::env::var_os(key)?))),
        )
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("TMPDIR", &tmp)
        .env("OPENCODE_MODELS_PATH", &models)
        .env("OPENCODE_CONFIG_CONTENT", r#"{"autoupdate":false,"share":"disabled"}"#)
        // Port 9 (discard) refuses: no request leaves the machine.
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    for flag in [
        "AUTOUPDATE",
        "DEFAULT_PLUGINS",
        "MODELS_FETCH",
        "LSP_DOWNLOAD",
        "SHARE",
        "CLAUDE_CODE",
        "EXTERNAL_SKILLS",
        "EMBEDDED_WEB_UI",
    ] {
        command.env(format!("OPENCODE_DISABLE_{flag}"), "1");
    }
    let mut server = command
        .spawn()
        .with_context(|| format!("running {}", binary.display()))?;
    let fetched = served_port(&mut server).and_then(|port| http_get(port, "/doc"));
    server.kill().ok();
    server.wait().ok();
    let document: serde_json::Value =
        serde_json::from_slice(&fetched?).context("`GET /doc` answered no JSON document")?;
    let out = install.join("openapi.json");
    std::fs::write(&out, vendored_json(&document))?;
    Ok(out)
}

/// The port `opencode serve` says it listens on (`listening on http://127.0.0.1:PORT`).
fn served_port(server: &mut std::process::Child) -> Result<u16> {
    use std::io::BufRead;
    let stdout = server.stdout.take().context("the server's stdout")?;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line?;
        if let Some(rest) = line.split("listening on http://127.0.0.1:").nth(1) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            return digits.parse().with_context(|| format!("no port in {line:?}"));
        }
    }
    bail!("opencode serve ended without saying where it listens")
}

/// The body of `GET path` on 127.0.0.1:`port` (HTTP/1.1, the body whole or chunked).
fn http_get(port: u16, path: &str) -> Result<Vec<u8>> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .context("an HTTP answer without a header end")?;
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    ensure!(
        head.starts_with("http/1.1 200"),
        "GET {path} answered {:?}",
        head.lines().next().unwrap_or_default()
    );
    let body = &answer[split + 4..];
    if !head.contains("transfer-encoding: chunked") {
        return Ok(body.to_vec());
    }
    let (mut rest, mut whole) = (body, Vec::new());
    loop {
        let end = rest
            .windows(2)
            .position(|window| window == b"\r\n")
            .context("a chunk without a size line")?;
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&rest[..end])
                .split(';')
                .next()
                .unwrap_or("")
                .trim(),
            16,
        )
        .context("a chunk size that is no hex number")?;
        if size == 0 {
            return Ok(whole);
        }
        let data = rest
            .get(end + 2..end + 2 + size)
            .context("a chunk shorter than its size")?;
        whole.extend_from_slice(data);
        rest = rest.get(end + 4 + size..).context("a chunk without its line end")?;
    }
}

/// A JSON document as `schemas/opencode/openapi.json` is vendored: keys sorted, two-space
/// indentation, a final newline (Python's `json.dumps(doc, indent=2, sort_keys=True,
/// ensure_ascii=False)`, which wrote the first copy).
pub fn vendored_json(document: &serde_json::Value) -> String {
    fn sorted(value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => {
                let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                entries.sort_by_key(|(one, _)| *one);
                serde_json::Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.clone(), sorted(value)))
                        .collect(),
                )
            }
            serde_json::Value::Array(items) => serde_json::Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut text = serde_json::to_string_pretty(&sorted(document)).expect("a JSON value serializes");
    text.push('\n');
    text
}

/// `UPSTREAM.md` of `schemas/opencode/` with the version and hash rows of its table rewritten;
/// the rest (the findings checked against the captures) is the maintainers' and stays.
fn opencode_upstream_md(text: &str, version: &str, sha: &str) -> Result<String> {
    let mut found = (false, false);
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("| program |") {
                found.0 = true;
                format!(
                    "| program | OpenCode **{version}**: npm `{OPENCODE_PACKAGE}@{version}`, native binary of its optional dependency `opencode-linux-x64@{version}` |"
                )
            } else if line.starts_with("| sha256 of `openapi.json` |") {
                found.1 = true;
                format!("| sha256 of `openapi.json` | `{sha}` |")
            } else {
                line.to_string()
            }
        })
        .collect();
    ensure!(
        found == (true, true),
        "schemas/opencode/UPSTREAM.md has no `| program |` or `| sha256 of `openapi.json` |` row to update"
    );
    Ok(lines.join("\n") + "\n")
}

/// A file copied from a package into `schemas/`, with the hash `UPSTREAM.md` records.
struct Vendored {
    name: String,
    bytes: u64,
    sha256: String,
}

fn vendor_file(source: &Path, dest: &Path) -> Result<Vendored> {
    let bytes = std::fs::copy(source, dest).with_context(|| format!("copying {}", source.display()))?;
    let name = dest
        .file_name()
        .context("vendored file has a name")?
        .to_string_lossy()
        .into_owned();
    Ok(Vendored {
        name,
        bytes,
        sha256: sha256_file(dest)?,
    })
}

fn acp_upstream_md(version: &str, vendored: &[Vendored]) -> String {
    let rows: String = vendored
        .iter()
        .map(|file| {
            format!(
                "| `{name}` | `{ACP_SCHEMA_DIR}/{name}` | {bytes} | `{sha}` |\n",
                name = file.name,
                bytes = file.bytes,
                sha = file.sha256,
            )
        })
        .collect();
    format!(
        "# schemas/acp — vendored Agent Client Protocol schema\n\n\
         | | |\n|---|---|\n\
         | package | npm `{ACP_PACKAGE}` |\n\
         | version | **{version}** |\n\
         | command | `npm install --ignore-scripts --save-exact --prefix <cache>/acp-sdk-{version} {ACP_PACKAGE}@{version}`, then copy |\n\n\
         | file | in the package | bytes | sha256 |\n|---|---|---|---|\n\
         {rows}\n\
         `{ACP_SCHEMA}` is protocol v1, stable: the code generator reads it. `{ACP_UNSTABLE_SCHEMA}` is its\n\
         unstable superset, kept for the fields and methods real agents already send that the stable\n\
         schema does not declare. Both are byte-for-byte the package's files: do not edit them.\n\
         `cursor-extensions.schema.json` is hand-written and not touched by a refresh; `README.md` says\n\
         how the generator reads the ACP method table and where typify needs help.\n\n\
         Refresh: `cargo xtask sync-schemas acp [--version V]`, then `cargo xtask codegen`.\n\
         The version pin lives in `xtask/src/sync_schemas.rs` (`ACP_VERSION`).\n"
    )
}

/// Installs `package@version` into `<cache>/<folder>-<version>` unless that exact version is
/// already there, and returns that install prefix (the package is in `node_modules/<package>`,
/// its dependencies beside it). Install scripts never run: every source here only needs files
/// the tarballs carry.
pub fn npm_install(folder: &str, package: &str, version: &str) -> Result<PathBuf> {
    let prefix = cache_dir()?.join(format!("{folder}-{version}"));
    let installed = prefix.join("node_modules").join(package);
    if installed_version(&installed).as_deref() == Some(version) {
        return Ok(prefix);
    }
    std::fs::create_dir_all(&prefix)?;
    let spec = format!("{package}@{version}");
    eprintln!("installing {spec} into {}", prefix.display());
    let status = Command::new("npm")
        .args([
            "install",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
        ])
        .arg(&prefix)
        .arg(&spec)
        .status()
        .context("running npm (is node installed?)")?;
    ensure!(status.success(), "npm install {spec} failed");
    let found = installed_version(&installed);
    ensure!(
        found.as_deref() == Some(version),
        "npm install {spec} left version {found:?} in {}",
        installed.display()
    );
    Ok(prefix)
}

/// The `version` of the package installed in `dir`, if any.
fn installed_version(dir: &Path) -> Option<String> {
    let manifest = std::fs::read(dir.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).ok()?;
    Some(manifest.get("version")?.as_str()?.to_string())
}

fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("AGENTWIRE_CACHE") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(dir).join("agentwire"));
    }
    let home = std::env::var_os("HOME").context("neither AGENTWIRE_CACHE, XDG_CACHE_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".cache/agentwire"))
}

fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The vendored OpenAPI document is what `sync-schemas opencode` writes from the same
    /// document: refreshing it with the same version changes no byte.
    #[test]
    fn the_opencode_document_is_vendored_as_normalized() {
        let path = crate::project_root().join(super::OPENCODE_DOCUMENT);
        let text = std::fs::read_to_string(&path).expect("the vendored document");
        let document: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert!(
            super::vendored_json(&document) == text,
            "normalizing the vendored document changes it"
        );
        let upstream = std::fs::read_to_string(path.with_file_name("UPSTREAM.md")).expect("UPSTREAM.md");
        let sha = super::sha256_file(&path).expect("a hash");
        let rewritten = super::opencode_upstream_md(&upstream, super::OPENCODE_VERSION, &sha).expect("the rows");
        assert!(
            rewritten == upstream,
            "UPSTREAM.md does not record the vendored version and hash"
        );
    }

    #[test]
    fn exported_names_are_read_from_declarations() {
        let text = "export type A = string;\nexport declare function query(): void;\n  export interface B {}\nexport { C } from './c';\nconst d = 1;\nexport declare const VERSION: string;";
        let names: Vec<String> = super::exported_names(text).into_iter().collect();
        assert_eq!(names, ["A", "B", "VERSION", "query"]);
    }
}
