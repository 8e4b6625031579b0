/**
 * `opencode serve` (`opencode-ai` 1.18.33), the real program, over its HTTP API against the mock
 * Messages API: the host subscribes to `GET /event`, creates a session (`POST /session`) and
 * prompts it (`POST /session/{id}/prompt_async`); the scripted `bash` call (a command that
 * writes a file) asks through `permission.asked`, which becomes `request.opened`, answered
 * through `Normalizer.answer`, whose `POST /permission/{id}/reply` the host makes; the tool's
 * item and the turn settle as the answer says.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Decision } from "@agentwire/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { opencodeServe, scratch } from "../src/agents.ts";
import { drive, reportLatency } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";
import { OpencodeClient } from "../src/opencode.ts";

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
  reportLatency("opencode");
});

const run = async (decision: Decision) => {
  const dir = scratch("opencode");
  try {
    const driven = await drive(opencodeServe(dir, mock.url), async (host) => {
      const opencode = await OpencodeClient.connect(host);
      try {
        const session = (await opencode.call("POST", "/session", {})) as { id: string };
        await opencode.call("POST", `/session/${session.id}/prompt_async`, { parts: [{ type: "text", text: "please run the command" }] });
        const opened = await host.event("request.opened", (event) => event.type === "request.opened");
        expect(opened.payload).toMatchObject({ requestType: "command_execution_approval" });
        await opencode.answer({ requestId: opened.requestId as NonNullable<typeof opened.requestId>, decision });
        const resolved = await host.event("request.resolved", (event) => event.type === "request.resolved" && event.requestId === opened.requestId);
        const command = await host.event(
          "the command's item.completed",
          (event) => event.type === "item.completed" && (event.payload as { itemType?: string }).itemType === "command_execution",
        );
        const turn = await host.event("turn.completed", (event) => event.type === "turn.completed");
        return { opened, resolved, command, turn };
      } finally {
        opencode.close();
      }
    });
    return { ...driven, ran: existsSync(join(dir.work, "made_by_agent.txt")) };
  } finally {
    dir.remove();
  }
};

describe("opencode serve over HTTP, live", () => {
  it("runs the bash command the host allows once", async () => {
    const { host, result, ran } = await run("accept");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "accept" });
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "completed" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(true);
    expect(host.problems).toEqual([]);
    expect(mock.requests.filter((request) => request.api === "proxy")).toEqual([]);
  });

  it("does not run the bash command the host rejects", async () => {
    const { host, result, ran } = await run("decline");
    expect(result.resolved.payload).toMatchObject({ requestType: "command_execution_approval", decision: "decline" });
    // OpenCode ends a rejected call as a tool error ("The user rejected permission ..."), which
    // agentwire reads as declined, as for the other providers.
    expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "declined" });
    expect(result.turn.payload).toMatchObject({ state: "completed" });
    expect(ran).toBe(false);
    expect(host.problems).toEqual([]);
    expect(mock.requests.filter((request) => request.api === "proxy")).toEqual([]);
  });
});
