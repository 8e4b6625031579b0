// How fast events reach JavaScript, decoded: codex-app-server corpus traces replayed until
// ~20 MB of lines, each pass of a trace one session (a new normalizer), through `received` /
// `sent` by the record's `dir` with its `ts`. Usage (from the crate's folder, after
// `node build.mjs --release`):
//   /usr/bin/time -v node bench/throughput.mjs json|text [MB]
// json: the addon's JSON text, JSON.parse'd here (what index.js does); text: the JSON text, not
// parsed (the cost of parsing is json - text). The addon of commit 9214b7f also had
// `receivedObjects` / `sentObjects`, building the objects in Rust (mode `objects`); README.md has
// the figures that chose JSON text. AGENTWIRE_NODE_ADDON names another build of the addon (a
// `.node` file) to load instead of the one beside index.js.
import { createRequire } from "node:module";

import { platformSuffix } from "../platform.js";
import { traces } from "./traces.mjs";

const addon = createRequire(import.meta.url)(
  process.env.AGENTWIRE_NODE_ADDON ?? `../agentwire.${platformSuffix()}.node`,
);
const mode = process.argv[2] ?? "json";
const megabytes = Number(process.argv[3] ?? 20);
const push = {
  json: (n, { dir, at, msg }) => JSON.parse(dir === "in" ? n.received(msg, at) : n.sent(msg, at)),
  text: (n, { dir, at, msg }) => (dir === "in" ? n.received(msg, at) : n.sent(msg, at)),
}[mode];

let bytes = 0;
let lines = 0;
let events = 0;
const started = process.hrtime.bigint();
while (bytes < megabytes * 1e6) {
  for (const records of traces) {
    const normalizer = new addon.NativeNormalizer({ from: "codex-app-server", sessionId: `bench-${lines}` });
    for (const record of records) {
      const out = push(normalizer, record);
      events += typeof out === "string" ? 1 : out.length;
      bytes += record.msg.length + 1;
      lines += 1;
    }
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  `${mode}: ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB of messages, ${events} ${mode === "text" ? "texts" : "events"} in ${seconds.toFixed(2)} s: ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, ${Math.round(lines / seconds)} lines/s`,
);
