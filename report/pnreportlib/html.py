"""Self-contained HTML: one page, inline CSS, plots as base64 PNG <img>s.

Every figure is a <figure id="fig-NAME" data-plot="NAME"> holding one <img> with
its real pixel width and height; the page's figure index (<nav id="figures">)
names each plot exactly once, so a test can check that every plot the page names
is in it."""
import base64
import html

from . import fmt

CSS = """
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1280px;
color:#1b1b1b;line-height:1.4;padding:0 16px}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1em 0;font-size:.9em}
th,td{border:1px solid #d0d0d0;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.banner{padding:10px 14px;border-radius:4px;margin:10px 0;font-weight:bold}
.pass{background:#e3f4e1;color:#185c18}.fail{background:#fbe3e1;color:#8a1c12}
.warn{background:#fff3cd;color:#6b4d00}.info{background:#e8eef7;color:#1d3c6e}
td.pass,td.fail,td.warn{font-weight:bold}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}
img{max-width:100%;height:auto;border:1px solid #eee}
nav#figures{font-size:.85em;color:#555}code{font-size:.9em}
.small{font-size:.85em;color:#555}
div.wide{overflow-x:auto;max-width:100%}
"""


def esc(s):
    return html.escape("" if s is None else str(s))


def cell(v):
    """A table cell's text: numbers by fmt.num, None as "–", True/False as
    yes/no, an object or array as key: value pairs (never Python's repr)."""
    if isinstance(v, dict):
        return ", ".join(f"{k}: {cell(x)}" for k, x in v.items()) or "–"
    if isinstance(v, (list, tuple)):
        return ", ".join(cell(x) for x in v) or "–"
    return fmt.num(v)


class Page:
    def __init__(self, title):
        self.title = title
        self.parts = []
        self.figures = []      # (name, title)
        self.figure_objs = []
        self.nav_at = None

    def nav_here(self):
        """The figure index goes here (default: the end of the page)."""
        self.nav_at = len(self.parts)

    def add(self, s):
        self.parts.append(s)

    def h(self, level, text, id_=None):
        a = f' id="{esc(id_)}"' if id_ else ""
        self.add(f"<h{level}{a}>{esc(text)}</h{level}>")

    def p(self, text, cls=None):
        c = f' class="{cls}"' if cls else ""
        self.add(f"<p{c}>{esc(text)}</p>")

    def banner(self, text, cls):
        self.add(f'<div class="banner {cls}">{esc(text)}</div>')

    def table(self, headers, rows, num_cols=(), cell_class=None, groups=None):
        """rows: lists of cell text; num_cols: indices right-aligned;
        cell_class(r, c, value) -> css class or None; groups: [(text, columns)], a
        header row above `headers` whose cells span that many columns."""
        top = ("<tr>" + "".join(f'<th colspan="{n}">{esc(t)}</th>' if n > 1 else f"<th>{esc(t)}</th>"
                                for t, n in groups) + "</tr>") if groups else ""
        out = ['<div class="wide"><table>' + ("<thead>" + top + "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers)
                            + "</tr></thead>" if headers else "") + "<tbody>"]
        for ri, r in enumerate(rows):
            cells = []
            for ci, v in enumerate(r):
                cls = []
                if ci in num_cols:
                    cls.append("n")
                if cell_class:
                    extra = cell_class(ri, ci, v)
                    if extra:
                        cls.append(extra)
                ca = f' class="{" ".join(cls)}"' if cls else ""
                cells.append(f"<td{ca}>{esc(cell(v))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table></div>")
        self.add("".join(out))

    def figure(self, fig, caption=None):
        """fig: plots.Figure (name, title, png bytes, width, height)."""
        if fig is None:
            return
        self.figures.append((fig.name, fig.title))
        self.figure_objs.append(fig)
        b64 = base64.b64encode(fig.png).decode()
        cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
        ov = getattr(fig, "overlaps", None)
        ova = "" if ov is None else f' data-text-overlaps="{len(ov)}" title="{esc("; ".join(" / ".join(p) for p in ov))}"'
        self.add(f'<figure id="fig-{esc(fig.name)}" data-plot="{esc(fig.name)}"{ova}>'
                 f'<img src="data:image/png;base64,{b64}" width="{fig.width}" height="{fig.height}" '
                 f'alt="{esc(getattr(fig, "conclusion", fig.title))}">{cap}</figure>')

    def render(self):
        nav = ""
        if self.figures:
            nav = ('<nav id="figures">Figures: ' + " · ".join(
                f'<a href="#fig-{esc(n)}" data-plot-ref="{esc(n)}">{esc(t)}</a>'
                for n, t in self.figures) + "</nav>")
        parts = list(self.parts)
        parts.insert(len(parts) if self.nav_at is None else self.nav_at, nav)
        body = "\n".join(parts)
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{esc(self.title)}</title><style>{CSS}</style></head><body>\n"
                f"{body}\n</body></html>\n")
