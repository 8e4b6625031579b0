// Copies the generated Effect Schema next to `src/baseSchemas.ts`, which it imports as
// `./baseSchemas.ts` (as it would sit in T3 Code's `packages/contracts/src`). The copy is
// gitignored; `generated/typescript/` stays the only committed version.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = fileURLToPath(new URL("../../../generated/typescript/providerRuntime.gen.ts", import.meta.url));
const target = fileURLToPath(new URL("../src/providerRuntime.gen.ts", import.meta.url));

if (!existsSync(source)) {
  console.error(`missing ${source}: run \`cargo xtask codegen\` at the workspace root first`);
  process.exit(1);
}
const contents = readFileSync(source, "utf8");
if (!existsSync(target) || readFileSync(target, "utf8") !== contents) {
  writeFileSync(target, contents);
}
