/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workload.h - the shape every workload has.
 *
 * A workload is one file workloads/<name>.c that defines
 *     const struct pn_workload pn_workload_<name> = { ... };
 * The build generates the registry from the file names, so adding a workload
 * touches only its own file.  A workload never parses argv, never prints
 * results and never writes JSON: it fills a struct pn_wl_result that the run
 * model turns into the results tree.
 */
#ifndef PN_WORKLOAD_H
#define PN_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "pn.h"

struct pn_topology;

/* Node roles of a run (config "nodes"): which nodes play the private-device
 * role, which are ordinary memory. */
struct pn_roles {
	struct pn_nodeset private_nodes;
	struct pn_nodeset dram_nodes;
	bool private_auto; /* private_nodes came from has_private_memory */
};

/* Context handed to supported(): the machine as the run sees it. */
struct pn_env {
	const struct pn_topology *topo;
	const struct pn_roles *roles;
	bool is_root;
};

/* Units of metrics, written into results as strings. */
enum pn_unit {
	PN_UNIT_NONE,
	PN_UNIT_BYTES,
	PN_UNIT_PAGES,
	PN_UNIT_NS,
	PN_UNIT_BYTES_PER_SEC,
	PN_UNIT_PAGES_PER_SEC,
	PN_UNIT_RATIO
};
const char *pn_unit_name(enum pn_unit u);

#define PN_MAX_METRICS 32

struct pn_metric {
	const char *name; /* static string, e.g. "fault_throughput" */
	enum pn_unit unit;
	double value;
	const char *better; /* "higher", "lower" or NULL (informational) */
};

/* What a workload reports.  Placement counts are page-exact, verified with
 * move_pages(2): for each node, how many of the workload's own pages live
 * there; "misplaced" are pages outside the nodes the policy intended. */
struct pn_wl_result {
	struct pn_metric metrics[PN_MAX_METRICS];
	size_t nmetrics;
	uint64_t placed_pages[PN_MAX_NODES]; /* verified pages per node id */
	uint64_t intended_pages;	     /* pages on the nodes the policy asked for */
	uint64_t misplaced_pages;	     /* pages elsewhere (fallback or leak) */
	uint64_t unverified_pages;	     /* move_pages could not tell (-ENOENT, -EFAULT) */
	uint64_t explicit_pages;	     /* pages this workload requested explicitly */
	bool verified;			     /* placement was checked */
	char note[256];			     /* short human note, e.g. why a fallback happened */
};
void pn_wl_metric(struct pn_wl_result *r, const char *name, enum pn_unit unit, double value,
		  const char *better);

struct pn_wl {
	const struct pn_workload *ops;
	struct pn_params params;
	const struct pn_roles *roles;
	const struct pn_topology *topo;
	struct pn_wl_result result;
	bool background;	     /* runs beside the phase's foreground workloads */
	volatile sig_atomic_t *stop; /* set by the runner when a background workload must end */
	double max_mem_share;	     /* suite limit (config limits.max_mem_share): a workload never
				      * takes more than this share of MemAvailable; 0 = none */
	void *priv;		     /* the workload's own state */
};

/* Long loops poll this: a signal or the runner asked the workload to stop. */
static inline bool pn_wl_should_stop(const struct pn_wl *w)
{
	return pn_should_stop() || (w->stop && *w->stop);
}

struct pn_workload {
	const char *name;
	const char *summary;
	const struct pn_opt *opts; /* terminated by {NULL} */
	/* 0 if it can run here, else -errno and a reason in why. */
	int (*supported)(const struct pn_env *env, char *why, size_t whylen);
	int (*setup)(struct pn_wl *w); /* may be NULL */
	/* Polls pn_wl_should_stop().  Memory the workload allocated stays
	 * mapped when run() returns: the runner snapshots node counters
	 * between run() and teardown(), so explicit pages are still there to
	 * explain the node's growth. */
	int (*run)(struct pn_wl *w);
	/* May be NULL; unmaps and frees priv.  Also called after a failed
	 * setup(), so it must cope with a half-built priv. */
	void (*teardown)(struct pn_wl *w);
};

/* Generated registry (build/gen/registry.c). */
extern const struct pn_workload *const pn_workloads[];
extern const size_t pn_nworkloads;
const struct pn_workload *pn_workload_find(const char *name);

#endif /* PN_WORKLOAD_H */
