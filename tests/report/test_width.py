"""The report's text outputs fit a mail (issue 22): `pnreport compare` (two and
three runs, long matrix point labels, the real goldens) and the demo truth table
(three and four kernel models) have no line wider than 100 display columns,
cut no label or cell, and print "us" where the HTML prints "µs".
Run by test_report.py (tests/integration/test-report-v2.sh)."""
import json
import os
import shutil
import tempfile

import make_fixture
from reportcheck import HERE, Case, pnreport

from pnreportlib import compare, demo_table, textout

WIDTH = 100
GOLD = os.path.join(HERE, "golden")
# long matrix points: 'size=16M spill=after policy=preferred_many', and one whose
# label passes 100 columns by itself (two `size` keys keep their whole paths)
POINTS = [{"$.phases[2].workloads[0].params.size": "16M", "$.phases[2].workloads[0].params.spill": "after",
           "$.phases[2].workloads[0].params.policy": "preferred_many"},
          {"$.phases[2].workloads[0].params.size": "16M", "$.phases[2].workloads[0].params.spill": "before",
           "$.phases[2].workloads[0].params.policy": "preferred_many"},
          {"$.phases[0].workloads[0].params.size": "16M", "$.phases[2].workloads[0].params.size": "32M",
           "$.phases[2].workloads[0].params.spill": "after", "$.phases[2].workloads[0].params.policy": "interleave"}]
# the demo's cell texts as `make demo` printed them (README), one list per model
DEMO = {"stock": ["1128 pages", "27511 (7 of 7 probes)", "32768 of 32768 pages", "100 % (16384 pages, 3:1)",
                  "1→2→0, no OOM", "served (bind 1+2, pm 1→2→0)", "migrated to N1=8192, removed", "none"],
        "isolate": ["0 pages", "24592 (7 of 7 probes)", "32768 of 32768 pages", "100 % (16384 pages, 3:1)",
                    "1→0, no OOM", "not served (bind oom_kill, pm 1→0)", "migrated to N0=8192, removed", "none"],
        "private": ["0 pages", "0 (0 of 7 probes)", "32768 of 32768 pages", "100 % (16384 pages, 3:1)",
                    "1→2→0, no OOM", "served (bind 1+2, pm 1→2→0)", "migrated to N0=8192, removed", "none"],
        "june2026": ["0 pages", "0 (0 of 7 probes)", "32768 of 32768 pages through the driver", "not served",
                     "1→0, no OOM (never falls back to another device)", "not served (bind EINVAL, pm 1→0)",
                     "refused (1 busy)", "none"]}
# the contract rows (issue 21), inserted before dmesg: texts as the judges write them
CONTRACT = {"stock": ["8192 of 8192 seen (exit 1), quiet 0", "membind 256/256 without grant, 256/256 with; "
                      "interleave=all 683 on devices without grant", "confined 0 of 2560 on 1; granted 256/256; "
                      "override moved", "cpuset: 256 before, 0 after", "baseline: none/dram 2866.9, private/dram 2866.9"],
            "isolate": ["8192 of 8192 seen (exit 1), quiet 0", "membind 256/256 without grant, 256/256 with; "
                        "interleave=all 683 on devices without grant", "confined 0 of 2560 on 1; granted "
                        "256/256; override moved", "cpuset: 256 before, 0 after", "none 1.0010"],
            "private": ["0 (exit 0), quiet 0", "membind 0/256 without grant, 256/256 with; interleave=all 0 on "
                        "devices without grant", "confined 0 of 2560 on 1; granted 256/256; override refused "
                        "(errno 1)", "cpuset: 256 before, 0 after; opt-out: 256 before, 0 after",
                        "none 1.0010, private 1.0063"],
            "june2026": ["0 (exit 0), quiet 0", "membind 0/256 without grant, 0/256 with; interleave=all 0 on "
                         "devices without grant", "confined 0 of 2560 on 1; granted 0/256; override refused "
                         "(errno 1)", "cpuset: 0 before, 0 after", "none 1.0009, private 1.0041"]}
HOTADD = {"stock": "private first: accepted, ordinary; ordinary first: accepted, ordinary",
          "isolate": "private first: refused, private; ordinary first: refused, ordinary",
          "private": "private first: refused, private; ordinary first: refused, ordinary",
          "june2026": "private first: refused, private; ordinary first: refused, ordinary"}
for _m, _t in CONTRACT.items():
    _t[-1:-1] = [HOTADD[_m]]
    DEMO[_m][-1:-1] = _t


def widest(text):
    return max((textout.width(x), x) for x in text.splitlines())


def with_points(path, kernel, seed, shift=0.0):
    """A fixture run whose one point is repeated as the POINTS matrix points."""
    make_fixture.write_run(path, kernel=kernel, seed=seed, shift=shift)
    jp = os.path.join(path, "run.json")
    with open(jp) as fh:
        doc = json.load(fh)
    p0 = doc["points"][0]
    doc["points"] = [dict(json.loads(json.dumps(p0)), index=i, matrix=m) for i, m in enumerate(POINTS)]
    with open(jp, "w") as fh:
        json.dump(doc, fh)


def pair_labels(text, letter):
    """The metric labels of the '== X vs A' table, continuation lines joined."""
    sect = text.split(f"== {letter} vs A")[1].split("\n\n")[0].splitlines()[1:]
    out = []
    for x in sect:
        if x.startswith("    ") and out:
            out[-1] += " " + x.strip()
        elif x and not x.startswith((" ", "-")) and x != "metric":
            out.append(x)
    return out


def demo_doc(models, off=None):
    cells = []
    for online in ("movable", "kernel"):
        for m in models:
            rows = {k: {"value": None, "text": DEMO[m][i], "expected": "(the model's)",
                        "pass": None if (m, k) == ("isolate", "interleave") else True}
                    for i, (k, _) in enumerate(demo_table.ROWS)}
            if off and off == (m, online):
                rows["pressure"].update(text="7 pages", expected="0 pages", **{"pass": False})
            if m == "june2026":
                del rows["fault"]                 # a run that brought no result: no data
            cells.append({"kernel": m, "model": m, "online": online, "runs": {}, "rows": rows,
                          "topology": "reference-" + ("normal" if online == "kernel" else online),
                          "seconds": 54, "run_seconds": {"probes": 8.0, "pressure": 12.0}})
    return {"cells": cells, "seconds": 156}


def demo_cells(text):
    """{(table, row, column): cell text with its mark}, wrapped cells joined."""
    out, table, key = {}, -1, None
    for x in text.splitlines():
        if x.startswith("device memory onlined"):
            table += 1
        if not x.startswith("  ") or " | " not in x:
            continue
        parts = [p.strip() for p in (x[2:] + " ").split(" | ")]
        key = parts[0] or key
        for i, p in enumerate(parts[1:]):
            k = (table, key, i)
            out[k] = (out[k] + " " + p).strip() if k in out and p else out.get(k, p)
    return out


class Width(Case):
    @classmethod
    def setUpClass(cls):
        cls.T = tempfile.mkdtemp(prefix="pnreport-width.")
        for name, kernel, seed, shift in (("base", "private", 11, 0), ("regressed", "private", 12, 10),
                                          ("stock", "stock", 2, 0)):
            make_fixture.write_run(f"{cls.T}/{name}", kernel=kernel, seed=seed, shift=shift)
            with_points(f"{cls.T}/pt-{name}", kernel, seed, shift)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.T, ignore_errors=True)

    def fits(self, text, what):
        w, line = widest(text)
        self.assertLessEqual(w, WIDTH, f"{what}: {w} columns: {line!r}")

    def test_compare_text_fits_100_columns(self):
        T = self.T
        cases = [[f"{T}/base", f"{T}/regressed"], [f"{T}/base", f"{T}/stock", "--all"],
                 [f"{T}/base", f"{T}/regressed", f"{T}/stock"], [f"{T}/base", f"{T}/regressed", f"{T}/stock", "--all"],
                 [f"{T}/pt-base", f"{T}/pt-regressed", "--all"],
                 [f"{T}/pt-base", f"{T}/pt-regressed", f"{T}/pt-stock", "--all"],
                 [f"{GOLD}/private-exhaust", f"{GOLD}/stock-exhaust", "--all"],
                 [f"{GOLD}/private-exhaust", f"{GOLD}/stock-exhaust", f"{GOLD}/private-interleave", "--all"]]
        for args in cases:
            t = pnreport("compare", *args).stdout
            self.assertIn("result: ", t)
            self.fits(t, " ".join(os.path.basename(a) for a in args))

    def test_compare_text_keeps_every_label_whole(self):
        T = self.T
        res = json.loads(pnreport("compare", f"{T}/pt-base", f"{T}/pt-regressed", "--format", "json").stdout)
        want = [compare.mid(m) for m in res["metrics"]]
        self.assertTrue(any(textout.width(x) > WIDTH for x in want), "a label longer than a line is tested")
        # the point's keys in the order of its sorted JSON (compare._point_key)
        self.assertTrue("[policy=preferred_many size=16M spill=after] explicit: alloc_fault_throughput" in want)
        t = pnreport("compare", f"{T}/pt-base", f"{T}/pt-regressed", "--all").stdout
        got = pair_labels(t, "B")
        self.assertEqual([x.replace(" ", "") for x in got], [x.replace(" ", "") for x in want])
        self.assertEqual(len(set(got)), len(got), "two labels read alike")
        for x in want:
            if textout.width(x) <= WIDTH:
                self.assertIn("\n" + x + "\n", t, "a label that fits a line is on one line")

    def test_compare_text_says_us_and_html_says_micro(self):
        t = pnreport("compare", f"{self.T}/base", f"{self.T}/regressed", "--all").stdout
        self.assertRegex(t, r"\d us ")
        self.assertNotIn("µs", t)
        h = f"{self.T}/c.html"
        pnreport("compare", f"{self.T}/base", f"{self.T}/regressed", "--format", "html", "-o", h)
        with open(h, encoding="utf-8") as fh:
            self.assertIn("µs", fh.read())

    def test_demo_table_fits_100_columns_with_three_and_four_models(self):
        for models in (["stock", "isolate", "private"], ["stock", "isolate", "private", "june2026"]):
            doc = demo_doc(models, off=("private", "movable"))
            text, ok = demo_table.render(doc)
            self.assertFalse(ok)
            self.fits(text, f"{len(models)} models")
            cells = demo_cells(text)
            for t, online in enumerate(("movable", "kernel")):
                cs = [c for c in doc["cells"] if c["online"] == online]
                self.assertEqual(cells[(t, "scenario", len(cs) - 1)], models[-1])
                for i, c in enumerate(cs):
                    for k, _ in demo_table.ROWS:
                        r = c["rows"].get(k)
                        mark = {True: "✓", False: "✗", None: "·"}[r["pass"]] if r else None
                        want = f"{mark} {r['text']}" if r else "–"
                        self.assertEqual(cells[(t, k, i)], want, f"{online} {c['kernel']} {k}")
            self.assertEqual(sum(v.startswith("✗") for v in cells.values()), 1)
            self.assertIn("1 cell(s) not as expected:", text)
            self.assertIn("  private/reference-movable: pressure: got 7 pages, expected 0 pages\n", text)
            self.assertIn("✗ not as expected", text)
