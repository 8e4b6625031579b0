/**
 * The capture `cargo xtask drift claude` runs: a Claude Code CLI of another version
 * (`AGENTWIRE_DRIFT_CLI`, a `cli.js` or a native binary) driven as the live tests drive the
 * pinned one, against the same mock model server, in two scenarios (the scripted Bash call
 * allowed, then declined). Each run's transcript (`{dir, ts, msg}` records) goes to
 * `AGENTWIRE_DRIFT_OUT/claude-control/<scenario>.jsonl` and the session files the CLI wrote, in
 * its own layout, to `AGENTWIRE_DRIFT_OUT/claude-session/<scenario>/`; xtask reads them back
 * against the hand-written schemas. Nothing is asserted of the agent beyond finishing its turn.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import type { Decision } from "@agentwire/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { claudeControl, scratch } from "../src/agents.ts";
import { drive } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";

const cli = process.env.AGENTWIRE_DRIFT_CLI;
const out = process.env.AGENTWIRE_DRIFT_OUT;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
});

const capture = async (scenario: string, decision: Decision): Promise<void> => {
  if (cli === undefined || out === undefined) throw new Error("set AGENTWIRE_DRIFT_CLI and AGENTWIRE_DRIFT_OUT (cargo xtask drift claude does)");
  const dir = scratch("claude-drift");
  try {
    const { host } = await drive(claudeControl(dir, mock.url, cli), async (host) => {
      host.write({ request_id: "init-1", type: "control_request", request: { subtype: "initialize" } });
      host.write({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "please run the command" }] }, parent_tool_use_id: null });
      const opened = await host.event("request.opened", (event) => event.type === "request.opened");
      host.answer({ requestId: opened.requestId as NonNullable<typeof opened.requestId>, decision, ...(decision === "decline" ? { message: "declined (drift capture)" } : {}) });
      await host.message("result", (message) => message.type === "result");
    });
    mkdirSync(join(out, "claude-control"), { recursive: true });
    writeFileSync(join(out, "claude-control", `${scenario}.jsonl`), host.transcript.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const projects = join(dir.home, ".claude", "projects");
    expect(existsSync(projects), "the CLI wrote its session files").toBe(true);
    cpSync(projects, join(out, "claude-session", scenario), { recursive: true });
  } finally {
    dir.remove();
  }
};

describe("Claude Code drift capture", () => {
  it("captures a run whose Bash call the host allows", () => capture("bash_allow", "accept"));
  it("captures a run whose Bash call the host declines", () => capture("bash_decline", "decline"));
});
