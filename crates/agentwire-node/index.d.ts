/**
 * agentwire's mapping inside a live TypeScript host: the lines an agent process writes (its
 * stdout) and the lines the host writes to it (its stdin) in, or the whole document of a session
 * a program exported (`opencode export`), canonical provider-runtime events out. The event types
 * are the generated `@agentwire/provider-runtime` package's.
 *
 * @module @agentwire/node
 */
import type { ProviderKind, ProviderRuntimeEvent, SessionSnapshot, SnapshotChange } from "@agentwire/provider-runtime";

import type { Source } from "./sources.js";

export type { Source };

/** The decision of an answer, in `request.resolved`'s vocabulary. */
export type Decision = "accept" | "acceptForSession" | "decline" | "cancel" | "answered" | "error";

export interface NormalizerOptions {
  /** The source the lines (or the document) come from. */
  readonly from: Source;
  /**
   * The canonical session id; default: a fresh UUIDv7 for each normalizer fed lines (every
   * session of a host begins with the same `initialize`, so an id derived from the first line
   * would be shared), and for {@link Normalizer.document} the id `agentwire normalize` derives
   * from the document's first frame (the session's own record: an export read again gives the
   * same ids).
   */
  readonly sessionId?: string;
  /** The `provider` of every event; default: the source's. */
  readonly providerKind?: ProviderKind;
  /** Keep credentials in `raw` and payloads; by default they are replaced by `[redacted]`. */
  readonly keepSecrets?: boolean;
  /**
   * `agentwire normalize --clock`'s `recorded` (default) or `wall`; it changes nothing live: a line
   * given `at` is stamped with it, and a line given none that carries no time of its own is
   * stamped with the wall clock as it arrives, so its events come back from that very call. A
   * {@link Normalizer.document} is read as `agentwire normalize` reads the file, with this clock.
   */
  readonly clock?: "recorded" | "wall";
}

export interface Answer {
  /** The `requestId` of the `request.opened` to answer. */
  readonly requestId: NonNullable<ProviderRuntimeEvent["requestId"]>;
  readonly decision: Decision;
  /** Answers to questions (as `user-input.resolved` carries them), or an MCP form's content. */
  readonly answers?: unknown;
  /**
   * A tool's result, or the fields of an outcome beyond the decision (a Cursor plan's `planUri`, a
   * Claude allow's `updatedInput` and `updatedPermissions`); a reply that takes none refuses one.
   */
  readonly result?: unknown;
  /** Why the request was refused (a deny's message, a rejection's reason). */
  readonly message?: string;
}

/** A line that did not map cleanly; its events (a `runtime.warning` among them) were returned. */
export interface LineProblem {
  /**
   * The line's number among the lines pushed (`received` and `sent` together), from 1; for a
   * frame of a {@link Normalizer.document}, the document's line where the frame begins (as
   * `agentwire normalize` names it: `FILE:LINE`).
   */
  readonly line: number;
  /**
   * `unreadable`: not JSON (for a document, the rest of one cut short, or text that is no such
   * document); `undeclared`: a message the pinned schema does not declare (a newer agent);
   * `undecodable`: a declared message that does not fit it.
   */
  readonly kind: "unreadable" | "undeclared" | "undecodable";
  /** The reason, naming the method and the JSON path where known. */
  readonly message: string;
}

/**
 * The `code` of every `Error` the package throws, one per thing a host can do about it:
 *
 * - `AGENTWIRE_BAD_OPTION`: `new Normalizer` was given an unknown `from`, `providerKind` or
 *   `clock`, or an invalid `sessionId`;
 * - `AGENTWIRE_BAD_AT`: `at` is not Unix milliseconds: not an integer, a `Date`, a number before
 *   1973-03-03 (10^11 ms: seconds passed by mistake) or after the year 9999;
 * - `AGENTWIRE_UNKNOWN_REQUEST`: `answer`'s `requestId` names no request opened in the session;
 * - `AGENTWIRE_ALREADY_ANSWERED`: the request was answered or settled already (drop its card);
 * - `AGENTWIRE_NOT_OFFERED`: the request did not offer the decision and its reply type cannot
 *   carry it (the message lists what was offered);
 * - `AGENTWIRE_BAD_ANSWER`: an unknown decision, or `answers` or `result` missing, ill-typed, or
 *   given to a reply that takes none (the message names the JSON path);
 * - `AGENTWIRE_UNANSWERABLE`: the source is a record nobody answers (`codex-exec`,
 *   `codex-rollout`, `claude-session`, `claude`);
 * - `AGENTWIRE_BAD_EVENT`: `fold` was given a line that is not a canonical event;
 * - `AGENTWIRE_NO_DOCUMENT_FORM`: `document` on a source whose messages are lines (every source
 *   but `opencode-session`): give each line to `received` or `sent`;
 * - `AGENTWIRE_ALREADY_FED`: `document` on a normalizer given anything before (a document, a
 *   line, `finish`), or `received` or `sent` after `document`: a document is a whole session,
 *   read by a `Normalizer` of its own.
 *
 * Arguments not of the declared types otherwise (a `line` that is no string) throw napi's own
 * errors.
 */
export type ErrorCode =
  | "AGENTWIRE_BAD_OPTION"
  | "AGENTWIRE_BAD_AT"
  | "AGENTWIRE_UNKNOWN_REQUEST"
  | "AGENTWIRE_ALREADY_ANSWERED"
  | "AGENTWIRE_NOT_OFFERED"
  | "AGENTWIRE_BAD_ANSWER"
  | "AGENTWIRE_UNANSWERABLE"
  | "AGENTWIRE_BAD_EVENT"
  | "AGENTWIRE_NO_DOCUMENT_FORM"
  | "AGENTWIRE_ALREADY_FED";

/** An `Error` the package throws: its `message` says why, its `code` which case it is. */
export interface AgentwireError extends Error {
  readonly code: ErrorCode;
}

/**
 * One agent session's normalizer, fed the session's lines as they come (`received`, `sent`,
 * `finish`) or, for a session a program exported, its whole document at once (`document`). A line
 * that does not map cleanly still gives its events (a `runtime.warning` with the line) and is
 * listed in {@link Normalizer.problems}; a call throws an {@link AgentwireError} only when it
 * cannot be served: unknown options, an `at` that is not Unix milliseconds (`line N: ...`), an
 * answer that cannot be built, a document the source has no form for or given with other input.
 */
export declare class Normalizer {
  /** Throws `AGENTWIRE_BAD_OPTION` on an unknown `from`, `providerKind` or `clock`, or an invalid `sessionId`. */
  constructor(options: NormalizerOptions);
  /**
   * A line the agent wrote (its stdout), as it wrote it, received at `at`: Unix milliseconds
   * (`Date.now()`, not a `Date`), an integer from 1973-03-03 (10^11: a smaller number is seconds
   * passed by mistake) to the year 9999, else `AGENTWIRE_BAD_AT` and the line is not pushed.
   * Without `at`, a line carrying no time of its own is stamped with the wall clock as it
   * arrives, so each call returns that line's events. An empty line gives nothing.
   */
  received(line: string, at?: number): Array<ProviderRuntimeEvent>;
  /** A line the host wrote to the agent (its stdin), sent at `at` (as `received`): an answer resolves its request. */
  sent(line: string, at?: number): Array<ProviderRuntimeEvent>;
  /**
   * The whole document of a session a program exported (`opencode export ID`'s output, pretty or
   * on one line, as text): all of its events, the session settled, the same events
   * `agentwire normalize` writes for that file with these options (the session id derived from
   * the document unless `sessionId` is given). The document is cut into frames as the CLI cuts it
   * (the session's record, then each message); a frame that does not map cleanly is listed in
   * {@link Normalizer.problems} with the document's line where it begins, and a document cut short
   * keeps the events read before the cut, then a `runtime.warning` carrying the rest and an
   * `unreadable` problem on the line where the rest begins.
   *
   * Only for a source with a document form (`opencode-session`), else `AGENTWIRE_NO_DOCUMENT_FORM`;
   * only on a new normalizer, once: a second `document`, or one after `received`, `sent` or
   * `finish`, throws `AGENTWIRE_ALREADY_FED`, and so do `received` and `sent` after it. `finish`
   * after it returns nothing (the session is settled); `snapshot`, `changes` and `problems` cover
   * the document.
   */
  document(text: string): Array<ProviderRuntimeEvent>;
  /**
   * The provider-native reply to an open request: the line to write to the agent's stdin (then
   * pass it to {@link Normalizer.sent}). Throws when no reply can be built, with the code of the
   * case ({@link ErrorCode}): an unknown or answered request, a decision its reply type cannot
   * carry, missing or ill-typed answers or result.
   */
  answer(answer: Answer): string;
  /**
   * Settles what is still open at the end of the session: open turns, items and requests. After
   * {@link Normalizer.document}, which settled its session, an empty array.
   */
  finish(): Array<ProviderRuntimeEvent>;
  /**
   * The session as a UI draws it: every event this normalizer gave so far folded in (threads,
   * turns, items with their typed content, open requests, the plan, usage, errors); `null`
   * before the first event. The same events give the same snapshot as `agentwire show` and the
   * Rust `agentwire::snapshot::Fold`.
   */
  snapshot(): SessionSnapshot | null;
  /** What the events of the last call (`received`, `sent`, `document` or `finish`) changed in the snapshot: redraw only that. */
  changes(): SnapshotChange;
  /** The problems of the lines (or the document's frames) pushed so far, in order. */
  readonly problems: ReadonlyArray<LineProblem>;
}

/**
 * The snapshot of canonical events a host already has (the JSONL `agentwire normalize` or
 * `agentwire import` wrote): the fold a normalizer's `snapshot()` keeps. Throws
 * `AGENTWIRE_BAD_EVENT` naming the first line that is not a canonical event.
 */
export declare function fold(jsonl: string): SessionSnapshot | null;
/**
 * The source of an agent's first lines, as `from` names it; else, when the lines are a whole
 * document a source reads (an `opencode export`, pretty-printed or on one line), that source
 * (then give the joined text to `document`); `null` when neither is recognized.
 */
export declare function detect(lines: ReadonlyArray<string>): Source | null;
