//! Criterion micro-benchmarks over the real corpus (`tests/corpus/<source>/`), per source:
//! - `decode/<source>`: every line framed and decoded into the generated provider types (the
//!   `agentwire conform` path);
//! - `map/<source>`: every line through the source's normalizer (decode and mapping), the events
//!   built but not written;
//! - `write/<source>`: the same, and every event written to JSONL as `agentwire normalize`
//!   writes it (`WriteJson`).
//!
//! Throughput is in input bytes. Run with `cargo bench -p agentwire --bench sources`; the
//! whole-process figures (against a serde_json baseline and node) come from `cargo xtask bench`.

use std::hint::black_box;

use agentwire::frame::{Frame, LineFormat};
use agentwire::normalizer::Options;
use agentwire::source::Source;
use agentwire_canonical::WriteJson;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

mod corpus;

/// One trace: its lines and their format.
struct Trace {
    format: LineFormat,
    lines: Vec<String>,
}

fn corpus(source: Source) -> Vec<Trace> {
    corpus::traces(&corpus::root().join(source.name()))
        .iter()
        .map(|path| {
            let lines = corpus::lines(path);
            let format = lines.first().map_or(LineFormat::Bare, |line| LineFormat::of(line));
            Trace { format, lines }
        })
        .collect()
}

fn bytes(traces: &[Trace]) -> u64 {
    traces
        .iter()
        .flat_map(|trace| &trace.lines)
        .map(|line| line.len() as u64 + 1)
        .sum()
}

fn benches(c: &mut Criterion) {
    for &source in Source::ALL {
        let traces = corpus(source);
        let mut group = c.benchmark_group(source.name());
        group.throughput(Throughput::Bytes(bytes(&traces)));
        group.bench_function("decode", |b| {
            b.iter(|| {
                for trace in &traces {
                    let mut conformer = source.conformer();
                    for line in &trace.lines {
                        if let Ok(frame) = Frame::parse(line, trace.format) {
                            let _ = black_box(conformer.decode(&frame));
                        }
                    }
                }
            });
        });
        group.bench_function("map", |b| {
            let mut events = Vec::new();
            b.iter(|| {
                for trace in &traces {
                    let mut normalizer = source.normalizer(Options::default());
                    for line in &trace.lines {
                        let _ = normalizer.push_line(line, trace.format, &mut events);
                        black_box(&events);
                        events.clear();
                    }
                    normalizer.finish(&mut events);
                    events.clear();
                }
            });
        });
        group.bench_function("write", |b| {
            let (mut events, mut out) = (Vec::new(), Vec::new());
            b.iter(|| {
                for trace in &traces {
                    let mut normalizer = source.normalizer(Options::default());
                    for line in &trace.lines {
                        let _ = normalizer.push_line(line, trace.format, &mut events);
                        for event in events.drain(..) {
                            event.write_json(&mut out).expect("an event writes");
                            out.push(b'\n');
                        }
                    }
                    normalizer.finish(&mut events);
                    events.clear();
                }
                black_box(&out);
                out.clear();
            });
        });
        group.finish();
    }
}

criterion_group!(sources, benches);
criterion_main!(sources);
