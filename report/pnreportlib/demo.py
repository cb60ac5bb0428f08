"""The truth table of `make demo` (demo.json, issue 11) as a figure and a table,
with each cell's run verdict beside it.  A cell whose value is not the expected
one is marked and named at the top."""
import os
from collections import OrderedDict

from . import plots
from .html import Page, esc
from .demo_table import ROWS
from .load import InputError, load_demo, load_run
from .outfile import write_file

SCENARIOS = OrderedDict(ROWS + [("guest", "guest finished")])


def build(path, cell_reports=False):
    """(Page, every cell as expected).  cell_reports: also write each cell's run
    report (DIR/<run>/report.html) and link it."""
    base, doc = load_demo(path)
    cells = doc["cells"]
    scen = list(SCENARIOS)
    for c in cells:
        for k in c["rows"]:
            if k not in scen:
                scen.append(k)
    labels = [f"{c['kernel']}\n{c['topology']}" for c in cells]
    grid = [[(c["rows"][s].get("text", str(c["rows"][s].get("value"))) if s in c["rows"] else "–",
              c["rows"][s].get("pass") if s in c["rows"] else None) for c in cells] for s in scen]
    off = [(s, c) for s in scen for c in cells if s in c["rows"] and c["rows"][s].get("pass") is False]
    page = Page("pnbench demo: truth table")
    page.h(1, "make demo: private memory nodes on stock, isolate and private kernels")
    if off:
        page.banner(f"{len(off)} cell(s) not as expected: " + "; ".join(
            f"{c['kernel']}/{c['topology']}: {SCENARIOS.get(s, s)} is {c['rows'][s].get('text')} "
            f"(expected {c['rows'][s].get('expected')})" for s, c in off[:4]) + (" …" if len(off) > 4 else ""), "fail")
    else:
        page.banner("Every cell came out as expected", "pass")
    page.nav_here()
    title = ("Every cell as expected" if not off else f"{len(off)} of {sum(len(c['rows']) for c in cells)} cells "
             "not as expected (✗)") + ": green as expected, red not"
    page.figure(plots.truth_table([SCENARIOS.get(s, s) for s in scen], labels, grid, title),
                "Each column a kernel × topology cell; the text is the measured value.")
    page.h(2, "Truth table", "table")
    hdr = "<tr><th>scenario</th>" + "".join(f"<th>{esc(c['kernel'])}<br><span class=small>{esc(c['topology'])}</span></th>"
                                            for c in cells) + "</tr>"
    body = []
    for s in scen:
        tds = []
        for c in cells:
            r = c["rows"].get(s)
            if not r:
                tds.append("<td>–</td>")
                continue
            cls = "pass" if r.get("pass") else "fail" if r.get("pass") is False else ""
            tds.append(f'<td class="{cls}">{esc(r.get("text", r.get("value")))}'
                       f'<br><span class="small">expected {esc(r.get("expected"))}</span></td>')
        body.append(f"<tr><td>{esc(SCENARIOS.get(s, s))}</td>{''.join(tds)}</tr>")
    page.add(f"<table><thead>{hdr}</thead><tbody>{''.join(body)}</tbody></table>")
    page.h(2, "Cells", "cells")
    from . import run_report
    trs = []
    for c in cells:
        rel = c.get("run")
        state = verdict = kernel = "–"
        link = None
        if rel:
            try:
                run = load_run(os.path.join(base, rel))
                state, verdict, kernel = run.state, run.doc["verdict"].get("result"), run.kernel_label
                rep = os.path.join(base, rel, "report.html")
                if cell_reports:
                    write_file(rep, run_report.build(run).render())
                if os.path.exists(rep):
                    link = f"{rel}/report.html"
            except InputError as e:
                state = f"unreadable: {e}"
        runcell = f'<a href="{esc(link)}">{esc(rel)}</a>' if link else esc(rel or "–")
        scls = "" if state == "complete" else ' class="warn"'
        trs.append(f"<tr><td>{esc(c['kernel'])}</td><td>{esc(c['topology'])}</td><td>{esc(kernel)}</td>"
                   f"<td>{runcell}</td><td{scls}>{esc(state)}</td><td>{esc(verdict)}</td></tr>")
    page.add("<table><thead><tr><th>kernel</th><th>topology</th><th>release</th><th>run</th><th>state</th>"
             "<th>verdict</th></tr></thead><tbody>" + "".join(trs) + "</tbody></table>")
    page.p("Each cell's own report: pnreport run DIR/<run> (or pnreport demo --cells to write them all).", "small")
    return page, not off
