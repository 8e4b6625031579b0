//! A live host of `codex app-server`: starts the real program, runs one turn with the prompt from
//! the command line, prints every canonical event as a JSON line on stdout, and answers the
//! approvals Codex asks for.
//!
//! ```text
//! cargo run -p agentwire --example codex_app_server -- [--codex PATH] [--decline]
//!     [--sandbox MODE] [--cwd DIR] PROMPT...
//! ```
//!
//! - `--codex PATH`: the `codex` program (default: `$AGENTWIRE_CODEX`, else `codex` on `PATH`).
//! - `--decline`: decline every approval (default: accept it, this once).
//! - `--sandbox MODE`: the thread's `sandbox` (`read-only`, `workspace-write`,
//!   `danger-full-access`); default: Codex's own.
//! - `--cwd DIR`: the thread's working directory (default: the current one).
//!
//! The thread asks before any command outside Codex's known-safe list (`approvalPolicy:
//! "untrusted"`), so a turn that runs a command shows `request.opened`, the reply this host
//! writes, and `request.resolved`. Codex's stderr passes through; the turn's end (or Codex
//! exiting) ends the session, and the normalizer is finished so what is still open settles.
//!
//! Every line the host writes goes through [`Normalizer::sent`] and every line Codex prints
//! through [`Normalizer::received`], each with its time: the events are those
//! `agentwire normalize` gives for the transcript of the session.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use agentwire::answer::Reply;
use agentwire::decision::Decision;
use agentwire::normalizer::{Normalizer, Options};
use agentwire::source::Source;
use agentwire_canonical::{ProviderRuntimeEvent, RuntimeEvent};
use serde_json::{Value, json};

/// What the command line asks for.
struct Args {
    codex: String,
    decision: Decision,
    sandbox: Option<String>,
    cwd: String,
    prompt: String,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        codex: std::env::var("AGENTWIRE_CODEX").unwrap_or_else(|_| "codex".into()),
        decision: Decision::Accept,
        sandbox: None,
        cwd: std::env::current_dir()
            .map_err(|err| format!("the current directory: {err}"))?
            .display()
            .to_string(),
        prompt: String::new(),
    };
    let mut words = Vec::new();
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = |name: &str| argv.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--codex" => args.codex = value("--codex")?,
            "--decline" => args.decision = Decision::Decline,
            "--sandbox" => args.sandbox = Some(value("--sandbox")?),
            "--cwd" => args.cwd = value("--cwd")?,
            _ => words.push(arg),
        }
    }
    if words.is_empty() {
        return Err("usage: codex_app_server [--codex PATH] [--decline] [--sandbox MODE] [--cwd DIR] PROMPT...".into());
    }
    args.prompt = words.join(" ");
    Ok(args)
}

/// Now, in Unix milliseconds: the time of a line read or written.
fn now() -> Option<i64> {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// The session: the agent's stdin, the normalizer, and where the events go.
struct Host {
    /// `None` once closed: Codex exits at the end of its input.
    stdin: Option<ChildStdin>,
    normalizer: Box<dyn Normalizer>,
    events: Vec<ProviderRuntimeEvent>,
    out: std::io::StdoutLock<'static>,
}

impl Host {
    /// Writes one message to the agent, then pushes the line as sent.
    fn send(&mut self, message: &Value) -> Result<(), Box<dyn std::error::Error>> {
        let line = message.to_string();
        let stdin = self.stdin.as_mut().ok_or("the agent's stdin is closed")?;
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        if let Err(problem) = self.normalizer.sent(&line, now(), &mut self.events) {
            eprintln!("sent line: {problem}");
        }
        Ok(())
    }

    /// Prints the events pushed so far, one JSON line each.
    fn print(&mut self) -> Result<Vec<ProviderRuntimeEvent>, Box<dyn std::error::Error>> {
        let events = std::mem::take(&mut self.events);
        for event in &events {
            serde_json::to_writer(&mut self.out, event)?;
            self.out.write_all(b"\n")?;
        }
        self.out.flush()?;
        Ok(events)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let mut child = Command::new(&args.codex)
        .arg("app-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|err| format!("starting {} app-server: {err}", args.codex))?;
    let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut host = Host {
        stdin: child.stdin.take(),
        normalizer: Source::CODEX_APP_SERVER.normalizer(Options::default()),
        events: Vec::new(),
        out: std::io::stdout().lock(),
    };
    host.send(&json!({
        "id": 1,
        "method": "initialize",
        "params": { "clientInfo": { "name": "agentwire-example", "version": env!("CARGO_PKG_VERSION") } },
    }))?;
    host.print()?;
    for line in stdout.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Err(problem) = host.normalizer.received(&line, now(), &mut host.events) {
            eprintln!("received line: {problem}");
        }
        let mut done = false;
        for event in host.print()? {
            if let RuntimeEvent::RequestOpened(_) = &event.event {
                let request = event.request_id.as_ref().ok_or("request.opened without a requestId")?;
                match host.normalizer.answer(request, &Reply::new(args.decision)) {
                    Ok(reply) => {
                        if let Some(unoffered) = &reply.unoffered {
                            eprintln!("{unoffered}");
                        }
                        host.send(&reply.frame)?;
                    }
                    Err(err) => eprintln!("request {request} left open: {err}"),
                }
            }
            done |= matches!(
                event.event,
                RuntimeEvent::TurnCompleted(_) | RuntimeEvent::TurnAborted(_)
            );
        }
        host.print()?;
        if done {
            break;
        }
        // The JSON-RPC replies that start the next step: the host's own protocol, read as such.
        let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if message.get("method").is_none() {
            match message.get("id").and_then(Value::as_i64) {
                Some(1) => {
                    host.send(&json!({ "method": "initialized" }))?;
                    let mut params = json!({ "cwd": args.cwd, "approvalPolicy": "untrusted" });
                    if let Some(sandbox) = &args.sandbox {
                        params["sandbox"] = json!(sandbox);
                    }
                    host.send(&json!({ "id": 2, "method": "thread/start", "params": params }))?;
                }
                Some(2) => {
                    let thread = message["result"]["thread"]["id"].clone();
                    let input = json!([{ "type": "text", "text": args.prompt }]);
                    host.send(
                        &json!({ "id": 3, "method": "turn/start", "params": { "threadId": thread, "input": input } }),
                    )?;
                }
                _ => {}
            }
            if let Some(error) = message.get("error") {
                eprintln!("codex answered with an error: {error}");
                break;
            }
        }
        host.print()?;
    }
    host.stdin = None;
    host.normalizer.finish(&mut host.events);
    host.print()?;
    child.wait()?;
    Ok(())
}
