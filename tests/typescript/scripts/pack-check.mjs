// The two npm packages as a consumer gets them from the registry: packed, installed from their
// tarballs into scratch projects, imported by plain node and by tsc-compiled JavaScript.
//
// 1. `generated/typescript` (`@agentwire/provider-runtime`), copied to a scratch folder with its
//    devDependencies installed, `npm pack`ed: its `prepack` compiles `dist/` (JavaScript,
//    declarations, source maps);
// 2. `crates/agentwire-node` (`@agentwire/node`) `npm pack`ed as it is: its addon must be built
//    (`node build.mjs`, which `cargo xtask test` runs before this);
// 3. plain node: a scratch project installs both tarballs and `effect` (the version
//    tests/typescript/package-lock.json pins) and runs pack/consumer.mjs: a corpus trace through
//    `Normalizer`, every event equal to the golden and decoded by the strict decoder;
// 4. T3 Code's toolchain: a scratch project installs both tarballs and the `effect`, `typescript`
//    and `@types/node` versions tests/typescript/host/package-lock.json pins, compiles
//    pack/consumer.ts (the names T3 Code's server imports) with host/tsconfig.json's compiler
//    options and emit to `dist/`, and runs the output with node.
//
// Usage: npm run pack-check (in tests/typescript). Needs the npm registry (or npm's cache).
// A failing step prints its command, its output and the npm debug log's error lines; the script then exits 1.
// An `npm install` is tried up to three times before it counts as failed.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const root = join(here, "../..");
const types = join(root, "generated/typescript");
const addon = join(root, "crates/agentwire-node");
const trace = join(root, "tests/corpus/codex-app-server/shell_approval_accept.jsonl");
const golden = join(root, "tests/golden/codex-app-server/shell_approval_accept.jsonl");
const scratch = mkdtempSync(join(tmpdir(), "agentwire-pack-check-"));
const started = Date.now();
const npm = ["--no-audit", "--no-fund", "--loglevel=error"];

/** The error lines of the npm debug log an npm failure names (npm prints only the log's path). */
const npmLog = (output) => {
  const path = /complete log of this run can be found in:\s*(\S+)/.exec(output)?.[1];
  if (path === undefined || !existsSync(path)) return "";
  const lines = readFileSync(path, "utf8").split("\n").filter((line) => /\b(error|warn|http fetch)\b/.test(line));
  return `\n--- ${path} (error, warn and fetch lines, last 40) ---\n${lines.slice(-40).join("\n")}\n`;
};

/** Runs `program`; an `npm install` is tried three times, since a registry hiccup is not a failure of the packages. */
const run = (what, program, args, cwd) => {
  const shown = `${program} ${args.join(" ")}`;
  const attempts = program === "npm" && args[0] === "install" ? 3 : 1;
  let result;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    result = spawnSync(program, args, { cwd, encoding: "utf8", maxBuffer: 1 << 26 });
    if (result.status === 0) break;
    const output = `${result.stdout}${result.stderr}${result.error ?? ""}`;
    if (attempt < attempts) {
      console.error(`pack-check: ${what}: attempt ${attempt} of ${attempts} failed, trying again${npmLog(output)}`);
    } else {
      throw new Error(`${what} failed: ${shown} (in ${cwd})\n${output}${npmLog(output)}`);
    }
  }
  console.log(`pack-check: ${what}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result.stdout;
};

/** The version a lockfile pins for a package. */
const pinned = (lockfile, name) => {
  const version = JSON.parse(readFileSync(lockfile, "utf8")).packages[`node_modules/${name}`]?.version;
  if (version === undefined) throw new Error(`${lockfile} pins no ${name}`);
  return version;
};

/** `npm pack` in `dir` into the scratch folder; the tarball's path. */
const pack = (what, dir) => {
  const [{ filename }] = JSON.parse(run(what, "npm", ["pack", "--json", "--pack-destination", scratch, ...npm], dir));
  return join(scratch, filename);
};

/** A scratch project installing `dependencies`. */
const project = (name, dependencies) => {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  run(`install (${name})`, "npm", ["install", ...npm, ...dependencies], dir);
  return dir;
};

try {
  // 1. The types package, built where it is packed.
  const build = join(scratch, "provider-runtime");
  cpSync(types, build, { recursive: true, filter: (path) => !/(^|\/)(node_modules|dist)$/.test(path) });
  run("install the types package's devDependencies", "npm", ["install", ...npm, "--no-package-lock"], build);
  const typesTarball = pack("npm pack generated/typescript (prepack: tsc)", build);

  // 2. The addon package, as built.
  if (!readdirSync(addon).some((file) => file.endsWith(".node"))) {
    throw new Error("crates/agentwire-node has no built addon: run `node build.mjs` there first");
  }
  const addonTarball = pack("npm pack crates/agentwire-node", addon);

  // 3. Plain node.
  const effect = pinned(join(here, "package-lock.json"), "effect");
  const plain = project("plain-node", [typesTarball, addonTarball, `effect@${effect}`]);
  cpSync(join(here, "pack/consumer.mjs"), join(plain, "consumer.mjs"));
  process.stdout.write(run(`node consumer.mjs (effect ${effect})`, "node", ["consumer.mjs", trace, golden], plain));

  // 4. T3 Code's TypeScript and options, emitting JavaScript.
  const hostLock = join(here, "host/package-lock.json");
  const t3 = ["effect", "typescript", "@types/node"].map((name) => `${name}@${pinned(hostLock, name)}`);
  const compiled = project("t3-tsc", [typesTarball, addonTarball, ...t3]);
  cpSync(join(here, "pack/consumer.ts"), join(compiled, "consumer.ts"));
  const { compilerOptions } = JSON.parse(readFileSync(join(here, "host/tsconfig.json"), "utf8"));
  const tsconfig = {
    compilerOptions: { ...compilerOptions, noEmit: false, outDir: "dist", rootDir: ".", types: ["node"] },
    files: ["consumer.ts"],
  };
  writeFileSync(join(compiled, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  run(`tsc (${t3.join(", ")}, T3 Code's options, emitting)`, "npx", ["tsc", "-p", "tsconfig.json"], compiled);
  if (!existsSync(join(compiled, "dist/consumer.js"))) throw new Error("tsc wrote no dist/consumer.js");
  process.stdout.write(run("node dist/consumer.js", "node", ["dist/consumer.js", trace, golden], compiled));
  console.log(`pack-check: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`pack-check: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
