#!/usr/bin/env python3
"""Check the captured OpenCode traffic against the OpenAPI document it serves (stdlib only).

Validates (a small JSON Schema validator covering the keywords the document uses):
- every `in` record of `opencode/<scenario>.jsonl` (the `GET /event` stream) against `Event`,
  of `*.api-event.jsonl` against `V2Event`, of `*.global-event.jsonl` against `GlobalEvent`;
- the `response.body` of every `out` record against the response schema of its operation
  (status 200 only);
- `opencode-run/*.jsonl`: each line's `part` against `Part`, an `error` line's `error` against the
  error union of `session.error`; `opencode-store/export/*.json`: `info` against `Session`, each
  message's `info` against `Message`, its parts against `Part`.
Prints each distinct mismatch once (schema location, JSON path with array indexes and ids folded,
what is wrong), with how often it occurs and the first file:line, so the list is short enough to
read. Exit status 0 always: the mismatches are findings, not failures.

usage: check_schema.py [--openapi schemas/opencode/openapi.json] [--corpus tests/corpus/opencode] [--json]
"""
import argparse
import json
import re
import sys
from collections import OrderedDict
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


class Validator:
    def __init__(self, doc):
        self.doc = doc
        self.schemas = doc["components"]["schemas"]

    def resolve(self, ref):
        assert ref.startswith("#/components/schemas/"), ref
        name = ref.split("/")[-1]
        return name, self.schemas[name]

    def validate(self, schema, value, path="$", where=""):
        """Returns a list of (schema name, JSON path, problem, offending value or None)."""
        if schema is True or schema == {}:
            return []
        if schema is False:
            return [(where, path, "no value allowed here", value)]
        if "$ref" in schema:
            name, target = self.resolve(schema["$ref"])
            return self.validate(target, value, path, name)
        errors = []
        if "anyOf" in schema or "oneOf" in schema:
            branches = schema.get("anyOf") or schema.get("oneOf")
            results = [self.validate(b, value, path, where) for b in branches]
            if any(not r for r in results):
                return []
            # report the branch the value's `type` (or closest shape) picks
            best = None
            if isinstance(value, dict) and isinstance(value.get("type"), str):
                for b, r in zip(branches, results):
                    if self.tag_of(b) == value["type"]:
                        best = r
            if best is None:
                best = min(results, key=len)
                if isinstance(value, dict) and "type" in value and all(self.tag_of(b) for b in branches):
                    return [(where, path, f"`type` {json.dumps(value['type'])} is no branch of the union", None)]
            return best
        t = schema.get("type")
        if t is not None and not self.type_ok(t, value):
            return [(where, path, f"expected {t}, got {self.type_name(value)}", value)]
        if "enum" in schema and value not in schema["enum"]:
            errors.append((where, path, f"value not in enum {schema['enum'][:6]}", value))
        if "const" in schema and value != schema["const"]:
            errors.append((where, path, f"value != const {schema['const']}", value))
        if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append((where, path, f"value does not match {schema['pattern']}", value))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                errors.append((where, path, f"value < minimum {schema['minimum']}", value))
            if "maximum" in schema and value > schema["maximum"]:
                errors.append((where, path, f"value > maximum {schema['maximum']}", value))
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                errors.append((where, path, f"value <= exclusiveMinimum {schema['exclusiveMinimum']}", value))
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for req in schema.get("required", []):
                if req not in value:
                    errors.append((where, path, f"required property `{req}` missing", None))
            for k, v in value.items():
                if k in props:
                    errors += self.validate(props[k], v, f"{path}.{k}", where)
                else:
                    extra = schema.get("additionalProperties", True)
                    if extra is False:
                        errors.append((where, path, f"undeclared property `{k}` ({self.type_name(v)})", v))
                    elif isinstance(extra, dict):
                        errors += self.validate(extra, v, f"{path}.{k}", where)
        if isinstance(value, list):
            prefix = schema.get("prefixItems", [])
            for i, v in enumerate(value):
                sub = prefix[i] if i < len(prefix) else schema.get("items")
                if sub is not None:
                    errors += self.validate(sub, v, f"{path}[{i}]", where)
            if "minItems" in schema and len(value) < schema["minItems"]:
                errors.append((where, path, f"fewer items than minItems {schema['minItems']}", len(value)))
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                errors.append((where, path, f"more items than maxItems {schema['maxItems']}", len(value)))
        return errors

    def tag_of(self, branch):
        if "$ref" in branch:
            branch = self.resolve(branch["$ref"])[1]
        t = branch.get("properties", {}).get("type", {}) if isinstance(branch, dict) else {}
        if "const" in t:
            return t["const"]
        if isinstance(t.get("enum"), list) and len(t["enum"]) == 1:
            return t["enum"][0]
        return None

    @staticmethod
    def type_name(v):
        return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
                int: "integer", float: "number"}[type(v)]

    def type_ok(self, t, v):
        if isinstance(t, list):
            return any(self.type_ok(x, v) for x in t)
        name = self.type_name(v)
        if t == "number":
            return name in ("integer", "number")
        if t == "integer":
            return name == "integer" or (name == "number" and float(v).is_integer())
        return name == t


def fold(path):
    """$.properties.parts[3].state -> $.properties.parts[].state (so one mismatch is listed once)."""
    return re.sub(r"\[\d+\]", "[]", path)


def operations(doc):
    ops = []
    for template, methods in doc["paths"].items():
        rx = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)).replace(r"/\*", "/.*") + "$"
        for method, op in methods.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            ok = op["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema")
            ops.append((method.upper(), re.compile(rx), template, ok))
    # literal templates before parameterised ones (/session/status before /session/{sessionID})
    ops.sort(key=lambda o: o[2].count("{"))
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openapi", default=str(REPO / "schemas" / "opencode" / "openapi.json"))
    ap.add_argument("--corpus", default=str(REPO / "tests" / "corpus" / "opencode"))
    ap.add_argument("--json", action="store_true", help="print the findings as JSON")
    args = ap.parse_args()
    doc = json.loads(Path(args.openapi).read_text())
    v = Validator(doc)
    ops = operations(doc)
    found = OrderedDict()  # (kind, where, folded path, message) -> [count, first location]
    checked = {"events": 0, "responses": 0}
    for f in sorted(Path(args.corpus).glob("*.jsonl")):
        root = "V2Event" if f.name.endswith(".api-event.jsonl") else "GlobalEvent" if f.name.endswith(".global-event.jsonl") else "Event"
        for n, line in enumerate(f.read_text().splitlines(), 1):
            rec = json.loads(line)
            msg = rec["msg"]
            if rec["dir"] == "in":
                checked["events"] += 1
                errs = v.validate({"$ref": f"#/components/schemas/{root}"}, msg)
                kind = f"{root} {msg.get('type') or (msg.get('payload') or {}).get('type')}"
            else:
                op = next((o for o in ops if o[0] == msg["method"] and o[1].match(msg["path"].split("?")[0])), None)
                if op is None or op[3] is None or msg["response"]["status"] != 200:
                    continue
                checked["responses"] += 1
                errs = v.validate(op[3], msg["response"]["body"])
                kind = f"{op[0]} {op[2]}"
            for where, path, text, example in errs:
                key = (kind, where, fold(path), text)
                if key not in found:
                    found[key] = [0, f"{f.name}:{n}", example]
                found[key][0] += 1
    # `opencode run --format json`: its `part` against `Part`, an `error` line's `error` against the
    # error union of `session.error`; `opencode export`: `info` against `Session`, each message's
    # `info` against `Message` and its parts against `Part`
    error_union = v.schemas["EventSessionError"]["properties"]["properties"]["properties"]["error"]
    corpus = Path(args.corpus).parent
    checks = []
    for f in sorted((corpus / "opencode-run").glob("*.jsonl")):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            d = json.loads(line)
            if "part" in d:
                checks.append((f"run {d.get('type')} .part", {"$ref": "#/components/schemas/Part"}, d["part"], f"{f.name}:{n}"))
            if d.get("type") == "error":
                checks.append(("run error .error", error_union, d.get("error"), f"{f.name}:{n}"))
    for f in sorted((corpus / "opencode-store" / "export").glob("*.json")):
        d = json.loads(f.read_text())
        checks.append(("export .info", {"$ref": "#/components/schemas/Session"}, d.get("info"), f.name))
        for m in d.get("messages", []):
            checks.append(("export .messages[].info", {"$ref": "#/components/schemas/Message"}, m.get("info"), f.name))
            for part in m.get("parts", []):
                checks.append(("export .messages[].parts[]", {"$ref": "#/components/schemas/Part"}, part, f.name))
    checked["run lines and export objects"] = len(checks)
    for kind, schema, value, loc in checks:
        for where, path, text, example in v.validate(schema, value):
            key = (kind, where, fold(path), text)
            if key not in found:
                found[key] = [0, loc, example]
            found[key][0] += 1
    if args.json:
        print(json.dumps([{"message": k[0], "schema": k[1], "path": k[2], "problem": k[3], "count": c, "first": loc, "example": ex}
                          for k, (c, loc, ex) in found.items()], indent=1))
        return 0
    print(f"checked {', '.join(f'{n} {what}' for what, n in checked.items())}; {len(found)} distinct mismatches")
    for (kind, where, path, text), (count, loc, example) in sorted(found.items()):
        shown = "" if example is None else f" (e.g. {json.dumps(example)[:70]})"
        print(f"- {kind} | {where} | {path}: {text}{shown}  [{count}x, first {loc}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
