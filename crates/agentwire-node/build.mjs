// Builds the addon with the host's cargo and puts it beside index.js as napi-rs names it,
// `agentwire.<platform>-<arch>[-<abi>].node` (what `napi build --platform` does), so the package
// loads it from its own folder. Usage: node build.mjs [--release] [--workspace]. `cargo xtask
// test` runs it (debug, `--workspace`) before the TypeScript tests; nothing is downloaded.
//
// `--workspace` builds it in a whole-workspace build with the test targets
// (`cargo build --workspace --lib --bins --tests`): cargo then gives every dependency the
// features `cargo test --workspace` gave it, so after the tests only the addon itself compiles
// (`-p agentwire-node` alone unifies fewer features, and rebuilds its whole dependency tree).
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { platformSuffix } from "./platform.js";

const here = dirname(fileURLToPath(import.meta.url));
const release = process.argv.includes("--release");
const cargo = process.env.CARGO ?? "cargo";
const workspace = process.argv.includes("--workspace");
const args = [
  "build",
  ...(workspace ? ["--workspace", "--lib", "--bins", "--tests"] : ["-p", "agentwire-node"]),
  "--message-format=json-render-diagnostics",
];
if (release) args.push("--release");
// Diagnostics go to stderr as cargo renders them; stdout carries one JSON message per line.
const messages = execFileSync(cargo, args, { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 28 });
const library = messages
  .split("\n")
  .filter((line) => line.startsWith("{"))
  .map((line) => JSON.parse(line))
  .filter((message) => message.reason === "compiler-artifact" && message.target?.name === "agentwire_node")
  .flatMap((message) => message.filenames)
  .find((file) => /\.(so|dylib|dll)$/.test(file));
if (library === undefined) {
  console.error("cargo built no agentwire_node library");
  process.exit(1);
}
const addon = join(here, `agentwire.${platformSuffix()}.node`);
copyFileSync(library, addon);
console.error(`${library} -> ${addon}`);
