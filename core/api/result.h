/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * result.h - what a workload reports, owned by the results tree.
 *
 * A workload's result is a small tree (cJSON, but workloads never touch
 * JSON): labelled metrics, tables (a curve is a table with an x column),
 * checks that feed the verdict, and a page census of its own memory.
 * Strings are copied, so nothing points into the workload's state.
 *
 * The tree is built in the workload's child process, sent to the runner
 * when run() returns (pn_res_serialize / pn_res_parse), and merged into
 * run.json.  The runner adds to the same tree in the parent (outcome
 * checks, cgroup accounting), through the same functions.
 *
 *   metrics:   [{name, labels:{k:v}, unit, better, aggregate, value}]
 *   tables:    [{name, description, columns:[{name, unit}], rows:[[..]]}]
 *              (a PN_COL_NUM cell of NAN is written as null: no value)
 *   checks:    [{name, expected, observed, pass, source}]
 *   placement: {verified, explicit_pages, intended_pages, misplaced_pages,
 *               unverified_pages, per_node:{node: pages}}
 *   notes:     ["..."]
 */
#ifndef PN_RESULT_H
#define PN_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lib/pn.h"

struct cJSON;

/* Units, written into results as strings. */
enum pn_unit {
	PN_UNIT_NONE,
	PN_UNIT_BYTES,
	PN_UNIT_PAGES,
	PN_UNIT_NS,
	PN_UNIT_BYTES_PER_SEC,
	PN_UNIT_PAGES_PER_SEC,
	PN_UNIT_RATIO,
	PN_UNIT_PERCENT,
	PN_UNIT_COUNT,
	PN_UNIT_EVENTS_PER_SEC,
};
const char *pn_unit_name(enum pn_unit u);

enum pn_better { PN_BETTER_NONE, PN_BETTER_HIGHER, PN_BETTER_LOWER };
const char *pn_better_name(enum pn_better b);

/* How a metric's values over iterations are summarised. */
enum pn_agg { PN_AGG_MEDIAN, PN_AGG_MEAN, PN_AGG_MIN, PN_AGG_MAX, PN_AGG_SUM, PN_AGG_LAST };
const char *pn_agg_name(enum pn_agg a);

/* A workload declares its metrics in a static table (terminated by {NULL}). */
struct pn_metric_decl {
	const char *name; /* "fault_throughput" */
	enum pn_unit unit;
	enum pn_better better;
	enum pn_agg aggregate;
	const char *help;
};

/* Table column types: what pn_res_table_row() reads from its arguments. */
enum pn_col_type {
	PN_COL_INT,  /* int64_t */
	PN_COL_NUM,  /* double */
	PN_COL_STR,  /* const char * (NULL -> null) */
	PN_COL_BOOL, /* int */
};
struct pn_col {
	const char *name;
	enum pn_col_type type;
	enum pn_unit unit;
};

struct pn_res {
	struct cJSON *root; /* owned; see the layout above */
	const struct pn_metric_decl *decls;
	const char *owner; /* "workload explicit", for messages */
	/* the census the runner uses to explain node growth */
	uint64_t placed_pages[PN_MAX_NODES]; /* verified pages per node id */
	uint64_t intended_pages, misplaced_pages, unverified_pages, explicit_pages;
	/* verified explicit pages the workload freed again before run()
	 * returned: they explain growth at moments sampled while it held them */
	uint64_t freed_pages[PN_MAX_NODES];
	bool verified;
};

void pn_res_init(struct pn_res *r, const struct pn_metric_decl *decls, const char *owner);
void pn_res_free(struct pn_res *r);

/*
 * A metric value.  labels is NULL or "key=value,key=value" ("node=1",
 * "src=0,dst=2", "step=3").  The name must be declared in decls: an
 * undeclared name is a bug in the workload, logged and returns -EINVAL.
 */
int pn_res_metric(struct pn_res *r, const char *name, const char *labels, double value);

/* A table; the returned index is passed to pn_res_table_row().  -errno on error. */
int pn_res_table(struct pn_res *r, const char *name, const char *description,
		 const struct pn_col *cols, size_t ncols);
/* One row: one argument per column, of the column's type. */
int pn_res_table_row(struct pn_res *r, int table, ...);

/*
 * Checks: a named expectation and what was observed.  They feed the
 * verdict (a failed check fails the run).  source names who made it
 * ("workload", "runner", "cgroup").  The numeric forms compute pass.
 */
__attribute__((format(printf, 6, 7))) bool pn_res_check(struct pn_res *r, const char *name,
							bool pass, const char *source,
							const char *expected,
							const char *observed_fmt, ...);
bool pn_res_check_eq(struct pn_res *r, const char *name, int64_t expected, int64_t observed,
		     const char *unit);
bool pn_res_check_le(struct pn_res *r, const char *name, int64_t limit, int64_t observed,
		     const char *unit);

/*
 * The checks and metrics as recorded, read back in C (the runner's verdict
 * state counts them as each workload's result arrives): the i-th of each,
 * false past the last.  Strings point into r->root, valid while r is.
 */
struct pn_res_check_rec {
	const char *name, *expected, *observed; /* "" when absent */
	bool pass;
};
bool pn_res_check_at(const struct pn_res *r, size_t i, struct pn_res_check_rec *out);
struct pn_res_metric_rec {
	const char *name;  /* "" when absent */
	const char *label; /* the value of the label asked for, "" without one */
	bool has_value;	   /* false: no number (a NaN written as null) */
	double value;
};
bool pn_res_metric_at(const struct pn_res *r, size_t i, const char *label,
		      struct pn_res_metric_rec *out);

/* A short human note ("preferred fell back to node 0 when node 1 filled"). */
__attribute__((format(printf, 2, 3))) void pn_res_note(struct pn_res *r, const char *fmt, ...);

/* Wire format between the child and the runner: JSON text of root plus the
 * census.  serialize returns a malloc'd NUL-terminated string. */
char *pn_res_serialize(const struct pn_res *r);
int pn_res_parse(struct pn_res *r, const char *text);

/* The placement block as JSON (census fields). */
struct cJSON *pn_res_placement_json(const struct pn_res *r);

#endif /* PN_RESULT_H */
