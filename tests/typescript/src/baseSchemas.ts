/**
 * The base schemas `providerRuntime.gen.ts` imports, mirroring T3 Code's
 * `packages/contracts/src/baseSchemas.ts`: ids are branded trimmed non-empty strings made by
 * `makeEntityId(brand)`. Unlike T3 Code's `TrimmedString` (which trims while decoding), these
 * reject what the canonical JSON Schema rejects (untrimmed input, line breaks), and
 * `IsoDateTime` checks RFC 3339 instead of accepting any string, so the harness can check that
 * invalid events are rejected.
 *
 * Hand-written: the test harness's stand-in for the contracts package.
 */
import * as Schema from "effect/Schema";

/**
 * A non-empty string without whitespace at either end. The no-line-break check makes it exactly
 * the canonical JSON Schema's id pattern `^\S(.*\S)?$` (where `.` matches no line terminator).
 */
export const TrimmedNonEmptyString = Schema.String.check(
  Schema.isNonEmpty(),
  Schema.isTrimmed(),
  Schema.isPattern(/^[^\n\r\u2028\u2029]*$/, { expected: "a string without line breaks" }),
);
export type TrimmedNonEmptyString = typeof TrimmedNonEmptyString.Type;

/**
 * Construct a branded identifier. Enforces non-empty trimmed strings.
 *
 * (effect 4.1's `Schema.brand` takes `B & EnsureSingleBrandKey<B>`, which a bare generic `Brand`
 * does not satisfy; the parameter type is spelled through `Schema.brand<Brand>` itself.)
 */
const makeEntityId = <Brand extends string>(brand: Parameters<typeof Schema.brand<Brand>>[0]) =>
  TrimmedNonEmptyString.pipe(Schema.brand<Brand>(brand));

export const EventId = makeEntityId("EventId");
export type EventId = typeof EventId.Type;
export const ThreadId = makeEntityId("ThreadId");
export type ThreadId = typeof ThreadId.Type;
export const TurnId = makeEntityId("TurnId");
export type TurnId = typeof TurnId.Type;
export const ProviderItemId = makeEntityId("ProviderItemId");
export type ProviderItemId = typeof ProviderItemId.Type;
export const ProviderSessionId = makeEntityId("ProviderSessionId");
export type ProviderSessionId = typeof ProviderSessionId.Type;
export const ProviderThreadId = makeEntityId("ProviderThreadId");
export type ProviderThreadId = typeof ProviderThreadId.Type;
export const ProviderTurnId = makeEntityId("ProviderTurnId");
export type ProviderTurnId = typeof ProviderTurnId.Type;

// Added for V2 (spec 1.1).
export const RuntimeItemId = makeEntityId("RuntimeItemId");
export type RuntimeItemId = typeof RuntimeItemId.Type;
export const RuntimeRequestId = makeEntityId("RuntimeRequestId");
export type RuntimeRequestId = typeof RuntimeRequestId.Type;
export const RuntimeTaskId = makeEntityId("RuntimeTaskId");
export type RuntimeTaskId = typeof RuntimeTaskId.Type;
export const RuntimeSessionId = makeEntityId("RuntimeSessionId");
export type RuntimeSessionId = typeof RuntimeSessionId.Type;

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Whether `value` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then
 * `Z` or `+hh:mm`/`-hh:mm` (`T` and `Z` may be lower case), fields in range, second 60 only at
 * 23:59 UTC (the same rule as the Rust `IsoDateTime` and the JSON Schema `date-time` format).
 */
export const isRfc3339DateTime = (value: string): boolean => {
  const match = RFC_3339.exec(value);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHour = Number(match[8] ?? 0);
  const offsetMinute = Number(match[9] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second === 60) {
    const offset = (match[7] === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
    const utc = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
    if (utc !== 23 * 60 + 59) return false;
  }
  return true;
};

export const IsoDateTime = Schema.String.check(
  Schema.makeFilter(isRfc3339DateTime, {
    expected: "an RFC 3339 date-time such as 2026-05-14T09:21:07.412Z",
  }),
);
export type IsoDateTime = typeof IsoDateTime.Type;
