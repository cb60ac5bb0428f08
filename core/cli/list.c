// SPDX-License-Identifier: GPL-2.0-only
/*
 * list.c - `pnbench list`: every workload and collector, whether it can run
 * here and why not, and with -v their options.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/api/collector.h"
#include "core/api/params.h"
#include "core/api/workload.h"
#include "core/lib/pn.h"
#include "core/sys/procfs.h"
#include "core/sys/topology.h"

static void print_opts(const struct pn_opt *opts)
{
	for (const struct pn_opt *o = opts; o && o->name; o++) {
		printf("      %-16s %-8s default %-10s %s", o->name, pn_opt_type_name(o->type),
		       o->def ? o->def : "(required)", o->help ? o->help : "");
		if (o->type == PN_OPT_ENUM && o->choices) {
			printf(" [");
			for (const char *const *ch = o->choices; *ch; ch++)
				printf("%s%s", ch == o->choices ? "" : "|", *ch);
			printf("]");
		}
		printf("\n");
	}
}

/* The "ok" lines above mean little if the nodes' counters cannot be read:
 * then exit 3 with the file named (as collect does).  Frees topo. */
static int list_counters_readable(struct pn_topology *topo)
{
	struct pn_nodeset all;
	struct pn_nodemem m;
	int n, ret = 0;

	if (!topo)
		return pn_cli_error(PN_EXIT_ERROR, "this machine's topology cannot be read: %s",
				    pn_last_error());
	pn_nodeset_or(&all, &topo->with_memory, &topo->with_private_memory);
	pn_topology_free(topo);
	pn_nodeset_for_each (n, &all) {
		ret = pn_nodemem_read(n, &m);
		if (ret)
			return pn_cli_error(PN_EXIT_ERROR, "node %d: cannot read its counters: %s",
					    n, strerror(-ret));
	}
	return 0;
}

static void list_workloads(const struct pn_env *env, bool verbose)
{
	printf("workloads:\n");
	for (size_t i = 0; i < pn_nworkloads; i++) {
		const struct pn_workload *w = pn_workloads[i];
		char why[256] = "";
		int ret = env->topo ? pn_workload_supported(w, env, why, sizeof(why)) : 0;

		if (!env->topo)
			snprintf(why, sizeof(why), "topology unavailable"), ret = -ENODEV;
		printf("  %-14s %-5s %s\n", w->name, ret ? "skip" : "ok", w->summary);
		if (ret)
			printf("  %-14s       why: %s\n", "", why);
		if (w->list && env->topo)
			w->list(env, stdout);
		if (verbose) {
			char needs[64];

			printf("      needs: %s\n",
			       pn_workload_needs_format(w->needs, needs, sizeof(needs)));
			print_opts(w->opts);
		}
	}
}

static void list_collectors(const struct pn_env *env, bool verbose)
{
	printf("collectors:\n");
	for (size_t i = 0; i < pn_ncollectors; i++) {
		const struct pn_collector *col = pn_collectors[i];
		char why[256] = "";
		int ret = col->supported ? col->supported(env, why, sizeof(why)) : 0;

		printf("  %-14s %-5s %s (%s)\n", col->name, ret ? "skip" : "ok", col->summary,
		       col->kind == PN_COLL_EVENT ? "events" : "sampled");
		if (ret)
			printf("  %-14s       why: %s\n", "", why);
		if (verbose)
			print_opts(col->opts);
	}
}

/* 0: go on; -1: --help was printed; else the exit code. */
static int list_parse(int argc, char **argv, bool *verbose)
{
	static const struct option lo[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 'v': *verbose = true; break;
		case 'h':
			puts("usage: pnbench list [-v]\n\nEvery workload and collector, and "
			     "whether it can run here (with the reason when not).\n"
			     "  -v  also list each workload's needs and each one's options");
			return -1;
		default: return PN_EXIT_USAGE;
		}
	}
	return 0;
}

int pn_cmd_list(int argc, char **argv)
{
	struct pn_topology topo;
	struct pn_roles roles;
	struct pn_env env = { 0 };
	bool verbose = false, have_topo;
	int ret = list_parse(argc, argv, &verbose);

	if (ret)
		return ret < 0 ? 0 : ret;
	have_topo = pn_topology_load(&topo) == 0;
	memset(&roles, 0, sizeof(roles));
	if (have_topo) {
		roles.private_nodes = topo.with_private_memory;
		roles.private_auto = true;
		pn_nodeset_andnot(&roles.dram_nodes, &topo.with_memory, &roles.private_nodes);
	}
	env.topo = have_topo ? &topo : NULL;
	env.roles = &roles;
	env.is_root = geteuid() == 0;
	list_workloads(&env, verbose);
	list_collectors(&env, verbose);
	if (have_topo) {
		char buf[256];

		pn_nodeset_format(&roles.private_nodes, buf, sizeof(buf));
		printf("(judged with private nodes = %s: %s)\n",
		       topo.kernel_has_private ? "the kernel's has_private_memory"
					       : "none: this kernel has no private nodes; "
						 "name them with --private or nodes.private",
		       buf[0] ? buf : "none");
	}
	return list_counters_readable(have_topo ? &topo : NULL);
}
