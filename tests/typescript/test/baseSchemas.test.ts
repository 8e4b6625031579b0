/**
 * The stand-in base schemas accept exactly what the canonical JSON Schema accepts on the edge
 * cases of "trimmed non-empty" (pattern `^\S(.*\S)?$`) and RFC 3339 `date-time` (the cases of
 * `tests/canonical_model.rs`, where the Rust newtypes are checked against the schema).
 */
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";

import { EventId, IsoDateTime } from "../src/baseSchemas.ts";

const accepts = (schema: Schema.Codec<unknown, unknown>, value: string): boolean =>
  Schema.decodeUnknownExit(schema)(value)._tag === "Success";

describe("ids", () => {
  const pattern = /^\S(.*\S)?$/;
  const cases = ["a", "a b", "a\tb", "é", "a\u200b", " a", "a ", "", " ", "\t", "a\nb", "\u00a0a", "a\u2028", "\ufeffa", "a\rb"];
  it.each(cases)("%j is accepted exactly when the schema pattern accepts it", (value) => {
    expect(accepts(EventId, value)).toBe(pattern.test(value));
  });
});

describe("IsoDateTime", () => {
  const valid = [
    "2026-11-30T05:28:12.688Z",
    "2026-11-30T05:28:12Z",
    "2026-11-30T05:28:12.123456789Z",
    "2026-11-30T05:28:12.688+02:00",
    "2026-11-30T05:28:12.688-00:00",
    "2024-02-29T00:00:00Z",
    "2026-06-30T23:59:60Z",
    "2026-07-01T01:59:60+02:00",
    "0000-01-01T00:00:00Z",
    "2026-11-30t05:28:12.688z",
  ];
  const invalid = [
    "2026-11-30 05:28:12Z",
    "2026-11-30T05:28:12.688",
    "2026-02-30T00:00:00Z",
    "2026-11-30T24:00:00Z",
    "2026-11-30T05:28:12.Z",
    "+2026-11-30T05:28:12Z",
    "2026-11-30T05:28Z",
    "2026-11-30T05:28:12+0200",
    "2026-11-30T05:28:12+24:00",
    "2026-1-30T05:28:12Z",
    "2026-11-30T05:28:60Z",
    "2026-13-01T00:00:00Z",
  ];
  it.each(valid)("accepts %j", (value) => expect(accepts(IsoDateTime, value)).toBe(true));
  it.each(invalid)("rejects %j", (value) => expect(accepts(IsoDateTime, value)).toBe(false));
});
