//! Criterion micro-benchmark of the secret scan every input line goes through, over every line of
//! the corpus (`tests/corpus/*/`):
//! - `secrets/needles`: where the needles lie (`agentwire::secrets::Needles::scan`, what the
//!   emitter runs on each line);
//! - `secrets/suspect`: whether there is one (`agentwire::secrets::suspect`, which stops at the
//!   first);
//! - `secrets/automaton`: the ASCII-case-insensitive Aho-Corasick DFA the scan replaced, which
//!   gives the same answers (the module's tests check it), for comparison.
//!
//! Throughput is in input bytes. Run with `cargo bench -p agentwire --bench secrets`.

use std::hint::black_box;

use agentwire::secrets;
use aho_corasick::{AhoCorasickBuilder, AhoCorasickKind};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

mod corpus;

/// Every non-blank line of every corpus trace, source directories and traces in name order.
fn corpus_lines() -> Vec<String> {
    let root = corpus::root();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|err| panic!("{}: {err}", root.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs.iter()
        .flat_map(|dir| corpus::traces(dir))
        .flat_map(|trace| corpus::lines(&trace))
        .collect()
}

fn benches(c: &mut Criterion) {
    let lines = corpus_lines();
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::DFA))
        .build(secrets::NEEDLES)
        .expect("the needles build an automaton");
    let mut group = c.benchmark_group("secrets");
    group.throughput(Throughput::Bytes(lines.iter().map(|line| line.len() as u64).sum()));
    let mut needles = secrets::Needles::default();
    group.bench_function("needles", |b| {
        b.iter(|| lines.iter().filter(|line| needles.scan(black_box(line))).count());
    });
    group.bench_function("suspect", |b| {
        b.iter(|| lines.iter().filter(|line| secrets::suspect(black_box(line))).count());
    });
    group.bench_function("automaton", |b| {
        b.iter(|| {
            lines
                .iter()
                .filter(|line| automaton.is_match(black_box(line.as_str())))
                .count()
        });
    });
}

criterion_group!(secrets_scan, benches);
criterion_main!(secrets_scan);
