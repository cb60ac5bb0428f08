"""Reading pnbench results: run.json (schema_version first) and collector CSVs.

Everything here raises InputError (message + exit code 2) on input the report
cannot trust; nothing scrapes text output.  An incomplete run loads, marked
(Run.incomplete); only then may a CSV end in a truncated line.
"""
import json
import os

from .errors import InputError

SCHEMA_VERSIONS = (2,)
MAX_JSON_DEPTH = 64       # run.json nests about 10 levels; deeper is not a pnbench file
DEMO_SCHEMA_VERSIONS = (1,)


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
    return raw, parse_json(raw, path)


def json_depth(doc):
    """How deep objects and arrays nest in doc (a scalar: 0), without recursion."""
    deepest, todo = 0, [(doc, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        deepest = max(deepest, d)
        todo.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return deepest


def parse_json(raw, path):
    """JSON text (bytes or str) of the file `path`; InputError for anything that is
    not JSON or nests deeper than MAX_JSON_DEPTH (no RecursionError escapes)."""
    try:
        doc = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 ({e})")
    except RecursionError:
        raise InputError(f"{path}: not a pnbench file (JSON nested too deeply to read)") from None
    except ValueError as e:
        raise InputError(f"{path}: not valid JSON ({e})")
    depth = json_depth(doc)
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"{path}: not a pnbench file (JSON nested {depth} levels deep, more than {MAX_JSON_DEPTH})")
    return doc


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
        self._series = {}       # read_series: collector -> Series
        self.series_files = None  # check_series: [(file, rows or None)]

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

    def collectors(self):
        """$.collectors, checked: objects whose `file` is null or a file name in the
        run directory (core/runner/run.c writes <collector>.csv there; a path is refused)."""
        cs = self.doc.get("collectors") or []
        if not isinstance(cs, list):
            raise InputError(f"{self.jpath}: $.collectors is not an array")
        for i, c in enumerate(cs):
            if not isinstance(c, dict):
                raise InputError(f"{self.jpath}: $.collectors[{i}] is not an object")
            f = c.get("file")
            if f is not None and (not isinstance(f, str) or not f or "/" in f or f in (".", "..")):
                raise InputError(f"{self.jpath}: $.collectors[{i}].file {f!r} is not a file name in the run directory")
        return cs

    def collector_file(self, name):
        for c in self.collectors():
            if c.get("collector") == name and c.get("file"):
                return c
        return None

    def read_series(self, collector="nodestat", want=None):
        """series.Series of a collector's CSV (keeping the counter columns for
        which want(name) is true), or None when the run has none.  Read once:
        a second call returns the first one's Series.

        A cut last line is tolerated (dropped) only when the run is incomplete;
        in a complete run it is an error (exit 2), as is a bad header or any
        malformed row (named by file and line)."""
        from . import series
        cache = self._series
        if collector in cache:
            return cache[collector]
        c = self.collector_file(collector)
        if not c or c.get("status") not in (None, "ok"):
            return None
        path = os.path.join(self.dir, c["file"])
        if not os.path.exists(path):
            if self.incomplete:
                return None
            raise InputError(f"{path}: missing (named by $.collectors of {self.jpath})")
        cache[collector] = series.read(path, want, self.incomplete)
        return cache[collector]

    def check_series(self):
        """Every series file $.collectors names, read and checked (rows, header,
        numbers; exit 2 on the first bad row): [(file, rows or None when the
        file is absent)].  Only the collector a section draws from (nodestat)
        must be there; the others are checked when present."""
        out = []
        for c in self.collectors():
            f = c.get("file")
            if not f or c.get("status") not in (None, "ok"):
                continue
            if not os.path.exists(os.path.join(self.dir, f)) and c.get("collector") != "nodestat":
                out.append((f, None))
                continue
            s = self.read_series(c.get("collector"))
            out.append((f, len(s) if s is not None else None))
        self.series_files = out
        return out


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
