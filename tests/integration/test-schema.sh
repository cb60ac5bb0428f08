#!/usr/bin/env bash
# The results schema against golden files: every tests/golden/*.json must be
# valid, and each mutation below (one broken field each) must be rejected with
# a message naming that field.  TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
exec /usr/bin/python3 - <<'PY'
import copy, glob, json, os, sys
sys.path.insert(0, "results/schema")
try:
    import jsonschema
except ImportError:
    print("1..0 # SKIP python3-jsonschema not installed (make deps)")
    sys.exit(4)
schema = json.load(open("results/schema/run.schema.json"))
V = jsonschema.Draft202012Validator(schema)
n = 0
def ok(cond, desc, detail=""):
    global n
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {desc}")
    if not cond and detail:
        for l in str(detail).splitlines()[:6]:
            print("#   " + l)

goldens = sorted(glob.glob("tests/golden/*.json"))
ok(len(goldens) >= 2, f"at least two golden results ({len(goldens)})")
states = set()
for g in goldens:
    doc = json.load(open(g))
    errs = list(V.iter_errors(doc))
    states.add(doc["status"]["state"])
    ok(not errs, f"golden {os.path.basename(g)} is valid", "\n".join(e.message for e in errs))
ok({"complete", "incomplete"} <= states, "goldens cover complete and incomplete runs")

base = json.load(open("tests/golden/smoke-complete.json"))
def first_workload(d):
    for p in d["points"]:
        for i in p["iterations"]:
            for ph in i["phases"]:
                for w in ph["workloads"]:
                    if w["status"] == "ok":
                        return w
    raise KeyError("no ok workload in the golden file")
def first_phase(d):
    return d["points"][0]["iterations"][0]["phases"][0]

def first_node(d):
    return next(iter(first_phase(d)["nodes"].values()))

mutations = [
    ("schema_version missing", lambda d: d.pop("schema_version"), "schema_version"),
    ("schema_version 1", lambda d: d.__setitem__("schema_version", 1), "schema_version"),
    ("unknown status state", lambda d: d["status"].__setitem__("state", "done"), "state"),
    ("incomplete without a reason", lambda d: d["status"].update(state="incomplete", reason=None), "reason"),
    ("complete with no points", lambda d: (d["status"].update(state="complete", reason=None), d.__setitem__("points", [])), "points"),
    ("verdict fail without reasons", lambda d: d["verdict"].update(result="fail", reasons=[]), "reasons"),
    ("bad node list in roles", lambda d: d["roles"].__setitem__("private", "1,x"), "private"),
    ("kconfig hash not hex", lambda d: d["kernel"].__setitem__("kconfig_sha256", "xyz"), "kconfig_sha256"),
    ("ok workload without placement", lambda d: first_workload(d).pop("placement"), "placement"),
    ("negative misplaced pages", lambda d: first_workload(d)["placement"].__setitem__("misplaced_pages", -1), "misplaced_pages"),
    ("metric without unit", lambda d: first_workload(d)["metrics"][0].pop("unit"), "unit"),
    ("metric label not a string", lambda d: first_workload(d)["metrics"][0]["labels"].__setitem__("node", 1), "labels"),
    ("check without pass", lambda d: first_workload(d)["checks"][0].pop("pass"), "pass"),
    ("unknown outcome end", lambda d: first_workload(d)["outcome"].__setitem__("end", "exploded"), "end"),
    ("node without role", lambda d: first_node(d).pop("role"), "role"),
    ("negative general pages of a kind", lambda d: first_node(d)["general_pages"].__setitem__("file", -3), "file"),
    ("timestamp not UTC ISO 8601", lambda d: d.__setitem__("started_at", "yesterday"), "started_at"),
    ("collector ok without file", lambda d: d["collectors"][0].pop("file"), "file"),
    # drift: a key the writer adds must be added to the schema too
    ("unknown top-level key", lambda d: d.__setitem__("extra", 1), "extra"),
    ("unknown workload key", lambda d: first_workload(d).__setitem__("peak_used_growth_pages", 1), "peak_used_growth_pages"),
    ("unknown node key", lambda d: first_node(d).__setitem__("peak", {}), "peak"),
    ("unknown verdict key", lambda d: d["verdict"].__setitem__("general", 0), "general"),
]
for desc, mut, field in mutations:
    d = copy.deepcopy(base)
    try:
        mut(d)
    except (KeyError, IndexError, StopIteration) as e:
        ok(False, f"mutation '{desc}' applies to the golden file", e)
        continue
    errs = list(V.iter_errors(d))
    text = "\n".join(f"{list(e.absolute_path)} {e.message}" for e in errs)
    ok(errs and field in text, f"schema rejects: {desc}", text or "accepted")

# Semantics the schema cannot state: general pages by kind add up to the total
# at every reported moment, in every golden.
KINDS = ["anon", "file", "slab", "kernel_stack", "page_tables", "hugetlb", "other"]
for g in goldens:
    doc = json.load(open(g))
    bad = []
    for p in doc["points"]:
        for i in p["iterations"]:
            for ph in i["phases"]:
                for nid, nd in ph["nodes"].items():
                    for key in ("general_pages", "general_end", "general_peak"):
                        gp = nd[key]
                        if sum(gp[k] for k in KINDS) != gp["total"]:
                            bad.append(f"{ph['name']} node {nid} {key}")
    ok(not bad, f"{os.path.basename(g)}: general pages by kind add up to the total", ", ".join(bad))

# A golden is stale when the writer's keys moved on: regenerate smoke and
# compare the set of key paths (values differ run to run, keys must not).
def paths(x, pre=""):
    out = set()
    if isinstance(x, dict):
        for k, v in x.items():
            kk = "<n>" if k.isdigit() else k
            out.add(pre + "." + kk)
            out |= paths(v, pre + "." + kk)
    elif isinstance(x, list):
        for v in x:
            out |= paths(v, pre + "[]")
    return out
import subprocess, tempfile
pn = os.environ.get("PNBENCH_BIN", "build/pnbench")
if os.access(pn, os.X_OK):
    with tempfile.TemporaryDirectory() as t:
        subprocess.run([pn, "run", "-q", "configs/smoke.json", "-o", t + "/r"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fresh = paths(json.load(open(t + "/r/run.json")))
        gold = paths(base)
        ok(fresh == gold, "tests/golden/smoke-complete.json has the keys the suite writes today "
           "(else: tests/golden/regen.sh)",
           "only in a fresh run: " + ", ".join(sorted(fresh - gold)[:8]) +
           "\nonly in the golden: " + ", ".join(sorted(gold - fresh)[:8]))
else:
    print(f"ok {n + 1} - golden freshness # SKIP {pn} not built"); n += 1
print(f"1..{n}")
PY
