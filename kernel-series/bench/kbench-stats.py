#!/usr/bin/python3
"""kbench-stats.py: the statistics of `make -C kernel-series bench`.

    kbench-stats.py SAMPLES.tsv
    kbench-stats.py --from-log SIDE SETUP ROUND LOG

--from-log prints the samples of one guest console LOG as SAMPLES.tsv
lines: each "R fault row=<row> round=<rep> node=<n> pages=<p> on_node=<q>
tsc=<t> ..." line of faultbench becomes SIDE, SETUP/<row>, ROUND, rep, p,
q, t.  Exit 1 on a malformed "R fault" line (named by file:line).


SAMPLES.tsv, one measured faultbench round per line, tab-separated:
    side scenario round rep pages on_node insn
side is A or B, scenario e.g. none/dram, round the boot round (1..),
rep the faultbench round inside that boot, pages the pages touched,
on_node the pages that landed on the scenario's node, insn the guest
instructions over the touch loop.  '#' lines are comments; "# A <label>"
and "# B <label>" name the kernels.

Per side, scenario and round: the median over its reps of insn / pages
(instructions per fault; one boot = one round).  Per side and scenario:
the median over rounds, and the spread of the per-round values [min..max].
Per scenario: ratio B/A and difference B - A of the two medians, and the
per-round difference B - A [min..max] over the rounds both sides have.
A sample with on_node != pages measured faults that did not land where
the scenario says: it is left out, reported, and the exit status is 1.
Nothing here gates on the figures themselves.
Exit: 0 ok, 1 a malformed line (named by file:line and field) or a
misplaced sample, 2 usage.
"""
import statistics
import sys

FIELDS = ("side", "scenario", "round", "rep", "pages", "on_node", "insn")


def fail(msg, code=1):
    print(f"kbench-stats: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_int(path, lineno, name, text, minimum):
    try:
        v = int(text)
    except ValueError:
        fail(f"{path}:{lineno}: field '{name}' is not an integer: '{text}'")
    if v < minimum:
        fail(f"{path}:{lineno}: field '{name}' must be >= {minimum}: {v}")
    return v


def read_samples(path):
    """{(side, scenario, round): [insn per fault, ...]}, labels, misplaced lines."""
    cells, labels, misplaced = {}, {"A": "A", "B": "B"}, []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                words = line[1:].split(None, 1)
                if len(words) == 2 and words[0] in labels:
                    labels[words[0]] = words[1]
                continue
            cols = line.split("\t")
            if len(cols) != len(FIELDS):
                fail(f"{path}:{lineno}: {len(cols)} fields, want {len(FIELDS)} ({' '.join(FIELDS)})")
            side, scen = cols[0], cols[1]
            if side not in ("A", "B"):
                fail(f"{path}:{lineno}: field 'side' must be A or B: '{side}'")
            if not scen:
                fail(f"{path}:{lineno}: field 'scenario' is empty")
            rnd = parse_int(path, lineno, "round", cols[2], 1)
            parse_int(path, lineno, "rep", cols[3], 0)
            pages = parse_int(path, lineno, "pages", cols[4], 1)
            on_node = parse_int(path, lineno, "on_node", cols[5], 0)
            insn = parse_int(path, lineno, "insn", cols[6], 0)
            if on_node != pages:
                misplaced.append(f"{path}:{lineno}: {side} {scen} round {rnd}: "
                                 f"{on_node}/{pages} pages on the scenario's node")
                continue
            cells.setdefault((side, scen, rnd), []).append(insn / pages)
    return cells, labels, misplaced


def span(values):
    return f"[{min(values):.1f}..{max(values):.1f}]" if values else "-"


def report(cells, labels):
    scenarios = []
    for (_, scen, _) in sorted(cells, key=lambda k: k[2]):
        if scen not in scenarios:
            scenarios.append(scen)
    rounds = sorted({k[2] for k in cells})
    per_round = {k: statistics.median(v) for k, v in cells.items()}
    print(f"# A = {labels['A']}")
    print(f"# B = {labels['B']}")
    print("# guest instructions per first-touch fault; a round = one boot of each kernel,"
          " its value the median of the boot's reps")
    for r in rounds:
        for s in scenarios:
            a, b = per_round.get(("A", s, r)), per_round.get(("B", s, r))
            if a is None and b is None:
                continue
            fa = f"{a:.1f}" if a is not None else "missing"
            fb = f"{b:.1f}" if b is not None else "missing"
            d = f"{b - a:+.1f}" if a is not None and b is not None else "-"
            print(f"round {r:<3} {s:<16} A {fa:>10}  B {fb:>10}  B-A {d:>8}")
    print()
    print(f"{'scenario':<16} {'rounds':>6} {'median A':>10} {'median B':>10} {'B/A':>7} {'B-A':>8}"
          f"  {'A per round':<18} {'B per round':<18} B-A per round")
    for s in scenarios:
        av = [per_round[k] for k in sorted(per_round) if k[0] == "A" and k[1] == s]
        bv = [per_round[k] for k in sorted(per_round) if k[0] == "B" and k[1] == s]
        both = [r for r in rounds if ("A", s, r) in per_round and ("B", s, r) in per_round]
        dv = [per_round[("B", s, r)] - per_round[("A", s, r)] for r in both]
        ma = statistics.median(av) if av else None
        mb = statistics.median(bv) if bv else None
        fa = f"{ma:.1f}" if ma is not None else "-"
        fb = f"{mb:.1f}" if mb is not None else "-"
        ratio = f"{mb / ma:.4f}" if ma and mb is not None else "-"
        diff = f"{mb - ma:+.1f}" if ma is not None and mb is not None else "-"
        dspan = f"[{min(dv):+.1f}..{max(dv):+.1f}]" if dv else "-"
        print(f"{s:<16} {len(both):>6} {fa:>10} {fb:>10} {ratio:>7} {diff:>8}"
              f"  {span(av):<18} {span(bv):<18} {dspan}")


def from_log(side, setup, rnd, path):
    if side not in ("A", "B"):
        fail(f"--from-log: SIDE must be A or B: '{side}'", 2)
    parse_int("--from-log", 0, "ROUND", rnd, 1)
    keys = ("row", "round", "node", "pages", "on_node", "tsc")
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("R fault "):
                continue
            kv = dict(w.split("=", 1) for w in line.split()[2:] if "=" in w)
            missing = [k for k in keys if k not in kv]
            if missing:
                fail(f"{path}:{lineno}: faultbench line without {', '.join(missing)}")
            for k in keys[1:]:
                parse_int(path, lineno, k, kv[k], -1 if k == "node" else 0)
            print("\t".join((side, f"{setup}/{kv['row']}", rnd, kv["round"], kv["pages"],
                             kv["on_node"], kv["tsc"])))
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "--from-log":
        return from_log(*argv[2:])
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 2 if len(argv) != 2 else 0
    cells, labels, misplaced = read_samples(argv[1])
    if not cells and not misplaced:
        fail(f"{argv[1]}: no samples")
    report(cells, labels)
    for m in misplaced:
        print(f"misplaced (left out): {m}")
    return 1 if misplaced else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
