/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run.h - the runner: a config (or a user command) in, one results directory
 * out (run.json, topology.xml, <collector>.csv).
 */
#ifndef PN_RUN_H
#define PN_RUN_H

#include <stdbool.h>

struct pn_run_opts {
	const char *config_path;      /* NULL with exec_argv: built-in defaults */
	const char *outdir;	      /* NULL: results/runs/<name>-<utc> */
	bool force;		      /* reuse an outdir holding a run.json */
	bool no_wait;		      /* refuse instead of waiting for the host lock */
	char **exec_argv;	      /* --exec -- CMD ARGS, NULL-terminated */
	bool exec_explicit;	      /* the command's pages on private nodes are intended */
	bool no_events;		      /* --no-events: no event collector, counters only */
	const char *private_override; /* --private LIST|auto */
	int iterations_override;      /* > 0: replaces the config's iterations */
	int progress;		      /* 1 --progress, -1 --no-progress, 0 on a terminal */
	int summary_format;	      /* the summary on stdout: 0 text, 1 json, 2 csv */
	int argc;
	char **argv; /* the pnbench command line, recorded */
};

/* Returns a PN_EXIT_* code (or 128 + signal when interrupted). */
int pn_run(const struct pn_run_opts *o);

#endif
