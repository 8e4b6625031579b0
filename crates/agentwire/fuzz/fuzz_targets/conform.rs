//! Any bytes, as the lines of a stream of any source, through the strict decoder of
//! `agentwire conform`: it never panics, whatever the line. The first line names the source.
#![no_main]

use agentwire::frame::{Frame, LineFormat};
use agentwire::source::Source;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(&selector) = data.first() else {
        return;
    };
    let input = String::from_utf8_lossy(data);
    // Seeds start with a line naming their source; a mutated name falls back to the first byte.
    let (name, text) = input.split_once('\n').unwrap_or((&input, ""));
    let source = name
        .parse::<Source>()
        .unwrap_or(Source::ALL[usize::from(selector) % Source::ALL.len()]);
    let format = LineFormat::of(text.lines().next().unwrap_or_default());
    let mut conformer = source.conformer();
    for line in text.lines() {
        if let Ok(frame) = Frame::parse(line, format) {
            let _ = conformer.decode(&frame);
        }
    }
});
