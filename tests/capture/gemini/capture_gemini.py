#!/usr/bin/env python3
"""Capture Gemini CLI traffic against the local mock Gemini API (mock_gemini.py, 127.0.0.1 only).

Three views of the same scenarios:
  gemini/<name>.jsonl                 stdout of `gemini -p PROMPT --output-format stream-json`
                                      (scenarios of two runs: <name>-1.jsonl, <name>-2.jsonl)
  gemini-session/<name>/<slug>/chats/...
                                      the session file(s) the CLI wrote for those runs, in its own
                                      layout under ~/.gemini/tmp/ (subagent files included)
  acp/gemini_<name>.jsonl             `gemini --acp` driven by acp_client.py, {"dir","ts","msg"} records
                                      (scenario acp_<name>; its session files go to gemini-session/acp_<name>/)
  stderr/<name>.stderr, acp/gemini_<name>.stderr   the CLI's stderr (for reading, not committed)

usage: capture_gemini.py --deps DIR --out OUT [--keep-work] [--log-requests] [--list] [SCENARIO ...]
  --deps DIR   folder holding node_modules/@google/gemini-cli (npm install --ignore-scripts
               @google/gemini-cli@0.61.0 there)
  SCENARIO     stream-json scenario names and/or acp_<name>; none = all

Everything the CLI touches (HOME, cwd, TMPDIR) is in one mktemp -d work root, deleted afterwards
unless --keep-work. Output files are sanitized: the work root's paths become /home/dev/...
"""
import argparse
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acp_client  # noqa: E402

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "model": {"name": "gemini-2.5-flash"},
}
NOTES = "alpha\nbeta\n"


def run(prompt, *args, interrupt_after=None, resume=None, minute=None):
    return {"prompt": prompt, "args": list(args), "interrupt_after": interrupt_after, "resume": resume,
            "minute": minute}


# name -> (mock scenario, notes.txt in cwd?, runs). A run's `resume`: "latest" or "first" (the
# session id the first run's init printed). `minute`: "same" runs it in the wall-clock minute the
# first run started in, "next" in a later one. The CLI names a session file after the minute it
# starts (session-YYYY-MM-DDTHH-MM-<id8>.jsonl), and a resumed run starts a file of its own before
# appending to the resumed one: in the same minute both are one file.
STREAM = {
    "plain": ("plain", False, [run("hi")]),
    "thinking": ("thinking", False, [run("think then answer")]),
    "shell_allow": ("shell", False, [run("touch a file", "--approval-mode", "yolo")]),
    "shell_refused": ("shell", False, [run("touch a file", "--allowed-tools", "run_shell_command(echo)")]),
    "shell_not_offered": ("shell", False, [run("touch a file")]),
    "edit": ("edit", True, [run("rename alpha in notes.txt", "--approval-mode", "auto_edit")]),
    "error400": ("error400", False, [run("hi")]),
    "interrupt": ("slow", False, [run("write a long text", interrupt_after=1.0)]),
    "two_turns": ("two_turns", False, [run("first question"),
                                       run("second question", resume="latest", minute="same")]),
    "resume": ("resume", False, [run("echo hello", "--approval-mode", "yolo"),
                                 run("what did the shell print?", resume="first", minute="next")]),
    "subagent": ("subagent", True, [run("delegate a listing")]),
}


def acp(scenario, prompts, policy="allow", notes=False, mode=None, load=None, minute=None):
    return {"scenario": scenario, "prompts": prompts, "policy": policy, "notes": notes, "mode": mode,
            "load": load, "minute": minute}


# ACP scenarios the corpus lacks (tests/corpus/acp already holds gemini_plain, _thinking,
# _shell_allow/_reject/_echo, _read, _todos, _write_allow, _write_existing_allow, _cancel_midstream).
# `mode`: session/set_mode after session/new. `load`: prompts sent after restarting the agent and
# loading the session with session/load, in the same or the next wall-clock minute (`minute`).
ACP = {
    "acp_two_turns": acp("two_turns", ["first question", "second question"]),
    "acp_resume": acp("resume", ["echo hello"], load=["what did the shell print?"], minute="next"),
    "acp_load_same_minute": acp("resume", ["echo hello"], load=["what did the shell print?"], minute="same"),
    "acp_edit_allow": acp("edit", ["rename alpha in notes.txt"], notes=True),
    "acp_error400": acp("error400", ["hi"]),
    "acp_subagent": acp("subagent", ["delegate a listing"], notes=True, mode="yolo"),
    "acp_subagent_default": acp("subagent", ["delegate a listing"], notes=True),
}


def minute_of(t):
    return int(t // 60)


def align_minute(kind, started):
    """Before a scenario (`started` None): leave at least 30 s of the current minute, so that a
    "same" second run fits in it. Before a second run: for "next", wait for a later minute."""
    now = time.time()
    if started is None:
        if now % 60 > 30:
            time.sleep(61 - now % 60)
    elif kind == "next":
        while minute_of(time.time()) == minute_of(started):
            time.sleep(0.5)
    elif kind == "same" and minute_of(now) != minute_of(started):
        sys.stderr.write("warning: the second run is not in the first run's minute\n")


class WorkRoot:
    def __init__(self, keep):
        self.path = os.path.realpath(tempfile.mkdtemp(prefix="capture-gemini."))
        self.keep = keep
        self.home, self.work, self.tmp, self.run = (os.path.join(self.path, d) for d in ("home", "work", "tmp", "run"))
        for d in (self.home, self.work, self.tmp, self.run):
            os.makedirs(d)
        os.makedirs(os.path.join(self.home, ".gemini"))
        with open(os.path.join(self.home, ".gemini", "settings.json"), "w") as f:
            json.dump(SETTINGS, f, indent=2)

    def cwd(self, name, notes):
        d = os.path.join(self.work, name)
        os.makedirs(d)
        if notes:
            with open(os.path.join(d, "notes.txt"), "w") as f:
                f.write(NOTES)
        return d

    def sanitize(self, text):
        for old, new in ((self.work, "/home/dev/work"), (self.home, "/home/dev"), (self.tmp, "/tmp"),
                         (self.path, "/home/dev/.capture")):
            text = text.replace(old, new)
        return text

    def cleanup(self):
        if self.keep:
            sys.stderr.write("kept work root %s\n" % self.path)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Mock:
    def __init__(self, wr, log_dir):
        self.port_file = os.path.join(wr.run, "mock.port")
        self.log = open(os.path.join(wr.run, "mock.log"), "w")
        argv = [sys.executable, os.path.join(HERE, "mock_gemini.py"), "--port", "0", "--port-file", self.port_file]
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
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": wr.home, "TMPDIR": wr.tmp, "TERM": "dumb",
            "LANG": "C.UTF-8", "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:%d/s/%s" % (port, scenario),
            "GEMINI_CLI_NO_RELAUNCH": "true", "NO_BROWSER": "true", "GEMINI_CLI_TRUST_WORKSPACE": "true"}


def run_stream(js, env, cwd, r, session_id, stdout_path, stderr_path):
    """One `gemini -p` run; returns (exit code, lines). With interrupt_after, stdin is a pty and
    Ctrl-C is typed that many seconds after the first assistant delta (the CLI's own cancel key)."""
    argv = ["node", js, "-p", r["prompt"], "--output-format", "stream-json"] + r["args"]
    if r["resume"]:
        argv += ["--resume", "latest" if r["resume"] == "latest" else session_id]
    master = slave = None
    if r["interrupt_after"] is not None:
        master, slave = pty.openpty()
        stdin = slave
    else:
        stdin = subprocess.DEVNULL
    with open(stderr_path, "w") as err:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=err,
                             start_new_session=True)
    lines, first_delta = [], []
    if master is not None:
        os.close(slave)

        def typist():
            while not first_delta:
                if p.poll() is not None:
                    return
                time.sleep(0.02)
            time.sleep(max(0.0, first_delta[0] + r["interrupt_after"] - time.time()))
            if p.poll() is None:
                os.write(master, b"\x03")
        threading.Thread(target=typist, daemon=True).start()
    deadline = time.time() + 120
    for raw in p.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        lines.append(line)
        if not first_delta and '"delta":true' in line:
            first_delta.append(time.time())
        if time.time() > deadline:
            break
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = 124
    stop_group(p, grace=1.0)
    if master is not None:
        os.close(master)
    with open(stdout_path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    return rc, lines


def sanitize_tree(wr, root):
    for d, _, files in os.walk(root):
        for name in files:
            path = os.path.join(d, name)
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            clean = wr.sanitize(text)
            if clean != text:
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(clean)


def capture_stream(name, js, wr, mock, out):
    scenario, notes, runs = STREAM[name]
    cwd = wr.cwd(name, notes)
    env = cli_env(wr, mock.port, scenario)
    first_session = None
    notes_out = []
    if len(runs) > 1:
        align_minute(None, None)
    started = time.time()
    for i, r in enumerate(runs, 1):
        if r["minute"]:
            align_minute(r["minute"], started)
        stem = name if len(runs) == 1 else "%s-%d" % (name, i)
        rc, lines = run_stream(js, env, cwd, r, first_session, os.path.join(out, "gemini", stem + ".jsonl"),
                               os.path.join(out, "stderr", stem + ".stderr"))
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("type") == "init" and first_session is None:
                first_session = msg.get("session_id")
        notes_out.append("%s rc=%s lines=%d" % (stem, rc, len(lines)))
    copy_sessions(wr, cwd, os.path.join(out, "gemini-session", name))
    return "; ".join(notes_out)


def copy_sessions(wr, cwd, dest):
    """Copy the chats/ folder of the project `cwd` (its slug folder under ~/.gemini/tmp/ names the
    project in .project_root), keeping the layout under ~/.gemini/tmp/."""
    tmp = os.path.join(wr.home, ".gemini", "tmp")
    shutil.rmtree(dest, ignore_errors=True)
    for slug in sorted(os.listdir(tmp)) if os.path.isdir(tmp) else []:
        root_file = os.path.join(tmp, slug, ".project_root")
        if os.path.exists(root_file) and open(root_file).read().strip() == cwd:
            chats = os.path.join(tmp, slug, "chats")
            if os.path.isdir(chats):
                shutil.copytree(chats, os.path.join(dest, slug, "chats"))


def capture_acp(name, js, wr, mock, out):
    spec = ACP[name]
    cwd = wr.cwd(name, spec["notes"])
    env = cli_env(wr, mock.port, spec["scenario"])
    stem = "gemini_" + name[len("acp_"):]
    trace = acp_client.Trace(os.path.join(out, "acp", stem + ".jsonl"))
    results = []
    if spec["load"]:
        align_minute(None, None)
    started = time.time()
    try:
        with open(os.path.join(out, "acp", stem + ".stderr"), "w") as err:
            c = acp_client.Client(["node", js, "--acp"], env, cwd, trace, err, spec["policy"])
            try:
                c.start("gemini-api-key")
                sid = c.new_session()
                if spec["mode"]:
                    c.set_mode(sid, spec["mode"])
                results += [c.prompt(sid, p) for p in spec["prompts"]]
            finally:
                c.close()
            if spec["load"]:
                align_minute(spec["minute"], started)
                c = acp_client.Client(["node", js, "--acp"], env, cwd, trace, err, spec["policy"])
                try:
                    c.start("gemini-api-key")
                    results.append(c.load_session(sid))
                    results += [c.prompt(sid, p) for p in spec["load"]]
                finally:
                    c.close()
    except Exception as e:  # keep what was recorded
        results.append("EXC(%s)" % e)
    finally:
        trace.close()
    copy_sessions(wr, cwd, os.path.join(out, "gemini-session", name))
    return " ".join(results)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--deps", default=os.environ.get("GEMINI_CAPTURE_DEPS"))
    ap.add_argument("--out")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--log-requests", action="store_true", help="save every mock request under OUT/mock-requests/")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    known = list(STREAM) + list(ACP)
    if a.list:
        for n in STREAM:
            print("stream-json  %-18s mock=%s runs=%d" % (n, STREAM[n][0], len(STREAM[n][2])))
        for n in ACP:
            print("acp          %-18s mock=%s" % (n, ACP[n]["scenario"]))
        return
    if not a.out or not a.deps:
        ap.error("--out and --deps are required")
    names = [s for s in a.scenarios if s != "all"] or known
    bad = [n for n in names if n not in known]
    if bad:
        ap.error("unknown scenario(s) %s; known: %s" % (" ".join(bad), " ".join(known)))
    js = os.path.join(os.path.realpath(a.deps), "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
    if not os.path.exists(js):
        sys.exit("missing %s (npm install --ignore-scripts @google/gemini-cli@0.61.0 in --deps)" % js)
    out = os.path.realpath(a.out)
    for d in ("gemini", "gemini-session", "acp", "stderr"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    wr = WorkRoot(a.keep_work)
    mock = Mock(wr, os.path.join(out, "mock-requests") if a.log_requests else None)
    try:
        for name in names:
            note = capture_stream(name, js, wr, mock, out) if name in STREAM else capture_acp(name, js, wr, mock, out)
            print("%-18s %s" % (name, note), flush=True)
    finally:
        mock.stop()
        sanitize_tree(wr, out)
        wr.cleanup()


if __name__ == "__main__":
    main()
