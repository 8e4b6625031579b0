/**
 * A consumer compiled by `tsc` to JavaScript (T3 Code's TypeScript pin and compiler options, with
 * emit), then run by node: the names T3 Code's server imports from its `providerRuntime.ts`, from
 * the packed `@agentwire/provider-runtime`, and the addon's `Normalizer` typed with them.
 */
import { readFileSync } from "node:fs";

import { Normalizer } from "@agentwire/node";
import {
  decodeProviderRuntimeEvent,
  isEventType,
  isToolLifecycleItemType,
  ProviderRuntimeTurnStatus,
  ThreadTokenUsageSnapshot,
  ToolLifecycleItemType,
  UserInputQuestion,
  type ProviderRuntimeEvent,
  type RuntimeContentStreamKind,
} from "@agentwire/provider-runtime";
import * as Schema from "effect/Schema";

const [trace, golden] = process.argv.slice(2);
if (trace === undefined || golden === undefined) throw new Error("usage: node consumer.js <trace> <golden>");
const lines = (path: string): Array<string> =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
const RECORD = /^\{"dir":"(in|out)",(?:"ts":(-?\d+),)?"msg":(.*)\}$/;

const first = JSON.parse(lines(golden)[0] ?? "{}") as { sessionId: string };
const normalizer = new Normalizer({ from: "codex-app-server", sessionId: first.sessionId });
const events: Array<ProviderRuntimeEvent> = [];
for (const line of lines(trace)) {
  const match = RECORD.exec(line);
  if (match === null) throw new Error(`not a trace record: ${line}`);
  const [, dir, ts, msg = ""] = match;
  const at = ts === undefined ? undefined : Number(ts);
  events.push(...(dir === "in" ? normalizer.received(msg, at) : normalizer.sent(msg, at)));
}
events.push(...normalizer.finish());

const tools: Array<ToolLifecycleItemType> = events
  .filter(isEventType("item.started"))
  .map((event) => event.payload.itemType)
  .filter(isToolLifecycleItemType);
const states: Array<ProviderRuntimeTurnStatus> = events
  .filter(isEventType("turn.completed"))
  .map((event) => Schema.decodeUnknownSync(ProviderRuntimeTurnStatus)(event.payload.state));
const usage: Array<ThreadTokenUsageSnapshot> = events
  .filter(isEventType("thread.token-usage.updated"))
  .map((event) => Schema.decodeUnknownSync(ThreadTokenUsageSnapshot)(event.payload.usage));
const question: UserInputQuestion = Schema.decodeUnknownSync(UserInputQuestion)({ id: "q", question: "Which?" });
const streams: Array<RuntimeContentStreamKind> = events
  .filter(isEventType("content.delta"))
  .map((event) => event.payload.streamKind);
for (const event of events) decodeProviderRuntimeEvent(event);

if (tools.length === 0 || states.length === 0 || usage.length === 0) {
  throw new Error(`missing events: ${tools.length} tool items, ${states.length} turns, ${usage.length} usage`);
}
console.log(
  `consumer.ts (compiled): ${events.length} events decoded; tool items ${[...new Set(tools)].join(", ")}; ` +
    `turns ${states.join(", ")}; ${usage.length} usage snapshots; ${streams.length} deltas; ${JSON.stringify(question)}`,
);
