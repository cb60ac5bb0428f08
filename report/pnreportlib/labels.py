"""Names a reader can tell apart: a matrix point as `size=16M spill=after`
(each JSONPath of the matrix cut to its shortest suffix that is still unique
among the point's paths), and what an `--exec` run ran (`exec -- sleep 1`).

Nothing here truncates: two different points or commands never print alike."""
import json
import shlex



def _steps(path):
    """'$.phases[0].workloads[0].params.size' -> ['phases[0]', 'workloads[0]', 'params', 'size']."""
    parts = [p for p in str(path).split(".") if p]
    return parts[1:] if parts and parts[0] == "$" else parts


def short_paths(paths):
    """{path: shortest suffix of its steps unique among `paths`} (dots kept)."""
    steps = {p: _steps(p) for p in paths}
    out = {}
    for p, s in steps.items():
        for n in range(1, len(s) + 1):
            suf = s[-n:]
            if not any(q != p and t[-n:] == suf for q, t in steps.items()):
                break
        out[p] = ".".join(s[-n:]) if s else str(p)
    return out


def _value(v):
    """A matrix value as the config wrote it: JSON for true/false/null and
    arrays or objects, the text itself for a string."""
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def matrix_label(matrix):
    """'size=16M spill=after' for a point's matrix {JSONPath: value}; '' for none."""
    if not isinstance(matrix, dict) or not matrix:
        return ""
    short = short_paths(list(matrix))
    return " ".join(f"{short[k]}={_value(v)}" for k, v in matrix.items())


def point_label(pk):
    """The same from a comparison's point key (compare._point_key: the matrix
    as sorted JSON, '#N' without a matrix, '*' for the whole run)."""
    if pk in ("#0", "*", None, ""):
        return ""
    if pk.startswith("#"):
        return f"point {pk[1:]}"
    try:
        m = json.loads(pk)
    except ValueError:
        return pk
    return matrix_label(m) if isinstance(m, dict) else pk


def run_config_label(doc):
    """The config's name; for an --exec run also the command it wrapped, so runs
    of different commands are never one series ('exec -- sleep 1')."""
    name = (doc.get("config") or {}).get("name") or "?"
    cmd = doc.get("exec_command")
    if isinstance(cmd, list) and cmd:
        return f"{name} -- {shlex.join(str(c) for c in cmd)}"
    return name
