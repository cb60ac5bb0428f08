/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * collector.h - the shape every collector has.
 *
 * A collector is one file collectors/<name>.c defining
 *     const struct pn_collector pn_collector_<name> = { ... };
 *
 * Two kinds:
 *  - PN_COLL_SAMPLER: the runner's sampler thread calls sample() every
 *    interval; it fills one row of raw counters into a struct pn_series
 *    (monotonic timestamp, columns fixed at open time).  Deltas are computed
 *    later, never by the collector.  Files are opened once at open() and
 *    re-read with pread (struct pn_file).
 *  - PN_COLL_EVENT: file-descriptor driven (perf rings, trace pipes).  It
 *    runs its own reader thread between start() and close(), counts the data
 *    it lost, and at every phase end hands the runner per-node totals that
 *    the verdict composes with the counters (struct pn_event_report).  It
 *    may also have sample() for a time series (events/s, lost so far).
 * Series rows are appended to <name>.csv as they are taken and flushed at
 * phase ends, so an interrupted or killed run keeps them.
 */
#ifndef PN_COLLECTOR_H
#define PN_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "params.h"
#include "core/lib/pn.h"
#include "series.h"

struct pn_env;
struct cJSON;

enum pn_coll_kind { PN_COLL_SAMPLER, PN_COLL_EVENT };

struct pn_coll {
	const struct pn_collector *ops;
	struct pn_params params;
	const struct pn_env *env;
	struct pn_series series; /* columns added in open(), rows by the core */
	void *priv;
};

/* A process of the phase, so an event collector can attribute pages. */
struct pn_phase_pid {
	pid_t pid;
	bool explicit_alloc; /* a foreground workload whose pages are explicit */
	bool background;
	const char *workload; /* name */
};

struct pn_phase_ctx {
	const char *phase;
	int iteration;
	const struct pn_nodeset *private_nodes;
	size_t npids;
	const struct pn_phase_pid *pids;
};

/* Per private node, what the events of one phase say, in pages. */
struct pn_event_node {
	int node;
	int64_t explicit_pages;	     /* allocations that carried the private context */
	int64_t general_alloc_pages; /* general allocations that landed on the node */
	int64_t general_freed_pages; /* of those, freed again within the phase */
	int64_t general_pages;	     /* general allocations still there at the end:
				      * alloc - freed; the verdict's events source */
	int64_t net_pages;	     /* every allocation - every free on the node */
	int64_t lost_events;	     /* events lost on a CPU/ring that could touch it */
	bool inconclusive;	     /* lost_events > 0: the events cannot clear the node */
};

struct pn_event_report {
	size_t nnodes;
	struct pn_event_node *nodes; /* owned by the collector until the next phase */
	int64_t events, lost_events;
	struct cJSON *details; /* handed over: by kind, pid/comm, examples; may be NULL */
};

struct pn_collector {
	const char *name;
	const char *summary;
	enum pn_coll_kind kind;
	const struct pn_opt *opts; /* terminated by {NULL} */
	int (*supported)(const struct pn_env *env, char *why, size_t whylen);
	/* Open files or events, add the series columns (pn_series_add_col). */
	int (*open)(struct pn_coll *c);
	/* Fill row[0 .. series.ncols-1] with raw values of one sample; NULL for
	 * event collectors without a series. */
	int (*sample)(struct pn_coll *c, int64_t *row);
	/* event collectors: start the reader thread */
	int (*start)(struct pn_coll *c);
	/* event collectors: a phase begins (per-phase totals restart) */
	int (*phase_begin)(struct pn_coll *c, const struct pn_phase_ctx *ctx);
	/* event collectors: the phase ended; read everything recorded up to now,
	 * then fill rep */
	int (*phase_end)(struct pn_coll *c, const struct pn_phase_ctx *ctx,
			 struct pn_event_report *rep);
	void (*close)(struct pn_coll *c); /* stops the thread too */
};

extern const struct pn_collector *const pn_collectors[];
extern const size_t pn_ncollectors;
const struct pn_collector *pn_collector_find(const char *name);

/* Take one sample into c->series with a monotonic timestamp and tag. */
int pn_coll_sample(struct pn_coll *c, int iteration, const char *phase);

#endif /* PN_COLLECTOR_H */
