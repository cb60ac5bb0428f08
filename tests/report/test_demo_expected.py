"""The truth table's expected column (issue 21): every row x model has an
expectation and a reason, every row a judge, and the contract rows' judges
(report/pnreportlib/demo_contract.py) say yes and no from what a guest wrote:
a cell is built here the way scripts/demo-contract.sh writes it, for the
behaviour each model's design describes, and judged under every model.
Run by test_report.py (tests/integration/test-report-v2.sh)."""
import json
import os
import shutil
import tempfile
import unittest

from pnreportlib import demo_contract, demo_table

P = "1"
PAGES = demo_contract.PAGES


def placed(node, pages=PAGES, errno=0, rc=0):
    return f"rc={rc} errno={errno} pages={pages} sigbus=0 node{node}={pages} absent=0"


def access_file(leak_by=None, override_moves=False):
    """access.txt: every confined call refused or on DRAM (one on P if leak_by)"""
    out = {"confined_mems": "0", "granted_mems": "0-1"}
    for who in ("root", "nobody"):
        for c in demo_contract.CALLS:
            out[f"{who}_{c}"] = placed(P if (who, c) == leak_by else "0", errno=0 if leak_by else 22,
                                       rc=0 if leak_by else -1)
    out["override_migrate_pid"] = ("R migrate-pid rc=0 errno=0 pid=99" if override_moves
                                   else "R migrate-pid rc=-1 errno=1 pid=99")
    out["override_after"] = placed(P if override_moves else "0")
    out["granted_mbind_bind"] = placed(P)
    return out


def revoke_file(after_on=0, optout=True):
    out = {"cpuset_rc": "0", "cpuset_before": placed(P), "cpuset_after": placed("0"),
           "cpuset_mems_after": "0"}
    if optout:
        out.update(optout_rc="0", optout_before=placed(P),
                   optout_after=placed(P) if after_on else placed("0"))
    else:
        out["optout"] = "none: the stock model has no opt-in to withdraw"
    return out


def clients_file(private):
    libnuma = "available=1 configured_nodes=3 max_node=2 nodes=0,1,2 all_nodes={a} mems_allowed={a}"
    out = {"hardware_rc": "0", "hardware_available": "3 nodes (0-2)", "hardware_node1_mb": "256",
           "hardware_node2_mb": "256", "lstopo_rc": "0", "lstopo_nodes": "0 1 2 ",
           "memattrs_node1": "latency=- bandwidth=-", "memattrs_node2": "latency=- bandwidth=-"}
    for pre in ("nogrant", "grant"):
        hidden = private and pre == "nogrant"
        out[f"{pre}_libnuma"] = libnuma.format(a="0" if hidden else "0,1,2")
        out[f"{pre}_interleave"] = ("rc=0 errno=0 pages=1024 sigbus=0 node0=1024 absent=0" if hidden else
                                    "rc=0 errno=0 pages=1024 sigbus=0 node0=342 node1=341 node2=341 absent=0")
        out[f"{pre}_interleave_memhog_rc"] = "0"
        out[f"{pre}_membind"] = "libnuma: Warning: node argument 1 is out of range" if hidden else placed(P)
        out[f"{pre}_membind_memhog_rc"] = "1" if hidden else "0"
    return out


def verdict(events, exit_code):
    return {"verdict": {"exit_code": exit_code, "nodes": {P: {"general_pages_max": events,
                                                              "sources": {"counters": 0, "events": events}}}}}


class Expected(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pn-demo-expected.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_every_row_and_model_has_an_expectation_and_a_reason(self):
        keys = [k for k, _ in demo_table.ROWS]
        self.assertEqual(len(keys), len(set(keys)))
        for k in keys:
            self.assertIn(k, demo_table.JUDGES, k)
            for m in demo_table.MODELS:
                exp, why = demo_table.EXPECTED[k].get(m), demo_table.REASONS[k].get(m)
                self.assertTrue(exp and why, f"{k} x {m}: expectation {exp!r}, reason {why!r}")
                self.assertNotEqual(exp, why, f"{k} x {m}: the reason repeats the expectation")
        for k in ("access", "revoke", "clients", "instrument"):
            self.assertIn(k, keys)

    def cell(self, model, files, docs=None, runs=("instrument", "clients", "access", "revoke"), hmat=0):
        d = os.path.join(self.tmp, f"{model}-{len(os.listdir(self.tmp))}")
        os.makedirs(os.path.join(d, "instrument"))
        with open(os.path.join(d, "cell.txt"), "w", encoding="utf-8") as fh:
            fh.write(f"kernel={model}\nmodel={model}\nonline=movable\nhmat={hmat}\n")
        with open(os.path.join(d, "guest.txt"), "w", encoding="utf-8") as fh:
            fh.write(f"model={model}\ndevices=1,2\n")
        with open(os.path.join(d, "runs.txt"), "w", encoding="utf-8") as fh:
            fh.writelines(f"{r} rc=0 seconds=1.0\n" for r in runs)
        for name, kv in files.items():
            with open(os.path.join(d, name + ".txt"), "w", encoding="utf-8") as fh:
                fh.writelines(f"{k}={v}\n" for k, v in kv.items())
        for name, doc in (docs or {}).items():
            with open(os.path.join(d, "instrument", name + ".json"), "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
        return demo_table.Cell(d)

    def verdicts(self, files, docs=None):
        """{model: pass} for the same guest results judged under each model"""
        out = {}
        for m in demo_table.MODELS:
            c = self.cell(m, files, docs)
            (key,) = files
            out[m] = demo_table.JUDGES[key](c, demo_table.EXPECTED[key][m])["pass"]
        return out

    def test_access(self):
        # v3: every confined call refused, root's override refused
        self.assertEqual(self.verdicts({"access": access_file()}),
                         {"stock": False, "isolate": False, "private": True})
        # stock's design: CAP_SYS_NICE moves another task's pages outside its cpuset
        self.assertEqual(self.verdicts({"access": access_file(override_moves=True)}),
                         {"stock": True, "isolate": True, "private": False})
        # one call of nobody's lands 256 pages on the device: a leak on every model
        for leak in (("nobody", "mbind_bind"), ("root", "migrate_pages")):
            for ov in (False, True):
                got = self.verdicts({"access": access_file(leak_by=leak, override_moves=ov)})
                self.assertEqual(got, dict.fromkeys(demo_table.MODELS, False), (leak, ov))
        r = demo_table.JUDGES["access"](self.cell("private", {"access": access_file(("nobody", "move_pages"))}),
                                        "x")
        self.assertIn("confined 256 of 2560 on 1", r["text"])
        self.assertIn("nobody move_pages: 256 on 1", r["detail"])

    def test_revoke(self):
        self.assertEqual(self.verdicts({"revoke": revoke_file()}), dict.fromkeys(demo_table.MODELS, True))
        # the opt-out does not revoke (v2): private only
        self.assertEqual(self.verdicts({"revoke": revoke_file(after_on=1)}),
                         {"stock": True, "isolate": True, "private": False})
        # no opt-out case measured: a private kernel must have one
        self.assertEqual(self.verdicts({"revoke": revoke_file(optout=False)}),
                         {"stock": True, "isolate": True, "private": False})
        # a policy that never reached the device demonstrates nothing
        f = revoke_file()
        f["cpuset_before"] = placed("0")
        self.assertEqual(self.verdicts({"revoke": f}), dict.fromkeys(demo_table.MODELS, False))

    def test_clients(self):
        self.assertEqual(self.verdicts({"clients": clients_file(private=True)}),
                         {"stock": False, "isolate": False, "private": True})
        self.assertEqual(self.verdicts({"clients": clients_file(private=False)}),
                         {"stock": True, "isolate": True, "private": False})
        # numactl cannot name the device even with the grant (v2's Mems_allowed)
        f = clients_file(private=True)
        f["grant_libnuma"] = f["nogrant_libnuma"]
        f["grant_membind"] = f["nogrant_membind"]
        self.assertEqual(self.verdicts({"clients": f}), dict.fromkeys(demo_table.MODELS, False))
        # lstopo that does not show the device nodes
        f = clients_file(private=True)
        f["lstopo_nodes"] = "0"
        self.assertFalse(self.verdicts({"clients": f})["private"])
        # a topology with HMAT: hwloc must show each device's latency and bandwidth
        f = clients_file(private=True)
        judge = demo_table.JUDGES["clients"]
        r = judge(self.cell("private", {"clients": f}, hmat=1), "x")
        self.assertIs(r["pass"], False, r)
        self.assertIn("hwloc HMAT node1 -/-", r["text"])
        f["memattrs_node1"] = f["memattrs_node2"] = "latency=250 bandwidth=8000"
        self.assertIs(judge(self.cell("private", {"clients": f}, hmat=1), "x")["pass"], True)
        f["memattrs_node2"] = "latency=- bandwidth=8000"
        self.assertIs(judge(self.cell("private", {"clients": f}, hmat=1), "x")["pass"], False)

    def test_instrument(self):
        self._instrument({"instrument": {"node": P, "injected": "8192", "leak_rc": "1", "quiet_rc": "0"}})

    def _instrument(self, f):
        quiet = verdict(0, 0)
        seen = {"leak": verdict(8192, 1), "quiet": quiet}
        self.assertEqual(self.verdicts(f, seen), {"stock": True, "isolate": True, "private": False})
        self.assertEqual(self.verdicts(f, {"leak": verdict(0, 0), "quiet": quiet}),
                         {"stock": False, "isolate": False, "private": True})
        # 8100 of 8192 is not exact (tolerance max(16 pages, 0.5 %)); a noisy quiet run fails
        self.assertFalse(self.verdicts(f, {"leak": verdict(8100, 1), "quiet": quiet})["stock"])
        self.assertTrue(self.verdicts(f, {"leak": verdict(8180, 1), "quiet": quiet})["stock"])
        self.assertFalse(self.verdicts(f, {"leak": verdict(8192, 1), "quiet": verdict(3, 1)})["stock"])
        # events that did not run (null): blind, never a pass
        self.assertFalse(self.verdicts(f, {"leak": verdict(None, 0), "quiet": verdict(None, 0)})["private"])

    def bench(self, kernel, none_b, dram_b, a=2866.9):
        """fastpath/<kernel>/samples.tsv as fault-bench writes it: one boot per
        side and setup, three reps (one misplaced rep, left out)"""
        d = os.path.join(self.tmp, "fastpath", kernel)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "samples.tsv"), "w", encoding="utf-8") as fh:
            fh.write("# A stock-x\n# B patched-y\n# side scenario round rep pages on_node insn\n")
            for side, scen, v in (("A", "none/dram", a), ("B", "none/dram", none_b),
                                  ("A", "private/dram", a), ("B", "private/dram", dram_b)):
                for rep in (1, 2, 3):
                    fh.write(f"{side}\t{scen}\t1\t{rep}\t16384\t16384\t{round(v * 16384)}\n")
                fh.write(f"{side}\t{scen}\t1\t4\t16384\t100\t{round(9 * v * 16384)}\n")

    def fastpath(self, model, kernel):
        c = self.cell(model, {})
        c.info["kernel"] = kernel
        return demo_table.JUDGES["fastpath"](c, demo_table.EXPECTED["fastpath"][model])

    def test_fastpath(self):
        self.assertIs(self.fastpath("private", "private")["pass"], False)  # not counted: never a pass
        self.bench("private", 2869.9, 2884.9)                      # v3: +3.0, +18.0
        r = self.fastpath("private", "private")
        self.assertIs(r["pass"], True, r)
        self.assertEqual(r["text"], "none 1.0010, private 1.0063")
        self.assertIs(self.fastpath("stock", "stock")["pass"], True)
        self.assertIs(self.fastpath("isolate", "private")["pass"], None)
        self.bench("v2", 2912.0, 2938.0)                           # v2: 1.0157, 1.0248
        r = self.fastpath("private", "v2")
        self.assertIs(r["pass"], False, r)
        self.assertIn("1.0157x stock (+45.1", r["detail"])
        self.bench("dramonly", 2869.9, 2930.0)                     # within 1.005 idle, over 1.02 with nodes
        self.assertIs(self.fastpath("private", "dramonly")["pass"], False)

    def test_missing_results_are_not_as_expected(self):
        for key in ("access", "revoke", "clients", "instrument"):
            c = self.cell("private", {}, runs=())
            r = demo_table.JUDGES[key](c, "x")
            self.assertIs(r["pass"], False, key)
            self.assertEqual(r["text"], "did not run", key)


if __name__ == "__main__":
    unittest.main()
