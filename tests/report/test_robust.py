"""The report tool on hostile or large input: a 200 000-row series within 300 MB,
no traceback on bad input or a failed write, every series file checked, and
no file written through a symbolic link.  Run by test_report.py
(tests/integration/test-report-v2.sh) with the other report tests."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import make_series
from reportcheck import PNREPORT, PY, Case, check_page, pnreport

GOLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
MAX_RSS_MIB = 300
MAX_WALL_S = 60          # generous: CI machines are noisy; the figure is printed


def info(line):
    print(f"# {line}", flush=True)


def measured(*args, limit_fsize=None):
    """(exit code, stderr, max RSS MiB, wall s) of pnreport ARGS run alone."""
    err = tempfile.TemporaryFile()

    def pre():
        if limit_fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_fsize, limit_fsize))
    t0 = time.monotonic()
    env = dict(os.environ, PNREPORT_CHECK_OVERLAPS="1")       # as reportcheck.pnreport
    p = subprocess.Popen([PY, PNREPORT, *args], stdout=subprocess.DEVNULL, stderr=err, preexec_fn=pre, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    err.seek(0)
    return p.returncode, err.read().decode(errors="replace"), ru.ru_maxrss / 1024, wall


class Robust(Case):
    @classmethod
    def setUpClass(cls):
        keep = os.environ.get("PNREPORT_KEEP")
        cls.T = os.path.join(keep, "robust") if keep else tempfile.mkdtemp(prefix="pnreport-robust.")
        os.makedirs(cls.T, exist_ok=True)
        cls.small = make_series.write(os.path.join(cls.T, "small"), rows=20_000)

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("PNREPORT_KEEP"):
            shutil.rmtree(cls.T, ignore_errors=True)

    def copy(self, src, name):
        d = os.path.join(self.T, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d)
        return d

    def refused(self, *args, names, ok=(2,)):
        p = pnreport(*args, ok=ok)
        self.assertNotIn("Traceback", p.stderr)
        self.assertTrue(p.stderr.startswith("pnreport: "), p.stderr)
        self.assertIn(names, p.stderr)
        return p.stderr

    # ------------------------------------------------------------ scale
    def test_200k_rows_run_and_plot_within_300_mb(self):
        d = make_series.write(os.path.join(self.T, "big"), rows=200_000)
        mib = os.path.getsize(os.path.join(d, "nodestat.csv")) / 2**20
        for cmd, out in (("run", "big.html"), ("plot", "big.png")):
            rc, err, rss, wall = measured(cmd, d, "-o", os.path.join(self.T, out))
            info(f"{cmd} of 200 000 rows (nodestat.csv {mib:.0f} MiB + vmstat.csv): "
                 f"max RSS {rss:.0f} MiB, wall {wall:.1f} s")
            self.assertEqual(rc, 0, err)
            self.assertLessEqual(rss, MAX_RSS_MIB, f"{cmd}: max RSS {rss:.0f} MiB")
            self.assertLessEqual(wall, MAX_WALL_S, f"{cmd}: {wall:.1f} s")
        check_page(self, os.path.join(self.T, "big.html"), ("nodes",))

    def test_decimation_keeps_one_sample_peaks(self):
        from pnreportlib import series
        n = 200_000
        x = np.arange(n) * 0.2
        v = np.sin(np.arange(n) / 50.0)
        v[123_457], v[7] = 1e6, -1e6
        segs = [(0, "a", 0, 100_000), (0, "b", 100_000, n)]
        kept = series.decimate(x, segs, [v], 1000)
        self.assertIn(123_457, kept)
        self.assertIn(7, kept)
        for _, _, a, b in segs:
            self.assertIn(a, kept)
            self.assertIn(b - 1, kept)
        self.assertLess(len(kept), 5000, "at most 4 rows per bucket and series")
        self.assertTrue(np.all(np.diff(kept) > 0))
        self.assertEqual(list(series.decimate(x[:100], [(0, "a", 0, 100)], [v[:100]], 1000)), list(range(100)))

    def test_long_run_plot_shows_the_peak(self):
        """The make_series spike (64 GiB on node 0 in one sample of 20 000) is on the axis."""
        from pnreportlib import load, plots
        run = load.load_run(self.small)
        seen = {}
        plots.INSPECT = lambda fig, name: seen.setdefault(name, (fig.axes[1].get_ylim(), fig.axes[1].get_ylabel()))
        try:
            plots.nodes_over_time(run, run.read_series("nodestat", plots.node_column), {})
        finally:
            plots.INSPECT = None
        (lo, hi), label = seen["nodes"]
        self.assertEqual(label, "Δ GiB")
        self.assertGreaterEqual(hi, make_series.SPIKE_BYTES / 2**30)

    # ------------------------------------------------------------ no tracebacks
    def test_unwritable_output_is_exit_2(self):
        g = os.path.join(GOLD, "private-exhaust")
        self.refused("run", g, "-o", os.path.join(self.T, "nosuch", "x.html"), names="nosuch/x.html")
        self.refused("plot", g, "-o", "/proc/pnreport-x.png", names="/proc/pnreport-x.png")
        self.refused("run", g, "-o", self.T, names=self.T)
        self.refused("compare", g, g, "-o", os.path.join(self.T, "nosuch", "c.txt"), names="nosuch/c.txt")

    def test_a_failed_write_leaves_no_temp_file(self):
        """A write that fails half-way (file size limit: EFBIG; a full tmpfs as root:
        ENOSPC) is exit 2 naming the file, and the directory is left as it was."""
        g = os.path.join(GOLD, "private-exhaust")
        d = os.path.join(self.T, "fsize")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "x.html"), "w") as fh:
            fh.write("old")
        rc, err, _, _ = measured("run", g, "-o", os.path.join(d, "x.html"), limit_fsize=64 * 1024)
        self.assertEqual(rc, 2, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("x.html: cannot write", err)
        self.assertEqual(os.listdir(d), ["x.html"])
        with open(os.path.join(d, "x.html")) as fh:
            self.assertEqual(fh.read(), "old", "the old file is left whole")
        full = os.path.join(self.T, "full")
        os.makedirs(full, exist_ok=True)
        if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", full],
                                               capture_output=True).returncode:
            self.skipTest("mounting a small tmpfs needs root (the file size limit case ran)")
        try:
            self.refused("run", g, "-o", os.path.join(full, "x.html"), names="x.html: cannot write")
            self.assertEqual(os.listdir(full), [])
            self.refused("dashboard", GOLD, "--db", os.path.join(full, "i.sqlite"), "-o", os.path.join(full, "d"),
                         names="i.sqlite")
            self.assertEqual([f for f in os.listdir(full) if f.endswith(".tmp")], [])
        finally:
            subprocess.run(["umount", full], capture_output=True)

    def test_db_that_is_not_sqlite_is_exit_2(self):
        db = os.path.join(self.T, "notdb.sqlite")
        with open(db, "w") as fh:
            fh.write("this is not a database\n" * 100)
        self.refused("dashboard", GOLD, "--db", db, "-o", os.path.join(self.T, "d1"), names=db)
        self.refused("load", GOLD, "--db", db, names=db)
        self.refused("dashboard", "--db", db, "-o", os.path.join(self.T, "d1"), names=db)
        self.refused("compare", "--db", db, names=db)
        with open(db) as fh:
            self.assertTrue(fh.read().startswith("this is not a database"), "left as it was")
        self.assertEqual([f for f in os.listdir(self.T) if f.endswith(".tmp")], [])

    def test_concurrent_loads_into_one_new_index_keep_every_run(self):
        """Each writer changes a locked copy of the index: six loads started at once into
        an index that does not exist yet all land (none renames over another's)."""
        import sqlite3
        d = os.path.join(self.T, "concurrent")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        db = os.path.join(d, "i.sqlite")
        runs = sorted(n for n in os.listdir(GOLD) if os.path.isdir(os.path.join(GOLD, n)))
        ps = [subprocess.Popen([PY, PNREPORT, "load", os.path.join(GOLD, n), "--db", db],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for n in runs]
        for p in ps:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0], len(runs))
        self.assertEqual(os.listdir(d), ["i.sqlite"])

    def test_deeply_nested_json_is_exit_2(self):
        d = os.path.join(self.T, "nested")
        os.makedirs(d, exist_ok=True)
        deep = "[" * 100_000 + "]" * 100_000
        with open(os.path.join(d, "run.json"), "w") as fh:
            fh.write('{"schema_version": 2, "status": {"state": "complete"}, "x": ' + deep + "}")
        for cmd in ("run", "summary", "plot"):
            self.refused(cmd, d, names=os.path.join(d, "run.json"))
        self.refused("compare", os.path.join(GOLD, "private-exhaust"), d, names="run.json")
        # nested within json's reach, deeper than any pnbench file
        with open(os.path.join(d, "run.json"), "w") as fh:
            fh.write('{"schema_version": 2, "x": ' + "[" * 500 + "]" * 500 + "}")
        self.assertIn("nested 501 levels", self.refused("run", d, names="run.json"))
        cfg = os.path.join(d, "compare.json")
        with open(cfg, "w") as fh:
            fh.write(deep)
        g = os.path.join(GOLD, "private-exhaust")
        self.refused("compare", g, g, "--config", cfg, names=cfg)

    def test_collector_files_are_names_in_the_run_directory(self):
        for i, bad in enumerate((5, "../../../etc/passwd", "/etc/passwd", "")):
            d = self.copy(os.path.join(GOLD, "private-exhaust"), f"collector-file{i}")
            with open(os.path.join(d, "run.json")) as fh:
                doc = json.load(fh)
            doc["collectors"][1]["file"] = bad
            with open(os.path.join(d, "run.json"), "w") as fh:
                json.dump(doc, fh)
            for cmd in ("run", "plot"):
                err = self.refused(cmd, d, "-o", os.path.join(self.T, "cf.out"), names="run.json: $.collectors[1].file")
                self.assertIn(repr(bad), err)

    def test_dollar_signs_in_names_are_text(self):
        d = self.copy(os.path.join(GOLD, "private-exhaust"), "dollar")
        for f in ("run.json", "nodestat.csv"):
            with open(os.path.join(d, f)) as fh:
                text = fh.read()
            with open(os.path.join(d, f), "w") as fh:
                fh.write(text.replace("spill-far", "cost$^$far"))
        out = os.path.join(self.T, "dollar.html")
        pnreport("run", d, "-o", out)
        page, _ = check_page(self, out, ("nodes",))
        self.has(page, "cost$^$far")
        pnreport("plot", d, "-o", os.path.join(self.T, "dollar.png"))

    # ------------------------------------------------------------ every series file checked
    def corrupt(self, name, fname, line, fn, src=None):
        d = self.copy(src or self.small, name)
        path = os.path.join(d, fname)
        with open(path) as fh:
            lines = fh.readlines()
        lines[line - 1] = fn(lines[line - 1])
        with open(path, "w") as fh:
            fh.writelines(lines)
        return d

    def test_every_series_file_is_checked(self):
        def field(k, v):
            return lambda ln: ",".join(v if i == k else f for i, f in enumerate(ln.rstrip("\n").split(","))) + "\n"
        cases = [("vmstat.csv", 10_001, field(5, "12x"), "vmstat.csv:10001: malformed row (column "),
                 ("vmstat.csv", 3, lambda ln: ln.rstrip("\n") + ",7\n", "vmstat.csv:3: malformed row"),
                 ("vmstat.csv", 19_999, field(0, "1e9"), "vmstat.csv:19999: malformed row (t_ns"),
                 ("vmstat.csv", 1, lambda ln: "time,it,phase\n", "vmstat.csv:1: not a pnbench series"),
                 ("vmstat.csv", 8193, field(7, "nan"), "vmstat.csv:8193: malformed row (column "),
                 ("nodestat.csv", 16_385, field(9, ""), "nodestat.csv:16385: malformed row (column "),
                 ("nodestat.csv", 2, lambda ln: ln[:40], "nodestat.csv:2: malformed row"),
                 ("zoneinfo.csv", 12_345, field(4, "-"), "zoneinfo.csv:12345: malformed row (column ")]
        for i, (fname, line, fn, msg) in enumerate(cases):
            name = f"corrupt{i}"
            src = self.copy(self.small, name + "-src")
            if fname == "zoneinfo.csv":
                shutil.copy(os.path.join(src, "vmstat.csv"), os.path.join(src, "zoneinfo.csv"))
                with open(os.path.join(src, "run.json")) as fh:
                    doc = json.load(fh)
                doc["collectors"].append({"collector": "zoneinfo", "status": "ok", "file": "zoneinfo.csv",
                                          "kind": "sampler"})
                with open(os.path.join(src, "run.json"), "w") as fh:
                    json.dump(doc, fh)
            d = self.corrupt(name, fname, line, fn, src)
            err = self.refused("run", d, "-o", os.path.join(self.T, name + ".html"), names=msg)
            if "malformed row" in msg:
                self.assertIn("run.json says the run is complete", err)

    def test_incomplete_run_drops_only_a_cut_last_line(self):
        d = self.copy(self.small, "cut")
        with open(os.path.join(d, "run.json")) as fh:
            doc = json.load(fh)
        doc["status"] = {"state": "incomplete", "reason": "interrupted (SIGINT)"}
        with open(os.path.join(d, "run.json"), "w") as fh:
            json.dump(doc, fh)
        with open(os.path.join(d, "vmstat.csv"), "r+") as fh:
            fh.truncate(os.path.getsize(os.path.join(d, "vmstat.csv")) - 25)
        out = os.path.join(self.T, "cut.html")
        pnreport("run", d, "-o", out)
        with open(out, encoding="utf-8") as fh:
            self.has(fh.read(), "vmstat.csv: 19,999 rows, checked")
        d2 = self.corrupt("cut-middle", "vmstat.csv", 500, lambda ln: ln[:30] + "\n")
        with open(os.path.join(d2, "run.json"), "w") as fh:
            json.dump(doc, fh)
        err = self.refused("run", d2, "-o", out, names="vmstat.csv:500: malformed row")
        self.assertNotIn("says the run is complete", err)

    # ------------------------------------------------------------ never through a link
    def test_no_file_is_written_through_a_symlink_or_fifo(self):
        g = os.path.join(GOLD, "private-exhaust")
        d = os.path.join(self.T, "links")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "png"))
        os.makedirs(os.path.join(d, "dash", "metrics"))
        target = os.path.join(d, "target")
        with open(target, "w") as fh:
            fh.write("precious\n")

        def link(p):
            p = os.path.join(d, p)
            os.symlink(target, p)
            return p
        db = os.path.join(d, "index.sqlite")
        pnreport("dashboard", g, "--db", db, "-o", os.path.join(d, "dash0"))
        cases = [(["run", g, "-o", link("r.html")], "r.html"),
                 (["run", g, "-o", os.path.join(d, "ok.html"), "--png-dir", os.path.join(d, "png")], "nodes.png"),
                 (["plot", g, "-o", link("p.png")], "p.png"),
                 (["compare", g, os.path.join(GOLD, "stock-exhaust"), "-o", link("c.txt")], "c.txt"),
                 (["dashboard", g, "--db", link("l.sqlite"), "-o", os.path.join(d, "dash1")], "l.sqlite"),
                 (["dashboard", g, "--db", db, "-o", os.path.join(d, "dash")], "index.html"),
                 (["dashboard", g, "--db", db, "-o", os.path.join(d, "dash2"), "--csv", link("e.csv")], "e.csv"),
                 (["dashboard", g, "--db", db, "-o", os.path.join(d, "dash3"), "--sql", link("e.sql")], "e.sql")]
        os.symlink(target, os.path.join(d, "png", "nodes.png"))
        os.symlink(target, os.path.join(d, "dash", "index.html"))
        os.mkfifo(os.path.join(d, "fifo.html"))
        cases.append((["run", g, "-o", os.path.join(d, "fifo.html")], "fifo.html: is a FIFO"))
        for args, name in cases:
            self.refused(*args, names=name)
            with open(target) as fh:
                self.assertEqual(fh.read(), "precious\n", f"{args}: wrote through the link")
        for root, _, files in os.walk(d):
            self.assertEqual([f for f in files if f.endswith(".tmp")], [], root)
        self.assertTrue(os.path.islink(os.path.join(d, "r.html")))
        # and an ordinary write: a 0644 file (umask permitting), no temp file beside it
        pnreport("run", g, "-o", os.path.join(d, "plain.html"))
        self.assertEqual(os.stat(os.path.join(d, "plain.html")).st_mode & 0o777, 0o644 & ~_umask())


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


if __name__ == "__main__":
    sys.exit("run by test_report.py")
