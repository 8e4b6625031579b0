// A plain-node consumer of the two packed packages (no TypeScript anywhere): replays a corpus
// trace through `@agentwire/node`'s `Normalizer` as a live host would, checks every event equals
// the trace's golden line, and decodes each with `@agentwire/provider-runtime`'s strict decoder.
// Usage: node consumer.mjs <trace.jsonl> <golden.jsonl>  (scripts/pack-check.mjs runs it).
import { readFileSync } from "node:fs";

import { Normalizer } from "@agentwire/node";
import { decodeProviderRuntimeEvent, isEventType } from "@agentwire/provider-runtime";

const [trace, golden] = process.argv.slice(2);
const lines = (path) => readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "");
const expected = lines(golden);
const RECORD = /^\{"dir":"(in|out)",(?:"ts":(-?\d+),)?"msg":(.*)\}$/;

const normalizer = new Normalizer({ from: "codex-app-server", sessionId: JSON.parse(expected[0]).sessionId });
const events = [];
for (const line of lines(trace)) {
  const [, dir, ts, msg] = RECORD.exec(line);
  const at = ts === undefined ? undefined : Number(ts);
  events.push(...(dir === "in" ? normalizer.received(msg, at) : normalizer.sent(msg, at)));
}
events.push(...normalizer.finish());

const fail = (message) => {
  console.error(`consumer.mjs: ${message}`);
  process.exit(1);
};
if (normalizer.problems.length > 0) fail(`problems: ${JSON.stringify(normalizer.problems)}`);
if (events.length !== expected.length) fail(`${events.length} events, the golden has ${expected.length}`);
events.forEach((event, index) => {
  if (JSON.stringify(event) !== expected[index]) fail(`event ${index + 1} differs from the golden`);
  decodeProviderRuntimeEvent(event);
});
const completed = events.filter(isEventType("turn.completed")).length;
if (completed === 0) fail("no turn.completed");
console.log(`consumer.mjs: ${events.length} events, each the golden's and decoded strictly (${completed} turn.completed)`);
