"""Helpers of the report tests: the pnreport CLI, PNG and HTML checks."""
import base64
import html.parser
import io
import os
import struct
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PNREPORT = os.path.join(ROOT, "report", "pnreport.py")
PY = "/usr/bin/python3"


def pnreport(*args, ok=(0,)):
    env = dict(os.environ, PNREPORT_CHECK_OVERLAPS="1")       # figures report overlapping texts
    p = subprocess.run([PY, PNREPORT, *args], capture_output=True, text=True, timeout=300, env=env)
    if ok is not None and p.returncode not in ok:
        raise AssertionError(f"pnreport {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise AssertionError("not a PNG")
    return struct.unpack(">II", data[16:24])


def png_pixels(data):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    return mpimg.imread(io.BytesIO(data), format="png")


def assert_not_blank(tc, data, what, min_var=1e-3, min_ink=0.01):
    """Pixel variance of the grey image, and the share of pixels off the background."""
    import numpy as np
    px = png_pixels(data)
    grey = px[..., :3].mean(axis=2) if px.ndim == 3 else px
    var = float(grey.var())
    bg = np.median(grey)
    ink = float((np.abs(grey - bg) > 0.05).mean())
    tc.assertGreater(var, min_var, f"{what}: pixel variance {var:.2g}: blank")
    tc.assertGreater(ink, min_ink, f"{what}: {ink:.1%} of the pixels differ from the background: blank")
    return var, ink


class Figures(html.parser.HTMLParser):
    """Collects <nav id=figures> references, <figure data-plot> and their <img>s."""

    def __init__(self):
        super().__init__()
        self.refs, self.figs, self.cur, self.imgs_outside = [], {}, None, 0
        self.overlaps = {}
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and "data-plot-ref" in a:
            self.refs.append(a["data-plot-ref"])
        elif tag == "figure" and "data-plot" in a:
            self.cur = a["data-plot"]
            self.figs[self.cur] = []
            self.overlaps[self.cur] = (a.get("data-text-overlaps"), a.get("title"))
        elif tag == "img":
            if self.cur:
                self.figs[self.cur].append(a)
            else:
                self.imgs_outside += 1
        elif tag in ("script", "link", "iframe"):
            if a.get("src") or a.get("href"):
                raise AssertionError(f"external resource <{tag}>: the page must be self-contained")

    def handle_endtag(self, tag):
        if tag == "figure":
            self.cur = None

    def handle_data(self, data):
        self.text.append(data)


def check_page(tc, path, expect_plots=()):
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    f = Figures()
    f.feed(doc)
    tc.assertTrue(f.refs, f"{path}: names no plot")
    tc.assertEqual(len(f.refs), len(set(f.refs)), f"{path}: a plot named twice")
    for name in f.refs:
        tc.assertIn(name, f.figs, f"{path}: names plot {name} but does not contain it")
        imgs = f.figs[name]
        tc.assertEqual(len(imgs), 1, f"{path}: plot {name}: {len(imgs)} images")
        src = imgs[0]["src"]
        tc.assertTrue(src.startswith("data:image/png;base64,"), f"{path}: plot {name} not embedded")
        data = base64.b64decode(src.split(",", 1)[1])
        w, h = png_size(data)
        cw, ch = int(imgs[0]["width"]), int(imgs[0]["height"])
        # the PNG holds PNG_DPI / DPI (150 / 100) times the pixels of its size on the page
        tc.assertTrue(abs(w - cw * 1.5) <= 1.5 and abs(h - ch * 1.5) <= 1.5,
                      f"{path}: plot {name}: PNG {w}x{h}, <img> {cw}x{ch}: not 150 dpi of it")
        tc.assertTrue(300 <= cw <= 2400 and 150 <= ch <= 2400, f"{path}: plot {name}: odd size {cw}x{ch}")
        assert_not_blank(tc, data, f"{path}: plot {name}")
        n_ov, which = f.overlaps[name]
        tc.assertEqual(n_ov, "0", f"{path}: plot {name}: overlapping labels: {which}")
    tc.assertEqual(set(f.refs), set(f.figs), f"{path}: a figure not in the index")
    for p in expect_plots:
        tc.assertIn(p, f.refs, f"{path}: plot {p} missing")
    tc.assertNotRegex(doc, r'(src|href)="(https?:|file:|/)', f"{path}: refers outside itself")
    return doc, f



class Case(unittest.TestCase):
    def has(self, doc, s):
        self.assertTrue(s in doc, f"{s!r} not in the page")

    def lacks(self, doc, s):
        self.assertFalse(s in doc, f"{s!r} in the page")
