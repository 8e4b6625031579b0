/**
 * The canonical JSON lines both harness configurations decode: `tests/canonical/examples.jsonl`,
 * `tests/canonical/invalid.jsonl` and every `tests/golden/**\/*.jsonl` (the Rust normalizer's
 * output). Node built-ins only, so each configuration compiles it with its own toolchain.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

/** The workspace's `tests/` folder. */
export const TESTS_DIR = fileURLToPath(new URL("../../", import.meta.url));

export interface Line {
  /** `path:line`, the path relative to `tests/`. */
  readonly where: string;
  readonly value: unknown;
}

export const readJsonl = (path: string): Array<Line> => {
  const name = relative(TESTS_DIR, path);
  return readFileSync(path, "utf8")
    .split("\n")
    .map((text, index) => ({ text, where: `${name}:${index + 1}` }))
    .filter(({ text }) => text.trim() !== "")
    .map(({ text, where }) => ({ where, value: JSON.parse(text) as unknown }));
};

export const exampleLines = (): Array<Line> => readJsonl(join(TESTS_DIR, "canonical/examples.jsonl"));

/** `{"why", "event"}` lines, each an event the canonical model rejects. */
export const invalidLines = (): Array<{ where: string; why: string; event: unknown }> =>
  readJsonl(join(TESTS_DIR, "canonical/invalid.jsonl")).map((line) => {
    const { why, event } = line.value as { why: unknown; event: unknown };
    if (typeof why !== "string") throw new Error(`${line.where}: no string \`why\``);
    return { where: line.where, why, event };
  });

/** Every golden file, sorted. */
export const goldenFiles = (): Array<string> => {
  const goldenDir = join(TESTS_DIR, "golden");
  return existsSync(goldenDir)
    ? readdirSync(goldenDir, { recursive: true, encoding: "utf8" })
        .filter((path) => path.endsWith(".jsonl"))
        .sort()
        .map((path) => join(goldenDir, path))
    : [];
};

/** `type` of a JSON value, when it is an object with one. */
export const eventType = (value: unknown): unknown =>
  typeof value === "object" && value !== null && "type" in value ? value.type : undefined;

/**
 * Decodes and encodes `line`; returns a failure message, or `undefined` when it decodes and encodes
 * back to an equal JSON value (key order is free).
 */
export const roundTripFailure = <E>(
  line: Line,
  decode: (value: unknown) => E,
  encode: (event: E) => unknown,
): string | undefined => {
  let decoded: E;
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
  const again = JSON.parse(JSON.stringify(encoded)) as unknown;
  if (!isDeepStrictEqual(again, line.value)) {
    return `${line.where}: encodes to a different value\n  original: ${JSON.stringify(line.value)}\n  encoded:  ${JSON.stringify(again)}`;
  }
  return undefined;
};
