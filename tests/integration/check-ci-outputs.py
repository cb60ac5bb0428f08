#!/usr/bin/python3
"""Check the CI outputs of one run against their formats and against run.json
(called by test-ci-outputs.sh).

usage: check-ci-outputs.py RUN_JSON [--junit F] [--tap F] [--openmetrics F]

  JUnit        valid against tests/schemas/junit.xsd (xmllint --schema);
               one testcase of class pnbench.check per check run.json counts,
               as many passed and failed as it says; one pnbench.node case per private
               node, never a bare pass where run.json's node is inconclusive
               or failed; the verdict case names run.json's result.
  TAP          TAP version 13 as the reference parser reads it (perl
               TAP::Parser, when installed): no parse error, the plan
               matches; the same cases in the same order as the JUnit file,
               ok/not ok as JUnit's pass/skip vs failure/error/inconclusive.
  OpenMetrics  parsed by python3-prometheus-client's OpenMetrics parser (and
               the Prometheus text parser a textfile collector uses);
               pnbench_verdict per private node, pnbench_checks,
               pnbench_exit_code and pnbench_run_complete agree with run.json;
               one pnbench_metric per summarized metric.

Prints one line per problem; exits 0 when there is none, 1 otherwise, 2 on
bad usage.
"""
import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

XSD = "tests/schemas/junit.xsd"
problems = []


def bad(msg):
    problems.append(msg)


def nodes_of(spec):
    out = []
    for part in filter(None, (spec or "").split(",")):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def node_state(run, n):
    """What the writers must say of node n (out_ci.c), from run.json."""
    v = run["verdict"]
    nj = v.get("nodes", {}).get(str(n))
    if nj is None:
        return "skip"
    if not nj.get("pass"):
        return "fail"
    if nj.get("inconclusive"):
        return "inconclusive"
    if v.get("thresholds", {}).get("general_pages", 0) < 0:
        return "skip"
    return "inconclusive" if run["status"]["state"] == "incomplete" else "pass"


def junit_cases(path):
    """[(classname, name, state, message)] in document order."""
    r = subprocess.run(["xmllint", "--noout", "--schema", XSD, path], capture_output=True, text=True)
    if r.returncode:
        bad(f"{path}: not valid against {XSD}: {r.stderr.strip().splitlines()[:3]}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        bad(f"{path}: {e}")
        return []
    out = []
    for tc in root.iter("testcase"):
        kids = list(tc)
        state, msg = "pass", None
        if kids:
            state = {"failure": "fail", "error": "error", "skipped": "skip"}.get(kids[0].tag, "?")
            msg = kids[0].get("message", "")
            if state == "skip" and msg.startswith("inconclusive"):
                state = "inconclusive"
        out.append((tc.get("classname"), tc.get("name"), state, msg))
    return out


def check_junit(run, path):
    cases = junit_cases(path)
    checks = [c for c in cases if c[0] == "pnbench.check"]
    want = run["verdict"]["checks"]
    if len(checks) != want["total"]:
        bad(f"{path}: {len(checks)} check testcases, run.json counts {want['total']}")
    npass, nfail = sum(c[2] == "pass" for c in checks), sum(c[2] == "fail" for c in checks)
    if (npass, nfail) != (want["passed"], want["failed"]):
        bad(f"{path}: {npass} checks passed and {nfail} failed, run.json says "
            f"{want['passed']} and {want['failed']}")
    nodes = [c for c in cases if c[0] == "pnbench.node"]
    priv = nodes_of(run["roles"]["private"])
    if len(nodes) != len(priv):
        bad(f"{path}: {len(nodes)} node testcases for private nodes {priv}")
    for n, c in zip(priv, nodes):
        if c[2] != node_state(run, n):
            bad(f"{path}: node {n} is {c[2]}, run.json says {node_state(run, n)}")
    verdict = [c for c in cases if c[0] == "pnbench.verdict"]
    res = run["verdict"].get("result")
    if len(verdict) != 1 or verdict[0][1] != f"verdict: {res}":
        bad(f"{path}: the verdict testcase is {verdict}, run.json's result {res}")
    elif (verdict[0][2] == "pass") != (res == "pass" and run["status"]["state"] != "incomplete"):
        bad(f"{path}: the verdict testcase is {verdict[0][2]} for result {res}")
    return cases


def check_tap(path, junit):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    if lines[:1] != ["TAP version 13"]:
        bad(f"{path}: does not start with TAP version 13")
    perl = subprocess.run(
        ["perl", "-MTAP::Parser", "-e",
         'local $/; my $t = <STDIN>; my $p = TAP::Parser->new({tap => $t});'
         'while (my $r = $p->next) {}'
         'print join("\\n", $p->parse_errors), "\\n" if $p->parse_errors;'
         'exit(($p->parse_errors || $p->version != 13) ? 1 : 0);'],
        input=text, capture_output=True, text=True)
    if perl.returncode == 2 and "Can't locate" in perl.stderr:
        print("# TAP::Parser not installed: the TAP file is checked here only", file=sys.stderr)
    elif perl.returncode:
        bad(f"{path}: TAP::Parser: {(perl.stdout + perl.stderr).strip()[:300]}")
    tests = [ln for ln in lines if ln.startswith(("ok ", "not ok "))]
    plan = [ln for ln in lines if ln.startswith("1..")]
    if plan != [f"1..{len(tests)}"]:
        bad(f"{path}: plan {plan}, {len(tests)} test lines")
    if len(tests) != len(junit):
        bad(f"{path}: {len(tests)} tests, the JUnit file has {len(junit)} cases")
    for i, (ln, c) in enumerate(zip(tests, junit), 1):
        ok = ln.startswith("ok ")
        if not ln.startswith(("ok %d - " % i, "not ok %d - " % i)):
            bad(f"{path}: test {i} is numbered wrong: {ln!r}")
        if ok != (c[2] in ("pass", "skip")) or ("# SKIP" in ln) != (c[2] == "skip"):
            bad(f"{path}: test {i} {ln!r} but JUnit says {c[2]} ({c[1]})")


def om_samples(path):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
    from prometheus_client.parser import text_string_to_metric_families as prom
    text = open(path, encoding="utf-8").read()
    out = {}
    try:
        for fam in om(text):
            out[fam.name] = fam.samples
    except Exception as e:              # the parser raises ValueError and others
        bad(f"{path}: not OpenMetrics: {e}")
    try:
        list(prom(text))
    except Exception as e:
        bad(f"{path}: the Prometheus text parser refuses it: {e}")
    return out


def check_openmetrics(run, path):
    fams = om_samples(path)
    if not fams:
        return
    v = run["verdict"]
    want = {"pass": 0, "fail": 1, "inconclusive": 2, "skip": 3}
    got = {s.labels["node"]: s.value for s in fams.get("pnbench_verdict", [])}
    for n in nodes_of(run["roles"]["private"]):
        if got.get(str(n)) != want[node_state(run, n)]:
            bad(f"{path}: pnbench_verdict node {n} = {got.get(str(n))}, "
                f"run.json says {node_state(run, n)}")
    checks = {s.labels["result"]: s.value for s in fams.get("pnbench_checks", [])}
    if checks != {"passed": v["checks"]["passed"], "failed": v["checks"]["failed"]}:
        bad(f"{path}: pnbench_checks {checks}, run.json {v['checks']}")
    code = [s.value for s in fams.get("pnbench_exit_code", [])]
    if code != ([] if v.get("exit_code") is None else [v["exit_code"]]):
        bad(f"{path}: pnbench_exit_code {code}, run.json {v.get('exit_code')}")
    done = [s.value for s in fams.get("pnbench_run_complete", [])]
    final = run["status"]["state"] != "incomplete" and v.get("exit_code") is not None
    if done != [1 if final else 0]:
        bad(f"{path}: pnbench_run_complete {done}, run.json state {run['status']['state']}")
    nmet = sum(len(p.get("summary", {}).get("metrics", [])) for p in run["points"])
    if len(fams.get("pnbench_metric", [])) != nmet:
        bad(f"{path}: {len(fams.get('pnbench_metric', []))} pnbench_metric samples, "
            f"run.json summarizes {nmet}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_json")
    ap.add_argument("--junit")
    ap.add_argument("--tap")
    ap.add_argument("--openmetrics")
    a = ap.parse_args()
    run = json.load(open(a.run_json))
    junit = check_junit(run, a.junit) if a.junit else None
    if a.tap and junit is not None:
        check_tap(a.tap, junit)
    if a.openmetrics:
        check_openmetrics(run, a.openmetrics)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
