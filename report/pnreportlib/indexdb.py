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
import os
import re
import sqlite3

from .load import InputError

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

    def __init__(self, spec, conn, dialect):
        self.spec, self.conn, self.dialect = spec, conn, dialect
        self.name = redact(spec) if dialect == "postgresql" else spec

    def _sql(self, sql):
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def _run(self, sql, params):
        try:
            if self.dialect == "sqlite":
                return self.conn.execute(sql, params)
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
            self.conn.executemany(sql, rows)
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
        self.conn.commit()

    def rollback(self):
        self.conn.rollback()

    def close(self):
        self.conn.close()


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
    if not create and not os.path.exists(spec):
        raise InputError(f"{spec}: no such index (dashboard RESULTS… --db {spec} creates it)")
    d = os.path.dirname(os.path.abspath(spec))
    os.makedirs(d, exist_ok=True)
    conn = sqlite3.connect(spec)
    conn.execute("PRAGMA foreign_keys = ON")
    db = Index(spec, conn, "sqlite")
    with open(DDL) as fh:
        conn.executescript(fh.read())
    if not check_version(db):
        db.x("INSERT INTO index_meta (key, value) VALUES ('index_version', ?)", (INDEX_VERSION,))
    db.commit()
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
