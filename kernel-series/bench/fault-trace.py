# SPDX-License-Identifier: GPL-2.0
"""fault-trace.py: gdb half of bench/fault-trace.sh (runs inside gdb: -x).

Attaches to QEMU's gdbstub, runs the guest to a chosen fault, then single-steps
chosen first-touch faults of faultbench and writes every PC stepped.

Configuration (environment):
  FT_PORT     gdbstub port on 127.0.0.1
  FT_GATE     hex address of the cue for FT_TRIGGER=break (the guest runs
              sync(2) right before the measured faultbench of each row:
              __x64_sys_sync)
  FT_TRIGGER  watch (default) or break, see below
  FT_HMF      hex address of handle_mm_fault
  FT_BASE     hex address of faultbench's buffer (FAULTBENCH_ADDR)
  FT_PAGE     first traced page (>= 1): the fault of page k is at FT_BASE + k*4096
  FT_FAULTS   consecutive faults traced per row (default 1)
  FT_ROWS     the rows in guest order, e.g. "dram private"
  FT_OUT      output directory: <row>.pcs per row, gdb-info.txt
  FT_MAX_STEPS  steps allowed per fault before giving up (default 200000)

Per row the guest is run to the first instruction after the user store
that completes the fault of page FT_PAGE-1 (its retry after the kernel
returned), one of two ways (FT_TRIGGER):
  watch  (default) an access watchpoint on that byte: QEMU stops once,
         right after the retried store.
  break  a breakpoint on FT_GATE; when it hits, one on handle_mm_fault with
         condition $rsi == FT_BASE + (FT_PAGE-1)*4096 (handle_mm_fault(vma,
         address, flags, regs): address in rsi), then stepi to the user
         store and over it.  Every handle_mm_fault until then is a stop.
Then one "period" per traced fault: every PC from there through the user
loop, the store that faults, the exception entry, handle_mm_fault ... the
return to user and the retried store.  That is what faultbench's RDTSC loop
counts per page (plus the first try of the store, which faults before it
retires: stepped, not counted by -icount).  Each period checks that
handle_mm_fault ran once, for exactly its page.

<row>.pcs: '#' header lines, then per period a line "# period <i> page <k>
addr <hex> steps <n>" followed by its PCs, one hex number a line.
Exit (gdb's): 0 all rows traced; 1 otherwise (the reason on stderr).
"""
import os
import sys
import time

import gdb  # pylint: disable=import-error

USER_TOP = 0x800000000000
PAGE = 4096


def log(msg):
    sys.stderr.write(f"fault-trace.py: {msg}\n")
    sys.stderr.flush()


def die(msg):
    log(f"error: {msg}")
    os._exit(1)


def env_int(name, default=None, base=10):
    v = os.environ.get(name)
    if v is None or v == "":
        if default is None:
            die(f"{name} is not set")
        return default
    try:
        return int(v, base)
    except ValueError:
        die(f"{name} is not a number: '{v}'")
    return None


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def pc():
    return int(gdb.parse_and_eval("$pc")) & 0xFFFFFFFFFFFFFFFF


def reg(name):
    return int(gdb.parse_and_eval(f"${name}")) & 0xFFFFFFFFFFFFFFFF


def cont():
    """continue until the next stop; False when the target went away."""
    try:
        run("continue")
    except gdb.error as e:
        log(f"continue: {e}")
        return False
    return True


def connect(port):
    deadline = time.time() + 60
    while True:
        try:
            run(f"target remote 127.0.0.1:{port}")
            return
        except gdb.error as e:
            if time.time() > deadline:
                die(f"cannot attach to 127.0.0.1:{port}: {e}")
            time.sleep(0.2)


def packet(p):
    try:
        return run(f"maint packet {p}").strip().replace("\n", " | ")
    except gdb.error as e:
        return f"error: {e}"


def arm(row, trigger, gate, hmf, prev, max_steps):
    """Run the guest to the first instruction after the user store that
    completes page prev's fault (the store is retried after the kernel
    returns); return the steps taken to get there (0 with a watchpoint)."""
    if trigger == "watch":
        # QEMU's x86 watchpoints report after the access: the first (faulting)
        # try of the store raises #PF before any watchpoint check, the retry
        # after the fault hits it, and the guest stops on the next instruction.
        # An access watchpoint (Z4), not a write one: gdb drops a write hit
        # that leaves the value it last read unchanged (the row before wrote
        # the same 1 at the same address).
        run(f"awatch *(char *){prev:#x}")
        if not cont() or pc() >= USER_TOP:
            die(f"row {row}: the watchpoint on {prev:#x} never hit in user mode")
        run("delete")
        return 0
    if not gate:
        die("FT_TRIGGER=break needs FT_GATE")
    run(f"break *{gate:#x}")
    if not cont() or pc() != gate:
        die(f"row {row}: the guest never reached its cue (sync) at {gate:#x}")
    run("delete")
    run(f"break *{hmf:#x} if $rsi == {prev:#x}")
    if not cont() or pc() != hmf or reg("rsi") != prev:
        die(f"row {row}: no handle_mm_fault for {prev:#x}")
    run("delete")
    lead = 0
    while True:  # the rest of fault prev, then the retried store
        p = pc()
        run("stepi")
        lead += 1
        if p < USER_TOP:
            return lead
        if lead > max_steps:
            die(f"row {row}: the fault of {prev:#x} did not return to user in {max_steps} steps")


def main():
    port = env_int("FT_PORT")
    gate = env_int("FT_GATE", 0, base=16)
    hmf = env_int("FT_HMF", base=16)
    base = env_int("FT_BASE", base=16)
    page = env_int("FT_PAGE", 100)
    faults = env_int("FT_FAULTS", 1)
    max_steps = env_int("FT_MAX_STEPS", 200000)
    rows = os.environ.get("FT_ROWS", "dram").split()
    trigger = os.environ.get("FT_TRIGGER", "watch")
    if trigger not in ("watch", "break"):
        die(f"FT_TRIGGER wants watch or break (got '{trigger}')")
    out = os.environ.get("FT_OUT") or die("FT_OUT is not set")
    if page < 1 or faults < 1:
        die("FT_PAGE must be >= 1 and FT_FAULTS >= 1")

    for c in ("set pagination off", "set confirm off", "set width 0",
              "set suppress-cli-notifications on", "set print frame-info short-location"):
        try:
            run(c)
        except gdb.error:
            pass
    connect(port)
    # QEMU's single-step flags: 0x1 SSTEP_ENABLE, 0x2 SSTEP_NOIRQ (no
    # interrupt taken while stepping), 0x4 SSTEP_NOTIMER (timers frozen)
    with open(os.path.join(out, "gdb-info.txt"), "w", encoding="utf-8") as f:
        f.write(f"qqemu.sstepbits: {packet('qqemu.sstepbits')}\n")
        f.write(f"qqemu.sstep: {packet('qqemu.sstep')}\n")
        try:
            f.write(f"cr2 readable: {run('info registers cr2').strip()}\n")
        except gdb.error as e:
            f.write(f"cr2 readable: no ({e})\n")
        f.write(f"gate {gate:#x} handle_mm_fault {hmf:#x} base {base:#x} page {page} "
                f"faults {faults} rows {' '.join(rows)} trigger {trigger}\n")

    for row in rows:
        run("delete")
        prev = base + (page - 1) * PAGE
        t0 = time.time()
        lead = arm(row, trigger, gate, hmf, prev, max_steps)
        path = os.path.join(out, f"{row}.pcs")
        total = 0
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(f"# row {row} base {base:#x} first_page {page} faults {faults} trigger {trigger}\n")
            f.write(f"# lead-in (rest of page {page - 1}'s fault, not counted): {lead} steps\n")
            for i in range(faults):
                k = page + i
                want = base + k * PAGE
                pcs, seen_kernel, hmf_addrs = [], False, []
                while True:
                    p = pc()
                    pcs.append(p)
                    if len(pcs) > max_steps:
                        die(f"row {row}: page {k}'s period did not end in {max_steps} steps")
                    if p >= USER_TOP:
                        seen_kernel = True
                        if p == hmf:
                            hmf_addrs.append(reg("rsi"))
                    run("stepi")
                    if seen_kernel and p < USER_TOP:
                        break  # stepped the retried store: the period is complete
                if hmf_addrs != [want]:
                    die(f"row {row}: period {i} ran handle_mm_fault for "
                        f"{[hex(a) for a in hmf_addrs]}, want [{want:#x}]")
                f.write(f"# period {i} page {k} addr {want:#x} steps {len(pcs)}\n")
                f.write("".join(f"{x:x}\n" for x in pcs))
                total += len(pcs)
        os.rename(path + ".tmp", path)
        log(f"row {row}: {faults} fault(s) from page {page}: {total} steps "
            f"({total / faults:.1f} per fault) in {time.time() - t0:.1f} s")
    run("delete")
    try:
        run("detach")
    except gdb.error:
        pass


try:
    main()
except gdb.error as e:
    die(f"gdb: {e}")
os._exit(0)
