/**
 * The Node addon (`@agentwire/node`, built from `crates/agentwire-node` by `cargo xtask test`
 * before `npm ci` installs it) fed as a live host feeds it: every corpus trace
 * (`tests/corpus/<source>/*.jsonl`) line by line, a transcript record's bare `msg` through
 * `received` or `sent` by its `dir` with its `ts` as `at`, a bare line through `received`, then
 * `finish`:
 *
 * - the addon's JSON text is the golden (`tests/golden/<source>/<trace>.jsonl`) byte for byte,
 *   and the events `Normalizer` returns are the golden's, decoded;
 * - every event decodes with the generated strict decoder;
 * - a reply built by `answer` and pushed through `sent` in place of the client's recorded reply
 *   resolves its request with the recorded decision;
 * - bad input: an unreadable line gives its `runtime.warning` and a problem with its line number,
 *   an unusable call throws an `Error`; `detect` names the source of a trace's lines.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

import { type Answer, type Decision, detect, Normalizer, type NormalizerOptions, type Source } from "@agentwire/node";
import type { ProviderRuntimeEvent } from "@agentwire/provider-runtime";
import { describe, expect, it } from "vitest";

import { TESTS_DIR } from "../shared/canonicalLines.ts";
import { decodeProviderRuntimeEvent } from "../src/providerRuntime.gen.ts";

/** One line of a trace as a live host has it: the message, its direction and its time. */
interface Message {
  readonly number: number;
  readonly dir: "in" | "out";
  readonly at: number | undefined;
  readonly msg: string;
}

/** A transcript record as the corpus writes it, the message's bytes kept as they are. */
const RECORD = /^\{"dir":"(in|out)",(?:"ts":(-?\d+),)?"msg":(.*)\}$/;

interface Trace {
  readonly source: Source;
  readonly name: string;
  readonly transcript: boolean;
  readonly messages: ReadonlyArray<Message>;
  readonly golden: string;
}

const traces = (): Array<Trace> =>
  readdirSync(join(TESTS_DIR, "golden"))
    .sort()
    .flatMap((source) =>
      readdirSync(join(TESTS_DIR, "corpus", source))
        .filter((file) => file.endsWith(".jsonl"))
        .sort()
        .map((file) => {
          const path = join(TESTS_DIR, "corpus", source, file);
          const lines = readFileSync(path, "utf8")
            .split("\n")
            .map((text, index) => ({ text, number: index + 1 }))
            .filter(({ text }) => text.trim() !== "");
          const transcript = lines[0] !== undefined && RECORD.test(lines[0].text);
          const messages = lines.map(({ text, number }): Message => {
            if (!transcript) return { number, dir: "in", at: undefined, msg: text };
            const record = RECORD.exec(text);
            if (record === null) throw new Error(`${path}:${number}: not a {"dir","ts","msg"} record`);
            const [, dir, ts, msg] = record;
            return { number, dir: dir === "out" ? "out" : "in", at: ts === undefined ? undefined : Number(ts), msg: msg ?? "" };
          });
          const name = basename(file, ".jsonl");
          const golden = readFileSync(join(TESTS_DIR, "golden", source, `${name}.jsonl`), "utf8");
          return { source: source as Source, name, transcript, messages, golden };
        }),
    );

/**
 * The options a trace is replayed with. A transcript's default session id derives from its
 * first record, a line a live host never has: the golden's session id is given instead.
 */
const options = (trace: Trace): NormalizerOptions => {
  if (!trace.transcript) return { from: trace.source };
  const first = JSON.parse(trace.golden.slice(0, trace.golden.indexOf("\n"))) as { sessionId: string };
  return { from: trace.source, sessionId: first.sessionId };
};

/** The addon's own class, whose calls give the events as the JSON text `index.js` parses. */
interface NativeNormalizer {
  received(line: string, at?: number): string;
  sent(line: string, at?: number): string;
  finish(): string;
}

const installed = fileURLToPath(new URL("../node_modules/@agentwire/node/", import.meta.url));
const addonFile = readdirSync(installed).find((file) => file.endsWith(".node"));
const native = createRequire(import.meta.url)(join(installed, addonFile ?? "no-addon.node")) as {
  NativeNormalizer: new (options: NormalizerOptions) => NativeNormalizer;
};

/** The trace replayed through the addon's own class: its JSON lines, as the CLI writes them. */
const replayText = (trace: Trace): string => {
  const normalizer = new native.NativeNormalizer(options(trace));
  const texts = trace.messages.map(({ dir, at, msg }) =>
    dir === "in" ? normalizer.received(msg, at) : normalizer.sent(msg, at),
  );
  texts.push(normalizer.finish());
  // Each text is a JSON array of the events as the addon wrote them; they are cut apart, not
  // parsed (JSON.stringify would write `0.0` as `0`).
  return texts
    .flatMap((text) => splitArray(text))
    .map((event) => `${event}\n`)
    .join("");
};

/** The elements of a JSON array text of objects, each as its own text, found by depth. */
const splitArray = (text: string): Array<string> => {
  const elements: Array<string> = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let at = 1; at < text.length - 1; at++) {
    const char = text[at];
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") {
      if (depth === 0) start = at;
      depth++;
    } else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) elements.push(text.slice(start, at + 1));
    }
  }
  return elements;
};

/** The trace replayed through the package's `Normalizer`, as a host calls it. */
const replay = (trace: Trace, normalizer = new Normalizer(options(trace))): Array<ProviderRuntimeEvent> => {
  const events = trace.messages.flatMap(({ dir, at, msg }) =>
    dir === "in" ? normalizer.received(msg, at) : normalizer.sent(msg, at),
  );
  return [...events, ...normalizer.finish()];
};

const all = traces();

describe("the installed package", () => {
  const built = fileURLToPath(new URL("../../../crates/agentwire-node/", import.meta.url));

  it("holds the loader, its types and the addon built for this platform", () => {
    expect(readdirSync(installed).sort()).toEqual(
      ["README.md", addonFile, "index.d.ts", "index.js", "package.json", "platform.js"].sort(),
    );
  });

  it("is the crate's build (else run `npm ci` again)", () => {
    for (const file of readdirSync(installed)) {
      expect(readFileSync(join(installed, file)).equals(readFileSync(join(built, file))), file).toBe(true);
    }
  });
});

describe("the addon replays every corpus trace", () => {
  it(`has the ${all.length} traces of every source with goldens`, () => {
    expect(new Set(all.map((trace) => trace.source)).size).toBe(8);
    expect(all.length).toBeGreaterThan(200);
  });

  // Debug builds of the addon take seconds for the whole corpus.
  it("writes each golden byte for byte", { timeout: 120_000 }, () => {
    const differing = all
      .filter((trace) => replayText(trace) !== trace.golden)
      .map((trace) => `${trace.source}/${trace.name}`);
    expect(differing).toEqual([]);
  });

  it("returns the golden's events, decoded, each accepted by the strict decoder", { timeout: 120_000 }, () => {
    const failures: Array<string> = [];
    let events = 0;
    for (const trace of all) {
      const actual = replay(trace);
      const expected = trace.golden
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as unknown);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) failures.push(`${trace.source}/${trace.name}: differs`);
      for (const [index, event] of actual.entries()) {
        try {
          decodeProviderRuntimeEvent(event);
        } catch (error) {
          failures.push(`${trace.source}/${trace.name}: event ${index + 1}: ${String(error)}`);
        }
      }
      events += actual.length;
    }
    console.info(`@agentwire/node: ${events} events from ${all.length} traces`);
    expect(failures).toEqual([]);
  });
});

/** The provider's id of a request as its reply names it: a JSON-RPC `id`, or Claude's `request_id`. */
const repliedRequest = (msg: string): string | undefined => {
  const message = JSON.parse(msg) as { id?: unknown; method?: unknown; response?: { request_id?: unknown } };
  if (message.method === undefined && message.id !== undefined) return String(message.id);
  const claude = message.response?.request_id;
  return typeof claude === "string" ? claude : undefined;
};

const APPROVALS: ReadonlyArray<Decision> = ["accept", "acceptForSession", "decline", "cancel"];

describe("answer", () => {
  it("builds replies that, sent in place of the recorded ones, resolve their requests as they did", { timeout: 120_000 }, () => {
    const failures: Array<string> = [];
    let answered = 0;
    for (const trace of all.filter((candidate) => candidate.transcript)) {
      const recorded = replay(trace);
      const decisions = new Map<string, string | undefined>();
      for (const event of recorded) {
        if (event.type === "request.resolved" && event.requestId !== undefined) {
          decisions.set(event.requestId, event.payload.decision);
        }
      }
      const normalizer = new Normalizer(options(trace));
      const open = new Map<string, NonNullable<ProviderRuntimeEvent["requestId"]>>();
      const sent = new Map<NonNullable<ProviderRuntimeEvent["requestId"]>, string>();
      const events: Array<ProviderRuntimeEvent> = [];
      for (const message of trace.messages) {
        const provider = message.dir === "out" ? repliedRequest(message.msg) : undefined;
        const requestId = provider === undefined ? undefined : open.get(provider);
        const decision = requestId === undefined ? undefined : decisions.get(requestId);
        let line = message.msg;
        if (requestId !== undefined && APPROVALS.some((approval) => approval === decision)) {
          try {
            line = normalizer.answer({ requestId, decision: decision as Decision });
            sent.set(requestId, `${trace.source}/${trace.name}:${message.number}: ${line}`);
          } catch (error) {
            failures.push(`${trace.source}/${trace.name}:${message.number}: ${String(error)}`);
          }
        }
        const pushed = message.dir === "in" ? normalizer.received(line, message.at) : normalizer.sent(line, message.at);
        for (const event of pushed) {
          const providerRequest = event.providerRefs?.providerRequestId;
          if (event.type === "request.opened" && event.requestId !== undefined && providerRequest !== undefined) {
            open.set(providerRequest, event.requestId);
          }
          if (event.type === "request.resolved" && providerRequest !== undefined) open.delete(providerRequest);
        }
        events.push(...pushed);
      }
      for (const [requestId, where] of sent) {
        const resolved = events.find((event) => event.type === "request.resolved" && event.requestId === requestId);
        answered += 1;
        if (resolved?.type !== "request.resolved" || resolved.payload.decision !== decisions.get(requestId)) {
          failures.push(`${where}: resolved ${JSON.stringify(resolved?.payload)}, recorded ${decisions.get(requestId)}`);
        }
      }
    }
    console.info(`@agentwire/node: ${answered} replies built and sent`);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);
  });

  it("throws an Error naming why no reply can be built", () => {
    const normalizer = new Normalizer({ from: "codex-app-server" });
    const requestId = "no-such-request" as Answer["requestId"];
    expect(() => normalizer.answer({ requestId, decision: "accept" })).toThrow(/no request no-such-request/);
  });
});

describe("bad input", () => {
  it("an unreadable line gives its runtime.warning and a problem with its line number", () => {
    const normalizer = new Normalizer({ from: "codex-app-server", sessionId: "bad-input" });
    const events = [...normalizer.received('{"id":2,', 1_796_016_332_008), ...normalizer.received("")];
    events.push(...normalizer.finish());
    const warnings = events.filter((event) => event.type === "runtime.warning");
    expect(warnings.length).toBe(1);
    expect(JSON.stringify(warnings[0])).toContain('{\\"id\\":2,');
    expect(normalizer.problems).toEqual([
      { line: 1, kind: "unreadable", message: expect.stringMatching(/^not JSON: EOF while parsing/) },
    ]);
  });

  it("an unusable call throws an Error with the line number and the reason", () => {
    const normalizer = new Normalizer({ from: "acp" });
    expect(() => normalizer.received("{}", 1.5)).toThrow("line 1: `at` must be an integer of Unix milliseconds, got 1.5");
    expect(() => new Normalizer({ from: "nope" as Source })).toThrow(/unknown format "nope"; known: codex-app-server/);
    expect(() => new Normalizer({ from: "acp", clock: "sundial" as "wall" })).toThrow(/unknown clock "sundial"/);
  });
});

describe("detect", () => {
  it("names the source of each trace from its lines", { timeout: 120_000 }, () => {
    const wrong = all
      .filter((trace) => {
        const lines = trace.messages.map(({ msg }) => msg);
        const detected = detect(lines);
        // Bare messages: a Claude control transcript's lines are Claude's stream-json lines.
        const expected = trace.source === "claude-control" ? "claude" : trace.source;
        return detected !== expected;
      })
      .map((trace) => `${trace.source}/${trace.name}`);
    expect(wrong).toEqual([]);
    expect(detect(["not json"])).toBeNull();
  });
});
