/**
 * agentwire's mapping inside a live TypeScript host: the lines an agent process writes (its
 * stdout) and the lines the host writes to it (its stdin) in, canonical provider-runtime events
 * out. The event types are the generated `@agentwire/provider-runtime` package's.
 *
 * @module @agentwire/node
 */
import type { ProviderKind, ProviderRuntimeEvent } from "@agentwire/provider-runtime";

/** A provider protocol, as `agentwire normalize --from` names it. */
export type Source = "codex-app-server" | "codex-exec" | "codex-rollout" | "claude" | "claude-control" | "acp" | "cursor";

/** The decision of an answer, in `request.resolved`'s vocabulary. */
export type Decision = "accept" | "acceptForSession" | "decline" | "cancel" | "answered" | "error";

export interface NormalizerOptions {
  /** The source the lines come from. */
  readonly from: Source;
  /** The canonical session id; default: UUIDv5 of the first line pushed. */
  readonly sessionId?: string;
  /** The `provider` of every event; default: the source's. */
  readonly providerKind?: ProviderKind;
  /** Keep credentials in `raw` and payloads; by default they are replaced by `[redacted]`. */
  readonly keepSecrets?: boolean;
  /**
   * Where `createdAt` comes from when a line carries no time and no `at` is given: `recorded`
   * (default: the last time seen, so the same input gives the same output) or `wall`.
   */
  readonly clock?: "recorded" | "wall";
}

export interface Answer {
  /** The `requestId` of the `request.opened` to answer. */
  readonly requestId: NonNullable<ProviderRuntimeEvent["requestId"]>;
  readonly decision: Decision;
  /** Answers to questions (as `user-input.resolved` carries them), or an MCP form's content. */
  readonly answers?: unknown;
  /** A tool's result, or the fields of an outcome beyond the decision. */
  readonly result?: unknown;
  /** Why the request was refused (a deny's message, a rejection's reason). */
  readonly message?: string;
}

/** A line that did not map cleanly; its events (a `runtime.warning` among them) were returned. */
export interface LineProblem {
  /** The line's number among the lines pushed (`received` and `sent` together), from 1. */
  readonly line: number;
  /**
   * `unreadable`: not JSON (or an `at` outside the years 0000-9999); `undeclared`: a message the
   * pinned schema does not declare (a newer agent); `undecodable`: a declared message that does
   * not fit it.
   */
  readonly kind: "unreadable" | "undeclared" | "undecodable";
  /** The reason, naming the method and the JSON path where known. */
  readonly message: string;
}

/**
 * One agent session's normalizer. A line that does not map cleanly still gives its events (a
 * `runtime.warning` with the line) and is listed in {@link Normalizer.problems}; a call throws an
 * `Error` only when it cannot be served: unknown options, an `at` that is not an integer
 * (`line N: ...`), an answer that cannot be built.
 */
export declare class Normalizer {
  /** Throws on an unknown `from`, `providerKind` or `clock`, or an invalid `sessionId`. */
  constructor(options: NormalizerOptions);
  /**
   * A line the agent wrote (its stdout), as it wrote it, received at `at` (Unix milliseconds,
   * `Date.now()`) when the host knows. An empty line gives nothing.
   */
  received(line: string, at?: number): Array<ProviderRuntimeEvent>;
  /** A line the host wrote to the agent (its stdin), sent at `at`: an answer resolves its request. */
  sent(line: string, at?: number): Array<ProviderRuntimeEvent>;
  /**
   * The provider-native reply to an open request: the line to write to the agent's stdin (then
   * pass it to {@link Normalizer.sent}). Throws when no reply can be built: an unknown or
   * answered request, a decision its reply type cannot carry, missing or ill-typed answers.
   */
  answer(answer: Answer): string;
  /** Settles what is still open at the end of the session: open turns, items and requests. */
  finish(): Array<ProviderRuntimeEvent>;
  /** The problems of the lines pushed so far, in order. */
  readonly problems: ReadonlyArray<LineProblem>;
}

/** The source of an agent's first lines, as `from` names it; `null` when none is recognized. */
export declare function detect(lines: ReadonlyArray<string>): Source | null;
