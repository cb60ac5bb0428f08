// SPDX-License-Identifier: GPL-2.0-only
/*
 * collect.c - `pnbench collect`: per-node memory counters of the running
 * system, one line per node and interval.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"

struct collect_opts {
	uint64_t interval_ms;
	long count; /* -1: until ^C */
	const char *nodestr;
	enum pn_cli_fmt format;
	bool mib; /* -m: MiB, not pages */
};

/* Text widths: 100 columns in all (kstack and pgtable are small). */
static const int mem_w[] = { 8, 8, 8, 8, 8, 7, 7 };
static const int rate_w[] = { 7, 7, 9 };

/* The columns: memory of the node at the end of the interval, numastat
 * events over it (per second). */
static const char *const mem_cols[] = {
	"used", "free", "anon", "file", "slab", "kstack", "pgtable"
};
static const char *const rate_cols[] = { "hit", "miss", "foreign" };

static void collect_usage(void)
{
	puts("usage: pnbench collect [-i INTERVAL] [-c COUNT] [-N NODES] [-m] [--format FMT]\n\n"
	     "Per-node memory counters of the running system, like `vmstat -t 1` per node:\n"
	     "each line is one node at the end of one interval: the time (UTC), memory in\n"
	     "pages (-m: MiB) and numastat's hit/miss/foreign events per second over it.\n"
	     "  -i, --interval D   sampling interval (default 1s)\n"
	     "  -c, --count N      stop after N intervals (default: until ^C)\n"
	     "  -N, --nodes LIST   nodes to show (default: every memory node); numactl's\n"
	     "                     forms: 0-2,4  all  !0  +1\n"
	     "  -m, --mebibytes    memory in MiB, as numastat -m\n"
	     "      --format FMT   text (default), csv (a header, then one row per node and\n"
	     "                     interval) or json (one object per line: JSON Lines)\n"
	     "      --csv, --json  --format csv, --format json\n"
	     "Full raw series of every collector go with `pnbench run --exec -- sleep N`.");
}

/* 0: go on; -1: --help was printed; else the exit code (PN_EXIT_USAGE) */
static int collect_parse(int argc, char **argv, struct collect_opts *o)
{
	static const struct option lo[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "mebibytes", no_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "i:c:N:mh", lo, NULL)) != -1) {
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
		case 'm': o->mib = true; break;
		case 'f':
			if (pn_cli_format(optarg, &o->format))
				return PN_EXIT_USAGE;
			break;
		case 'C': o->format = PN_FMT_CSV; break;
		case 'J': o->format = PN_FMT_JSON; break;
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
	pn_nodeset_or(nodes, &topo.with_memory, &topo.with_private_memory);
	pn_topology_free(&topo);
	if (nodestr) {
		struct pn_nodeset mem = *nodes;
		char why[192];

		if (pn_nodelist_parse(nodestr, &mem, nodes, why, sizeof(why)))
			return pn_cli_error(PN_EXIT_USAGE, "--nodes: %s", why);
	}
	if (pn_nodeset_empty(nodes))
		return pn_cli_error(PN_EXIT_SKIP, "no memory nodes to show");
	return 0;
}

/* One row's values: memory (pages or MiB) and events per second. */
static void row_values(const struct pn_nodemem *a, const struct pn_nodemem *b, double sec, bool mib,
		       double mem[7], double rate[3])
{
	double page = (double)sysconf(_SC_PAGESIZE);
	double div = mib ? 1048576.0 : page;

	mem[0] = (double)b->used / div;
	mem[1] = (double)b->free / div;
	mem[2] = (double)b->anon / div;
	mem[3] = (double)b->file / div;
	mem[4] = (double)b->slab / div;
	mem[5] = (double)b->kernel_stack / div;
	mem[6] = (double)(b->page_tables + b->sec_page_tables) / div;
	if (!mib) /* whole pages: the counters are page multiples */
		for (int i = 0; i < 7; i++)
			mem[i] = (double)(int64_t)mem[i];
	rate[0] = (double)(b->numa_hit - a->numa_hit) / sec;
	rate[1] = (double)(b->numa_miss - a->numa_miss) / sec;
	rate[2] = (double)(b->numa_foreign - a->numa_foreign) / sec;
}

/* "07:41:03" for text, "2026-12-05T07:41:03.250Z" for csv and json. */
static void stamp(char *buf, size_t len, bool iso)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	if (iso)
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			 (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100, tm.tm_mday % 100,
			 tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100,
			 (int)(ts.tv_nsec / 1000000L) % 1000);
	else
		strftime(buf, len, "%H:%M:%S", &tm);
}

static void collect_header(const struct collect_opts *o)
{
	const char *unit = o->mib ? "mib" : "pages";

	if (o->format == PN_FMT_JSON)
		return;
	if (o->format == PN_FMT_CSV) {
		printf("time,node");
		for (size_t i = 0; i < PN_ARRAY_SIZE(mem_cols); i++)
			printf(",%s_%s", mem_cols[i], unit);
		for (size_t i = 0; i < PN_ARRAY_SIZE(rate_cols); i++)
			printf(",numa_%s_per_s", rate_cols[i]);
		printf("\n");
		return;
	}
	printf("# time UTC; used..pgtable in %s; hit/s, miss/s, foreign/s: numastat "
	       "events per second\n",
	       o->mib ? "MiB" : "pages");
	printf("%-8s %4s", "time", "node");
	for (size_t i = 0; i < PN_ARRAY_SIZE(mem_cols); i++)
		printf(" %*s", mem_w[i], mem_cols[i]);
	for (size_t i = 0; i < PN_ARRAY_SIZE(rate_cols); i++) {
		char h[16];

		snprintf(h, sizeof(h), "%s/s", rate_cols[i]);
		printf(" %*s", rate_w[i], h);
	}
	printf("\n");
}

static void collect_line(const struct collect_opts *o, int n, const struct pn_nodemem *a,
			 const struct pn_nodemem *b)
{
	double mem[7], rate[3];
	char t[40];
	const char *unit = o->mib ? "mib" : "pages";

	row_values(a, b, (double)o->interval_ms / 1000.0, o->mib, mem, rate);
	stamp(t, sizeof(t), o->format != PN_FMT_TEXT);
	if (o->format == PN_FMT_TEXT) {
		printf("%-8s %4d", t, n);
		for (int i = 0; i < 7; i++)
			printf(o->mib ? " %*.1f" : " %*.0f", mem_w[i], mem[i]);
		for (int i = 0; i < 3; i++)
			printf(" %*.0f", rate_w[i], rate[i]);
	} else if (o->format == PN_FMT_CSV) {
		printf("%s,%d", t, n);
		for (int i = 0; i < 7; i++)
			printf(o->mib ? ",%.3f" : ",%.0f", mem[i]);
		for (int i = 0; i < 3; i++)
			printf(",%.1f", rate[i]);
	} else {
		printf("{\"time\":\"%s\",\"node\":%d", t, n);
		for (int i = 0; i < 7; i++)
			printf(o->mib ? ",\"%s_%s\":%.3f" : ",\"%s_%s\":%.0f", mem_cols[i], unit,
			       mem[i]);
		for (int i = 0; i < 3; i++)
			printf(",\"numa_%s_per_s\":%.1f", rate_cols[i], rate[i]);
		printf("}");
	}
	printf("\n");
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
	collect_header(&o);
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
				collect_line(&o, n, &prev[i], &cur[i]);
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
