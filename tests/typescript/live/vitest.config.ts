import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Each test starts a real agent process and waits for its model turns.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    // The generated package's entry points are TypeScript sources: Vitest transforms them.
    server: { deps: { inline: ["@agentwire/provider-runtime"] } },
  },
});
