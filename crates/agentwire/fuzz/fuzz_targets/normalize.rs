//! Any bytes, as the lines of a stream of any source: the normalizer never panics, and every
//! event it emits is valid canonical JSON that decodes back into the canonical type, written the
//! same by `WriteJson` (the CLI's writer) as by `Serialize`. The first
//! line names the source, so one target covers every source in `Source::ALL`.
#![no_main]

use agentwire::frame::LineFormat;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_canonical::{ProviderRuntimeEvent, WriteJson};
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
    let mut normalizer = source.normalizer(Options::default());
    let mut events = Vec::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let _ = normalizer.push_line(line, format, &mut events);
    }
    normalizer.finish(&mut events);
    for event in &events {
        let json = serde_json::to_string(event).expect("a canonical event serializes");
        let mut written = Vec::new();
        event.write_json(&mut written).expect("a canonical event writes");
        assert_eq!(written, json.as_bytes(), "WriteJson writes what Serialize writes");
        let back: ProviderRuntimeEvent = serde_json::from_str(&json).expect("its JSON decodes as a canonical event");
        assert_eq!(&back, event, "the event round-trips");
    }
});
