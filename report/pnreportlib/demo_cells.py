"""Small readers shared by the demo's truth table (demo_table.py) and its
contract rows (demo_contract.py): a cell's key=value files and its rows."""


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
