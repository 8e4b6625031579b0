"""A small ACP (Agent Client Protocol v1) client over stdio for capture_copilot.py.

It records every JSON-RPC line both ways as {"dir": "in"|"out", "ts": <epoch ms>, "msg": {...}}
("in" = agent -> client). It answers session/request_permission by policy (allow -> the
`allow_once` option, reject -> `reject_once`), serves fs/read_text_file and fs/write_text_file from
disk, and answers any other agent request with -32601. prompt() can send session/cancel some
seconds after the first session/update of a given kind.
"""
import json
import os
import signal
import subprocess
import threading
import time

CLIENT_INFO = {"name": "trace-client", "title": "Trace recorder", "version": "0.1.0"}


class Trace:
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
        with self.lock:
            self.f.close()


class Client:
    def __init__(self, argv, env, cwd, trace, stderr, policy="allow"):
        self.cwd, self.trace, self.policy = cwd, trace, policy
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, start_new_session=True)
        self.next_id = 0
        self.watch = None
        self.pending = {}
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, msg):
        self.trace.record("out", msg)
        with self.write_lock:
            try:
                self.proc.stdin.write((json.dumps(msg) + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def request(self, method, params, timeout=120):
        self.next_id += 1
        rid = self.next_id
        done = threading.Event()
        self.pending[rid] = [done, None]
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if not done.wait(timeout):
            raise TimeoutError("no answer to %s in %ss" % (method, timeout))
        return self.pending.pop(rid)[1]

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {"_raw": line}
            self.trace.record("in", msg)
            w = self.watch
            if w and not w[1] and msg.get("method") == "session/update" and \
                    ((msg.get("params") or {}).get("update") or {}).get("sessionUpdate") == w[0]:
                w[1].append(time.time())
            if "method" in msg and "id" in msg:
                threading.Thread(target=self._serve, args=(msg,), daemon=True).start()
            elif "id" in msg and msg["id"] in self.pending:
                self.pending[msg["id"]][1] = msg
                self.pending[msg["id"]][0].set()

    def _reply(self, req, result=None, error=None):
        msg = {"jsonrpc": "2.0", "id": req["id"]}
        if error is not None:
            msg["error"] = error
        else:
            msg["result"] = result
        self.send(msg)

    def _serve(self, req):
        method, p = req["method"], req.get("params") or {}
        try:
            if method == "session/request_permission":
                want = {"allow": "allow_once", "reject": "reject_once"}[self.policy]
                opts = p.get("options") or []
                pick = next((o for o in opts if o.get("kind") == want), opts[0] if opts else None)
                outcome = {"outcome": "selected", "optionId": pick["optionId"]} if pick else {"outcome": "cancelled"}
                return self._reply(req, {"outcome": outcome})
            if method == "fs/read_text_file":
                if not os.path.exists(p["path"]):
                    return self._reply(req, error={"code": -32002, "message": "Resource not found: " + p["path"]})
                with open(p["path"]) as f:
                    lines = f.read().splitlines(keepends=True)
                start = max((p.get("line") or 1) - 1, 0)
                end = start + p["limit"] if p.get("limit") else None
                return self._reply(req, {"content": "".join(lines[start:end])})
            if method == "fs/write_text_file":
                with open(p["path"], "w") as f:
                    f.write(p["content"])
                return self._reply(req, {})
            return self._reply(req, error={"code": -32601, "message": "Method not found: " + method})
        except Exception as e:
            return self._reply(req, error={"code": -32603, "message": "client error: %s" % e})

    def start(self, auth_method=None):
        init = self.request("initialize", {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False},
            "clientInfo": dict(CLIENT_INFO)})
        if "error" in init:
            raise RuntimeError("initialize: %s" % init["error"])
        if auth_method:
            self.request("authenticate", {"methodId": auth_method})

    def new_session(self):
        r = self.request("session/new", {"cwd": self.cwd, "mcpServers": []})
        if "error" in r:
            raise RuntimeError("session/new: %s" % r["error"])
        return r["result"]["sessionId"]

    def set_mode(self, sid, mode):
        r = self.request("session/set_mode", {"sessionId": sid, "modeId": mode})
        if "error" in r:
            raise RuntimeError("session/set_mode: %s" % r["error"])

    def load_session(self, sid):
        r = self.request("session/load", {"sessionId": sid, "cwd": self.cwd, "mcpServers": []})
        return "load=%s" % ("ok" if "result" in r else "ERR(%s)" % r["error"].get("code"))

    def prompt(self, sid, text, cancel_on=None):
        if cancel_on:
            kind, after = cancel_on
            self.watch = (kind, [])

            def canceller():
                seen = self.watch[1]
                deadline = time.time() + 60
                while not seen and time.time() < deadline:
                    time.sleep(0.02)
                if seen:
                    time.sleep(max(0.0, seen[0] + after - time.time()))
                    self.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
            threading.Thread(target=canceller, daemon=True).start()
        r = self.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
        time.sleep(0.5)  # let trailing notifications arrive
        res = r.get("result")
        return "stop=%s" % res.get("stopReason") if isinstance(res, dict) else "ERR(%s)" % (r.get("error") or {}).get("code")

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:  # leftovers of this agent's own process group (started with start_new_session)
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
