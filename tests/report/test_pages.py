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


class FigureFiles(Case):
    """--png-dir/--figures writes NAME.png at 150 dpi and NAME.svg, --pdf adds
    NAME.pdf; each renders to something that is not blank."""

    @classmethod
    def setUpClass(cls):
        cls.T = tempfile.mkdtemp(prefix="pnreport-figs.")
        cls.out = f"{cls.T}/exhaust.html"
        pnreport("run", os.path.join(GOLD, "private-exhaust"), "-o", cls.out, "--figures", f"{cls.T}/figs", "--pdf")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.T, ignore_errors=True)

    def names(self):
        return sorted(f[:-4] for f in os.listdir(f"{self.T}/figs") if f.endswith(".png"))

    def test_every_figure_in_three_formats_and_png_at_150_dpi(self):
        from reportcheck import png_size
        names = self.names()
        self.assertEqual(names, ["isolation", "latency_cdf", "nodes", "spill"])
        with open(self.out, encoding="utf-8") as fh:
            doc = fh.read()
        for n in names:
            for ext in ("svg", "pdf"):
                self.assertTrue(os.path.getsize(f"{self.T}/figs/{n}.{ext}") > 1000, f"{n}.{ext}")
            with open(f"{self.T}/figs/{n}.png", "rb") as fh:
                w, h = png_size(fh.read())
            m = re.search(r'data-plot="%s"[^>]*><img [^>]*width="(\d+)" height="(\d+)"' % n, doc)
            self.assertTrue(m, n)
            # the page shows it at its layout size; the file holds 1.5 times the pixels (150 vs 100 dpi)
            for got, css in ((w, int(m.group(1))), (h, int(m.group(2)))):
                self.assertLessEqual(abs(got - css * 1.5), 1.5, f"{n}: {w} x {h} px for {m.group(1)} x {m.group(2)}")

    def test_svg_is_svg_and_renders(self):
        import xml.etree.ElementTree as ET
        for n in self.names():
            root = ET.parse(f"{self.T}/figs/{n}.svg").getroot()
            self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg", n)
            self.assertTrue(any(t.text and t.text.strip() for t in root.iter("{http://www.w3.org/2000/svg}text")),
                            f"{n}.svg: no text element (svg.fonttype none keeps text as text)")
        if not shutil.which("chromium"):
            self.skipTest("chromium not installed: the SVGs parse, rendering them not checked")
        from reportcheck import assert_not_blank
        shot = f"{self.T}/svg.png"
        prof = tempfile.mkdtemp(prefix="pnreport-chromium.")
        try:
            import subprocess
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--no-first-run", f"--user-data-dir={prof}", f"--screenshot={shot}",
                            "--window-size=1200,900", "file://" + f"{self.T}/figs/nodes.svg"],
                           capture_output=True, timeout=120, env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:"))
        finally:
            shutil.rmtree(prof, ignore_errors=True)
        with open(shot, "rb") as fh:
            assert_not_blank(self, fh.read(), "nodes.svg in chromium", min_ink=0.02)

    def test_pdf_is_pdf_and_renders(self):
        for n in self.names():
            with open(f"{self.T}/figs/{n}.pdf", "rb") as fh:
                self.assertEqual(fh.read(5), b"%PDF-", n)
        if not shutil.which("pdftoppm"):
            self.skipTest("pdftoppm not installed (poppler-utils): the PDFs' headers checked, rendering not")
        import subprocess
        from reportcheck import assert_not_blank
        for n in self.names():
            subprocess.run(["pdftoppm", "-r", "60", "-png", "-singlefile", f"{self.T}/figs/{n}.pdf",
                            f"{self.T}/pdf-{n}"], check=True, capture_output=True, timeout=120)
            with open(f"{self.T}/pdf-{n}.png", "rb") as fh:
                assert_not_blank(self, fh.read(), f"{n}.pdf rendered by pdftoppm")
