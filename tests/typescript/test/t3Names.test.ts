/**
 * The names T3 Code's server imports from its `providerRuntime.ts` that the model declares itself
 * (`x-kind: json` definitions and the `x-enumSubsets` of `CanonicalItemType` in the canonical
 * JSON Schema), imported from the package as a host imports them: the tool lifecycle subset and
 * its guard, the token usage snapshot and the user-input question, checked against the goldens.
 */
import * as Schema from "effect/Schema";
import { describe, expect, expectTypeOf, it } from "vitest";

import {
  CanonicalItemType,
  decodeProviderRuntimeEvent,
  isEventType,
  isToolLifecycleItemType,
  ThreadTokenUsageSnapshot,
  ThreadTokenUsageUpdatedPayload,
  ToolLifecycleItemType,
  UserInputQuestion,
  type ProviderRuntimeEvent,
  type RuntimeEventPayloadByType,
} from "@agentwire/provider-runtime";

import { goldenFiles, readJsonl } from "../shared/canonicalLines.ts";

/** T3 Code's `TOOL_LIFECYCLE_ITEM_TYPES` (`packages/contracts/src/providerRuntime.ts`). */
const T3_TOOL_LIFECYCLE_ITEM_TYPES = [
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "dynamic_tool_call",
  "collab_agent_tool_call",
  "web_search",
  "image_view",
];

const goldenEvents = (): Array<ProviderRuntimeEvent> =>
  goldenFiles().flatMap((file) => readJsonl(file).map((line) => decodeProviderRuntimeEvent(line.value)));

describe("ToolLifecycleItemType and isToolLifecycleItemType", () => {
  it("are T3 Code's seven tool item types, each a CanonicalItemType", () => {
    expect([...ToolLifecycleItemType.literals]).toEqual(T3_TOOL_LIFECYCLE_ITEM_TYPES);
    for (const value of ToolLifecycleItemType.literals) {
      expect(Schema.is(CanonicalItemType)(value), value).toBe(true);
    }
    expectTypeOf<ToolLifecycleItemType>().toExtend<CanonicalItemType>();
  });

  it("the guard accepts every member and rejects every other item type", () => {
    for (const value of CanonicalItemType.literals) {
      expect(isToolLifecycleItemType(value), value).toBe(T3_TOOL_LIFECYCLE_ITEM_TYPES.includes(value));
    }
    expect(isToolLifecycleItemType("assistant_message")).toBe(false);
    expect(isToolLifecycleItemType("image_generation")).toBe(false);
    expect(isToolLifecycleItemType("Command_Execution")).toBe(false);
  });

  it("narrows an item's type, and the schema decodes exactly the members", () => {
    const toolItems = goldenEvents()
      .filter(isEventType("item.completed"))
      .map((event) => event.payload.itemType)
      .filter(isToolLifecycleItemType);
    expectTypeOf(toolItems).toEqualTypeOf<Array<ToolLifecycleItemType>>();
    expect(new Set(toolItems)).toContain("command_execution");
    const decode = Schema.decodeUnknownSync(ToolLifecycleItemType);
    expect(decode("web_search")).toBe("web_search");
    expect(() => decode("reasoning")).toThrow();
  });
});

describe("ThreadTokenUsageSnapshot", () => {
  it("is the schema of thread.token-usage.updated's usage", () => {
    expect(ThreadTokenUsageUpdatedPayload.fields.usage).toBe(ThreadTokenUsageSnapshot);
    expectTypeOf<RuntimeEventPayloadByType["thread.token-usage.updated"]["usage"]>().toEqualTypeOf<ThreadTokenUsageSnapshot>();
  });

  it("decodes the usage of every golden token-usage event, of every provider", () => {
    const events = goldenEvents().filter(isEventType("thread.token-usage.updated"));
    // Every provider of the goldens reports usage but Cursor (its transcripts are hand-made).
    const providers = new Set(goldenEvents().map((event) => event.provider));
    providers.delete("cursor");
    expect(new Set(events.map((event) => event.provider))).toEqual(providers);
    const decode = Schema.decodeUnknownSync(ThreadTokenUsageSnapshot);
    for (const event of events) {
      expect(decode(event.payload.usage)).toEqual(event.payload.usage);
    }
  });
});

describe("UserInputQuestion", () => {
  it("decodes every question of every golden user-input.requested event", () => {
    const events = goldenEvents().filter(isEventType("user-input.requested"));
    expect(events.length).toBeGreaterThan(0);
    const decode = Schema.decodeUnknownSync(Schema.Array(UserInputQuestion));
    for (const event of events) {
      const questions = decode(event.payload.questions);
      expect(questions.length, event.eventId).toBeGreaterThan(0);
      expect(questions).toEqual(event.payload.questions);
    }
  });
});
