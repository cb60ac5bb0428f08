#!/usr/bin/python3
"""Copy runs of a `make demo` directory here as report goldens, small.

usage: import.py DEMO_DIR CELL RUN [NAME]   e.g. import.py build/demo-check private-reference-kernel exhaust

What changes on the way: run.json is re-serialised compactly (json.dumps with
separators (",", ":"), keys and values unchanged), nodestat.csv is copied as it
is, and the other files of the run (vmstat.csv, zoneinfo.csv, topology.xml,
which the report does not read) are left out.  Nothing else is edited.
"""
import json
import os
import shutil
import sys

LIMIT = 150 * 1024


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    demo, cell, run = argv[1:4]
    name = argv[4] if len(argv) == 5 else f"{cell.split('-')[0]}-{run}"
    src = os.path.join(demo, cell, run)
    dst = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "run.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    with open(os.path.join(dst, "run.json"), "w", encoding="utf-8") as fh:
        json.dump(doc, fh, separators=(",", ":"), ensure_ascii=False)
        fh.write("\n")
    if os.path.exists(os.path.join(src, "nodestat.csv")):
        shutil.copy(os.path.join(src, "nodestat.csv"), dst)
    size = sum(os.path.getsize(os.path.join(dst, f)) for f in os.listdir(dst))
    print(f"{dst}: {size} bytes from {src}")
    if size > LIMIT:
        sys.exit(f"{dst}: {size} bytes, more than {LIMIT}: trim it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
