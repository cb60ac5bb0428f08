"""`report summary DIR [-v]`: the run in a few lines of text (status first); an
--exec run's pages per node and the events' attribution (-v: more rows)."""
from . import exec_report, fmt
from .load import load_run, metric_id


def main(a):
    run = load_run(a.dir)
    d = run.doc
    print(f"run {run.dir}: {d.get('config', {}).get('name')} on {d.get('host', {}).get('hostname')}, "
          f"kernel {run.kernel_label}, {run.state}" + (f" ({run.reason})" if run.reason else ""))
    if run.incomplete:
        print("  INCOMPLETE: only the phases that finished are below")
    print(f"roles: private [{d['roles'].get('private')}] dram [{d['roles'].get('dram')}]")
    for p, m in run.summary_metrics():
        print(f"  {m.get('phase')}/{m.get('workload')}: {metric_id(m):44s} median "
              f"{fmt.value(m.get('median'), m.get('unit'), html=False):>14s} (n={m.get('n')})")
    for line in exec_report.text(run, getattr(a, "verbose", False)):
        print(line)
    v = d["verdict"]
    for node, nv in sorted((v.get("nodes") or {}).items(), key=lambda kv: int(kv[0])):
        print(f"  private node {node}: {fmt.value(nv.get('general_pages_max'), 'pages')} of general allocations at most"
              + (" (inconclusive)" if nv.get("inconclusive") else ""))
    ch = v.get("checks") or {}
    if ch:
        print(f"checks: {ch.get('passed')} of {ch.get('total')} passed")
    print(f"verdict: {v.get('result')}")
    for r in v.get("reasons") or []:
        print(f"  {r}")
    return 0
