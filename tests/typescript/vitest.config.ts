import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // The package's entry points are TypeScript sources: Vitest transforms them like our own.
    server: { deps: { inline: ["@agentwire/provider-runtime"] } },
  },
});
