"""Human units: bytes -> KiB..GiB, ns -> ns/µs/ms/s, bytes/s -> GiB/s.

scale_for(unit, values) picks one display unit for a whole axis or column so a
reader compares like with like; fmt() formats one value with its unit."""
import math

BIN = [("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1)]
TIME = [("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1)]


def _pick(table, mag):
    for name, f in table:
        if mag >= f:
            return name, f
    return table[-1]


def scale_for(unit, values):
    """(display unit, divisor) for `unit` given the values it will show."""
    vals = [abs(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    mag = max(vals) if vals else 0
    if unit == "bytes":
        # an axis of mostly-small deltas in GiB is unreadable: stay at MiB below 1 GiB
        return _pick(BIN, mag)
    if unit == "bytes/s":
        n, f = _pick(BIN, mag)
        return n + "/s", f
    if unit == "ns":
        return _pick(TIME, mag)
    return unit or "", 1


def num(v):
    """A number for a table cell: thin-space thousands, ~3 significant digits."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}".replace(",", "\u202f")
    if isinstance(v, float):
        a = abs(v)
        if math.isnan(v):
            return "–"
        if a >= 1e9 or (0 < a < 1e-3):
            return f"{v:.3g}"
        if a >= 100 or v.is_integer():
            return f"{v:,.0f}".replace(",", "\u202f")
        if a >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return str(v)


def fmt(v, unit, scale=None):
    """One value in human units ('1.5 GiB', '180 µs', '8 192 pages')."""
    if v is None or not isinstance(v, (int, float)) or isinstance(v, bool):
        return num(v)
    name, f = scale or scale_for(unit, [v])
    if f == 1:
        return f"{num(v)} {name}".rstrip()
    return f"{num(v / f)} {name}"
