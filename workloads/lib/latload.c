// SPDX-License-Identifier: GPL-2.0-only
/*
 * latload.c - the loaded-latency curve: thread-count steps at full load,
 * then MLC-style injection delays with every load thread (see latload.h);
 * the result tables of the bandwidth kernels and of the curve.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latload.h"

#define MAX_DELAY 10000000UL

int pn_latload_delays_parse(const char *s, uint32_t *delays, int max)
{
	int n = 0;

	if (!*s) {
		delays[0] = 0;
		return 1;
	}
	while (*s) {
		char *end;
		unsigned long v;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = strtoul(s, &end, 10);
		if (end == s || v > MAX_DELAY || (*end && *end != ',') || n >= max)
			return -EINVAL;
		delays[n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
		if (end[0] == ',' && !*s)
			return -EINVAL; /* a trailing comma */
	}
	return n;
}

int pn_latload_bw_table(struct pn_wl *w)
{
	static const struct pn_col cols[] = {
		{ "initiator", PN_COL_INT, PN_UNIT_NONE },
		{ "target", PN_COL_INT, PN_UNIT_NONE },
		{ "kernel", PN_COL_STR, PN_UNIT_NONE },
		{ "threads", PN_COL_INT, PN_UNIT_COUNT },
		{ "gbps", PN_COL_NUM, PN_UNIT_NONE },
		{ "theoretical_gbps", PN_COL_NUM, PN_UNIT_NONE },
		{ "share", PN_COL_NUM, PN_UNIT_PERCENT },
		{ "non_temporal_native", PN_COL_BOOL, PN_UNIT_NONE },
	};

	return pn_res_table(&w->res, "bandwidth",
			    "GB/s (1e9 B/s, STREAM byte counting) per kernel and thread count",
			    cols, PN_ARRAY_SIZE(cols));
}

int pn_latload_table(struct pn_wl *w)
{
	static const struct pn_col cols[] = {
		{ "initiator", PN_COL_INT, PN_UNIT_NONE },
		{ "target", PN_COL_INT, PN_UNIT_NONE },
		{ "load_threads", PN_COL_INT, PN_UNIT_COUNT },
		{ "delay", PN_COL_INT, PN_UNIT_NONE },
		{ "load_kernel", PN_COL_STR, PN_UNIT_NONE },
		{ "latency_min", PN_COL_NUM, PN_UNIT_NS },
		{ "latency_median", PN_COL_NUM, PN_UNIT_NS },
		{ "latency_p99", PN_COL_NUM, PN_UNIT_NS },
		{ "load_gbps", PN_COL_NUM, PN_UNIT_NONE },
	};

	return pn_res_table(&w->res, "loaded_latency",
			    "chase latency with load threads on the initiator's other CPUs: "
			    "1, 2, 4, ... threads at full load (delay 0), then all of them "
			    "throttled by each injection delay (spins of about a cycle after "
			    "every 64-byte line, as MLC --loaded_latency); load_threads 0 is "
			    "the idle measurement",
			    cols, PN_ARRAY_SIZE(cols));
}

static void point(struct pn_wl *w, const struct pn_latload *ld, const struct pn_latload_at *at,
		  int n, uint32_t delay, const struct pn_lat_stats *st, double gbps)
{
	char lab[96];

	snprintf(lab, sizeof(lab), "src=%d,dst=%d,load_threads=%d,delay=%u", at->src, at->dst, n,
		 delay);
	pn_wl_metric(w, "loaded_latency_ns", lab, st->median_ns);
	pn_res_table_row(&w->res, ld->table, (int64_t)at->src, (int64_t)at->dst, (int64_t)n,
			 (int64_t)delay, pn_bw_kind_name(ld->kind), st->min_ns, st->median_ns,
			 st->p99_ns, gbps);
}

/* One point: n load threads with `delay`, the chase timed meanwhile. */
static int measure(struct pn_wl *w, struct pn_chase *c, const struct pn_latload *ld,
		   const struct pn_latload_at *at, int n, uint32_t delay)
{
	struct pn_bw_job j = { .kind = ld->kind,
			       .bytes = ld->bytes,
			       .nthreads = n,
			       .cpus = at->cpus + 1,
			       .delay = delay };
	struct pn_bw_result r = { 0 };
	struct pn_lat_stats st;
	struct pn_bw_load *l;
	int ret;

	memcpy(j.arr, at->arr, sizeof(j.arr));
	ret = pn_bw_start(&j, &l);
	if (ret)
		return pn_error(ret, "workload latency: load threads: %s", strerror(-ret));
	ret = pn_chase_measure(c, ld->samples, ld->sample_ms, &st);
	pn_bw_stop(l, &r);
	if (ret)
		return pn_error(ret, "workload latency: loaded chase: %s", strerror(-ret));
	point(w, ld, at, n, delay, &st, r.bytes_per_sec / 1e9);
	return 0;
}

int pn_latload_curve(struct pn_wl *w, struct pn_chase *c, const struct pn_latload *ld,
		     const struct pn_latload_at *at)
{
	int counts[64], nc = pn_count_steps(1, at->ncpus - 1, counts, 64), ret = 0;

	point(w, ld, at, 0, 0, at->idle, 0);
	for (int d = 0; !ret && d < ld->ndelays && !pn_wl_should_stop(w); d++) {
		if (ld->delays[d]) /* every load thread, throttled */
			ret = nc ? measure(w, c, ld, at, at->ncpus - 1, ld->delays[d]) : 0;
		else
			for (int t = 0; !ret && t < nc && !pn_wl_should_stop(w); t++)
				ret = measure(w, c, ld, at, counts[t], 0);
	}
	return ret;
}
