/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run_int.h - the runner's internal state, shared by run.c (the top level),
 * phase.c (one phase: children, sampler, accounting), exec.c (--exec) and
 * runjson.c (the results tree), verdict.c and verdict_print.c (the verdict,
 * the text summary).  run.h is its public face.
 */
#ifndef PN_RUN_INT_H
#define PN_RUN_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "account.h"
#include "core/sys/cgroup.h"
#include "core/api/collector.h"
#include "core/config/config.h"
#include "core/sys/pagemap.h"
#include "core/sys/procfs.h"
#include "run.h"
#include "core/sys/topology.h"
#include "core/api/workload.h"

struct cJSON;

/*
 * The verdict's state, counted in C as the phases record it (phase_json.c:
 * each workload's checks as its result arrives, the --exec command's exit
 * status, each node's judged reading), so that the verdict (verdict.c)
 * never reads the results tree back by key.
 */
struct pn_verdict_fail { /* one failed check, where it was made */
	int point, iteration;
	const char *phase, *workload; /* the config's and the registry's: live for the run */
	char *name, *expected, *observed;
};
#define PN_VERDICT_PRESSURE_MAX 16
struct pn_verdict_worst { /* the phase where a node held the most general pages */
	bool set;
	int point, iteration;
	const char *phase;
	int64_t total; /* by the counters, the figure the verdict judged */
	bool at_peak;  /* a sampled peak, else the end of the phase */
	int64_t kinds[PN_NKINDS];
	int npressure; /* the pressure kinds any workload of the phase had active */
	char *pressure[PN_VERDICT_PRESSURE_MAX];
};
struct pn_verdict_state {
	int checks, checks_failed;
	struct pn_verdict_fail *fail; /* checks_failed of them */
	struct pn_verdict_worst worst[PN_MAX_NODES];
};
/* Where a phase ran: the verdict's records name it. */
struct pn_verdict_at {
	int point, iteration;
	const char *phase;
};
/* verdict.c keeps the state: phase_json.c records into it, the verdict
 * reads it, run.c frees it */
void pn_verdict_record_check(struct pn_verdict_state *vs, const struct pn_verdict_at *at,
			     const char *workload, const char *name, const char *expected,
			     const char *observed, bool pass);
/* Node `node`'s judged reading of a phase: kept when it is the worst yet
 * (strictly more general pages than any before it, the first one on a tie),
 * with the phase's active pressure kinds (copied) */
void pn_verdict_record_reading(struct pn_verdict_state *vs, const struct pn_verdict_at *at,
			       int node, const struct pn_general *g, const char *const *pressure,
			       int npressure);
void pn_verdict_state_free(struct pn_verdict_state *vs);

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
	struct pn_verdict_state vs; /* checks and worst readings, as recorded */
	int64_t misplaced_total;
	int ran_workloads; /* workloads that ran */
	int failed_workloads;
	int exec_failed;	    /* --exec: the command exited non-zero or was killed */
	const struct pn_config *c0; /* thresholds and roles come from point 0 */
	/* the verdict's sources (verdict.c) */
	char (*counters_why)[320];     /* per node: first failure of its counters */
	uint64_t sample_iv_ms;	       /* node sampling interval (largest) */
	uint64_t min_samples_phase_ns; /* the duration of the phase with the fewest */
	int phases_sampled;	       /* phases whose private nodes were sampled */
	int min_samples;	       /* fewest settled samples of a private node */
	/* how the run ended, for the one exit code (verdict.c) */
	int stop_signal;       /* interrupted by this signal */
	bool finished;	       /* the last write: the verdict is final */
	bool run_error;	       /* a phase failed or results could not be written */
	bool events_on;	       /* an event collector runs */
	char events_why[256];  /* why not, when !events_on */
	char coll_failed[384]; /* requested collectors that did not run */
	char stop_reason[160];
	char last_why[256]; /* last skip/failure reason printed */
	int phase_seq;	    /* phases run so far (cgroup leaf names) */
};

/* phase.c */
int pn_run_phase(struct run *r, const struct pn_config *c, size_t pi, int iter,
		 struct cJSON *phases_json);

/* exec.c: run the --exec command as part of a phase */

/* SIGTERM first, SIGKILL this long after to what is still alive: the
 * command after a stop request, what it left running in its cgroup leaf
 * after it exited.  Long enough for a process to exit cleanly on SIGTERM
 * (the workloads' children get the same, child.c), short enough that a
 * command ignoring SIGTERM does not hold the run up noticeably. */
#define PN_EXEC_GRACE_MS	  2000
#define PN_EXEC_SURVIVOR_EXAMPLES 8

/* Processes left in the command's leaf once it exited (its own process
 * reaped), counted after the after-read, and how they were ended. */
struct pn_exec_survivors {
	bool checked;	/* the leaf was listed (it had a leaf, cgroup.procs read) */
	int count;	/* processes in the leaf then */
	int terminated; /* of those, gone within the grace period after SIGTERM */
	int killed;	/* still there after it: SIGKILL */
	int nexamples;
	struct {
		pid_t pid;
		char comm[16];
	} ex[PN_EXEC_SURVIVOR_EXAMPLES];
};

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
	struct pn_pfnnode pfnmap;
	uint64_t skipped_bytes; /* move_pages: VMAs too large to walk */
	bool have_numa_maps;	/* numa_maps read at exit, to cross-check */
	struct pn_numa_maps numa_maps;
	bool stopped; /* held at its exec trap until pn_exec_go() */
	/* exec_cg.c: its cgroup leaf */
	bool have_leaf;		    /* it runs in leaf (it entered it before execve) */
	char leaf[PATH_MAX];	    /* relative to the sysroot */
	char cg_note[200];	    /* why it runs without a leaf */
	struct pn_cgroup_node *cgn; /* per role node, phase order: numa_stat at the after-read */
	struct pn_exec_survivors surv;
	int kill_stage; /* stop request: 0, 1 = SIGTERM sent, 2 = SIGKILL sent */
	uint64_t kill_at_ns;
};
/* Fork the command into its leaf (x->leaf when x->have_leaf) and hold it at
 * its exec trap: it runs nothing of its own before pn_exec_go(). */
int pn_exec_start(struct run *r, struct pn_exec_state *x);
void pn_exec_go(struct pn_exec_state *x);
/* Kill and reap it (the phase could not start) */
void pn_exec_abort(struct pn_exec_state *x);
bool pn_exec_poll(struct pn_exec_state *x); /* true once it exited */
void pn_exec_sample(struct pn_exec_state *x);
struct cJSON *pn_exec_json(struct run *r, const struct pn_exec_state *x);

/* exec_cg.c: the command's cgroup leaf, made before the phase's first read
 * (a note in x->cg_note when there is none) */
void pn_exec_leaf_make(struct run *r, struct pn_exec_state *x);
/* numa_stat of the leaf for each of nodes[0..n) into x->cgn (NULL if unread) */
void pn_exec_leaf_read(struct run *r, struct pn_exec_state *x, const int *nodes, int n);
/* Stop request: SIGTERM to the command and its leaf, once */
void pn_exec_interrupt(struct pn_exec_state *x);
/* SIGKILL to what is left PN_EXEC_GRACE_MS after pn_exec_interrupt() */
void pn_exec_escalate(struct pn_exec_state *x, uint64_t now_ns);
/* After the after-read: end what the command left in its leaf (x->surv),
 * remove the leaf */
void pn_exec_end_survivors(struct pn_exec_state *x);
struct cJSON *pn_exec_survivors_json(const struct pn_exec_state *x);

/* runjson.c: the results tree, run.json */
struct cJSON *pn_results_new_root(struct run *r, const struct pn_config *c);
int pn_results_write(struct run *r);
void pn_results_status(struct run *r, const char *state, const char *reason);
struct cJSON *pn_results_summarize_point(struct cJSON *iters);
/* o.key when it is a string, else "" (the results tree's readers) */
const char *pn_json_str(const struct cJSON *o, const char *key);

/* verdict.c: the verdict into the results tree, from r and r->vs; returns
 * the exit code */
int pn_results_judge(struct run *r);

/* verdict.c: the one exit code from how a run ended and what it judged */
struct pn_verdict_in {
	int signal;	    /* interrupted by the user's signal: 128+N */
	bool leak;	    /* general pages over the threshold, or explicit pages off */
	bool run_failed;    /* a phase, a workload, the --exec command, the results */
	bool checks_failed; /* a check failed */
	bool inconclusive;  /* a source the verdict depends on failed */
	bool nothing_ran;   /* no workload ran (and no --exec command) */
	bool judged;	    /* a private node or a check was judged */
};
int pn_verdict_code(const struct pn_verdict_in *in, const char **result);
void pn_results_print(struct run *r);

#endif /* PN_RUN_INT_H */
