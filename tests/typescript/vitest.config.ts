import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // The package's `source` condition names its TypeScript sources (its build, `dist/`, is
    // tested as packed by scripts/pack-check.mjs): Vitest transforms them like our own.
    server: { deps: { inline: ["@agentwire/provider-runtime"] } },
  },
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
});
