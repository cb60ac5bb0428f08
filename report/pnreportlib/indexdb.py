"""The results index behind `dashboard`, `load` and `compare --db`: one small
interface over SQLite (a file path) and PostgreSQL (a postgresql:// URL,
python3-psycopg2), both speaking report/index.sql.

Statements are written once with `?` placeholders; PostgreSQL gets `%s`.
Nothing here relies on the engines' text collation or NULL ordering: callers
that need an order sort in Python (same order from both engines).

Access on a shared PostgreSQL index (`pnreport index-init`): the loader role
may INSERT into every table (ON CONFLICT DO NOTHING needs no more) and SELECT
only index_meta (the version check); the dashboard role may only SELECT.
Neither can UPDATE or DELETE, so a run, once loaded, is immutable there; a
rewritten run directory is a new run (a new content hash)."""
import contextlib
import fcntl
import os
import re
import shutil
import sqlite3
import urllib.parse

from .errors import InputError
from .outfile import check_dest, create_temp, make_dirs, rename_into_place

DDL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "index.sql")
INDEX_VERSION = "1"
TABLES = ("index_meta", "runs", "metrics", "samples", "node_verdicts", "run_tags")   # foreign keys in this order
_PG_URL = re.compile(r"^postgres(ql)?://")


def is_url(spec):
    return bool(_PG_URL.match(spec or ""))


def redact(spec):
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", spec)


class Index:
    """An open index: .q() rows, .x() row count, .many(), .commit(), .close()."""

    def __init__(self, spec, conn, dialect, tmp=None, lock_fd=None):
        self.spec, self.conn, self.dialect = spec, conn, dialect
        self.name = redact(spec) if dialect == "postgresql" else spec
        self.tmp, self.lock_fd = tmp, lock_fd      # a writable SQLite index: its working copy

    def _sql(self, sql):
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def _run(self, sql, params):
        try:
            if self.dialect == "sqlite":
                try:
                    return self.conn.execute(sql, params)
                except sqlite3.Error as e:
                    raise InputError(f"{self.name}: {e}") from None
            cur = self.conn.cursor()
            cur.execute(self._sql(sql), params)
            return cur
        except Exception as e:
            if self.dialect == "postgresql":
                import psycopg2
                if isinstance(e, psycopg2.Error):
                    self.conn.rollback()
                    raise InputError(f"{self.name}: {str(e).strip().splitlines()[0]}")
            raise

    def q(self, sql, params=()):
        """Every row of a SELECT, as tuples."""
        return [tuple(r) for r in self._run(sql, params).fetchall()]

    def cursor(self, sql, params=()):
        return self._run(sql, params)

    def x(self, sql, params=()):
        """Run a statement; the number of rows it changed (0: ON CONFLICT did nothing)."""
        return self._run(sql, params).rowcount

    def many(self, sql, rows):
        if not rows:
            return
        if self.dialect == "sqlite":
            try:
                self.conn.executemany(sql, rows)
            except sqlite3.Error as e:
                raise InputError(f"{self.name}: {e}") from None
        else:
            from psycopg2.extras import execute_batch
            try:
                execute_batch(self.conn.cursor(), self._sql(sql), rows, page_size=500)
            except Exception as e:
                import psycopg2
                if isinstance(e, psycopg2.Error):
                    self.conn.rollback()
                    raise InputError(f"{self.name}: {str(e).strip().splitlines()[0]}")
                raise

    def commit(self):
        try:
            self.conn.commit()
        except sqlite3.Error as e:
            raise InputError(f"{self.name}: {e}") from None

    def rollback(self):
        self.conn.rollback()

    def close(self):
        """Commit and close; a writable SQLite index's working copy replaces the file."""
        if self.tmp is None:
            self.conn.close()
            return
        try:
            self.conn.commit()
            self.conn.close()
            fd = os.open(self.tmp, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            rename_into_place(self.tmp, self.spec)
        except BaseException as e:
            self.abort()
            if isinstance(e, (OSError, sqlite3.Error)):
                raise InputError(f"{self.spec}: cannot write: {e}") from None
            raise
        self.tmp = None
        self._unlock()

    def abort(self):
        """Close without keeping anything: a SQLite working copy is removed."""
        with contextlib.suppress(Exception):
            self.conn.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None
        self._unlock()

    def _unlock(self):
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None


def _pg_connect(spec):
    try:
        import psycopg2
    except ImportError:
        raise InputError(f"{redact(spec)}: a PostgreSQL index needs python3-psycopg2 (make deps)")
    try:
        return psycopg2.connect(spec)
    except psycopg2.Error as e:
        raise InputError(f"{redact(spec)}: cannot connect: {str(e).strip().splitlines()[0]}")


def check_version(db):
    try:
        row = db.q("SELECT value FROM index_meta WHERE key = 'index_version'")
    except InputError as e:
        raise InputError(f"{e} (is the index initialised? pnreport index-init --db URL)")
    if row and row[0][0] != INDEX_VERSION:
        raise InputError(f"{db.name}: index version {row[0][0]}, this report writes {INDEX_VERSION}")
    return bool(row)


def open_index(spec, create=True):
    """SQLite file (created with the DDL when create) or PostgreSQL URL.  A
    PostgreSQL index is never created here: `index-init` does that with an
    owner's role; loaders and dashboards only check its version."""
    if is_url(spec):
        db = Index(spec, _pg_connect(spec), "postgresql")
        if not check_version(db):
            raise InputError(f"{db.name}: index_meta has no index_version (pnreport index-init --db URL)")
        db.commit()
        return db
    if not create:
        return _sqlite_read(spec)
    return _sqlite_write(spec)


def _sqlite_read(spec):
    """An existing SQLite index, read-only (nothing is written)."""
    if not os.path.exists(spec):
        raise InputError(f"{spec}: no such index (dashboard RESULTS… --db {spec} creates it)")
    try:
        conn = sqlite3.connect("file:" + urllib.parse.quote(os.path.abspath(spec)) + "?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise InputError(f"{spec}: cannot open the index: {e}") from None
    db = Index(spec, conn, "sqlite")
    if not check_version(db):
        raise InputError(f"{spec}: index_meta has no index_version (not a pnbench index)")
    return db


def _lock_index(spec):
    """An fd holding an exclusive flock on the file now at `spec` (re-checked after
    the lock: another writer may have renamed a new index into place).  A missing
    index is first created empty (exclusively, not through a link: an empty file
    is an empty SQLite database), so that writers racing to create it queue on
    one file too."""
    while True:
        try:
            os.close(os.open(spec, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))
        except FileExistsError:
            pass
        except OSError as e:
            raise InputError(f"{spec}: cannot create the index: {e.strerror}") from None
        try:
            fd = os.open(spec, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise InputError(f"{spec}: cannot open the index: {e.strerror}") from None
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            same = os.path.samestat(os.fstat(fd), os.lstat(spec))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _sqlite_write(spec):
    """A SQLite index to change: the file (locked) copied to an exclusive temp
    beside it, where every change is made; Index.close() renames it into place,
    Index.abort() drops it.  The file itself is never opened for writing."""
    check_dest(spec)
    make_dirs(os.path.dirname(os.path.abspath(spec)))
    lock_fd = _lock_index(spec)
    tmp = None
    try:
        fd, tmp = create_temp(spec)
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), os.fstat(lock_fd).st_mode & 0o777)
            with os.fdopen(os.dup(lock_fd), "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
        conn = sqlite3.connect(tmp)
        db = Index(spec, conn, "sqlite", tmp, lock_fd)
    except BaseException as e:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        os.close(lock_fd)
        if isinstance(e, OSError):
            raise InputError(f"{spec}: cannot write: {e.strerror}") from None
        raise
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        # the copy is private until renamed, which is what makes it durable: no
        # journal file beside it
        conn.execute("PRAGMA journal_mode = MEMORY")
        with open(DDL) as fh:
            conn.executescript(fh.read())
        if not check_version(db):
            db.x("INSERT INTO index_meta (key, value) VALUES ('index_version', ?)", (INDEX_VERSION,))
        db.commit()
    except BaseException as e:
        db.abort()
        if isinstance(e, sqlite3.Error):
            raise InputError(f"{spec}: not a pnbench SQLite index ({e})") from None
        raise
    return db


def _ident(name, what):
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name or ""):
        raise InputError(f"--{what} {name!r}: not a plain lower-case SQL identifier")
    return name


def init_postgresql(spec, loader=None, reader=None):
    """Apply index.sql to a PostgreSQL database (as its owner), record the
    index version and grant the loader INSERT (+ SELECT on index_meta) and the
    reader SELECT.  Idempotent: run it again after an upgrade of index.sql."""
    if not is_url(spec):
        raise InputError(f"{spec}: index-init is for a shared PostgreSQL index (postgresql://…); "
                         "a SQLite index is created by dashboard/load")
    db = Index(spec, _pg_connect(spec), "postgresql")
    with open(DDL) as fh:
        ddl = fh.read()
    db.cursor(ddl)                       # psycopg2 runs a multi-statement script in one call
    db.x("INSERT INTO index_meta (key, value) VALUES ('index_version', ?) ON CONFLICT DO NOTHING",
         (INDEX_VERSION,))
    check_version(db)
    for role, grant in ((loader, "INSERT"), (reader, "SELECT")):
        if not role:
            continue
        r = _ident(role, "loader" if grant == "INSERT" else "reader")
        if not db.q("SELECT 1 FROM pg_roles WHERE rolname = ?", (r,)):
            raise InputError(f"{db.name}: role {r} does not exist (CREATE ROLE {r} LOGIN first)")
        tables = ", ".join(TABLES)
        db.cursor(f"REVOKE ALL ON {tables} FROM {r}")
        db.cursor(f"GRANT {grant} ON {tables} TO {r}")
        if grant == "INSERT":
            db.cursor(f"GRANT SELECT ON index_meta TO {r}")
    db.commit()
    db.close()
