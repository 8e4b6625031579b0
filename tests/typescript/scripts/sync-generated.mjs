// Copies files of `generated/typescript/` into a harness's `src/`, where they sit as they would
// in T3 Code's `packages/contracts/src` (the module imports `./baseSchemas.ts` from beside it).
// Usage: node sync-generated.mjs <target dir> <file>...  The copies are gitignored;
// `generated/typescript/` stays the only committed version.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const generated = fileURLToPath(new URL("../../../generated/typescript/", import.meta.url));
const [target, ...files] = process.argv.slice(2);
if (target === undefined || files.length === 0) {
  console.error("usage: node sync-generated.mjs <target dir> <file>...");
  process.exit(2);
}
// A fresh checkout has no target folder: it holds only these gitignored copies.
mkdirSync(target, { recursive: true });
for (const file of files) {
  const source = join(generated, file);
  if (!existsSync(source)) {
    console.error(`missing ${source}: run \`cargo xtask codegen\` at the workspace root first`);
    process.exit(1);
  }
  const contents = readFileSync(source, "utf8");
  const copy = resolve(target, file);
  if (!existsSync(copy) || readFileSync(copy, "utf8") !== contents) {
    writeFileSync(copy, contents);
  }
}
