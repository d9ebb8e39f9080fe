#!/usr/bin/env python3
"""Writes the `--json` field lists of docs/commands.md from the contract, contract/json/*.schema.json
(one JSON Schema a command): between `<!-- json-contract -->` and `<!-- end json-contract -->`,
each command's document with its keys, their types (`?`: null when it has no value; the key is
always there) and meaning. A test runs this with --check and validates every command's real
`--json` against the same schemas, so the docs, the contract and the output are one.

    python3 scripts/generate-json-docs.py           # make readme
    python3 scripts/generate-json-docs.py --check   # exit 1 when docs/commands.md is not what the schemas say
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "commands.md")
START, END = "<!-- json-contract -->", "<!-- end json-contract -->"


def type_text(schema):
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    nullable = "null" in types
    base = [t for t in types if t != "null"]
    text = "/".join(base) or "any"
    if text == "array" and isinstance(schema.get("items"), dict):
        text = f"[{type_text(schema['items']).rstrip('?')}]"
    if text == "object" and schema.get("properties"):
        text = "{" + ", ".join(schema["properties"]) + "}"
    return text + ("?" if nullable else "")


def rows(schema):
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict) and schema["items"].get("properties"):
        return "one object an entry: ", schema["items"]["properties"]
    return "", schema.get("properties", {})


def render():
    lines = ["| command | `--json` document (key: type — meaning; `?`: `null` when it has none, never left out) |", "|---|---|"]
    for path in sorted(glob.glob(os.path.join(ROOT, "contract", "json", "*.schema.json"))):
        with open(path) as handle:
            schema = json.load(handle)
        commands = ", ".join(f"`{command}`" for command in schema["x-commands"])
        lead, properties = rows(schema)
        if properties:
            fields = "; ".join(f"`{key}`: {type_text(value)}" + (f" — {value['description']}" if value.get("description") else "")
                               for key, value in properties.items())
        else:
            fields = schema.get("description", type_text(schema))
        lines.append(f"| {commands} | {lead}{fields} |")
    return "\n".join(lines) + "\n"


def main():
    with open(DOC) as handle:
        text = handle.read()
    if START not in text or END not in text:
        sys.exit(f"{DOC} has no {START} … {END} block")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    updated = head + START + "\n" + render() + END + tail
    if "--check" in sys.argv:
        if updated != text:
            sys.exit("docs/commands.md's JSON field lists are not the contract's: run python3 scripts/generate-json-docs.py (make readme)")
        return
    if updated != text:
        with open(DOC, "w") as handle:
            handle.write(updated)


if __name__ == "__main__":
    main()
