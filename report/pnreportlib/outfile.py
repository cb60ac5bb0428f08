"""Every file the report writes goes through here: a temp file created
exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) in the destination's directory,
written, then renamed over the destination.  So a reader never sees half a
file, a failed write (full disk, an error half-way) leaves neither a temp file
nor a damaged destination, and nothing is ever written through a symbolic
link: rename() replaces a link, never its target, and a destination that is a
link, a FIFO, a directory or any other non-regular file is refused (exit 2,
naming it) before anything is written.

    with atomic_open(path, "w") as fh:      # text (or "wb"); renamed on success
        fh.write(...)
    write_file(path, data)                   # str or bytes in one go
"""
import contextlib
import errno
import os
import secrets
import stat

from .errors import InputError

FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def check_dest(path):
    """Refuse a destination that is not a regular file (or absent)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise InputError(f"{path}: cannot write: {e.strerror}")
    if stat.S_ISLNK(st.st_mode):
        raise InputError(f"{path}: is a symbolic link; not written through it (remove it or choose another path)")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode)
                else "not a regular file")
        raise InputError(f"{path}: is {kind}; not written")


def create_temp(path, mode=0o644):
    """(fd, temp path): a new file beside `path`, created exclusively, not through a link."""
    d, base = os.path.split(path)
    for _ in range(100):
        tmp = os.path.join(d, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, FLAGS, mode), tmp
        except FileExistsError:
            continue
        except OSError as e:
            raise InputError(f"{path}: cannot write: {e.strerror} (creating a temp file in {d or '.'})")
    raise InputError(f"{path}: cannot write: no free temp file name in {d or '.'}")


def _unlink(p):
    with contextlib.suppress(OSError):
        os.unlink(p)


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8", newline=None):
    """A file object on a temp file that becomes `path` when the block ends
    without an exception (flushed, fsynced, renamed); on any exception the
    temp file is removed and an OSError becomes InputError naming `path`."""
    check_dest(path)
    fd, tmp = create_temp(path)
    try:
        binary = "b" in mode
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": encoding,
                                                                               "newline": newline})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        rename_into_place(tmp, path)
    except BaseException as e:
        _unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, BrokenPipeError):
            raise InputError(f"{path}: cannot write: {e.strerror or e}") from None
        raise


def rename_into_place(tmp, path):
    """rename(tmp, path) after checking path again (a link or FIFO made since is refused)."""
    check_dest(path)
    try:
        os.rename(tmp, path)
    except OSError as e:
        if e.errno in (errno.EISDIR, errno.ENOTDIR):
            raise InputError(f"{path}: is a directory; not written") from None
        raise


def write_file(path, data):
    """Write str (UTF-8) or bytes to `path` atomically (see atomic_open)."""
    with atomic_open(path, "wb" if isinstance(data, (bytes, bytearray)) else "w") as fh:
        fh.write(data)
    return path


def make_dirs(d):
    """os.makedirs that names the directory when it cannot (exit 2)."""
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise InputError(f"{d}: cannot create the directory: {e.strerror}")
