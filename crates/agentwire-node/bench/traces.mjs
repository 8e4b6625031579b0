// The records both benches replay: every codex-app-server corpus trace, in name order, each a
// list of `{ dir, at, msg }` (the transcript record's direction, time and the message's text).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const corpus = fileURLToPath(new URL("../../../tests/corpus/codex-app-server/", import.meta.url));
const RECORD = /^\{"dir":"(in|out)",(?:"ts":(-?\d+),)?"msg":(.*)\}$/;

export const traces = readdirSync(corpus)
  .filter((name) => name.endsWith(".jsonl"))
  .sort()
  .map((name) =>
    readFileSync(join(corpus, name), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const [, dir, ts, msg] = RECORD.exec(line);
        return { dir, at: ts === undefined ? undefined : Number(ts), msg };
      }),
  );
