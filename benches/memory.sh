#!/usr/bin/env bash
# Peak RSS of `agentwire normalize` per source over its corpus repeated to ~20 MB, ~200 MB and
# ~1 GB (issue 12: under 32 MB and flat). Usage: benches/memory.sh [SIZE_MB...] (default 20 200 1000).
# Inputs are built in ${TMPDIR:-/tmp} and deleted after each run. BIN=path measures a binary
# already built instead of building target/release/agentwire.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-20 200 1000}")
read -r -a sizes <<<"${sizes[*]}"
if [ -z "${BIN:-}" ]; then
    cargo build --release -q -p agentwire-cli
fi
bin=${BIN:-target/release/agentwire}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentwire-memory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf '%-18s %8s %10s %8s %6s\n' source input_mb peak_rss_kb seconds exit
for source in $(ls tests/corpus); do
    [ -d "tests/corpus/$source" ] || continue
    base="$tmp/base.jsonl"
    for trace in tests/corpus/"$source"/*.jsonl; do
        cat "$trace"
        # A trace whose last line has no newline must not run into the next one.
        [ -n "$(tail -c1 "$trace")" ] && echo
    done >"$base"
    for mb in "${sizes[@]}"; do
        input="$tmp/input.jsonl"
        cp "$base" "$input"
        while [ "$(stat -c %s "$input")" -lt $((mb << 20)) ]; do
            cat "$input" "$input" >"$input.2" && mv "$input.2" "$input"
            if [ "$(stat -c %s "$input")" -gt $((mb << 20)) ]; then
                head -c $((mb << 20)) "$input" >"$input.2"
                # Cut at a line end so no line is truncated.
                head -n "$(($(wc -l <"$input.2")))" "$input" >"$input.3"
                mv "$input.3" "$input"
                rm -f "$input.2"
                break
            fi
        done
        size=$(($(stat -c %s "$input") >> 20))
        /usr/bin/time -v -o "$tmp/time" "$bin" normalize --from "$source" "$input" >/dev/null 2>"$tmp/stderr" && code=0 || code=$?
        rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
        secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
        printf '%-18s %8s %10s %8s %6s\n' "$source" "$size" "$rss" "$secs" "$code"
        rm -f "$input"
    done
done
