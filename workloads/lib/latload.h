/* SPDX-License-Identifier: GPL-2.0-only
 *
 * latload.h - the loaded-latency curve of the latency workload: the chase
 * timed while load threads run a bandwidth kernel on the initiator's other
 * CPUs, first at full speed with 1, 2, 4, ... threads, then with every load
 * thread throttled by each injection delay (Intel MLC --loaded_latency: one
 * (bandwidth, latency) point per delay).  The zero-load point is the idle
 * measurement itself: one condition, one figure.
 */
#ifndef PN_LATLOAD_H
#define PN_LATLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/api/workload.h"
#include "workloads/lib/chase.h"
#include "workloads/lib/membw.h"

#define PN_LATLOAD_MAX_DELAYS 32

/* The curve's settings, the same for every pair. */
struct pn_latload {
	int table; /* from pn_latload_table() */
	enum pn_bw_kind kind;
	size_t bytes;				/* of each load array */
	uint32_t delays[PN_LATLOAD_MAX_DELAYS]; /* MLC injection delays (0 = full load) */
	int ndelays;
	size_t samples; /* chase samples per point (first dropped) */
	uint64_t sample_ms;
};

/* One initiator and target. */
struct pn_latload_at {
	int src, dst;			 /* node labels */
	const int *cpus;		 /* the initiator's CPUs: the chase runs on cpus[0], */
	int ncpus;			 /* load threads on cpus[1..ncpus) */
	char *arr[3];			 /* the load kernel's arrays */
	const struct pn_lat_stats *idle; /* the zero-load point */
};

/* "0,200,1000" -> delays[] (each 0..10^7 spins, at most max); returns the count
 * or -EINVAL.  "" is one delay, 0. */
int pn_latload_delays_parse(const char *s, uint32_t *delays, int max);

/* The result table "bandwidth" of the bandwidth kernels (initiator, target,
 * kernel, threads, gbps, theoretical_gbps, share, non_temporal_native). */
int pn_latload_bw_table(struct pn_wl *w);

/* The result table "loaded_latency" (its index, or -errno). */
int pn_latload_table(struct pn_wl *w);

/* Every point of the curve for one initiator and target, as table rows and
 * loaded_latency_ns metrics (labels src, dst, load_threads, delay).  The
 * caller runs pinned to at->cpus[0].  0 or -errno (message printed). */
int pn_latload_curve(struct pn_wl *w, struct pn_chase *c, const struct pn_latload *ld,
		     const struct pn_latload_at *at);

#endif /* PN_LATLOAD_H */
