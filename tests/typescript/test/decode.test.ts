/**
 * Run-time checks of the generated Effect Schema against the canonical JSON the Rust side
 * reads and writes:
 *
 * - every line of `tests/canonical/examples.jsonl` decodes with `ProviderRuntimeEventV2` and
 *   encodes back to an equal JSON value (and together they cover every event type);
 * - every line of `tests/canonical/invalid.jsonl` (`{"why", "event"}`) is rejected, except the
 *   few listed in `NOT_EXPRESSIBLE` (each with the reason);
 * - every line of every `tests/golden/**\/*.jsonl` (canonical output of the Rust normalizer)
 *   decodes and round-trips.
 *
 * Decoding uses `onExcessProperty: "error"`: by default Effect Schema drops unknown keys, while
 * the canonical model (JSON Schema `additionalProperties: false`, Rust `deny_unknown_fields`)
 * rejects them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";

import { CanonicalRuntimeEventType, ProviderRuntimeEventV2 } from "../src/providerRuntime.gen.ts";

const TESTS_DIR = fileURLToPath(new URL("../../", import.meta.url));
const PARSE_OPTIONS = { onExcessProperty: "error", errors: "all" } as const;

const decode = Schema.decodeUnknownSync(ProviderRuntimeEventV2, PARSE_OPTIONS);
const encode = Schema.encodeSync(ProviderRuntimeEventV2, PARSE_OPTIONS);

/**
 * Invalid lines the Effect Schema cannot reject, by their exact `why`, each with the reason.
 * Every entry must still be in `invalid.jsonl` and still be accepted (so the list cannot rot).
 */
const NOT_EXPRESSIBLE: ReadonlyMap<string, string> = new Map<string, string>([]);

interface Line {
  readonly where: string;
  readonly value: unknown;
}

const readJsonl = (path: string): Array<Line> => {
  const name = relative(TESTS_DIR, path);
  return readFileSync(path, "utf8")
    .split("\n")
    .map((text, index) => ({ text, where: `${name}:${index + 1}` }))
    .filter(({ text }) => text.trim() !== "")
    .map(({ text, where }) => ({ where, value: JSON.parse(text) as unknown }));
};

/** Decodes and encodes `line`; returns a failure message, or `undefined` when it round-trips. */
const roundTripFailure = (line: Line): string | undefined => {
  let decoded: ProviderRuntimeEventV2;
  try {
    decoded = decode(line.value);
  } catch (error) {
    return `${line.where}: does not decode: ${String(error)}`;
  }
  let encoded: unknown;
  try {
    encoded = encode(decoded);
  } catch (error) {
    return `${line.where}: does not encode: ${String(error)}`;
  }
  // Compare as JSON values (JSON text of both sides, parsed again): key order is free.
  const again = JSON.parse(JSON.stringify(encoded)) as unknown;
  if (!isDeepStrictEqual(again, line.value)) {
    return `${line.where}: encodes to a different value\n  original: ${JSON.stringify(line.value)}\n  encoded:  ${JSON.stringify(again)}`;
  }
  return undefined;
};

const eventType = (value: unknown): unknown =>
  typeof value === "object" && value !== null && "type" in value ? value.type : undefined;

describe("tests/canonical/examples.jsonl", () => {
  const lines = readJsonl(join(TESTS_DIR, "canonical/examples.jsonl"));

  it("has examples", () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  it("every line decodes and encodes back to an equal JSON value", () => {
    const failures = lines.map(roundTripFailure).filter((failure) => failure !== undefined);
    expect(failures).toEqual([]);
  });

  it("covers every event type", () => {
    const seen = new Set(lines.map((line) => eventType(line.value)));
    const missing = CanonicalRuntimeEventType.literals.filter((type) => !seen.has(type));
    expect(missing).toEqual([]);
  });
});

describe("tests/canonical/invalid.jsonl", () => {
  const lines = readJsonl(join(TESTS_DIR, "canonical/invalid.jsonl")).map((line) => {
    const { why, event } = line.value as { why: unknown; event: unknown };
    if (typeof why !== "string") throw new Error(`${line.where}: no string \`why\``);
    return { where: line.where, why, event };
  });

  it("has invalid lines", () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  it("every line is rejected (except the listed inexpressible ones)", () => {
    const accepted = lines
      .filter(({ why }) => !NOT_EXPRESSIBLE.has(why))
      .filter(({ event }) => Schema.decodeUnknownExit(ProviderRuntimeEventV2, PARSE_OPTIONS)(event)._tag === "Success")
      .map(({ where, why }) => `${where}: accepted: ${why}`);
    expect(accepted).toEqual([]);
  });

  it("every listed inexpressible line is still there and still accepted", () => {
    const stale = [...NOT_EXPRESSIBLE.keys()].filter((why) => {
      const line = lines.find((candidate) => candidate.why === why);
      return line === undefined || Schema.decodeUnknownExit(ProviderRuntimeEventV2, PARSE_OPTIONS)(line.event)._tag !== "Success";
    });
    expect(stale).toEqual([]);
  });
});

describe("tests/golden/**/*.jsonl", () => {
  const goldenDir = join(TESTS_DIR, "golden");
  const files = existsSync(goldenDir)
    ? readdirSync(goldenDir, { recursive: true, encoding: "utf8" })
        .filter((path) => path.endsWith(".jsonl"))
        .sort()
        .map((path) => join(goldenDir, path))
    : [];
  if (files.length === 0) {
    console.warn("tests/golden/**/*.jsonl: no golden files yet, nothing to check (skipped)");
  }

  it.skipIf(files.length === 0)(`every line of the ${files.length} golden files decodes and round-trips`, () => {
    let count = 0;
    const failures: Array<string> = [];
    for (const file of files) {
      for (const line of readJsonl(file)) {
        count += 1;
        const failure = roundTripFailure(line);
        if (failure !== undefined) failures.push(failure);
      }
    }
    console.info(`tests/golden: ${count} lines in ${files.length} files`);
    expect(failures).toEqual([]);
  });
});
