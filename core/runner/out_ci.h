/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * out_ci.h - what CI systems and dashboards ingest, written beside run.json
 * from the same results tree: JUnit XML (--junit), TAP 13 (--tap) and
 * OpenMetrics text for a Prometheus textfile collector (--openmetrics).
 *
 * The writers read only the tree run.json is printed from, so the files
 * say what run.json says: the same checks, the same verdict.  They are
 * rewritten, atomically and never through a symlink, every time run.json is
 * (after each phase, and once more at the end), so an interrupted or killed
 * run leaves files marked incomplete, never a stale pass.
 *
 * One list of test cases (out_ci.c) feeds JUnit and TAP, in this order: per
 * point and iteration, every check of every phase (the workloads' checks
 * and the --exec command's exit status: verdict.checks counts the same),
 * a workload that was skipped or failed without checks; then one case per
 * private node (its verdict) and one for the run's verdict.
 *
 *   case          JUnit                       TAP
 *   pass          <testcase/>                 ok
 *   fail          <failure type=...>          not ok
 *   error         <error type=...>            not ok
 *   skipped       <skipped message=REASON>    ok ... # SKIP REASON
 *   inconclusive  <skipped message=           not ok ... (inconclusive: REASON)
 *                  "inconclusive: REASON">    (no directive: a # TODO would
 *                                              let a harness pass the suite)
 */
#ifndef PN_OUT_CI_H
#define PN_OUT_CI_H

#include <stdio.h>

struct cJSON;
struct pn_run_opts;

enum pn_case_state {
	PN_CASE_PASS,
	PN_CASE_FAIL,
	PN_CASE_ERROR,
	PN_CASE_SKIP,
	PN_CASE_INCONCLUSIVE,
};

struct pn_out_case {
	enum pn_case_state state;
	const char *kind;		 /* "check", "workload", "node", "verdict" */
	int point, iteration;		 /* -1 for the verdict's cases */
	char *name;			 /* "alloc/0:explicit: every page verified" */
	char *message;			 /* why it did not pass; NULL for a pass */
	const char *expected, *observed; /* a check's, from the tree (or NULL) */
};

struct pn_out_cases {
	struct pn_out_case *v;
	size_t n, cap;
	int passed, failed, errors, skipped, inconclusive;
};

/* The cases of a results tree (run.json's), in the order above. */
void pn_out_cases_build(const struct cJSON *root, struct pn_out_cases *cs);
void pn_out_cases_free(struct pn_out_cases *cs);

/* Private node n's verdict in a results tree: fail, inconclusive (also a
 * pass so far of a run that is incomplete), skip (not judged: no reading,
 * or a negative threshold) or pass. */
enum pn_case_state pn_out_node_state(const struct cJSON *root, int n);

/* What a counters-only verdict cannot see (verdict.blind_spot), malloc'd;
 * NULL when events ran. */
char *pn_out_blind_spot(const struct cJSON *root);

/* The whole file, malloc'd and NUL-terminated. */
char *pn_out_junit(const struct cJSON *root);
char *pn_out_tap(const struct cJSON *root);
char *pn_out_openmetrics(const struct cJSON *root);

/*
 * Escaping.  Every one writes well-formed UTF-8: a byte that does not
 * belong to a well-formed sequence becomes U+FFFD.
 *   xml: & < > " ' as entities, tab, LF, CR as character references (kept
 *        in attributes), other characters XML 1.0 forbids (C0 controls,
 *        U+FFFE, U+FFFF) as U+FFFD; for attributes and text alike.
 *   om:  an OpenMetrics label value: \ " LF as \\ \" \n, other C0 controls
 *        but tab as U+FFFD.
 *   tap: a TAP description: one line (controls become spaces), # as \#
 *        and \ as \\.
 *   yaml: the inside of a double-quoted YAML scalar: " \ as \" \\, tab LF
 *        CR as \t \n \r, other controls as \xNN.
 */
void pn_out_xml(FILE *f, const char *s);
void pn_out_om_label(FILE *f, const char *s);
void pn_out_tap_desc(FILE *f, const char *s);
void pn_out_yaml(FILE *f, const char *s);
/* An OpenMetrics number: integers exactly, NaN, +Inf, -Inf as spelt there */
void pn_out_om_value(FILE *f, double v);

/* Shared by the writers: o.key when a string, else dflt */
const char *pn_out_str(const struct cJSON *o, const char *key, const char *dflt);

/* Before the run: every requested file can be written (not a symlink, FIFO
 * or directory; its directory exists, or is the -o directory the run makes),
 * and no two are the same.  0, or PN_EXIT_USAGE after an error naming it. */
int pn_out_check(const struct pn_run_opts *o);
/* Write every requested file from the tree; 0 or -errno (logged, naming it). */
int pn_out_write(const struct pn_run_opts *o, const struct cJSON *root);

#endif /* PN_OUT_CI_H */
