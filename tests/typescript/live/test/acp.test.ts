/**
 * `@zed-industries/claude-agent-acp` 0.19.1, the real ACP adapter, running the Claude Code CLI
 * inside against the mock Messages API: initialize, session/new, session/prompt; the scripted
 * Bash call (a command that writes a file) asks through `session/request_permission`, which
 * becomes `request.opened`, answered through `Normalizer.answer` (the option the decision
 * names); the tool's item and the turn settle as the answer says.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Decision } from "@agentwire/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { claudeAcp, scratch } from "../src/agents.ts";
import { drive, jsonRpc, reportLatency } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
  reportLatency("acp");
});

const run = async (decision: Decision) => {
  const dir = scratch("acp");
  try {
    const driven = await drive(claudeAcp(dir, mock.url), async (host) => {
      await jsonRpc(host, 1, "initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "agentwire-live", title: "agentwire live test", version: "0.1.0" },
      }).reply();
      const session = await jsonRpc(host, 2, "session/new", { cwd: dir.work, mcpServers: [] }).reply();
      const prompt = jsonRpc(host, 3, "session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "please run the command" }] });
      const opened = await host.event("request.opened", (event) => event.type === "request.opened");
      expect(opened.payload).toMatchObject({ requestType: "command_execution_approval" });
      host.answer({ requestId: opened.requestId as NonNullable<typeof opened.requestId>, decision });
      const resolved = await host.event("request.resolved", (event) => event.type === "request.resolved" && event.requestId === opened.requestId);
      const command = await host.event("the command's item.completed", (event) => event.type === "item.completed" && event.itemId === opened.itemId);
      await prompt.reply();
      const turn = await host.event("turn.completed", (event) => event.type === "turn.completed");
      return { opened, resolved, command, turn };
    });
    return { ...driven, ran: existsSync(join(dir.work, "made_by_agent.txt")) };
  } finally {
    dir.remove();
  }
};

describe("Claude Code through the ACP adapter, live", () => {
  it("runs the Bash command the host allows", async () => {
    const { host, result, ran } = await run("accept");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "accept" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "completed" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(true);
    expect(host.problems).toEqual([]);
  });

  it("does not run the Bash command the host rejects", async () => {
    const { host, result, ran } = await run("decline");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "decline" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "declined" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(false);
    expect(host.problems).toEqual([]);
  });
});
