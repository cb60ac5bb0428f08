"""Command table of pnreport (perf/git style: {name: fn}, each cmd_* thin).

Exit codes: 0 done (compare: no regression), 1 regression found with
--fail-on-regression (compare) or a demo cell off its expected value
(demo --check), 4 compare --fail-on-regression could judge nothing (fewer
than 3 samples a side and no isolation regression), 2 bad input or usage (missing file, wrong schema_version,
malformed CSV, an incomplete run where a verdict is asked for) or an output that cannot be written (a full
disk, a missing directory, a symbolic link or FIFO in its place).  Never a traceback for any of these."""
import argparse
import os
import sys

from .load import InputError, load_run
from .outfile import make_dirs, write_file


def _figure_formats(a):
    """The vector formats every figure is drawn in too: SVG beside each PNG of
    --png-dir, PDF as well with --pdf (set before anything is drawn)."""
    from . import plots
    if getattr(a, "pdf", False) and not a.png_dir:
        a.png_dir = os.path.join(os.path.dirname(a.output) if a.output else a.dir, "figures")
    plots.FORMATS = (("svg",) if a.png_dir else ()) + (("pdf",) if getattr(a, "pdf", False) else ())


def _png_dir(page_figs, d):
    """Every figure as NAME.png (plots.PNG_DPI) and NAME.svg / NAME.pdf when drawn so."""
    make_dirs(d)
    for f in page_figs:
        write_file(os.path.join(d, f.name + ".png"), f.png)
        for ext, data in sorted(f.vector.items()):
            write_file(os.path.join(d, f"{f.name}.{ext}"), data)


def cmd_run(a):
    from . import run_report
    if os.path.isdir(a.dir) and os.path.exists(os.path.join(a.dir, "demo.json")) \
            and not os.path.exists(os.path.join(a.dir, "run.json")):
        return cmd_demo(a)
    run = load_run(a.dir)
    if run.incomplete:
        print(f"pnreport: {run.jpath}: run is {run.state} ({run.reason}); the report is marked so",
              file=sys.stderr)
    _figure_formats(a)
    page = run_report.build(run)
    out = a.output or os.path.join(run.dir, "report.html")
    write_file(out, page.render())
    if a.png_dir:
        _png_dir(page.figure_objs, a.png_dir)
    print(out)
    return 0


def cmd_demo(a):
    from . import demo
    if getattr(a, "png_dir", None):
        _figure_formats(a)
    page, ok = demo.build(a.dir, getattr(a, "cells", False))
    out = a.output or os.path.join(a.dir, "report.html")
    write_file(out, page.render())
    if getattr(a, "png_dir", None):
        _png_dir(page.figure_objs, a.png_dir)
    print(out)
    return 1 if getattr(a, "check", False) and not ok else 0


def cmd_demo_table(a):
    from . import demo_table
    return demo_table.main(a)


def cmd_compare(a):
    """compare A B [C…], or compare --db INDEX (groups.py selects the runs); one output."""
    from . import compare
    cfg = compare.load_config(a.config)
    if a.db:
        from . import groups
        if a.runs:
            raise InputError("compare --db selects runs from the index: give no run directories")
        res = groups.compare_index(a, cfg)
    else:
        res = compare.compare_dirs(a, cfg)
    return compare.emit(a, cfg, res)


def cmd_dashboard(a):
    from . import dashboard
    return dashboard.main(a)


def cmd_load(a):
    from . import dashboard
    return dashboard.main_load(a)


def cmd_index_init(a):
    from . import indexdb
    indexdb.init_postgresql(a.db, a.loader, a.reader)
    print(f"index-init: {indexdb.redact(a.db)}: index.sql applied, index version {indexdb.INDEX_VERSION}"
          + (f"; {a.loader} may insert" if a.loader else "") + (f"; {a.reader} may select" if a.reader else ""))
    return 0


def cmd_plot(a):
    """The per-node memory figure alone: SVG or PDF when -o ends so, else PNG
    (default DIR/nodes.png)."""
    from . import plots, run_report
    out = a.output or os.path.join(a.dir, "nodes.png")
    ext = os.path.splitext(out)[1].lower().lstrip(".")
    ext = ext if ext in ("svg", "pdf") else "png"
    plots.FORMATS = (ext,) if ext != "png" else ()
    run = load_run(a.dir)
    ser = run.read_series("nodestat", plots.node_column)
    if ser is None or not len(ser):
        raise InputError(f"{run.dir}: no nodestat samples (the run had no nodestat collector)")
    _, concl = run_report.isolation_model(run)
    fig = plots.nodes_over_time(run, ser, concl)
    write_file(out, fig.png if ext == "png" else fig.vector[ext])
    print(out)
    return 0


def cmd_summary(a):
    from . import summary
    return summary.main(a)


EPILOG = """exit codes: 0 done; 1 a regression (compare --fail-on-regression) or a demo
cell not as expected (demo --check, demo-table); 2 bad input or usage (a missing
file or directory, an unknown schema_version, a malformed CSV, an incomplete run
where a verdict is asked for) or an output that cannot be written (a full disk,
a symbolic link or FIFO in its place; the message names the file); 4 compare
--fail-on-regression could judge nothing.  See report/README.md."""


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with the message prefixed like every other error."""

    def error(self, message):
        self.print_usage(sys.stderr)
        cmd = self.prog.split(" ", 1)[1] + ": " if " " in self.prog else ""
        print(f"pnreport: {cmd}{message}", file=sys.stderr)
        sys.exit(2)


def parser():
    ap = _Parser(prog="pnreport", description="reports on pnbench results (run.json schema_version 2 and "
                 "the collector CSVs)", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND", title="commands",
                            parser_class=_Parser)
    r = sub.add_parser("run", help="one self-contained HTML page for a run (or a make demo directory)")
    r.add_argument("dir")
    r.add_argument("-o", "--output", help="HTML file (default DIR/report.html)")
    r.add_argument("--png-dir", "--figures", dest="png_dir",
                   help="also write every plot here as NAME.png (150 dpi) and NAME.svg")
    r.add_argument("--pdf", action="store_true",
                   help="also NAME.pdf of every plot (in --png-dir, default figures/ beside the report)")
    r.set_defaults(fn=cmd_run)
    d = sub.add_parser("demo", help="the truth table of make demo (DIR holds demo.json)")
    d.add_argument("dir")
    d.add_argument("-o", "--output")
    d.add_argument("--png-dir")
    d.add_argument("--check", action="store_true", help="exit 1 when a cell is not as expected")
    d.add_argument("--cells", action="store_true", help="also write each cell's run report and link it")
    d.set_defaults(fn=cmd_demo)
    t = sub.add_parser("demo-table", help="judge make demo's cells: write DIR/demo.json, print the truth table")
    t.add_argument("dir")
    t.add_argument("--seconds", type=int, help="the demo's wall time, recorded in demo.json")
    t.add_argument("--models", help="only the columns of these kernel models (space or comma separated: "
                                    "stock isolate private june2026)")
    t.set_defaults(fn=cmd_demo_table)
    c = sub.add_parser("compare", help="runs side by side (first = baseline), statistics, regression gate")
    c.add_argument("runs", nargs="*", help="run directories (first = baseline); or with --db, none")
    c.add_argument("--db", help="compare groups of runs in an index (SQLite file or postgresql:// URL)")
    c.add_argument("--by", choices=("kernel", "group", "host", "mode", "campaign"),
                   help="with --db: one column per value of this (default kernel)")
    c.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="with --db: only runs with this (kernel, group, host, mode, campaign, config; repeatable, "
                        "AND across keys, OR within one)")
    c.add_argument("--baseline", help="with --db: the --by value that is the baseline (default the first sorted)")
    c.add_argument("--per", choices=("iteration", "run"), default="iteration",
                   help="with --db: a sample is one iteration (pooled) or one run's mean")
    c.add_argument("--format", choices=("text", "html", "json"), default="text")
    c.add_argument("-o", "--output", help="write here instead of stdout")
    c.add_argument("--config", help="thresholds and noise floors (JSON; default report/compare.json)")
    c.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a metric regresses")
    c.add_argument("--allow-incomplete", action="store_true",
                   help="compare incomplete runs too (marked); default: refuse with exit 2")
    c.add_argument("--all", action="store_true", help="text: list unchanged metrics too")
    c.set_defaults(fn=cmd_compare)
    b = sub.add_parser("dashboard", help="index results into SQLite, write history pages and CSV")
    b.add_argument("results", nargs="*", help="run directories, or directories holding them, or OpenMetrics "
                                              "files (.prom/.om) or a directory of them (none: pages of "
                                              "the index as it is)")
    b.add_argument("--db", default="results/index.sqlite",
                   help="SQLite index (created; appended to) or postgresql:// URL (index-init first)")
    b.add_argument("-o", "--output", default="results/dashboard", help="directory of the HTML pages")
    b.add_argument("--csv", help="export every metric sample to this CSV file")
    b.add_argument("--sql", help="also write every row as portable INSERTs (psql -f report/index.sql -f FILE)")
    b.add_argument("--config", help="compare config for the regression marks")
    b.set_defaults(fn=cmd_dashboard)
    ld = sub.add_parser("load", help="index results only (SQLite, or PostgreSQL with an insert-only role)")
    ld.add_argument("results", nargs="+", help="run directories, or directories holding them")
    ld.add_argument("--db", required=True, help="SQLite file or postgresql:// URL")
    ld.add_argument("--dry-run", action="store_true", help="insert, count, roll back: what would be added")
    ld.set_defaults(fn=cmd_load)
    ii = sub.add_parser("index-init", help="create a shared PostgreSQL index (as its owner) and grant roles")
    ii.add_argument("--db", required=True, help="postgresql:// URL of the database, as a role that owns it")
    ii.add_argument("--loader", help="existing role that may only insert (pnreport load)")
    ii.add_argument("--reader", help="existing role that may only select (dashboard, compare --db)")
    ii.set_defaults(fn=cmd_index_init)
    pl = sub.add_parser("plot", help="memory per node over time as a PNG, SVG or PDF")
    pl.add_argument("dir")
    pl.add_argument("-o", "--output", help="file: SVG or PDF when it ends .svg or .pdf, else PNG (default DIR/nodes.png)")
    pl.set_defaults(fn=cmd_plot)
    s = sub.add_parser("summary", help="text summary of a run: status, verdict, metric medians, --exec placement")
    s.add_argument("dir")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="more rows of the attribution (by kind, by process, examples, stacks)")
    s.set_defaults(fn=cmd_summary)
    return ap


def main(argv):
    a = parser().parse_args(argv[1:])
    try:
        return a.fn(a)
    except InputError as e:
        print(f"pnreport: {e}", file=sys.stderr)
        return e.code
    except BrokenPipeError:
        return 0
    except OSError as e:
        # what the commands did not name themselves: the file is in the error
        where = f"{e.filename}: " if e.filename else ""
        print(f"pnreport: {where}{e.strerror or e}", file=sys.stderr)
        return 2
