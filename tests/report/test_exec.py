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
