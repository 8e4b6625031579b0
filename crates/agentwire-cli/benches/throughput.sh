#!/usr/bin/env bash
# Throughput of `agentwire normalize` against its floor and its baseline (see README.md here).
#
#   crates/agentwire-cli/benches/throughput.sh        # ~200 MB input, 5 timed runs each
#   BENCH_MB=50 BENCH_RUNS=3 crates/agentwire-cli/benches/throughput.sh
#   BENCH_NO_HYPERFINE=1 ...   # force the fallback timing loop
#
# Builds release, writes a ~BENCH_MB MB input by repeating every tests/corpus/codex-app-server
# trace into a temporary folder (removed on exit), then times, in one run:
#   (a) cat FILE > /dev/null                 the I/O floor (page cache)
#   (b) json_roundtrip FILE > /dev/null      baseline: serde_json Value parse + print per line
#   (c) agentwire normalize FILE > /dev/null the normalizer
# with hyperfine when it is installed, else a loop of timed runs. Max RSS of (b) and (c) and the
# output sizes come from one more run each under GNU `/usr/bin/time -v`. Installs nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
MB="${BENCH_MB:-200}"
RUNS="${BENCH_RUNS:-5}"
WARMUP="${BENCH_WARMUP:-1}"

cd "$ROOT"
echo "== build (release)"
cargo build --release -p agentwire-cli --examples --bins
AGENTWIRE="$TARGET/release/agentwire"
BASELINE="$TARGET/release/examples/json_roundtrip"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/agentwire-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
INPUT="$TMP/input.jsonl"

echo "== input: ~$MB MB of repeated tests/corpus/codex-app-server/*.jsonl"
cat tests/corpus/codex-app-server/*.jsonl >"$TMP/corpus.jsonl"
corpus_bytes=$(wc -c <"$TMP/corpus.jsonl")
copies=$(((MB * 1000000 + corpus_bytes - 1) / corpus_bytes))
for ((i = 0; i < copies; i++)); do cat "$TMP/corpus.jsonl"; done >"$INPUT"
read -r in_lines in_bytes < <(wc -lc <"$INPUT")
echo "$copies copies of $corpus_bytes bytes: $in_bytes bytes, $in_lines lines"
cat "$INPUT" >/dev/null # into the page cache

names=(cat json_roundtrip normalize)
commands=("cat '$INPUT' > /dev/null" "'$BASELINE' '$INPUT' > /dev/null" "'$AGENTWIRE' normalize '$INPUT' > /dev/null")
declare -A mean stddev

if [[ -z ${BENCH_NO_HYPERFINE:-} ]] && command -v hyperfine >/dev/null; then
  echo "== timing with $(hyperfine --version): $WARMUP warm-up + $RUNS runs each"
  args=()
  for i in "${!names[@]}"; do args+=(-n "${names[$i]}" "${commands[$i]}"); done
  hyperfine --warmup "$WARMUP" --runs "$RUNS" --style basic --export-csv "$TMP/times.csv" "${args[@]}"
  # command,mean,stddev,median,user,system,min,max
  while IFS=, read -r name m s _; do
    mean[$name]=$m
    stddev[$name]=$s
  done < <(tail -n +2 "$TMP/times.csv")
else
  echo "== timing without hyperfine (apt-get install hyperfine for better statistics): $RUNS runs each"
  for i in "${!names[@]}"; do
    name=${names[$i]}
    for ((w = 0; w < WARMUP; w++)); do bash -c "${commands[$i]}"; done
    samples=()
    for ((r = 0; r < RUNS; r++)); do
      start=$(date +%s%N)
      bash -c "${commands[$i]}"
      samples+=($((($(date +%s%N) - start) / 1000)))
    done
    read -r mean[$name] stddev[$name] < <(printf '%s\n' "${samples[@]}" |
      awk '{ s += $1 / 1e6; q += ($1 / 1e6) ^ 2; n++ } END { m = s / n; v = q / n - m * m; printf "%.6f %.6f\n", m, (v > 0 ? sqrt(v) : 0) }')
    printf '%-15s %.3f s ± %.3f s\n' "$name" "${mean[$name]}" "${stddev[$name]}"
  done
fi

echo "== max RSS and output size (one more run each under /usr/bin/time -v)"
declare -A rss out_bytes out_lines
for name in json_roundtrip normalize; do
  if [[ $name == normalize ]]; then cmd=("$AGENTWIRE" normalize "$INPUT"); else cmd=("$BASELINE" "$INPUT"); fi
  if [[ -x /usr/bin/time ]]; then
    read -r out_lines[$name] out_bytes[$name] < <(/usr/bin/time -v -o "$TMP/time-$name.txt" "${cmd[@]}" | wc -lc)
    rss[$name]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$TMP/time-$name.txt")
  else
    read -r out_lines[$name] out_bytes[$name] < <("${cmd[@]}" | wc -lc)
    rss[$name]="n/a (no GNU /usr/bin/time)"
  fi
done

echo
echo "== results (MB = 10^6 bytes; throughput = input bytes / mean wall time)"
printf 'input: %s bytes, %s lines\n' "$in_bytes" "$in_lines"
printf '%-15s %10s %10s %12s %16s %14s %12s\n' command "mean s" "± s" "MB/s" "max RSS KiB" "out bytes" "out lines"
for name in "${names[@]}"; do
  mbps=$(awk -v b="$in_bytes" -v t="${mean[$name]}" 'BEGIN { printf "%.1f", b / 1e6 / t }')
  if [[ $name == cat ]]; then
    r="-" ob="-" ol="-"
  else
    r=${rss[$name]} ob=${out_bytes[$name]} ol=${out_lines[$name]}
  fi
  printf '%-15s %10.3f %10.3f %12s %16s %14s %12s\n' "$name" "${mean[$name]}" "${stddev[$name]}" "$mbps" "$r" "$ob" "$ol"
done
awk -v n="${mean[normalize]}" -v b="${mean[json_roundtrip]}" -v ob="${out_bytes[normalize]}" -v ib="$in_bytes" \
  'BEGIN { printf "normalize / baseline time: %.2fx; normalize output / input bytes: %.2fx\n", n / b, ob / ib }'
