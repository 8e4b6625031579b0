import { defineConfig } from "vitest/config";

import base from "./vitest.config.ts";

/** `cargo xtask drift claude`: the capture of `drift/` alone, apart from the live tests. */
export default defineConfig({ ...base, test: { ...base.test, include: ["drift/**/*.drift.ts"] } });
