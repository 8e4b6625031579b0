#!/usr/bin/env python3
"""Capture OpenCode's protocols against the mock Anthropic API (Python 3.11 stdlib only).

Drives the native `opencode` binary of the npm package `opencode-ai` in two ways:
- `serve`: one `opencode serve` per scenario; the driver (this script) creates the session over
  HTTP, posts the prompt(s), answers permissions and questions, and records the SSE stream of
  `GET /event` (plus `/api/event` for the v2 scenarios, `/global/event` for `plain`);
- `run`: `opencode run --format json` per scenario; its stdout is kept as is.
Both write one SQLite store (`$XDG_DATA_HOME/opencode/opencode.db`), which is copied (VACUUMed)
with `opencode export <id>` of every session at the end.

Everything runs in one `mktemp -d` work root (HOME, XDG dirs, TMPDIR, one git repo per scenario
under work/), deleted at the end unless --keep-work. The mock listens on 127.0.0.1 and is also the
agent's HTTP(S) proxy, which refuses and logs any other host; the capture fails if anything was
refused. Paths are rewritten to /home/dev/... in every output (see README.md).

usage: capture.py [--deps DIR] [--out DIR] [--family serve|run|none|all] [--openapi FILE] [--keep-work]
                  [--work-base DIR] [--log-requests] [--no-store] [--list] [SCENARIO ...]
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
PERMISSIVE = {"bash": "allow", "edit": "allow"}
ASK = {"bash": "ask", "edit": "ask"}

# serve scenarios: mock script, permission rules, and the driver's steps
#   prompt: POST /session/{id}/prompt_async, then wait until the session is idle
#   permission: the reply for each permission.asked (once|always|reject), message optional
#   question: reply answers / reject
#   abort_after_delta: POST /session/{id}/abort after the first message.part.delta
SERVE = {
    "plain": {"mock": "plain", "prompts": ["Say hello."], "global_event": True},
    "thinking": {"mock": "thinking", "prompts": ["Think, then say hi."]},
    "shell_allow": {"mock": "shell", "permission": ASK, "prompts": ["Run echo hello."], "reply": {"reply": "once"}},
    "shell_always": {"mock": "shell", "permission": ASK, "prompts": ["Run echo hello."], "reply": {"reply": "always"}},
    "shell_reject": {"mock": "shell", "permission": ASK, "prompts": ["Run echo hello."], "reply": {"reply": "reject"}},
    "shell_reject_message": {"mock": "shell", "permission": ASK, "prompts": ["Run echo hello."],
                             "reply": {"reply": "reject", "message": "Do not run commands; just answer."}},
    "edit": {"mock": "edit", "prompts": ["Replace alpha with omega in notes.txt."]},
    "write": {"mock": "write", "prompts": ["Create hello.txt."]},
    "edit_ask": {"mock": "write", "permission": ASK, "prompts": ["Create hello.txt."], "reply": {"reply": "once"}},
    "todo": {"mock": "todo", "prompts": ["Plan the work."]},
    "question": {"mock": "question", "prompts": ["Pick a color for the button."], "answers": [["Blue"]]},
    "question_reject": {"mock": "question", "prompts": ["Pick a color for the button."], "answers": None},
    "error400": {"mock": "error400", "prompts": ["Say hello."]},
    "error529_retry": {"mock": "error529_retry", "prompts": ["Say hello."]},
    "error500_retry": {"mock": "error500_retry", "prompts": ["Say hello."]},
    "interrupt": {"mock": "slow", "prompts": ["Count slowly."], "abort_after_delta": True},
    "two_turns": {"mock": "two_turns", "prompts": ["First question.", "Second question."]},
    "resume": {"mock": "resume", "prompts": ["First question."], "resume_prompts": ["Continue after the restart."]},
    "subagent": {"mock": "subagent", "prompts": ["Use a subagent to inspect the folder."]},
    "v2_plain": {"mock": "thinking", "v2": True, "prompts": ["Think, then say hi."]},
    "v2_shell": {"mock": "shell", "v2": True, "prompts": ["Run echo hello."]},
    "v2_shell_ask": {"mock": "shell", "v2": True, "permission": ASK, "prompts": ["Run echo hello."], "reply": {"reply": "once"}},
    "v2_interrupt": {"mock": "slow", "v2": True, "prompts": ["Count slowly."], "abort_after_delta": True},
}

# run scenarios: mock script, permission rules, argv additions, second run continuing the session
RUN = {
    "plain": {"mock": "plain", "prompt": "Say hello."},
    "thinking": {"mock": "thinking", "prompt": "Think, then say hi.", "args": ["--thinking"]},
    "thinking_hidden": {"mock": "thinking", "prompt": "Think, then say hi."},
    "shell_allow": {"mock": "shell", "permission": ASK, "prompt": "Run echo hello.", "args": ["--auto"]},
    "shell_reject": {"mock": "shell", "permission": ASK, "prompt": "Run echo hello."},
    "shell_deny_rule": {"mock": "shell", "permission": {"bash": "deny"}, "prompt": "Run echo hello.", "args": ["--auto"]},
    "edit": {"mock": "edit", "prompt": "Replace alpha with omega in notes.txt."},
    "todo": {"mock": "todo", "prompt": "Plan the work."},
    "error400": {"mock": "error400", "prompt": "Say hello."},
    "error529_retry": {"mock": "error529_retry", "prompt": "Say hello."},
    "interrupt": {"mock": "slow_after_tool", "prompt": "Run echo hello, then count slowly.", "sigint_after_tool_s": 2.0},
    "two_turns": {"mock": "two_turns", "prompt": "First question.", "session": "Second question."},
    "resume": {"mock": "resume", "prompt": "First question.", "continue": "Continue the last session."},
    "subagent": {"mock": "subagent", "prompt": "Use a subagent to inspect the folder."},
}


def now_ms():
    return int(time.time() * 1000)


class Recorder:
    """Writes {"dir","ts","msg"} records in arrival order (several threads)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.records = []
        self.cond = threading.Condition(self.lock)

    def add(self, direction, msg):
        with self.cond:
            self.records.append({"dir": direction, "ts": now_ms(), "msg": msg})
            self.cond.notify_all()

    def wait_for(self, pred, timeout, start=0):
        """Wait until an `in` record from index `start` on satisfies pred; returns it or None."""
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for rec in self.records[start:]:
                    if rec["dir"] == "in" and pred(rec["msg"]):
                        return rec["msg"]
                left = deadline - time.time()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def mark(self):
        with self.lock:
            return len(self.records)


class SSE(threading.Thread):
    """Reads one SSE stream and hands every `data:` JSON to the recorder(s)."""

    def __init__(self, port, path, recorder):
        super().__init__(daemon=True)
        self.port, self.path, self.recorder = port, path, recorder
        self.conn = None
        self.ready = threading.Event()

    def run(self):
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        try:
            self.conn.request("GET", self.path, headers={"accept": "text/event-stream"})
            resp = self.conn.getresponse()
            self.ready.set()
            data = []
            while True:
                line = resp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                elif line == "" and data:
                    text = "\n".join(data)
                    data = []
                    try:
                        self.recorder.add("in", json.loads(text))
                    except ValueError:
                        self.recorder.add("in", {"_raw": text})
                # SSE comments (": heartbeat" on /api/event) and `event:`/`id:` fields are not kept
        except (OSError, http.client.HTTPException):
            pass
        finally:
            self.ready.set()

    def close(self):
        try:
            if self.conn and self.conn.sock:
                self.conn.sock.shutdown(2)
        except OSError:
            pass


def http_call(port, method, path, body=None, recorder=None, timeout=120):
    """One HTTP call to the server, recorded (when `recorder` is given) as an `out` record at the
    time it is sent; the answer is filled in as `response` once it arrives."""
    msg = {"method": method, "path": path}
    if body is not None:
        msg["body"] = body
    if recorder is not None:
        with recorder.cond:
            recorder.records.append({"dir": "out", "ts": now_ms(), "msg": msg})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    payload = None if body is None else json.dumps(body)
    conn.request(method, path, body=payload, headers={"content-type": "application/json"} if payload else {})
    resp = conn.getresponse()
    raw = resp.read().decode()
    conn.close()
    try:
        answer = json.loads(raw) if raw else None
    except ValueError:
        answer = raw
    msg["response"] = {"status": resp.status, "body": answer}
    return resp.status, answer


class Capture:
    def __init__(self, args):
        self.args = args
        self.bin = find_binary(Path(args.deps))
        base = args.work_base or None
        self.root = Path(tempfile.mkdtemp(prefix="oc-capture-", dir=base)).resolve()
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.tmp = self.root / "tmp"
        for d in (self.home / ".config" / "opencode" / "node_modules", self.work, self.tmp, self.root / "models"):
            d.mkdir(parents=True, exist_ok=True)
        # OpenCode installs @opencode-ai/plugin into every config dir in the background (an npm
        # reify against the registry) unless node_modules exists and the lock file already lists it.
        (self.home / ".config" / "opencode" / "package-lock.json").write_text(json.dumps(
            {"name": "opencode-config", "lockfileVersion": 3, "requires": True,
             "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}))
        self.out = Path(args.out)
        self.mock_log = self.root / "mock-requests"
        self.mock = None
        self.port = None
        self.sessions = []  # (family, scenario, session id) for export
        # even `--version` creates its data, cache and config dirs: run it inside the work root too
        self.version = subprocess.run([self.bin, "--version"], capture_output=True, text=True,
                                      env=self.env(self.root / "models" / "none.json", {})).stdout.strip()

    def env(self, models_path, config):
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM", "USER", "LOGNAME", "SHELL")}
        env.update({
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "TMPDIR": str(self.tmp),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
            "OPENCODE_DISABLE_EMBEDDED_WEB_UI": "1",
            "OPENCODE_MODELS_PATH": str(models_path),
            "OPENCODE_CONFIG_CONTENT": json.dumps(config),
            "MOCK_API_KEY": "mock-key",
            # the mock refuses other hosts; before it runs (`--version`), port 9 (discard) refuses them
            "HTTP_PROXY": f"http://127.0.0.1:{self.port or 9}",
            "HTTPS_PROXY": f"http://127.0.0.1:{self.port or 9}",
            "NO_PROXY": "127.0.0.1,localhost",
        })
        return env

    def models_file(self, script):
        """A models.dev catalog with one provider `mock` whose API is the mock's /s/<script>/v1."""
        path = self.root / "models" / f"{script}.json"
        path.write_text(json.dumps({"mock": {
            "id": "mock", "env": ["MOCK_API_KEY"], "npm": "@ai-sdk/anthropic", "name": "Mock",
            "api": f"http://127.0.0.1:{self.port}/s/{script}/v1", "doc": "http://127.0.0.1/",
            "models": {"mock-model": {
                "id": "mock-model", "name": "Mock Model", "family": "mock", "attachment": False,
                "reasoning": True, "tool_call": True, "temperature": True,
                "release_date": "2026-01-01", "last_updated": "2026-01-01",
                "modalities": {"input": ["text"], "output": ["text"]}, "open_weights": False,
                "limit": {"context": 200000, "output": 8192}, "cost": {"input": 0, "output": 0}}}}}))
        return path

    def config(self, permission):
        return {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
                "model": "mock/mock-model", "small_model": "mock/mock-model",
                "permission": permission or PERMISSIVE}

    def workdir(self, name):
        """A git repo with one commit holding notes.txt (OpenCode snapshots need git)."""
        d = self.work / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "notes.txt").write_text("alpha beta\n")
        git = ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.invalid", "-c", "commit.gpgsign=false"]
        subprocess.run(git + ["init", "-q", "-b", "main"], cwd=d, check=True)
        subprocess.run(git + ["add", "."], cwd=d, check=True)
        subprocess.run(git + ["commit", "-q", "-m", "init"], cwd=d, check=True,
                       env={**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
        return d

    # ---- mock -----------------------------------------------------------------------------------
    def start_mock(self):
        port_file = self.root / "mock.port"
        self.mock = subprocess.Popen([sys.executable, str(HERE / "mock_anthropic.py"), "--port-file", str(port_file),
                                      "--log-dir", str(self.mock_log), "--cwd", str(self.work)],
                                     stdout=subprocess.DEVNULL, stderr=open(self.root / "mock.stderr", "w"),
                                     start_new_session=True)
        for _ in range(100):
            if port_file.exists():
                self.port = int(port_file.read_text())
                return
            time.sleep(0.05)
        raise RuntimeError("mock did not start")

    def refused(self):
        log = self.mock_log / "refused-proxy-requests.txt"
        return log.read_text().splitlines() if log.exists() else []

    # ---- serve ----------------------------------------------------------------------------------
    def start_serve(self, cwd, env, log_name):
        proc = subprocess.Popen([self.bin, "serve", "--hostname", "127.0.0.1", "--port", "0", "--print-logs", "--log-level", "INFO"],
                                cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=open(self.root / f"{log_name}.serve.log", "a"),
                                text=True, start_new_session=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if found:
                threading.Thread(target=proc.stdout.read, daemon=True).start()
                return proc, int(found.group(1))
        stop(proc)
        raise RuntimeError("opencode serve did not start")

    def reset_mock(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/_reset")
        conn.getresponse().read()
        conn.close()

    def capture_serve(self, name, sc):
        self.reset_mock()
        cwd = self.workdir(name)
        env = self.env(self.models_file(sc["mock"]), self.config(sc.get("permission")))
        rec = Recorder()
        extra = {}  # file suffix -> Recorder of a second stream
        proc, port = self.start_serve(cwd, env, name)
        streams = []
        note = ""
        try:
            streams.append(SSE(port, "/event", rec))
            if sc.get("v2"):
                extra["api-event"] = Recorder()
                streams.append(SSE(port, "/api/event", extra["api-event"]))
            if sc.get("global_event"):
                extra["global-event"] = Recorder()
                streams.append(SSE(port, "/global/event", extra["global-event"]))
            for s in streams:
                s.start()
                s.ready.wait(10)
            rec.wait_for(lambda m: m.get("type") == "server.connected", 10)
            if sc.get("v2"):
                note = self.drive_v2(name, port, cwd, sc, rec)
            else:
                note = self.drive_v1(name, port, sc, rec, cwd, env, proc, streams)
        finally:
            time.sleep(1.5)  # trailing events (title, diff)
            for s in streams:
                s.close()
            stop(proc)
        self.write_jsonl(self.out / "opencode" / f"{name}.jsonl", rec.records)
        for suffix, r in extra.items():
            self.write_jsonl(self.out / "opencode" / f"{name}.{suffix}.jsonl", r.records)
        return len(rec.records), note

    def drive_v1(self, name, port, sc, rec, cwd, env, proc, streams):
        _, session = http_call(port, "POST", "/session", {}, rec)
        sid = session["id"]
        self.sessions.append(("serve", name, sid))
        notes = []
        for text in sc["prompts"]:
            notes.append(self.prompt_v1(port, sid, text, sc, rec))
        if sc.get("resume_prompts"):
            # a new server process continues the stored session
            for s in streams:
                s.close()
            stop(proc)
            proc2, port2 = self.start_serve(cwd, env, name)
            stream2 = SSE(port2, "/event", rec)
            stream2.start()
            stream2.ready.wait(10)
            try:
                mark = rec.mark()
                rec.wait_for(lambda m: m.get("type") == "server.connected", 10, mark)
                http_call(port2, "GET", f"/session/{sid}", None, rec)
                for text in sc["resume_prompts"]:
                    notes.append(self.prompt_v1(port2, sid, text, sc, rec))
                time.sleep(1.5)
                http_call(port2, "GET", f"/session/{sid}/message", None, rec)
            finally:
                stream2.close()
                stop(proc2)
            return "; ".join(notes)
        time.sleep(1.0)
        http_call(port, "GET", f"/session/{sid}/message", None, rec)
        for child in (http_call(port, "GET", f"/session/{sid}/children", None, rec)[1] or []):
            self.sessions.append(("serve", name + ".subagent", child["id"]))
        return "; ".join(notes)

    def prompt_v1(self, port, sid, text, sc, rec):
        mark = rec.mark()
        status, _ = http_call(port, "POST", f"/session/{sid}/prompt_async", {"parts": [{"type": "text", "text": text}]}, rec)
        note = f"prompt {status}"
        idle = lambda m: m.get("type") == "session.idle" and m["properties"].get("sessionID") == sid
        handled = set()
        aborted = False
        deadline = time.time() + 90
        while time.time() < deadline:
            msg = rec.wait_for(lambda m: idle(m)
                               or (m.get("type") in ("permission.asked", "question.asked") and m["properties"]["id"] not in handled)
                               or (sc.get("abort_after_delta") and not aborted and m.get("type") == "message.part.delta"),
                               deadline - time.time(), mark)
            if msg is None:
                return note + ", timeout"
            if idle(msg):
                return note + ", idle"
            if msg["type"] == "message.part.delta":
                aborted = True
                http_call(port, "POST", f"/session/{sid}/abort", None, rec)
                note += ", aborted"
            elif msg["type"] == "permission.asked":
                handled.add(msg["properties"]["id"])
                http_call(port, "POST", f"/permission/{msg['properties']['id']}/reply", sc.get("reply", {"reply": "once"}), rec)
                note += f", permission {sc.get('reply', {}).get('reply')}"
            elif msg["type"] == "question.asked":
                qid = msg["properties"]["id"]
                handled.add(qid)
                if sc.get("answers") is None:
                    http_call(port, "POST", f"/question/{qid}/reject", None, rec)
                    note += ", question rejected"
                else:
                    http_call(port, "POST", f"/question/{qid}/reply", {"answers": sc["answers"]}, rec)
                    note += ", question answered"
        return note + ", timeout"

    def drive_v2(self, name, port, cwd, sc, rec):
        _, created = http_call(port, "POST", "/api/session", {"location": {"directory": str(cwd)},
                                                              "model": {"id": "mock-model", "providerID": "mock"}}, rec)
        sid = created["data"]["id"]
        self.sessions.append(("serve", name, sid))
        notes = []
        for text in sc["prompts"]:
            mark = rec.mark()
            http_call(port, "POST", f"/api/session/{sid}/prompt", {"prompt": {"text": text}}, rec)
            done = lambda m: (m.get("type") in ("session.next.step.ended", "session.next.step.failed")
                              and m["properties"].get("finish") != "tool-calls")
            handled = set()
            aborted = False
            deadline = time.time() + 60
            while time.time() < deadline:
                msg = rec.wait_for(lambda m: done(m)
                                   or (m.get("type") in ("permission.v2.asked", "permission.asked") and m["properties"].get("id") not in handled)
                                   or (sc.get("abort_after_delta") and not aborted and m.get("type") == "session.next.text.delta"),
                                   deadline - time.time(), mark)
                if msg is None:
                    notes.append("timeout")
                    break
                if done(msg):
                    notes.append(msg["type"])
                    break
                if msg["type"] == "session.next.text.delta":
                    aborted = True
                    http_call(port, "POST", f"/api/session/{sid}/interrupt", None, rec)
                    notes.append("interrupted")
                    mark = rec.mark()
                    # an interrupted turn may end without step.ended: wait a little, then stop
                    rec.wait_for(done, 5, mark)
                    break
                handled.add(msg["properties"].get("id"))
                rid = msg["properties"]["id"]
                if msg["type"] == "permission.v2.asked":
                    http_call(port, "POST", f"/api/session/{sid}/permission/{rid}/reply", sc.get("reply", {"reply": "once"}), rec)
                else:
                    http_call(port, "POST", f"/permission/{rid}/reply", sc.get("reply", {"reply": "once"}), rec)
                notes.append(f"{msg['type']} answered")
        time.sleep(1.0)
        http_call(port, "GET", f"/api/session/{sid}/message", None, rec)
        return ", ".join(notes)

    # ---- run ------------------------------------------------------------------------------------
    def capture_run(self, name, sc):
        self.reset_mock()
        cwd = self.workdir("run-" + name)
        env = self.env(self.models_file(sc["mock"]), self.config(sc.get("permission")))
        lines, notes = [], []
        base = [self.bin, "run", "--format", "json", "--model", "mock/mock-model"] + sc.get("args", [])
        rc = self.run_once(base + [sc["prompt"]], cwd, env, name, lines, sc.get("sigint_after_tool_s"))
        notes.append(f"rc={rc}")
        sid = next((l.get("sessionID") for l in lines if isinstance(l, dict) and l.get("sessionID")), None)
        if sid:
            self.sessions.append(("run", name, sid))
        if sc.get("session") and sid:  # a second run continuing the session by id
            rc = self.run_once(base + ["--session", sid, sc["session"]], cwd, env, name, lines, None)
            notes.append(f"rc={rc}")
        if sc.get("continue"):  # a second run continuing the project's last session
            rc = self.run_once(base + ["--continue", sc["continue"]], cwd, env, name, lines, None)
            notes.append(f"rc={rc}")
        self.write_jsonl(self.out / "opencode-run" / f"{name}.jsonl", lines)
        return len(lines), " ".join(notes)

    def run_once(self, argv, cwd, env, name, lines, sigint_after_tool):
        """One `opencode run`; with sigint_after_tool, SIGINT that many seconds after its first tool_use line."""
        with open(self.root / f"run-{name}.stderr", "a") as err:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err, text=True, start_new_session=True)
            timer = None
            try:
                for line in proc.stdout:
                    line = line.rstrip("\n")
                    if not line:
                        continue
                    try:
                        lines.append(json.loads(line))
                    except ValueError:
                        lines.append({"_raw": line})
                    if sigint_after_tool and timer is None and lines[-1].get("type") == "tool_use":
                        timer = threading.Timer(sigint_after_tool, lambda: proc.poll() is None and os.killpg(proc.pid, signal.SIGINT))
                        timer.start()
                return proc.wait(timeout=120)
            finally:
                if timer:
                    timer.cancel()
                stop(proc)

    # ---- OpenAPI --------------------------------------------------------------------------------
    def save_openapi(self, path):
        """GET /doc of a fresh `opencode serve`, written with sorted keys and 2-space indentation."""
        cwd = self.work / "openapi"
        cwd.mkdir(parents=True, exist_ok=True)
        proc, port = self.start_serve(cwd, self.env(self.models_file("plain"), self.config(None)), "openapi")
        try:
            status, doc = http_call(port, "GET", "/doc")
        finally:
            stop(proc)
        if status != 200 or not isinstance(doc, dict):
            raise RuntimeError(f"GET /doc answered {status}")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        return len(doc.get("components", {}).get("schemas", {}))

    # ---- store ----------------------------------------------------------------------------------
    def capture_store(self):
        dest = self.out / "opencode-store"
        shutil.rmtree(dest / "export", ignore_errors=True)  # the store and its exports are of this capture only
        (dest / "export").mkdir(parents=True, exist_ok=True)
        env = self.env(self.models_file("plain"), self.config(None))
        db = self.home / ".local" / "share" / "opencode" / "opencode.db"
        names = {sid: ("run-" if family == "run" else "") + name for family, name, sid in self.sessions}
        conn = sqlite3.connect(db)
        rows = conn.execute("SELECT id, parent_id FROM session ORDER BY time_created").fetchall()
        conn.close()
        for sid, parent in rows:  # subagent sessions the driver did not list (run family)
            if sid not in names:
                names[sid] = names[parent] + ".subagent" if parent in names else "other-" + sid
        for sid, fname in names.items():
            res = subprocess.run([self.bin, "export", sid], cwd=self.work, env=env, capture_output=True, text=True, timeout=60)
            text = res.stdout
            start = text.find("{")
            if res.returncode != 0 or start < 0:
                (dest / "export" / f"{fname}.error.txt").write_text(self.sanitize(res.stderr + res.stdout))
                continue
            data = json.loads(text[start:])
            (dest / "export" / f"{fname}.json").write_text(self.sanitize(json.dumps(data, indent=1, ensure_ascii=False)) + "\n")
        target = dest / "opencode.db"
        if target.exists():
            target.unlink()
        src = sqlite3.connect(db)
        out = sqlite3.connect(target)
        src.backup(out)
        src.close()
        self.sanitize_db(out)
        out.commit()
        out.execute("VACUUM")
        out.close()

    def sanitize_db(self, conn):
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        for t in tables:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info(`{t}`)")]
            for c in cols:
                for old, new in self.path_map():
                    conn.execute(f"UPDATE `{t}` SET `{c}` = replace(`{c}`, ?, ?) WHERE typeof(`{c}`) = 'text' AND instr(`{c}`, ?) > 0",
                                 (old, new, old))

    # ---- output ---------------------------------------------------------------------------------
    def path_map(self):
        deps = str(Path(self.args.deps).resolve())
        pairs = [(str(self.work), "/home/dev/work"), (str(self.home), "/home/dev"), (str(self.tmp), "/tmp"),
                 (str(self.root), "/home/dev/.capture"), (deps, "/home/dev/.capture-deps")]
        # the dash-encoded and the path-without-leading-slash forms OpenCode also stores
        more = [(old.lstrip("/"), new.lstrip("/")) for old, new in pairs]
        return sorted(pairs + more, key=lambda p: -len(p[0]))

    def sanitize(self, text):
        for old, new in self.path_map():
            text = text.replace(old, new)
        return text

    def write_jsonl(self, path, records):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            for r in records:
                f.write(self.sanitize(json.dumps(r, ensure_ascii=False, separators=(",", ":"))) + "\n")

    def leftovers(self):
        hits = []
        for p in list(self.out.glob("opencode*/**/*.json*")):
            if p.parent.name == "opencode-mock-requests":  # the raw request log is not sanitized
                continue
            if self.root.name in p.read_text(errors="replace"):
                hits.append(str(p))
        return hits


def stop(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def find_binary(deps):
    for pkg in ("opencode-linux-x64", "opencode-linux-x64-baseline", "opencode-linux-arm64"):
        b = deps / "node_modules" / pkg / "bin" / "opencode"
        if b.exists():
            return str(b)
    raise SystemExit(f"no opencode binary under {deps}/node_modules (npm install --ignore-scripts opencode-ai)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deps", default=str(REPO.parent / "opencode-deps"), help="folder holding node_modules/opencode-ai")
    ap.add_argument("--out", default=str(REPO / "tests" / "corpus"), help="corpus folder (gets opencode/, opencode-run/, opencode-store/)")
    ap.add_argument("--family", choices=["serve", "run", "none", "all"], default="all")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--work-base")
    ap.add_argument("--log-requests", action="store_true", help="copy the mock's request log to OUT/opencode-mock-requests/")
    ap.add_argument("--openapi", metavar="FILE", help="also save GET /doc there (e.g. schemas/opencode/openapi.json)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-store", action="store_true", help="do not write opencode-store/")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("serve:", " ".join(SERVE))
        print("run:  ", " ".join(RUN))
        return 0
    wanted = set(args.scenarios) - {"all"}
    cap = Capture(args)
    print(f"opencode {cap.version}; work root {cap.root}", flush=True)
    failed = 0
    try:
        cap.start_mock()
        if args.openapi:
            print(f"openapi: {cap.save_openapi(args.openapi)} schemas -> {args.openapi}", flush=True)
        if args.family in ("serve", "all"):
            for name, sc in SERVE.items():
                if wanted and name not in wanted:
                    continue
                t0 = time.time()
                n, note = cap.capture_serve(name, sc)
                failed += n == 0
                print(f"serve {name:22} {n:4} records {time.time() - t0:5.1f}s  {note}", flush=True)
        if args.family in ("run", "all"):
            for name, sc in RUN.items():
                if wanted and name not in wanted:
                    continue
                t0 = time.time()
                n, note = cap.capture_run(name, sc)
                failed += n == 0
                print(f"run   {name:22} {n:4} lines   {time.time() - t0:5.1f}s  {note}", flush=True)
        if not args.no_store and cap.sessions:
            cap.capture_store()
            (cap.out / "opencode-store" / "VERSION").write_text(f"opencode-ai {cap.version}\n")
        if args.log_requests:
            shutil.copytree(cap.mock_log, cap.out / "opencode-mock-requests", dirs_exist_ok=True)
        refused = cap.refused()
        if refused:
            print("REFUSED (the agent tried to reach the network):", *refused, sep="\n  ")
            failed += 1
        left = cap.leftovers()
        if left:
            print("unsanitized work-root paths in:", *left, sep="\n  ")
            failed += 1
    finally:
        if cap.mock:
            stop(cap.mock)
        if args.keep_work:
            print(f"kept {cap.root}")
        else:
            shutil.rmtree(cap.root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
