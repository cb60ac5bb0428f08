"""The driver's mmap path in the truth table: /dev/private_node_test (the
series' test device) measured by scripts/demo-contract.sh (contract_driver,
/mnt/host/driver.txt) in every guest whose kernel has it.

In the june2026 model a driver's mmap() is the only way user space reaches
private memory, so its explicit and exhaust rows are judged here:

  explicit  8192 pages mapped from the device over both device nodes: every
            one on a device, while the policy-driven explicit run is refused
  exhaust   the first device's size + 1024 pages mapped from it alone: the
            device fills, the rest fails (SIGBUS), nothing on DRAM or on the
            other device, no OOM kill, no hang
"""
from .demo_cells import kvline, results, row


def _driver(cell, exp):
    """(driver.txt, None), or (None, the row saying why there is none: no run,
    no file, or a kernel without the test device)"""
    f, why = results(cell, "driver", exp)
    if f and f.get("driver", "").startswith("none"):
        return None, row(None, f"no driver results ({f['driver']})", exp, False)
    return f, why


def _nodes(r):
    return {k[4:]: int(v) for k, v in r.items() if k.startswith("node") and k[4:].isdigit()}


def judge_explicit(cell, exp, policy_pages):
    """policy_pages: device pages the policy-driven explicit run placed (None:
    no run.json; the model refuses the policy, so none is expected)"""
    f, why = _driver(cell, exp)
    if why:
        return why
    r = kvline(f.get("explicit"))
    per = _nodes(r)
    want = int(r.get("pages", 0))
    dev = sum(per.get(n, 0) for n in cell.devices)
    ok = want > 0 and dev == want and r.get("sigbus") == "0" and not policy_pages
    text = f"{dev} of {want} pages through the driver; policy: {policy_pages or 0} on devices"
    detail = (f"/dev/private_node_test mmap over {','.join(cell.devices)}: {f.get('explicit')}; "
              f"the explicit run's mbind() pages on the devices: {policy_pages}")
    return row(dev, text, exp, ok, detail)


def judge_exhaust(cell, exp):
    f, why = _driver(cell, exp)
    if why:
        return why
    r = kvline(f.get("exhaust"))
    per = _nodes(r)
    first = cell.devices[0]
    on_first = per.get(first, 0)
    elsewhere = sum(v for n, v in per.items() if n != first)
    bus, oom, rc = int(r.get("sigbus", 0)), int(f.get("oom_kills", 0) or 0), f.get("exhaust_rc")
    hung = bool(f.get("exhaust_hung"))
    text = ("hung (killed after 120 s)" if hung else
            f"{on_first} on {first}, {bus} SIGBUS, {elsewhere} elsewhere" + (f", {oom} OOM kills" if oom else ""))
    ok = not hung and rc == "0" and on_first > 0 and bus > 0 and elsewhere == 0 and oom == 0
    detail = (f"{f.get('exhaust_pages')} pages mapped from /dev/private_node_test on node {first} "
              f"(its size + 1024): {f.get('exhaust')}; exit {rc}; OOM kills {oom}"
              + (f"; hung: {f['exhaust_hung']}, {f.get('exhaust_hung_vmstat', '')}, stack "
                 f"{f.get('exhaust_hung_stack', '') or '-'}" if hung else ""))
    return row(on_first, text, exp, ok, detail)
