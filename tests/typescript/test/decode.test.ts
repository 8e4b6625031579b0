/**
 * Run-time checks of the generated module against the canonical JSON the Rust side reads and
 * writes, with its own strict decoder (`decodeProviderRuntimeEvent`: unknown keys rejected) and
 * its generated `baseSchemas.ts` (the canonical JSON Schema's rules for ids and date-times):
 *
 * - every line of `tests/canonical/examples.jsonl` decodes and encodes back to an equal JSON
 *   value (and together they cover every event type);
 * - every line of `tests/canonical/invalid.jsonl` (`{"why", "event"}`) is rejected, except the
 *   few listed in `NOT_EXPRESSIBLE` (each with the reason);
 * - every line of every `tests/golden/**\/*.jsonl` (canonical output of the Rust normalizer)
 *   decodes and round-trips.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";

import {
  eventType,
  exampleLines,
  goldenFiles,
  invalidLines,
  readJsonl,
  roundTripFailure,
} from "../shared/canonicalLines.ts";
import {
  CanonicalRuntimeEventType,
  decodeProviderRuntimeEvent,
  decodeProviderRuntimeEventEffect,
  encodeProviderRuntimeEvent,
} from "../src/providerRuntime.gen.ts";

/**
 * Invalid lines the Effect Schema cannot reject, by their exact `why`, each with the reason.
 * Every entry must still be in `invalid.jsonl` and still be accepted (so the list cannot rot).
 */
const NOT_EXPRESSIBLE: ReadonlyMap<string, string> = new Map<string, string>([]);

const accepts = (event: unknown): boolean => {
  try {
    decodeProviderRuntimeEvent(event);
    return true;
  } catch {
    return false;
  }
};

const roundTrip = (line: Parameters<typeof roundTripFailure>[0]) =>
  roundTripFailure(line, decodeProviderRuntimeEvent, encodeProviderRuntimeEvent);

describe("tests/canonical/examples.jsonl", () => {
  const lines = exampleLines();

  it("has examples", () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  it("every line decodes and encodes back to an equal JSON value", () => {
    expect(lines.map(roundTrip).filter((failure) => failure !== undefined)).toEqual([]);
  });

  it("covers every event type", () => {
    const seen = new Set(lines.map((line) => eventType(line.value)));
    expect(CanonicalRuntimeEventType.literals.filter((type) => !seen.has(type))).toEqual([]);
  });

  it("the Effect decoder agrees with the sync one", () => {
    const rejected = lines
      .filter((line) => !Exit.isSuccess(Effect.runSyncExit(decodeProviderRuntimeEventEffect(line.value))))
      .map((line) => line.where);
    expect(rejected).toEqual([]);
    const [first] = lines;
    const exit = Effect.runSyncExit(decodeProviderRuntimeEventEffect({ ...(first?.value as object), extra: 1 }));
    expect(Exit.isFailure(exit)).toBe(true);
  });
});

describe("tests/canonical/invalid.jsonl", () => {
  const lines = invalidLines();

  it("has invalid lines", () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  it("every line is rejected (except the listed inexpressible ones)", () => {
    const accepted = lines
      .filter(({ why }) => !NOT_EXPRESSIBLE.has(why))
      .filter(({ event }) => accepts(event))
      .map(({ where, why }) => `${where}: accepted: ${why}`);
    expect(accepted).toEqual([]);
  });

  it("every listed inexpressible line is still there and still accepted", () => {
    const stale = [...NOT_EXPRESSIBLE.keys()].filter((why) => {
      const line = lines.find((candidate) => candidate.why === why);
      return line === undefined || !accepts(line.event);
    });
    expect(stale).toEqual([]);
  });
});

describe("tests/golden/**/*.jsonl", () => {
  const files = goldenFiles();

  it(`every line of the ${files.length} golden files decodes and round-trips`, () => {
    expect(files.length).toBeGreaterThan(0);
    const lines = files.flatMap(readJsonl);
    console.info(`tests/golden: ${lines.length} lines in ${files.length} files`);
    expect(lines.map(roundTrip).filter((failure) => failure !== undefined)).toEqual([]);
  });
});
