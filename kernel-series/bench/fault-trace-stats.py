#!/usr/bin/python3
"""fault-trace-stats.py: per-function tables of `make -C kernel-series fault-trace`.

    fault-trace-stats.py table --map SYSTEM.MAP [--user-map NM] [--label L]
                               [--tsv OUT.tsv] [--typical] PCS
    fault-trace-stats.py diff [--top N] [--label-a L] [--label-b L] A.tsv B.tsv

table: symbolizes a PC list written by bench/fault-trace.py (one hex PC a
line, '#' lines; "# period ..." lines separate the traced faults) with a
System.map (text symbols T t W w, sorted, bisect: a PC belongs to the last
symbol at or below it) and, for user addresses (< 0x800000000000), an
`nm -n` listing of the user program (names shown as user:<name>).  Prints
the total steps, steps per fault, and per function (over every traced
fault, or with --typical over those whose PC sequence is the most common
one: the fault without the batch work only some faults do):
    insns    steps whose PC lies in the function
    /fault   insns / number of faults traced
    calls    steps that land on the function's first instruction from
             another function (a call, or a tail jump)
    entries  steps that come from another function (calls and returns into it)
    rep      steps at the same PC as the step before: the 2nd.. iteration of
             a rep-prefixed string instruction (QEMU steps, and counts under
             -icount, one per iteration); included in insns
It also names any interrupt or softirq entry symbol found in the trace
(there should be none: QEMU's gdbstub steps with IRQs and timers masked).
--tsv writes the same as tab-separated lines for `diff`.

diff: per function, A and B per fault and B-A, sorted by |B-A| (then name),
the top N rows (default all) and one "(other N functions)" row for the
rest, then the totals; says when every function's count is the same.

Exit: 0 ok, 1 unreadable or malformed input (named by file:line), 2 usage.
"""
import argparse
import bisect
import os
import sys

USER_TOP = 0x800000000000
TEXT_TYPES = set("TtWw")
# interrupt entry and softirq symbols (exceptions such as the page fault use
# irqentry_enter/exit and common_interrupt_return too: those are not here)
IRQ_NAMES = {"asm_common_interrupt", "common_interrupt", "asm_spurious_interrupt",
             "spurious_interrupt", "__common_interrupt"}
IRQ_PREFIXES = ("asm_sysvec_", "sysvec_", "__sysvec_", "irq_enter", "irq_exit",
                "handle_softirqs", "__do_softirq", "handle_irq_event", "tick_handle_periodic",
                "timer_interrupt", "handle_edge_irq", "handle_level_irq")


def fail(msg, code=1):
    print(f"fault-trace-stats: {msg}", file=sys.stderr)
    sys.exit(code)


SECTION_MARKERS = {"_text", "_stext", "_etext", "_sinittext", "_einittext"}


def name_rank(name):
    """Lower is preferred among symbols at one address: function names over
    section markers (_stext, __entry_text_start...) and __pfx_ padding labels,
    then names without a leading __; the first listed wins a tie."""
    marker = (name in SECTION_MARKERS or name.endswith(("_start", "_end"))
              or name.startswith(("__pfx_", "__cfi_")))
    return (marker, name.startswith("__"))


def numbered_lines(path, errors="strict"):
    """(line number, line without its newline) for each line of path; an
    unreadable file ends the run naming it."""
    try:
        f = open(path, encoding="utf-8", errors=errors)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    with f:
        for lineno, line in enumerate(f, 1):
            yield lineno, line.rstrip("\n")


class SymbolMap:
    """Text symbols of a System.map or `nm -n` listing; lookup by bisect."""

    def __init__(self, path, prefix=""):
        self.prefix = prefix
        best = {}
        for lineno, line in numbered_lines(path, errors="replace"):
            w = line.split()
            if not w:
                continue
            if len(w) < 3 or len(w[1]) != 1:
                fail(f"{path}:{lineno}: not a 'address type name' line: {line.rstrip()!r}")
            if w[1] not in TEXT_TYPES:
                continue
            try:
                a = int(w[0], 16)
            except ValueError:
                fail(f"{path}:{lineno}: address is not hex: '{w[0]}'")
            n = w[2]
            if a not in best or name_rank(n) < name_rank(best[a]):
                best[a] = n
        if not best:
            fail(f"{path}: no text symbols (types T t W w)")
        self.addrs = sorted(best)
        self.names = [best[a] for a in self.addrs]

    def lookup(self, pc):
        """(name, start address) of pc, or ('[unknown]', None) below the first symbol."""
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return "[unknown]", None
        return self.prefix + self.names[i], self.addrs[i]


def read_pcs(path):
    """[[pc, ...] per period]; PCs before any period line form one period."""
    periods, cur, started = [], [], False
    for lineno, line in numbered_lines(path):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if s.startswith("# period"):
                if started or cur:
                    periods.append(cur)
                cur, started = [], True
            continue
        try:
            cur.append(int(s, 16))
        except ValueError:
            fail(f"{path}:{lineno}: not a hex PC: '{s}'")
    if started or cur:
        periods.append(cur)
    if not periods or not any(periods):
        fail(f"{path}: no PCs")
    return periods


def count_faulted(periods):
    """Steps at a user PC followed by a kernel PC in the same period: a user
    instruction that raised the exception (the first try of the store).  It
    does not retire, so QEMU's -icount does not count it; stepping does."""
    return sum(1 for pcs in periods for a, b in zip(pcs, pcs[1:]) if a < USER_TOP <= b)


def typical(periods):
    """The periods whose PC sequence is the most common one (a tie: the
    shortest, then the earliest): the fault without the batch work that
    only some faults do (a refill, a drain, a counter folded at its
    threshold).  Returns those periods and their number."""
    count, first = {}, {}
    for i, p in enumerate(periods):
        k = tuple(p)
        count[k] = count.get(k, 0) + 1
        first.setdefault(k, i)
    best = min(count, key=lambda k: (-count[k], len(k), first[k]))
    return [p for p in periods if tuple(p) == best], count[best]


def profile(periods, kmap, umap):
    """{function: [insns, calls, entries, rep]} and the functions in first-seen order."""
    stats, order = {}, []
    cache = {}
    for pcs in periods:
        # the first step of a period is no entry: the period starts mid-function
        prev_fn, prev_pc = None, None
        first = True
        for pc in pcs:
            if pc not in cache:
                if pc < USER_TOP:
                    cache[pc] = umap.lookup(pc) if umap else ("user", None)
                else:
                    cache[pc] = kmap.lookup(pc)
            fn, start = cache[pc]
            if fn not in stats:
                stats[fn] = [0, 0, 0, 0]
                order.append(fn)
            st = stats[fn]
            st[0] += 1
            if first:
                prev_fn, first = fn, False
            if fn != prev_fn:
                st[2] += 1
                if pc == start:
                    st[1] += 1
            if pc == prev_pc:
                st[3] += 1
            prev_fn, prev_pc = fn, pc
    return stats, order


def fmt_num(v, faults):
    return f"{v:d}" if faults == 1 else f"{v / faults:.1f}"


def cmd_table(args):
    kmap = SymbolMap(args.map)
    umap = SymbolMap(args.user_map, "user:") if args.user_map else None
    periods = read_pcs(args.pcs)
    every = [len(p) for p in periods]
    if args.typical:
        periods, nsame = typical(periods)
    stats, order = profile(periods, kmap, umap)
    faults = len(periods)
    steps = sum(len(p) for p in periods)
    rep = sum(s[3] for s in stats.values())
    faulted = count_faulted(periods)
    label = args.label or os.path.basename(args.pcs)
    irq = [f for f in order if f in IRQ_NAMES or f.startswith(IRQ_PREFIXES)]
    lines = [f"# {label}",
             f"# faults {faults}, steps {steps} ({steps / faults:.1f} per fault), "
             f"of which rep iterations after the first {rep}",
             f"# faulting user instructions stepped (not retired, not in -icount): {faulted}; "
             f"-icount equivalent {steps - faulted} ({(steps - faulted) / faults:.1f} per fault)",
             "# steps per fault: " + " ".join(str(n) for n in every),
             "# interrupt/softirq symbols in the trace: " + (" ".join(irq) if irq else "none")]
    if args.typical:
        lines.insert(1, f"# typical fault: the {nsame} of {len(every)} traced faults whose PCs are "
                        "the most common sequence")
    w = max([len("function")] + [len(f) for f in order])
    lines.append(f"{'function':<{w}}  {'insns':>8}  {'/fault':>8}  {'calls':>6}  {'entries':>7}  {'rep':>5}")
    for fn in sorted(order, key=lambda f: (-stats[f][0], f)):
        i, c, e, r = stats[fn]
        lines.append(f"{fn:<{w}}  {i:>8}  {i / faults:>8.1f}  {c:>6}  {e:>7}  {r:>5}")
    lines.append(f"{'total':<{w}}  {steps:>8}  {steps / faults:>8.1f}  {'':>6}  {'':>7}  {rep:>5}")
    if args.tsv:
        tmp = args.tsv + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"# label\t{label}\n# faults\t{faults}\n# steps\t{steps}\n# rep\t{rep}\n"
                    f"# faulted\t{faulted}\n")
            f.write("# function\tinsns\tcalls\tentries\trep\n")
            for fn in order:
                f.write(fn + "\t" + "\t".join(str(v) for v in stats[fn]) + "\n")
        os.replace(tmp, args.tsv)
    print("\n".join(lines))
    return 0


def read_tsv(path):
    meta, rows = {}, {}
    for lineno, line in numbered_lines(path):
        if not line:
            continue
        w = line.split("\t")
        if line.startswith("#"):
            if len(w) == 2:
                meta[w[0][2:]] = w[1]
            continue
        if len(w) != 5:
            fail(f"{path}:{lineno}: {len(w)} fields, want 5")
        try:
            rows[w[0]] = [int(x) for x in w[1:]]
        except ValueError:
            fail(f"{path}:{lineno}: a count is not an integer")
    try:
        faults = int(meta.get("faults", ""))
    except ValueError:
        fail(f"{path}: no '# faults' line")
    if faults < 1:
        fail(f"{path}: faults must be >= 1")
    try:
        faulted = int(meta.get("faulted", "0"))
    except ValueError:
        fail(f"{path}: '# faulted' is not an integer")
    return meta.get("label", os.path.basename(path)), faults, rows, faulted


def cmd_diff(args):
    la, fa, ra, xa = read_tsv(args.a)
    lb, fb, rb, xb = read_tsv(args.b)
    la, lb = args.label_a or la, args.label_b or lb
    per = fa == 1 and fb == 1

    def v(rows, faults, fn):
        x = rows.get(fn, [0])[0]
        return x if per else x / faults

    def f(x, sign=False):
        if per:
            return f"{x:+d}" if sign else f"{x:d}"
        return f"{x:+.1f}" if sign else f"{x:.1f}"

    fns = set(ra) | set(rb)
    d = {fn: v(rb, fb, fn) - v(ra, fa, fn) for fn in fns}
    order = sorted(fns, key=lambda fn: (-abs(d[fn]), fn))
    top = order if args.top is None else order[:args.top]
    rest = order[len(top):]
    ta = sum(v(ra, fa, fn) for fn in fns)
    tb = sum(v(rb, fb, fn) for fn in fns)
    w = max([len("function"), len(f"(other {len(rest)} functions)")] + [len(fn) for fn in top])
    wa = wb = 8
    unit = "per fault" if not per else "one fault each"
    print(f"# A = {la} ({fa} fault(s)), B = {lb} ({fb} fault(s)); instructions stepped, {unit}")
    print(f"{'function':<{w}}  {'A':>{wa}}  {'B':>{wb}}  {'B-A':>8}")
    for fn in top:
        print(f"{fn:<{w}}  {f(v(ra, fa, fn)):>{wa}}  {f(v(rb, fb, fn)):>{wb}}  {f(d[fn], True):>8}")
    if rest:
        ra_ = sum(v(ra, fa, fn) for fn in rest)
        rb_ = sum(v(rb, fb, fn) for fn in rest)
        print(f"{'(other ' + str(len(rest)) + ' functions)':<{w}}  {f(ra_):>{wa}}  {f(rb_):>{wb}}  {f(rb_ - ra_, True):>8}")
    print(f"{'total':<{w}}  {f(ta):>{wa}}  {f(tb):>{wb}}  {f(tb - ta, True):>8}")
    ia, ib = ta - (xa if per else xa / fa), tb - (xb if per else xb / fb)
    print(f"{'-icount equivalent':<{w}}  {f(ia):>{wa}}  {f(ib):>{wb}}  {f(ib - ia, True):>8}"
          "  (less the faulting user store, stepped but not retired)")
    only_a = sorted(fn for fn in ra if fn not in rb)
    only_b = sorted(fn for fn in rb if fn not in ra)
    if only_a:
        print("# only in A: " + " ".join(only_a))
    if only_b:
        print("# only in B: " + " ".join(only_b))
    differ = [fn for fn in fns if d[fn] != 0 or (fa == fb and ra.get(fn) != rb.get(fn))]
    if differ:
        print(f"# differences in {len(differ)} function(s)")
    elif fa == fb:
        print("# identical: every function's insns, calls, entries and rep are the same")
    else:
        print(f"# identical per fault: every function's insns per fault are the same ({fa} and {fb} faults)")
    return 0


def main():
    ap = argparse.ArgumentParser(prog="fault-trace-stats.py",
                                 description="per-function tables of bench/fault-trace.py traces")
    sub = ap.add_subparsers(dest="cmd")
    t = sub.add_parser("table", help="symbolize one PC list")
    t.add_argument("--map", required=True, help="System.map of the kernel")
    t.add_argument("--user-map", help="nm -n listing of the user program")
    t.add_argument("--label")
    t.add_argument("--tsv", help="also write the table as TSV here")
    t.add_argument("--typical", action="store_true",
                   help="only the faults whose PC sequence is the most common one")
    t.add_argument("pcs")
    d = sub.add_parser("diff", help="A vs B per function")
    d.add_argument("--top", type=int)
    d.add_argument("--label-a")
    d.add_argument("--label-b")
    d.add_argument("a")
    d.add_argument("b")
    args = ap.parse_args()
    if args.cmd == "table":
        return cmd_table(args)
    if args.cmd == "diff":
        if args.top is not None and args.top < 0:
            fail("--top wants a number >= 0", 2)
        return cmd_diff(args)
    ap.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
