/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * phase.h - the state of one phase, shared by phase.c (running it) and
 * phase_json.c (its results: outcomes, accounting, attribution).  Internal.
 */
#ifndef PN_PHASE_H
#define PN_PHASE_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>

#include "account.h"
#include "child.h"
#include "core/sys/knob.h"
#include "run_int.h"

struct slot {
	struct pn_wl w;
	const struct pn_config_wl *cw;
	bool skipped, setup_called, setup_ok, started;
	char why[256];
	struct pn_child child;
	struct pn_outcome out;
	struct pn_cgroup_node *cgn; /* per role node: numa_stat at the after-read */
	bool have_cgn;
	bool have_leaf; /* its cgroup leaf, made before the phase's first read */
	char leaf[PATH_MAX];
};

struct phase {
	struct run *r;
	const struct pn_config *c;
	const struct pn_config_phase *ph;
	int iter;		 /* the iteration of the point it runs in (0-based) */
	struct pn_nodeset nodes; /* role nodes, private + dram */
	int nnodes;
	struct pn_node_acct *acct;
	size_t nslots, nbg;
	struct slot *slots;
	volatile sig_atomic_t *flags; /* shared with the children: stop requests */
	struct pn_knobs knobs;
	struct pn_exec_state exec;
	bool exec_mode;
	struct pn_phase_pid *pids;
	struct pn_phase_ctx ctx;
	struct pn_event_report *reps; /* per collector */
	char read_why[192];	      /* why a node reading failed ("" if none did) */
	/* sampler */
	pthread_t sth;
	volatile int done;
	uint64_t t0, t1;
};

/* How often the sampler reads the private nodes during a phase (ms): the
 * config's interval, 500 ms without one.  The counters' blind spot. */
static inline uint64_t pn_phase_sample_ms(const struct phase *p)
{
	return p->c->interval_ms ? p->c->interval_ms : 500;
}

/* phase_budget.c: refuses (setup_ok false, why set) the workloads that
 * take memory when the phase's together would not fit */
void pn_phase_check_budget(struct phase *p);

/* phase_json.c */
bool pn_phase_end_matches(const char *expect, enum pn_end e);
void pn_phase_explain(struct phase *p);
struct cJSON *pn_phase_json(struct phase *p, int ret);

#endif /* PN_PHASE_H */
