//! `agentwire stats`: canonical events by type, and warnings by the method that caused them.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Value, json};

use crate::ExitStatus;
use crate::input::Input;

pub fn run(path: &str, json_output: bool, out: &mut impl Write) -> anyhow::Result<ExitStatus> {
    let mut input = Input::open(path)?;
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    let mut warnings: BTreeMap<String, u64> = BTreeMap::new();
    let mut unreadable = Vec::new();
    let mut buf = Vec::new();
    while let Some(number) = input.next_line(&mut buf)? {
        let event: Value = match serde_json::from_slice(&buf) {
            Ok(event) => event,
            Err(err) => {
                unreadable.push(json!({ "line": number, "error": err.to_string() }));
                continue;
            }
        };
        let event_type = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("(no type)")
            .to_string();
        if event_type == "runtime.warning" {
            let method = event
                .pointer("/raw/method")
                .and_then(Value::as_str)
                .unwrap_or("(no method)");
            *warnings.entry(method.to_string()).or_default() += 1;
        }
        *by_type.entry(event_type).or_default() += 1;
    }
    let total: u64 = by_type.values().sum();
    if json_output {
        let report = json!({ "file": input.name, "events": total, "byType": by_type, "warningsByMethod": warnings, "unreadable": unreadable });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(out, "{}: {total} events", input.name)?;
        for (event_type, count) in &by_type {
            writeln!(out, "  {count:>7}  {event_type}")?;
        }
        if !warnings.is_empty() {
            writeln!(out, "runtime.warning by method:")?;
            for (method, count) in &warnings {
                writeln!(out, "  {count:>7}  {method}")?;
            }
        }
        for problem in &unreadable {
            writeln!(
                out,
                "{}:{}: not JSON: {}",
                input.name,
                problem["line"],
                problem["error"].as_str().unwrap_or("")
            )?;
        }
    }
    Ok(if unreadable.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
