"""Reading pnbench results: run.json (schema_version first) and collector CSVs.

Everything here raises InputError (message + exit code 2) on input the report
cannot trust; nothing scrapes text output.  An incomplete run loads, marked
(Run.incomplete); only then may a CSV end in a truncated line.
"""
import csv
import json
import os

SCHEMA_VERSIONS = (2,)
DEMO_SCHEMA_VERSIONS = (1,)


class InputError(Exception):
    """Bad input: the message names the file; the CLI exits with .code (2)."""

    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code


def parse_nodelist(s):
    """'1-2,5' -> [1, 2, 5] (kernel cpulist syntax); '' -> []."""
    out = []
    for part in (s or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def read_json(path, what="file"):
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise InputError(f"{path}: missing ({what})")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    try:
        return raw, json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 ({e})")
    except ValueError as e:
        raise InputError(f"{path}: not valid JSON ({e})")


def labels_str(labels):
    """Stable text form of a metric's labels: 'dst=2,src=0' ('' for none)."""
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels or {}))


def metric_id(m):
    """name{labels} as a reader sees it."""
    ls = labels_str(m.get("labels"))
    return f"{m['name']}{{{ls}}}" if ls else m["name"]


class Run:
    """One run directory.  .doc is run.json as loaded; helpers never modify it."""

    def __init__(self, path):
        self.path = path
        if not os.path.exists(path):
            raise InputError(f"{path}: no such run directory")
        jpath = os.path.join(path, "run.json") if os.path.isdir(path) else path
        self.dir = path if os.path.isdir(path) else os.path.dirname(path) or "."
        self.jpath = jpath
        self.raw, doc = read_json(jpath, "run.json of a pnbench run")
        if not isinstance(doc, dict):
            raise InputError(f"{jpath}: not a pnbench run.json (top level is not an object)")
        sv = doc.get("schema_version")
        if sv not in SCHEMA_VERSIONS:
            raise InputError(f"{jpath}: schema_version {sv!r} is not one this report reads "
                             f"({', '.join(map(str, SCHEMA_VERSIONS))}); "
                             + ("regenerate it with this pnbench, or use a report of its version"
                                if isinstance(sv, int) else "is it a pnbench run.json?"))
        for key in ("status", "kernel", "points", "verdict", "roles"):
            if not isinstance(doc.get(key), (dict, list)):
                raise InputError(f"{jpath}: $.{key} missing or not an object/array "
                                 f"(schema_version {sv} requires it)")
        self.doc = doc
        st = doc["status"]
        self.state = st.get("state")
        self.reason = st.get("reason")
        self.incomplete = self.state != "complete"

    # ---- identity ----
    @property
    def kernel_label(self):
        k = self.doc["kernel"]
        s = k.get("series") or {}
        # no mode: stock when the kernel has no private nodes (or names no series)
        stock = s.get("private_nodes_supported") is False or not s.get("id")
        tag = f" [{s.get('mode')}]" if s.get("mode") else (" (stock)" if stock else "")
        return f"{k.get('release', '?')}{tag}"

    @property
    def name(self):
        return os.path.basename(os.path.normpath(self.dir))

    def private_nodes(self):
        return parse_nodelist(self.doc["roles"].get("private"))

    def dram_nodes(self):
        return parse_nodelist(self.doc["roles"].get("dram"))

    # ---- walking the tree ----
    def phases(self):
        """(point, iteration, phase) for every phase of every iteration."""
        for p in self.doc.get("points", []):
            for it in p.get("iterations", []):
                for ph in it.get("phases", []):
                    yield p, it, ph

    def global_phases(self):
        """(global iteration, iteration, phase): the collectors' CSVs number the
        iterations of every point in one sequence (core: global_iter), run.json
        per point."""
        g = -1
        for p in self.doc.get("points", []):
            for it in p.get("iterations", []):
                g += 1
                for ph in it.get("phases", []):
                    yield g, it, ph

    def workloads(self):
        """(point, iteration, phase, index, workload)."""
        for p, it, ph in self.phases():
            for i, w in enumerate(ph.get("workloads", [])):
                yield p, it, ph, i, w

    def summary_metrics(self):
        """(point, summary metric) over every point."""
        for p in self.doc.get("points", []):
            for m in (p.get("summary") or {}).get("metrics", []):
                yield p, m

    def first_table(self, workload, name):
        """The first iteration's table `name` of the first `workload`, with its phase."""
        for _, it, ph, _, w in self.workloads():
            if w.get("workload") == workload:
                for t in w.get("tables") or []:
                    if t.get("name") == name:
                        return ph, t
        return None, None

    def tables(self, name):
        """Every (iteration, phase, workload, table) named `name`."""
        for _, it, ph, _, w in self.workloads():
            for t in w.get("tables") or []:
                if t.get("name") == name:
                    yield it, ph, w, t

    def collector_file(self, name):
        for c in self.doc.get("collectors", []):
            if c.get("collector") == name and c.get("file"):
                return c
        return None

    def read_series(self, collector="nodestat"):
        """(header, rows) of a collector's CSV, or (None, None) when the run has none.

        A short last line is tolerated (dropped) only when the run is incomplete;
        in a complete run it is an error (exit 2), as is a bad header."""
        c = self.collector_file(collector)
        if not c or c.get("status") not in (None, "ok"):
            return None, None
        path = os.path.join(self.dir, c["file"])
        try:
            with open(path, newline="") as fh:
                rows = list(csv.reader(fh))
        except FileNotFoundError:
            if self.incomplete:
                return None, None
            raise InputError(f"{path}: missing (named by $.collectors of {self.jpath})")
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise InputError(f"{path}: {e}")
        if not rows or rows[0][:3] != ["t_ns", "iteration", "phase"]:
            raise InputError(f"{path}: not a pnbench series (header must start t_ns,iteration,phase)")
        header, body = rows[0], rows[1:]
        width = len(header)
        good = []
        for i, r in enumerate(body, start=2):
            ok = len(r) == width
            if ok:
                try:
                    r = [int(r[0]), int(r[1]), r[2]] + [float(x) if x != "" else float("nan")
                                                        for x in r[3:]]
                except ValueError:
                    ok = False
            if not ok:
                if self.incomplete and i == len(body) + 1:
                    break      # the write the interruption cut short
                raise InputError(f"{path}:{i}: malformed row ({len(r)} fields, header has {width})"
                                 + ("" if self.incomplete else "; run.json says the run is complete"))
            good.append(r)
        return header, good


def load_run(path):
    return Run(path)


def load_demo(path):
    """demo.json of `make demo`: {schema_version 1, cells: [...]}; path is its dir or the file."""
    jpath = os.path.join(path, "demo.json") if os.path.isdir(path) else path
    _, doc = read_json(jpath, "demo.json of make demo")
    if not isinstance(doc, dict) or doc.get("schema_version") not in DEMO_SCHEMA_VERSIONS:
        raise InputError(f"{jpath}: demo.json schema_version {doc.get('schema_version') if isinstance(doc, dict) else None!r} "
                         f"is not one this report reads ({', '.join(map(str, DEMO_SCHEMA_VERSIONS))})")
    cells = doc.get("cells")
    if not isinstance(cells, list) or not cells:
        raise InputError(f"{jpath}: $.cells missing or empty")
    for i, c in enumerate(cells):
        for k in ("kernel", "topology", "rows"):
            if k not in c:
                raise InputError(f"{jpath}: $.cells[{i}].{k} missing")
    return os.path.dirname(jpath) or ".", doc
