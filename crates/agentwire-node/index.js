// @agentwire/node: loads the addon built for this platform (`agentwire.<platform>.node` beside
// this file, else the package `@agentwire/node-<platform>`), and gives its events to JavaScript
// decoded: the addon hands each call's events over as one JSON text, which JSON.parse reads
// faster than the addon builds the objects (README.md of the crate has the figures).
import { createRequire } from "node:module";

import { platformSuffix } from "./platform.js";

const require = createRequire(import.meta.url);

const loadAddon = () => {
  const suffix = platformSuffix();
  const tried = [];
  for (const candidate of [`./agentwire.${suffix}.node`, `@agentwire/node-${suffix}`]) {
    try {
      return require(candidate);
    } catch (error) {
      if (error?.code !== "MODULE_NOT_FOUND") throw error;
      tried.push(candidate);
    }
  }
  throw new Error(
    `@agentwire/node: no addon for ${suffix} (tried ${tried.join(", ")}); build it with \`npm run build\` in the package folder (cargo needed)`,
  );
};

const addon = loadAddon();

/**
 * One agent session's normalizer: the lines of one agent process, or the document of one exported
 * session, in; canonical events out.
 */
export class Normalizer {
  #native;

  constructor(options) {
    this.#native = new addon.NativeNormalizer(options);
  }

  received(line, at) {
    return JSON.parse(this.#native.received(line, at));
  }

  sent(line, at) {
    return JSON.parse(this.#native.sent(line, at));
  }

  answer(answer) {
    return this.#native.answer(answer);
  }

  document(text) {
    return JSON.parse(this.#native.document(text));
  }

  finish() {
    return JSON.parse(this.#native.finish());
  }

  snapshot() {
    return JSON.parse(this.#native.snapshot());
  }

  changes() {
    return JSON.parse(this.#native.changes());
  }

  get problems() {
    return this.#native.problems;
  }
}

/** The source of an agent's first lines, as `--from` names it, or `null`. */
export const fold = (jsonl) => JSON.parse(addon.fold(jsonl));

export const detect = (lines) => addon.detect(lines) ?? null;
