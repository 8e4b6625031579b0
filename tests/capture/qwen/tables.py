#!/usr/bin/env python3
"""Count message types and members in the Qwen captures (for schemas/qwen/NOTES.md).

usage: tables.py CORPUS_DIR   (the folder holding qwen/, qwen-control/, qwen-session/, acp/)
Prints, per view, `kind  member-path  count  types` lines: every member seen, with the number of
records that carry it and the JSON types of its values.
"""
import collections
import glob
import json
import os
import sys


def kind_of(view, rec):
    if view == "session":
        return "%s/%s" % (rec.get("type"), rec.get("subtype") or "-")
    if view == "acp":
        m = rec["msg"]
        if "method" in m:
            up = ((m.get("params") or {}).get("update") or {}).get("sessionUpdate")
            return "%s %s%s" % ("req" if "id" in m else "notif", m["method"], "/" + up if up else "")
        return "response"
    m = rec["msg"] if view == "control" else rec
    t = m.get("type")
    if t == "stream_event":
        return "stream_event/" + str((m.get("event") or {}).get("type"))
    if t in ("control_request",):
        return "control_request/" + str((m.get("request") or {}).get("subtype"))
    if t == "control_response":
        return "control_response/" + str((m.get("response") or {}).get("subtype"))
    return "%s/%s" % (t, m.get("subtype") or "-")


def walk(obj, prefix, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = prefix + "." + k if prefix else k
            out.append((p, type(v).__name__))
            if k in ("tools", "slash_commands", "availableCommands", "input", "systemPayload", "rawInput"):
                continue
            walk(v, p, out)
    elif isinstance(obj, list):
        for v in obj:
            walk(v, prefix + "[]", out)


def main():
    root = sys.argv[1]
    views = {
        "stream-json": glob.glob(os.path.join(root, "qwen", "*.jsonl")),
        "control": glob.glob(os.path.join(root, "qwen-control", "*.jsonl")),
        "session": glob.glob(os.path.join(root, "qwen-session", "**", "*.jsonl"), recursive=True),
        "acp": glob.glob(os.path.join(root, "acp", "qwen_*.jsonl")),
    }
    for view, files in views.items():
        kinds = collections.Counter()
        members = collections.defaultdict(lambda: [0, set()])
        for f in files:
            for line in open(f):
                rec = json.loads(line)
                if view == "control" and rec.get("dir") == "out":
                    k = "OUT " + kind_of(view, rec)
                elif view == "acp" and rec.get("dir") == "out":
                    k = "OUT " + kind_of(view, rec)
                else:
                    k = kind_of(view, rec)
                kinds[k] += 1
                seen = []
                walk(rec["msg"] if view in ("control", "acp") else rec, "", seen)
                for p, t in set(seen):
                    members[(k, p)][0] += 1
                    members[(k, p)][1].add(t)
        print("## %s (%d files)" % (view, len(files)))
        for k, n in sorted(kinds.items()):
            print("KIND %-60s %d" % (k, n))
        for (k, p), (n, ts) in sorted(members.items()):
            print("  %-45s %-60s %5d %s" % (k, p, n, "|".join(sorted(ts))))


if __name__ == "__main__":
    main()
