// The stand-in contracts package's entry, as T3 Code's `packages/contracts/src/index.ts` re-exports
// each module (`export *`): a name both modules exported would be an ambiguity error here.
export * from "./baseSchemas.ts";
export * from "./providerRuntime.gen.ts";
