/**
 * A consumer written the way T3 Code's server (`apps/server`) uses the module: everything imported
 * from the contracts package's entry (`@t3tools/contracts`, resolved here to this stand-in by the
 * package's own name), `type ProviderRuntimeEvent` among the ids, events narrowed by `type`.
 */
import {
  type CanonicalRequestType,
  decodeProviderRuntimeEvent,
  isEventType,
  isToolLifecycleItemType,
  type ProviderRuntimeEvent,
  type ProviderRuntimeTurnStatus,
  type RuntimeContentStreamKind,
  ThreadId,
  type ThreadTokenUsageSnapshot,
  type ToolLifecycleItemType,
  TurnId,
  type UserInputQuestion,
} from "@t3tools/contracts";

/** The key T3's ingestion keeps per thread and turn. */
export const providerTurnKey = (threadId: ThreadId, turnId: TurnId): string =>
  `${threadId}:${turnId}`;

/** The stream kind of a content delta, the request type of a request, else nothing. */
export const streamOrRequest = (
  event: ProviderRuntimeEvent,
): RuntimeContentStreamKind | CanonicalRequestType | undefined => {
  switch (event.type) {
    case "content.delta":
      return event.payload.streamKind;
    case "request.opened":
    case "request.resolved":
      return event.payload.requestType;
    default:
      return undefined;
  }
};

/** How each turn ended, by thread and turn. */
export const turnOutcomes = (
  events: ReadonlyArray<ProviderRuntimeEvent>,
): Map<string, ProviderRuntimeTurnStatus> => {
  const outcomes = new Map<string, ProviderRuntimeTurnStatus>();
  for (const event of events.filter(isEventType("turn.completed"))) {
    if (event.threadId !== undefined && event.turnId !== undefined) {
      outcomes.set(providerTurnKey(event.threadId, event.turnId), event.payload.state);
    }
  }
  return outcomes;
};

/** Decodes JSON lines of canonical events. */
export const ingest = (lines: ReadonlyArray<string>): Array<ProviderRuntimeEvent> =>
  lines.map((line) => decodeProviderRuntimeEvent(JSON.parse(line)));

/** A T3 id made by the host's own schema is what the module's events carry. */
export const threadOf = (value: string): ThreadId => ThreadId.make(value);

/** The item types of completed tool items, as T3's activity feed keeps them. */
export const toolItemTypes = (
  events: ReadonlyArray<ProviderRuntimeEvent>,
): Array<ToolLifecycleItemType> =>
  events
    .filter(isEventType("item.completed"))
    .map((event) => event.payload.itemType)
    .filter(isToolLifecycleItemType);

/** The token usage snapshots reported, and the questions asked (each as the provider sent it). */
export const usageAndQuestions = (
  events: ReadonlyArray<ProviderRuntimeEvent>,
): { usage: Array<ThreadTokenUsageSnapshot>; questions: Array<UserInputQuestion> } => ({
  usage: events
    .filter(isEventType("thread.token-usage.updated"))
    .map((event) => event.payload.usage),
  questions: events
    .filter(isEventType("user-input.requested"))
    .flatMap((event): Array<UserInputQuestion> =>
      Array.isArray(event.payload.questions) ? event.payload.questions : [],
    ),
});
