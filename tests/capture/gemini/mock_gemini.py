#!/usr/bin/env python3
"""A scripted mock of the Gemini API (generativelanguage v1beta) for capturing Gemini CLI traffic.

Serves, under a scenario prefix `/s/<scenario>` (the CLI is pointed at
`GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>/s/<scenario>`):
  POST .../models/<model>:streamGenerateContent?alt=sse   SSE, one candidate chunk per `data:` line
  POST .../models/<model>:generateContent                 one JSON response
  POST .../models/<model>:countTokens                     {"totalTokens": 1234}
Anything else gets `{}`. Binds 127.0.0.1 only; stdlib only.

Which answer a request gets:
- A request without `tools` is a side query of the CLI (routing classifier, next-speaker check,
  summaries): a JSON object when a response schema is asked for, else the text "Mock side answer".
- A request whose first prompt holds `[[SUBAGENT]]` is a subagent's: it follows `<scenario>__sub`.
- Otherwise the prompt number k (the user contents carrying text besides the CLI's
  `<session_context>` preamble, which shares the first prompt's content) picks the k-th script
  of the scenario (the last one past the end), and the step is the number of model contents
  after that prompt.
`{CWD}` in a script is replaced by the workspace directory the request names.

usage: mock_gemini.py [--port N] [--port-file F] [--log-dir D]
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text(t, **kw):
    return dict({"text": t}, **kw)


def thought(t):
    return {"text": t, "thought": True}


def call(name, args):
    return {"functionCall": {"name": name, "args": args}}


# scenario -> list of prompt scripts; a prompt script is a list of steps (one per model request);
# a step is {"parts": [...]} (optionally "delay" seconds between chunks) or {"error": {...}}.
SCRIPTS = {
    "plain": [[{"parts": [text("Hello from the mock Gemini model. How can I help?")]}]],
    "thinking": [[{"parts": [thought("**Weighing the greeting** The user said hi; a short friendly answer fits."),
                             text("Hi! (mock Gemini, after thinking)")]}]],
    "shell": [[{"parts": [call("run_shell_command", {"command": "touch made_by_shell.txt",
                                                     "description": "create a file"})]},
               {"parts": [text("The shell command finished.")]}]],
    "edit": [[{"parts": [text("Editing notes.txt."),
                         call("replace", {"file_path": "{CWD}/notes.txt", "old_string": "alpha",
                                          "new_string": "omega", "instruction": "rename alpha to omega"})]},
              {"parts": [text("Replaced alpha with omega in notes.txt.")]}]],
    "error400": [[{"error": {"status": 400, "message": "Invalid argument (mock).", "grpc": "INVALID_ARGUMENT"}}]],
    "slow": [[{"delay": 0.25, "parts": [text(" ".join("word%d" % i for i in range(160)))]}]],
    "two_turns": [[{"parts": [text("First answer from the mock.")]}],
                  [{"parts": [text("Second answer, same session.")]}]],
    "resume": [[{"parts": [text("Running echo."), call("run_shell_command", {"command": "echo hello",
                                                                            "description": "print hello"})]},
                {"parts": [text("It printed hello.")]}],
               [{"parts": [thought("**Recalling the earlier turn** The shell printed hello before."),
                           text("Earlier the shell printed hello.")]}]],
    "subagent": [[{"parts": [call("invoke_agent", {"agent_name": "generalist",
                                                   "prompt": "[[SUBAGENT]] List the files of the workspace."})]},
                  {"parts": [text("The subagent listed the workspace.")]}]],
    "subagent__sub": [[{"parts": [thought("**Listing** I will list the workspace directory."),
                                  call("list_directory", {"dir_path": "{CWD}"})]},
                       {"parts": [call("complete_task", {"result": {"response": "The workspace holds notes.txt."}})]},
                       {"parts": [text("(mock subagent: done)")]}]],
}

SEQ = [0]
SEQ_LOCK = threading.Lock()
LOG_DIR = None
WORKSPACE = {}


def subst(obj, cwd):
    if isinstance(obj, str):
        return obj.replace("{CWD}", cwd)
    if isinstance(obj, list):
        return [subst(x, cwd) for x in obj]
    if isinstance(obj, dict):
        return {k: subst(v, cwd) for k, v in obj.items()}
    return obj


def workspace_of(scen, body):
    """The workspace directory the CLI's session preamble names (remembered per scenario, for the
    subagent requests that carry no preamble)."""
    texts = [p.get("text") or "" for c in body.get("contents") or [] for p in c.get("parts") or []
             if isinstance(p, dict)]
    m = re.search(r"Workspace Directories:\*\*\n\s+- (\S+)", "\n".join(texts))
    if m:
        WORKSPACE[scen] = m.group(1)
    return WORKSPACE.get(scen, "/tmp")


def prompts(contents):
    """Indexes of the user contents that are prompts (text, not the CLI's session preamble)."""
    out = []
    for i, c in enumerate(contents):
        if c.get("role") != "user":
            continue
        texts = [p.get("text") for p in c.get("parts") or [] if isinstance(p, dict) and "text" in p]
        if any(not t.lstrip().startswith("<session_context>") for t in texts):
            out.append(i)
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("[mock] " + (fmt % args) + "\n")

    def _split(self):
        path = self.path.split("?", 1)[0]
        m = re.match(r"^/s/([^/]+)(/.*)$", path)
        return (m.group(1), m.group(2)) if m else ("plain", path)

    def _body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {}

    def _log(self, scen, kind, body):
        with SEQ_LOCK:
            SEQ[0] += 1
            seq = SEQ[0]
        if LOG_DIR:
            with open(os.path.join(LOG_DIR, "%04d-%s-%s.json" % (seq, scen, kind)), "w") as f:
                json.dump({"path": self.path, "body": body, "time": time.time()}, f, indent=1)
        return seq

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json(200, {})

    def do_POST(self):
        scen, path = self._split()
        body = self._body()
        method = path.rsplit(":", 1)[-1] if ":" in path else ""
        model = path.split("/models/")[-1].split(":")[0] if "/models/" in path else "gemini-mock"
        if method == "countTokens":
            self._log(scen, "countTokens", body)
            return self._json(200, {"totalTokens": 1234})
        if method not in ("generateContent", "streamGenerateContent"):
            self._log(scen, "unknown", body)
            return self._json(200, {})
        contents = body.get("contents") or []
        if not body.get("tools"):
            self._log(scen, "side-" + method, body)
            gen = body.get("generationConfig") or {}
            if gen.get("responseJsonSchema") or gen.get("responseSchema") or \
                    gen.get("responseMimeType") == "application/json":
                answer = json.dumps({"reasoning": "mock", "model_choice": "flash", "next_speaker": "user",
                                     "complexity_reasoning": "mock", "complexity_score": 10})
            else:
                answer = "Mock side answer"
            return self._send(method, model, {"parts": [text(answer)]}, 0)
        ps = prompts(contents)
        first = json.dumps(contents[ps[0]]) if ps else ""
        key = scen + "__sub" if "[[SUBAGENT]]" in first and scen + "__sub" in SCRIPTS else scen
        script = SCRIPTS.get(key) or SCRIPTS["plain"]
        k = len(ps) if key == scen else 1
        steps = script[min(max(k, 1), len(script)) - 1]
        last = ps[-1] if ps else -1
        step = sum(1 for c in contents[last + 1:] if c.get("role") == "model")
        seq = self._log(scen, "%s-p%d-s%d-%s" % ("sub" if key != scen else "main", k, step, method), body)
        turn = steps[step] if step < len(steps) else {"parts": [text("(mock: script exhausted)")]}
        turn = subst(turn, workspace_of(scen, body))
        if "error" in turn:
            e = turn["error"]
            return self._json(e["status"], {"error": {"code": e["status"], "message": e["message"],
                                                      "status": e["grpc"]}})
        return self._send(method, model, turn, seq)

    def _send(self, method, model, turn, seq):
        parts = turn["parts"]
        thoughts = sum(len(p["text"]) // 4 for p in parts if p.get("thought"))
        usage = {"promptTokenCount": 1000 + seq, "candidatesTokenCount": 20, "totalTokenCount": 1020 + seq + thoughts}
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        rid = "mockresp%04d" % seq
        if method == "generateContent":
            return self._json(200, {"candidates": [{"content": {"role": "model", "parts": parts},
                                                    "finishReason": "STOP", "index": 0}],
                                    "usageMetadata": usage, "modelVersion": model, "responseId": rid})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        pieces = []
        for p in parts:  # long texts go out in 24-character pieces, as a streaming model does
            if "text" in p and len(p["text"]) > 24:
                pieces += [dict(p, text=p["text"][i:i + 24]) for i in range(0, len(p["text"]), 24)]
            else:
                pieces.append(p)
        delay = float(turn.get("delay", 0))
        try:
            for i, p in enumerate(pieces):
                if delay:
                    time.sleep(delay)
                cand = {"content": {"role": "model", "parts": [p]}, "index": 0}
                if i == len(pieces) - 1:
                    cand["finishReason"] = "STOP"
                chunk = {"candidates": [cand], "usageMetadata": usage, "modelVersion": model, "responseId": rid}
                self.wfile.write(("data: %s\r\n\r\n" % json.dumps(chunk)).encode())
                self.wfile.flush()
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
