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
 *   an unusable call throws an `Error` with its `code`; `detect` names the source of a trace's
 *   lines;
 * - live: a line given no `at` is stamped with the wall clock and its events come back from the
 *   call that pushed it (an ACP permission card while the agent waits), and each normalizer has
 *   its own fresh session id;
 * - an exported session (`tests/corpus/opencode-session/*.json`, `opencode export` documents)
 *   read whole by `document`: its golden byte for byte, pretty or on one line; a document cut
 *   short keeps the events read before the cut and gives a problem with its line; a source with
 *   no document form, a second document and lines after one are refused;
 * - `sources.d.ts`'s `Source` and `index.d.ts`'s `ErrorCode` unions are the addon's own lists.
 *
 * A live normalizer's default session id is a fresh UUIDv7, and a line with no `at` and no time
 * of its own takes the wall clock: the goldens (replayed files) are compared with the golden's
 * session id given, and, for a trace with such lines, with `createdAt` left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

import {
  type AgentwireError,
  type Answer,
  type Decision,
  detect,
  type ErrorCode,
  fold,
  Normalizer,
  type NormalizerOptions,
  type Source,
} from "@agentwire/node";
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
  /**
   * Some line reaches the addon without `at` (a bare line, a record without `ts`): live, it is
   * stamped with the wall clock where it carries no time of its own, so `createdAt` is not the
   * golden's.
   */
  readonly untimed: boolean;
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
          const untimed = messages.some((message) => message.at === undefined);
          return { source: source as Source, name, transcript, messages, golden, untimed };
        }),
    );

/**
 * The options a trace is replayed with: the golden's session id (a replayed file's derives from
 * its first line; a live normalizer's default is a fresh UUIDv7).
 */
const options = (trace: Trace): NormalizerOptions => {
  const first = JSON.parse(trace.golden.slice(0, trace.golden.indexOf("\n"))) as { sessionId: string };
  return { from: trace.source, sessionId: first.sessionId };
};

/** Event lines with every `createdAt` the same, for a trace stamped with the wall clock. */
const withoutTimes = (text: string): string => text.replace(/"createdAt":"[^"]*"/g, '"createdAt":"-"');

/** The addon's own class, whose calls give the events as the JSON text `index.js` parses. */
interface NativeNormalizer {
  received(line: string, at?: number): string;
  sent(line: string, at?: number): string;
  document(text: string): string;
  finish(): string;
}

/** The addon's own lists, from the Rust side. */
interface NativeLists {
  sources(): Array<string>;
  errorCodes(): Array<string>;
}

const installed = fileURLToPath(new URL("../node_modules/@agentwire/node/", import.meta.url));
const addonFile = readdirSync(installed).find((file) => file.endsWith(".node"));
const native = createRequire(import.meta.url)(join(installed, addonFile ?? "no-addon.node")) as NativeLists & {
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

/** The corpus trace `source/name`. */
const traceNamed = (source: Source, name: string): Trace => {
  const trace = all.find((candidate) => candidate.source === source && candidate.name === name);
  if (trace === undefined) throw new Error(`no trace ${source}/${name}`);
  return trace;
};

/** `call` throws an {@link AgentwireError} of `code` whose message is (or matches) `message`. */
const expectThrown = (call: () => unknown, code: ErrorCode, message: string | RegExp): void => {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Error);
  const error = thrown as AgentwireError;
  expect(error.code, error.message).toBe(code);
  if (typeof message === "string") expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
};

describe("the installed package", () => {
  const built = fileURLToPath(new URL("../../../crates/agentwire-node/", import.meta.url));

  it("holds the loader, its types and the addon built for this platform", () => {
    expect(readdirSync(installed).sort()).toEqual(
      ["README.md", addonFile, "index.d.ts", "index.js", "package.json", "platform.js", "sources.d.ts"].sort(),
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
    // gemini-session keeps its traces in the CLI's own folders, each read with its subagents'
    // files, and copilot-session in Copilot's (`<scenario>/<session id>/events.jsonl`), which the
    // Rust harness replays; opencode-session's are `opencode export` documents (`*.json`), read
    // whole by `document` (below); every other source has its lines at the top.
    const sources = [...new Set(all.map((trace) => trace.source))].sort();
    const elsewhere = ["gemini-session", "copilot-session", "opencode-session"];
    expect(sources).toEqual(native.sources().filter((source) => !elsewhere.includes(source)).sort());
    expect(all.length).toBeGreaterThan(200);
  });

  // Debug builds of the addon take seconds for the whole corpus.
  it("writes each golden byte for byte (createdAt aside where a line has no time)", { timeout: 120_000 }, () => {
    const differing = all
      .filter((trace) => {
        const text = replayText(trace);
        return trace.untimed ? withoutTimes(text) !== withoutTimes(trace.golden) : text !== trace.golden;
      })
      .map((trace) => `${trace.source}/${trace.name}`);
    expect(differing).toEqual([]);
    console.info(`@agentwire/node: ${all.filter((trace) => !trace.untimed).length} of ${all.length} traces timed throughout, compared with createdAt`);
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
      const text = (events: ReadonlyArray<unknown>): string =>
        trace.untimed ? withoutTimes(JSON.stringify(events)) : JSON.stringify(events);
      if (text(actual) !== text(expected)) failures.push(`${trace.source}/${trace.name}: differs`);
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

  it("throws an Error naming why no reply can be built, with the case's code", () => {
    const normalizer = new Normalizer({ from: "codex-app-server" });
    const requestId = "no-such-request" as Answer["requestId"];
    expectThrown(() => normalizer.answer({ requestId, decision: "accept" }), "AGENTWIRE_UNKNOWN_REQUEST", /no request no-such-request/);
    expectThrown(() => normalizer.answer({ requestId, decision: "yes" as Decision }), "AGENTWIRE_BAD_ANSWER", /unknown decision "yes"/);

    // ExitPlanMode asked (line 20), before the client's plain allow (line 21).
    const trace = traceNamed("claude-control", "sdk_exit_plan_mode_allow");
    const claude = new Normalizer(options(trace));
    const before = trace.messages.filter((message) => message.number < 21);
    const reply = trace.messages.find((message) => message.number === 21);
    const opened = before
      .flatMap(({ dir, at, msg }) => (dir === "in" ? claude.received(msg, at) : claude.sent(msg, at)))
      .filter((event) => event.type === "request.opened");
    const asked = opened.at(-1)?.requestId;
    if (asked === undefined || reply === undefined) throw new Error("the trace's ExitPlanMode request");
    expectThrown(() => claude.answer({ requestId: asked, decision: "answered" }), "AGENTWIRE_NOT_OFFERED", /does not offer answered; offered: accept, decline, cancel/);
    expectThrown(
      () => claude.answer({ requestId: asked, decision: "accept", result: { interrupt: true } }),
      "AGENTWIRE_BAD_ANSWER",
      "the result of a can_use_tool reply does not fit at result.interrupt: an allow has no such member (a deny that stops the turn is cancel)",
    );
    expectThrown(() => claude.answer({ requestId: asked, decision: "accept", result: 42 }), "AGENTWIRE_BAD_ANSWER", /at result: expected a JSON object/);
    expectThrown(() => claude.answer({ requestId: asked, decision: "acceptForSession" }), "AGENTWIRE_BAD_ANSWER", /at result\.updatedPermissions: the request suggested no rules/);
    const setMode = [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
    const granted = JSON.parse(claude.answer({ requestId: asked, decision: "acceptForSession", result: { updatedPermissions: setMode } })) as {
      response: { response: { behavior: string; updatedPermissions: unknown } };
    };
    expect(granted.response.response.behavior).toBe("allow");
    expect(granted.response.response.updatedPermissions).toEqual(setMode);
    claude.sent(reply.msg, reply.at);
    expectThrown(() => claude.answer({ requestId: asked, decision: "accept" }), "AGENTWIRE_ALREADY_ANSWERED", `request ${asked} was already answered`);

    const record = new Normalizer({ from: "codex-exec" });
    expectThrown(() => record.answer({ requestId: asked, decision: "accept" }), "AGENTWIRE_UNANSWERABLE", /codex-exec is a record of a session/);
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

  it("an unusable call throws an Error with its code, the line number and the reason", () => {
    const normalizer = new Normalizer({ from: "acp" });
    const line = '{"jsonrpc":"2.0","id":0,"result":{}}';
    const expected = "line 1: `at` must be Unix milliseconds (Date.now())";
    expectThrown(() => normalizer.received(line, 1.5), "AGENTWIRE_BAD_AT", `${expected}, an integer, got 1.5`);
    expectThrown(() => normalizer.received(line, new Date() as unknown as number), "AGENTWIRE_BAD_AT", `${expected}, got a Date: pass date.getTime()`);
    expectThrown(
      () => normalizer.sent(line, 1_796_016_332),
      "AGENTWIRE_BAD_AT",
      `${expected}, got 1796016332, which reads as 1970-01-21T18:53:36.332Z: seconds? (an \`at\` before 1973-03-03, 10^11 ms, is taken for one)`,
    );
    expectThrown(() => normalizer.received(line, 1_796_016_332_000_000), "AGENTWIRE_BAD_AT", `${expected}, got 1796016332000000, which is after the year 9999: microseconds or nanoseconds?`);
    expectThrown(() => normalizer.received(line, "1796016332000" as unknown as number), "AGENTWIRE_BAD_AT", `${expected}, got a string`);
    // A refused call pushed nothing: the next line is line 1.
    normalizer.received("not json", 100_000_000_000);
    expect(normalizer.problems.map((problem) => problem.line)).toEqual([1]);

    expectThrown(() => new Normalizer({ from: "nope" as Source }), "AGENTWIRE_BAD_OPTION", /unknown format "nope"; known: codex-app-server/);
    expectThrown(() => new Normalizer({ from: "acp", clock: "sundial" as "wall" }), "AGENTWIRE_BAD_OPTION", /unknown clock "sundial"/);
    expectThrown(() => new Normalizer({ from: "acp", providerKind: "gpt" as "acp" }), "AGENTWIRE_BAD_OPTION", /unknown provider kind "gpt"/);
    expectThrown(() => new Normalizer({ from: "acp", sessionId: "" }), "AGENTWIRE_BAD_OPTION", /^sessionId: /);
  });
});

describe("live", () => {
  // An ACP transcript recorded without times: an ACP agent's lines carry none.
  const timeless = traceNamed("acp", "tool_allow");

  it("stamps a line given no `at` with the wall clock and returns its events from that call", () => {
    expect(timeless.messages.every((message) => message.at === undefined)).toBe(true);
    const started = new Date(Date.now() - 1000).toISOString();
    const normalizer = new Normalizer({ from: "acp" });
    let asked = 0;
    let opened = 0;
    for (const { dir, msg, number } of timeless.messages) {
      const events = dir === "in" ? normalizer.received(msg) : normalizer.sent(msg);
      const asks = msg.includes('"method":"session/request_permission"');
      const cards = events.filter((event) => event.type === "request.opened").length;
      expect(cards, `line ${number}`).toBe(asks ? 1 : 0);
      asked += asks ? 1 : 0;
      opened += cards;
      for (const event of events) expect(event.createdAt >= started, `${event.type} at ${event.createdAt}`).toBe(true);
    }
    expect([asked, opened]).toEqual([1, 1]);
    expect(normalizer.problems).toEqual([]);
  });

  it("gives each normalizer its own fresh session id", () => {
    // The same first lines (the client's `initialize`, the agent's answer) to two normalizers.
    const sessions = [0, 1].map(() => {
      const normalizer = new Normalizer({ from: "acp" });
      const events = timeless.messages
        .slice(0, 2)
        .flatMap(({ dir, msg }) => (dir === "in" ? normalizer.received(msg) : normalizer.sent(msg)));
      return new Set(events.map((event) => event.sessionId));
    });
    const ids = sessions.flatMap((ids) => [...ids]);
    expect(sessions.map((ids) => ids.size)).toEqual([1, 1]);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

/** An `opencode export` document of the corpus and the golden `agentwire normalize` wrote for it. */
interface ExportDocument {
  readonly name: string;
  readonly text: string;
  readonly golden: string;
}

const exportDocuments: ReadonlyArray<ExportDocument> = readdirSync(join(TESTS_DIR, "corpus", "opencode-session"))
  .filter((file) => file.endsWith(".json"))
  .sort()
  .map((file) => {
    const name = basename(file, ".json");
    return {
      name,
      text: readFileSync(join(TESTS_DIR, "corpus", "opencode-session", file), "utf8"),
      golden: readFileSync(join(TESTS_DIR, "golden", "opencode-session", `${name}.jsonl`), "utf8"),
    };
  });

/** The export document `name` of the corpus. */
const exportNamed = (name: string): ExportDocument => {
  const found = exportDocuments.find((document) => document.name === name);
  if (found === undefined) throw new Error(`no export document ${name}`);
  return found;
};

/**
 * A document on one line: the whitespace between tokens removed, strings kept (for the corpus's
 * documents, byte for byte what `jq -c .` prints).
 */
const oneLine = (text: string): string => text.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_, string: string | undefined) => string ?? "");

/** A document read by the addon's own class: its JSON lines, as the CLI writes them. */
const documentText = (text: string): string =>
  splitArray(new native.NativeNormalizer({ from: "opencode-session" }).document(text))
    .map((event) => `${event}\n`)
    .join("");

describe("document", () => {
  it("writes each export document's golden byte for byte, pretty and on one line", { timeout: 120_000 }, () => {
    expect(exportDocuments.length).toBeGreaterThan(30);
    const differing = exportDocuments.flatMap(({ name, text, golden }) => {
      expect(oneLine(text).includes("\n"), name).toBe(false);
      return [
        ...(documentText(text) === golden ? [] : [`${name}: pretty`]),
        ...(documentText(oneLine(text)) === golden ? [] : [`${name}: one line`]),
      ];
    });
    expect(differing).toEqual([]);
  });

  it("returns the golden's events, decoded, each accepted by the strict decoder, the snapshot the golden's fold", { timeout: 120_000 }, () => {
    const failures: Array<string> = [];
    for (const { name, text, golden } of exportDocuments) {
      const normalizer = new Normalizer({ from: "opencode-session" });
      const events = normalizer.document(text);
      const expected = golden
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as unknown);
      if (JSON.stringify(events) !== JSON.stringify(expected)) failures.push(`${name}: differs`);
      const compact = new Normalizer({ from: "opencode-session" }).document(oneLine(text));
      if (JSON.stringify(compact) !== JSON.stringify(events)) failures.push(`${name}: one line differs`);
      for (const [index, event] of events.entries()) {
        try {
          decodeProviderRuntimeEvent(event);
        } catch (error) {
          failures.push(`${name}: event ${index + 1}: ${String(error)}`);
        }
      }
      expect(normalizer.snapshot(), name).toEqual(fold(golden));
      const changed = normalizer.changes();
      for (const event of events) {
        if (event.type.startsWith("item.") && event.itemId !== undefined) expect(changed.items, name).toContain(event.itemId);
      }
      expect(normalizer.finish(), name).toEqual([]);
    }
    expect(failures).toEqual([]);
  });

  it("keeps the events read before a cut, then reports the rest as an unreadable line", () => {
    const { text } = exportNamed("two_turns");
    const lines = text.split("\n");
    // Each message of the export begins on a line of its own, at the array's indentation.
    const starts = lines.flatMap((line, index) => (line === "  {" ? [index] : []));
    expect(starts.length).toBeGreaterThan(2);
    const last = starts.at(-1) ?? 0;
    const cut = lines.slice(0, last + 4).join("\n");
    // The same document without its last message: what was read before the cut.
    const before = `${lines.slice(0, last).join("\n").replace(/,$/, "")}\n ]\n}\n`;
    const whole = new Normalizer({ from: "opencode-session" }).document(before);

    const normalizer = new Normalizer({ from: "opencode-session" });
    const events = normalizer.document(cut);
    expect(normalizer.problems).toEqual([
      { line: last + 1, kind: "unreadable", message: expect.stringMatching(/^not a whole document: EOF while parsing .* at line \d+ column \d+$/) },
    ]);
    const warning = events.findIndex((event) => event.type === "runtime.warning");
    expect(warning).toBeGreaterThan(0);
    expect(events.slice(0, warning)).toEqual(whole.slice(0, warning));
    const reported = events[warning];
    if (reported?.type !== "runtime.warning") throw new Error("the cut's runtime.warning");
    expect(reported.payload.message).toMatch(/^unreadable input line: not a whole document: /);
    // The rest, on one line: the cut message's first lines, their line ends as spaces.
    expect(reported.payload.detail).toBe(lines.slice(last, last + 4).join(" ").trimStart());
    expect(events.filter((event) => event.type === "runtime.warning").length).toBe(1);
  });

  it("gives text that is no document as one unreadable line, the session settled", () => {
    const normalizer = new Normalizer({ from: "opencode-session", sessionId: "not-a-document" });
    const events = normalizer.document("[1,\n 2]");
    expect(normalizer.problems).toEqual([{ line: 1, kind: "unreadable", message: expect.stringMatching(/^not a whole document: /) }]);
    expect(events.filter((event) => event.type === "runtime.warning").map((event) => event.payload)).toEqual([
      expect.objectContaining({ detail: "[1,  2]" }),
    ]);
  });

  it("is refused by a source with no document form, and given with other input", () => {
    const { text } = exportNamed("plain");
    for (const from of native.sources() as Array<Source>) {
      const normalizer = new Normalizer({ from });
      if (from === "opencode-session") expect(normalizer.document(text).length).toBeGreaterThan(0);
      else expectThrown(() => normalizer.document(text), "AGENTWIRE_NO_DOCUMENT_FORM", `${from} has no document form: give each of its lines to received or sent`);
    }

    const read = new Normalizer({ from: "opencode-session" });
    read.document(text);
    const snapshot = read.snapshot();
    expectThrown(() => read.document(text), "AGENTWIRE_ALREADY_FED", /^document: this normalizer read a document already/);
    expectThrown(() => read.received(oneLine(text)), "AGENTWIRE_ALREADY_FED", /^received: this normalizer read a whole document/);
    expectThrown(() => read.sent(oneLine(text)), "AGENTWIRE_ALREADY_FED", /^sent: this normalizer read a whole document/);
    expect(read.finish()).toEqual([]);
    expect(read.snapshot()).toEqual(snapshot);
    expect(read.problems).toEqual([]);

    const lines = new Normalizer({ from: "opencode-session" });
    lines.received("");
    expectThrown(() => lines.document(text), "AGENTWIRE_ALREADY_FED", /^document: this normalizer was given lines or finished already/);
    const finished = new Normalizer({ from: "opencode-session" });
    finished.finish();
    expectThrown(() => finished.document(text), "AGENTWIRE_ALREADY_FED", /^document: this normalizer was given lines or finished already/);
  });
});

describe("index.d.ts", () => {
  // Each list must name every member of its union and nothing else (`satisfies` checks both).
  const CODES = {
    AGENTWIRE_BAD_OPTION: true,
    AGENTWIRE_BAD_AT: true,
    AGENTWIRE_UNKNOWN_REQUEST: true,
    AGENTWIRE_ALREADY_ANSWERED: true,
    AGENTWIRE_NOT_OFFERED: true,
    AGENTWIRE_BAD_ANSWER: true,
    AGENTWIRE_UNANSWERABLE: true,
    AGENTWIRE_BAD_EVENT: true,
    AGENTWIRE_NO_DOCUMENT_FORM: true,
    AGENTWIRE_ALREADY_FED: true,
  } as const satisfies Record<ErrorCode, true>;

  it("declares as Source every source the addon takes (Source::ALL), in its order, and each is taken", () => {
    // sources.d.ts is generated from the Rust registry by `cargo xtask codegen`: a stale addon
    // build, or a registry changed without regenerating, differs here.
    const declared = readFileSync(join(installed, "sources.d.ts"), "utf8");
    const names = [...declared.matchAll(/^ {2}\| "([^"]+)";?$/gm)].map((match) => match[1]);
    expect(names).toEqual([...native.sources()]);
    for (const from of native.sources()) expect(() => new Normalizer({ from: from as Source })).not.toThrow();
  });

  it("declares as ErrorCode every code the addon throws", () => {
    expect(Object.keys(CODES).sort()).toEqual([...native.errorCodes()].sort());
  });
});

describe("detect", () => {
  it("names the source of each trace from its lines", { timeout: 120_000 }, () => {
    const wrong = all
      .filter((trace) => {
        const lines = trace.messages.map(({ msg }) => msg);
        const detected = detect(lines);
        // Bare messages: a Claude control transcript's lines are Claude's stream-json lines, and
        // a Pi RPC transcript's are the lines of Pi's json mode.
        const bare: Record<string, string> = { "claude-control": "claude", "pi-rpc": "pi" };
        const expected = bare[trace.source] ?? trace.source;
        return detected !== expected;
      })
      .map((trace) => `${trace.source}/${trace.name}`);
    expect(wrong).toEqual([]);
    expect(detect(["not json"])).toBeNull();
  });

  it("names opencode-session from an export document's lines, pretty or on one line", () => {
    expect(exportDocuments.length).toBeGreaterThan(30);
    const wrong = exportDocuments.flatMap(({ name, text }) => [
      ...(detect(text.split("\n")) === "opencode-session" ? [] : [`${name}: pretty`]),
      ...(detect([oneLine(text)]) === "opencode-session" ? [] : [`${name}: one line`]),
    ]);
    expect(wrong).toEqual([]);
    expect(detect(["{", '"info": {}', "}"])).toBeNull();
  });
});

/** A snapshot's JSON with every time set aside, for a trace stamped with the wall clock live. */
const untimed = (snapshot: unknown): string =>
  JSON.stringify(snapshot).replace(/"(startedAt|completedAt|openedAt|at)":"[^"]*"/g, '"$1":"-"');

describe("snapshot", () => {
  it("is, after a live replay, the fold of the golden the CLI printed; each call names what it changed", { timeout: 120_000 }, () => {
    for (const trace of all) {
      const normalizer = new Normalizer(options(trace));
      for (const { dir, at, msg } of trace.messages) {
        const events = dir === "in" ? normalizer.received(msg, at) : normalizer.sent(msg, at);
        const change = normalizer.changes();
        const items = new Set(events.flatMap((event) => (event.type.startsWith("item.") && event.itemId ? [event.itemId] : [])));
        for (const item of items) expect(change.items, `${trace.source}/${trace.name}`).toContain(item);
      }
      normalizer.finish();
      const live = normalizer.snapshot();
      const printed = fold(trace.golden);
      const label = `${trace.source}/${trace.name}`;
      if (trace.untimed) expect(untimed(live), label).toBe(untimed(printed));
      else expect(live, label).toEqual(printed);
    }
  });

  it("of nothing is null, and a line that is no event throws AGENTWIRE_BAD_EVENT with its number", () => {
    expect(fold("")).toBeNull();
    expectThrown(() => fold('\n{"type":"turn.started"}'), "AGENTWIRE_BAD_EVENT", /^line 2: not a canonical event/);
  });
});
