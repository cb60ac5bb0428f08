// SPDX-License-Identifier: GPL-2.0-only
/*
 * collect.c - `pnbench collect`: per-node memory counters of the running
 * system, one line per node and interval.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"

struct collect_opts {
	uint64_t interval_ms;
	long count; /* -1: until ^C */
	const char *nodestr;
};

static void collect_usage(void)
{
	puts("usage: pnbench collect [-i INTERVAL] [-c COUNT] [-N NODES]\n\n"
	     "Per-node memory counters of the running system, like `vmstat 1` per node:\n"
	     "each line is one node over one interval (pages, and numastat events/s).\n"
	     "  -i, --interval D   sampling interval (default 1s)\n"
	     "  -c, --count N      stop after N intervals (default: until ^C)\n"
	     "  -N, --nodes LIST   nodes to show (default: every memory node)\n"
	     "Full raw series of every collector go with `pnbench run --exec -- sleep N`.");
}

/* 0: go on; -1: --help was printed; else the exit code (PN_EXIT_USAGE) */
static int collect_parse(int argc, char **argv, struct collect_opts *o)
{
	static const struct option lo[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "i:c:N:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (pn_parse_duration_ms(optarg, &o->interval_ms) || o->interval_ms == 0)
				return pn_cli_error(PN_EXIT_USAGE,
						    "--interval: \"%s\" is not a duration "
						    "(e.g. 500ms, 1s)",
						    optarg);
			break;
		case 'c':
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->count < 1)
				return pn_cli_error(PN_EXIT_USAGE,
						    "--count: \"%.80s\" is not a count in [1, %ld]",
						    optarg, LONG_MAX);
			break;
		case 'N': o->nodestr = optarg; break;
		case 'h': collect_usage(); return -1;
		default: return PN_EXIT_USAGE;
		}
	}
	return 0;
}

/* The nodes to show: the list given, else every memory node. */
static int collect_nodes(const char *nodestr, struct pn_nodeset *nodes)
{
	struct pn_topology topo;

	if (pn_topology_load(&topo))
		return PN_EXIT_ERROR;
	if (nodestr && pn_nodeset_parse(nodes, nodestr)) {
		pn_topology_free(&topo);
		return pn_cli_error(PN_EXIT_USAGE, "--nodes: \"%s\" is not a node list", nodestr);
	}
	if (!nodestr)
		pn_nodeset_or(nodes, &topo.with_memory, &topo.with_private_memory);
	pn_topology_free(&topo);
	if (pn_nodeset_empty(nodes))
		return pn_cli_error(PN_EXIT_SKIP, "no memory nodes to show");
	return 0;
}

static void collect_line(int n, const struct pn_nodemem *a, const struct pn_nodemem *b, double sec)
{
	long page = sysconf(_SC_PAGESIZE);

	printf("%-5d %10lld %10lld %10lld %10lld %10lld %10lld %10lld %9.0f %9.0f %9.0f\n", n,
	       (long long)(b->used / page), (long long)(b->free / page),
	       (long long)(b->anon / page), (long long)(b->file / page),
	       (long long)(b->slab / page), (long long)(b->kernel_stack / page),
	       (long long)((b->page_tables + b->sec_page_tables) / page),
	       (double)(b->numa_hit - a->numa_hit) / sec,
	       (double)(b->numa_miss - a->numa_miss) / sec,
	       (double)(b->numa_foreign - a->numa_foreign) / sec);
}

int pn_cmd_collect(int argc, char **argv)
{
	struct collect_opts o = { .interval_ms = 1000, .count = -1 };
	struct pn_nodeset nodes;
	struct pn_nodemem *prev, *cur;
	int n, i = 0, ret = collect_parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = collect_nodes(o.nodestr, &nodes);
	if (ret)
		return ret;
	prev = pn_xcalloc((size_t)pn_nodeset_count(&nodes), sizeof(*prev));
	cur = pn_xcalloc((size_t)pn_nodeset_count(&nodes), sizeof(*cur));
	pn_install_stop_handlers();
	pn_nodeset_for_each (n, &nodes) {
		ret = pn_nodemem_read(n, &prev[i++]);
		if (ret) {
			free(prev);
			free(cur);
			return pn_cli_error(PN_EXIT_ERROR, "node %d: cannot read its counters: %s",
					    n, strerror(-ret));
		}
	}
	printf("%-5s %10s %10s %10s %10s %10s %10s %10s %9s %9s %9s\n", "node", "used", "free",
	       "anon", "file", "slab", "kstack", "pgtable", "hit/s", "miss/s", "foreign/s");
	fflush(stdout);
	for (long k = 0; o.count < 0 || k < o.count; k++) {
		struct timespec ts = { .tv_sec = (time_t)(o.interval_ms / 1000),
				       .tv_nsec = (long)(o.interval_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		if (pn_should_stop())
			break;
		i = 0;
		pn_nodeset_for_each (n, &nodes) {
			if (pn_nodemem_read(n, &cur[i]) == 0) {
				collect_line(n, &prev[i], &cur[i], (double)o.interval_ms / 1000.0);
				prev[i] = cur[i];
			}
			i++;
		}
		/* SIGPIPE is ignored: a reader that went away (| head) ends it */
		if (fflush(stdout) == EOF || ferror(stdout))
			break;
	}
	free(prev);
	free(cur);
	return 0;
}
