//! `generated/typescript/baseSchemas.ts`: the host module of the npm package, for hosts that have
//! no `baseSchemas.ts` of their own. It exports the names `providerRuntime.gen.ts` takes from its
//! host, defined as T3 Code's contracts define them (ids are `TrimmedNonEmptyString` branded with
//! their own name) but with the canonical JSON Schema's rules: untrimmed strings and line breaks
//! are rejected rather than trimmed, and `IsoDateTime` is checked as RFC 3339 (the same rule as the
//! generated Rust `IsoDateTime`). A T3 Code adopter copies only the module and keeps T3's file.

use std::fmt::Write as _;

use super::format::{jsdoc, list, string};
use crate::codegen::canonical_model::Model;

/// The unbranded string every id brands.
pub const BASE_STRING: &str = "TrimmedNonEmptyString";

const MODULE_DOC: &str = "The base schemas `providerRuntime.gen.ts` imports from `./baseSchemas.ts`, for hosts without \
their own (T3 Code keeps its `packages/contracts/src/baseSchemas.ts`). Ids are `TrimmedNonEmptyString` branded with their \
own name, as T3's `makeEntityId(brand)` makes them, so a value stays assignable to a host's id of the same brand. Unlike \
T3's `TrimmedNonEmptyString` (which trims while decoding), these reject what the canonical JSON Schema rejects (untrimmed \
input, line breaks), and `IsoDateTime` checks RFC 3339 instead of accepting any string.\n\n@module baseSchemas";

const BASE_STRING_SCHEMA: &str = r#"Schema.String.check(
  Schema.isNonEmpty(),
  Schema.isTrimmed(),
  Schema.isPattern(/^[^\n\r\u2028\u2029]*$/, { expected: "a string without line breaks" }),
)"#;

/// The RFC 3339 check `IsoDateTime` uses; the Rust `IsoDateTime` and the JSON Schema `date-time`
/// format apply the same rule.
const RFC_3339_CHECK: &str = r#"const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Whether `value` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then
 * `Z` or `+hh:mm`/`-hh:mm` (`T` and `Z` may be lower case), fields in range, second 60 only at
 * 23:59 UTC.
 */
const isRfc3339DateTime = (value: string): boolean => {
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
"#;

const DATE_TIME_SCHEMA: &str = r#"Schema.String.check(
  Schema.makeFilter(isRfc3339DateTime, {
    expected: "an RFC 3339 date-time such as 2026-05-14T09:21:07.412Z",
  }),
)"#;

/// `export const Id = TrimmedNonEmptyString.pipe(Schema.brand("Id"));` and its type: an id as T3
/// Code's `makeEntityId("Id")` makes it, with the brand spelled out (effect 4.1's `Schema.brand`
/// takes no bare generic brand).
pub fn branded_id(name: &str) -> String {
    let opening = format!("export const {name} = {BASE_STRING}.pipe(");
    let mut out = list("", &opening, &[format!("Schema.brand({})", string(name))], ");");
    let _ = writeln!(out, "export type {name} = typeof {name}.Type;");
    out
}

/// The file, exporting `names` (ids and date-times of the model, the unbranded string first).
pub fn generate(model: &Model, names: &[&str], source: &str) -> String {
    let mut out = crate::codegen::header("//", source);
    out.push_str(&jsdoc("", MODULE_DOC));
    out.push_str("import * as Schema from \"effect/Schema\";\n\n");
    // The unbranded string first: every other id is defined from it.
    let mut ids: Vec<_> = model
        .ids
        .iter()
        .filter(|id| names.contains(&id.name.as_str()))
        .collect();
    ids.sort_by_key(|id| id.name != BASE_STRING);
    for id in ids {
        out.push_str(&jsdoc("", &id.description));
        if id.name == BASE_STRING {
            let _ = writeln!(out, "export const {} = {BASE_STRING_SCHEMA};", id.name);
            let _ = writeln!(out, "export type {0} = typeof {0}.Type;", id.name);
        } else {
            out.push_str(&branded_id(&id.name));
        }
        out.push('\n');
    }
    let datetimes: Vec<_> = model
        .datetimes
        .iter()
        .filter(|def| names.contains(&def.name.as_str()))
        .collect();
    if !datetimes.is_empty() {
        out.push_str(RFC_3339_CHECK);
        for def in datetimes {
            out.push('\n');
            out.push_str(&jsdoc("", &def.description));
            let _ = writeln!(out, "export const {} = {DATE_TIME_SCHEMA};", def.name);
            let _ = writeln!(out, "export type {0} = typeof {0}.Type;", def.name);
        }
    }
    out
}
