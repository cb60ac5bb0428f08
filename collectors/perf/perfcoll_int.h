/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfcoll_int.h - the insides of the perf collector, shared by
 * collectors/perf.c (options, life cycle, the hot path: records -> events ->
 * accounting) and collectors/perf/perfcoll.c (what a phase reports beside the
 * accounting: lost data, the counters, page_owner forensics).  Not an API.
 */
#ifndef PN_PERFCOLL_INT_H
#define PN_PERFCOLL_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/api/collector.h"
#include "pgacct.h"
#include "perfring.h"
#include "core/sys/pfnnode.h"
#include "pgdecode.h"

struct cJSON;

/* Events of tracked nodes wait this many events between decoding (which
 * starts loading their page's state) and accounting (which uses it). */
#define PN_PERFCOLL_PIPE 8

struct perfcoll {
	char tracefs[4096];
	struct pn_pgdec dec;
	struct pn_pfnnode map;
	uint64_t refresh_ns, last_refresh_ns, last_miss_ns;
	struct pn_pfnrange hit; /* the range of the last lookup (end 0: none) */
	struct pn_nodeset nodes;
	struct pn_pgacct *acct;
	struct pn_perfmerge_stats merge;
	struct pn_pgev pipe[PN_PERFCOLL_PIPE];
	unsigned pipe_head, pipe_n;
	struct pn_perfring *ring;
	size_t nrings;
	pthread_t thr;
	bool thr_started;
	int stop; /* __atomic: close() asks the reader to end */
	pthread_mutex_t lock;
	uint64_t *lost_rec; /* per ring: PERF_RECORD_LOST totals */
	uint64_t lost_samples, malformed, unknown_tp, events;
	uint64_t lost_begin;	   /* lost in all at phase begin */
	uint64_t *lost_begin_ring; /* and per ring */
	int64_t used_begin[PN_MAX_NODES];
	struct cJSON *params_obj; /* defaults when the runner gave none */
	bool use_filter;
	char filter[4096]; /* the kernel-side filter in force, "" = none */
	int owner_top;	   /* page_owner: stacks kept per node (0: off) */
};

/* collectors/perf/perfcoll.c.  Lost samples so far, per ring in ring_lost[] if given;
 * details (if given) gets "lost" with both sources per CPU and per event. */
uint64_t pn_perfcoll_lost(struct perfcoll *p, uint64_t *ring_lost, struct cJSON *details);
/* rep->details "inconclusive_reasons": "57 events lost on CPU 1", ... */
void pn_perfcoll_reasons(struct perfcoll *p, const uint64_t *ring_lost,
			 struct pn_event_report *rep);
/* MemUsed of every tracked node (INT64_MIN where unreadable). */
void pn_perfcoll_used(const struct perfcoll *p, int64_t *used);
/* Per private node "counters": event net pages against the MemUsed delta. */
void pn_perfcoll_reconcile(struct perfcoll *p, const struct pn_event_report *rep);
/* Per private node "page_owner": the top p->owner_top allocation stacks of
 * the pages allocated on it now (collectors/perf/pgowner.c), the pages of ctx's
 * explicit processes and __GFP_PRIVATE pages counted apart; or "skipped"
 * with the reason where the kernel has no page_owner or it is off. */
void pn_perfcoll_page_owner(struct perfcoll *p, const struct pn_phase_ctx *ctx,
			    const struct pn_event_report *rep);

#endif /* PN_PERFCOLL_INT_H */
