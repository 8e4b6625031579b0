// The stand-in the addon is measured against: what a TypeScript host does with a codex
// app-server line before any mapping. Each message is `JSON.parse`d, decoded with an Effect
// `Schema.Union` over the protocol's messages (one `Schema.Struct` per method of the pinned
// schema, `schemas/codex-app-server/`: the method literal, `id` where the message has one,
// `params` as `Schema.Unknown`; plus the response and error shapes), and `JSON.stringify`d.
// Same records, same ~20 MB loop as throughput.mjs. Usage (after `npm ci` in tests/typescript,
// whose effect it imports):
//   /usr/bin/time -v node bench/standin.mjs [MB]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { traces } from "./traces.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const Schema = await import(pathToFileURL(join(root, "tests/typescript/node_modules/effect/dist/Schema.js")).href);
const megabytes = Number(process.argv[2] ?? 20);

const protocol = JSON.parse(
  readFileSync(join(root, "schemas/codex-app-server/codex_app_server_protocol.schemas.json"), "utf8"),
).definitions;
const Id = Schema.Union([Schema.String, Schema.Number]);
const members = [];
for (const union of ["ServerNotification", "ServerRequest", "ClientRequest", "ClientNotification"]) {
  for (const message of protocol[union].oneOf) {
    const method = message.properties.method.enum?.[0] ?? message.properties.method.const;
    const fields = { method: Schema.Literal(method) };
    if ("id" in message.properties) fields.id = Id;
    if ("params" in message.properties) {
      fields.params = message.required.includes("params") ? Schema.Unknown : Schema.optional(Schema.Unknown);
    }
    members.push(Schema.Struct(fields));
  }
}
members.push(Schema.Struct({ id: Id, result: Schema.Unknown }), Schema.Struct({ id: Id, error: Schema.Unknown }));
const decode = Schema.decodeUnknownSync(Schema.Union(members));

let bytes = 0;
let lines = 0;
let written = 0;
const started = process.hrtime.bigint();
while (bytes < megabytes * 1e6) {
  for (const records of traces) {
    for (const { msg } of records) {
      written += JSON.stringify(decode(JSON.parse(msg))).length;
      bytes += msg.length + 1;
      lines += 1;
    }
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  `standin: ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB of messages, ${members.length} union members, ${(written / 1e6).toFixed(1)} MB written in ${seconds.toFixed(2)} s: ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, ${Math.round(lines / seconds)} lines/s`,
);
