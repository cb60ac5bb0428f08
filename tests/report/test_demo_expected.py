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


def refused(pages=PAGES):
    return f"rc=-1 errno=22 pages={pages} sigbus=0 node0={pages} absent=0"


def access_file(leak_by=None, override_moves=False, june=False):
    """access.txt: every confined call refused or on DRAM (one on P if leak_by);
    june: the grant itself fails (no cpuset can hold the device)"""
    out = {"confined_mems": "0", "granted_mems": "0-1"}
    for who in ("root", "nobody"):
        for c in demo_contract.CALLS:
            out[f"{who}_{c}"] = placed(P if (who, c) == leak_by else "0", errno=0 if leak_by else 22,
                                       rc=0 if leak_by else -1)
    out["override_migrate_pid"] = ("R migrate-pid rc=0 errno=0 pid=99" if override_moves
                                   else "R migrate-pid rc=-1 errno=1 pid=99")
    out["override_after"] = placed(P if override_moves else "0")
    out["granted_mbind_bind"] = refused() if june else placed(P)
    if june:
        out["grant_error"] = "cpuset.mems 0,1 refused: sh: write error: Invalid argument"
    return out


def revoke_file(after_on=0, optout=True, june=False):
    out = {"cpuset_rc": "0", "cpuset_before": refused() if june else placed(P), "cpuset_after": placed("0"),
           "cpuset_mems_after": "0"}
    if optout:
        out.update(optout_rc="0", optout_before=placed(P),
                   optout_after=placed(P) if after_on else placed("0"))
    else:
        out["optout"] = "none: the stock model has no opt-in to withdraw"
    return out


def clients_file(private, june=False):
    """private: hidden without the grant; june: hidden with it too"""
    libnuma = "available=1 configured_nodes=3 max_node=2 nodes=0,1,2 all_nodes={a} mems_allowed={a}"
    out = {"hardware_rc": "0", "hardware_available": "3 nodes (0-2)", "hardware_node1_mb": "256",
           "hardware_node2_mb": "256", "lstopo_rc": "0", "lstopo_nodes": "0 " if june else "0 1 2 ",
           "lstopo_all_nodes": "0 1 2 ",
           "memattrs_node1": "latency=- bandwidth=-", "memattrs_node2": "latency=- bandwidth=-"}
    for pre in ("nogrant", "grant"):
        hidden = june or (private and pre == "nogrant")
        out[f"{pre}_libnuma"] = libnuma.format(a="0" if hidden else "0,1,2")
        out[f"{pre}_interleave"] = ("rc=0 errno=0 pages=1024 sigbus=0 node0=1024 absent=0" if hidden else
                                    "rc=0 errno=0 pages=1024 sigbus=0 node0=342 node1=341 node2=341 absent=0")
        out[f"{pre}_interleave_memhog_rc"] = "0"
        out[f"{pre}_membind"] = "libnuma: Warning: node argument 1 is out of range" if hidden else placed(P)
        out[f"{pre}_membind_memhog_rc"] = "1" if hidden else "0"
    if june:
        out["grant_optin"] = "0 R write rc=-1 errno=1"
    return out


def hotadd_file(second_fwd="16", second_rev="16", kind_fwd="private", kind_rev="ordinary"):
    """hotadd.txt: the second add refused (16) or accepted (0), the node's kind once online"""
    out = {"node": "2", "dax": "dax1.0 dax2.0", "kinds": "kmem.private_nodes"}
    for pre, second, kind in (("fwd", second_fwd, kind_fwd), ("rev", second_rev, kind_rev)):
        out.update({f"{pre}_left_before": "", f"{pre}_first": "0", f"{pre}_first_blocks": "1",
                    f"{pre}_second": second, f"{pre}_new_blocks": "0" if second != "0" else "2",
                    f"{pre}_mixlog": "1" if second == "16" else "0", f"{pre}_kind": kind})
    return out


def driver_file(exhaust_elsewhere=0, sigbus=1024, rc="0", hung=False):
    """driver.txt: the test device's mmap over both devices, then over node 1 beyond its size"""
    return {"driver": "/dev/private_node_test",
            "explicit": "R driver rc=0 errno=0 pages=8192 sigbus=0 node1=4096 node2=4096 absent=0 "
                        "R driver-stats faults=8192 private=8192 fallback=0 failed=0",
            "exhaust_pages": "66560", "exhaust_rc": rc, "oom_kills": "0",
            **({"exhaust_hung": "120 s; State: S (sleeping) wchan throttle_direct_reclaim"} if hung else {}),
            "exhaust": f"R driver rc=0 errno=0 pages=66560 sigbus={sigbus} node1=65000 "
                       + (f"node0={exhaust_elsewhere} " if exhaust_elsewhere else "") + "absent=0"}


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

    def cell(self, model, files, docs=None, runs=("instrument", "clients", "access", "revoke", "hotadd", "driver"),
             hmat=0):
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
                         {"stock": False, "isolate": False, "private": True, "june2026": False})
        # stock's design: CAP_SYS_NICE moves another task's pages outside its cpuset
        self.assertEqual(self.verdicts({"access": access_file(override_moves=True)}),
                         {"stock": True, "isolate": True, "private": False, "june2026": False})
        # june2026: no cpuset can be granted the device
        self.assertEqual(self.verdicts({"access": access_file(june=True)}),
                         {"stock": False, "isolate": False, "private": False, "june2026": True})
        r = demo_table.JUDGES["access"](self.cell("june2026", {"access": access_file(june=True)}), "x")
        self.assertIn("no grant (cpuset.mems refused)", r["text"])
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
        # june2026 grants nothing: a policy served on the device before is not its design
        self.assertEqual(self.verdicts({"revoke": revoke_file()}),
                         {"stock": True, "isolate": True, "private": True, "june2026": False})
        # the opt-out does not revoke (v2): private only
        self.assertEqual(self.verdicts({"revoke": revoke_file(after_on=1)}),
                         {"stock": True, "isolate": True, "private": False, "june2026": False})
        # no opt-out case measured: a private kernel must have one
        self.assertEqual(self.verdicts({"revoke": revoke_file(optout=False)}),
                         {"stock": True, "isolate": True, "private": False, "june2026": False})
        # a policy that never reached the device demonstrates nothing, except
        # on june2026, whose design refuses it before and after
        f = revoke_file(optout=False)
        f["cpuset_before"] = placed("0")
        self.assertEqual(self.verdicts({"revoke": f}),
                         {"stock": False, "isolate": False, "private": False, "june2026": True})
        self.assertEqual(self.verdicts({"revoke": revoke_file(optout=False, june=True)}),
                         {"stock": False, "isolate": False, "private": False, "june2026": True})
        # ... but not if an opt-out case reached the device (the opt-in worked)
        f = revoke_file(june=True)
        self.assertIs(self.verdicts({"revoke": f})["june2026"], False)

    def test_clients(self):
        self.assertEqual(self.verdicts({"clients": clients_file(private=True)}),
                         {"stock": False, "isolate": False, "private": True, "june2026": False})
        self.assertEqual(self.verdicts({"clients": clients_file(private=False)}),
                         {"stock": True, "isolate": True, "private": False, "june2026": False})
        # numactl cannot name the device even with the grant (v2's Mems_allowed):
        # a defect of a private kernel; june2026's design, where hwloc's default
        # view (the process's Mems_allowed) then leaves the device out as well
        f = clients_file(private=True)
        f["grant_libnuma"] = f["nogrant_libnuma"]
        f["grant_membind"] = f["nogrant_membind"]
        f["grant_interleave"] = f["nogrant_interleave"]
        f["grant_membind_memhog_rc"] = "1"
        self.assertEqual(self.verdicts({"clients": f}), dict.fromkeys(demo_table.MODELS, False))
        f["lstopo_nodes"] = "0 "
        self.assertEqual(self.verdicts({"clients": f}),
                         {"stock": False, "isolate": False, "private": False, "june2026": True})
        self.assertEqual(self.verdicts({"clients": clients_file(private=True, june=True)}),
                         {"stock": False, "isolate": False, "private": False, "june2026": True})
        # june2026 with HMAT: the node is N_MEMORY, hwloc must show its attributes
        j = clients_file(private=True, june=True)
        judge = demo_table.JUDGES["clients"]
        self.assertIs(judge(self.cell("june2026", {"clients": j}, hmat=1), "x")["pass"], False)
        j["memattrs_node1"] = j["memattrs_node2"] = "latency=400 bandwidth=4000"
        self.assertIs(judge(self.cell("june2026", {"clients": j}, hmat=1), "x")["pass"], True)
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
        self.assertEqual(self.verdicts(f, seen), {"stock": True, "isolate": True, "private": False,
                                                  "june2026": False})
        self.assertEqual(self.verdicts(f, {"leak": verdict(0, 0), "quiet": quiet}),
                         {"stock": False, "isolate": False, "private": True, "june2026": True})
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

    def test_hotadd(self):
        # series v3: the other kind refused while the first is added but offline
        self.assertEqual(self.verdicts({"hotadd": hotadd_file()}),
                         {"stock": False, "isolate": True, "private": True, "june2026": True})
        # stock: one kind, both adds accepted
        self.assertEqual(self.verdicts({"hotadd": hotadd_file("0", "0", "ordinary", "ordinary")}),
                         {"stock": True, "isolate": False, "private": False, "june2026": False})
        # v2: offline private memory let ordinary memory in and came online ordinary
        self.assertEqual(self.verdicts({"hotadd": hotadd_file("0", "16", "ordinary")}),
                         dict.fromkeys(demo_table.MODELS, False))
        # refused, yet the node came online as the other kind
        self.assertEqual(self.verdicts({"hotadd": hotadd_file(kind_rev="private")}),
                         dict.fromkeys(demo_table.MODELS, False))
        # the node could not be emptied first (ZONE_NORMAL memory of an ordinary
        # node holds kernel allocations): not measured, shown but not judged
        f = hotadd_file()
        f["fwd_left_before"] = "memory40 "
        f["fwd_first"] = "16"
        self.assertEqual(self.verdicts({"hotadd": f}), dict.fromkeys(demo_table.MODELS, None))
        r = demo_table.JUDGES["hotadd"](self.cell("stock", {"hotadd": f}), "x")
        self.assertEqual(r["text"], "not measured: node 2's memory could not be removed first (memory40 in use)")
        r = demo_table.JUDGES["hotadd"](self.cell("private", {"hotadd": {"error": "node2 has dax1.0 only"}}), "x")
        self.assertEqual((r["pass"], r["text"]), (False, "node2 has dax1.0 only"))

    def driver_cell(self, drv, explicit_on=None):
        c = self.cell("june2026", {"driver": drv}, runs=("driver", "explicit", "exhaust"))
        for run in ("explicit", "exhaust"):
            os.makedirs(os.path.join(c.path, run))
            per = {"0": 256} if explicit_on is None else {"1": explicit_on}
            w = {"workload": run, "role": "foreground", "status": "error", "reason": "mbind: EINVAL",
                 "params": {"policy": "preferred_many"}, "placement": {"per_node": per, "misplaced_pages": 0},
                 "outcome": {}, "metrics": [], "tables": []}
            with open(os.path.join(c.path, run, "run.json"), "w", encoding="utf-8") as fh:
                json.dump({"points": [{"iterations": [{"phases": [{"name": "p", "workloads": [w]}]}]}]}, fh)
        return c

    def test_driver_rows_of_june2026(self):
        ex, eh = (demo_table.JUDGES[k] for k in ("explicit", "exhaust"))
        c = self.driver_cell(driver_file())
        r = ex(c, "x")
        self.assertIs(r["pass"], True, r)
        self.assertEqual(r["text"], "8192 of 8192 pages through the driver; policy: 0 on devices")
        r = eh(c, "x")
        self.assertIs(r["pass"], True, r)
        self.assertEqual(r["text"], "65000 on 1, 1024 SIGBUS, 0 elsewhere")
        # a full device fell back to DRAM: the private model's behaviour, not june2026's
        self.assertIs(eh(self.driver_cell(driver_file(exhaust_elsewhere=1024, sigbus=0)), "x")["pass"], False)
        # the request hung until killed (direct-reclaim throttling on a node without kswapd)
        r = eh(self.driver_cell(driver_file(rc="137", hung=True)), "x")
        self.assertEqual((r["pass"], r["text"]), (False, "hung (killed after 120 s)"))
        # a user policy served on the device: not june2026's design
        self.assertIs(ex(self.driver_cell(driver_file(), explicit_on=256), "x")["pass"], False)
        # no device (a kernel without the series)
        r = ex(self.driver_cell({"driver": "none: no /dev/private_node_test"}), "x")
        self.assertIs(r["pass"], False)

    def test_missing_results_are_not_as_expected(self):
        for key in ("access", "revoke", "clients", "instrument", "hotadd"):
            c = self.cell("private", {}, runs=())
            r = demo_table.JUDGES[key](c, "x")
            self.assertIs(r["pass"], False, key)
            self.assertEqual(r["text"], "did not run", key)


if __name__ == "__main__":
    unittest.main()
