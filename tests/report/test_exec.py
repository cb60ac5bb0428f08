"""--exec runs in the report: the dashboard keys them by their command, the
numastat-like placement table and the event attribution in `summary` and in
the HTML page; point labels; the dashboard's progress.  Run by test_report.py
(tests/integration/test-report-v2.sh)."""
import json
import os
import re
import shutil
import tempfile

import make_fixture
from reportcheck import Case, pnreport

from pnreportlib import labels

COMMANDS = (["sleep", "1"], ["python3", "-c", "x = bytearray(200 << 20)"], ["memhog", "64M"])


def as_exec(path, command):
    """A fixture run rewritten as an --exec run of `command` (what run.c writes:
    config "exec", exec_command the argv)."""
    jp = os.path.join(path, "run.json")
    with open(jp) as fh:
        doc = json.load(fh)
    doc["config"].update(name="exec", file="(built-in exec)", sha256=None)
    doc["exec_command"] = command
    with open(jp, "w") as fh:
        json.dump(doc, fh)


class ExecDashboard(Case):
    @classmethod
    def setUpClass(cls):
        cls.T = tempfile.mkdtemp(prefix="pnreport-exec.")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.T, ignore_errors=True)

    def dashboard(self, name, commands):
        """Three runs, the third 20 % slower; each of `commands` -> index page, stderr."""
        res = f"{self.T}/{name}"
        for i, cmd in enumerate(commands):
            make_fixture.write_run(f"{res}/r{i}", kernel="private", seed=80 + i, shift=20.0 if i == 2 else 0.0)
            as_exec(f"{res}/r{i}", cmd)
        out = f"{self.T}/{name}-dash"
        p = pnreport("dashboard", res, "--db", f"{self.T}/{name}.sqlite", "-o", out)
        with open(f"{out}/index.html", encoding="utf-8") as fh:
            return fh.read(), p.stderr

    def test_exec_runs_of_different_commands_are_different_series(self):
        doc, _ = self.dashboard("three", COMMANDS)
        self.has(doc, "0 series with a regression")
        for cmd in ("exec -- sleep 1", "exec -- memhog 64M", "exec -- python3 -c &#x27;x = bytearray(200 &lt;&lt; 20)&#x27;"):
            self.has(doc, cmd)

    def test_the_same_command_is_one_series_and_its_slowdown_is_flagged(self):
        # the control: the 20 % slower third run is a regression when the commands agree
        doc, _ = self.dashboard("same", [COMMANDS[2]] * 3)
        self.lacks(doc, "0 series with a regression")
        self.has(doc, "exec -- memhog 64M")

    def test_progress_with_an_eta(self):
        res = f"{self.T}/many"
        for i in range(5):
            make_fixture.write_run(f"{res}/r{i}", kernel="private", seed=90 + i)
        p = pnreport("dashboard", res, "--db", f"{self.T}/many.sqlite", "-o", f"{self.T}/many-dash")
        lines = [x for x in p.stderr.splitlines() if "runs indexed" in x or "metric pages" in x]
        self.assertTrue(lines, p.stderr)
        for x in lines:
            self.assertRegex(x, r"^pnreport: (runs indexed|metric pages written) \d+/\d+, "
                                r"(\d+\.\d s, ETA \d+ s|done in \d+\.\d s)$")
        self.assertIn("pnreport: runs indexed 5/5, done in", p.stderr)


class Labels(Case):
    def test_matrix_points_read_as_short_unique_keys(self):
        m = {"$.phases[0].workloads[0].params.size": "16M", "$.phases[1].workloads[0].params.spill": "after"}
        self.assertEqual(labels.matrix_label(m), "size=16M spill=after")
        m = {"$.phases[0].workloads[0].params.size": "16M", "$.phases[1].workloads[0].params.size": "32M",
             "$.phases[1].workloads[0].params.thp": True}
        self.assertEqual(labels.matrix_label(m), "phases[0].workloads[0].params.size=16M "
                                                 "phases[1].workloads[0].params.size=32M thp=true")
        self.assertEqual(labels.point_label(json.dumps(m, sort_keys=True)).count("size="), 2)
        self.assertEqual(labels.point_label("#0"), "")
        self.assertEqual(labels.point_label("#3"), "point 3")

    def test_compare_never_cuts_labels_into_look_alikes(self):
        gold = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
        t = pnreport("compare", f"{gold}/private-exhaust", f"{gold}/stock-exhaust", "--all").stdout
        rows = [x.split("  ")[0] for x in t.splitlines() if x.startswith("[")]
        self.assertTrue(rows)
        self.assertEqual(len(rows), len(set(rows)), "two metric rows read alike")
        self.assertNotIn("$.phases", t)
        self.has(t, "[policy=interleave]")
        self.assertTrue(any(re.search(r"\{spill=after\}", r) for r in rows))


def exec_with_events(path):
    """A fixture run rewritten as `--exec -- memhog 64M` on private node 1 with the
    perf collector's attribution in its first phase (the shape of a real run:
    core/runner/exec.c, collectors/perf/pgacct_report.c, pgowner.c)."""
    make_fixture.write_run(path, kernel="stock", seed=7, iterations=1)
    jp = os.path.join(path, "run.json")
    with open(jp) as fh:
        doc = json.load(fh)
    doc["config"].update(name="exec", file="(built-in exec)", sha256=None)
    doc["exec_command"] = ["memhog", "64M"]
    ph = doc["points"][0]["iterations"][0]["phases"][0]
    ph["exec"] = {"exit_code": 0, "census": "pagemap", "samples": 4,
                  "peak_pages_per_node": {"0": 1200, "1": 16384}, "last_pages_per_node": {"0": 455, "1": 16001},
                  "last_anon_pages_per_node": {"0": 17, "1": 16000}, "numa_maps_pages_per_node": {"0": 454, "1": 16001}}
    ph["events"] = {"perf": {"details": {"private_nodes": [{
        "node": 1, "general_alloc_pages": 64462, "general_freed_pages": 57325, "general_pages": 7137,
        "by_kind": [{"class": "general", "gfp": "GFP_KERNEL_ACCOUNT|__GFP_ZERO", "order": 0, "migratetype": 0,
                     "pages": 2718},
                    {"class": "general", "gfp": "GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP", "order": 0,
                     "migratetype": 1, "pages": 53602}],
        "by_process": [{"pid": 42, "comm": "memhog", "general_pages": 28012, "explicit_pages": 0,
                        "freed_pages": 28012}],
        "examples": [{"t_ns": 1, "cpu": 1, "pid": 42, "comm": "memhog", "pfn": "0x446050", "order": 0,
                      "gfp": "GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP", "migratetype": 1}],
        "page_owner": {"top_stacks": [{"pages": 900, "allocations": 900, "gfp": "GFP_HIGHUSER_MOVABLE",
                                       "first_pid": 42, "first_comm": "memhog",
                                       "stack": ["post_alloc_hook+0x1", "get_page_from_freelist+0x2",
                                                 "__alloc_pages_noprof+0x3", "do_anonymous_page+0x4"]}]}}]}}}
    with open(jp, "w") as fh:
        json.dump(doc, fh)
    return doc


class ExecReport(Case):
    @classmethod
    def setUpClass(cls):
        cls.T = tempfile.mkdtemp(prefix="pnreport-execrep.")
        exec_with_events(f"{cls.T}/run")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.T, ignore_errors=True)

    def test_summary_prints_the_placement_table_and_the_attribution(self):
        s = pnreport("summary", f"{self.T}/run").stdout
        lines = s.splitlines()
        self.assertIn("exec: memhog 64M: pages per node (worst of 1 phase(s))", lines)
        head = next(i for i, x in enumerate(lines) if x.split()[:3] == ["node", "role", "peak"])
        self.assertEqual(lines[head + 1].split()[:7], ["node", "0", "DRAM", "1,200", "455", "17", "454"])
        self.assertEqual(lines[head + 2].split()[:7], ["node", "1", "private", "16,384", "16,001", "16,000", "16,001"])
        self.assertIn("private node 1 (phase explicit, iteration 0): 64,462 pages of general allocations seen by the "
                      "events, 57,325 pages freed again, 7,137 pages held at the end", s)
        # by kind, largest first
        kinds = [x.split()[1] for x in lines if x.startswith("    general ")]
        self.assertEqual(kinds[:2], ["GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP", "GFP_KERNEL_ACCOUNT|__GFP_ZERO"])
        self.assertRegex(s, r"(?m)^    memhog\[42\]\s+28,012\s+0\s+28,012$")
        self.assertRegex(s, r"(?m)^    900\s+memhog\[42\]\s+GFP_HIGHUSER_MOVABLE\s+post_alloc_hook\+0x1 < ")
        self.assertNotIn("do_anonymous_page", s, "without -v: three frames")
        v = pnreport("summary", "-v", f"{self.T}/run").stdout
        self.assertIn("do_anonymous_page+0x4", v)

    def test_run_page_has_the_placement_and_attribution_sections(self):
        out = f"{self.T}/run.html"
        pnreport("run", f"{self.T}/run", "-o", out)
        with open(out, encoding="utf-8") as fh:
            doc = fh.read()
        self.has(doc, 'id="exec"')
        self.has(doc, "Command: memhog 64M.")
        self.has(doc, '<td class="n">16,384</td>')
        self.has(doc, 'id="attribution"')
        self.has(doc, "<td>memhog[42]</td>")
        self.has(doc, "GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP")
        self.has(doc, "do_anonymous_page+0x4")

    def test_a_run_without_exec_or_events_has_neither(self):
        make_fixture.write_run(f"{self.T}/plain", kernel="private", seed=8, iterations=1)
        s = pnreport("summary", f"{self.T}/plain").stdout
        self.assertNotIn("exec:", s)
        self.assertNotIn("seen by the events", s)
