#!/usr/bin/env python3
"""A scripted mock of the OpenAI Responses API for capturing GitHub Copilot CLI traffic.

Copilot CLI runs in BYOK mode against it: COPILOT_PROVIDER_TYPE=openai,
COPILOT_PROVIDER_WIRE_API=responses, COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:<port>/s/<scenario>/v1.
Served:
  POST /s/<scenario>/v1/responses    SSE (response.created ... response.completed)
  GET  anything                      {"object": "list", "data": []}
  CONNECT host:port                  403, logged as refused (the CLI gets the mock as its HTTP(S)
                                     proxy, so any call to another host shows up in the log)
Binds 127.0.0.1 only; stdlib only.

Which answer a request gets:
- A request whose first user message holds `[[SUBAGENT]]` is a subagent's: it follows `<scenario>__sub`.
- Otherwise the number k of user messages in `input` (the prompts of the session so far) picks the
  k-th script of the scenario (the last one past the end), and the step is the number of
  `function_call_output` items after the last user message.
- A step is a list of output items (("reasoning", summary), ("text", text), ("call", name, args)),
  or {"error": status} (an HTTP error), or {"flaky": status, "then": step} (the error on the first
  attempt of that step, the step on the next ones), with optional "delay" seconds between deltas.
`{CWD}` in a script is replaced by the working directory the CLI's <environment_context> names.
Usage is synthetic: input_tokens 1000 + request number, output_tokens 20 (+ reasoning tokens).

usage: mock_copilot.py [--port N] [--port-file F] [--log-dir D]
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text(t, delay=0.0):
    return ("text", t)


def reasoning(summary):
    return ("reasoning", summary)


def call(name, args):
    return ("call", name, args)


def sh(cmd, desc):
    return call("bash", {"command": cmd, "description": desc})


LONG = " ".join("word%d" % i for i in range(120))

# scenario -> list of prompt scripts; a prompt script is a list of steps (one per model request).
SCRIPTS = {
    "plain": [[[text("Hello from the mock model. How can I help?")]]],
    "thinking": [[[reasoning("**Weighing the greeting** The user said hi; a short friendly answer fits."),
                   text("Hi! (mock, after thinking)")]]],
    "shell": [[[text("Creating a file with the shell."), sh("touch made_by_shell.txt", "Create a file")],
               [text("The shell command finished.")]]],
    "shell_fail": [[[sh("ls /nonexistent_dir_xyz; exit 3", "List a missing directory")],
                    [text("The command failed with exit code 3.")]]],
    "write": [[[call("create", {"path": "{CWD}/hello.txt", "file_text": "Hello from the mock model\nsecond line\n"})],
               [text("Created hello.txt.")]]],
    "edit": [[[call("edit", {"path": "{CWD}/notes.txt", "old_str": "alpha", "new_str": "omega"})],
              [text("Replaced alpha with omega in notes.txt.")]]],
    "read": [[[call("view", {"path": "{CWD}/notes.txt"})],
              [text("notes.txt holds two lines: alpha and beta.")]]],
    "error400": [[{"error": 400}]],
    "error500": [[{"error": 500}]],
    "flaky500": [[{"flaky": 500, "then": [text("Answer after a retried 500.")]}]],
    "slow": [[{"delay": 0.25, "items": [text(LONG)]}]],
    "slow_tool": [[[text("Sleeping in the shell."), sh("sleep 30", "Sleep for 30 seconds")],
                   [text("(mock: the sleep finished)")]]],
    "two_turns": [[[text("First answer from the mock.")]],
                  [[text("Second answer, same session.")]]],
    "resume": [[[text("Running echo."), sh("echo hello", "Print hello")],
                [text("It printed hello.")]],
               [[reasoning("**Recalling the earlier turn** The shell printed hello before."),
                 text("Earlier the shell printed hello.")]]],
    "todo": [[[call("sql", {"description": "Insert todos", "query":
                            "INSERT INTO todos (id, title, description) VALUES "
                            "('inspect', 'Inspect notes', 'Read notes.txt'), "
                            "('report', 'Report', 'Say what notes.txt holds')"})],
              [call("sql", {"description": "Finish inspect todo",
                            "query": "UPDATE todos SET status = 'done' WHERE id = 'inspect'"})],
              [text("Two todos recorded; the first is done.")]]],
    "subagent": [[[call("task", {"description": "List the workspace", "name": "lister", "agent_type": "explore",
                                 "prompt": "[[SUBAGENT]] List the files of the workspace."})],
                  [text("The subagent listed the workspace.")]]],
    "subagent__sub": [[[reasoning("**Listing** I will list the workspace directory."),
                        call("view", {"path": "{CWD}"})],
                       [text("The workspace holds notes.txt.")]]],
}

SEQ = [0]
LOCK = threading.Lock()
ATTEMPTS = {}
LOG_DIR = None
WORKSPACE = {}
REFUSED = []


def subst(obj, cwd):
    if isinstance(obj, str):
        return obj.replace("{CWD}", cwd)
    if isinstance(obj, (list, tuple)):
        return type(obj)(subst(x, cwd) for x in obj)
    if isinstance(obj, dict):
        return {k: subst(v, cwd) for k, v in obj.items()}
    return obj


def workspace_of(scen, body):
    m = re.search(r"Current working directory: (\S+)", body.get("instructions") or "")
    if m:
        WORKSPACE[scen] = m.group(1)
    return WORKSPACE.get(scen, "/tmp")


def user_text(item):
    c = item.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(p.get("text") or "" for p in c or [] if isinstance(p, dict))


class SSE:
    def __init__(self, handler, seq, model, delay, cwd=None):
        self.h, self.seq, self.model, self.delay, self.cwd = handler, seq, model, delay, cwd
        self.n = 0
        self.rid = "resp_mock%04d" % seq
        self.out = []

    def send(self, etype, **data):
        payload = {"type": etype, "sequence_number": self.n}
        payload.update(data)
        self.n += 1
        self.h.wfile.write(("event: %s\ndata: %s\n\n" % (etype, json.dumps(payload))).encode())
        self.h.wfile.flush()

    def pieces(self, s, size):
        return [s[i:i + size] for i in range(0, len(s), size)] or [""]

    def arg_pieces(self, args, size):
        """Pieces of `size` characters, but never splitting the workspace path (so that the capture's
        plain-text path rewriting also reaches the streamed argument deltas)."""
        spans = []
        if self.cwd:
            i = args.find(self.cwd)
            while i >= 0:
                spans.append((i, i + len(self.cwd)))
                i = args.find(self.cwd, i + 1)
        cuts = [b for b in range(size, len(args), size) if not any(s < b < e for s, e in spans)]
        bounds = [0] + cuts + [len(args)]
        return [args[a:b] for a, b in zip(bounds, bounds[1:])]

    def resp(self, status, **kw):
        return dict({"id": self.rid, "object": "response", "created_at": int(time.time()), "status": status,
                     "model": self.model, "output": list(self.out)}, **kw)

    def run(self, items):
        self.send("response.created", response=self.resp("in_progress"))
        self.send("response.in_progress", response=self.resp("in_progress"))
        reasoning_tokens = 0
        for it in items:
            idx = len(self.out)
            if it[0] == "reasoning":
                rid = "rs_mock%04d_%d" % (self.seq, idx)
                reasoning_tokens += len(it[1]) // 4
                self.send("response.output_item.added", output_index=idx,
                          item={"type": "reasoning", "id": rid, "summary": []})
                self.send("response.reasoning_summary_part.added", item_id=rid, output_index=idx, summary_index=0,
                          part={"type": "summary_text", "text": ""})
                for p in self.pieces(it[1], 16):
                    self.send("response.reasoning_summary_text.delta", item_id=rid, output_index=idx,
                              summary_index=0, delta=p)
                self.send("response.reasoning_summary_text.done", item_id=rid, output_index=idx,
                          summary_index=0, text=it[1])
                self.send("response.reasoning_summary_part.done", item_id=rid, output_index=idx, summary_index=0,
                          part={"type": "summary_text", "text": it[1]})
                item = {"type": "reasoning", "id": rid, "summary": [{"type": "summary_text", "text": it[1]}],
                        "encrypted_content": "bW9jay1lbmNyeXB0ZWQtcmVhc29uaW5n"}
            elif it[0] == "text":
                mid = "msg_mock%04d_%d" % (self.seq, idx)
                self.send("response.output_item.added", output_index=idx,
                          item={"type": "message", "id": mid, "status": "in_progress", "role": "assistant",
                                "content": []})
                self.send("response.content_part.added", item_id=mid, output_index=idx, content_index=0,
                          part={"type": "output_text", "text": "", "annotations": []})
                for p in self.pieces(it[1], 24):
                    if self.delay:
                        time.sleep(self.delay)
                    self.send("response.output_text.delta", item_id=mid, output_index=idx, content_index=0, delta=p)
                self.send("response.output_text.done", item_id=mid, output_index=idx, content_index=0, text=it[1])
                part = {"type": "output_text", "text": it[1], "annotations": []}
                self.send("response.content_part.done", item_id=mid, output_index=idx, content_index=0, part=part)
                item = {"type": "message", "id": mid, "status": "completed", "role": "assistant", "content": [part]}
            else:
                fid = "fc_mock%04d_%d" % (self.seq, idx)
                cid = "call_mock%04d_%d" % (self.seq, idx)
                args = json.dumps(it[2])
                self.send("response.output_item.added", output_index=idx,
                          item={"type": "function_call", "id": fid, "call_id": cid, "name": it[1], "arguments": "",
                                "status": "in_progress"})
                for p in self.arg_pieces(args, 32):
                    self.send("response.function_call_arguments.delta", item_id=fid, output_index=idx, delta=p)
                self.send("response.function_call_arguments.done", item_id=fid, output_index=idx, arguments=args)
                item = {"type": "function_call", "id": fid, "call_id": cid, "name": it[1], "arguments": args,
                        "status": "completed"}
            self.out.append(item)
            self.send("response.output_item.done", output_index=idx, item=item)
        inp = 1000 + self.seq
        out = 20 + reasoning_tokens
        self.send("response.completed", response=self.resp("completed", usage={
            "input_tokens": inp, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out, "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": inp + out}))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("[mock] " + (fmt % args) + "\n")

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _log(self, scen, kind, body):
        with LOCK:
            SEQ[0] += 1
            seq = SEQ[0]
        if LOG_DIR:
            with open(os.path.join(LOG_DIR, "%04d-%s-%s.json" % (seq, scen, kind)), "w") as f:
                json.dump({"path": self.path, "headers": dict(self.headers.items()), "body": body,
                           "time": time.time()}, f, indent=1)
        return seq

    def do_CONNECT(self):
        sys.stderr.write("[mock] REFUSED CONNECT %s\n" % self.path)
        self._log("proxy", "refused", {"connect": self.path})
        self.send_response(403)
        self.send_header("content-length", "0")
        self.end_headers()
        self.close_connection = True

    def do_GET(self):
        if not self.path.startswith("/s/"):
            sys.stderr.write("[mock] REFUSED GET %s\n" % self.path)
            self._log("proxy", "refused", {"get": self.path})
            return self._json(403, {})
        self._log("get", "get", None)
        self._json(200, {"object": "list", "data": []})

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        m = re.match(r"^/s/([^/]+)(/.*)$", self.path.split("?", 1)[0])
        if not m:
            sys.stderr.write("[mock] REFUSED POST %s\n" % self.path)
            self._log("proxy", "refused", {"post": self.path})
            return self._json(403, {})
        scen, path = m.group(1), m.group(2)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        if not path.endswith("/responses"):
            self._log(scen, "unknown", body)
            return self._json(404, {"error": {"message": "mock: unknown path %s" % path}})
        items = body.get("input") or []
        users = [i for i, it in enumerate(items) if it.get("role") == "user" and it.get("type", "message") == "message"]
        first = user_text(items[users[0]]) if users else ""
        sub = "[[SUBAGENT]]" in first and scen + "__sub" in SCRIPTS
        key = scen + "__sub" if sub else scen
        script = SCRIPTS.get(key) or SCRIPTS["plain"]
        k = 1 if sub else max(len(users), 1)
        steps = script[min(k, len(script)) - 1]
        last = users[-1] if users else -1
        step = sum(1 for it in items[last + 1:] if it.get("type") == "function_call_output")
        seq = self._log(scen, "%s-p%d-s%d" % ("sub" if sub else "main", k, step), body)
        turn = steps[step] if step < len(steps) else [text("(mock: script exhausted)")]
        cwd = workspace_of(scen, body)
        turn = subst(turn, cwd)
        delay = 0.0
        if isinstance(turn, dict) and "flaky" in turn:
            akey = (scen, k, step, len(items))
            with LOCK:
                ATTEMPTS[akey] = ATTEMPTS.get(akey, 0) + 1
                attempt = ATTEMPTS[akey]
            turn = {"error": turn["flaky"]} if attempt == 1 else turn["then"]
        if isinstance(turn, dict) and "error" in turn:
            st = turn["error"]
            err = {400: {"message": "mock bad request: invalid parameter", "type": "invalid_request_error",
                         "param": "input", "code": "invalid_value"},
                   500: {"message": "mock internal server error", "type": "server_error", "param": None,
                         "code": "server_error"}}[st]
            return self._json(st, {"error": err})
        if isinstance(turn, dict):
            delay, turn = float(turn.get("delay", 0)), turn["items"]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            SSE(self, seq, body.get("model") or "mock-model", delay, cwd).run(turn)
        except (BrokenPipeError, ConnectionResetError):
            sys.stderr.write("[mock] client went away (seq %d)\n" % seq)


def main():
    global LOG_DIR
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log-dir")
    a = ap.parse_args()
    if a.log_dir:
        LOG_DIR = a.log_dir
        os.makedirs(LOG_DIR, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(a.port_file + ".tmp", a.port_file)
    sys.stderr.write("[mock] listening on 127.0.0.1:%d\n" % srv.server_address[1])
    sys.stderr.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
