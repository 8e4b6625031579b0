/**
 * Type-level checks (spec 1.5), enforced by `tsc --noEmit`: a failing check is a compile error.
 */
import * as Schema from "effect/Schema";

import { TrimmedNonEmptyString } from "../src/baseSchemas.ts";
import {
  type CanonicalRuntimeEventType,
  type ContentStreamKind,
  isEventType,
  type ProviderRuntimeEvent,
  type ProviderRuntimeEventV2,
  type ProviderRuntimeTurnStatus,
  type ProviderThreadId,
  type RuntimeContentStreamKind,
  type RuntimeEventPayloadByType,
  type TurnCompletedEvent,
  type TurnState,
} from "../src/providerRuntime.gen.ts";

/** `true` when `A` and `B` are the same type (not merely mutually assignable). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

type CanonicalRuntimeEventTypeFromPayloadMap = keyof RuntimeEventPayloadByType;
export type MissingPayloadTypes = Exclude<CanonicalRuntimeEventType, CanonicalRuntimeEventTypeFromPayloadMap>;
export type ExtraPayloadTypes = Exclude<CanonicalRuntimeEventTypeFromPayloadMap, CanonicalRuntimeEventType>;

/** The payload each union member carries for its `type`. */
type PayloadOfUnion = {
  [K in CanonicalRuntimeEventType]: Extract<ProviderRuntimeEventV2, { readonly type: K }>["payload"];
};

export type Checks = [
  // Spec 1.5: "Both should be `never`."
  Assert<Equals<MissingPayloadTypes, never>>,
  Assert<Equals<ExtraPayloadTypes, never>>,
  // The union's `type`s are exactly the event types, each member carrying the payload of the map.
  Assert<Equals<ProviderRuntimeEventV2["type"], CanonicalRuntimeEventType>>,
  Assert<Equals<PayloadOfUnion, RuntimeEventPayloadByType>>,
];

// The checks can fail: an event type without a payload entry is caught.
export type MissingIsCaught = Assert<
  // @ts-expect-error `"bogus.type"` has no payload, so the difference is not `never`.
  Equals<Exclude<CanonicalRuntimeEventType | "bogus.type", CanonicalRuntimeEventTypeFromPayloadMap>, never>
>;
// ... and so is a payload entry without an event type.
export type ExtraIsCaught = Assert<
  // @ts-expect-error `"bogus.type"` is not an event type, so the difference is not `never`.
  Equals<Exclude<CanonicalRuntimeEventTypeFromPayloadMap | "bogus.type", CanonicalRuntimeEventType>, never>
>;

/** Narrowing on `type` gives the payload's own fields (a compile-time use of the union). */
export const describeEvent = (event: ProviderRuntimeEventV2): string => {
  switch (event.type) {
    case "turn.completed":
      return `turn ${event.payload.state}${event.payload.stopReason === null ? "" : ` (${event.payload.stopReason ?? "?"})`}`;
    case "content.delta":
      return `${event.payload.streamKind}: ${event.payload.delta}`;
    case "item.started":
    case "item.updated":
    case "item.completed":
      return `${event.type} ${event.payload.itemType}`;
    default:
      return event.type;
  }
};

/** The `turn.completed` events of a list, through the guard. */
export const completedTurns = (events: ReadonlyArray<ProviderRuntimeEventV2>) =>
  events.filter(isEventType("turn.completed"));

/** `isEventType` narrows to the event of its type, and the aliases are the model's definitions. */
export type GuardChecks = [
  Assert<Equals<ReturnType<typeof completedTurns>[number], TurnCompletedEvent>>,
  Assert<Equals<ProviderRuntimeEvent, ProviderRuntimeEventV2>>,
  Assert<Equals<ProviderRuntimeTurnStatus, TurnState>>,
  Assert<Equals<RuntimeContentStreamKind, ContentStreamKind>>,
  // An id the module defines is the id a host makes the way T3's `makeEntityId` does.
  Assert<Equals<ProviderThreadId, typeof HostProviderThreadId.Type>>,
];

const HostProviderThreadId = TrimmedNonEmptyString.pipe(Schema.brand("ProviderThreadId"));
