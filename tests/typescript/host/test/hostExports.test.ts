/**
 * The host configuration is T3 Code's: the stand-in `baseSchemas.ts` exports exactly the values
 * recorded for the real file, and the generated module imports nothing outside that list (the
 * rule a real T3 checkout enforces with `TS2305: Module './baseSchemas.ts' has no exported member`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { TESTS_DIR } from "../../shared/canonicalLines.ts";
import * as baseSchemas from "../src/baseSchemas.ts";

const WORKSPACE = join(TESTS_DIR, "..");
const record = JSON.parse(
  readFileSync(join(WORKSPACE, "schemas/canonical/t3code-base-schemas.json"), "utf8"),
) as { commit: string; exports: Array<string> };
const generated = readFileSync(
  join(WORKSPACE, "generated/typescript/providerRuntime.gen.ts"),
  "utf8",
);

/** The names of every `import { ... } from "./baseSchemas.ts"` of `source`. */
const importedFromBaseSchemas = (source: string): Array<string> =>
  [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*"\.\/baseSchemas\.ts"/g)].flatMap((match) =>
    (match[1] ?? "")
      .split(",")
      .map((name) => name.trim().replace(/^type\s+/, ""))
      .filter((name) => name !== ""),
  );

describe("the recorded host export list", () => {
  it("names a commit and exports", () => {
    expect(record.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(record.exports.length).toBeGreaterThan(0);
  });

  it("is exactly what the stand-in exports", () => {
    expect(Object.keys(baseSchemas).sort()).toEqual([...record.exports].sort());
  });
});

describe("the generated module", () => {
  const imported = importedFromBaseSchemas(generated);

  it("imports from ./baseSchemas.ts", () => {
    expect(imported).toContain("EventId");
  });

  it("imports only names the host exports", () => {
    expect(imported.filter((name) => !record.exports.includes(name))).toEqual([]);
  });

  it("the check catches a name the host lacks", () => {
    const tampered = generated.replace("  EventId,\n", "  EventId,\n  ProviderSessionId,\n");
    expect(tampered).not.toEqual(generated);
    const names = importedFromBaseSchemas(tampered);
    expect(names.filter((name) => !record.exports.includes(name))).toEqual(["ProviderSessionId"]);
  });
});
