#!/usr/bin/env python3
"""A mock Anthropic Messages API for the OpenCode captures (Python 3.11 stdlib, binds 127.0.0.1).

The scenario is the first path segment after `/s/`: OpenCode's provider `baseURL` is
`http://127.0.0.1:PORT/s/<scenario>/v1`, so it calls `/s/<scenario>/v1/messages`.

Which script step answers a request:
- a request without `tools` (OpenCode's title generator, summaries) gets a short title text;
- a request whose first user message contains `[[SUB]]` (the prompt a `task` tool call gives a
  subagent) is answered from `<scenario>__sub`;
- otherwise step N of the scenario, N = the number of assistant messages in the request.

A step is a dict:
- `blocks`: content blocks streamed in order: `{"type": "text", "text"}`, `{"type": "thinking",
  "thinking"}`, `{"type": "tool_use", "name", "input"}`; the stop reason is `tool_use` when a block
  is a tool call, else `end_turn`;
- `error`: `{"status", "type", "message"}`, answered as that HTTP error with Anthropic's error body;
  `"once": true` answers the error only on the first request for that step, then the next step;
- `delay`: seconds to wait between two deltas (a slow stream, for interrupts).
`GET /_reset` forgets which `once` errors were sent (the capture driver calls it before each scenario).
`{CWD}` in a tool input is replaced by the agent's working directory, read from the
`Working directory: <path>` line of OpenCode's system prompt (`--cwd` when there is none).

The same port serves as the agent's HTTP_PROXY / HTTPS_PROXY: a CONNECT or an absolute-URL request
(anything for another host) is answered 403 and logged (GET /_proxy_log lists them), so nothing
leaves the machine and the capture can show what the agent tried to reach.

usage: mock_anthropic.py [--port N] [--port-file F] [--log-dir D] [--cwd DIR]
With --log-dir every request body is saved as <seq>-<scenario>.json (headers are not saved).
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCENARIOS = {
    "plain": [
        {"blocks": [{"type": "text", "text": "Hello! I am a mock model. How can I help you today?"}]},
    ],
    "thinking": [
        {"blocks": [
            {"type": "thinking", "thinking": "The user greets me. I should think briefly, then answer politely."},
            {"type": "text", "text": "Hi there! (I thought about it first.)"},
        ]},
    ],
    "shell": [
        {"blocks": [
            {"type": "text", "text": "I'll run the command."},
            {"type": "tool_use", "name": "bash", "input": {"command": "echo hello", "description": "Print hello"}},
        ]},
        {"blocks": [{"type": "text", "text": "The command printed: hello"}]},
    ],
    "shell_touch": [
        {"blocks": [
            {"type": "tool_use", "name": "bash", "input": {"command": "touch created.txt", "description": "Create created.txt"}},
        ]},
        {"blocks": [{"type": "text", "text": "Done with the touch command."}]},
    ],
    "edit": [
        {"blocks": [{"type": "tool_use", "name": "read", "input": {"filePath": "{CWD}/notes.txt"}}]},
        {"blocks": [
            {"type": "thinking", "thinking": "The file says alpha; replace it with omega."},
            {"type": "tool_use", "name": "edit", "input": {"filePath": "{CWD}/notes.txt", "oldString": "alpha", "newString": "omega"}},
        ]},
        {"blocks": [{"type": "text", "text": "Replaced alpha with omega in notes.txt."}]},
    ],
    "write": [
        {"blocks": [{"type": "tool_use", "name": "write", "input": {"filePath": "{CWD}/hello.txt", "content": "hello from mock\n"}}]},
        {"blocks": [{"type": "text", "text": "I created hello.txt."}]},
    ],
    "todo": [
        {"blocks": [{"type": "tool_use", "name": "todowrite", "input": {"todos": [
            {"content": "Read the notes", "status": "completed", "priority": "high"},
            {"content": "Summarize them", "status": "in_progress", "priority": "medium"},
        ]}}]},
        {"blocks": [{"type": "text", "text": "The plan is recorded."}]},
    ],
    "question": [
        {"blocks": [{"type": "tool_use", "name": "question", "input": {"questions": [
            {"question": "Which color should the button be?", "header": "Color",
             "options": [{"label": "Red", "description": "A red button"}, {"label": "Blue", "description": "A blue button"}]},
        ]}}]},
        {"blocks": [{"type": "text", "text": "Blue it is."}]},
    ],
    "error400": [
        {"error": {"status": 400, "type": "invalid_request_error", "message": "mock: prompt is invalid"}},
    ],
    "error529_retry": [
        {"error": {"status": 529, "type": "overloaded_error", "message": "mock: Overloaded"}, "once": True},
        {"blocks": [{"type": "text", "text": "Answer after a retry."}]},
    ],
    "error500_retry": [
        {"error": {"status": 500, "type": "api_error", "message": "mock: Internal server error"}, "once": True},
        {"blocks": [{"type": "text", "text": "Answer after a retry."}]},
    ],
    "slow": [
        {"delay": 0.4, "blocks": [{"type": "text", "text": " ".join(f"word{i}" for i in range(60))}]},
    ],
    "slow_after_tool": [
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "echo hello", "description": "Print hello"}}]},
        {"delay": 0.4, "blocks": [{"type": "text", "text": " ".join(f"word{i}" for i in range(60))}]},
    ],
    "two_turns": [
        {"blocks": [{"type": "text", "text": "First answer."}]},
        {"blocks": [
            {"type": "thinking", "thinking": "A second question; answer it too."},
            {"type": "text", "text": "Second answer."},
        ]},
    ],
    "resume": [
        {"blocks": [{"type": "text", "text": "First answer, before the server restarts."}]},
        {"blocks": [{"type": "text", "text": "Answer in the resumed session."}]},
    ],
    "subagent": [
        {"blocks": [
            {"type": "text", "text": "I'll delegate this to a subagent."},
            {"type": "tool_use", "name": "task", "input": {
                "description": "Inspect the folder", "subagent_type": "general",
                "prompt": "[[SUB]] List the files with ls and report."}},
        ]},
        {"blocks": [{"type": "text", "text": "The subagent reported back."}]},
    ],
    "subagent__sub": [
        {"blocks": [
            {"type": "thinking", "thinking": "Run ls."},
            {"type": "tool_use", "name": "bash", "input": {"command": "ls", "description": "List files"}},
        ]},
        {"blocks": [{"type": "text", "text": "The folder holds notes.txt."}]},
    ],
}

LOG_DIR = None
CWD = ""
SEQ = [0]
LOCK = threading.Lock()
PROXY_LOG = []  # requests for other hosts, refused
ERRORS_SENT = set()  # (scenario, step) of `once` errors already answered


def fill(value, cwd):
    if isinstance(value, str):
        return value.replace("{CWD}", cwd)
    if isinstance(value, list):
        return [fill(v, cwd) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, cwd) for k, v in value.items()}
    return value


def cwd_of(req):
    system = req.get("system") or ""
    if isinstance(system, list):
        system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
    found = re.search(r"Working directory: (\S+)", system)
    return found.group(1) if found else CWD


def text_of(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: " + (fmt % args) + "\n")

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def refuse_proxy(self):
        """The mock is also HTTP(S)_PROXY of the agent: any request for another host is logged and refused."""
        with LOCK:
            PROXY_LOG.append(f"{self.command} {self.path}")
            if LOG_DIR:
                with open(os.path.join(LOG_DIR, "refused-proxy-requests.txt"), "a") as f:
                    f.write(f"{time.time():.3f} {self.command} {self.path}\n")
        self.send_json(403, {"type": "error", "error": {"type": "permission_error", "message": "mock: no network"}})

    def do_CONNECT(self):
        self.close_connection = True
        self.refuse_proxy()

    def do_GET(self):
        if not self.path.startswith("/"):
            return self.refuse_proxy()
        if self.path == "/_proxy_log":
            return self.send_json(200, PROXY_LOG)
        if self.path == "/_reset":  # forget which `once` errors were sent (the driver calls it per scenario)
            ERRORS_SENT.clear()
            return self.send_json(200, {"reset": True})
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.path.startswith("/"):
            return self.refuse_proxy()
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
                json.dump({"path": self.path, "body": req}, f, indent=1)
        if not self.path.endswith("/messages"):
            return self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
        messages = req.get("messages") or []
        if not req.get("tools"):
            return self.stream(req, [{"type": "text", "text": "Mock session title"}], 0)
        first_user = next((m for m in messages if m.get("role") == "user"), {})
        if "[[SUB]]" in text_of(first_user) and scenario + "__sub" in SCENARIOS:
            scenario += "__sub"
        script = SCENARIOS.get(scenario, SCENARIOS["plain"])
        step = sum(1 for m in messages if m.get("role") == "assistant")
        index = step
        # a `once` error takes one script slot that no assistant message accounts for
        for i, s in enumerate(script[: index + 1]):
            if s.get("once") and (scenario, i) in ERRORS_SENT:
                index += 1
        if index >= len(script):
            return self.stream(req, [{"type": "text", "text": "Done."}], 0)
        turn = script[index]
        if "error" in turn:
            if turn.get("once"):
                ERRORS_SENT.add((scenario, index))
            err = turn["error"]
            return self.send_json(err["status"], {"type": "error", "error": {"type": err["type"], "message": err["message"]}})
        return self.stream(req, fill(turn["blocks"], cwd_of(req)), turn.get("delay", 0))

    def stream(self, req, blocks, delay):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        msg_id = f"msg_mock{SEQ[0]:04d}"

        def send(event, data):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        try:
            send("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": req.get("model", "mock-model"),
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
            uses_tool = False
            for i, block in enumerate(blocks):
                kind = block["type"]
                if kind == "text":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                    for chunk in chunks(block["text"], 3 if delay else 24):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": chunk}})
                        time.sleep(delay)
                elif kind == "thinking":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                    for chunk in chunks(block["thinking"], 24):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": chunk}})
                    send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": "bW9jay1zaWduYXR1cmU="}})
                elif kind == "tool_use":
                    uses_tool = True
                    tool_id = f"toolu_mock{SEQ[0]:04d}{i}"
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": tool_id, "name": block["name"], "input": {}}})
                    for chunk in chunks(json.dumps(block["input"]), 40):
                        send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": chunk}})
                send("content_block_stop", {"type": "content_block_stop", "index": i})
            send("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if uses_tool else "end_turn", "stop_sequence": None},
                                   "usage": {"output_tokens": 42}})
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
    global LOG_DIR, CWD
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log-dir")
    ap.add_argument("--cwd", default="")
    args = ap.parse_args()
    LOG_DIR, CWD = args.log_dir, args.cwd
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
