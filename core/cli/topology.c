// SPDX-License-Identifier: GPL-2.0-only
/*
 * topology.c - `pnbench topology`: the NUMA nodes as text, hwloc XML or the
 * JSON run.json records.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "cli.h"
#include "core/lib/pn.h"
#include "core/sys/topology.h"

int pn_cmd_topology(int argc, char **argv)
{
	struct pn_topology t;
	bool xml = false, json = false;
	int c, ret;

	static const struct option lo[] = {
		{ "xml", no_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "xjh", lo, NULL)) != -1) {
		switch (c) {
		case 'x': xml = true; break;
		case 'j': json = true; break;
		case 'h':
			puts("usage: pnbench topology [-x | -j]\n\nNUMA nodes (sparse ids, "
			     "CPU-less and "
			     "memory-less nodes, private nodes), distances, memory tiers and "
			     "HMAT.\n"
			     "  -x  print the hwloc XML\n  -j  print the JSON that run.json "
			     "records");
			return 0;
		default: return PN_EXIT_USAGE;
		}
	}
	ret = pn_topology_load(&t);
	if (ret)
		return PN_EXIT_ERROR;
	if (xml) {
		if (!t.hwloc_xml) {
			pn_topology_free(&t);
			return pn_cli_error(PN_EXIT_ERROR, "hwloc gave no XML for this machine");
		}
		fputs(t.hwloc_xml, stdout);
	} else if (json) {
		struct cJSON *j = pn_topology_to_json(&t);
		char *s = cJSON_Print(j);

		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else {
		pn_topology_print(&t, stdout);
	}
	pn_topology_free(&t);
	return 0;
}
