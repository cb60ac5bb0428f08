#!/usr/bin/python3
"""Validate pnbench results against the checked-in schema.

usage: validate.py RUN_DIR_OR_JSON [...]

For a run directory it also checks what run.json points at: every collector
CSV named in it exists with the header "t_ns,iteration,phase,..." and the
number of rows run.json claims, and topology.xml when run.json names it.
Exit 0 when everything is valid, 1 otherwise (each problem printed with the
file and the JSON path).
"""
import csv
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.schema.json")


def check_dir(path, doc):
    problems = []
    incomplete = doc.get("status", {}).get("state") != "complete"
    for c in doc.get("collectors", []):
        if c.get("status") != "ok" or not c.get("file"):
            continue
        f = os.path.join(path, c["file"])
        if not os.path.exists(f):
            problems.append(f"{f}: missing (named by $.collectors)")
            continue
        with open(f, newline="") as fh:
            text = fh.read()
        # Rows are appended as they are taken: a run killed mid-write may end
        # in a cut line, which only an incomplete run may have.
        if incomplete and text and not text.endswith("\n"):
            text = text[:text.rfind("\n") + 1]
        rows = list(csv.reader(text.splitlines()))
        if not rows or rows[0][:3] != ["t_ns", "iteration", "phase"]:
            problems.append(f"{f}: header does not start with t_ns,iteration,phase")
            continue
        if c.get("rows") is not None and len(rows) - 1 != c.get("rows"):
            problems.append(f"{f}: {len(rows) - 1} rows, run.json says {c.get('rows')}")
        if c.get("columns") is not None and len(rows[0]) - 3 != c.get("columns"):
            problems.append(f"{f}: {len(rows[0]) - 3} columns, run.json says {c.get('columns')}")
        width = len(rows[0])
        for i, row in enumerate(rows[1:], start=2):
            if len(row) != width:
                problems.append(f"{f}:{i}: {len(row)} fields, header has {width}")
                break
    xml = doc.get("topology_xml")
    if xml and not os.path.exists(os.path.join(path, xml)):
        problems.append(f"{os.path.join(path, xml)}: missing (named by $.topology_xml)")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(SCHEMA) as fh:
        schema = json.load(fh)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for arg in argv[1:]:
        path = arg
        jpath = os.path.join(arg, "run.json") if os.path.isdir(arg) else arg
        try:
            with open(jpath) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            print(f"{jpath}: {e}")
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        problems = [f"{jpath}: $.{'.'.join(str(p) for p in e.absolute_path)}: {e.message}"
                    for e in errors]
        if os.path.isdir(path):
            problems += check_dir(path, doc)
        for p in problems:
            print(p)
        if problems:
            bad += 1
        else:
            print(f"{jpath}: valid (schema_version {doc.get('schema_version')}, "
                  f"status {doc.get('status', {}).get('state')})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
