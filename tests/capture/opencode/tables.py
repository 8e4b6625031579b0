#!/usr/bin/env python3
"""Print the Markdown tables of the corpus READMEs (event types per file, store contents).

usage: tables.py [--corpus tests/corpus] opencode|opencode-run|opencode-store
"""
import argparse
import json
import sqlite3
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def kind(rec):
    """The type of one line: an event's `type` (GlobalEvent: its payload's), an out record's method and path."""
    if "dir" in rec:
        msg = rec["msg"]
        if rec["dir"] == "out":
            path = "/".join("{id}" if p[:4] in ("ses_", "per_", "que_", "msg_") else p for p in msg["path"].split("/"))
            return f"→ {msg['method']} {path}"
        return msg.get("type") or (msg.get("payload") or {}).get("type") or "?"
    return rec.get("type", "?")


def events(folder):
    total = Counter()
    print("| file | lines | types (count) |\n|---|---|---|")
    for f in sorted(folder.glob("*.jsonl")):
        recs = [json.loads(line) for line in f.read_text().splitlines()]
        c = Counter(kind(r) for r in recs)
        total.update(c)
        cells = ", ".join(f"`{k}` {n}" for k, n in sorted(c.items(), key=lambda kv: (kv[0].startswith("→"), kv[0])))
        print(f"| `{f.name}` | {len(recs)} | {cells or '(empty)'} |")
    print("\n| type | lines in all files |\n|---|---|")
    for k, n in sorted(total.items(), key=lambda kv: (kv[0].startswith("→"), kv[0])):
        print(f"| `{k}` | {n} |")


def store(folder):
    db = sqlite3.connect(folder / "opencode.db")
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    print("| table | rows |\n|---|---|")
    for t in tables:
        print(f"| `{t}` | {db.execute(f'SELECT count(*) FROM `{t}`').fetchone()[0]} |")
    print("\n| `event.type` (the per-session event log) | rows |\n|---|---|")
    for t, n in db.execute("SELECT type, count(*) FROM event GROUP BY type ORDER BY type"):
        print(f"| `{t}` | {n} |")
    print("\n| export file | session | parent | title | messages |\n|---|---|---|---|---|")
    for f in sorted((folder / "export").glob("*.json")):
        d = json.loads(f.read_text())
        info = d.get("info", {})
        print(f"| `{f.name}` | `{info.get('id')}` | {('`' + info['parentID'] + '`') if info.get('parentID') else ''} | "
              f"{info.get('title', '')} | {len(d.get('messages', []))} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("folder", choices=["opencode", "opencode-run", "opencode-store"])
    args = ap.parse_args()
    folder = Path(args.corpus) / args.folder
    store(folder) if args.folder == "opencode-store" else events(folder)


if __name__ == "__main__":
    main()
