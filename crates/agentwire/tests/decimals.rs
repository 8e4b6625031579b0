//! Decimals read exactly by the library itself (regression of a fuzz crash).
//!
//! serde_json reads some decimals one unit in the last place off unless its `float_roundtrip`
//! feature is on. The CLI and the workspace's test crates had it only because `jsonschema`, which
//! they also use, turns it on; `agentwire` alone (a library user's build, the fuzz targets) did
//! not, so an ACP usage cost of `0.0012100000000000002` became a payload double that did not
//! round-trip through its own JSON. This crate's tests build without `jsonschema`, as a library
//! user does.
// The decimals are an ACP agent's usage cost.
#![cfg(feature = "acp")]

use agentwire::frame::LineFormat;
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_canonical::ProviderRuntimeEvent;

const DECIMALS: [&str; 5] = [
    "0.0012100000000000002",
    "0.30000000000000004",
    "2.2250738585072011e-308",
    "9007199254740993.5",
    "0.1000000000000000055511151231257827021181583404541015625",
];

#[test]
fn serde_json_reads_decimals_as_rust_does() {
    for decimal in DECIMALS {
        let read: f64 = serde_json::from_str(decimal).expect("a number");
        assert_eq!(Some(read), decimal.parse::<f64>().ok(), "{decimal}");
    }
}

/// The fuzz target's property over the crash's trace: every event round-trips through its JSON,
/// and the usage cost is the double the message wrote.
#[test]
fn a_usage_cost_round_trips_as_the_message_wrote_it() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/acp/multi_prompt.jsonl");
    let trace = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{path}: {err}"));
    for decimal in DECIMALS {
        let text = trace.replace("0.0012100000000000001", decimal);
        let format = LineFormat::of(text.lines().next().expect("a line"));
        let mut normalizer = Source::ACP.normalizer(Options::default());
        let mut events = Vec::new();
        for line in text.lines() {
            normalizer.push_line(line, format, &mut events).expect("the trace maps");
        }
        normalizer.finish(&mut events);
        for event in &events {
            let json = serde_json::to_string(event).expect("an event serializes");
            let back: ProviderRuntimeEvent = serde_json::from_str(&json).expect("its JSON decodes");
            assert_eq!(&back, event, "{decimal}: the event round-trips");
        }
        let usage = events
            .iter()
            .map(|event| serde_json::to_value(event).expect("an event serializes"))
            .find(|event| event["type"] == "thread.token-usage.updated")
            .expect("a usage update");
        let cost = usage["payload"]["usage"]["total"]["costUsd"].as_f64();
        assert_eq!(cost, decimal.parse::<f64>().ok(), "{decimal}");
    }
}
