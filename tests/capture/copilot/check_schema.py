#!/usr/bin/env python3
"""Validate captured Copilot CLI session events against the JSON Schema the CLI ships.

Reads every line of
  tests/corpus/copilot/*.jsonl                          (`copilot -p --output-format json` stdout)
  tests/corpus/copilot-session/**/events.jsonl          (stored session logs, -p and ACP runs)
and validates each event against schemas/copilot/session-events.schema.json (draft-07). The
schema's root is an `anyOf` over one definition per event type (`type` is a `const` in each), so
an event is checked against the definition whose `type` const matches it, which gives readable
errors; an event whose type no definition names is reported as such. The `result` line that
ends a -p run is not a session event (the schema has no definition for it); it is counted apart.
Formats (uuid, date-time) are checked too.

Prints, per source (live / stored), each distinct problem once (event type, JSON path with array
indexes folded, validator message) with a count and the first file:line. Exit status 0 always:
the mismatches are findings, not failures.

Needs the `jsonschema` package (and `rfc3339-validator` for date-time), e.g.
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install jsonschema rfc3339-validator
    /tmp/venv/bin/python tests/capture/copilot/check_schema.py [--repo DIR] [--json]
"""
import argparse
import glob
import json
import os
import re
import sys
from collections import Counter, OrderedDict

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))


def fold(path):
    return re.sub(r"/\d+(?=/|$)", "/*", "/" + "/".join(str(p) for p in path))


def leaves(errors):
    """Errors with anyOf/oneOf drilled down: the branch whose `kind`/`type` const the value meets (else
    the branch with the fewest errors) stands for the union."""
    out = []
    for e in errors:
        if e.validator in ("anyOf", "oneOf") and e.context:
            branches = {}
            for c in e.context:
                branches.setdefault(c.schema_path[0], []).append(c)
            def rank(item):
                errs = item[1]
                tag_miss = any(c.validator == "const" and c.relative_path and c.relative_path[-1] in ("kind", "type")
                               for c in errs)
                return (tag_miss, len(errs))
            best = sorted(branches.items(), key=rank)[0][1]
            out += leaves(best)
        else:
            out.append(e)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default=os.path.abspath(os.path.join(HERE, "..", "..", "..")))
    ap.add_argument("--json", action="store_true", help="print the findings as JSON")
    a = ap.parse_args()
    schema = json.load(open(os.path.join(a.repo, "schemas", "copilot", "session-events.schema.json")))
    by_type = {}
    for branch in schema["definitions"][schema["$ref"].split("/")[-1]]["anyOf"]:
        name = branch["$ref"].split("/")[-1]
        const = schema["definitions"][name]["properties"]["type"].get("const")
        by_type[const] = name
    cls = jsonschema.validators.validator_for(schema)
    checker = cls.FORMAT_CHECKER
    validators = {}

    def validator(name):
        if name not in validators:
            sub = dict(schema, **{"$ref": "#/definitions/%s" % name})
            validators[name] = cls(sub, format_checker=checker)
        return validators[name]

    corpus = os.path.join(a.repo, "tests", "corpus")
    sources = OrderedDict([
        ("live", sorted(glob.glob(os.path.join(corpus, "copilot", "*.jsonl")))),
        ("stored", sorted(glob.glob(os.path.join(corpus, "copilot-session", "**", "events.jsonl"), recursive=True))),
    ])
    report = OrderedDict()
    for src, files in sources.items():
        seen, bad, unknown, results = Counter(), Counter(), Counter(), 0
        problems = OrderedDict()
        for f in files:
            rel = os.path.relpath(f, a.repo)
            for n, line in enumerate(open(f, encoding="utf-8"), 1):
                if not line.strip():
                    continue
                ev = json.loads(line)
                t = ev.get("type")
                if src == "live" and t == "result":
                    results += 1
                    continue
                seen[t] += 1
                name = by_type.get(t)
                if name is None:
                    unknown[t] += 1
                    key = (t, "/type", "no definition for this event type")
                    problems.setdefault(key, [0, "%s:%d" % (rel, n)])[0] += 1
                    continue
                errs = list(validator(name).iter_errors(ev))
                if errs:
                    bad[t] += 1
                for e in leaves(errs):
                    msg = e.message
                    if len(msg) > 300:
                        msg = msg[:300] + "..."
                    key = (t, fold(e.absolute_path), "%s: %s" % (e.validator, msg))
                    problems.setdefault(key, [0, "%s:%d" % (rel, n)])[0] += 1
        report[src] = {"files": len(files), "events": sum(seen.values()), "result_lines": results,
                       "types": dict(sorted(seen.items())), "invalid_by_type": dict(sorted(bad.items())),
                       "unknown_types": dict(unknown),
                       "problems": [{"type": k[0], "path": k[1], "problem": k[2], "count": v[0], "first": v[1]}
                                    for k, v in problems.items()]}
    if a.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return
    for src, r in report.items():
        print("== %s: %d files, %d events (+%d result lines), %d invalid" %
              (src, r["files"], r["events"], r["result_lines"], sum(r["invalid_by_type"].values())))
        for t, c in r["types"].items():
            print("   %-36s %4d  invalid %d" % (t, c, r["invalid_by_type"].get(t, 0)))
        for p in r["problems"]:
            print("  - %s %s: %s  (x%d, first %s)" % (p["type"], p["path"], p["problem"], p["count"], p["first"]))


if __name__ == "__main__":
    main()
