// SPDX-License-Identifier: GPL-2.0-only
/*
 * chaseorder.c - the latency workload's chase measured the same way several
 * times in one run, to see what moves its figure: the same buffer measured
 * twice back to back (idle, again), then right after a bandwidth load as the
 * loaded curve's zero-load point once was (after), then once more (later).
 *
 *   build/bench/chaseorder [-s SIZE] [-r ROUNDS] [-t LOAD_THREADS] [-m BW_MS]
 *
 * Every round maps a fresh chase buffer and a load array (THP, node 0),
 * measures with pn_chase_measure() as the workload does (11 samples of
 * 20 ms, the first dropped) and runs the read kernel for BW_MS between
 * "again" and "after".  It prints best/median ns per round and the medians
 * over rounds of each ratio to "idle".  A benchmark, not a test: it prints
 * figures and never fails on time (docs/benchmarks.md, Latency).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lib/pn.h"
#include "workloads/lib/chase.h"
#include "workloads/lib/membw.h"
#include "workloads/lib/nodebuf.h"

#define MAX_ROUNDS 100
#define NMEAS	   4 /* idle, again, after, later */

static const char *const meas_names[NMEAS] = { "idle", "again", "after", "later" };

static int round_once(size_t bytes, int nt, unsigned bw_ms, uint64_t seed,
		      struct pn_lat_stats st[NMEAS])
{
	static const int cpus[2] = { 0, 1 };
	struct pn_nodebuf cb = { 0 }, ab = { 0 };
	struct pn_bw_result r;
	struct pn_chase c;
	int ret = pn_nodebuf_alloc(&cb, 0, bytes, PN_HUGE_THP);

	if (!ret)
		ret = pn_nodebuf_alloc(&ab, 0, bytes, PN_HUGE_THP);
	if (!ret)
		ret = pn_chase_build(&c, cb.addr, cb.bytes, 256, 64 * 4096UL, seed);
	for (int m = 0; !ret && m < NMEAS; m++) {
		struct pn_bw_job j = { .kind = PN_BW_READ,
				       .arr = { ab.addr },
				       .bytes = ab.bytes,
				       .nthreads = nt,
				       .cpus = cpus };

		if (m == 2)
			ret = pn_bw_measure(&j, bw_ms, &r);
		if (!ret)
			ret = pn_chase_measure(&c, 11, 20, &st[m]);
	}
	pn_nodebuf_free(&cb);
	pn_nodebuf_free(&ab);
	return ret;
}

static double med(double *v, int n)
{
	return pn_median(v, (size_t)n);
}

int main(int argc, char **argv)
{
	static struct pn_lat_stats st[MAX_ROUNDS][NMEAS];
	size_t bytes = 128UL << 20;
	int rounds = 8, nt = 1, opt;
	unsigned bw_ms = 300;
	uint64_t v;

	while ((opt = getopt(argc, argv, "s:r:t:m:")) != -1) {
		switch (opt) {
		case 's':
			if (pn_parse_size(optarg, &v) || v < (1UL << 20))
				return fprintf(stderr, "chaseorder: -s %s: a size >= 1M\n", optarg),
				       2;
			bytes = (size_t)v;
			break;
		case 'r': rounds = atoi(optarg); break;
		case 't': nt = atoi(optarg); break;
		case 'm': bw_ms = (unsigned)atoi(optarg); break;
		default:
			fprintf(stderr,
				"usage: chaseorder [-s SIZE] [-r ROUNDS] [-t THREADS] [-m MS]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || nt < 1 || nt > 2 || !bw_ms)
		return fprintf(stderr, "chaseorder: -r 1..%d, -t 1..2, -m > 0\n", MAX_ROUNDS), 2;
	if (pn_pin_thread(0))
		return fprintf(stderr, "chaseorder: cannot pin to CPU 0\n"), 1;
	printf("chase %zu MiB, stride 256, 64-page windows, THP; best/median ns; read load "
	       "%d thread(s) for %u ms before \"after\"\n",
	       bytes >> 20, nt, bw_ms);
	for (int r = 0; r < rounds; r++) {
		if (round_once(bytes, nt, bw_ms, 1 + (uint64_t)r, st[r]))
			return fprintf(stderr, "chaseorder: round %d failed\n", r), 1;
		printf("round %d:", r);
		for (int m = 0; m < NMEAS; m++)
			printf("  %s %.1f/%.1f", meas_names[m], st[r][m].min_ns,
			       st[r][m].median_ns);
		printf("\n");
		fflush(stdout);
	}
	for (int m = 1; m < NMEAS; m++) {
		double best[MAX_ROUNDS], median[MAX_ROUNDS];

		for (int r = 0; r < rounds; r++) {
			best[r] = st[r][m].min_ns / st[r][0].min_ns;
			median[r] = st[r][m].median_ns / st[r][0].median_ns;
		}
		printf("%s / idle, median over %d rounds: best %.2fx, median %.2fx\n",
		       meas_names[m], rounds, med(best, rounds), med(median, rounds));
	}
	return 0;
}
