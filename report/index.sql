-- pnbench results index (report dashboard), index version 1.
--
-- One DDL for SQLite (3.24+, what `pnreport dashboard` writes) and PostgreSQL
-- (11+, for teams sharing one index: `psql -f report/index.sql`, then load the
-- CSV export or insert with the same statements).  Portable on purpose: TEXT,
-- INTEGER, BIGINT, DOUBLE PRECISION only; booleans are INTEGER 0/1; no
-- AUTOINCREMENT/SERIAL: every key is natural.  Inserts use
-- INSERT ... ON CONFLICT DO NOTHING (both engines), so feeding the same run
-- twice adds nothing.
--
-- A run is keyed by run_id = sha256 of its run.json bytes: the same results
-- copied elsewhere are one run; a run directory rewritten since (an incomplete
-- run that went on, a --force rerun) replaces its older entry at that path.

CREATE TABLE IF NOT EXISTS index_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS runs (
	run_id          TEXT PRIMARY KEY,       -- sha256(run.json) hex
	path            TEXT NOT NULL,          -- absolute run directory when indexed
	schema_version  INTEGER NOT NULL,
	tool_version    TEXT,
	state           TEXT NOT NULL,          -- complete | incomplete | failed
	status_reason   TEXT,
	started_at      TEXT,                   -- UTC, ISO 8601 (sorts as text)
	updated_at      TEXT,
	hostname        TEXT,
	kernel_release  TEXT,
	series_id       TEXT,                   -- kernel-series build id, NULL on stock
	series_mode     TEXT,                   -- private | isolate | NULL
	kconfig_sha256  TEXT,
	config_name     TEXT,
	config_sha256   TEXT,
	verdict         TEXT,                   -- pass | fail | inconclusive | not_applicable
	misplaced_pages BIGINT,
	checks_failed   INTEGER,
	indexed_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs (started_at);
CREATE INDEX IF NOT EXISTS runs_by_path ON runs (path);

-- One row per metric of a run (the run's summary over iterations), and the
-- isolation metrics: general_pages{node=N} per phase (kind 'isolation',
-- workload '' and workload_index -1) and misplaced_pages (phase '').
CREATE TABLE IF NOT EXISTS metrics (
	run_id          TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
	point           TEXT NOT NULL,          -- '#<index>' or the matrix values as JSON
	phase           TEXT NOT NULL,
	workload_index  INTEGER NOT NULL,
	workload        TEXT NOT NULL,
	name            TEXT NOT NULL,
	labels          TEXT NOT NULL,          -- 'k=v,k=v' sorted by key, '' for none
	kind            TEXT NOT NULL,          -- stat | isolation
	unit            TEXT,
	better          TEXT,                   -- higher | lower | NULL
	aggregate       TEXT,
	n               INTEGER NOT NULL,
	mean            DOUBLE PRECISION,
	stddev          DOUBLE PRECISION,
	min_value       DOUBLE PRECISION,
	max_value       DOUBLE PRECISION,
	PRIMARY KEY (run_id, point, phase, workload_index, name, labels)
);
CREATE INDEX IF NOT EXISTS metrics_by_name ON metrics (name, labels);

-- Every sample (one per iteration) behind a metrics row.
CREATE TABLE IF NOT EXISTS samples (
	run_id          TEXT NOT NULL,
	point           TEXT NOT NULL,
	phase           TEXT NOT NULL,
	workload_index  INTEGER NOT NULL,
	name            TEXT NOT NULL,
	labels          TEXT NOT NULL,
	sample          INTEGER NOT NULL,       -- 0-based position in the run's values
	value           DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (run_id, point, phase, workload_index, name, labels, sample),
	FOREIGN KEY (run_id, point, phase, workload_index, name, labels)
		REFERENCES metrics (run_id, point, phase, workload_index, name, labels) ON DELETE CASCADE
);

-- The verdict per private node.
CREATE TABLE IF NOT EXISTS node_verdicts (
	run_id            TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
	node              INTEGER NOT NULL,
	general_pages_max BIGINT,
	pass              INTEGER,              -- 0 | 1
	inconclusive      INTEGER,              -- 0 | 1
	pages_counters    BIGINT,
	pages_events      BIGINT,
	PRIMARY KEY (run_id, node)
);

-- Labels a loader attaches to a run from fleet.json next to its run.json
-- (written by fleet/: the inventory host, its groups, the campaign, the
-- kernel the inventory expected).  Not part of the run's content hash: the
-- same run loaded with more labels gains them, never loses any.
CREATE TABLE IF NOT EXISTS run_tags (
	run_id          TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
	key             TEXT NOT NULL,          -- group | campaign | inventory_host | expected_kernel | ...
	value           TEXT NOT NULL,
	PRIMARY KEY (run_id, key, value)
);
