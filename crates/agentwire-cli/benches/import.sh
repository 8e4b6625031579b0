#!/usr/bin/env bash
# `agentwire import` of a whole history on one and on two cores (see README.md here).
#
#   crates/agentwire-cli/benches/import.sh             # ~300 MB archive
#   BENCH_MB=50 BENCH_JOBS="1 2 4" crates/agentwire-cli/benches/import.sh
#
# Builds release, then writes an archive into a temporary folder (removed on exit) laid out as a
# home folder: every trace of tests/corpus/ repeated under new ids until the archive holds
# ~BENCH_MB MB, rollouts under .codex/sessions/2026/MM/DD/, Claude Code session files
# under .claude/projects/<project>/, the other sources under traces/<source>/<repetition>/. Each
# repetition gives every UUID its last eight hex digits XOR the repetition (as `cargo xtask
# bench` does), so no two rollouts or Claude runs share a session; the transcripts that open
# with the same record (ACP's `initialize`) share their first line, as real ones do.
# Then BENCH_RUNS rounds (default 5) of one import per -j in BENCH_JOBS (default "1 2") into an
# empty folder under GNU `/usr/bin/time -v` (wall, user + system CPU, peak RSS; the table gives
# medians), and one more run over the finished folder (everything up to date). The outputs go
# to the temporary folder, or under BENCH_OUT (for example /dev/shm, to time the import without
# the disk's file creation). BENCH_BIN=PATH times that agentwire binary instead of building
# one. The history database's part: the same import without it (--no-history), its size, and the
# latency of `agentwire search` over it. CCUSAGE=PATH (ccusage's binary) also times ccusage over
# the same home folder (`daily --offline --json`) beside `agentwire usage`. Installs nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
MB="${BENCH_MB:-300}"
JOBS="${BENCH_JOBS:-1 2}"
RUNS="${BENCH_RUNS:-5}"

cd "$ROOT"
if [ -n "${BENCH_BIN:-}" ]; then
  AGENTWIRE="$BENCH_BIN"
else
  echo "== build (release)"
  cargo build --release -p agentwire-cli --bins
  AGENTWIRE="$TARGET/release/agentwire"
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/agentwire-import-bench.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
HOME_DIR="$TMP/home"
OUT="$TMP"
if [ -n "${BENCH_OUT:-}" ]; then
  OUT="$(mktemp -d "$BENCH_OUT/agentwire-import-out.XXXXXX")"
  trap 'rm -rf "$TMP" "$OUT"' EXIT
fi

corpus_bytes=$(cat tests/corpus/*/*.jsonl | wc -c)
repetitions=$(((MB * 1000000 + corpus_bytes - 1) / corpus_bytes))
echo "== archive: $repetitions repetitions of tests/corpus/*/*.jsonl ($corpus_bytes bytes)"
perl -e '
  use strict; use warnings;
  my ($home, $repetitions, @files) = @ARGV;
  my %text;
  for my $file (@files) { local $/; open my $in, "<", $file or die "$file: $!"; $text{$file} = <$in>; }
  for my $rep (0 .. $repetitions - 1) {
    my ($month, $day) = (1 + int($rep / 28) % 12, 1 + $rep % 28);
    for my $file (@files) {
      my ($source, $name) = $file =~ m{([^/]+)/([^/]+)\.jsonl$} or die $file;
      my $dir = $source eq "codex-rollout" ? sprintf("%s/.codex/sessions/2026/%02d/%02d", $home, $month, $day)
              : $source eq "claude-session" ? sprintf("%s/.claude/projects/-home-dev-project-%02d", $home, $rep % 20)
              :                              "$home/traces/$source/$rep";
      my $path = $source eq "codex-rollout" ? "$dir/rollout-$name-$rep.jsonl" : "$dir/$name-$rep.jsonl";
      system("mkdir", "-p", $dir) unless -d $dir;
      my $text = $text{$file};
      $text =~ s{(?<![0-9A-Za-z])([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4})([0-9a-fA-F]{8})(?![0-9A-Za-z])}{
        my $tail = sprintf(($2 =~ /[A-F]/ ? "%08X" : "%08x"), hex($2) ^ $rep); "$1$tail" }ge if $rep;
      open my $out, ">", $path or die "$path: $!"; print $out $text; close $out;
    }
  }' "$HOME_DIR" "$repetitions" tests/corpus/*/*.jsonl
read -r files bytes < <(find "$HOME_DIR" -name '*.jsonl' -printf '%s\n' | awk '{n++; s+=$1} END {print n, s}')
echo "$files files, $bytes bytes"
find "$HOME_DIR" -name '*.jsonl' -exec cat {} + >/dev/null # into the page cache

field() { grep -F "$1" "$2" | sed 's/.*: //'; }
seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\n| run | wall s | CPU s (user + sys) | CPU / wall | peak RSS MB |\n|---|---|---|---|---|\n' >"$TMP/table"
# RUNS rounds, each importing once per -j into an empty folder, interleaved so that a slow
# moment of the machine falls on every -j alike; the table gives each figure's median.
for round in $(seq "$RUNS"); do
  for j in $JOBS; do
    out="$OUT/out-j$j"
    rm -rf "$out"
    sync # the previous run's writes reach the disk before this run is timed, not during it
    /usr/bin/time -v "$AGENTWIRE" import -j "$j" "$HOME_DIR" --out "$out" 2>"$TMP/time-j$j" || true
    echo "$(field "Elapsed (wall clock)" "$TMP/time-j$j" | seconds)" >>"$TMP/wall-j$j"
    echo "$(field "User time" "$TMP/time-j$j") + $(field "System time" "$TMP/time-j$j")" | bc >>"$TMP/cpu-j$j"
    field "Maximum resident set size" "$TMP/time-j$j" >>"$TMP/rss-j$j"
  done
done
declare -A wall
for j in $JOBS; do
  wall[$j]=$(median <"$TMP/wall-j$j")
  cpu=$(median <"$TMP/cpu-j$j")
  rss=$(median <"$TMP/rss-j$j")
  printf '| import -j%s | %.2f | %.2f | %.2f | %.1f |\n' "$j" "${wall[$j]}" "$cpu" "$(echo "$cpu / ${wall[$j]}" | bc -l)" "$(echo "$rss / 1024" | bc -l)" >>"$TMP/table"
done
last_j="${JOBS##* }"
/usr/bin/time -v "$AGENTWIRE" import -j "$last_j" "$HOME_DIR" --out "$OUT/out-j$last_j" 2>"$TMP/time-again" || true
again=$(field "Elapsed (wall clock)" "$TMP/time-again" | seconds)
printf '| again, all up to date (-j%s) | %.2f | %.2f | | %.1f |\n' "$last_j" "$again" \
  "$(echo "$(field "User time" "$TMP/time-again") + $(field "System time" "$TMP/time-again")" | bc)" \
  "$(echo "$(field "Maximum resident set size" "$TMP/time-again") / 1024" | bc -l)" >>"$TMP/table"

first_j="${JOBS%% *}"
if [[ -d "$OUT/out-j$first_j" && -d "$OUT/out-j$last_j" ]]; then
  diff -rq "$OUT/out-j$first_j" "$OUT/out-j$last_j" >/dev/null && same="byte-identical" || same="DIFFERENT"
  echo "== -j$first_j and -j$last_j outputs: $same ($(du -sb "$OUT/out-j$last_j" | cut -f1) bytes)"
fi
echo "== summary printed by the -j$last_j import"
sed '/Command being timed/,$d' "$TMP/time-j$last_j" | grep -v ': skipped: \|: unknown \|: ClaudeStreamLine\|:[0-9]*: '
echo "== $files files, $bytes bytes, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))"
cat "$TMP/table"
for j in $JOBS; do
  [[ $j == "$first_j" ]] || printf 'speedup -j%s over -j%s: %.2fx\n' "$j" "$first_j" "$(echo "${wall[$first_j]} / ${wall[$j]}" | bc -l)"
done

# The history database: the same import without it (--no-history), its size, and the latency of
# `agentwire search` (the whole command, as a person runs it) over it.
for round in $(seq "$RUNS"); do
  out="$OUT/out-nohistory"
  rm -rf "$out"
  sync
  /usr/bin/time -v "$AGENTWIRE" import -j "$last_j" --no-history "$HOME_DIR" --out "$out" 2>"$TMP/time-nohistory" || true
  field "Elapsed (wall clock)" "$TMP/time-nohistory" | seconds >>"$TMP/wall-nohistory"
done
rm -rf "$OUT/out-nohistory"
printf 'import -j%s without the history database: %.2f s (median of %s), with it: %.2f s\n' "$last_j" \
  "$(median <"$TMP/wall-nohistory")" "$RUNS" "${wall[$last_j]}"
database="$OUT/out-j$last_j/history.sqlite"
echo "history database: $(du -b "$database" | cut -f1) bytes, $(du -sb --exclude=history.sqlite "$OUT/out-j$last_j" | cut -f1) bytes of canonical files and index"
for query in echo hello "echo hello" README file touch error cancel subagent "the command" plan mock "created all" zzzqqq; do
  for _ in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$AGENTWIRE" search "$query" --dir "$OUT/out-j$last_j" >/dev/null
    echo $(( ($(date +%s%N) - start) / 1000 )) >>"$TMP/search-us"
    start=$(date +%s%N)
    "$AGENTWIRE" search "$query" --dir "$OUT/out-j$last_j" --sort newest >/dev/null
    echo $(( ($(date +%s%N) - start) / 1000 )) >>"$TMP/search-us"
  done
done
sort -n "$TMP/search-us" | awk '{ v[NR] = $1 } END { printf "search, %d runs of 14 queries (best and newest first): p50 %.1f ms, p99 %.1f ms\n", NR, v[int(NR * 0.5 + 0.5)] / 1000, v[int(NR * 0.99 + 0.5)] / 1000 }'
usage_s=$( { /usr/bin/time -f %e "$AGENTWIRE" usage "$OUT/out-j$last_j" --json >/dev/null; } 2>&1 )
echo "agentwire usage over the import: $usage_s s"
if [ -n "${CCUSAGE:-}" ]; then
  ccusage_s=$( { HOME="$HOME_DIR" /usr/bin/time -f %e "$CCUSAGE" daily --offline --json >/dev/null; } 2>&1 | tail -1 )
  echo "ccusage daily --offline --json over the home folder: $ccusage_s s"
fi
