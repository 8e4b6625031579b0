#!/usr/bin/env python3
"""Capture GitHub Copilot CLI traffic against the local mock Responses API (mock_copilot.py, 127.0.0.1 only).

Views of the same scenarios:
  copilot/<name>.jsonl              stdout of `copilot -p PROMPT --output-format json`
                                    (scenarios of two runs: <name>-1.jsonl, <name>-2.jsonl)
  copilot-session/<name>/<session id>/
                                    the session folder(s) the CLI wrote for those runs under
                                    ~/.copilot/session-state/ (events.jsonl, workspace.yaml,
                                    checkpoints/index.md, rewind-file-snapshots/...; lock files left out)
  copilot-session/session-store.db  ~/.copilot/session-store.db after the whole run (paths
                                    rewritten, VACUUMed)
  acp/copilot_<name>.jsonl          `copilot --acp` driven by acp_client.py, {"dir","ts","msg"} records
                                    (scenario acp_<name>; its session folder goes to copilot-session/acp_<name>/)
  stderr/<name>.stderr, acp/copilot_<name>.stderr   the CLI's stderr (for reading, not committed)

usage: capture_copilot.py --deps DIR --out OUT [--keep-work] [--log-requests] [--list] [SCENARIO ...]
  --deps DIR   folder holding node_modules/@github/copilot-linux-x64/copilot (npm install
               --ignore-scripts @github/copilot@1.0.102 there)
  SCENARIO     stream scenario names and/or acp_<name>; none = all

Everything the CLI touches (HOME, cwd, TMPDIR) is in one mktemp -d work root, deleted afterwards
unless --keep-work. Output files are sanitized: the work root's paths become /home/dev/...
"""
import argparse
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acp_client  # noqa: E402

NOTES = "alpha\nbeta\n"
MODEL = "gpt-5"
COMMON = ["--disable-client-telemetry", "--no-auto-update", "--no-ask-user"]


def run(prompt, *args, interrupt_on=None, resume=None):
    return {"prompt": prompt, "args": list(args), "interrupt_on": interrupt_on, "resume": resume}


ALLOW = "--allow-all-tools"

# name -> (mock scenario, notes.txt in cwd?, runs). A run's `resume`: "continue" (--continue) or
# "first" (--resume=<session id of the first run>). `interrupt_on`: (event type, seconds): SIGINT
# to the CLI's process group that many seconds after the first stdout event of that type.
STREAM = {
    "plain": ("plain", False, [run("hi")]),
    "thinking": ("thinking", False, [run("think then answer")]),
    "shell_allow": ("shell", False, [run("touch a file", ALLOW)]),
    "shell_no_permission": ("shell", False, [run("touch a file")]),
    "shell_deny_tool": ("shell", False, [run("touch a file", ALLOW, "--deny-tool=shell")]),
    "shell_fail": ("shell_fail", False, [run("list a missing directory", ALLOW)]),
    "write": ("write", False, [run("create hello.txt", ALLOW)]),
    "edit": ("edit", True, [run("rename alpha in notes.txt", ALLOW)]),
    "read": ("read", True, [run("what is in notes.txt?", ALLOW)]),
    "error400": ("error400", False, [run("hi")]),
    "error500": ("error500", False, [run("hi")]),
    "retry500": ("flaky500", False, [run("hi")]),
    "interrupt_stream": ("slow", False, [run("write a long text", interrupt_on=("assistant.message_delta", 1.0))]),
    "interrupt_tool": ("slow_tool", False, [run("sleep in the shell", ALLOW,
                                                interrupt_on=("tool.execution_start", 1.5))]),
    "two_turns": ("two_turns", False, [run("first question"), run("second question", resume="continue")]),
    "resume": ("resume", False, [run("echo hello", ALLOW), run("what did the shell print?", resume="first")]),
    "todo": ("todo", True, [run("plan the work", ALLOW)]),
    "subagent": ("subagent", True, [run("delegate a listing", ALLOW)]),
}


def acp(scenario, prompts, policy="allow", notes=False, cancel_on=None, load=None):
    return {"scenario": scenario, "prompts": prompts, "policy": policy, "notes": notes, "cancel_on": cancel_on,
            "load": load}


# `cancel_on`: (session/update kind, seconds): session/cancel that long after the first such update.
# `load`: prompts sent after restarting the agent and loading the session with session/load.
ACP = {
    "acp_plain": acp("plain", ["hi"]),
    "acp_thinking": acp("thinking", ["think then answer"]),
    "acp_shell_allow": acp("shell", ["touch a file"]),
    "acp_shell_reject": acp("shell", ["touch a file"], policy="reject"),
    "acp_edit_allow": acp("edit", ["rename alpha in notes.txt"], notes=True),
    "acp_two_turns": acp("two_turns", ["first question", "second question"]),
    "acp_error400": acp("error400", ["hi"]),
    "acp_cancel": acp("slow", ["write a long text"], cancel_on=("agent_message_chunk", 1.0)),
    "acp_cancel_tool": acp("slow_tool", ["sleep in the shell"], cancel_on=("tool_call", 1.5)),
    "acp_load": acp("resume", ["echo hello"], load=["what did the shell print?"]),
}


class WorkRoot:
    def __init__(self, keep, deps):
        self.path = os.path.realpath(tempfile.mkdtemp(prefix="capture-copilot."))
        self.keep = keep
        self.deps = deps
        self.home, self.work, self.tmp, self.run = (os.path.join(self.path, d) for d in ("home", "work", "tmp", "run"))
        for d in (self.home, self.work, self.tmp, self.run):
            os.makedirs(d)

    def cwd(self, name, notes):
        d = os.path.join(self.work, name)
        os.makedirs(d)
        if notes:
            with open(os.path.join(d, "notes.txt"), "w") as f:
                f.write(NOTES)
        return d

    def sanitize(self, text):
        # ACP tool titles shorten long paths to "...<tail>"; drop a tail that is the end of the work root
        text = re.sub(r"\.\.\.([^\s\"/]*)(?=/(?:work|home|tmp)/)",
                      lambda m: "..." if m.group(1) and self.path.endswith(m.group(1)) else m.group(0), text)
        for old, new in self.replacements():
            text = text.replace(old, new)
        return text

    def replacements(self):
        return ((self.deps, "/home/dev/.capture-deps"), (self.work, "/home/dev/work"), (self.home, "/home/dev"),
                (self.tmp, "/tmp"), (self.path, "/home/dev/.capture"))

    def cleanup(self):
        if self.keep:
            sys.stderr.write("kept work root %s\n" % self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Mock:
    def __init__(self, wr, log_dir):
        self.port_file = os.path.join(wr.run, "mock.port")
        self.log = open(os.path.join(wr.run, "mock.log"), "w")
        argv = [sys.executable, os.path.join(HERE, "mock_copilot.py"), "--port", "0", "--port-file", self.port_file]
        if log_dir:
            argv += ["--log-dir", log_dir]
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=self.log, start_new_session=True)
        deadline = time.time() + 15
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                sys.exit("the mock did not start (see %s)" % self.log.name)
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def refused(self):
        with open(self.log.name) as f:
            return [l.strip() for l in f if "REFUSED" in l]


def stop_group(proc, grace=3.0):
    """Stop the process group this script started for `proc` (by its pid, nothing else)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.time() + grace
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def cli_env(wr, port, scenario):
    proxy = "http://127.0.0.1:%d" % port
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": wr.home, "TMPDIR": wr.tmp, "TERM": "dumb",
            "LANG": "C.UTF-8", "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:%d/s/%s/v1" % (port, scenario),
            "COPILOT_PROVIDER_TYPE": "openai", "COPILOT_PROVIDER_WIRE_API": "responses",
            "COPILOT_PROVIDER_API_KEY": "dummy", "COPILOT_MODEL": MODEL,
            "HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "http_proxy": proxy, "https_proxy": proxy,
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def run_stream(binary, env, cwd, r, session_id, stdout_path, stderr_path):
    """One `copilot -p` run; returns (exit code, lines)."""
    argv = [binary, "-p", r["prompt"], "--output-format", "json"] + COMMON + r["args"]
    if r["resume"] == "continue":
        argv += ["--continue"]
    elif r["resume"]:
        argv += ["--resume=%s" % session_id]
    with open(stderr_path, "w") as err:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                             start_new_session=True)
    lines, seen = [], []
    if r["interrupt_on"]:
        etype, after = r["interrupt_on"]

        def interrupter():
            while not seen:
                if p.poll() is not None:
                    return
                time.sleep(0.02)
            time.sleep(max(0.0, seen[0] + after - time.time()))
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
        threading.Thread(target=interrupter, daemon=True).start()
    deadline = time.time() + 180
    for raw in p.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        lines.append(line)
        if r["interrupt_on"] and not seen and ('"type":"%s"' % r["interrupt_on"][0]) in line:
            seen.append(time.time())
        if time.time() > deadline:
            break
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = 124
    stop_group(p, grace=1.0)
    with open(stdout_path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    return rc, lines


def sanitize_tree(wr, root):
    for d, _, files in os.walk(root):
        for name in files:
            path = os.path.join(d, name)
            if name.endswith(".db"):
                continue
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            clean = wr.sanitize(text)
            if clean != text:
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(clean)


def sessions_of(wr, cwd):
    """Session ids (folders under ~/.copilot/session-state/) whose workspace.yaml names `cwd`."""
    base = os.path.join(wr.home, ".copilot", "session-state")
    out = []
    for sid in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        ws = os.path.join(base, sid, "workspace.yaml")
        if os.path.exists(ws):
            with open(ws) as f:
                if ("cwd: %s\n" % cwd) in f.read():
                    out.append(sid)
    return out


def copy_sessions(wr, cwd, dest):
    base = os.path.join(wr.home, ".copilot", "session-state")
    shutil.rmtree(dest, ignore_errors=True)
    sids = sessions_of(wr, cwd)
    for sid in sids:
        shutil.copytree(os.path.join(base, sid), os.path.join(dest, sid),
                        ignore=shutil.ignore_patterns("*.lock", ".*.lock"))
    for d, subdirs, files in sorted(os.walk(dest), reverse=True):  # empty files/, research/: git keeps no empty folder
        if not subdirs and not files:
            os.rmdir(d)
    return sids


def copy_store(wr, dest):
    """~/.copilot/session-store.db (with its WAL) -> a sanitized, VACUUMed copy."""
    src = os.path.join(wr.home, ".copilot", "session-store.db")
    if not os.path.exists(src):
        return
    if os.path.exists(dest):
        os.remove(dest)
    s = sqlite3.connect(src)
    d = sqlite3.connect(dest)
    s.backup(d)
    s.close()
    d.execute("PRAGMA journal_mode=DELETE")
    tables = [r[0] for r in d.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'search_index_%' "
                                      "AND name NOT LIKE 'sqlite_%'")]
    for t in tables:
        cols = [r[1] for r in d.execute("PRAGMA table_info(%s)" % t)]
        for c in cols:
            for old, new in wr.replacements():
                d.execute("UPDATE %s SET %s = replace(%s, ?, ?) WHERE typeof(%s) = 'text' AND instr(%s, ?) > 0"
                          % (t, c, c, c, c), (old, new, old))
    d.commit()
    d.execute("VACUUM")
    d.close()


def capture_stream(name, binary, wr, mock, out):
    scenario, notes, runs = STREAM[name]
    cwd = wr.cwd(name, notes)
    env = cli_env(wr, mock.port, scenario)
    first_session = None
    notes_out = []
    for i, r in enumerate(runs, 1):
        stem = name if len(runs) == 1 else "%s-%d" % (name, i)
        rc, lines = run_stream(binary, env, cwd, r, first_session, os.path.join(out, "copilot", stem + ".jsonl"),
                               os.path.join(out, "stderr", stem + ".stderr"))
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("type") == "result" and first_session is None:
                first_session = msg.get("sessionId")
        if first_session is None:
            sids = sessions_of(wr, cwd)
            first_session = sids[0] if sids else None
        notes_out.append("%s rc=%s lines=%d" % (stem, rc, len(lines)))
    sids = copy_sessions(wr, cwd, os.path.join(out, "copilot-session", name))
    return "; ".join(notes_out) + " sessions=%d" % len(sids)


def capture_acp(name, binary, wr, mock, out):
    spec = ACP[name]
    cwd = wr.cwd(name, spec["notes"])
    env = cli_env(wr, mock.port, spec["scenario"])
    stem = "copilot_" + name[len("acp_"):]
    trace = acp_client.Trace(os.path.join(out, "acp", stem + ".jsonl"))
    results = []
    try:
        with open(os.path.join(out, "acp", stem + ".stderr"), "w") as err:
            c = acp_client.Client([binary, "--acp"] + COMMON, env, cwd, trace, err, spec["policy"])
            try:
                c.start()
                sid = c.new_session()
                for p in spec["prompts"]:
                    results.append(c.prompt(sid, p, cancel_on=spec["cancel_on"]))
            finally:
                c.close()
            if spec["load"]:
                c = acp_client.Client([binary, "--acp"] + COMMON, env, cwd, trace, err, spec["policy"])
                try:
                    c.start()
                    results.append(c.load_session(sid))
                    results += [c.prompt(sid, p) for p in spec["load"]]
                finally:
                    c.close()
    except Exception as e:  # keep what was recorded
        results.append("EXC(%s)" % e)
    finally:
        trace.close()
    sids = copy_sessions(wr, cwd, os.path.join(out, "copilot-session", name))
    return " ".join(results) + " sessions=%d" % len(sids)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--deps", default=os.environ.get("COPILOT_CAPTURE_DEPS"))
    ap.add_argument("--out")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--log-requests", action="store_true", help="save every mock request under OUT/mock-requests/")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    known = list(STREAM) + list(ACP)
    if a.list:
        for n in STREAM:
            print("json  %-20s mock=%s runs=%d" % (n, STREAM[n][0], len(STREAM[n][2])))
        for n in ACP:
            print("acp   %-20s mock=%s" % (n, ACP[n]["scenario"]))
        return
    if not a.out or not a.deps:
        ap.error("--out and --deps are required")
    names = [s for s in a.scenarios if s != "all"] or known
    bad = [n for n in names if n not in known]
    if bad:
        ap.error("unknown scenario(s) %s; known: %s" % (" ".join(bad), " ".join(known)))
    binary = os.path.join(os.path.realpath(a.deps), "node_modules", "@github", "copilot-linux-x64", "copilot")
    if not os.path.exists(binary):
        sys.exit("missing %s (npm install --ignore-scripts @github/copilot@1.0.102 in --deps)" % binary)
    out = os.path.realpath(a.out)
    for d in ("copilot", "copilot-session", "acp", "stderr"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    wr = WorkRoot(a.keep_work, os.path.realpath(a.deps))
    mock = Mock(wr, os.path.join(out, "mock-requests") if a.log_requests else None)
    try:
        for name in names:
            note = capture_stream(name, binary, wr, mock, out) if name in STREAM else \
                capture_acp(name, binary, wr, mock, out)
            print("%-22s %s" % (name, note), flush=True)
        copy_store(wr, os.path.join(out, "copilot-session", "session-store.db"))
    finally:
        mock.stop()
        refused = mock.refused()
        if refused:
            print("WARNING: the mock refused %d request(s) to other hosts:\n  %s" % (len(refused), "\n  ".join(refused)))
        sanitize_tree(wr, out)
        wr.cleanup()


if __name__ == "__main__":
    main()
