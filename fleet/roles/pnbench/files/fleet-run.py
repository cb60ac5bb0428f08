#!/usr/bin/python3
"""Run pnbench once on a fleet host (the pnbench role's script task).

Argument: one JSON object {bin, command, args, config, results, name, env,
timeout, ok_rcs, meta, textfile_dir}.  The run writes RESULTS/NAME.partial
(with `run`, also its OpenMetrics text, pnbench.prom); when pnbench exits
with a result code (ok_rcs) and left a run.json, fleet.json (meta and the
exit code) is added, the directory renamed to RESULTS/NAME and packed as
RESULTS/NAME.tar.gz (written aside, renamed): the task's marker.  With a
textfile_dir (node_exporter --collector.textfile.directory), pnbench.prom is
copied there as pnbench-CONFIG.prom (written aside, renamed), so the host's
Prometheus exporter serves the last verdict of each config.
Otherwise it is kept as NAME.failed-UTC and the script exits 1 with the
reason and pnbench's last stderr lines.  Prints one JSON line."""
import datetime
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile

PROM = "pnbench.prom"      # the run's OpenMetrics text, beside run.json

def create(path):
    """A new file for writing, never through what is planted there: a
    leftover regular file (an interrupted earlier try) is removed, then the
    name is made with O_EXCL|O_NOFOLLOW, so a symlink or FIFO makes it fail."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    return os.fdopen(fd, "wb")


def main():
    a = json.loads(sys.argv[1])
    final = os.path.join(a["results"], a["name"])
    part = final + ".partial"
    if a.get("textfile_dir") and not os.path.isdir(a["textfile_dir"]):
        print(json.dumps({"changed": False, "failed": True, "rc": -1,
                          "msg": f"pnbench_textfile_dir {a['textfile_dir']}: not a directory"}))
        return 1
    os.makedirs(a["results"], exist_ok=True)
    shutil.rmtree(part, ignore_errors=True)
    if os.path.exists(final):          # ran, but was not packed (interrupted): pack it
        rc = json.load(open(os.path.join(final, "fleet.json")))["pnbench_rc"]
        return pack(final, rc, "packed")
    prom = [] if a["command"] != "run" else ["--openmetrics", os.path.join(part, PROM)]
    argv = [a["bin"], a["command"], "-q", *a["args"], *prom, a["config"], "-o", part]
    env = dict(os.environ, **{k: str(v) for k, v in a["env"].items()})
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=a["timeout"])
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = -1, f"timed out after {a['timeout']} s (pnbench_run_timeout)\n{e.stderr or ''}"
    except OSError as e:
        rc, err = -1, f"{argv[0]}: {e.strerror}"
    ok = rc in a["ok_rcs"] and os.path.exists(os.path.join(part, "run.json"))
    if not ok:
        kept = None
        if os.path.exists(part):
            kept = final + ".failed-" + datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
            os.rename(part, kept)
        why = (f"pnbench exited {rc}" if rc >= 0 else "pnbench did not finish") + \
            ("" if rc not in a["ok_rcs"] else " but wrote no run.json")
        print(json.dumps({"changed": True, "failed": True, "rc": rc, "msg": why, "argv": argv, "kept": kept,
                          "stderr_tail": err.strip().splitlines()[-12:]}))
        return 1
    meta = dict(a["meta"], pnbench_rc=rc, argv=" ".join(argv[:-2] + ["-o", final]).replace(part, final))
    with create(os.path.join(part, "fleet.json.tmp")) as fh:
        fh.write(json.dumps(meta, indent=1, sort_keys=True).encode())
    os.rename(os.path.join(part, "fleet.json.tmp"), os.path.join(part, "fleet.json"))
    os.rename(part, final)
    if a.get("textfile_dir") and os.path.exists(os.path.join(final, PROM)):
        textfile(os.path.join(final, PROM), a["textfile_dir"], a["config"])
    return pack(final, rc, "ran")


def textfile(src, tdir, config):
    """src as TDIR/pnbench-CONFIG.prom, replaced whole (a scrape never sees
    half of it), never written through a symlink planted there."""
    name = "pnbench-" + os.path.basename(config).removesuffix(".json") + ".prom"
    tmp = os.path.join(tdir, "." + name + ".tmp")
    with open(src, "rb") as fh, create(tmp) as out:
        shutil.copyfileobj(fh, out)
    os.rename(tmp, os.path.join(tdir, name))


def pack(final, rc, what):
    tmp = final + ".tar.gz.tmp"
    with create(tmp) as fh, tarfile.open(fileobj=fh, mode="w:gz") as t:
        t.add(final, arcname=os.path.basename(final))
    os.rename(tmp, final + ".tar.gz")
    print(json.dumps({"changed": True, "rc": rc, "msg": f"{what}: {final}", "dir": final}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
