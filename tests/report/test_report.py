#!/usr/bin/python3
"""Tests of report/ (pnreport run, compare, dashboard, demo) on seeded schema-2
results from make_fixture.py, on the suite's own goldens in tests/golden/, and
on the real demo runs in tests/report/golden/ (test_golden.py).  Prints TAP (one line per test method, SKIPs with their
reason) so tests/run.sh counts them; exit 0 when none failed.

PNREPORT_KEEP=DIR keeps the generated files (reports, PNGs, screenshots) there.
PNREPORT_SHARD=I/N runs shard I of N (whole test classes, balanced by their
usual seconds); tests/integration/test-report-v2.sh runs two at once.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "report"))
sys.path.insert(0, HERE)

import make_fixture  # noqa: E402
from pnreportlib import compare, load  # noqa: E402
from reportcheck import (PY, ROOT, Case, assert_not_blank, check_page, png_size,  # noqa: E402
                         pnreport)
import test_demo_expected  # noqa: E402
import test_exec  # noqa: E402
import test_fmt  # noqa: E402
import test_golden  # noqa: E402
import test_pages  # noqa: E402
import test_robust  # noqa: E402
import test_width  # noqa: E402

GoldenRuns = test_golden.GoldenRuns      # the real runs' tests run with these
Robust = test_robust.Robust
Fmt = test_fmt.Fmt
ExecDashboard = test_exec.ExecDashboard
Labels = test_exec.Labels
ExecReport = test_exec.ExecReport
Pages = test_pages.Pages
FigureFiles = test_pages.FigureFiles
Width = test_width.Width
Expected = test_demo_expected.Expected

T = None            # the fixtures' directory (setUpModule)
KEEP = os.environ.get("PNREPORT_KEEP")
INFO = []           # figures worth reporting (false-positive rate, ...), printed as TAP comments


def setUpModule():
    global T
    T = KEEP or tempfile.mkdtemp(prefix="pnreport-test.")
    os.makedirs(T, exist_ok=True)
    make_fixture.write_run(f"{T}/private", kernel="private", seed=1)
    make_fixture.write_run(f"{T}/stock", kernel="stock", seed=2)
    make_fixture.write_run(f"{T}/incomplete", kernel="private", seed=3, incomplete=True)
    make_fixture.write_run(f"{T}/base", kernel="private", seed=11)
    make_fixture.write_run(f"{T}/regressed", kernel="private", seed=12, shift=10.0)
    make_fixture.write_run(f"{T}/two", kernel="private", seed=13, iterations=2)
    make_fixture.write_demo(f"{T}/demo", seed=1)


def tearDownModule():
    if not KEEP and T:
        shutil.rmtree(T, ignore_errors=True)


# ------------------------------------------------------------------ tests
SCENARIO_PLOTS = ("isolation", "nodes", "spill", "latency_cdf", "interleave", "latency-matrix", "loaded-latency")


class RunReport(Case):
    def test_private_run_report_has_every_plot_embedded_and_not_blank(self):
        out = f"{T}/private.html"
        pnreport("run", f"{T}/private", "-o", out, "--png-dir", f"{T}/png-private")
        doc, f = check_page(self, out, SCENARIO_PLOTS)
        self.has(doc, "Verdict: PASS")
        self.has(doc, "no general allocation in any phase")
        self.has(doc, "matches the weights page for page")
        for name in SCENARIO_PLOTS:
            with open(f"{T}/png-private/{name}.png", "rb") as fh:
                data = fh.read()
            w, h = png_size(data)
            # 150 dpi: 1.5 times the figure's size on the page
            want = {"nodes": 1200, "spill": 900, "latency_cdf": 950, "loaded-latency": 800}.get(name)
            if want:
                self.assertLessEqual(abs(w - want * 1.5), 1.5, f"{name}: {w} px wide")
        # per-node plot: one panel per node -> height grows with the 3 nodes
        with open(f"{T}/png-private/nodes.png", "rb") as fh:
            self.assertEqual(png_size(fh.read()), (1800, 1365))

    def test_stock_run_report_says_what_leaked_where(self):
        out = f"{T}/stock.html"
        pnreport("run", f"{T}/stock", "-o", out)
        doc, _ = check_page(self, out, SCENARIO_PLOTS)
        self.has(doc, "Verdict: FAIL")
        self.has(doc, "General allocations on private nodes: node 1: 2,048 pages")
        self.has(doc, "6 of 8 probes put general pages on a private node")
        self.has(doc, "(stock)")

    def test_long_runs_draw_the_first_iterations_and_the_worst(self):
        d = f"{T}/long"
        make_fixture.write_run(d, kernel="private", seed=7, iterations=12)
        with open(f"{d}/run.json") as fh:
            doc = json.load(fh)
        ph = [p for p in doc["points"][0]["iterations"][9]["phases"] if p["name"] == "pressure"][0]
        ph["nodes"]["1"]["general_pages"].update(total=100, anon=100)
        with open(f"{d}/run.json", "w") as fh:
            json.dump(doc, fh)
        pnreport("run", d, "-o", f"{d}/report.html")
        page, _ = check_page(self, f"{d}/report.html", ("nodes",))
        self.has(page, "Iterations 0, 1, 2, 3, 4, 9 of 12 shown (9: the most general pages on private nodes).")

    def test_incomplete_run_is_shown_as_incomplete(self):
        out = f"{T}/incomplete.html"
        p = pnreport("run", f"{T}/incomplete", "-o", out)
        self.assertIn("incomplete", p.stderr)
        doc, _ = check_page(self, out, ("nodes",))
        self.has(doc, "INCOMPLETE RUN")
        self.lacks(doc, "Verdict: PASS")
        s = pnreport("summary", f"{T}/incomplete").stdout
        self.assertIn("INCOMPLETE", s)

    def test_truncated_csv_in_a_complete_run_is_refused(self):
        d = f"{T}/trunc-complete"
        shutil.copytree(f"{T}/private", d, dirs_exist_ok=True)
        with open(f"{d}/nodestat.csv", "r+") as fh:
            text = fh.read()
            fh.seek(0)
            fh.write(text[:-40])
            fh.truncate()
        p = pnreport("run", d, "-o", f"{T}/x.html", ok=(2,))
        self.assertIn("nodestat.csv", p.stderr)
        self.assertIn("complete", p.stderr)

    def test_bad_input_exits_2_with_a_clear_message(self):
        bad = f"{T}/bad"
        os.makedirs(bad, exist_ok=True)
        cases = {}
        for name, content in (("v1", {"schema_version": 1}), ("v99", {"schema_version": 99}),
                              ("nover", {"tool": {}}), ("list", [1, 2])):
            os.makedirs(f"{bad}/{name}", exist_ok=True)
            with open(f"{bad}/{name}/run.json", "w") as fh:
                json.dump(content, fh)
            cases[name] = "schema_version" if name != "list" else "not a pnbench run.json"
        os.makedirs(f"{bad}/garbage", exist_ok=True)
        with open(f"{bad}/garbage/run.json", "w") as fh:
            fh.write("{not json")
        cases["garbage"] = "not valid JSON"
        os.makedirs(f"{bad}/empty", exist_ok=True)
        cases["empty"] = "missing"
        cases["nonexistent"] = "no such run directory"
        for name, msg in cases.items():
            for cmd in (["run"], ["summary"], ["plot"]):
                p = pnreport(*cmd, f"{bad}/{name}", ok=(2,))
                self.assertIn(msg, p.stderr, f"{cmd} {name}: {p.stderr!r}")
                self.assertTrue(p.stderr.startswith("pnreport: "), p.stderr)
                self.assertNotIn("Traceback", p.stderr)
        p = pnreport("compare", f"{T}/private", f"{bad}/v1", ok=(2,))
        self.assertIn("schema_version 1", p.stderr)
        p = pnreport("dashboard", f"{bad}/v99", "--db", f"{T}/bad.sqlite", "-o", f"{T}/bad-dash", ok=(2,))
        self.assertIn("schema_version 99", p.stderr)
        p = pnreport("demo", f"{bad}/empty", ok=(2,))
        self.assertIn("demo.json", p.stderr)


class Compare(Case):
    def test_injected_10pct_regression_at_n5_is_flagged(self):
        p = pnreport("compare", f"{T}/base", f"{T}/regressed", "--format", "json", "--fail-on-regression", ok=(1,))
        res = json.loads(p.stdout)
        by = {(m["phase"], m["name"], load.labels_str(m["labels"])): m for m in res["metrics"]}
        for key in (("explicit", "alloc_fault_throughput", ""), ("pressure", "pressure_throughput", ""),
                    ("latency", "idle_latency_ns", "dst=2,src=0")):
            v = by[key]["vs"][0]
            self.assertEqual(by[key]["baseline"]["n"], 5)
            self.assertEqual(v["n"], 5)
            self.assertEqual(v["status"], "regression", f"{key}: {v}")
            self.assertLess(v["p"], 0.05)
            lo, hi = v["ci"]
            self.assertTrue(lo > 0 or hi < 0, "the CI of the difference excludes 0")
        t = pnreport("compare", f"{T}/base", f"{T}/regressed").stdout
        # the metric on its own line, A's and B's numbers below it (100 columns)
        self.assertRegex(t, r"\nexplicit: alloc_fault_throughput\n  A .*\n  B .* -\d+\.\d %.*\*REGRESSION\n")
        self.assertIn("result: regression", t)
        h = f"{T}/compare.html"
        pnreport("compare", f"{T}/base", f"{T}/regressed", f"{T}/private", "--format", "html", "-o", h)
        doc, _ = check_page(self, h, ("compare",))
        self.has(doc, "regression(s)")
        # three runs: the figure draws B and C against A, the table puts them side by side
        self.has(doc, "B, C vs A")
        self.has(doc, "Side by side: every run against A")
        self.assertIn('colspan="3">B: 6.12.118-pn2 [private]</th><th colspan="3">C: 6.12.118-pn2 [private]', doc)
        t = pnreport("compare", f"{T}/base", f"{T}/regressed", f"{T}/private").stdout
        self.assertIn("== side by side", t)
        self.assertRegex(t, r"\nexplicit: alloc_fault_throughput ↑\n  A .*\n  B .* -\d+\.\d %  \*REGRESSION\n  C .*%")

    def test_noise_only_differences_are_not_flagged(self):
        """Seeded noise draws, same distribution on both sides: false-positive rate."""
        cfg = compare.load_config(None)
        rng = random.Random(20261203)
        meta = {"kind": "stat", "name": "throughput", "labels": {}, "better": "higher"}
        draws = 2000
        for cv in (1.0, 2.0, 5.0):
            fp = p_only = 0
            for i in range(draws):
                a = [1e9 * (1 + rng.gauss(0, cv / 100)) for _ in range(5)]
                b = [1e9 * (1 + rng.gauss(0, cv / 100)) for _ in range(5)]
                j = compare.judge(cfg, meta, a, b, seed=i)
                fp += j["status"] == "regression"
                p_only += j["p"] < cfg["alpha"]
            rate = fp / draws
            INFO.append(f"noise only, n=5 a side, CV {cv:.1f} %: {fp}/{draws} flagged as regression "
                        f"(false-positive rate {rate:.2%}); Welch p < 0.05 alone: {p_only / draws:.1%}")
            self.assertLessEqual(rate, 0.01, f"CV {cv} %: false-positive rate {rate:.2%}")
        # and the power that goes with it: an injected 10 % regression
        for cv in (1.0, 1.5, 2.0):
            hit = 0
            for i in range(500):
                a = [1e9 * (1 + rng.gauss(0, cv / 100)) for _ in range(5)]
                b = [0.9e9 * (1 + rng.gauss(0, cv / 100)) for _ in range(5)]
                hit += compare.judge(cfg, meta, a, b, seed=i)["status"] == "regression"
            INFO.append(f"injected 10 % regression, n=5 a side, CV {cv:.1f} %: flagged in {hit}/500")
            if cv <= 1.5:
                # above a 2.5 % sample CV the gate asks 10 % (noisy metric): power drops by design
                self.assertGreaterEqual(hit / 500, 0.95, f"CV {cv} %: power {hit / 500:.0%}")

    def test_noise_only_runs_pass_the_gate(self):
        """Whole runs through the CLI: same kernel, different seeds -> exit 0."""
        flagged = 0
        n = 8
        for i in range(n):
            a, b = f"{T}/noise-a{i}", f"{T}/noise-b{i}"
            make_fixture.write_run(a, kernel="private", seed=100 + 2 * i, noise=2.0)
            make_fixture.write_run(b, kernel="private", seed=101 + 2 * i, noise=2.0)
            p = pnreport("compare", a, b, "--fail-on-regression", "--format", "json", ok=(0, 1))
            flagged += p.returncode == 1
            if p.returncode == 1:
                regs = [m["name"] for m in json.loads(p.stdout)["metrics"] if m["vs"][0]["status"] == "regression"]
                INFO.append(f"noise-only run pair {i} flagged: {regs}")
        INFO.append(f"noise-only run pairs through the gate: {flagged}/{n} flagged "
                    f"({sum(len(compare.samples(load.load_run(f'{T}/noise-a0'))) for _ in [0])} metrics each)")
        self.assertEqual(flagged, 0)

    def test_fewer_than_3_samples_is_not_a_verdict(self):
        p = pnreport("compare", f"{T}/base", f"{T}/two", "--format", "json", "--fail-on-regression", ok=(4,))
        res = json.loads(p.stdout)
        self.assertEqual(res["result"], "not enough samples")
        self.assertIn("not enough samples", p.stderr)
        st = {m["vs"][0]["status"] for m in res["metrics"] if m["kind"] == "stat"}
        self.assertEqual(st, {"not enough samples"})
        t = pnreport("compare", f"{T}/base", f"{T}/two").stdout
        self.assertIn("n<3", t)

    def test_isolation_regresses_at_any_increase_above_zero(self):
        p = pnreport("compare", f"{T}/private", f"{T}/stock", "--format", "json", "--fail-on-regression", ok=(1,))
        res = json.loads(p.stdout)
        iso = {(m["phase"], m["labels"].get("node")): m["vs"][0]["status"] for m in res["metrics"]
               if m["kind"] == "isolation" and m["name"] == "general_pages"}
        self.assertEqual(iso[("pressure", "1")], "regression")
        self.assertEqual(iso[("probes", "2")], "regression")
        self.assertEqual(iso[("explicit", "1")], "no change")
        # one leaked page, two iterations only: still a regression (static rule, no statistics)
        make_fixture.write_run(f"{T}/leak1", kernel="private", seed=21, iterations=2, leak=1)
        p = pnreport("compare", f"{T}/private", f"{T}/leak1", "--format", "json", "--fail-on-regression", ok=(1,))
        regs = [(m["name"], m["phase"]) for m in json.loads(p.stdout)["metrics"]
                if m["vs"][0]["status"] == "regression"]
        self.assertEqual(regs, [("general_pages", "pressure")])
        # and the reverse direction is an improvement, not a regression
        p = pnreport("compare", f"{T}/stock", f"{T}/private", "--fail-on-regression", "--format", "json", ok=(0, 1))
        iso = [m["vs"][0]["status"] for m in json.loads(p.stdout)["metrics"] if m["kind"] == "isolation"
               and m["phase"] == "pressure" and m["labels"].get("node") == "1"]
        self.assertEqual(iso, ["improvement"])

    def test_incomplete_runs_are_refused_unless_asked(self):
        p = pnreport("compare", f"{T}/base", f"{T}/incomplete", ok=(2,))
        self.assertIn("incomplete", p.stderr)
        p = pnreport("compare", f"{T}/base", f"{T}/incomplete", "--allow-incomplete")
        self.assertIn("incomplete", p.stdout)

    def test_thresholds_come_from_the_config(self):
        cfgp = f"{T}/strict.json"
        with open(cfgp, "w") as fh:
            json.dump({"default": {"threshold_pct": 50.0}}, fh)
        p = pnreport("compare", f"{T}/base", f"{T}/regressed", "--config", cfgp, "--fail-on-regression")
        self.assertIn("result: ok", p.stdout)
        with open(cfgp, "w") as fh:
            json.dump({"thresholds": 1}, fh)
        p = pnreport("compare", f"{T}/base", f"{T}/regressed", "--config", cfgp, ok=(2,))
        self.assertIn("unknown key", p.stderr)


class Dashboard(Case):
    def test_index_round_trips_and_appends_without_duplicates(self):
        res = f"{T}/results"
        for i in range(1, 4):
            make_fixture.write_run(f"{res}/r{i}", kernel="private", seed=30 + i)
        db, out, csvp = f"{T}/dash.sqlite", f"{T}/dash", f"{T}/dash.csv"
        for f in (db, csvp):
            if os.path.exists(f):
                os.unlink(f)
        p = pnreport("dashboard", res, "--db", db, "-o", out, "--csv", csvp)
        self.assertIn("3 run(s) added", p.stdout)
        p = pnreport("dashboard", res, "--db", db, "-o", out)
        self.assertIn("0 run(s) added", p.stdout)
        self.assertIn("3 already indexed", p.stdout)
        make_fixture.write_run(f"{res}/r4", kernel="private", seed=34, shift=10.0)
        make_fixture.write_run(f"{res}/r5", kernel="private", seed=35, incomplete=True)
        p = pnreport("dashboard", res, f"{res}/r1", "--db", db, "-o", out, "--csv", csvp)
        self.assertIn("2 run(s) added", p.stdout)
        con = sqlite3.connect(db)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 5)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs WHERE state = 'incomplete'").fetchone()[0], 1)
        # round trip: every summary value of every run comes back exactly
        for i in range(1, 5):
            run = load.load_run(f"{res}/r{i}")
            import hashlib
            rid = hashlib.sha256(run.raw).hexdigest()
            for p_, m in run.summary_metrics():
                got = [r[0] for r in con.execute(
                    "SELECT value FROM samples WHERE run_id = ? AND phase = ? AND workload_index = ? AND name = ?"
                    " AND labels = ? ORDER BY sample", (rid, m["phase"], m["workload_index"], m["name"],
                                                        load.labels_str(m["labels"])))]
                self.assertEqual(got, [float(v) for v in m["values"]], f"r{i} {m['name']}")
            row = con.execute("SELECT kernel_release, series_mode, verdict, config_sha256 FROM runs WHERE run_id = ?",
                              (rid,)).fetchone()
            self.assertEqual(row, (run.doc["kernel"]["release"], "private", run.doc["verdict"]["result"],
                                   run.doc["config"]["sha256"]))
        nsamp = con.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        with open(csvp) as fh:
            self.assertEqual(sum(1 for _ in fh) - 1, nsamp)
        # a run directory rewritten in place replaces its older entry
        make_fixture.write_run(f"{res}/r3", kernel="private", seed=99)
        p = pnreport("dashboard", res, "--db", db, "-o", out)
        self.assertIn("1 replaced", p.stdout)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 5)
        orphans = con.execute("SELECT COUNT(*) FROM samples WHERE run_id NOT IN (SELECT run_id FROM runs)").fetchone()[0]
        self.assertEqual(orphans, 0)
        # pages: the index links every metric page; the shifted run is marked a regression
        with open(f"{out}/index.html", encoding="utf-8") as fh:
            doc = fh.read()
        links = re.findall(r'href="(metrics/[^"]+)"', doc)
        self.assertGreater(len(links), 10)
        for link in links:
            self.assertTrue(os.path.exists(os.path.join(out, link)), link)
        thr = [link for link in links if "alloc_fault_throughput" in link][0]
        mdoc, _ = check_page(self, os.path.join(out, thr), ("history",))
        self.has(mdoc, "REGRESSION")
        self.has(mdoc, "incomplete")
        self.has(doc, "regressed in their latest run")

    def test_alternating_kernels_are_not_regressions(self):
        """P, I, P, I with I 10 % slower: per kernel nothing changed; the steps between
        kernels are marked "new kernel" once and never judged."""
        res = f"{T}/alternating"
        for i, (kernel, shift) in enumerate((("private", 0.0), ("isolate", 10.0)) * 2):
            make_fixture.write_run(f"{res}/r{i}", kernel=kernel, seed=70 + i, shift=shift)
        out = f"{T}/alt-dash"
        pnreport("dashboard", res, "--db", f"{T}/alt.sqlite", "-o", out)
        with open(f"{out}/index.html", encoding="utf-8") as fh:
            doc = fh.read()
        self.has(doc, "0 series with a regression")
        link = [x for x in re.findall(r'href="(metrics/[^"]+)"', doc) if "alloc_fault_throughput" in x][0]
        page, _ = check_page(self, os.path.join(out, link), ("history",))
        self.has(page, "No regression in this history")
        self.assertEqual(page.count("<td>new kernel</td>"), 1)

    def test_ddl_is_portable_sql(self):
        with open(os.path.join(ROOT, "report", "index.sql")) as fh:
            ddl = fh.read()
        code = "\n".join(line.split("--")[0] for line in ddl.splitlines())
        for word in ("AUTOINCREMENT", "WITHOUT ROWID", "PRAGMA", "STRICT", "BLOB", "DATETIME", " REAL"):
            self.assertNotIn(word, code.upper(), f"{word}: not portable to PostgreSQL")
        con = sqlite3.connect(":memory:")
        con.executescript(ddl)
        con.executescript(ddl)      # idempotent: IF NOT EXISTS everywhere
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.assertEqual(tables, {"index_meta", "runs", "metrics", "samples", "node_verdicts", "run_tags"})

    def test_index_loads_into_postgresql(self):
        """The same DDL and the --sql export in a throw-away PostgreSQL cluster, twice."""
        import glob
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            self.skipTest("PostgreSQL not installed (apt-get install postgresql-15)")
        if os.geteuid() != 0 or not shutil.which("runuser"):
            self.skipTest("needs root to run the throw-away cluster as user postgres")
        try:
            import pwd
            pwd.getpwnam("postgres")
        except KeyError:
            self.skipTest("no postgres user")
        bindir = os.path.dirname(bins[-1])
        res = f"{T}/pg-results"
        for i in range(1, 3):
            make_fixture.write_run(f"{res}/r{i}", kernel="private", seed=60 + i)
        dump = f"{T}/pg-dump.sql"
        pnreport("dashboard", res, "--db", f"{T}/pg.sqlite", "-o", f"{T}/pg-dash", "--sql", dump)
        pg = tempfile.mkdtemp(prefix="pnreport-pg.")
        os.chmod(pg, 0o755)
        shutil.copy(os.path.join(ROOT, "report", "index.sql"), f"{pg}/index.sql")
        shutil.copy(dump, f"{pg}/dump.sql")
        shutil.chown(pg, "postgres")

        def as_pg(*cmd, check=True):
            p = subprocess.run(["runuser", "-u", "postgres", "--", *cmd], capture_output=True, text=True,
                               timeout=120)
            if check and p.returncode:
                raise AssertionError(f"{cmd}: exit {p.returncode}: {p.stderr[-1500:]}")
            return p
        try:
            as_pg(f"{bindir}/initdb", "-D", f"{pg}/data", "-A", "trust", "-U", "postgres")
            as_pg(f"{bindir}/pg_ctl", "-D", f"{pg}/data", "-l", f"{pg}/log", "-w", "-o",
                  f"-k {pg} -c listen_addresses='' -p 54329", "start")
            psql = [f"{bindir}/psql", "-h", pg, "-p", "54329", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q"]
            as_pg(*psql, "-f", f"{pg}/index.sql", "-f", f"{pg}/dump.sql")
            as_pg(*psql, "-f", f"{pg}/index.sql", "-f", f"{pg}/dump.sql")      # again: no duplicates
            con = sqlite3.connect(f"{T}/pg.sqlite")
            for t in ("runs", "metrics", "samples", "node_verdicts"):
                want = con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                got = as_pg(*psql, "-At", "-c", f"SELECT COUNT(*) FROM {t}").stdout.strip()
                self.assertEqual(int(got), want, t)
            s1 = con.execute("SELECT SUM(value) FROM samples").fetchone()[0]
            s2 = float(as_pg(*psql, "-At", "-c", "SELECT SUM(value) FROM samples").stdout.strip())
            self.assertAlmostEqual(s1 / s2, 1.0, places=9)
            INFO.append(f"index.sql + --sql export loaded into PostgreSQL ({bindir}) twice: counts equal SQLite's")
        finally:
            as_pg(f"{bindir}/pg_ctl", "-D", f"{pg}/data", "-m", "immediate", "stop", check=False)
            shutil.rmtree(pg, ignore_errors=True)


class Demo(Case):
    def test_truth_table_figure_and_table(self):
        out = f"{T}/demo.html"
        p = pnreport("demo", f"{T}/demo", "-o", out, "--check", ok=(1,))
        doc, _ = check_page(self, out, ("truth-table",))
        self.has(doc, "1 cell(s) not as expected")
        self.has(doc, "isolate/reference-movable")
        for k in ("stock", "isolate", "private"):
            self.has(doc, f"<th>{k}<br>")
        self.has(doc, "background pressure: general pages on device nodes")
        # `run` on a demo directory renders the same page; --cells links each cell's report
        pnreport("run", f"{T}/demo", "-o", f"{T}/demo2.html")
        check_page(self, f"{T}/demo2.html", ("truth-table",))
        pnreport("demo", f"{T}/demo", "--cells", "-o", f"{T}/demo/report.html")
        with open(f"{T}/demo/report.html", encoding="utf-8") as fh:
            links = re.findall(r'href="([^"#]+/report\.html)"', fh.read())
        self.assertEqual(len(links), 6)
        for link in links:
            check_page(self, os.path.join(f"{T}/demo", link), ("nodes", "isolation"))
        del p


class Browser(Case):
    @unittest.skipUnless(shutil.which("chromium"), "chromium not installed (apt-get install chromium)")
    def test_headless_chromium_screenshot_is_not_blank(self):
        for name, page in (("private", f"{T}/private.html"), ("stock", f"{T}/stock.html"),
                           ("demo", f"{T}/demo.html"), ("compare", f"{T}/compare.html")):
            if not os.path.exists(page):
                if name == "demo":
                    pnreport("demo", f"{T}/demo", "-o", page)
                elif name == "compare":
                    pnreport("compare", f"{T}/base", f"{T}/regressed", "--format", "html", "-o", page)
                else:
                    pnreport("run", f"{T}/{name}", "-o", page)
            shot = f"{T}/screenshot-{name}.png"
            if os.path.exists(shot):
                os.unlink(shot)
            env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:")
            prof = tempfile.mkdtemp(prefix="pnreport-chromium.")
            try:
                subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                "--no-first-run", f"--user-data-dir={prof}", f"--screenshot={shot}",
                                "--window-size=1300,2600", "file://" + os.path.abspath(page)],
                               capture_output=True, timeout=120, env=env)
            finally:
                shutil.rmtree(prof, ignore_errors=True)
            self.assertTrue(os.path.exists(shot), f"{name}: chromium wrote no screenshot")
            with open(shot, "rb") as fh:
                data = fh.read()
            self.assertEqual(png_size(data), (1300, 2600))
            var, ink = assert_not_blank(self, data, f"screenshot of {name}", min_var=5e-3, min_ink=0.05)
            INFO.append(f"screenshot {shot}: pixel variance {var:.3f}, {ink:.0%} ink")


class Goldens(Case):
    """The suite's own results: the checked-in goldens (run.json only) and, when
    build/pnbench is there, a real run of configs/smoke.json on this machine."""

    def schema_v2(self):
        with open(os.path.join(ROOT, "results", "schema", "run.schema.json")) as fh:
            return json.load(fh).get("properties", {}).get("schema_version", {}).get("const") == 2

    def test_fixtures_validate_against_the_schema(self):
        if not self.schema_v2():
            self.skipTest("results/schema/run.schema.json is not schema_version 2 yet (core v2 not merged)")
        dirs = [f"{T}/{n}" for n in ("private", "stock", "incomplete", "base", "regressed", "two")]
        dirs += [os.path.join(f"{T}/demo", d) for d in sorted(os.listdir(f"{T}/demo"))
                 if os.path.isdir(os.path.join(f"{T}/demo", d))]
        p = subprocess.run([PY, os.path.join(ROOT, "results", "schema", "validate.py"), *dirs],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-2000:])

    def goldens(self):
        gold = os.path.join(ROOT, "tests", "golden")
        out = []
        for f in sorted(os.listdir(gold)):
            if f.endswith(".json"):
                with open(os.path.join(gold, f)) as fh:
                    doc = json.load(fh)
                if isinstance(doc, dict) and doc.get("schema_version") == 2:
                    d = os.path.join(T, "golden-" + f[:-5])
                    os.makedirs(d, exist_ok=True)
                    shutil.copy(os.path.join(gold, f), os.path.join(d, "run.json"))
                    out.append((d, doc))
        if not out:
            self.skipTest("no schema_version 2 golden in tests/golden yet (core v2 not merged)")
        return out

    def test_suite_goldens(self):
        """run.json alone: summary and compare work; `run` renders what needs no CSV and
        refuses (exit 2, naming the CSV) a complete run whose series are missing."""
        gs = self.goldens()
        for d, doc in gs:
            pnreport("summary", d)
            # the report draws from nodestat.csv: a complete run naming it
            # without the file is refused; other series are checked when there
            csvs = [c["file"] for c in doc["collectors"]
                    if c.get("status") == "ok" and c.get("file") and c["collector"] == "nodestat"]
            if csvs and doc["status"]["state"] == "complete":
                p = pnreport("run", d, "-o", f"{d}/report.html", ok=(2,))
                self.assertRegex(p.stderr, r"\.csv: missing \(named by \$\.collectors")
            else:
                pnreport("run", d, "-o", f"{d}/report.html")
                with open(f"{d}/report.html", encoding="utf-8") as fh:
                    h = fh.read()
                if doc["status"]["state"] != "complete":
                    self.has(h, "INCOMPLETE RUN")
        complete = [d for d, doc in gs if doc["status"]["state"] == "complete"]
        if len(complete) >= 2:
            p = pnreport("compare", complete[0], complete[1], "--format", "json")
            json.loads(p.stdout)
        p = pnreport("dashboard", *[d for d, _ in gs], "--db", f"{T}/golden.sqlite", "-o", f"{T}/golden-dash")
        self.assertIn(f"{len(gs)} run(s) added", p.stdout)

    def test_real_run_of_this_machine(self):
        pn = os.environ.get("PNBENCH_BIN") or os.path.join(ROOT, "build", "pnbench")
        if not os.access(pn, os.X_OK):
            self.skipTest(f"{pn} not built")
        d = f"{T}/real-smoke"
        shutil.rmtree(d, ignore_errors=True)
        p = subprocess.run([pn, "run", os.path.join(ROOT, "configs", "smoke.json"), "-o", d, "-q"],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        if not os.path.exists(os.path.join(d, "run.json")):
            self.skipTest(f"pnbench run made no results here (exit {p.returncode}): {p.stderr.strip()[-200:]}")
        pnreport("run", d, "-o", f"{d}/report.html")
        doc, _ = check_page(self, f"{d}/report.html", ("nodes",))
        self.has(doc, "Verdict:")
        pnreport("summary", d)


# ------------------------------------------------------------------ TAP
class Tap(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.n = 0

    def _line(self, test, ok, extra=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} - {test.id().split('.', 1)[1]}{extra}", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False)
        print("# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False)
        print("# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, f" # SKIP {reason}")


# Seconds each class takes on the 2-core development VM (2026-12-07), only to
# balance PNREPORT_SHARD's shards; a class not listed counts 5.
CLASS_SECONDS = {"Robust": 180, "Dashboard": 80, "GoldenRuns": 77, "ExecDashboard": 51,
                 "Demo": 33, "Pages": 30, "RunReport": 26, "Compare": 25, "Browser": 20,
                 "Goldens": 17}


def _flat(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flat(t)
        else:
            yield t


def shard(tests, spec):
    """The tests of shard I of N (spec "I/N"): whole classes (their fixtures
    stay in one process), each to the least loaded shard, heaviest first."""
    m = re.fullmatch(r"([1-9][0-9]*)/([1-9][0-9]*)", spec)
    if not m or int(m.group(1)) > int(m.group(2)):
        sys.exit(f"test_report.py: PNREPORT_SHARD={spec!r}: want I/N with 1 <= I <= N")
    i, n = int(m.group(1)), int(m.group(2))
    names = sorted({type(t).__name__ for t in tests}, key=lambda c: (-CLASS_SECONDS.get(c, 5), c))
    load, home = [0] * n, {}
    for c in names:
        home[c] = load.index(min(load))
        load[home[c]] += CLASS_SECONDS.get(c, 5)
    return [t for t in tests if home[type(t).__name__] == i - 1]


def main():
    tests = list(_flat(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])))
    if len(sys.argv) > 1:
        tests = [t for t in tests if any(f in t.id() for f in sys.argv[1:])]
    if os.environ.get("PNREPORT_SHARD"):
        tests = shard(tests, os.environ["PNREPORT_SHARD"])
    suite = unittest.TestSuite(tests)
    runner = unittest.TextTestRunner(stream=open(os.devnull, "w"), resultclass=Tap, verbosity=0)
    res = runner.run(suite)
    for line in INFO:
        print(f"# {line}")
    print(f"1..{res.testsRun}")
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
