#!/usr/bin/env python3
"""A mock Anthropic Messages API for the Pi captures (Python 3.11 stdlib, binds 127.0.0.1).

Pi's provider `baseUrl` is `http://127.0.0.1:PORT/s/<scenario>`; its Anthropic client calls
`POST /s/<scenario>/v1/messages` (a query string such as `?beta=true` is ignored).

Which script step answers a request:
- a request without `tools` (Pi's compaction / branch summarizer) gets a short summary text;
- otherwise step N of the scenario, N = the number of assistant messages in the request, plus one
  for each `once` error of the script already answered.

A step is a dict:
- `blocks`: content blocks streamed in order: `{"type": "text", "text"}`, `{"type": "thinking",
  "thinking"}`, `{"type": "tool_use", "name", "input"}`; the stop reason is `tool_use` when a block
  is a tool call, else `end_turn`;
- `error`: `{"status", "type", "message"}`, answered as that HTTP error with Anthropic's error body;
  `"once": true` answers the error only on the first request for that step, then the next step;
- `delay`: seconds to wait after each delta (a slow stream, for interrupts).
`GET /_reset` forgets which `once` errors were sent (the driver calls it before each scenario).

Usage is synthetic and deterministic: `input_tokens` 100 + 10 * step, `cache_read_input_tokens` 40,
`cache_creation_input_tokens` 8 in `message_start`; `output_tokens` 1 there and 20 + the number of
deltas in `message_delta`.

The same port serves as Pi's HTTP_PROXY / HTTPS_PROXY: a CONNECT or an absolute-URL request (anything
for another host) is answered 403 and logged (GET /_proxy_log lists them), so nothing leaves the
machine and the capture can show what Pi tried to reach.

usage: mock_pi.py [--port N] [--port-file F] [--log-dir D]
With --log-dir every request body is saved as <seq>-<scenario>.json (headers are not saved).
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW_TEXT = " ".join(f"word{i}" for i in range(60))
TICKS = "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.5; done"

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
    "bash_ok": [
        {"blocks": [
            {"type": "text", "text": "I'll run the command."},
            {"type": "tool_use", "name": "bash", "input": {"command": "echo hello; echo to-stderr 1>&2"}},
        ]},
        {"blocks": [{"type": "text", "text": "The command printed: hello"}]},
    ],
    "bash_fail": [
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "echo about to fail; ls /nonexistent-dir; exit 3"}}]},
        {"blocks": [{"type": "text", "text": "The command failed with exit code 3."}]},
    ],
    "bash_stream": [
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": TICKS, "timeout": 60}}]},
        {"blocks": [{"type": "text", "text": "The ticks are done."}]},
    ],
    "write": [
        {"blocks": [{"type": "tool_use", "name": "write", "input": {"path": "hello.txt", "content": "hello from mock\nsecond line\n"}}]},
        {"blocks": [{"type": "text", "text": "I created hello.txt."}]},
    ],
    "edit": [
        {"blocks": [
            {"type": "thinking", "thinking": "The file says alpha; replace it with omega."},
            {"type": "tool_use", "name": "edit", "input": {"path": "notes.txt", "edits": [{"oldText": "alpha", "newText": "omega"}]}},
        ]},
        {"blocks": [{"type": "text", "text": "Replaced alpha with omega in notes.txt."}]},
    ],
    "edit_fail": [
        {"blocks": [{"type": "tool_use", "name": "edit", "input": {"path": "notes.txt", "edits": [{"oldText": "no such text", "newText": "x"}]}}]},
        {"blocks": [{"type": "text", "text": "The edit failed: the text was not found."}]},
    ],
    "read": [
        {"blocks": [{"type": "tool_use", "name": "read", "input": {"path": "notes.txt"}}]},
        {"blocks": [{"type": "text", "text": "notes.txt holds alpha and beta."}]},
    ],
    "read_missing": [
        {"blocks": [{"type": "tool_use", "name": "read", "input": {"path": "missing.txt"}}]},
        {"blocks": [{"type": "text", "text": "That file does not exist."}]},
    ],
    "parallel": [
        {"blocks": [
            {"type": "tool_use", "name": "read", "input": {"path": "notes.txt"}},
            {"type": "tool_use", "name": "bash", "input": {"command": "ls"}},
        ]},
        {"blocks": [{"type": "text", "text": "I read the notes and listed the folder."}]},
    ],
    "error400": [
        {"error": {"status": 400, "type": "invalid_request_error", "message": "mock: prompt is invalid"}},
    ],
    "error500": [
        {"error": {"status": 500, "type": "api_error", "message": "mock: Internal server error"}},
    ],
    "error500_retry": [
        {"error": {"status": 500, "type": "api_error", "message": "mock: Internal server error"}, "once": True},
        {"blocks": [{"type": "text", "text": "Answer after a retry."}]},
    ],
    "error529_retry": [
        {"error": {"status": 529, "type": "overloaded_error", "message": "mock: Overloaded"}, "once": True},
        {"blocks": [{"type": "text", "text": "Answer after a retry."}]},
    ],
    "slow": [
        {"delay": 0.3, "blocks": [{"type": "text", "text": SLOW_TEXT}]},
    ],
    "slow_tool": [
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "for i in $(seq 1 60); do echo tick $i; sleep 0.5; done"}}]},
        {"blocks": [{"type": "text", "text": "Not reached unless the tool finishes."}]},
    ],
    "two_turns": [
        {"blocks": [{"type": "text", "text": "First answer."}]},
        {"blocks": [
            {"type": "thinking", "thinking": "A second question; answer it too."},
            {"type": "text", "text": "Second answer."},
        ]},
    ],
    "resume": [
        {"blocks": [{"type": "text", "text": "First answer, before the process exits."}]},
        {"blocks": [{"type": "text", "text": "Answer in the resumed session."}]},
        {"blocks": [{"type": "text", "text": "Answer in the session opened by --session."}]},
    ],
    "steer": [
        {"blocks": [
            {"type": "text", "text": "Starting a slow command."},
            {"type": "tool_use", "name": "bash", "input": {"command": "sleep 2; echo slept"}},
        ]},
        {"blocks": [{"type": "text", "text": "I saw your steering message."}]},
        {"blocks": [{"type": "text", "text": "And this answers the follow-up."}]},
    ],
    "compact": [
        {"blocks": [{"type": "text", "text": "First answer, to be compacted."}]},
        {"blocks": [{"type": "text", "text": "Second answer."}]},
        {"blocks": [{"type": "text", "text": "Answer after compaction."}]},
    ],
}

LOG_DIR = None
SEQ = [0]
LOCK = threading.Lock()
PROXY_LOG = []  # requests for other hosts, refused
ERRORS_SENT = set()  # (scenario, step) of `once` errors already answered


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

    def refuse_proxy(self):
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
        if self.path == "/_reset":
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
        path = self.path.split("?", 1)[0]
        parts = path.split("/")
        scenario = parts[2] if len(parts) > 2 and parts[1] == "s" else "plain"
        with LOCK:
            SEQ[0] += 1
            seq = SEQ[0]
        if LOG_DIR:
            with open(os.path.join(LOG_DIR, f"{seq:04d}-{scenario}.json"), "w") as f:
                json.dump({"path": self.path, "body": req}, f, indent=1)
        if not path.endswith("/messages"):
            return self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
        messages = req.get("messages") or []
        if not req.get("tools"):
            return self.stream(req, [{"type": "text", "text": "## Goal\nMock summary of the conversation so far."}], 0, 0)
        script = SCENARIOS.get(scenario, SCENARIOS["plain"])
        step = sum(1 for m in messages if m.get("role") == "assistant")
        index = step
        for i, s in enumerate(script[: index + 1]):
            if s.get("once") and (scenario, i) in ERRORS_SENT:
                index += 1
        if index >= len(script):
            return self.stream(req, [{"type": "text", "text": "Done."}], 0, step)
        turn = script[index]
        if "error" in turn:
            if turn.get("once"):
                ERRORS_SENT.add((scenario, index))
            err = turn["error"]
            return self.send_json(err["status"], {"type": "error", "error": {"type": err["type"], "message": err["message"]}})
        return self.stream(req, turn["blocks"], turn.get("delay", 0), step)

    def stream(self, req, blocks, delay, step):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        msg_id = f"msg_mock{SEQ[0]:04d}"
        deltas = [0]

        def send(event, data):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        def delta(i, d):
            send("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            deltas[0] += 1
            if delay:
                time.sleep(delay)

        try:
            send("message_start", {"type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": req.get("model", "mock-model"),
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 100 + 10 * step, "output_tokens": 1,
                          "cache_creation_input_tokens": 8, "cache_read_input_tokens": 40}}})
            uses_tool = False
            for i, block in enumerate(blocks):
                kind = block["type"]
                if kind == "text":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                    for chunk in chunks(block["text"], 3 if delay else 24):
                        delta(i, {"type": "text_delta", "text": chunk})
                elif kind == "thinking":
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                    for chunk in chunks(block["thinking"], 24):
                        delta(i, {"type": "thinking_delta", "thinking": chunk})
                    delta(i, {"type": "signature_delta", "signature": "bW9jay1zaWduYXR1cmU="})
                elif kind == "tool_use":
                    uses_tool = True
                    tool_id = f"toolu_mock{SEQ[0]:04d}{i}"
                    send("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": tool_id, "name": block["name"], "input": {}}})
                    for chunk in chunks(json.dumps(block["input"]), 40):
                        delta(i, {"type": "input_json_delta", "partial_json": chunk})
                send("content_block_stop", {"type": "content_block_stop", "index": i})
            send("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if uses_tool else "end_turn", "stop_sequence": None},
                                   "usage": {"output_tokens": 20 + deltas[0]}})
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
