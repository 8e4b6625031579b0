//! The baseline of the throughput benchmark (`benches/throughput.sh`): the least work any JSONL
//! normalizer must do. Reads FILE line by line, parses each line into a `serde_json::Value` and
//! writes it back compactly, one line each, to a buffered stdout. `agentwire normalize` does this
//! and more (typed decoding, id derivation, canonical events, raw copies), so the ratio of the two
//! times is the cost of normalization over plain JSON parsing and printing.
//!
//! `cargo run --release -p agentwire-cli --example json_roundtrip -- FILE > /dev/null`

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: json_roundtrip FILE");
        return ExitCode::from(2);
    };
    match roundtrip(&path) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(bad) => {
            eprintln!("{}: {bad} lines were not JSON", path.to_string_lossy());
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("{}: {err}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

/// Round-trips every non-blank line; returns how many lines were not JSON (skipped).
fn roundtrip(path: &std::ffi::OsStr) -> io::Result<u64> {
    let mut input = BufReader::with_capacity(1 << 16, File::open(path)?);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let (mut line, mut bad) = (String::new(), 0);
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let text = line.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => {
                serde_json::to_writer(&mut out, &value)?;
                out.write_all(b"\n")?;
            }
            Err(_) => bad += 1,
        }
    }
    out.flush()?;
    Ok(bad)
}
