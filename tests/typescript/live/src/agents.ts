/**
 * The pinned agent programs (this package's dependencies) as the live tests start them: each in
 * a scratch folder of its own (HOME, TMPDIR, the working directory, CODEX_HOME), with an
 * environment naming only the mock model server and no credential but a dummy key, telemetry,
 * update checks and other traffic turned off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import type { AgentProcess } from "./drive.ts";

const require = createRequire(import.meta.url);

export interface Scratch {
  readonly root: string;
  readonly home: string;
  readonly work: string;
  readonly tmp: string;
  remove(): void;
}

/** A fresh temp folder holding the agent's HOME, working directory and TMPDIR. */
export const scratch = (name: string): Scratch => {
  const root = mkdtempSync(join(tmpdir(), `agentwire-live-${name}-`));
  const [home, work, tmp] = ["home", "work", "tmp"].map((part) => join(root, part));
  for (const dir of [home, work, tmp]) mkdirSync(dir as string);
  return { root, home: home as string, work: work as string, tmp: tmp as string, remove: () => rmSync(root, { recursive: true, force: true }) };
};

const baseEnv = (dir: Scratch): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir.home,
  TMPDIR: dir.tmp,
  TERM: "dumb",
  LANG: "C.UTF-8",
});

/** The environment that points the Claude Code CLI at the mock's Messages API and nowhere else. */
const claudeEnv = (dir: Scratch, mockUrl: string): Record<string, string> => ({
  ...baseEnv(dir),
  ANTHROPIC_BASE_URL: mockUrl,
  ANTHROPIC_API_KEY: "dummy",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  CLAUDE_CODE_MAX_RETRIES: "0",
});

/**
 * The package's own bundled file, found through its `package.json` (which these packages
 * export or, lacking an `exports` map, expose as a plain path).
 */
const packageFile = (name: string, file: string): string => join(dirname(require.resolve(`${name}/package.json`)), file);

/**
 * `codex app-server` 0.171.0 (the package's `bin/codex.js`, which runs the platform binary from
 * its optional dependency). Its `config.toml` names one model provider, the mock's Responses
 * API, with retries off, and turns off analytics, feedback, plugins and update checks.
 */
export const codexAppServer = (dir: Scratch, mockUrl: string): AgentProcess => {
  const codexHome = join(dir.root, "codex-home");
  mkdirSync(codexHome);
  writeFileSync(
    join(codexHome, "config.toml"),
    `model_provider = "mock"
model = "mock-model"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = ${JSON.stringify(`${mockUrl}/v1`)}
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 20000

[features]
plugins = false
remote_plugin = false
apps = false
tool_suggest = false
skill_mcp_dependency_install = false
api_key_model_discovery = false

[analytics]
enabled = false

[feedback]
enabled = false

[projects.${JSON.stringify(dir.work)}]
trust_level = "trusted"
`,
  );
  return {
    family: "codex-app-server",
    from: "codex-app-server",
    command: process.execPath,
    args: [packageFile("@openai/codex", "bin/codex.js"), "app-server", "--strict-config"],
    env: { ...baseEnv(dir), CODEX_HOME: codexHome, MOCK_API_KEY: "dummy", RUST_LOG: "warn" },
    cwd: dir.work,
  };
};

/**
 * The Claude Code CLI bundled in `@anthropic-ai/claude-agent-sdk` 0.2.62 (`cli.js`), or the one
 * at `cli` (a `cli.js` run by node, or a native binary, as 0.3.x ships it: what `cargo xtask
 * drift claude` tries), started with the argv the SDK's `query()` gives it (stream-json both
 * ways, permission prompts over the stdio control protocol, no settings files, partial messages).
 */
export const claudeControl = (dir: Scratch, mockUrl: string, cli?: string): AgentProcess => ({
  family: "claude-control",
  from: "claude-control",
  command: cli === undefined || cli.endsWith(".js") ? process.execPath : cli,
  args: [
    ...(cli === undefined ? [packageFile("@anthropic-ai/claude-agent-sdk", "cli.js")] : cli.endsWith(".js") ? [cli] : []),
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    "--permission-prompt-tool",
    "stdio",
    "--setting-sources",
    "",
    "--permission-mode",
    "default",
    "--include-partial-messages",
  ],
  env: { ...claudeEnv(dir, mockUrl), CLAUDE_CODE_ENTRYPOINT: "sdk-ts" },
  cwd: dir.work,
});

/**
 * `@zed-industries/claude-agent-acp` 0.19.1, the ACP adapter, which runs the same Claude Code
 * CLI inside (its own dependency on the Agent SDK), pointed at the same mock.
 */
export const claudeAcp = (dir: Scratch, mockUrl: string): AgentProcess => ({
  family: "acp",
  from: "acp",
  command: process.execPath,
  args: [packageFile("@zed-industries/claude-agent-acp", "dist/index.js")],
  env: claudeEnv(dir, mockUrl),
  cwd: dir.work,
});
