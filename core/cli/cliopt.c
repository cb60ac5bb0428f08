// SPDX-License-Identifier: GPL-2.0-only
/*
 * cliopt.c - option values several commands share: node lists in numactl's
 * forms read against this machine's memory nodes, and --format
 * text|json|csv.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/api/params.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"

int pn_cli_nodes(const char *opt, const char *str, struct pn_nodeset *out)
{
	struct pn_topology topo;
	struct pn_nodeset mem;
	char why[192];

	if (pn_topology_load(&topo))
		return pn_cli_error(PN_EXIT_ERROR, "%s: this machine's nodes cannot be read: %s",
				    opt, pn_last_error());
	pn_nodeset_or(&mem, &topo.with_memory, &topo.with_private_memory);
	pn_topology_free(&topo);
	if (pn_nodelist_parse(str, &mem, out, why, sizeof(why)))
		return pn_cli_error(PN_EXIT_USAGE,
				    "%s: %s (node lists: all, 0-2,4, !0 for all but 0, +1 for "
				    "the 2nd memory node)",
				    opt, why);
	return 0;
}

int pn_cli_format(const char *arg, enum pn_cli_fmt *out)
{
	static const char *const names[] = { "text", "json", "csv" };

	for (size_t i = 0; i < PN_ARRAY_SIZE(names); i++) {
		if (!strcmp(arg, names[i])) {
			*out = (enum pn_cli_fmt)i;
			return 0;
		}
	}
	return pn_cli_error(PN_EXIT_USAGE, "--format: \"%.40s\" is not one of text, json, csv",
			    arg);
}
