/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exec_stat.h - every run of the --exec command, kept in the runner's C
 * state for the terminal (exec_print.c) and the exit status (--exit-status):
 * per node its census and the node's own accounting, its metrics, and the
 * event collectors' allocation sites on the private nodes.  Internal to
 * core/runner.
 */
#ifndef PN_EXEC_STAT_H
#define PN_EXEC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "account.h"
#include "run_int.h"

/* The command's pages on one node and, on a role node, the node's own
 * accounting in that phase. */
struct pn_exec_node {
	int node;
	bool role, is_private;
	int64_t peak, last, anon, numa_maps; /* its census; numa_maps -1: unread */
	int64_t growth;			     /* used pages, after - before */
	int64_t general;		     /* general pages at the judged moment */
	int64_t general_kind[PN_NKINDS];
	int64_t in_leaf; /* what its cgroup held at the after-read */
};

/* An allocation site (gfp, order) or a process, from an event collector. */
struct pn_exec_site {
	char what[112];		       /* gfp flags, or the comm */
	char cls[12];		       /* general / explicit (sites) */
	int order;		       /* sites; the pid for processes */
	int npids;		       /* processes: distinct pids folded in */
	int64_t pages, pages2, events; /* processes: general, explicit pages */
};

struct pn_exec_events {
	int node;
	int64_t general_alloc, explicit_pages;
	struct pn_exec_site *sites, *procs;
	int nsites, nprocs;
};

struct pn_exec_run {
	size_t point;
	uint64_t elapsed_ns;
	const char *census; /* "pagemap", "move_pages" (static strings) */
	struct pn_exec_node *nodes;
	struct pn_exec_events *ev;
	struct pn_perf_proc_counts counts;
	int status; /* exit code, or 128 + signal */
	int nnodes, nev;
	bool started, exited, interrupted, have_elapsed, have_counts;
	char phase[64];
	char sw_why[256]; /* why the software events are absent */
};

struct pn_exec_log {
	struct pn_exec_run *runs;
	size_t n, cap;
};

/* The functions are declared in run_int.h (the runner calls them). */

#endif /* PN_EXEC_STAT_H */
