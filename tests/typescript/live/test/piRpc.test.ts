/**
 * Pi 1.6.0 (`@earendil-works/pi-coding-agent`, run by Node 22), the real program, over its RPC
 * mode against the mock Messages API: the host writes `prompt` and `abort` commands to its
 * stdin and feeds both directions to the addon (`from: "pi-rpc"`). A prompt runs the scripted
 * command (Pi asks nobody) and the turn completes; a prompt answered slowly, stopped by the
 * host's `abort` while it streams, ends `interrupted`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { piRpc, scratch } from "../src/agents.ts";
import { drive, reportLatency } from "../src/drive.ts";
import { type MockModel, startMockModel } from "../src/mockModel.ts";

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock.close();
  reportLatency("pi-rpc");
});

describe("Pi over its RPC mode, live", () => {
  it("runs the command a prompt asks for and completes the turn", async () => {
    const dir = scratch("pi");
    try {
      const { host, result } = await drive(piRpc(dir, mock.url), async (host) => {
        host.write({ id: "p1", type: "prompt", message: "please run the command" });
        const command = await host.event("the command's item.completed", (event) => event.type === "item.completed" && event.payload.itemType === "command_execution");
        const turn = await host.event("turn.completed", (event) => event.type === "turn.completed");
        return { command, turn };
      });
      expect(result.command.payload).toMatchObject({ itemType: "command_execution", status: "completed" });
      expect(result.turn.payload).toMatchObject({ state: "completed" });
      expect(existsSync(join(dir.work, "made_by_agent.txt"))).toBe(true);
      expect(host.problems).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  it("ends the turn interrupted when the host aborts it mid-stream", async () => {
    const dir = scratch("pi");
    try {
      const { host, result } = await drive(piRpc(dir, mock.url), async (host) => {
        host.write({ id: "p1", type: "prompt", message: "count slowly" });
        await host.event("the answer streaming", (event) => event.type === "content.delta");
        host.write({ id: "a1", type: "abort" });
        const turn = await host.event("turn.completed", (event) => event.type === "turn.completed");
        return { turn };
      });
      expect(result.turn.payload).toMatchObject({ state: "interrupted" });
      expect(host.problems).toEqual([]);
    } finally {
      dir.remove();
    }
  });
});
