/**
 * The Claude Code CLI 2.1.62 (bundled in `@anthropic-ai/claude-agent-sdk` 0.2.62), the real
 * program, over the Agent SDK's stdio control protocol against the mock Messages API: the
 * host's `initialize` control request and a user message; the scripted Bash call (a command
 * that writes a file) asks through `can_use_tool`, which becomes `request.opened`, answered
 * through `Normalizer.answer`; the tool's item and the turn settle as the answer says.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Decision } from "@agentwire/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { claudeControl, scratch } from "../src/agents.ts";
import { drive, reportLatency } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
  reportLatency("claude-control");
});

const run = async (decision: Decision) => {
  const dir = scratch("claude");
  try {
    const driven = await drive(claudeControl(dir, mock.url), async (host) => {
      host.write({ request_id: "init-1", type: "control_request", request: { subtype: "initialize" } });
      host.write({ type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "please run the command" }] }, parent_tool_use_id: null });
      const opened = await host.event("request.opened", (event) => event.type === "request.opened");
      expect(opened.payload).toMatchObject({ requestType: "command_execution_approval" });
      host.answer({ requestId: opened.requestId as NonNullable<typeof opened.requestId>, decision, ...(decision === "decline" ? { message: "The host declined (live test)" } : {}) });
      const resolved = await host.event("request.resolved", (event) => event.type === "request.resolved" && event.requestId === opened.requestId);
      const command = await host.event("the command's item.completed", (event) => event.type === "item.completed" && event.itemId === opened.itemId);
      const turn = await host.event("turn.completed", (event) => event.type === "turn.completed");
      return { opened, resolved, command, turn };
    });
    return { ...driven, ran: existsSync(join(dir.work, "made_by_agent.txt")) };
  } finally {
    dir.remove();
  }
};

describe("Claude Code CLI over the control protocol, live", () => {
  it("runs the Bash command the host allows", async () => {
    const { host, result, ran } = await run("accept");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "accept" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "completed" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(true);
    expect(host.problems).toEqual([]);
  });

  it("does not run the Bash command the host denies", async () => {
    const { host, result, ran } = await run("decline");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "decline" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "declined" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(false);
    expect(host.problems).toEqual([]);
  });
});
