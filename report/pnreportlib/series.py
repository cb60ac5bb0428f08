"""The collectors' time series (core/api/series.c): `t_ns,iteration,phase,<raw
counters>`, one row per sample, every counter an integer.

Read column-wise: the rows go through numpy's C parser a chunk at a time and
only the columns a caller asks for are kept (as float64 arrays), so an hour
at 200 ms (18 000 rows of 300+ counters) or ten hours cost a few arrays, not
a Python object per row and field.  Every row is checked all the same: the
column count, t_ns and iteration integers, every counter a finite number.
The first bad row is named by file and line (InputError, exit 2); only in an
incomplete run may the last line be cut short (it is dropped)."""
import itertools
import os

import numpy as np

from .errors import InputError

CHUNK_ROWS = 2048       # lines parsed at a time: bounds the parser's memory
HEAD = ["t_ns", "iteration", "phase"]


class Series:
    """One series file: .header, .t_ns and .iteration (int64), .phase_code
    (int32 into .phase_names), the kept counter columns (.col(name)), and
    .dropped_last when an incomplete run's cut last line was left out."""

    def __init__(self, path, header, t_ns, iteration, phase_code, phase_names, cols, dropped_last=False):
        self.path, self.header = path, header
        self.t_ns, self.iteration, self.phase_code = t_ns, iteration, phase_code
        self.phase_names, self.cols, self.dropped_last = phase_names, cols, dropped_last

    def __len__(self):
        return len(self.t_ns)

    def col(self, name):
        """The column as float64, or None when the file has no such column (or it was not kept)."""
        return self.cols.get(name)

    def phase(self, i):
        return self.phase_names[self.phase_code[i]]

    def take(self, mask):
        """The rows where mask is true, as a Series (this one when that is every row)."""
        if mask.all():
            return self
        return Series(self.path, self.header, self.t_ns[mask], self.iteration[mask], self.phase_code[mask],
                      self.phase_names, {k: v[mask] for k, v in self.cols.items()}, self.dropped_last)

    def segments(self):
        """[(iteration, phase, first_row, last_row_exclusive)] of consecutive rows."""
        n = len(self)
        if not n:
            return []
        change = (np.diff(self.iteration) != 0) | (np.diff(self.phase_code) != 0)
        starts = np.concatenate(([0], np.flatnonzero(change) + 1))
        ends = np.append(starts[1:], n)
        return [(int(self.iteration[a]), self.phase(a), int(a), int(b)) for a, b in zip(starts, ends)]


def _bad(path, line, what, incomplete):
    return InputError(f"{path}:{line}: {what}" + ("" if incomplete else "; run.json says the run is complete"))


def _fields(lines, width):
    """Check each line's field count and take its t_ns, iteration and phase:
    (t, it, phases) or (index of the first bad line, why)."""
    n = len(lines)
    t = np.empty(n, np.int64)
    it = np.empty(n, np.int64)
    phases = [None] * n
    for j, ln in enumerate(lines):
        nf = ln.count(",") + 1
        if nf != width or not ln.endswith("\n"):
            why = f"{nf} fields, header has {width}" if nf != width else "line cut short (no newline)"
            return j, f"malformed row ({why})"
        a = ln.find(",")
        b = ln.find(",", a + 1)
        c = ln.find(",", b + 1)
        phases[j] = ln[b + 1:c if c >= 0 else -1]
        try:
            t[j], it[j] = int(ln[:a]), int(ln[a + 1:b])
        except (ValueError, OverflowError):
            return j, f"malformed row (t_ns {ln[:a]!r}, iteration {ln[a + 1:b]!r}: not integers)"
    return t, it, phases


def _first_bad_number(lines, header):
    """(index, why) of the first line whose counters are not all finite numbers."""
    for j, ln in enumerate(lines):
        for k, f in enumerate(ln.rstrip("\n").split(",")[3:]):
            try:
                ok = np.isfinite(float(f))
            except ValueError:
                ok = False
            if not ok:
                return j, f"malformed row (column {header[3 + k]}: {f!r} is not a finite number)"
    return None, None


def _chunk_values(lines, header):
    """The counters of a chunk (lines of checked field counts) as a 2-D float64
    array, or (index, why) of its first bad line."""
    try:
        vals = np.loadtxt(lines, delimiter=",", dtype=np.float64, ndmin=2, comments=None,
                          usecols=range(3, len(header)))
    except ValueError as e:
        j, why = _first_bad_number(lines, header)
        return (j, why) if j is not None else (0, f"malformed row in this block of {len(lines)} ({e})")
    if not np.isfinite(vals).all():
        return _first_bad_number(lines, header)
    return vals


def _chunk(lines, header):
    """(t, it, phases, counters or None) of a chunk, or (index of its first bad line, why)."""
    got = _fields(lines, len(header))
    if len(got) == 2:
        return got
    v = _chunk_values(lines, header) if len(header) > 3 else None
    return v if isinstance(v, tuple) else got + (v,)


def read(path, want=None, incomplete=False):
    """Series of the file at `path`, keeping the counter columns for which
    want(name) is true (None: none).  InputError names the file and the line."""
    try:
        fh = open(path, encoding="utf-8", newline="")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    with fh:
        try:
            return _read(fh, path, want, incomplete)
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 text ({e.reason} in a line)")
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}")


def _read(fh, path, want, incomplete):
    header = fh.readline().rstrip("\n").split(",")
    if header[:3] != HEAD:
        raise InputError(f"{path}:1: not a pnbench series (header must start t_ns,iteration,phase)")
    names = header[3:]
    seen = set()
    for k, h in enumerate(names):
        if not h or h in seen:
            raise InputError(f"{path}:1: column {k + 4} is {'empty' if not h else 'a repeat of ' + h}")
        seen.add(h)
    keep = [k for k, h in enumerate(names) if want and want(h)]
    pmap = {}
    ts, its, codes = [], [], []
    # the kept columns, one contiguous row each, sized from the file (untouched
    # slack costs no memory); grown by doubling if the guess was short
    est = CHUNK_ROWS
    try:
        est += int(os.fstat(fh.fileno()).st_size / max(1, 2 * len(header)) * 1.1)
    except OSError:
        pass
    m = np.empty((len(keep), est if keep else 0))
    nrows = 0
    line0, dropped = 2, False
    while True:
        lines = list(itertools.islice(fh, CHUNK_ROWS))
        if not lines:
            break
        got = _chunk(lines, header)
        if len(got) == 2:
            j, why = got
            if not (incomplete and j == len(lines) - 1 and not fh.read(1)):
                raise _bad(path, line0 + j, why, incomplete)
            dropped = True      # the write the interruption cut short
            lines = lines[:j]
            got = _chunk(lines, header) if lines else (np.empty(0, np.int64),) * 2 + ([], None)
        t, it, phases, v = got
        ts.append(t)
        its.append(it)
        codes.append(np.fromiter((pmap.setdefault(p, len(pmap)) for p in phases), np.int32, len(phases)))
        if keep:
            if nrows + len(lines) > m.shape[1]:
                m2 = np.empty((len(keep), 2 * (nrows + len(lines))))
                m2[:, :nrows] = m[:, :nrows]
                m = m2
            m[:, nrows:nrows + len(lines)] = v[:, keep].T
        nrows += len(lines)
        line0 += len(lines)
    cat = (lambda xs, dt: np.concatenate(xs) if xs else np.empty(0, dt))
    cols = {}
    if keep:
        cols = {names[k]: m[i, :nrows] for i, k in enumerate(keep)}
    return Series(path, header, cat(ts, np.int64), cat(its, np.int64), cat(codes, np.int32),
                  list(pmap), cols, dropped)


def decimate(x, segs, ys, buckets):
    """Row indices to draw when there are more rows than pixels: per segment and
    per bucket of the x range (`buckets` of them across it), the first and last
    row and the rows of each of `ys`' minimum and maximum, so a one-sample peak
    survives.  Every row when there are fewer than 4 per bucket, or when x goes
    backwards (a clock step: buckets would not be contiguous).  Sorted."""
    n = len(x)
    if n <= 4 * buckets:
        return np.arange(n)
    span = max(float(x[-1] - x[0]), 1e-12)
    seg_id = np.zeros(n, np.int64)
    for i, (_, _, a, b) in enumerate(segs):
        seg_id[a:b] = i
    key = seg_id * (buckets + 1) + np.clip(((x - x[0]) / span * buckets).astype(np.int64), 0, buckets)
    step = np.diff(key)
    if np.any(step < 0):
        return np.arange(n)
    starts = np.concatenate(([0], np.flatnonzero(step) + 1))
    ends = np.append(starts[1:], n) - 1
    keep = [starts, ends]
    for v in ys:
        order = np.lexsort((v, key))            # by bucket, then value; NaN last
        keep += [order[starts], order[ends]]
    return np.unique(np.concatenate(keep))
