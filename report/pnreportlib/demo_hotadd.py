"""The hot-add kind row of the truth table (issue 21): memory of the other
kind added to a node whose memory is added but offline, both ways, measured
by scripts/demo-contract.sh (contract_hotadd, /mnt/host/hotadd.txt) on the
last device node, which demo.sh boots as two dax devices (run-guest.sh
--split-dev).

  forward  A added as private memory (node in kmem.private_nodes), left
           offline; B added as ordinary memory; A's blocks onlined
  reverse  B added as ordinary memory, left offline; A added as private;
           B's blocks onlined

A kernel with kinds refuses the second add (EBUSY = 16, no new memory
block) and the node comes online as the first kind.  A stock kernel has one
kind of memory (kmem has no private_nodes): both adds are accepted.
"""
from .demo_cells import results, row

ROW = ("hotadd", "hot-add kind: other kind added while offline, both ways")
EBUSY = "16"
_KINDS = ("refused both ways (EBUSY), kind kept",
          "the series records each node's kind when its first memory is added and refuses the other "
          "kind while any block of the node exists, online or offline (v3; v2 checked online memory "
          "only, so offline private memory could come online ordinary, or a DIMM private)")
EXPECTED = {
    "stock": ("both adds accepted (one kind)",
              "a stock kernel has one kind of memory: adding memory to a node whose memory is offline "
              "is always accepted, and the node stays ordinary"),
    "isolate": (_KINDS[0], "the comparison mode keeps the series' per-node kind: " + _KINDS[1]),
    "private": _KINDS,
    "june2026": (_KINDS[0], "the comparison mode keeps the series' per-node kind: " + _KINDS[1]),
}


def _direction(f, pre, first_kind):
    """(set up, ok-as-refused, ok-as-accepted, short text, detail) of one direction"""
    first, second = f.get(f"{pre}_first", "?"), f.get(f"{pre}_second", "?")
    new = int(f.get(f"{pre}_new_blocks", "0") or 0)
    kind = f.get(f"{pre}_kind", "?")
    added = int(f.get(f"{pre}_first_blocks", "0") or 0)
    setup = first == "0" and added > 0 and not f.get(f"{pre}_left_before")
    refused = setup and second == EBUSY and new == 0 and kind == first_kind
    accepted = setup and second == "0" and new > 0 and kind == "ordinary"
    short = ("refused" if second == EBUSY and new == 0 else
             "accepted" if second == "0" else f"errno {second}") + f", {kind}"
    detail = (f"{pre}: first add errno {first} ({added} blocks, node left before: "
              f"'{f.get(f'{pre}_left_before', '')}'), second add errno {second} ({new} new blocks, "
              f"'cannot mix' logged {f.get(f'{pre}_mixlog', '?')}x), node online as {kind}")
    return setup, refused, accepted, short, detail


def judge_hotadd(cell, exp):
    f, why = results(cell, "hotadd", exp)
    if why:
        return why
    fu, fr, fa, fs, fd = _direction(f, "fwd", "private")
    ru, rr, ra, rs, rd = _direction(f, "rev", "ordinary")
    detail = f"node {f.get('node')} (dax {f.get('dax')}; kinds: {f.get('kinds')}); {fd}; {rd}"
    if not (fu and ru):
        # the node's memory could not be emptied first (ZONE_NORMAL memory of
        # an ordinary node holds kernel allocations: the fault row's refusal):
        # nothing measured, so nothing judged
        left = f.get("fwd_left_before") or f.get("rev_left_before") or ""
        text = (f"not measured: node {f.get('node')}'s memory could not be removed first"
                + (f" ({left.strip()} in use)" if left.strip() else f" (first add errno {f.get('fwd_first')})"))
        return row(None, text, exp, None, detail)
    ok = (fa and ra) if cell.model == "stock" else (fr and rr)
    text = f"private first: {fs}; ordinary first: {rs}"
    return row(fs.split(",")[0], text, exp, ok, detail)
