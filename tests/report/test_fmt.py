"""report/pnreportlib/fmt.py against core/lib/fmt.c: the same table of values
through both (the C side by fmt_driver.c, built here with cc), plus the
expected strings of tests/unit/test_fmt.c, and the report's unit dispatch.
Run by test_report.py (tests/integration/test-report-v2.sh)."""
import os
import random
import shutil
import subprocess
import tempfile
import unittest

from reportcheck import HERE, ROOT

from pnreportlib import fmt

KINDS = {"count": fmt.count, "bytes": fmt.bytes_, "bandwidth": fmt.bandwidth, "ns": fmt.ns,
         "ratio": fmt.ratio, "pct": fmt.pct, "number": fmt.number}
# tests/unit/test_fmt.c's expectations, the same strings
EXPECTED = [("count", 0, "0"), ("count", 999, "999"), ("count", 1000, "1,000"), ("count", 105669, "105,669"),
            ("count", -1234567, "-1,234,567"), ("bytes", 512, "512 B"), ("bytes", 1023, "1023 B"),
            ("bytes", 1024, "1.0 KiB"), ("bytes", 1.5 * 2**30, "1.5 GiB"), ("bytes", -2.0 * 2**20, "-2.0 MiB"),
            ("bytes", float("nan"), "-"), ("bandwidth", 1.73847e9, "1.74 GB/s"), ("bandwidth", 1e9, "1.00 GB/s"),
            ("bandwidth", 850e6, "850.0 MB/s"), ("bandwidth", 12e3, "12.0 kB/s"),
            ("bandwidth", float("inf"), "-"), ("ns", 89.34, "89.3 ns"), ("ns", 283, "283 ns"),
            ("ns", 9999, "9999 ns"), ("ns", 12345, "12.3 us"), ("ns", 15.2e6, "15.2 ms"),
            ("ns", 12.5e9, "12.50 s"), ("ratio", 2959.7 / 2913.5, "1.016x"), ("pct", 12.34, "12.3 %"),
            ("number", 4096, "4,096"), ("number", 1234.56, "1,234.6"), ("number", -1999.96, "-2,000.0"),
            ("number", 0.012344, "0.01234"), ("number", float("nan"), "-")]


def value_table(seed=7, n=400):
    """Values around every threshold of fmt.c and random ones over 15 decades."""
    rng = random.Random(seed)
    edges = [0, 1, 99.94, 99.96, 100, 999, 1000, 1023, 1024, 1048575, 1048576, 9999.4, 9999.6, 10e3, 10e6,
             10e9, 1e6, 1e9, 999999, 999999999, 1e15, 123456789012, 2**40, 1234.55, 1234.45, 0.5, 0.012344]
    vals = edges + [-e for e in edges if e]
    vals += [rng.choice((1, -1)) * 10 ** rng.uniform(-3, 15) for _ in range(n)]
    vals += [float(rng.randrange(0, 10**12)) for _ in range(50)]
    return vals


def fmt_driver(tmp):
    """The C formatter as a program, or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    exe = os.path.join(tmp, "fmt_driver")
    subprocess.run([cc, "-std=gnu11", "-O2", "-I", ROOT, "-o", exe, os.path.join(HERE, "fmt_driver.c"),
                    os.path.join(ROOT, "core", "lib", "fmt.c"), "-lm"], check=True, capture_output=True)
    return exe


class Fmt(unittest.TestCase):
    def test_the_c_unit_tests_strings(self):
        for kind, v, want in EXPECTED:
            self.assertEqual(KINDS[kind](v), want, f"{kind} {v!r}")

    def test_same_strings_as_core_lib_fmt_c(self):
        tmp = tempfile.mkdtemp(prefix="pnreport-fmt.")
        try:
            exe = fmt_driver(tmp)
            if exe is None:
                self.skipTest("no C compiler (cc) to build the C formatter")
            lines, py = [], []
            for kind in KINDS:
                for v in value_table():
                    if kind == "count":
                        v = int(v) if abs(v) < 9e18 else 0
                    lines.append(f"{kind} {v!r}")
                    py.append(KINDS[kind](v))
            out = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True, text=True,
                                 check=True).stdout.splitlines()
            self.assertEqual(len(out), len(lines))
            diff = [(q, c, p) for q, c, p in zip(lines, out, py) if c != p]
            self.assertEqual(diff, [], f"{len(diff)} of {len(lines)} differ (input, C, Python)")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_value_by_unit(self):
        self.assertEqual(fmt.value(1.73847e10, "bytes/s"), "17.38 GB/s")
        self.assertEqual(fmt.value(12345, "ns"), "12.3 \u00b5s")
        self.assertEqual(fmt.value(12345, "ns", html=False), "12.3 us")
        self.assertEqual(fmt.value(13773, "pages"), "13,773 pages")
        self.assertEqual(fmt.value(1, "pages"), "1 page")
        self.assertEqual(fmt.value(3 * 2**20, "bytes"), "3.0 MiB")
        self.assertEqual(fmt.value(None, "ns"), "–")
        self.assertEqual(fmt.num(True), "yes")
        self.assertEqual(fmt.num(None), "–")
        self.assertEqual(fmt.pages(2560), "2,560 pages (10.0 MiB)")
        self.assertEqual([fmt.delta_pct(x) for x in (12.34, -4, 0)], ["+12.3 %", "-4.0 %", "0.0 %"])
        self.assertEqual(fmt.scale_for("bytes/s", [2.5e10]), ("GB/s", 1e9))
        self.assertEqual(fmt.scale_for("ns", [12345]), ("\u00b5s", 1e3))
        self.assertEqual(fmt.scale_for("ns", [9999]), ("ns", 1))
