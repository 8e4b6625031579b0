/**
 * `codex app-server` 0.171.0, the real program, against the mock Responses API: initialize,
 * thread/start, turn/start; the scripted shell command (it writes a file) needs the host's
 * approval, which becomes `request.opened`, answered through `Normalizer.answer`; the command's
 * item and the turn settle as the answer says.
 *
 * The approval policy `untrusted` asks before any command outside Codex's known-safe list,
 * whatever the sandbox; the sandbox is `danger-full-access` so that the test does not depend on
 * the machine's bubblewrap or Landlock.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Decision } from "@agentwire/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { codexAppServer, scratch } from "../src/agents.ts";
import { drive, type Host, reportLatency } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
  reportLatency("codex-app-server");
});

/** A JSON-RPC request, and the agent's reply to it. */
const call = async (host: Host, id: number, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
  host.write({ id, method, params });
  const reply = await host.message(`the reply to ${method}`, (message) => message.id === id && !("method" in message));
  if (!("result" in reply)) throw new Error(`${method} failed: ${JSON.stringify(reply)}`);
  return reply.result as Record<string, unknown>;
};

const run = async (decision: Decision) => {
  const dir = scratch("codex");
  try {
    const driven = await drive(codexAppServer(dir, mock.url), async (host) => {
      await call(host, 1, "initialize", { clientInfo: { name: "agentwire-live", title: "agentwire live test", version: "0.1.0" } });
      host.write({ method: "initialized" });
      const started = await call(host, 2, "thread/start", { cwd: dir.work, approvalPolicy: "untrusted", sandbox: "danger-full-access" });
      const threadId = (started.thread as { id: string }).id;
      await call(host, 3, "turn/start", { threadId, input: [{ type: "text", text: "please run the command" }] });
      const opened = await host.event("request.opened", (event) => event.type === "request.opened");
      expect(opened.payload).toMatchObject({ requestType: "command_execution_approval" });
      host.answer({ requestId: opened.requestId as NonNullable<typeof opened.requestId>, decision });
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

describe("codex app-server, live", () => {
  it("runs the command the host accepts", async () => {
    const { host, result, ran } = await run("accept");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "accept" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "completed" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(true);
    expect(host.problems).toEqual([]);
  });

  it("does not run the command the host declines", async () => {
    const { host, result, ran } = await run("decline");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "decline" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "declined" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(false);
    expect(host.problems).toEqual([]);
  });
});
