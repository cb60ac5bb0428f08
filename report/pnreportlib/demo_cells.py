"""Small readers shared by the demo's truth table (demo_table.py) and its
rows' modules (demo_contract.py, demo_hotadd.py, demo_driver.py): a cell's
key=value files and its rows."""
import os


def kv(path):
    out = {}
    for line in lines(path):
        if "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []


def kvline(text):
    """'rc=0 errno=0 node1=256 ...' -> dict of the key=value words"""
    return dict(w.split("=", 1) for w in (text or "").split() if "=" in w)


def row(value, text, expected, ok, detail=None):
    r = {"value": value, "text": text, "expected": expected, "pass": ok}
    if detail:
        r["detail"] = detail
    return r


def results(cell, name, exp):
    """(key=value results of the guest step name, None: its <name>.txt), or
    (None, the row saying why there are none: it did not run, wrote nothing,
    or wrote error=)"""
    f = kv(os.path.join(cell.path, name + ".txt"))
    if not f:
        r = cell.runs.get(name)
        return None, row(None, "did not run" if not r else f"no {name}.txt (guest run rc {r.get('rc')})",
                         exp, False)
    if f.get("error"):
        return None, row(None, f["error"], exp, False)
    return f, None
