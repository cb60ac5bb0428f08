"""What a reader sees on a run page: no Python or JSON leaking (None, True,
raw objects), no spread for one sample, a failed or skipped workload never
"as expected", the isolation figure's title in its bars' source.  Run by
test_report.py (tests/integration/test-report-v2.sh)."""
import html
import json
import os
import re
import shutil
import tempfile

import make_fixture
from reportcheck import HERE, Case, pnreport

GOLD = os.path.join(HERE, "golden")
LEAKS = (r"\bNone\b", r"\bTrue\b", r"\bFalse\b", r"\{'", r"\{\"", r"\bnan\b", r"\b1 pages\b")


def page_text(path):
    """The page's visible text (figures' base64 dropped, tags removed)."""
    with open(path, encoding="utf-8") as fh:
        t = re.sub(r'src="data:[^"]*"', "", fh.read())
    return html.unescape(re.sub(r"<[^>]+>", " ", t))


def edit(run_dir, fn):
    jp = os.path.join(run_dir, "run.json")
    with open(jp) as fh:
        doc = json.load(fh)
    fn(doc)
    with open(jp, "w") as fh:
        json.dump(doc, fh)


class Pages(Case):
    @classmethod
    def setUpClass(cls):
        cls.T = tempfile.mkdtemp(prefix="pnreport-pages.")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.T, ignore_errors=True)

    def test_no_python_or_json_on_any_golden_page(self):
        for name in sorted(os.listdir(GOLD)):
            if not os.path.isdir(os.path.join(GOLD, name)):
                continue
            out = f"{self.T}/{name}.html"
            pnreport("run", os.path.join(GOLD, name), "-o", out)
            txt = page_text(out)
            for pat in LEAKS:
                m = re.search(r".{0,40}" + pat + r".{0,20}", txt)
                self.assertIsNone(m, f"{name}: {m.group(0) if m else ''!r}")

    def test_one_sample_has_no_spread(self):
        out = f"{self.T}/exhaust.html"
        pnreport("run", os.path.join(GOLD, "private-exhaust"), "-o", out)   # one iteration: n=1
        txt = page_text(out)
        self.assertIn("Metrics (over iterations)", txt)
        self.assertNotRegex(txt, r"± 0\b")
        self.assertNotIn("0.0 %", txt.split("Metrics (over iterations)")[1].split("Workloads")[0])

    def test_failed_or_skipped_workloads_are_never_as_expected(self):
        d = f"{self.T}/failed"
        make_fixture.write_run(d, kernel="private", seed=5, iterations=1)

        def fail_first(doc):
            ws = doc["points"][0]["iterations"][0]["phases"][0]["workloads"]
            ws[0]["status"] = "failed"
            ws[0]["reason"] = "setup: mbind: Invalid argument"
            ws[0].setdefault("outcome", {})["as_expected"] = True     # what a default would claim
            if len(ws) > 1:
                ws[1]["status"] = "skipped"
        edit(d, fail_first)
        out = f"{self.T}/failed.html"
        pnreport("run", d, "-o", out)
        txt = page_text(out)
        self.assertRegex(txt, r"failed\s+\S+\s+NO \(failed\)\s+setup: mbind")

    def test_isolation_title_names_the_bars_source_and_the_events(self):
        d = f"{self.T}/events"
        make_fixture.write_run(d, kernel="stock", seed=6, iterations=1)

        def events_more(doc):
            for n, nv in doc["verdict"]["nodes"].items():
                nv.setdefault("sources", {})["events"] = 121668
        edit(d, events_more)
        out = f"{self.T}/events.html"
        pnreport("run", d, "-o", out)
        with open(out, encoding="utf-8") as fh:
            doc = html.unescape(fh.read())
        m = re.search(r'data-plot="isolation".*?alt="([^"]*)"', doc, re.S)
        self.assertTrue(m, "no isolation figure")
        alt = " ".join(m.group(1).split())
        self.assertIn("by the counters", alt)
        self.assertIn("121,668 pages by the events", alt)
