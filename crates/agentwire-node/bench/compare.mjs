// The addon against a TypeScript host's own first step and against the CLI, on one core: the
// codex app-server corpus replayed to ~MB megabytes of messages (every trace in name order,
// repeated), each program pinned with `taskset -c CORE` under `/usr/bin/time -v`:
//
// - addon: throughput.mjs json (the release addon's events, JSON.parse'd, as index.js gives them),
//   and throughput.mjs text (the same calls, the JSON text not parsed: the cost of JSON.parse is
//   the difference);
// - stand-in: standin.mjs (JSON.parse, an Effect Schema.Union over the protocol's methods,
//   JSON.stringify: no mapping at all);
// - cli: `agentwire normalize` (release) over the same records written to one file, its output
//   to /dev/null.
//
// Prints one table: CPU time (user + system: on a shared machine wall time also counts other
// jobs' use of the core), MB/s of messages over CPU time, the node scripts' own loop time, peak
// RSS; then the ratios and the load average. Usage, from the crate's folder, after
// `node build.mjs --release`, `cargo build --release -p agentwire-cli` and `npm ci` in
// tests/typescript:
//   node bench/compare.mjs [MB] [--core N] [--addon FILE.node] [--cli PATH]
// The CLI defaults to $CARGO_TARGET_DIR/release/agentwire, else target/release/agentwire.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "../../..");
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const [value] = argv.splice(at, 2).slice(1);
  return value;
};
const core = option("--core", "1");
const addon = option("--addon", undefined);
const cli = resolve(
  option("--cli", join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "release/agentwire")),
);
const megabytes = Number(argv[0] ?? 20);

// The CLI's input: the same records, in the same order, as one file.
const corpus = join(root, "tests/corpus/codex-app-server");
const RECORD = /^\{"dir":"(in|out)",(?:"ts":(-?\d+),)?"msg":(.*)\}$/;
const unit = readdirSync(corpus)
  .filter((name) => name.endsWith(".jsonl"))
  .sort()
  .flatMap((name) =>
    readFileSync(join(corpus, name), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== ""),
  );
const records = [];
let bytes = 0;
while (bytes < megabytes * 1e6) {
  for (const line of unit) {
    records.push(line);
    bytes += RECORD.exec(line)[3].length + 1;
  }
}
const scratch = mkdtempSync(join(tmpdir(), "agentwire-compare-"));
const input = join(scratch, "codex-app-server.jsonl");
writeFileSync(input, records.join("\n") + "\n");

/** Runs a command pinned under time -v; its CPU seconds, peak RSS (MB) and stdout. */
const measure = (command, args, env = {}) => {
  const result = spawnSync("taskset", ["-c", core, "/usr/bin/time", "-v", command, ...args], {
    cwd: join(here, ".."),
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${result.stderr.slice(-4000)}`);
  }
  const field = (name) => Number(new RegExp(`${name}: ([\\d.]+)`).exec(result.stderr)[1]);
  return {
    cpu: field("User time \\(seconds\\)") + field("System time \\(seconds\\)"),
    rss: field("Maximum resident set size \\(kbytes\\)") / 1024,
    stdout: result.stdout,
  };
};

const loop = (stdout) => /in ([\d.]+) s: ([\d.]+) MB\/s/.exec(stdout);
const load = loadavg();
const rows = [];
try {
  const addonEnv = addon ? { AGENTWIRE_NODE_ADDON: resolve(addon) } : {};
  const runs = [
    ["addon (JSON text + JSON.parse)", "node", ["bench/throughput.mjs", "json", String(megabytes)], addonEnv],
    ["addon, JSON text not parsed", "node", ["bench/throughput.mjs", "text", String(megabytes)], addonEnv],
    ["stand-in (JSON.parse + Schema.Union + JSON.stringify)", "node", ["bench/standin.mjs", String(megabytes)]],
    ["cli (agentwire normalize > /dev/null)", cli, ["normalize", input]],
  ];
  for (const [name, command, args, env] of runs) {
    const { cpu, rss, stdout } = measure(command, args, env);
    const timed = loop(stdout);
    rows.push({ name, cpu, rss, loop: timed ? `${timed[1]} s, ${timed[2]} MB/s` : "-" });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const mb = bytes / 1e6;
console.log(
  `codex-app-server corpus, ${records.length} records, ${mb.toFixed(1)} MB of messages; taskset -c ${core}; node ${process.version}\n`,
);
console.log("| program | CPU s | MB/s (CPU) | node loop | max RSS MB |");
console.log("|---|---|---|---|---|");
for (const row of rows) {
  console.log(`| ${row.name} | ${row.cpu.toFixed(2)} | ${(mb / row.cpu).toFixed(1)} | ${row.loop} | ${row.rss.toFixed(0)} |`);
}
const [addonRow, , standin, cliRow] = rows;
console.log(
  `\naddon / stand-in throughput: ${(standin.cpu / addonRow.cpu).toFixed(2)}x (goal >= 3); addon / cli: ${(cliRow.cpu / addonRow.cpu).toFixed(2)}x`,
);
console.log(
  `load average before: ${load.map((value) => value.toFixed(2)).join(" ")}; after: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}`,
);
