#!/usr/bin/python3
"""Land one fetched results tarball on the controller: land.py TARBALL DEST NAME.

The tarball (made by fleet-run.py: one top directory NAME holding run.json)
is unpacked into DEST/.NAME.landing-PID, checked (regular files and
directories only, no absolute or .. paths, a run.json that is JSON, an
OpenMetrics pnbench.prom, when there is one, that ends in `# EOF`), then
renamed to DEST/NAME: a results directory there is always whole.  DEST/NAME
already present with the same run.json: nothing to do (exit 0); present with
another one: refused (exit 1), never overwritten."""
import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile


def fail(msg):
    print(f"land: {msg}", file=sys.stderr)
    return 1


def sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def members(t, tarball, name):
    out = []
    for m in t.getmembers():
        parts = m.name.split("/")
        if m.name.startswith("/") or ".." in parts or parts[0] != name:
            raise ValueError(f"{tarball}: member {m.name!r} outside {name}/")
        if not (m.isfile() or m.isdir()):
            raise ValueError(f"{tarball}: member {m.name!r} is not a regular file or directory")
        out.append(m)
    return out


def main(argv):
    if len(argv) != 4:
        return fail("usage: land.py TARBALL DEST NAME")
    tarball, dest, name = argv[1:]
    final = os.path.join(dest, name)
    os.makedirs(dest, exist_ok=True)
    # a fresh directory of our own (mkdtemp: O_EXCL-like, mode 0700): a
    # predictable name could be planted beforehand as a symlink to extract through
    tmp = tempfile.mkdtemp(prefix=f".{name}.landing-", dir=dest)
    try:
        with tarfile.open(tarball, "r:gz") as t:
            t.extractall(tmp, members=members(t, tarball, name))
        got = os.path.join(tmp, name, "run.json")
        with open(got, "rb") as fh:
            json.loads(fh.read().decode("utf-8"))
        prom = os.path.join(tmp, name, "pnbench.prom")
        if os.path.exists(prom):
            with open(prom, "rb") as fh:
                if not fh.read().endswith(b"\n# EOF\n"):
                    raise ValueError(f"{tarball}: {name}/pnbench.prom: cut short (no # EOF)")
        if os.path.exists(final):
            if os.path.exists(os.path.join(final, "run.json")) and sha(got) == sha(os.path.join(final, "run.json")):
                print(f"land: {final}: already landed")
                return 0
            return fail(f"{final}: exists with another run.json: not overwritten")
        os.rename(os.path.join(tmp, name), final)
    except FileNotFoundError as e:
        return fail(f"{tarball}: {e.filename}: missing")
    except (OSError, ValueError, tarfile.TarError) as e:
        return fail(f"{tarball}: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"land: {final}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
