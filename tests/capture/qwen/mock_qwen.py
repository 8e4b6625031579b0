#!/usr/bin/env python3
"""A mock Anthropic Messages API for the Qwen Code captures (Python 3.11 stdlib, binds 127.0.0.1).

Qwen Code runs with `--auth-type anthropic` and `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT/s/<scenario>`,
so it calls `POST /s/<scenario>/v1/messages` (streaming SSE).

Which script step answers a request:
- a request without `tools` (Qwen's side queries: session title, next-speaker check, prompt
  suggestion, ...) gets a short text, `{}`-shaped JSON when the system prompt asks for JSON;
- a request whose first user message contains `[[SUB]]` (the prompt the `agent` tool gives a
  subagent) is answered from `<scenario>__sub`;
- Qwen's prompt-suggestion query (its last message asks to "Reply with ONLY the suggestion") is
  answered `run the tests`;
- a request whose system prompt is Qwen's managed-memory extractor or another background helper
  (no scenario tools wanted) is answered `Done.`;
- otherwise the scenario is a list of turns, one per user prompt: turn K = the number of user
  messages holding a real prompt (a text block that is not a `<system-reminder>`, in a message
  without tool results) minus one; inside the turn, step N = the number of assistant messages
  after that prompt.

A step is a dict:
- `blocks`: content blocks streamed in order: `{"type": "text", "text"}`, `{"type": "thinking",
  "thinking"}`, `{"type": "tool_use", "name", "input"}`; stop reason `tool_use` when a block is a
  tool call, else `end_turn`;
- `error`: `{"status", "type", "message"}`, answered as that HTTP error with Anthropic's error body;
  `"once": true` answers the error only on the first request for that step, later requests get the
  next step;
- `delay`: seconds between two deltas (a slow stream, for interrupts).
`GET /_reset` forgets which `once` errors were sent (the driver calls it before each scenario).
`{CWD}` in a tool input is replaced by the agent's working directory (the `--cwd` the driver gives
per scenario through `GET /_cwd?path=...`).

Usage is synthetic: message_start input_tokens 1000 + request number, cache_read_input_tokens 7,
message_delta output_tokens 40 + request number.

usage: mock_qwen.py [--port N] [--port-file F] [--log-dir D]
With --log-dir every request body is saved as <seq>-<scenario>.json.
"""
import argparse
import json
import os
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def T(text):
    return {"type": "text", "text": text}


def TH(text):
    return {"type": "thinking", "thinking": text}


def TU(name, inp):
    return {"type": "tool_use", "name": name, "input": inp}


def step(*blocks, **kw):
    return dict(blocks=list(blocks), **kw)


SLOW_TEXT = " ".join(f"word{i}" for i in range(80))

# scenario -> list of turns; a turn is a list of steps
SCENARIOS = {
    "plain": [[step(T("Hello! I am a mock model. How can I help you today?"))]],
    "thinking": [[step(TH("The user greets me. I should think briefly, then answer politely."),
                       T("Hi there! (I thought about it first.)"))]],
    "shell": [[
        step(T("I'll run two commands."),
             TU("run_shell_command", {"command": "echo hello", "description": "Print hello"})),
        step(TU("run_shell_command", {"command": "touch made_by_shell.txt", "description": "Create a file"})),
        step(T("Both commands were handled.")),
    ]],
    "shell_control": [[
        step(T("I'll run three commands."),
             TU("run_shell_command", {"command": "echo hello", "description": "Print hello"})),
        step(TU("run_shell_command", {"command": "mkdir allowed_dir", "description": "Create a folder"})),
        step(TU("run_shell_command", {"command": "touch made_by_shell.txt", "description": "Create a file"})),
        step(T("All three commands were handled.")),
    ]],
    "shell_one": [[
        step(TU("run_shell_command", {"command": "touch made_by_shell.txt", "description": "Create a file"})),
        step(T("The shell command was handled.")),
    ]],
    "write_edit": [[
        step(T("I'll write the file."),
             TU("write_file", {"file_path": "{CWD}/hello.txt", "content": "hello from mock\nsecond line\n"})),
        step(TU("edit", {"file_path": "{CWD}/hello.txt", "old_string": "second line", "new_string": "edited line"})),
        step(T("I wrote hello.txt and edited its second line.")),
    ]],
    "read": [[
        step(TU("read_file", {"absolute_path": "{CWD}/notes.txt"})),
        step(T("notes.txt holds two lines: alpha and beta.")),
    ]],
    "fail": [[
        step(TU("run_shell_command", {"command": "ls /definitely/not/here", "description": "List a missing folder"})),
        step(T("The command failed: the folder does not exist.")),
    ]],
    "error400": [[{"error": {"status": 400, "type": "invalid_request_error", "message": "mock: prompt is invalid"}}]],
    "error500": [[{"error": {"status": 500, "type": "api_error", "message": "mock: Internal server error"}}]],
    "error500_retry": [[
        {"error": {"status": 500, "type": "api_error", "message": "mock: Internal server error"}, "once": True},
        step(T("Answer after a retry.")),
    ]],
    "slow": [[step(T(SLOW_TEXT), delay=0.3)]],
    "slow_tool": [[
        step(TU("run_shell_command", {"command": "python3 -c 'import time; time.sleep(20)'; echo done",
                                       "description": "Wait a while"})),
        step(T("The sleep finished.")),
    ]],
    "two_turns": [
        [step(T("First answer."))],
        [step(TH("A second question; answer it too."), T("Second answer."))],
        [step(T("Third answer, in the resumed session."))],
    ],
    "todo": [[
        step(TU("todo_write", {"todos": [
            {"id": "1", "content": "Read the notes", "status": "completed"},
            {"id": "2", "content": "Summarize them", "status": "in_progress"},
            {"id": "3", "content": "Report back", "status": "pending"},
        ]})),
        step(T("The plan is recorded.")),
    ]],
    # foreground subagent: the `agent` tool returns the subagent's answer as its result
    "subagent": [[
        step(T("I'll delegate this to a subagent."),
             TU("agent", {"description": "Inspect the folder", "subagent_type": "general-purpose",
                          "prompt": "[[SUB]] List the files with ls and report.", "run_in_background": False})),
        step(T("The subagent reported back: notes.txt.")),
    ]],
    # background subagent (Qwen's default): the tool answers at once, and the subagent's result
    # arrives later as a new user message (<task-notification>), the scenario's second turn
    "subagent_bg": [
        [step(T("I'll delegate this to a subagent."),
              TU("agent", {"description": "Inspect the folder", "subagent_type": "general-purpose",
                           "prompt": "[[SUB]] List the files with ls and report."})),
         step(T("The subagent is running."))],
        [step(T("The subagent reported back: notes.txt."))],
    ],
    "subagent_bg__sub": [[
        step(TH("Run ls."), TU("run_shell_command", {"command": "ls", "description": "List files"})),
        step(T("The folder holds notes.txt.")),
    ]],
    "subagent__sub": [[
        step(TH("Run ls."), TU("run_shell_command", {"command": "ls", "description": "List files"})),
        step(T("The folder holds notes.txt.")),
    ]],
}

LOG_DIR = None
CWD = [""]
SEQ = [0]
LOCK = threading.Lock()
ERRORS_SENT = set()  # (scenario, turn, step) of `once` errors already answered


def fill(value, cwd):
    if isinstance(value, str):
        return value.replace("{CWD}", cwd)
    if isinstance(value, list):
        return [fill(v, cwd) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, cwd) for k, v in value.items()}
    return value


def blocks_of(message):
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def text_of(message):
    return " ".join(b.get("text", "") for b in blocks_of(message) if b.get("type") == "text")


def is_prompt(message):
    """A user message holding a real prompt: not only tool results, and not only system reminders."""
    if message.get("role") != "user":
        return False
    blocks = blocks_of(message)
    if any(b.get("type") == "tool_result" for b in blocks):
        return False
    texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
    return any(t.strip() and not t.lstrip().startswith("<system-reminder>") for t in texts)


def position(messages):
    """(turn index, step index): prompts so far - 1, assistant messages after the last prompt."""
    turn, last = -1, -1
    for i, m in enumerate(messages):
        if is_prompt(m):
            turn, last = turn + 1, i
    steps = sum(1 for m in messages[last + 1:] if m.get("role") == "assistant")
    return max(turn, 0), steps


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: " + (fmt % args) + "\n")

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if status >= 400:
            self.send_header("request-id", f"req_mock{SEQ[0]:04d}")
        self.end_headers()
        self.wfile.write(data)

    def refuse(self):
        """The mock is also the agent's HTTP(S)_PROXY: a request for another host is logged and refused."""
        if LOG_DIR:
            with LOCK, open(os.path.join(LOG_DIR, "refused-proxy-requests.txt"), "a") as f:
                f.write(f"{time.time():.3f} {self.command} {self.path}\n")
        self.close_connection = True
        self.send_json(403, {"type": "error", "error": {"type": "permission_error", "message": "mock: no network"}})

    def do_CONNECT(self):
        self.refuse()

    def do_GET(self):
        if not self.path.startswith("/"):
            return self.refuse()
        if self.path == "/_reset":
            ERRORS_SENT.clear()
            return self.send_json(200, {"reset": True})
        if self.path.startswith("/_cwd?"):
            CWD[0] = urllib.parse.parse_qs(self.path.split("?", 1)[1]).get("path", [""])[0]
            return self.send_json(200, {"cwd": CWD[0]})
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.path.startswith("/"):
            return self.refuse()
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        parts = self.path.split("/")
        scenario = parts[2] if len(parts) > 2 and parts[1] == "s" else "plain"
        with LOCK:
            SEQ[0] += 1
            seq = SEQ[0]
        if LOG_DIR:
            with open(os.path.join(LOG_DIR, f"{seq:04d}-{scenario}.json"), "w") as f:
                json.dump({"path": self.path, "headers": {k: v for k, v in self.headers.items()
                                                           if k.lower() not in ("x-api-key", "authorization")},
                           "body": req}, f, indent=1)
        if self.path.split("?")[0].endswith("/count_tokens"):
            return self.send_json(200, {"input_tokens": 1000})
        if not self.path.split("?")[0].endswith("/messages"):
            return self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
        messages = req.get("messages") or []
        if not req.get("tools"):
            return self.side(req, seq)
        system = req.get("system") or ""
        if isinstance(system, list):
            system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
        if "memory extraction subagent" in system or "You are now acting as" in system[:200]:
            return self.stream(req, [T("Done.")], 0, seq)
        if "Reply with ONLY the suggestion" in text_of(messages[-1] if messages else {}):
            return self.stream(req, [T("run the tests")], 0, seq)  # Qwen's prompt suggestion (follow-up) query
        first_user = next((m for m in messages if m.get("role") == "user"), {})
        if "[[SUB]]" in text_of(first_user) and scenario + "__sub" in SCENARIOS:
            scenario += "__sub"
        turns = SCENARIOS.get(scenario, SCENARIOS["plain"])
        turn, index = position(messages)
        script = turns[min(turn, len(turns) - 1)]
        # a `once` error takes one script slot that no assistant message accounts for
        for i, s in enumerate(script[: index + 1]):
            if s.get("once") and (scenario, turn, i) in ERRORS_SENT:
                index += 1
        if index >= len(script):
            return self.stream(req, [T("Done.")], 0, seq)
        cur = script[index]
        if "error" in cur:
            if cur.get("once"):
                ERRORS_SENT.add((scenario, turn, index))
            err = cur["error"]
            return self.send_json(err["status"], {"type": "error", "error": {"type": err["type"], "message": err["message"]}})
        return self.stream(req, fill(cur["blocks"], CWD[0]), cur.get("delay", 0), seq)

    def side(self, req, seq):
        system = req.get("system") or ""
        if isinstance(system, list):
            system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
        last = text_of((req.get("messages") or [{}])[-1])
        wants_json = "json" in (system + last).lower()
        text = '{"next_speaker": "user", "reasoning": "mock", "title": "Mock session title"}' if wants_json \
            else "Mock session title"
        return self.stream(req, [T(text)], 0, seq)

    def stream(self, req, blocks, delay, seq):
        if not req.get("stream"):
            content = []
            for i, b in enumerate(blocks):
                if b["type"] == "tool_use":
                    content.append({"type": "tool_use", "id": f"toolu_mock{seq:04d}{i}", "name": b["name"], "input": b["input"]})
                elif b["type"] == "thinking":
                    content.append({"type": "thinking", "thinking": b["thinking"], "signature": "bW9jay1zaWduYXR1cmU="})
                else:
                    content.append(b)
            return self.send_json(200, {
                "id": f"msg_mock{seq:04d}", "type": "message", "role": "assistant", "model": req.get("model", "mock-model"),
                "content": content, "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1000 + seq, "output_tokens": 40 + seq, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 7}})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(event, data):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        try:
            send("message_start", {"type": "message_start", "message": {
                "id": f"msg_mock{seq:04d}", "type": "message", "role": "assistant", "model": req.get("model", "mock-model"),
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 1000 + seq, "output_tokens": 1, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 7}}})
            uses_tool = False
            for i, block in enumerate(blocks):
                kind = block["type"]
                if kind == "text":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                    for chunk in chunks(block["text"], 6 if delay else 24):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": chunk}})
                        time.sleep(delay)
                elif kind == "thinking":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                    for chunk in chunks(block["thinking"], 24):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": chunk}})
                    send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": "bW9jay1zaWduYXR1cmU="}})
                elif kind == "tool_use":
                    uses_tool = True
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": f"toolu_mock{seq:04d}{i}", "name": block["name"], "input": {}}})
                    for chunk in chunks(json.dumps(block["input"]), 40):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": chunk}})
                send("content_block_stop", {"type": "content_block_stop", "index": i})
            send("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if uses_tool else "end_turn", "stop_sequence": None},
                                   "usage": {"output_tokens": 40 + seq}})
            send("message_stop", {"type": "message_stop"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client aborted the stream


def chunks(text, size):
    """Split by whole words into pieces of about `size` characters (at least one piece)."""
    out, cur = [], ""
    for word in text.split(" "):
        piece = word if not cur else " " + word
        if cur and len(cur) + len(piece) > size:
            out.append(cur)
            cur = " " + word
        else:
            cur += piece
    out.append(cur)
    return out


def main():
    global LOG_DIR
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log-dir")
    args = ap.parse_args()
    LOG_DIR = args.log_dir
    if LOG_DIR:
        os.makedirs(LOG_DIR, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"mock listening on 127.0.0.1:{server.server_address[1]}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
