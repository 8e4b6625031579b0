import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Each test starts a real agent process and waits for its model turns.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    // The generated package's `source` condition names its TypeScript sources: Vitest
    // transforms them like our own (its build, `dist/`, is tested as packed by the pack check).
    server: { deps: { inline: ["@agentwire/provider-runtime"] } },
  },
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
});
