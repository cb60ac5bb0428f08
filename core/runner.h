/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * runner.h - the runner's internal state, shared by run.c (the top level),
 * phase.c (one phase: children, sampler, accounting), exec.c (--exec) and
 * results.c (the results tree, the verdict, the text summary).
 */
#ifndef PN_RUNNER_H
#define PN_RUNNER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "collector.h"
#include "config.h"
#include "pagemap.h"
#include "procfs.h"
#include "run.h"
#include "topology.h"
#include "workload.h"

struct cJSON;

struct run {
	const struct pn_run_opts *o;
	struct pn_config_set cs;
	bool own_builtin; /* cs built in code for --exec without a config */
	struct pn_topology topo;
	struct pn_roles roles;
	struct pn_env env;
	struct pn_cgroup_root cg;
	char outdir[PATH_MAX];
	int outfd;	    /* outdir, open and flock'ed for the run (outdir.h) */
	int hostfd;	    /* the host lock, -1 when not needed */
	struct cJSON *root; /* the run model */
	struct cJSON *points_json;
	struct pn_coll *colls;
	uint64_t *coll_interval_ns;
	size_t ncolls;
	bool refresh_ok; /* stat_refresh works (root) */
	long page_size;
	int global_iter;
	int64_t worst_general[PN_MAX_NODES]; /* counters; -1 = not judged */
	int64_t worst_events[PN_MAX_NODES];  /* event collectors; -1 = none */
	bool inconclusive[PN_MAX_NODES];
	int64_t misplaced_total;
	int ran_workloads; /* workloads that ran */
	int failed_workloads;
	int exec_failed;	    /* --exec: the command exited non-zero or was killed */
	const struct pn_config *c0; /* thresholds and roles come from point 0 */
	char stop_reason[160];
	char last_why[256]; /* last skip/failure reason printed */
	int phase_seq;	    /* phases run so far (cgroup leaf names) */
};

/* phase.c */
int pn_run_phase(struct run *r, const struct pn_config *c, size_t pi, int iter,
		 struct cJSON *phases_json);

/* exec.c: run the --exec command as part of a phase */
struct pn_exec_state {
	pid_t pid;
	int status; /* waitpid status once exited */
	bool started, exited;
	bool exit_census;		       /* ptrace stops it at exit */
	bool exit_sampled;		       /* the last census was taken at exit */
	int64_t last_pages[PN_MAX_NODES];      /* last census of its mappings */
	int64_t last_anon_pages[PN_MAX_NODES]; /* of that, anonymous mappings */
	int64_t peak_pages[PN_MAX_NODES];
	int samples;
	const char *method; /* "pagemap" or "move_pages" */
	bool have_pfnmap;
	struct pn_pfnmap pfnmap;
	uint64_t skipped_bytes; /* move_pages: VMAs too large to walk */
	bool have_numa_maps;	/* numa_maps read at exit, to cross-check */
	struct pn_numa_maps numa_maps;
};
int pn_exec_start(struct run *r, struct pn_exec_state *x);
bool pn_exec_poll(struct pn_exec_state *x); /* true once it exited */
void pn_exec_sample(struct pn_exec_state *x);
void pn_exec_interrupt(struct pn_exec_state *x);
struct cJSON *pn_exec_json(struct run *r, const struct pn_exec_state *x);

/* results.c */
struct cJSON *pn_results_new_root(struct run *r, const struct pn_config *c);
int pn_results_write(struct run *r);
void pn_results_status(struct run *r, const char *state, const char *reason);
struct cJSON *pn_results_summarize_point(struct cJSON *iters);
int pn_results_judge(struct run *r);
void pn_results_print(struct run *r);

#endif /* PN_RUNNER_H */
