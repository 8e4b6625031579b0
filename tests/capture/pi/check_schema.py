#!/usr/bin/env python3
"""Validate every captured Pi line against schemas/pi/pi.schema.json.

Needs the `jsonschema` package (4.18 or newer), e.g. in a venv:
    python3 -m venv /tmp/pi-venv && /tmp/pi-venv/bin/pip install jsonschema
    /tmp/pi-venv/bin/python tests/capture/pi/check_schema.py [--corpus DIR] [--schema FILE]

Folder -> $def:
    <corpus>/pi/*.jsonl          JsonModeLine          (`pi -p --mode json` stdout)
    <corpus>/pi-rpc/*.jsonl      RpcTranscriptRecord   (transcripts of `pi --mode rpc`)
    <corpus>/pi-session/*.jsonl  SessionFileLine       (~/.pi/agent/sessions files)
Prints each failing line (file:line, the best-matching error) and a count of lines and event types;
exits 1 if a line fails.
"""
import argparse
import collections
import json
import sys
from pathlib import Path

import jsonschema

REPO = Path(__file__).resolve().parents[3]
FOLDERS = {"pi": "JsonModeLine", "pi-rpc": "RpcTranscriptRecord", "pi-session": "SessionFileLine"}


def kind(obj):
    msg = obj.get("msg", obj) if "dir" in obj else obj
    t = msg.get("type", "?")
    if t == "message_update":
        t += ":" + (msg.get("assistantMessageEvent") or {}).get("type", "?")
    elif t == "response":
        t += ":" + str(msg.get("command"))
    elif t == "message" and isinstance(msg.get("message"), dict):
        t += ":" + str(msg["message"].get("role"))
    if "dir" in obj:
        t = obj["dir"] + " " + t
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--schema", default=str(REPO / "schemas" / "pi" / "pi.schema.json"))
    ap.add_argument("--types", action="store_true", help="print the count of each line kind per folder")
    args = ap.parse_args()
    schema = json.loads(Path(args.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    failed = total = 0
    for folder, name in FOLDERS.items():
        sub = dict(schema)
        sub["$ref"] = f"#/$defs/{name}"
        sub.pop("anyOf", None)
        validator = jsonschema.Draft202012Validator(sub)
        kinds = collections.Counter()
        files = sorted((Path(args.corpus) / folder).glob("*.jsonl"))
        for path in files:
            for n, line in enumerate(path.read_text().splitlines(), 1):
                total += 1
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    failed += 1
                    print(f"{path.relative_to(args.corpus)}:{n}: not JSON: {e}")
                    continue
                kinds[kind(obj)] += 1
                error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
                if error is not None:
                    failed += 1
                    where = "/".join(str(p) for p in error.absolute_path)
                    print(f"{path.relative_to(args.corpus)}:{n}: {kind(obj)}: at /{where}: {error.message[:300]}")
        print(f"{folder}: {len(files)} files, {sum(kinds.values())} lines")
        if args.types:
            for k, c in sorted(kinds.items()):
                print(f"    {c:5d}  {k}")
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
