"""Numbers for people: the rules of core/lib/fmt.c, string for string, so the
terminal and every report page print a reading the same way.

  counts      thousands separators             105,669
  bytes       IEC, one decimal                  1.5 GiB, 512 B
  bandwidth   decimal GB/s (MLC, data sheets)   1.74 GB/s, 850.0 MB/s
  latency     ns below 10 us, us below 10 ms    283 ns, 12.3 us, 15.2 ms
  ratio       three decimals                    1.016x
  percent     one decimal                       12.3 %
  number      whole values as counts, else one decimal from 1,000, else 4
              significant digits                4,096, 1,234.6, 0.01234

NaN and infinities print as "-" (as in C); a missing value (None) as "–".
value(v, unit) picks the rule by a metric's unit (run.json's unit strings);
html=True writes "µs" where the terminal writes "us".  scale_for() is for
axes only: one unit for every tick of an axis, chosen by the same thresholds."""
import math

MISSING = "–"
IEC = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def count(v):
    """pn_fmt_count: an integer with ',' every three digits."""
    if v is None:
        return MISSING
    if not _finite(v):
        return "-"
    return f"{int(v):,}"


def bytes_(v):
    """pn_fmt_bytes: IEC with one decimal; below 1 KiB whole bytes."""
    if v is None:
        return MISSING
    if not _finite(v):
        return "-"
    a, u = abs(float(v)), 0
    while a >= 1024 and u + 1 < len(IEC):
        a /= 1024
        u += 1
    if u == 0:
        return f"{float(v):.0f} B"
    return f"{'-' if v < 0 else ''}{a:.1f} {IEC[u]}"


def bandwidth(v):
    """pn_fmt_bandwidth: decimal GB/s (two decimals), MB/s, kB/s (one)."""
    if v is None:
        return MISSING
    if not _finite(v):
        return "-"
    v = float(v)
    if abs(v) >= 1e9:
        return f"{v / 1e9:.2f} GB/s"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.1f} MB/s"
    return f"{v / 1e3:.1f} kB/s"


def ns(v, html=False):
    """pn_fmt_ns: ns below 10 us (one decimal below 100 ns), us below 10 ms,
    ms below 10 s, then s."""
    if v is None:
        return MISSING
    if not _finite(v):
        return "-"
    v = float(v)
    a = abs(v)
    if a < 100:
        s = f"{v:.1f} ns"
    elif a < 10e3:
        s = f"{v:.0f} ns"
    elif a < 10e6:
        s = f"{v / 1e3:.1f} us"
    elif a < 10e9:
        s = f"{v / 1e6:.1f} ms"
    else:
        s = f"{v / 1e9:.2f} s"
    return s.replace(" us", " \u00b5s") if html else s


def ratio(v):
    if v is None:
        return MISSING
    return f"{float(v):.3f}x" if _finite(v) else "-"


def pct(v):
    if v is None:
        return MISSING
    return f"{float(v):.1f} %" if _finite(v) else "-"


def delta_pct(v):
    """A signed change: '+12.3 %', '-4.0 %' (pct with its sign)."""
    if v is None:
        return MISSING
    return ("+" if _finite(v) and v > 0 else "") + pct(v)


def number(v):
    """pn_fmt_number: whole values as counts, from 1,000 one decimal grouped
    (rounded half away from zero, as llround), else %.4g."""
    if v is None:
        return MISSING
    if not _finite(v):
        return "-"
    v = float(v)
    if v == math.floor(v) and abs(v) < 9.2e18:
        return f"{int(v):,}"
    if 1000 <= abs(v) < 1e15:
        x = abs(v) * 10
        tenths = int(math.floor(x))
        tenths += x - tenths >= 0.5       # llround: half away from zero, no x + 0.5 rounding
        return f"{'-' if v < 0 else ''}{tenths // 10:,}.{tenths % 10}"
    return f"{v:.4g}"


def num(v):
    """A table cell: numbers by number(), yes/no for booleans, None as "–",
    anything else as its text."""
    if v is None:
        return MISSING
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return number(v)
    return str(v)


def value(v, unit, html=True):
    """One reading with its unit, by run.json's unit string ('bytes', 'bytes/s',
    'ns', '%', 'ratio', 'pages', 'count', ''...)."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
        return num(v)
    if unit == "bytes":
        return bytes_(v)
    if unit == "bytes/s":
        return bandwidth(v)
    if unit == "ns":
        return ns(v, html)
    if unit in ("%", "percent"):
        return pct(v)
    if unit == "ratio":
        return ratio(v)
    if unit in ("pages", "count") and _finite(v):
        s = number(v)
        return s if unit == "count" else f"{s} page{'' if v == 1 else 's'}"
    return f"{number(v)} {unit or ''}".rstrip()


def pages(n, page_size=4096):
    """'1,234 pages (4.8 MiB)'; '1 page (4.0 KiB)'."""
    return f"{value(n, 'pages')} ({bytes_(n * page_size)})" if _finite(n) else num(n)


# ---- axes: one unit for every tick, by the thresholds above
_TIME = [("s", 10e9, 1e9), ("ms", 10e6, 1e6), ("\u00b5s", 10e3, 1e3), ("ns", 0, 1)]
_BW = [("GB/s", 1e9, 1e9), ("MB/s", 1e6, 1e6), ("kB/s", 0, 1e3)]


def scale_for(unit, values):
    """(axis unit, divisor) for `unit` given the largest of the values it shows."""
    vals = [abs(v) for v in values if _finite(v)]
    mag = max(vals) if vals else 0
    if unit == "bytes":
        for i in range(len(IEC) - 1, -1, -1):
            if mag >= 1024 ** i:
                return IEC[i], float(1024 ** i)
        return "B", 1.0
    table = {"ns": _TIME, "bytes/s": _BW}.get(unit)
    if table is None:
        return unit or "", 1
    return next((n, f) for n, lo, f in table if mag >= lo)
