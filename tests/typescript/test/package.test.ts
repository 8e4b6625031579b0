/**
 * `generated/typescript/` as an npm package, installed as npm installs a packed tarball
 * (`install-links` in `.npmrc`): it holds exactly the files `npm pack` ships, its types resolve
 * through `exports` (this file is type-checked with the rest), and its entry decodes events.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  decodeProviderRuntimeEvent,
  isEventType,
  type ProviderRuntimeEvent,
  type TurnState,
} from "@agentwire/provider-runtime";
import { IsoDateTime } from "@agentwire/provider-runtime/baseSchemas";
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";

import { exampleLines } from "../shared/canonicalLines.ts";

const installed = fileURLToPath(new URL("../node_modules/@agentwire/provider-runtime/", import.meta.url));
const generated = fileURLToPath(new URL("../../../generated/typescript/", import.meta.url));

describe("the installed package", () => {
  it("holds the module, its base schemas, package.json and the README", () => {
    expect(readdirSync(installed).sort()).toEqual([
      "README.md",
      "baseSchemas.ts",
      "package.json",
      "providerRuntime.gen.ts",
    ]);
  });

  it("is the generated tree (else run `npm ci` again)", () => {
    for (const file of readdirSync(installed)) {
      expect(readFileSync(`${installed}${file}`, "utf8"), file).toBe(readFileSync(`${generated}${file}`, "utf8"));
    }
  });

  it("decodes the canonical examples", () => {
    const events: Array<ProviderRuntimeEvent> = exampleLines().map((line) => decodeProviderRuntimeEvent(line.value));
    const states: Array<TurnState> = events.filter(isEventType("turn.completed")).map((event) => event.payload.state);
    expect(states.length).toBeGreaterThan(0);
    expect(Schema.is(IsoDateTime)(events[0]?.createdAt)).toBe(true);
  });
});
