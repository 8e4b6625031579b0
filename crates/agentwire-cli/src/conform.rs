//! `agentwire conform`: does every line decode into the generated provider types?

use std::io::Write;

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;

use crate::ExitStatus;
use crate::input::Input;

/// Decodes every line of every file, printing `FILE: N/M decoded` and one line per failure.
pub fn run(from: Option<Source>, files: &[String], out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let mut status = ExitStatus::Success;
    for path in files {
        let mut input = Input::open(path)?;
        let (source, format) = input.detect(from)?;
        let (decoded, total) = conform_input(&mut input, source, format, out)?;
        writeln!(out, "{}: {decoded}/{total} decoded", input.name)?;
        if decoded != total {
            status = ExitStatus::Failure;
        }
    }
    Ok(status)
}

fn conform_input(
    input: &mut Input,
    source: Source,
    format: LineFormat,
    out: &mut impl Write,
) -> anyhow::Result<(usize, usize)> {
    let mut decoder = source.conformer();
    let (mut decoded, mut total) = (0, 0);
    let mut buf = Vec::new();
    while let Some(number) = input.next_line(&mut buf)? {
        total += 1;
        if let Some(reason) = input.unreadable() {
            writeln!(out, "{}:{number}: {reason}", input.name)?;
            continue;
        }
        let outcome = std::str::from_utf8(&buf)
            .map_err(|err| format!("not UTF-8: {err}"))
            .and_then(|line| Frame::parse(line, format).map_err(|err| err.to_string()))
            .and_then(|frame| decoder.decode(&frame).map_err(|problem| problem.message));
        match outcome {
            Ok(_) => decoded += 1,
            Err(reason) => writeln!(out, "{}:{number}: {reason}", input.name)?,
        }
    }
    Ok((decoded, total))
}
