//! The throughput baseline of `cargo xtask bench`: every line of the input parsed into a
//! serde_json `Value` and serialized again, one line out per line in, read and written through
//! the same 64 KiB buffers as `agentwire normalize`. The goal is a normalizer no slower
//! than this.

use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect("usage: serde_baseline FILE");
    let mut input = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = Vec::new();
    while input.read_until(b'\n', &mut line)? > 0 {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&line) {
            serde_json::to_writer(&mut out, &value)?;
            out.write_all(b"\n")?;
        }
        line.clear();
    }
    out.flush()
}
