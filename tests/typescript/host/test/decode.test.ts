/**
 * Run-time checks in the host configuration (T3 Code's base schemas and effect pin): the canonical
 * examples and every golden event decode with the generated strict decoder and encode back, an
 * unknown key is rejected, and the consumer written like T3's server reads them.
 */
import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import {
  eventType,
  exampleLines,
  goldenFiles,
  readJsonl,
  roundTripFailure,
} from "../../shared/canonicalLines.ts";
import {
  ingest,
  streamOrRequest,
  toolItemTypes,
  turnOutcomes,
  usageAndQuestions,
} from "../consumer/runtimeIngestion.ts";
import {
  CanonicalRuntimeEventType,
  decodeProviderRuntimeEvent,
  encodeProviderRuntimeEvent,
} from "../src/index.ts";

describe("tests/canonical/examples.jsonl", () => {
  const lines = exampleLines();

  it("every line decodes and encodes back to an equal JSON value", () => {
    expect(lines.length).toBeGreaterThan(0);
    const failures = lines
      .map((line) => roundTripFailure(line, decodeProviderRuntimeEvent, encodeProviderRuntimeEvent))
      .filter((failure) => failure !== undefined);
    expect(failures).toEqual([]);
  });

  it("covers every event type", () => {
    const seen = new Set(lines.map((line) => eventType(line.value)));
    expect(CanonicalRuntimeEventType.literals.filter((type) => !seen.has(type))).toEqual([]);
  });

  it("an unknown key is rejected, at the top and in a payload", () => {
    const [first] = lines;
    const event = first?.value as { payload: object };
    expect(() => decodeProviderRuntimeEvent(event)).not.toThrow();
    expect(() => decodeProviderRuntimeEvent({ ...event, extra: 1 })).toThrow(/extra/);
    expect(() =>
      decodeProviderRuntimeEvent({ ...event, payload: { ...event.payload, extra: 1 } }),
    ).toThrow(/extra/);
  });
});

describe("tests/golden/**/*.jsonl", () => {
  const files = goldenFiles();

  it(`every line of the ${files.length} golden files decodes and round-trips`, () => {
    expect(files.length).toBeGreaterThan(0);
    const failures = files
      .flatMap(readJsonl)
      .map((line) => roundTripFailure(line, decodeProviderRuntimeEvent, encodeProviderRuntimeEvent))
      .filter((failure) => failure !== undefined);
    expect(failures).toEqual([]);
  });

  it("the consumer reads them", () => {
    // Per file: the same run read from two sources (app-server, its rollout file) has the same
    // canonical thread and turn ids.
    const perFile = files.map((file) =>
      ingest(readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")),
    );
    const events = perFile.flat();
    const completed = events.filter((event) => event.type === "turn.completed").length;
    expect(completed).toBeGreaterThan(0);
    const outcomes = perFile.reduce((sum, fileEvents) => sum + turnOutcomes(fileEvents).size, 0);
    expect(outcomes).toBe(completed);
    expect(events.some((event) => streamOrRequest(event) !== undefined)).toBe(true);
    const tools = new Set(toolItemTypes(events));
    expect(tools).toContain("command_execution");
    expect(tools).not.toContain("assistant_message");
    const { usage, questions } = usageAndQuestions(events);
    expect(usage.length).toBeGreaterThan(0);
    expect(questions.length).toBeGreaterThan(0);
  });
});
